// The text report's header blocks (see engine/text_report.hpp).
#include "engine/text_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cli/run_changes.hpp"
#include "core/output.hpp"
#include "core/text.hpp"
#include "scenario/submit_budget.hpp"
#include "scenario/scenario_check.hpp"
#include "scenario/scenario_cpu.hpp"
#include "scenario/stress.hpp"
#include "repro_version.h"
#include "vk/describe.hpp"
#include "vk/stress.hpp"

namespace repro {
namespace {

bool showsShort(const Options& o) { return headerDetail(o) != HeaderDetail::None; }
bool showsFull(const Options& o) { return headerDetail(o) == HeaderDetail::Full; }

std::vector<std::string> pairs(const std::vector<std::pair<std::string, std::string>>& items) {
    std::vector<std::string> out;
    for (const auto& [k, v] : items) out.push_back(fmt::format("{}={}", k, v));
    return out;
}

// "  LABEL: a, b, c" for a long list: packed into lines of at most kTextColumns, the lines
// after the first indented by 4 spaces, each item whole (`empty` for an empty list).
void sayList(std::string_view label, const std::vector<std::string>& items, std::string_view separator = ", ",
             std::string_view empty = "none") {
    std::string line = fmt::format("  {}: ", label);
    bool first = true;
    for (const std::string& item : items) {
        const std::string piece = first ? item : std::string(separator) + item;
        if (!first && line.size() + piece.size() > kTextColumns) {
            say("{}{}", line, separator.substr(0, separator.find_last_not_of(' ') + 1));
            line = "    " + item;
        } else {
            line += piece;
        }
        first = false;
    }
    say("{}", items.empty() ? line + std::string(empty) : line);
}

void printSpirv(const ShaderSources& shaders) {
    for (const ShaderSource* src : {&shaders.convT, &shaders.slice}) {
        std::vector<std::string> bindings;
        for (const auto& b : src->module.bindings) {
            bindings.push_back(fmt::format("{}={}{}", b.binding, name(b.kind), b.nonWritable ? " (read-only)" : ""));
        }
        say("  spirv: {}: entry point '{}', SPIR-V {}.{}, {} words, bindings {}", src->origin, src->module.entryPoint,
            (src->module.version >> 16) & 0xff, (src->module.version >> 8) & 0xff, src->module.words.size(),
            join(bindings, ", "));
    }
}

// blade-exact's quirks in force on this device, one line each.
std::vector<std::string> bladeQuirks(const Rig& rig) {
    std::vector<std::string> quirks;
    if (rig.paramsDescriptorMismatch) {
        quirks.push_back(
            "params declared Uniform in SPIR-V, written through a STORAGE_BUFFER "
            "descriptor (descriptor type mismatch: INVALID, undefined behaviour; "
            "validation reports it)");
    }
    quirks.insert(quirks.end(),
                  {
                      "no HOST_READ barrier before the host reads small[N] (INVALID: the closing G's "
                      "ALL_COMMANDS scope does not include HOST; synchronization validation does not check "
                      "host reads)",
                      "gpu-alloc 0.6 layout: buffers under min(32 MiB, heap/32) share power-of-two chunks",
                      "queue family 0 whatever its flags",
                      "a 1 MiB Shared _scratch buffer after the chain's buffers",
                  });
    const vk::EnabledFeatures& f = rig.device.features();
    if (f.bufferDeviceAddress) {
        quirks.push_back("SHADER_DEVICE_ADDRESS usage on every buffer, DEVICE_ADDRESS flag on every allocation");
    }
    if (f.pipelineExecutableInfo) quirks.push_back("pipelines created with CAPTURE_STATISTICS");
    if (!rig.convT.statistics.empty()) {
        quirks.push_back(fmt::format("vkGetShaderInfoAMD statistics: conv_t {}, slice {}", rig.convT.statistics,
                                     rig.slice.statistics));
    }
    if (f.cooperativeMatrix) {
        quirks.push_back(
            "VK_KHR_cooperative_matrix with cooperativeMatrix and vulkanMemoryModel "
            "(no DeviceScope), as blade enables them for a usable tile");
    }
    if (f.storage16Bit) {
        quirks.push_back(
            "storageBuffer16BitAccess and uniformAndStorageBuffer16BitAccess (blade: "
            "with an f16 cooperative-matrix tile)");
    }
    if (f.bindingArray) quirks.push_back("descriptor-indexing features of blade's binding arrays");
    return quirks;
}

void printBladeExact(const Rig& rig, ExperimentReport& report) {
    report.quirks = bladeQuirks(rig);
    say("  profile blade-exact: quirks in force:");
    for (const auto& q : report.quirks) say("    - {}", q);
    say("    not in force here (each says why): {}", join(rig.device.omittedFeatures(), "; "));
    if (rig.paramsDescriptorMismatch) {
        say("    NOT validation-clean: the descriptor type mismatch draws validation errors "
            "(with --validation, exit 4 unless something worse happens)");
    } else {
        say("    validation-clean as far as the layer checks: the missing HOST_READ barrier "
            "is not checked by it");
    }
    say("  memory layout:");
    for (const auto& line : rig.buffers.allocator->describeLayout()) say("    {}", line);
}

namespace sc = repro::scenario;

// The label of the file's dispatch `k` (1-based among its dispatch steps), for the control line.
std::string droppedLabel(const sc::Scenario& s, uint32_t k) {
    uint32_t seen = 0;
    for (const auto& step : s.steps) {
        if (std::holds_alternative<sc::Dispatch>(step.body) && ++seen == k) return step.label;
    }
    return "none";
}

// The file's timeout per submit: --timeout's, or the base plus the longest submit's budget
// (the one submit of all steps, scenario/submit_budget.hpp submitBudgets).
std::string fileTimeout(const Options& o, const sc::Scenario& s, bool cpuDevice) {
    if (o.timeoutSeconds) return fmt::format("{} s", *o.timeoutSeconds);
    double all = 0;
    for (const double b : submitBudgets(s, cpuDevice)) all += b;
    return fmt::format("auto (120 s plus each work step's budget: {:.0f} s for all {} steps in one submit)", 120 + all,
                       s.steps.size());
}

}  // namespace

void printFilePlan(const Options& o, const Plan& plan, bool cpuDevice) {
    if (!showsShort(o)) return;
    const sc::Scenario& s = plan.variants.front();
    const size_t dispatches = std::count_if(s.steps.begin(), s.steps.end(), [](const sc::Step& step) {
        return std::holds_alternative<sc::Dispatch>(step.body);
    });
    say("Scenario '{}' ({}): {} step(s), {} dispatch(es){}", escaped(s.name), escaped(s.file), s.steps.size(),
        dispatches, s.usesQueues() ? fmt::format(" on {} queues", s.queues.size()) : "");
    sayWrapped("  source: " + escaped(s.source));
    sayWrapped("  pattern: " + escaped(s.pattern));
    say("  expected on a correct driver: {}", s.expected);
    sayWrapped("  steps: " + escaped(sc::stepList(s)));
    for (const auto& k : s.kernels)
        say("  kernel: {} (user SPIR-V {}, entry {}, {} binding(s), local size {}x{}x{}; {})", escaped(k.name),
            escaped(k.spirv), escaped(k.entry), k.writes.size(), k.localSize[0], k.localSize[1], k.localSize[2],
            k.validation.empty() ? "not checked by spirv-val" : k.validation);
    if (s.shape)
        say("  shape: {} ({}; conv-T {} workgroups, slice {})", s.shapeName, describe(*s.shape),
            fmt::join(computeSizes(*s.shape).convWorkgroups, "x"),
            fmt::join(computeSizes(*s.shape).sliceWorkgroups, "x"));
    if (const sc::ChainValues off = s.cpuChain ? sc::ChainValues{} : sc::checkedChainValues(s); !off.empty()) {
        const std::string why =
            o.reference == ReferenceKind::Split
                ? std::string("--reference split")
                : fmt::format("{:.2g} multiply-adds, past --reference auto's {:.2g}; --reference cpu computes it",
                              double(sc::chainReferenceCost(*s.shape, off)), double(sc::kAutoChainMultiplyAdds));
        for (const auto& [buffer, v] : off)
            say("  chain: '{}' holds the chain's {}; the CPU chain is off ({}): compared with split only",
                escaped(buffer), sc::describe(v), why);
    }
    for (const auto& [buffer, v] : sc::chainChecked(s))
        say("  chain: '{}' holds the chain's {}{}: compared with the CPU model's float64 chain within a float32 "
            "tolerance derived from the shaders' summation (src/reference/cpu_reference.hpp)",
            escaped(buffer), sc::describe(v), v.kind == sc::ChainValue::Kind::Big ? " (its crop at (1, 1))" : "");
    std::vector<std::string> parameters, poisoned;
    // Under a sweep, the file's own values (each point's swept value is in its results' title).
    for (const auto& [n, v] : o.parameterSweep ? s.fileParameters : s.parameters)
        parameters.push_back(fmt::format("{} = {}", escaped(n), v));
    if (!parameters.empty())
        say("  parameters: {}{}", join(parameters, ", "),
            o.parameterSweep ? fmt::format(" (--sweep {})", escaped(o.parameterSweep->parameter)) : "");
    for (const auto& b : s.buffers) {
        if (b.poisoned) poisoned.push_back("'" + escaped(b.name) + "'");
    }
    if (!poisoned.empty())
        say("  poison: {} start as 0x{:08x} words in every mode and in the CPU model (--poison: init undefined or "
            "written before read)",
            join(poisoned, ", "), kPoisonPattern);
    if (const std::string names = sc::splitOnlyBuffers(s); !names.empty())
        say("  note: the CPU model cannot compute {}: checked buffer(s) {} are compared with split only",
            sc::unmodelledKernels(s), names);  // names print as themselves (the parser refuses others)
    say("  timeout per submit: {}", fileTimeout(o, s, cpuDevice));
}

namespace {

// --stress's header line: what runs under stress, and where (docs/scenarios.md "--stress").
void printStress(const sc::Scenario& s) {
    const std::string shuffled =
        "shuffled workgroups (the kernel set's, in every mode; not user kernels, conv-t or slice)";
    if (s.usesQueues()) {
        say("  stress: {}; no priming or traffic (only on a file on one queue)", shuffled);
        return;
    }
    say("  stress: priming ({} file buffer(s), multipass and single), traffic ({} MiB x {} passes on the main queue, "
        "interleaved with the file's work), {}",
        sc::primedBuffers(s).size(), vk::kStressScratchBytes >> 20, vk::kStressTrafficPasses, shuffled);
}

// What both forms' experiment reports take from the options as they are: the submits, the
// dispatch left out and every flag that changes the stream (runChanges).
ExperimentReport experimentReport(const Options& o, std::string barrier, std::string memory, bool control) {
    return {.barrier = std::move(barrier),
            .submitEvery = o.submit.every,
            .splitMiB = o.submit.splitMiB,
            .splitMs = o.submit.splitMs,
            .hostWait = o.submit.hostWait,
            .memory = std::move(memory),
            .dropDispatch = o.dropDispatch,
            .changes = runChanges(o).all(),
            .control = control || o.dropDispatch.has_value()};
}

}  // namespace

ExperimentReport printFileExperiment(const Options& o, const sc::Scenario& s) {
    ExperimentReport report =
        experimentReport(o, o.barrierGiven ? std::string(name(o.barrier)) : "as written",
                         o.memory == BufferMemory::Blade ? "as written" : std::string(name(o.memory)), s.hasControl());
    if (o.workScale > 1) report.changes.push_back(fmt::format("--work-scale {}", o.workScale));
    if (o.stress) report.changes.push_back("--stress"), report.stress = sc::stressParts(s);
    if (!showsShort(o)) return report;
    if (report.changes.empty()) say("  experiment flags: none (the file's stream)");
    if (!report.changes.empty()) say("  experiment: {}", join(report.changes, " "));
    if (o.stress) printStress(s);
    if (s.hasControl())
        say("  CONTROL: {} is labelled a control (insufficient on purpose): a wrong result proves nothing about the "
            "driver",
            s.controlSteps());
    return report;
}

void sayWrapped(const std::string& line) {
    if (line.size() <= kTextColumns) {
        say("{}", line);
        return;
    }
    const size_t lead = std::min(line.find_first_not_of(' '), line.size());
    say("{}", wrapWords(line.substr(0, lead), std::string_view(line).substr(lead), std::min(lead, size_t{40}) + 4,
                        kTextColumns));
}

void printDeviceList(const std::vector<vk::DeviceInfo>& devices) {
    if (devices.empty()) say("no Vulkan devices");
    for (const auto& d : devices) {
        say("{}: {} [{}, Vulkan {}, {} {}] {}", d.index, d.properties.deviceName,
            vk::deviceTypeName(d.properties.deviceType), vk::apiVersionText(d.apiVersion()),
            d.hasDriverProperties ? d.driver.driverName : "driver",
            d.hasDriverProperties ? d.driver.driverInfo : vk::driverVersionText(d),
            d.unusable.empty() ? "usable" : "NOT usable: " + d.unusable);
    }
}

HeaderDetail headerDetail(const Options& o) {
    if (o.quiet) return HeaderDetail::None;
    return o.verbose ? HeaderDetail::Full : HeaderDetail::Short;
}

void printBanner(const Options& o, const Plan& plan, const std::string& loaderVersion) {
    if (!showsShort(o)) return;
    say("repro {} (git {}): {}; Vulkan loader {}", kReproVersion, kReproGitHash,
        plan.builtIn() ? std::string("blade issue #356, conv-T + slice chain")
                       : fmt::format("scenario '{}'", escaped(plan.variants.front().name)),
        loaderVersion);
}

void printDevice(const Options& o, const DeviceReport& d) {
    if (!showsShort(o)) return;
    say("Device: {}", d.deviceName);
    if (!showsFull(o)) {
        // A vendorID above 0xffff is a Khronos vendor ID, not a PCI one (Vulkan spec,
        // VkPhysicalDeviceProperties: "vendorID").
        say("  driver: {} {} ({}) | Vulkan {} | {} | {} {:04x}:{:04x}", d.driverName.empty() ? "?" : d.driverName,
            d.driverInfo.empty() ? d.driverVersion : d.driverInfo, d.driverId.empty() ? "driverID ?" : d.driverId,
            d.apiVersion, d.deviceType, d.vendorId > 0xffff ? "vendor:device" : "PCI ID", d.vendorId, d.deviceId);
        return;
    }
    say("  driver: driverName {} | driverInfo {} | driverID {} | driverVersion {} (0x{:x})",
        d.driverName.empty() ? "?" : d.driverName, d.driverInfo.empty() ? "?" : d.driverInfo,
        d.driverId.empty() ? "?" : d.driverId, d.driverVersion, d.driverVersionRaw);
    say("  Vulkan {} | vendorID 0x{:04x} deviceID 0x{:04x} | {} | conformance {}{}", d.apiVersion, d.vendorId,
        d.deviceId, d.deviceType, d.conformanceVersion.empty() ? "?" : d.conformanceVersion,
        d.pciBus ? fmt::format(" | PCI {}", *d.pciBus) : "");
    say("  deviceUUID {} driverUUID {}", d.deviceUuid, d.driverUuid);
    say("  queue choice: {} ({})", d.queueNote, d.queueFlags);
    say("  driver library: {}",
        d.driverLibrary ? *d.driverLibrary + (d.driverManifest ? fmt::format(" (manifest {})", *d.driverManifest) : "")
                        : "not reported by the loader");
    sayList("extensions", d.extensions);
    sayList("features", d.features);
    say("  memory: one line per buffer: buffer (class) -> memory type (flags), heap (size)");
    for (const auto& m : d.memory) {
        say("    {} ({}) -> type {} ({}) heap {} ({} MiB)", m.buffer, m.memoryClass, m.typeIndex, m.typeFlags,
            m.heapIndex, m.heapBytes >> 20);
    }
}

void printEnvironment(const Options& o, const EnvironmentReport& e) {
    if (!showsFull(o)) return;
    sayList("host", pairs(e.host), " | ");
    sayList("kernel driver", pairs(e.kernelDriver), " | ", "nothing readable");
    sayList("driver environment", pairs(e.variables), " ", "none set");
    for (const auto& note : e.notes) sayWrapped("  note: " + note);
}

// `line` without its last parenthesised part, the source of the job timeout ("... after
// 2000 ms (kernel default for Linux 6.19+: ...)"): the short header's form.
static std::string withoutSource(const std::string& line) {
    if (line.empty() || line.back() != ')') return line;
    int depth = 0;
    for (size_t i = line.size(); i-- > 0;) {
        if (line[i] == ')') ++depth;
        if (line[i] == '(' && --depth == 0) return i > 0 && line[i - 1] == ' ' ? line.substr(0, i - 1) : line;
    }
    return line;
}

void printQueue(const Options& o, const std::string& queueLine, const std::string& kernelLogNote) {
    if (!showsShort(o)) return;
    sayWrapped("  " + (showsFull(o) ? queueLine : withoutSource(queueLine)));
    if (showsFull(o) && !kernelLogNote.empty()) sayWrapped("  note: " + kernelLogNote);
}

void printChain(const Options& o, const ChainSizes& sizes, bool cpuDevice) {
    if (!showsShort(o)) return;
    const uint32_t n = o.chainLength;
    if (showsFull(o)) {
        say("small={} big={} (each conv-T writes {} elems = {} MiB)", sizes.smallElems, sizes.bigElems, sizes.bigElems,
            sizes.bigElems * 4 / 1024 / 1024);
    }
    if (o.sweep) {
        say("Chaining {}..{} conv-T + slice ops (sweep)", o.sweep->first, o.sweep->second);
    } else {
        say("Chaining {} conv-T + slice ops", n);
    }
    if (showsFull(o)) {
        say("conv-T wgs=[{}, {}, {}], slice wgs=[{}, {}, {}]", sizes.convWorkgroups[0], sizes.convWorkgroups[1],
            sizes.convWorkgroups[2], sizes.sliceWorkgroups[0], sizes.sliceWorkgroups[1], sizes.sliceWorkgroups[2]);
    }
    say("  shape: preset {}: {}; timeout per submit: {}", o.preset, describe(o.shape),
        o.timeoutSeconds ? fmt::format("{} s", *o.timeoutSeconds)
                         : fmt::format("auto ({:.0f} s for one conv-T, {:.0f} s for {})",
                                       submitTimeoutSeconds(std::nullopt, o.shape, 1, cpuDevice),
                                       submitTimeoutSeconds(std::nullopt, o.shape, n, cpuDevice), n));
}

void printAdditions(const Options& o, const Plan& plan, const vk::Instrumentation& i,
                    const std::vector<std::string>& instrumentationNotes) {
    if (!showsShort(o)) return;
    std::vector<std::string> added;
    if (i.timestamps()) added.push_back("timestamp queries around every dispatch");
    if (i.breadcrumbs()) added.push_back("a VK_AMD_buffer_marker after every dispatch");
    if (i.labels()) added.push_back("debug-utils labels around dispatches and barriers");
    if (!added.empty()) {
        say("  added to {} command stream: {}", plan.builtIn() ? "blade's" : "the file's", join(added, "; "));
        if (i.timestamps() || i.breadcrumbs()) say("  note: {}", kInstrumentationCaveat);
    }
    for (const auto& note : instrumentationNotes) say("  note: {}", note);
    if (o.dropDispatch && plan.builtIn()) {
        const uint32_t k = *o.dropDispatch;
        say("  POSITIVE CONTROL: dispatch {} (step {} {}) is left out of multipass and single; "
            "the checker must report them wrong",
            k, (k + 1) / 2, k % 2 ? "conv-T" : "slice");
    } else if (o.dropDispatch) {
        say("  POSITIVE CONTROL: dispatch {} of the file ({}) is left out of multipass and single; the checker must "
            "report them wrong",
            *o.dropDispatch, escaped(droppedLabel(plan.variants.front(), *o.dropDispatch)));
    }
    if (o.reference == ReferenceKind::None) {
        say("  reference: none: zero and non-finite checks only (the original's semantics)");
    }
}

ExperimentReport printExperiment(const Options& o, const Rig& rig, const ShaderSources& shaders) {
    ExperimentReport report =
        experimentReport(o, std::string(name(o.barrier)), std::string(name(o.memory)), isControl(o.barrier));
    report.dispatchRepeat = o.dispatchRepeat;
    report.profile = std::string(name(o.profile));
    report.spirvDir = o.spirvDir;
    const RunChanges changes = runChanges(o);
    if (!showsShort(o)) {
        if (rig.profile.bladeExact()) report.quirks = bladeQuirks(rig);
        return report;
    }
    if (changes.none()) say("  experiment flags: none (blade's stream)");
    if (!changes.recording.empty()) {
        say("  experiment: {} (multipass and single; split stays blade's stream as the reference)",
            join(changes.recording, " "));
    }
    if (!changes.setup.empty()) say("  experiment: {} (every mode, split included)", join(changes.setup, " "));
    if (isControl(o.barrier)) {
        say("  CONTROL: --barrier {} is INVALID Vulkan on purpose (no {} between dependent "
            "dispatches); a wrong result here says nothing about the driver, and --validation "
            "must report hazards",
            name(o.barrier), o.barrier == BarrierKind::None ? "barrier" : "memory barrier");
    }
    if (o.spirvDir || rig.profile.bladeExact()) printSpirv(shaders);
    if (rig.profile.bladeExact()) printBladeExact(rig, report);
    return report;
}

void printTimings(const PhaseTimings& t) {
    say("timings (host, s): instance+device {:.3f} | pipelines {:.3f} | buffers+upload {:.3f} | "
        "recording {:.3f} | gpu wait {:.3f} | readback {:.3f} | verification {:.3f} | total {:.3f}",
        t.instanceAndDevice, t.pipelines, t.buffersAndUpload, t.recording, t.gpuWait, t.readback, t.verification,
        t.total);
}

}  // namespace repro
