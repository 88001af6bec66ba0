// The report's Markdown block (see report_markdown.hpp): the environment and results
// tables, the verdict and the collapsed details, from the Markdown pieces of markdown.hpp.
#include "report/report_markdown.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>
#include <optional>
#include <string_view>

#include "forensics/environment.hpp"
#include "report/command_line.hpp"
#include "report/issue_markdown.hpp"
#include "report/markdown.hpp"
#include "core/output.hpp"
#include "report/report_facts.hpp"
#include "core/rust_format.hpp"

namespace repro {
namespace {

using markdown::bulletList;
using markdown::codeBlock;
using markdown::codeSpan;
using markdown::details;
using markdown::escapeText;
using markdown::Table;

std::string valueOr(std::string_view value, std::string_view fallback) {
    return value.empty() ? std::string(fallback) : std::string(value);
}

std::string pairsTable(const std::vector<std::pair<std::string, std::string>>& pairs, std::string_view keyHeader) {
    Table t{{std::string(keyHeader), "value"}, {}};
    for (const auto& [k, v] : pairs) t.rows.push_back({escapeText(k), v.empty() ? "(empty)" : codeSpan(v)});
    return t.render();
}

// A table of (field, value) rows, each value escaped: the details' device, shape and scenario.
struct FieldTable {
    Table table{{"field", "value"}, {}};
    void operator()(std::string_view k, const std::string& v) { table.rows.push_back({std::string(k), escapeText(v)}); }
};

std::string statusWord(int exitStatus) {
    static constexpr std::pair<int, std::string_view> kWords[] = {
        {kExitNotReproduced, "not reproduced"},   {kExitUsage, "usage error"},
        {kExitReproduced, "BUG REPRODUCED"},      {kExitHang, "GPU HANG"},
        {kExitValidation, "validation messages"}, {kExitCannotTest, "cannot test / inconclusive"}};
    for (const auto& [status, word] : kWords) {
        if (status == exitStatus) return std::string(word);
    }
    return "unknown status";
}

std::string percentText(const BufferStats& s) {
    if (s.elements == 0) return "0/0";
    const float percent = 100.0f * static_cast<float>(s.nonZero) / static_cast<float>(s.elements);
    return fmt::format("{}/{} ({}%)", s.nonZero, s.elements, rustFixed(percent, 1));
}

std::string seconds(double x, int decimals) {
    if (!std::isfinite(x)) return rustFixed(x, decimals);
    return fmt::format("{:.{}f}", x, decimals);
}

std::string hex(uint32_t v) { return fmt::format("0x{:04x}", v); }

// "1002:73bf rev c1": the PCI vendor:device and revision the Mesa issue template asks for,
// from the DRM card that matches the device (its sysfs "revision", forensics/environment.cpp);
// "unknown" parts where a CPU driver or an unreadable sysfs gives none.
std::string pciIdText(const EnvironmentReport& e, const DeviceReport& d) {
    if (d.vendorId > 0xffff) return fmt::format("none: vendorID 0x{:x} is not a PCI vendor", d.vendorId);
    std::string revision = "unknown";
    if (const DrmCard* card = findDrmCard(e, d)) {
        for (const auto& [k, v] : e.kernelDriver) {
            if (k == card->name + ".revision") revision = v.starts_with("0x") ? v.substr(2) : v;
        }
    }
    return fmt::format("{:04x}:{:04x} rev {}", d.vendorId, d.deviceId, revision);
}

std::string resultsTable(const RunReport& r) {
    const bool gpu = std::any_of(r.modes.begin(), r.modes.end(), [](const ModeReport& m) { return hasGpuTimes(m); });
    Table t{{"mode", "classification", "nz", "sum", "max_abs", "submits", "wall s"}, {}};
    if (gpu) t.header.push_back("GPU s");
    for (const auto& m : r.modes) {
        const ModeResult& res = m.result;
        std::string mode(name(res.mode));
        if (!m.role.empty() && m.role != "under test") mode += ", " + m.role;
        std::vector<std::string> row{escapeText(mode), escapeText(name(res.kind))};
        if (res.stats) {
            row.push_back(escapeText(percentText(*res.stats)));
            row.push_back(escapeText(rustExp(res.stats->sum)));
            row.push_back(escapeText(rustExp(res.stats->maxAbs)));
        } else {
            row.insert(row.end(), {"-", "-", "-"});
        }
        row.push_back(fmt::to_string(res.submits));
        row.push_back(escapeText(seconds(res.wallSeconds, 2)));
        if (gpu) {
            const double total = std::accumulate(m.submitGpuSeconds.begin(), m.submitGpuSeconds.end(), 0.0);
            row.push_back(m.modeGpuSeconds              ? escapeText(seconds(*m.modeGpuSeconds, 6))
                          : !m.submitGpuSeconds.empty() ? escapeText(seconds(total, 6))
                                                        : std::string("-"));
        }
        t.rows.push_back(std::move(row));
    }
    return t.render();
}

std::string deviceDetails(const DeviceReport& d, std::string_view home) {
    FieldTable row;
    row("index", fmt::to_string(d.index));
    row("deviceName", d.deviceName);
    row("deviceType", d.deviceType);
    row("apiVersion", d.apiVersion);
    row("driverVersion", fmt::format("{} (0x{:x})", d.driverVersion, d.driverVersionRaw));
    row("vendorID", hex(d.vendorId));
    row("deviceID", hex(d.deviceId));
    row("driverID", valueOr(d.driverId, "unknown"));
    row("driverName", d.driverName);
    row("driverInfo", d.driverInfo);
    row("conformanceVersion", d.conformanceVersion);
    row("deviceUUID", d.deviceUuid);
    row("driverUUID", d.driverUuid);
    row("PCI bus", d.pciBus ? *d.pciBus : std::string("unknown (no VK_EXT_pci_bus_info)"));
    row("queue", fmt::format("family {} ({}){}", d.queueFamily, d.queueFlags,
                             d.queueNote.empty() ? std::string() : ": " + d.queueNote));
    row("driver library", d.driverLibrary ? portablePath(*d.driverLibrary, home) : "not reported by the loader");
    row("driver manifest", d.driverManifest ? portablePath(*d.driverManifest, home) : "not reported by the loader");
    return row.table.render();
}

std::string memoryDetails(const DeviceReport& d) {
    Table t{{"class", "type", "type flags", "heap", "heap MiB", "heap flags"}, {}};
    for (const auto& m : d.memory) {
        t.rows.push_back({escapeText(m.buffer.empty() ? m.memoryClass : m.buffer + " (" + m.memoryClass + ")"),
                          fmt::to_string(m.typeIndex), escapeText(m.typeFlags), fmt::to_string(m.heapIndex),
                          fmt::to_string(m.heapBytes >> 20), escapeText(m.heapFlags)});
    }
    return t.render();
}

// The experiment row: the barrier (and whether it is a control), the memory, the profile
// and every setting that differs from blade's stream.
std::string experimentText(const RunReport& r, std::string_view home) {
    const ExperimentReport& e = r.experiment;
    // The barrier is the control when it was chosen so (none, execution-only) or the file labels
    // a barrier one; a file's control wait or ownership transfer is named after the row.
    const bool fileBarrierControl =
        r.scenario && r.scenario->controlSteps.find("a barrier") != std::string::npos && e.barrier == "as written";
    const bool barrierControl = e.barrier == "none" || e.barrier == "execution-only" || fileBarrierControl;
    std::string experiment = fmt::format("barrier {}{}, memory {}, profile {}", e.barrier,
                                         barrierControl ? " (CONTROL: invalid on purpose)" : "", e.memory, e.profile);
    if (r.scenario && !r.scenario->controlSteps.empty() && !fileBarrierControl)
        experiment += fmt::format(", the file labels {} a control", r.scenario->controlSteps);
    if (e.submitEvery) experiment += fmt::format(", submit every {}", e.submitEvery);
    if (e.splitMiB) experiment += fmt::format(", split at {} MiB", *e.splitMiB);
    if (e.splitMs) experiment += fmt::format(", split at {} ms of predicted GPU time", *e.splitMs);
    if (e.submitEvery || e.splitMiB || e.splitMs) experiment += e.hostWait ? ", host waits" : ", no host waits";
    if (e.dispatchRepeat > 1) experiment += fmt::format(", each conv-T x{}", e.dispatchRepeat);
    if (e.spirvDir) experiment += ", SPIR-V from " + portablePath(*e.spirvDir, home);
    if (e.dropDispatch) experiment += fmt::format(", dispatch {} left out (a positive control)", *e.dropDispatch);
    if (!e.stress.empty()) experiment += ", --stress (" + join(e.stress, ", ") + ")";
    return experiment;
}

// --stress in one sentence for the Description, from its parts in force; "" when not stressed.
std::string stressSentence(const ExperimentReport& e) {
    std::vector<std::string> parts;
    for (const std::string& p : e.stress) {
        parts.push_back(p == "priming"               ? std::string("cache priming (multipass and single)")
                        : p == "traffic"             ? std::string("memory traffic (multipass and single)")
                        : p == "shuffled-workgroups" ? std::string("shuffled workgroups (every mode)")
                                                     : p);
    }
    return parts.empty() ? std::string() : " It ran under --stress: " + join(parts, ", ") + ".";
}

std::string shapeDetails(const RunReport& r, std::string_view home) {
    const Shape& s = r.shape;
    const ChainSizes& z = r.sizes;
    FieldTable row;
    row("preset", valueOr(r.preset, "none"));
    row("shape (B x C x H x W)", fmt::format("{} x {} x {} x {}", s.batch, s.channels, s.height, s.width));
    row("kernel, stride, padding",
        fmt::format("{}x{}, {}x{}, {}x{}", s.kernelH, s.kernelW, s.strideH, s.strideW, s.padH, s.padW));
    row("chain length", fmt::to_string(r.chainLength));
    row("experiment", experimentText(r, home));
    for (const auto& q : r.experiment.quirks) row("blade-exact quirk", q);
    row("reference", valueOr(r.referenceName, "none"));
    row("small", fmt::format("{} elements, {} bytes", z.smallElems, z.smallBytes));
    row("big", fmt::format("{} elements ({} x {}), {} bytes", z.bigElems, z.bigHeight, z.bigWidth, z.bigBytes));
    row("weight", fmt::format("{} elements, {} bytes", z.weightElems, z.weightBytes));
    row("conv-T workgroups",
        fmt::format("[{}, {}, {}]", z.convWorkgroups[0], z.convWorkgroups[1], z.convWorkgroups[2]));
    row("slice workgroups",
        fmt::format("[{}, {}, {}]", z.sliceWorkgroups[0], z.sliceWorkgroups[1], z.sliceWorkgroups[2]));
    return row.table.render();
}

// How the checked buffers were compared where not all bit for bit with split and the CPU model.
std::string checkedBuffersText(const ScenarioFacts& f) {
    std::vector<std::string> parts;
    for (const auto& [buffer, value] : f.chainValues)
        parts.push_back(fmt::format("{} (the chain's {}): within the CPU chain's float32 tolerance", buffer, value));
    for (const std::string& buffer : f.splitOnly) parts.push_back(buffer + ": split only");
    return parts.empty() ? std::string("every checked buffer bit for bit") : join(parts, "; ");
}

// A scenario run's facts: the file, what repro made of it, the experiment and the reference.
std::string scenarioDetails(const RunReport& r, std::string_view home) {
    const ScenarioFacts& f = *r.scenario;
    FieldTable row;
    row("name", f.name);
    row("pattern", f.pattern);
    row("source", f.source);
    row("expected on a correct driver", f.expected);
    row("file", fmt::format("{} ({} bytes, SHA-256 {})", scenarioFileName(f.file, f.name), f.fileBytes, f.fileSha256));
    row("steps", fmt::to_string(f.steps));
    row("labelled controls", valueOr(f.controlSteps, "none"));
    row("checked buffers", checkedBuffersText(f));
    row("queues", join(f.queues, "; "));  // "none" for none
    row("images", join(f.images, "; "));
    row("poisoned (--poison)", join(f.poisoned, ", "));
    std::vector<std::string> parameters;
    for (const auto& [name, value] : f.parameters) parameters.push_back(fmt::format("{} = {}", name, value));
    row("parameters", join(parameters, ", "));
    row("experiment", experimentText(r, home));
    row("reference", valueOr(r.referenceName, "none"));
    return row.table.render();
}

std::string timingDetails(const RunReport& r) {
    const PhaseTimings& p = r.timings;
    Table t{{"phase", "seconds"}, {}};
    // The host's reference (the CPU chain, a file's CPU model) only where one was timed.
    if (p.reference > 0) t.rows.push_back({"host reference (before the modes)", escapeText(seconds(p.reference, 3))});
    for (const auto& [k, v] :
         {std::pair{"instance and device", p.instanceAndDevice}, std::pair{"pipelines", p.pipelines},
          std::pair{"buffers and upload", p.buffersAndUpload}, std::pair{"recording", p.recording},
          std::pair{"GPU wait", p.gpuWait}, std::pair{"readback", p.readback},
          std::pair{"verification", p.verification}, std::pair{"total", p.total},
          std::pair{"teardown, after the total", p.teardown}, std::pair{"of it, the device's", p.teardownDevice},
          std::pair{"of it, the instance's (driver unload)", p.teardownInstance()}}) {
        t.rows.push_back({k, escapeText(seconds(v, 3))});
    }
    std::string out = t.render();
    for (const auto& m : r.modes) {
        if (!hasGpuTimes(m)) continue;
        Table g{{"item", "GPU seconds"}, {}};
        for (size_t i = 0; i < m.dispatchGpuSeconds.size(); ++i) {
            g.rows.push_back({fmt::format("dispatch {} ({} {})", i + 1, i % 2 == 0 ? "conv-T" : "slice", i / 2 + 1),
                              escapeText(seconds(m.dispatchGpuSeconds[i], 6))});
        }
        for (size_t i = 0; i < m.submitGpuSeconds.size(); ++i) {
            g.rows.push_back({fmt::format("submit {}", i + 1), escapeText(seconds(m.submitGpuSeconds[i], 6))});
        }
        if (m.modeGpuSeconds) g.rows.push_back({"mode", escapeText(seconds(*m.modeGpuSeconds, 6))});
        out += fmt::format("\nGPU time of mode {}:\n\n{}", name(m.result.mode), g.render());
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> portableVariables(const EnvironmentReport& e, std::string_view home) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [k, v] : e.variables) out.emplace_back(k, portablePathList(v, home));
    return out;
}

std::vector<std::pair<std::string, std::string>> systemInformation(const RunReport& r, std::string_view home) {
    const EnvironmentReport& e = r.environment;
    std::vector<std::pair<std::string, std::string>> out;
    if (r.device) {
        const DeviceReport& d = *r.device;
        out.emplace_back("GPU", fmt::format("{} ({}, PCI ID {}{})", d.deviceName, d.deviceType, pciIdText(e, d),
                                            d.pciBus ? ", bus " + *d.pciBus : std::string()));
        out.emplace_back(
            "Driver", fmt::format("{} {} ({}), version {}, Vulkan {}", valueOr(d.driverName, "unknown"), d.driverInfo,
                                  valueOr(d.driverId, "driverID unknown"), d.driverVersion, d.apiVersion));
        out.emplace_back("Mesa version", mesaVersion(d.driverInfo));
    } else {
        out.emplace_back("GPU", "no device was created");
    }
    std::string kernelDriver = "no DRM card matched";
    if (r.device) {
        if (const DrmCard* card = findDrmCard(e, *r.device))
            kernelDriver = fmt::format("{} ({})", valueOr(card->driver, "unknown driver"), card->name);
    }
    if (const auto watchdog = reportJobWatchdog(r)) {
        kernelDriver += fmt::format("; job watchdog {} ({})",
                                    watchdog->seconds ? fmt::format("{:g} s", *watchdog->seconds) : std::string("off"),
                                    watchdog->source);
    }
    out.emplace_back("Kernel driver", kernelDriver);
    const auto host = hostSystemInformation(e, home);
    out.insert(out.end(), host.begin(), host.end());
    return out;
}

// The Description paragraph: what ran, what went wrong (the first verdict line and each
// mode that was not ok), the cause line.
std::string description(const RunReport& r) {
    std::vector<std::string> modes;
    for (const auto& m : r.modes) modes.emplace_back(name(m.result.mode));
    const std::string ran = modes.empty() ? std::string("no mode") : join(modes, ", ");
    const std::string device = r.device ? r.device->deviceName : "no device";
    std::string out =
        r.scenario
            ? fmt::format(
                  "repro ran the scenario file {} ({} steps) as {} on {}, each checked buffer{} compared with {}.",
                  scenarioFileName(r.scenario->file, r.scenario->name), r.scenario->steps, ran, device,
                  std::any_of(r.scenario->images.begin(), r.scenario->images.end(),
                              [](const std::string& i) { return i.ends_with(", checked"); })
                      ? " and image"
                      : "",
                  valueOr(r.referenceName, "no reference")) +
                  stressSentence(r.experiment)
            : fmt::format(
                  "repro ran the chain of conv-T and slice compute dispatches of blade's issue 356 (N={}, preset {}, "
                  "shape {} x {} x {} x {}) as {} on {}, each mode's final buffer checked against {}.",
                  r.chainLength, valueOr(r.preset, "none"), r.shape.batch, r.shape.channels, r.shape.height,
                  r.shape.width, ran, device, valueOr(r.referenceName, "no reference"));
    if (const auto controls = reportControls(r); !controls.empty()) {
        out += fmt::format(
            " The run is a positive control: {}. A wrong result shows that the check catches what the control "
            "leaves out, and says nothing about the driver.",
            join(controls, "; "));
    }
    std::string verdict = r.verdict.lines.empty() ? statusWord(r.verdict.exitStatus) : r.verdict.lines.front();
    if (verdict.starts_with("--- ")) verdict.erase(0, 4);
    out += fmt::format(" Result: {} (exit {}).", verdict, r.verdict.exitStatus);
    std::string cause;
    for (const auto& m : r.modes) {
        const ModeResult& res = m.result;
        if (res.kind != Classification::Ok) {
            out += fmt::format(" {}: {}: {}.", name(res.mode), name(res.kind), valueOr(res.reason, "no reason given"));
        }
        if (cause.empty()) cause = res.cause;
    }
    if (!cause.empty()) out += " " + (cause.starts_with("cause") ? cause : "Cause: " + cause);
    return out;
}

// One capture under Log files: the tool, where its files are (as a reader may see the path),
// and the note.
std::string captureLine(const CaptureReport& c, std::string_view home) {
    const std::string tool =
        c.tool == "rgp" ? "Radeon GPU Profiler trace (--capture-rgp)" : "GFXReconstruct capture (--capture-gfxr)";
    if (c.path.empty()) return fmt::format("{}: none taken: {}", tool, c.note);
    // /tmp for rgp: Mesa's fixed folder, no path of the reporter's own.
    std::string where = c.tool == "rgp" ? c.path : portablePath(c.path, home);
    if (!c.files.empty()) {
        where += ":";
        for (const std::string& file : c.files) where += " " + portablePath(file, home);
    }
    return fmt::format("{}: {} ({})", tool, where, c.note);
}

// The kernel log lines the modes' cause analysis read (their causeJson kernel_log), each once.
void kernelLogFacts(const RunReport& r, IssueFacts& f) {
    for (const auto& m : r.modes) {
        if (m.result.causeJson.empty()) continue;
        const nlohmann::json j = nlohmann::json::parse(m.result.causeJson, nullptr, false);
        if (!j.is_object() || !j.contains("kernel_log") || !j["kernel_log"].is_object()) continue;
        const nlohmann::json& k = j["kernel_log"];
        if (k.value("readable", false)) f.kernelLogRead = true;
        if (f.kernelLogProblem.empty() && k.contains("problem") && k["problem"].is_string() &&
            !k["problem"].get<std::string>().empty())
            f.kernelLogProblem =
                "repro could not read the kernel log during the run (" + k["problem"].get<std::string>() + ")";
        if (!k.contains("kill_records") || !k["kill_records"].is_array()) continue;
        for (const auto& line : k["kill_records"]) {
            if (!line.is_string()) continue;
            const std::string text = line.get<std::string>();
            if (std::find(f.kernelLog.begin(), f.kernelLog.end(), text) == f.kernelLog.end())
                f.kernelLog.push_back(text);
        }
    }
}

IssueFacts reportIssueFacts(const RunReport& r, std::string_view home) {
    std::string device = "no device";
    if (r.device) {
        device = r.device->deviceName;
        if (!r.device->driverName.empty() || !r.device->driverInfo.empty())
            device += fmt::format(", {} {}", r.device->driverName, r.device->driverInfo);
    }
    // A driver crash shares the hang's status 3 (forensics/crash_site.hpp) but is no hang.
    const bool crash = !r.verdict.lines.empty() && r.verdict.lines.front().starts_with("--- DRIVER CRASH");
    const bool controlCaught = reportVerdictKind(r) == VerdictKind::ControlCaught;
    const std::string status = crash           ? std::string("DRIVER CRASH")
                               : controlCaught ? std::string("CONTROL CAUGHT")
                                               : statusWord(r.verdict.exitStatus);
    const std::string what = r.scenario ? "repro scenario " + r.scenario->name : std::string("repro");
    IssueFacts f{.title = fmt::format("{}: {} (exit {}) on {}", what, status, r.verdict.exitStatus, device),
                 .description = description(r),
                 .system = systemInformation(r, home),
                 .version = valueOr(r.version, "unknown"),
                 .gitHash = valueOr(r.gitHash, "unknown"),
                 .commandLine = r.commandLine,
                 .environment = r.environment.variables};
    kernelLogFacts(r, f);
    for (const CaptureReport& c : r.captures) f.captures.push_back(captureLine(c, home));
    if (r.verdict.exitStatus == kExitHang) f.hangNotes = hangEvidenceNotes(hangEvidenceDriver(r));
    if (r.scenario) {
        const ScenarioFacts& s = *r.scenario;
        f.descriptionFacts = {{"Scenario", s.name},
                              {"Pattern", s.pattern},
                              {"Source", s.source},
                              {"Expected on a correct driver", s.expected}};
        f.runArguments = scenarioRerunArguments(r.commandLine, s.file, s.name);
        f.file = IssueFile{.what = "the scenario file",
                           .saveAs = scenarioFileName(s.file, s.name),  // never the reporter's path
                           .bytes = s.fileBytes,
                           .sha256 = s.fileSha256,
                           .text = s.fileText,
                           .language = "toml"};
    }
    return f;
}

// --mutants: one row per mutant, then the score.
std::string mutantsTable(const MutantsReport& m) {
    if (!m.withheld.empty()) return "No mutant ran: " + m.withheld + ".\n";
    std::vector<std::vector<std::string>> rows;
    for (const MutantReport& x : m.mutants)
        rows.push_back({x.what, x.weakening, x.outcome, fmt::format("{} of {}", x.wrong, x.runs), x.rerun});
    return markdownTable({"step", "weakening", "outcome", "runs wrong", "rerun"}, rows) +
           fmt::format("\nmutation score: {} of {} mutants killed\n", m.killed, m.mutants.size());
}

// The collapsed <details> sections after the verdict: device, shape, timings, environment,
// validation, hang evidence and environment notes.
std::string detailSections(const RunReport& r, std::string_view home) {
    std::string out;
    if (r.device) {
        out += details("Device: every field", deviceDetails(*r.device, home));
        out += details(fmt::format("Enabled extensions ({})", r.device->extensions.size()),
                       bulletList(r.device->extensions));
        out += details(fmt::format("Enabled features ({})", r.device->features.size()), bulletList(r.device->features));
        out += details("Memory placements", memoryDetails(*r.device));
    }
    out += r.scenario ? details("Scenario: every fact", scenarioDetails(r, home))
                      : details("Shape and sizes", shapeDetails(r, home));
    out += details("Timings", timingDetails(r));
    if (r.mutants) out += details("Mutants (--mutants, docs/mutants.md)", mutantsTable(*r.mutants));
    const EnvironmentReport& e = r.environment;
    out +=
        details(fmt::format("Driver environment variables ({})", e.variables.size()),
                e.variables.empty() ? std::string("none set\n") : pairsTable(portableVariables(e, home), "variable"));
    out += details("Host", e.host.empty() ? std::string("not captured\n") : pairsTable(e.host, "fact"));
    out += details("Kernel driver parameters and firmware",
                   e.kernelDriver.empty() ? std::string("not captured\n") : pairsTable(e.kernelDriver, "fact"));
    const ValidationSummary& v = r.validation;
    if (v.enabled) {
        out += details(fmt::format("Validation messages ({} errors, {} warnings)", v.errors, v.warnings),
                       v.messages.empty() ? std::string("none\n")
                                          : codeBlock(fmt::format("{}\n", fmt::join(v.messages, "\n")), "text"));
    }
    // The hang evidence is said once, under "Log files" (issueTail).
    std::vector<std::string> notes;
    for (const auto& n : e.notes) {
        if (!n.starts_with("hang evidence: ")) notes.push_back(n);
    }
    if (!notes.empty()) out += details("Environment notes", bulletList(notes, true));
    return out;
}

}  // namespace

std::string renderMarkdown(const RunReport& r, const IssueContext& context) {
    const IssueFacts facts = reportIssueFacts(r, context.home);
    std::string out = issueHead(facts, context);
    out += "#### Results\n\n" + resultsTable(r) + "\n";
    for (const auto& m : r.modes) {
        out += fmt::format("- **{}**{}: {}: {}\n", name(m.result.mode),
                           m.role.empty() ? std::string() : ", " + escapeText(m.role), name(m.result.kind),
                           escapeText(valueOr(m.result.reason, "no reason given")));
        if (!m.result.cause.empty()) out += fmt::format("  - {}\n", escapeText(m.result.cause));
    }
    if (!r.modes.empty()) out += "\n";
    const std::string verdict = fmt::format("{}\n", fmt::join(r.verdict.lines, "\n"));
    out += "Verdict:\n\n" + codeBlock(r.verdict.lines.empty() ? "(no verdict lines)\n" : verdict, "text") + "\n";
    for (const auto& w : watchdogWarnings(r)) out += "**" + escapeText(w) + "**\n\n";
    out += issueTail(facts, context);
    for (const auto& st : r.streams) {
        std::string calls;
        for (const auto& c : st.calls) calls += c + "\n";
        out += details("Command stream: " + escapeText(st.title), codeBlock(calls, "text"));
    }
    out += detailSections(r, context.home);
    // The last guard: no current directory (where the run began, so what a relative path
    // names) nor home directory left in any value (a note, a message, a path).
    return withoutHome(withoutFolder(std::move(out), context.cwd), context.home);
}

}  // namespace repro
