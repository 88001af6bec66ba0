// repro: reproduces blade issue #356, a GPU-driver synchronization bug, with raw Vulkan.
//
// The story: options -> device -> buffers and pipelines -> record and run each mode ->
// check -> report -> exit status (SPEC §5). Results are printed and flushed as each mode
// finishes, so a hang or crash in a later mode cannot lose them.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/cpu_reference.hpp"
#include "core/environment.hpp"
#include "core/interrupt.hpp"
#include "core/report.hpp"
#include "core/report_render.hpp"
#include "core/options.hpp"
#include "core/shape.hpp"
#include "core/spirv_module.hpp"
#include "core/variant.hpp"
#include "core/stats.hpp"
#include "core/verdict.hpp"
#include "output.hpp"
#include "repro_shared.h"
#include "repro_version.h"
#include "experiments.hpp"
#include "session.hpp"
#include "vk/chain.hpp"
#include "vk/check.hpp"
#include "vk/describe.hpp"
#include "vk/device.hpp"
#include "vk/encoder.hpp"
#include "vk/memory.hpp"
#include "vk/pipeline.hpp"

extern const uint32_t conv_t_spv[];
extern const size_t conv_t_spv_words;
extern const uint32_t slice_spv[];
extern const size_t slice_spv_words;
extern const uint32_t conv_t_uniform_spv[];
extern const size_t conv_t_uniform_spv_words;
extern const uint32_t slice_uniform_spv[];
extern const size_t slice_uniform_spv_words;

namespace repro {
namespace {

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

// Every device fact the report carries (vulkaninfo --summary's fields and the set-up).
DeviceReport describeDevice(const vk::Device& device, const vk::ChainBuffers& buffers) {
    const vk::DeviceInfo& d = device.info();
    DeviceReport r;
    r.index = d.index;
    r.deviceName = d.properties.deviceName;
    r.deviceType = vk::deviceTypeName(d.properties.deviceType);
    r.apiVersion = vk::apiVersionText(d.apiVersion());
    r.driverVersion = vk::driverVersionText(d);
    r.driverVersionRaw = d.properties.driverVersion;
    r.vendorId = d.properties.vendorID;
    r.deviceId = d.properties.deviceID;
    if (d.hasDriverProperties) {
        r.driverId = vk::driverIdName(d.driver.driverID);
        r.driverName = d.driver.driverName;
        r.driverInfo = d.driver.driverInfo;
        const auto& c = d.driver.conformanceVersion;
        r.conformanceVersion = fmt::format("{}.{}.{}.{}", c.major, c.minor, c.subminor, c.patch);
    }
    r.deviceUuid = vk::uuidText(d.ids.deviceUUID);
    r.driverUuid = vk::uuidText(d.ids.driverUUID);
    r.pciBus = d.pciBus;
    r.queueFamily = device.queueFamily();
    r.queueFlags = vk::queueFlagsText(d.queueFamilies[device.queueFamily()].queueFlags);
    r.queueNote = d.queueNote;
    r.extensions = device.enabledExtensions();
    r.features = device.enabledFeatures();
    for (const vk::Buffer* b : {&buffers.small.front(), &buffers.small.back(), &buffers.big.front(),
                                &buffers.weight}) {
        const auto& type = d.memory.memoryTypes[b->memoryType];
        const auto& heap = d.memory.memoryHeaps[type.heapIndex];
        r.memory.push_back({.buffer = b->name,
                            .memoryClass = std::string(vk::name(b->memoryClass)),
                            .typeIndex = b->memoryType,
                            .typeFlags = vk::memoryFlagsText(type.propertyFlags),
                            .heapIndex = type.heapIndex,
                            .heapBytes = heap.size,
                            .heapFlags = (heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) ? "DEVICE_LOCAL"
                                                                                         : "none"});
    }
    return r;
}

void printDevice(const DeviceReport& d) {
    say("Device: {}", d.deviceName);
    say("  driver: driverName {} | driverInfo {} | driverID {} | driverVersion {} (0x{:x})",
        d.driverName.empty() ? "?" : d.driverName, d.driverInfo.empty() ? "?" : d.driverInfo,
        d.driverId.empty() ? "?" : d.driverId, d.driverVersion, d.driverVersionRaw);
    say("  Vulkan {} | vendorID 0x{:04x} deviceID 0x{:04x} | {} | conformance {}{}", d.apiVersion,
        d.vendorId, d.deviceId, d.deviceType, d.conformanceVersion.empty() ? "?" : d.conformanceVersion,
        d.pciBus ? fmt::format(" | PCI {}", *d.pciBus) : "");
    say("  deviceUUID {} driverUUID {}", d.deviceUuid, d.driverUuid);
    say("  queue: {} ({})", d.queueNote, d.queueFlags);
    say("  extensions: {}", join(d.extensions));
    say("  features: {}", join(d.features));
    std::vector<std::string> parts;
    for (const auto& m : d.memory) {
        parts.push_back(fmt::format("{} ({}) -> type {} ({}) heap {} ({} MiB)", m.buffer, m.memoryClass, m.typeIndex,
                                    m.typeFlags, m.heapIndex, m.heapBytes >> 20));
    }
    say("  memory: {}", join(parts, "; "));
}

// The environment block of the text report.
void printEnvironment(const EnvironmentReport& e) {
    auto pairs = [](const std::vector<std::pair<std::string, std::string>>& items) {
        std::vector<std::string> out;
        for (const auto& [k, v] : items) out.push_back(fmt::format("{}={}", k, v));
        return out;
    };
    say("  host: {}", join(pairs(e.host), " | "));
    say("  kernel driver: {}",
        e.kernelDriver.empty() ? "nothing readable" : join(pairs(e.kernelDriver), " | "));
    say("  driver environment: {}", e.variables.empty() ? "none set" : join(pairs(e.variables), " "));
    for (const auto& note : e.notes) say("  note: {}", note);
}

// Device limits the shapes must fit (exit 1: the values are impossible on this device)
// and the memory the chain needs (exit 125: not enough device memory).
void checkDeviceFits(const vk::DeviceInfo& d, const ChainSizes& sizes, uint32_t n) {
    const auto& limits = d.properties.limits;
    const std::pair<const std::array<uint32_t, 3>&, const char*> dispatches[] = {
        {sizes.convWorkgroups, "conv-T"}, {sizes.sliceWorkgroups, "slice"}};
    for (const auto& [groups, what] : dispatches) {
        for (int axis = 0; axis < 3; ++axis) {
            if (groups[axis] > limits.maxComputeWorkGroupCount[axis]) {
                throw UsageError(fmt::format(
                    "shape: {} dispatch [{}, {}, {}] exceeds the device's maxComputeWorkGroupCount "
                    "[{}, {}, {}] in axis {}",
                    what, groups[0], groups[1], groups[2], limits.maxComputeWorkGroupCount[0],
                    limits.maxComputeWorkGroupCount[1], limits.maxComputeWorkGroupCount[2], axis));
            }
        }
    }
    if (sizes.bigBytes > limits.maxStorageBufferRange) {
        throw vk::CannotTest(fmt::format("a big buffer is {} bytes, over the device's "
                                         "maxStorageBufferRange {}",
                                         sizes.bigBytes, limits.maxStorageBufferRange));
    }
    const uint64_t allocations = 2 * uint64_t{n} + 4;
    if (allocations > limits.maxMemoryAllocationCount) {
        throw vk::CannotTest(fmt::format("-n {} needs {} memory allocations, over the device's "
                                         "maxMemoryAllocationCount {}",
                                         n, allocations, limits.maxMemoryAllocationCount));
    }
    // Bytes per heap, with each class placed where blade's rules would put it.
    std::vector<uint64_t> need(d.memory.memoryHeapCount, 0);
    const ChainMemory memory = chainMemory(sizes, n);
    for (const auto& [cls, bytes] : {std::pair{vk::MemoryClass::Device, memory.deviceBytes},
                                     std::pair{vk::MemoryClass::Shared, memory.sharedBytes}}) {
        if (auto type = vk::chooseMemoryType(d.memory, ~0u, cls)) {
            uint64_t& heap = need[d.memory.memoryTypes[*type].heapIndex];
            heap = bytes > UINT64_MAX - heap ? UINT64_MAX : heap + bytes;
        }
    }
    for (uint32_t h = 0; h < need.size(); ++h) {
        if (need[h] > d.memory.memoryHeaps[h].size) {
            throw vk::CannotTest(fmt::format(
                "not enough device memory: the chain needs {} MiB in heap {}, which holds {} MiB "
                "(try a smaller -n or --preset)",
                need[h] >> 20, h, d.memory.memoryHeaps[h].size >> 20));
        }
    }
}

// The SPIR-V of one shader: built in, or --spirv DIR/<file>, checked against what the host
// records (UsageError with one line otherwise).
struct ShaderSource {
    SpirvModule module;
    std::string origin;  // "built in" or the path
};

ShaderSource shaderSource(const Options& options, const char* file, std::span<const uint32_t> builtIn,
                          std::span<const uint32_t> builtInUniform, std::array<uint32_t, 3> localSize,
                          uint32_t bindings) {
    ShaderSource source;
    if (options.spirvDir) {
        const auto path = std::filesystem::path(*options.spirvDir) / file;
        source.module = loadSpirvFile(path);
        source.origin = path.string();
    } else {
        const bool uniform = options.profile == Profile::BladeExact;
        const auto words = uniform ? builtInUniform : builtIn;
        source.module = parseSpirv(std::vector<uint32_t>(words.begin(), words.end()),
                                   uniform ? fmt::format("built-in {} (params Uniform)", file)
                                           : fmt::format("built-in {}", file));
        source.origin = uniform ? "built in, params declared Uniform and the entry point named as naga does"
                                : "built in";
    }
    checkComputeInterface(source.module, "--spirv " + source.origin, localSize, bindings);
    return source;
}

// Descriptor types for a module's bindings: the default profile matches the SPIR-V (a
// Uniform block gets UNIFORM_BUFFER); blade-exact writes STORAGE_BUFFER for every binding,
// as blade does (blade-command-stream.md §5).
std::vector<VkDescriptorType> descriptorTypes(const SpirvModule& module, Profile profile) {
    std::vector<VkDescriptorType> types;
    for (const SpirvBinding& b : module.bindings) {
        types.push_back(profile == Profile::Default && b.kind == SpirvResourceKind::UniformBuffer
                            ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                            : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    }
    return types;
}

// Makes sure --dump-dir exists and is a directory before any GPU work starts.
void prepareDumpDir(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir)) {
        throw UsageError(fmt::format("--dump-dir: cannot use '{}' as a directory ({})", dir,
                                     ec ? ec.message() : "not a directory"));
    }
}

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Gives every object its name for captures and hang dumps (--labels).
void nameObjects(const vk::Device& device, const vk::ChainBuffers& buffers,
                 const vk::ComputePipeline& convT, const vk::ComputePipeline& slice,
                 const vk::Encoder& encoder) {
    auto setName = [&](VkObjectType type, uint64_t handle, const std::string& name) {
        const VkDebugUtilsObjectNameInfoEXT info{
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
            .objectType = type,
            .objectHandle = handle,
            .pObjectName = name.c_str()};
        vkSetDebugUtilsObjectNameEXT(device.get(), &info);
    };
    auto nameBuffer = [&](const vk::Buffer& b) {
        setName(VK_OBJECT_TYPE_BUFFER, reinterpret_cast<uint64_t>(b.get()), b.name);
        if (b.memory) {  // a dedicated allocation; shared chunks hold several buffers
            setName(VK_OBJECT_TYPE_DEVICE_MEMORY, reinterpret_cast<uint64_t>(b.memory.get()),
                    b.name + " memory");
        }
    };
    for (const vk::Buffer* b : {&buffers.convParams, &buffers.sliceParams, &buffers.weight}) {
        nameBuffer(*b);
    }
    for (const auto& b : buffers.small) nameBuffer(b);
    for (const auto& b : buffers.big) nameBuffer(b);
    setName(VK_OBJECT_TYPE_PIPELINE, reinterpret_cast<uint64_t>(convT.pipeline.get()), "conv_t");
    setName(VK_OBJECT_TYPE_PIPELINE, reinterpret_cast<uint64_t>(slice.pipeline.get()), "slice");
    setName(VK_OBJECT_TYPE_COMMAND_BUFFER, reinterpret_cast<uint64_t>(encoder.cmd()), "repro");
}

// Writes the JSON report to --output; false (one line on stderr) when it cannot.
bool writeJsonReport(const std::string& path, const RunReport& report) {
    std::ofstream out(path, std::ios::trunc);
    out << renderJsonText(report);
    out.close();
    if (!out) {
        fmt::print(stderr, "repro: --output: cannot write '{}'\n", path);
        return false;
    }
    return true;
}

// The experiment settings in force (SPEC: say what was recorded), blade-exact's quirks, and
// whether the run can be validation-clean.
ExperimentReport printExperiment(const Options& o, const vk::Device& device,
                                 const vk::ChainBuffers& buffers, const vk::ComputePipeline& convT,
                                 const vk::ComputePipeline& slice, const ShaderSource& convTSource,
                                 const ShaderSource& sliceSource) {
    ExperimentReport report{.barrier = std::string(name(o.barrier)),
                            .submitEvery = o.submit.every,
                            .splitMiB = o.submit.splitMiB,
                            .hostWait = o.submit.hostWait,
                            .memory = std::string(name(o.memory)),
                            .dispatchRepeat = o.dispatchRepeat,
                            .profile = std::string(name(o.profile)),
                            .spirvDir = o.spirvDir,
                            .control = isControl(o.barrier)};
    std::vector<std::string> recording, setup;
    if (o.barrier != BarrierKind::Blade) recording.push_back(fmt::format("--barrier {}", name(o.barrier)));
    if (o.submit.every) recording.push_back(fmt::format("--submit-every {}", o.submit.every));
    if (o.submit.splitMiB) recording.push_back(fmt::format("--split-mib {}", *o.submit.splitMiB));
    if (o.submit.cuts()) recording.push_back(o.submit.hostWait ? "--host-wait" : "--no-host-wait");
    if (o.dispatchRepeat > 1) recording.push_back(fmt::format("--dispatch-repeat {}", o.dispatchRepeat));
    if (o.memory != BufferMemory::Blade) setup.push_back(fmt::format("--memory {}", name(o.memory)));
    if (o.profile != Profile::Default) setup.push_back(fmt::format("--profile {}", name(o.profile)));
    if (o.spirvDir) setup.push_back(fmt::format("--spirv {}", *o.spirvDir));
    if (!recording.empty()) {
        say("  experiment: {} (multipass and single; split stays blade's stream as the reference)",
            join(recording, " "));
    }
    if (!setup.empty()) say("  experiment: {} (every mode, split included)", join(setup, " "));
    if (isControl(o.barrier)) {
        say("  CONTROL: --barrier {} is INVALID Vulkan on purpose (no {} between dependent "
            "dispatches); a wrong result here says nothing about the driver, and --validation "
            "must report hazards",
            name(o.barrier), o.barrier == BarrierKind::None ? "barrier" : "memory barrier");
    }
    if (o.spirvDir || o.profile == Profile::BladeExact) {
        for (const ShaderSource* src : {&convTSource, &sliceSource}) {
            std::vector<std::string> bindings;
            for (const auto& b : src->module.bindings) {
                bindings.push_back(fmt::format("{}={}{}", b.binding, name(b.kind),
                                               b.nonWritable ? " (read-only)" : ""));
            }
            say("  spirv: {}: entry point '{}', SPIR-V {}.{}, {} words, bindings {}", src->origin,
                src->module.entryPoint, (src->module.version >> 16) & 0xff,
                (src->module.version >> 8) & 0xff, src->module.words.size(), join(bindings, ", "));
        }
    }
    if (o.profile == Profile::BladeExact) {
        auto hasUniform = [](const ShaderSource& src) {
            return std::any_of(src.module.bindings.begin(), src.module.bindings.end(),
                               [](const SpirvBinding& b) { return b.kind == SpirvResourceKind::UniformBuffer; });
        };
        const bool mismatch = hasUniform(convTSource) || hasUniform(sliceSource);
        std::vector<std::string> quirks;
        if (mismatch) {
            quirks.push_back("params declared Uniform in SPIR-V, written through a STORAGE_BUFFER "
                             "descriptor (descriptor type mismatch: INVALID, undefined behaviour; "
                             "validation reports it)");
        }
        quirks.insert(quirks.end(), {
            "no HOST_READ barrier before the host reads small[N] (INVALID: the closing G's "
            "ALL_COMMANDS scope does not include HOST; synchronization validation does not check "
            "host reads)",
            "gpu-alloc 0.6 layout: buffers under min(32 MiB, heap/32) share power-of-two chunks",
            "queue family 0 whatever its flags",
            "a 1 MiB Shared _scratch buffer after the chain's buffers",
        });
        if (device.featureEnabled("bufferDeviceAddress")) {
            quirks.push_back("SHADER_DEVICE_ADDRESS usage on every buffer, DEVICE_ADDRESS flag on "
                             "every allocation");
        }
        if (device.featureEnabled("pipelineExecutableInfo")) {
            quirks.push_back("pipelines created with CAPTURE_STATISTICS");
        }
        if (!convT.statistics.empty()) {
            quirks.push_back(fmt::format("vkGetShaderInfoAMD statistics: conv_t {}, slice {}",
                                         convT.statistics, slice.statistics));
        }
        if (device.featureEnabled("cooperativeMatrix")) {
            quirks.push_back("VK_KHR_cooperative_matrix with cooperativeMatrix and vulkanMemoryModel "
                             "(no DeviceScope), as blade enables them for a usable tile");
        }
        if (device.featureEnabled("storageBuffer16BitAccess+uniformAndStorageBuffer16BitAccess")) {
            quirks.push_back("storageBuffer16BitAccess and uniformAndStorageBuffer16BitAccess (blade: "
                             "with an f16 cooperative-matrix tile)");
        }
        if (std::find_if(device.enabledFeatures().begin(), device.enabledFeatures().end(),
                         [](const std::string& f) { return f.starts_with("shaderStorageBufferArray"); }) !=
            device.enabledFeatures().end()) {
            quirks.push_back("descriptor-indexing features of blade's binding arrays");
        }
        say("  profile blade-exact: quirks in force:");
        for (const auto& q : quirks) say("    - {}", q);
        report.quirks = quirks;
        say("    not in force here (each says why): {}", join(device.omittedFeatures(), "; "));
        if (mismatch) {
            say("    NOT validation-clean: the descriptor type mismatch draws validation errors "
                "(with --validation, exit 4 unless something worse happens)");
        } else {
            say("    validation-clean as far as the layer checks: the missing HOST_READ barrier "
                "is not checked by it");
        }
        say("  memory layout:");
        for (const auto& line : buffers.allocator->describeLayout()) say("    {}", line);
    }
    return report;
}

int run(const Options& options, RunReport& report) {
    const auto begin = Clock::now();
    const ChainSizes sizes = computeSizes(options.shape);
    const uint32_t n = options.chainLength;
    // --spirv files are checked before anything else happens (UsageError, exit 1).
    const bool bladeExact = options.profile == Profile::BladeExact;
    const ShaderSource convTSource =
        shaderSource(options, "conv_t.spv", std::span(conv_t_spv, conv_t_spv_words),
                     std::span(conv_t_uniform_spv, conv_t_uniform_spv_words),
                     {REPRO_CONV_WORKGROUP_X, REPRO_CONV_WORKGROUP_Y, 1}, 4);
    const ShaderSource sliceSource =
        shaderSource(options, "slice.spv", std::span(slice_spv, slice_spv_words),
                     std::span(slice_uniform_spv, slice_uniform_spv_words),
                     {REPRO_SLICE_WORKGROUP_X, 1, 1}, 3);
    report.environment = captureEnvironment();

    vk::Instance instance(options.validation);
    const auto devices = vk::enumerateDevices(instance);
    if (options.listDevices) {
        printDeviceList(devices);
        return kExitNotReproduced;
    }
    const vk::DeviceInfo& chosen = vk::chooseDevice(devices, options.device);
    if (options.dumpDir) prepareDumpDir(*options.dumpDir);
    checkDeviceFits(chosen, sizes, n);

    say("repro {} (git {}): blade issue #356, conv-T + slice chain", kReproVersion, kReproGitHash);
    const bool sync2 = options.barrier == BarrierKind::Sync2 || options.barrier == BarrierKind::Full;
    vk::Device device(instance, chosen,
                      {.deviceFault = options.breadcrumbs, .synchronization2 = sync2,
                       .bladeExact = bladeExact});
    report.timings.instanceAndDevice = secondsSince(begin);

    auto phase = Clock::now();
    const auto convT = vk::createComputePipeline(
        device, "conv_t", convTSource.module.words, 4,
        {.entryPoint = convTSource.module.entryPoint,
         .descriptorTypes = descriptorTypes(convTSource.module, options.profile),
         .bladeExact = bladeExact});
    const auto slice = vk::createComputePipeline(
        device, "slice", sliceSource.module.words, 3,
        {.entryPoint = sliceSource.module.entryPoint,
         .descriptorTypes = descriptorTypes(sliceSource.module, options.profile),
         .bladeExact = bladeExact});
    report.timings.pipelines = secondsSince(phase);
    phase = Clock::now();
    const std::vector<float> input = makeInput(sizes);
    const std::vector<float> weight = makeWeight(sizes);
    const vk::ChainBuffers buffers = vk::createChainBuffers(
        device, options.shape, sizes, n, input, weight,
        {.placement = options.memory,
         .bladeExact = bladeExact,
         .withStaging = options.checkSteps || options.sweep.has_value()});
    vk::Encoder encoder(device);
    std::vector<std::string> instrumentationNotes;
    vk::Instrumentation instrumentation =
        vk::createInstrumentation(device, options.timestamps, options.breadcrumbs, options.labels, n,
                                  options.dispatchRepeat, instrumentationNotes);
    report.timings.buffersAndUpload = secondsSince(phase);
    if (instrumentation.labels) nameObjects(device, buffers, convT, slice, encoder);
    // Declared last, destroyed first: nothing above is destroyed while the GPU may use it.
    struct IdleBeforeTeardown {
        const vk::Device& device;
        ~IdleBeforeTeardown() {
            if (!device.abandoned()) vkDeviceWaitIdle(device.get());
        }
    } idleGuard{device};

    report.device = describeDevice(device, buffers);
    printDevice(*report.device);
    for (const auto& note : hangEvidenceNotes(report.device->driverName)) {
        report.environment.notes.push_back("hang evidence: " + note);
    }
    printEnvironment(report.environment);
    say("small={} big={} (each conv-T writes {} elems = {} MiB)", sizes.smallElems, sizes.bigElems,
        sizes.bigElems, sizes.bigElems * 4 / 1024 / 1024);
    if (options.sweep) {
        say("Chaining {}..{} conv-T + slice ops (sweep)", options.sweep->first, options.sweep->second);
    } else {
        say("Chaining {} conv-T + slice ops", n);
    }
    say("conv-T wgs=[{}, {}, {}], slice wgs=[{}, {}, {}]", sizes.convWorkgroups[0],
        sizes.convWorkgroups[1], sizes.convWorkgroups[2], sizes.sliceWorkgroups[0],
        sizes.sliceWorkgroups[1], sizes.sliceWorkgroups[2]);
    const bool cpuDevice = chosen.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    say("  shape: preset {}: {}; timeout per submit: {}", options.preset, describe(options.shape),
        options.timeoutSeconds
            ? fmt::format("{} s", *options.timeoutSeconds)
            : fmt::format("auto ({:.0f} s for one conv-T, {:.0f} s for {})",
                          submitTimeoutSeconds(std::nullopt, options.shape, 1, cpuDevice),
                          submitTimeoutSeconds(std::nullopt, options.shape, n, cpuDevice), n));
    std::vector<std::string> added;
    if (instrumentation.timestamps) added.push_back("timestamp queries around every dispatch");
    if (instrumentation.breadcrumbs) added.push_back("a VK_AMD_buffer_marker after every dispatch");
    if (instrumentation.labels) added.push_back("debug-utils labels around dispatches and barriers");
    if (!added.empty()) {
        say("  added to blade's command stream: {}", join(added, "; "));
        if (instrumentation.timestamps || instrumentation.breadcrumbs) say("  note: {}", kInstrumentationCaveat);
    }
    for (const auto& note : instrumentationNotes) say("  note: {}", note);
    if (options.dropDispatch) {
        const uint32_t k = *options.dropDispatch;
        say("  POSITIVE CONTROL: dispatch {} (step {} {}) is left out of multipass and single; "
            "the checker must report them wrong",
            k, (k + 1) / 2, k % 2 ? "conv-T" : "slice");
    }
    if (options.reference == ReferenceKind::None) {
        say("  reference: none: zero and non-finite checks only (the original's semantics)");
    }
    report.experiment = printExperiment(options, device, buffers, convT, slice, convTSource, sliceSource);
    vk::Chain chain{.device = device,
                    .encoder = encoder,
                    .buffers = buffers,
                    .convT = convT,
                    .slice = slice,
                    .sizes = sizes,
                    .length = n,
                    .shape = options.shape,
                    .fixedTimeout = options.timeoutSeconds,
                    .dropDispatch = options.dropDispatch,
                    .instrumentation = &instrumentation,
                    .barrier = options.barrier,
                    .submit = options.submit,
                    .dispatchRepeat = options.dispatchRepeat,
                    .hostReadBarrier = !bladeExact};
    auto declaresUniform = [](const ShaderSource& src) {
        return std::any_of(src.module.bindings.begin(), src.module.bindings.end(), [](const SpirvBinding& b) {
            return b.kind == SpirvResourceKind::UniformBuffer;
        });
    };
    Session session{options, sizes, instance, device, chain, report,
                    bladeExact && (declaresUniform(convTSource) || declaresUniform(sliceSource))};
    int status = options.sweep ? runSweep(session) : runChainLength(session);
    // Teardown starts by waiting for the queue; a device lost there is still a hang.
    if (!device.abandoned()) {
        const VkResult idle = vkDeviceWaitIdle(device.get());
        if (idle == VK_ERROR_DEVICE_LOST && status != kExitHang) {
            device.markLost();
            const std::string line = "--- GPU HANG: vkDeviceWaitIdle returned VK_ERROR_DEVICE_LOST at "
                                     "teardown, after the results above";
            say("{}", line);
            report.verdict.lines.push_back(line);
            if (status < 128) status = kExitHang;  // an interrupt's 130/143 stays
        } else if (idle != VK_SUCCESS) {
            say("--- warning: vkDeviceWaitIdle returned {} at teardown", vk::resultName(idle));
        }
    }

    report.validation.enabled = options.validation;
    report.validation.errors = instance.validationLog().errors;
    report.validation.warnings = instance.validationLog().warnings;
    report.validation.messages = instance.validationLog().messages;
    report.timings.total = secondsSince(begin);
    for (const auto& warning : watchdogWarnings(report)) say("--- warning: {}", warning);
    if (options.timings) {
        const PhaseTimings& t = report.timings;
        say("timings (host, s): instance+device {:.3f} | pipelines {:.3f} | buffers+upload {:.3f} | "
            "recording {:.3f} | gpu wait {:.3f} | readback {:.3f} | verification {:.3f} | total {:.3f}",
            t.instanceAndDevice, t.pipelines, t.buffersAndUpload, t.recording, t.gpuWait, t.readback,
            t.verification, t.total);
    }
    return status;
}

}  // namespace
}  // namespace repro

int main(int argc, char** argv) {
    using namespace repro;
    const char* envChain = std::getenv("N");
    ParseOutcome parsed = parseCommandLine(
        argc, argv, envChain ? std::optional<std::string_view>(envChain) : std::nullopt);
    if (!parsed.options) {
        if (!parsed.out.empty()) fmt::print("{}", parsed.out);
        if (!parsed.err.empty()) fmt::print(stderr, "{}\n", parsed.err);
        return parsed.exitStatus;
    }
    installInterruptHandlers();
    const Options& options = *parsed.options;
    // With --format markdown or json, stdout carries only that document.
    if (options.format != Format::Text) textStream() = stderr;
    RunReport report{.version = kReproVersion,
                     .gitHash = kReproGitHash,
                     .commandLine = options.commandLine,
                     .preset = options.preset,
                     .shape = options.shape,
                     .chainLength = options.chainLength};
    int status = kExitCannotTest;
    try {
        report.sizes = computeSizes(options.shape);
        if (options.matrix) return runMatrix(options);
        if (options.driverEnvSweep) return runDriverEnvSweep(options);
        status = run(options, report);
    } catch (const UsageError& e) {
        fmt::print(stderr, "repro: {}\n", e.what());
        return kExitUsage;
    } catch (const vk::CannotTest& e) {
        fmt::print(stderr, "repro: cannot test here: {}\n", e.what());
        status = kExitCannotTest;
        report.verdict.lines.push_back(fmt::format("--- CANNOT TEST HERE: {}", e.what()));
    } catch (const vk::VulkanError& e) {
        const bool lost = e.result == VK_ERROR_DEVICE_LOST;
        fmt::print(stderr, "repro: {}: {}\n", lost ? "GPU hang during set-up" : "cannot test here",
                   e.what());
        status = lost ? kExitHang : kExitCannotTest;
        report.verdict.lines.push_back(fmt::format("--- {}: {}", lost ? "GPU HANG" : "CANNOT TEST HERE",
                                                   e.what()));
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "repro: cannot test here: out of host memory\n");
        status = kExitCannotTest;
    } catch (const std::exception& e) {
        fmt::print(stderr, "repro: cannot test here: internal error: {}\n", e.what());
        status = kExitCannotTest;
    }
    if (options.listDevices) return status;
    report.verdict.exitStatus = status;
    if (options.format == Format::Markdown) {
        fmt::print("{}", renderMarkdown(report));
    } else if (options.format == Format::Json) {
        fmt::print("{}", renderJsonText(report));
    }
    std::fflush(stdout);
    // An unwritable --output is a usage error unless a hang or a reproduction says more;
    // every result is printed either way.
    if (options.output && !writeJsonReport(*options.output, report) && status != kExitHang &&
        status != kExitReproduced) {
        return kExitUsage;
    }
    return status;
}
