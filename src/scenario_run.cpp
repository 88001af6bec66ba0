// `repro --scenario FILE` and `--list-scenarios` (scenario_run.hpp).
#include "scenario_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>

#include "core/errors.hpp"
#include "core/output.hpp"
#include "core/output_paths.hpp"
#include "core/scenario_cpu.hpp"
#include "core/scenario_parse.hpp"
#include "core/scenario_report.hpp"
#include "core/variant.hpp"
#include "core/verdict.hpp"
#include "device_choice.hpp"
#include "stream_capture.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/instance.hpp"
#include "vk/physical_device.hpp"
#include "vk/scenario_recorder.hpp"
#include "vk/trace.hpp"
#include "repro_version.h"

namespace repro {
namespace {

namespace sc = repro::scenario;

// Each submit's wait when --timeout is not given: the kernel set's dispatches are short.
constexpr double kScenarioTimeoutSeconds = 60;

// Which step of `s` last wrote byte `byte` of `buffer` in the CPU model, for a mismatch line.
std::string writtenBy(const sc::Scenario& s, const std::string& buffer, size_t byte) {
    const auto step = sc::lastWriter(s, buffer, byte);
    if (!step) return "written by no step (its initial contents)";
    return "last written by " + s.steps[*step].label;
}

// The first difference of `got` from `want` for buffer `name`, or nothing when equal; it
// names the step that last wrote the first differing byte (writtenBy).
std::optional<std::string> firstDifference(const sc::Scenario& s, const std::string& name,
                                           const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                                           std::string_view against) {
    if (got == want) return std::nullopt;
    size_t first = 0;
    while (first < got.size() && got[first] == want[first]) ++first;
    const size_t word = first / 4;
    uint32_t g = 0, w = 0;
    for (size_t b = 0; b < 4 && word * 4 + b < got.size(); ++b) {
        g |= uint32_t{got[word * 4 + b]} << (8 * b);
        w |= uint32_t{want[word * 4 + b]} << (8 * b);
    }
    size_t wrongWords = 0;
    for (size_t i = 0; i + 3 < got.size(); i += 4) {
        if (!std::equal(got.begin() + i, got.begin() + i + 4, want.begin() + i)) ++wrongWords;
    }
    return fmt::format(
        "buffer '{}' differs from {} at byte {} (word {}: 0x{:08x}, {} 0x{:08x}), {}; {} of {} words differ", name,
        against, first, word, g, against, w, writtenBy(s, name, first), wrongWords, got.size() / 4);
}

// The first difference of any checked buffer.
std::optional<std::string> compare(const sc::Scenario& s, const sc::Contents& got, const sc::Contents& want,
                                   std::string_view against) {
    for (const auto& [name, bytes] : got) {
        if (auto d = firstDifference(s, name, bytes, want.at(name), against)) return d;
    }
    return std::nullopt;
}

struct ModeOutcome {
    Mode mode;
    vk::ScenarioModeRun run;
    std::optional<std::string> wrong;  // why it is wrong
    uint64_t messages = 0;             // validation messages while it ran
};

// The steps' labels joined by "; ", the first kListedSteps of them and then how many in all
// (a repeat makes hundreds).
constexpr size_t kListedSteps = 12;
std::string stepList(const sc::Scenario& s) {
    std::string steps;
    for (size_t i = 0; i < s.steps.size() && i < kListedSteps; ++i)
        steps += (steps.empty() ? "" : "; ") + s.steps[i].label;
    if (s.steps.size() > kListedSteps) steps += fmt::format("; ... ({} steps in all)", s.steps.size());
    return steps;
}

void printHeader(const sc::Scenario& s, const vk::DeviceInfo& device) {
    say("repro: scenario '{}' ({})", s.name, s.file);
    say("  source:   {}", s.source);
    say("  pattern:  {}", s.pattern);
    say("  expected on a correct driver: {}", s.expected);
    say("  device:   {} ({})", device.properties.deviceName,
        device.hasDriverProperties ? device.driver.driverInfo : "no driver properties");
    say("  steps:    {}", stepList(s));
    if (s.hasControl())
        say("  note: a barrier is labelled a control (insufficient on purpose): a wrong result proves nothing "
            "about the driver");
}

std::string plural(uint64_t n, std::string_view word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// What one run needs besides the scenario: the device, and the instance whose validation
// log counts each mode's messages (with --validation).
struct RunTarget {
    vk::Device& device;
    const vk::Instance& instance;
};

// Runs the modes (split first when asked for, as the reference) and prints each (with
// `print`; otherwise only failures, for --repeat).
std::vector<ModeOutcome> runModes(const RunTarget& t, const sc::Scenario& s, const Options& o, bool print = true) {
    const vk::ScenarioPipelines pipelines = vk::createScenarioPipelines(t.device, s);
    const sc::Contents model = sc::runCpuModel(s);
    sc::Contents expected;
    for (const auto& b : s.buffers) {
        if (b.checked) expected.emplace(b.name, model.at(b.name));
    }
    std::vector<ModeOutcome> out;
    std::optional<sc::Contents> split;  // split's checked bytes, once it completed
    const double timeout = o.timeoutSeconds.value_or(kScenarioTimeoutSeconds);
    for (const Mode mode : o.modes) {
        const uint64_t before = t.instance.validationLog().count();
        ModeOutcome m{.mode = mode, .run = vk::runScenarioMode(t.device, pipelines, s, mode, timeout), .wrong = {}};
        m.messages = t.instance.validationLog().count() - before;
        if (print) say("  mode={:<9} {} submit(s)", name(mode), m.run.submits);
        if (!m.run.completed) {
            say("    -> {}{}: {}", print ? "" : fmt::format("mode={} ", name(mode)), m.run.hang ? "HANG" : "FAILED",
                m.run.failure);
            out.push_back(std::move(m));
            if (out.back().run.hang) break;  // a timed-out device is abandoned already
            continue;
        }
        m.wrong = compare(s, m.run.checked, expected, "the CPU model");
        if (!m.wrong && split) m.wrong = compare(s, m.run.checked, *split, "split");
        if (print)
            say("    -> {}", m.wrong
                                 ? "MISMATCH: " + *m.wrong
                                 : fmt::format("ok: bit-identical to the CPU model{}", split ? " and to split" : ""));
        if (print && o.validation) say("    validation: {} in this mode", plural(m.messages, "message"));
        out.push_back(std::move(m));
        if (mode == Mode::Split) split = out.back().run.checked;
    }
    return out;
}

// The verdict's status and line (printed by the caller, kept in the report).
struct ScenarioVerdict {
    int status = kExitNotReproduced;
    std::string line;
};

ScenarioVerdict verdict(const std::vector<ModeOutcome>& modes) {
    for (const auto& m : modes) {
        if (m.run.hang) return {kExitHang, fmt::format("--- GPU HANG: mode {}: {}", name(m.mode), m.run.failure)};
    }
    for (const auto& m : modes) {
        if (m.wrong)
            return {kExitReproduced, fmt::format("--- BUG REPRODUCED: mode {} is wrong: {}", name(m.mode), *m.wrong)};
        if (!m.run.completed)
            return {kExitCannotTest, fmt::format("--- CANNOT TEST HERE: mode {}: {}", name(m.mode), m.run.failure)};
    }
    return {
        kExitNotReproduced,
        fmt::format("--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU model{}",
                    std::any_of(modes.begin(), modes.end(), [](const ModeOutcome& m) { return m.mode == Mode::Split; })
                        ? " and to split"
                        : "")};
}

// Adds run `run` (1-based) of the modes to the report's per-mode results (one entry per mode
// of `o.modes`, made by the first call); a mode the run did not reach is "not run".
void accumulate(std::vector<ScenarioModeReport>& acc, const std::vector<ModeOutcome>& modes, const Options& o,
                uint32_t run) {
    if (acc.empty()) {
        for (const Mode mode : o.modes) acc.push_back({.mode = std::string(name(mode)), .result = "ok", .runs = 0});
    }
    const std::string prefix = o.repeat > 1 ? fmt::format("run {}: ", run) : "";
    for (size_t i = 0; i < acc.size(); ++i) {
        ScenarioModeReport& r = acc[i];
        if (i >= modes.size()) {
            r.result = "not run";
            r.detail = prefix + "an earlier mode hung; the device is abandoned";
            continue;
        }
        const ModeOutcome& m = modes[i];
        r.submits = m.run.submits;
        if (o.validation) r.validationMessages = r.validationMessages.value_or(0) + m.messages;
        if (!m.run.completed) {
            r.result = m.run.hang ? "hang" : "failed";
            r.detail = prefix + m.run.failure;
            continue;
        }
        ++r.runs;
        if (m.wrong && r.wrongRuns++ == 0) {
            r.result = "mismatch";
            r.detail = prefix + *m.wrong;
        }
    }
}

// --repeat K: the modes K times on one device, each run with fresh buffers; a count of wrong
// runs per mode, the first wrong run's difference, and the verdict over all K. A hang or a
// failed mode ends the runs there.
ScenarioVerdict runRepeated(const RunTarget& t, const sc::Scenario& s, const Options& o, ScenarioReport& report) {
    uint32_t runs = 0;
    for (; runs < o.repeat; ++runs) {
        const std::vector<ModeOutcome> modes = runModes(t, s, o, false);
        accumulate(report.modes, modes, o, runs + 1);
        const bool ended =
            std::any_of(modes.begin(), modes.end(), [](const ModeOutcome& m) { return !m.run.completed; });
        if (ended) {
            say("  run {} of {} did not complete; the runs end here", runs + 1, o.repeat);
            return verdict(modes);
        }
    }
    for (const ScenarioModeReport& m : report.modes) {
        say("  mode={:<9} wrong in {} of {} runs{}{}", m.mode, m.wrongRuns, runs,
            m.wrongRuns ? " (first: " + *m.detail + ")" : "",
            m.validationMessages ? "; " + plural(*m.validationMessages, "validation message") : "");
    }
    for (const ScenarioModeReport& m : report.modes) {
        if (m.wrongRuns == 0) continue;
        return {kExitReproduced, fmt::format("--- BUG REPRODUCED: mode {} is wrong in {} of {} runs; {}", m.mode,
                                             m.wrongRuns, runs, *m.detail)};
    }
    return {kExitNotReproduced,
            fmt::format(
                "--- NOT REPRODUCED: in all {} runs every mode's checked buffers are bit-identical to the CPU model{}",
                runs, std::find(o.modes.begin(), o.modes.end(), Mode::Split) != o.modes.end() ? " and to split" : "")};
}

// --print-stream: each mode recorded under the swallowing tracer (stream_capture.hpp), so
// nothing reaches the queue, and its calls printed; exit 0.
ScenarioVerdict printScenarioStreams(vk::Device& device, const sc::Scenario& s, const Options& o) {
    say("--- command stream (--print-stream: recorded, not submitted) ---");
    say("  each mode starts with repro's upload submit (device-local buffers copied from their host twins) and "
        "ends with its readback submit; # G marks blade's global barrier");
    const vk::ScenarioPipelines pipelines = vk::createScenarioPipelines(device, s);
    for (const Mode mode : o.modes) {
        capturedStream().clear();
        (void)vk::runScenarioMode(device, pipelines, s, mode, o.timeoutSeconds.value_or(kScenarioTimeoutSeconds));
        vk::trace::breakWaitRun();
        say("## mode {}: scenario '{}' (src/vk/scenario_recorder.cpp)", name(mode), s.name);
        for (const std::string& line : capturedStream()) say("{}", line);
    }
    return {.status = kExitNotReproduced, .line = "--- command stream printed; nothing was run (--print-stream)"};
}

// --validation: the layer's count (printed as the built-in run prints it) and, when nothing
// worse happened, the VALIDATION verdict (exit 4, docs/contract.md).
ScenarioVerdict withValidation(const vk::Instance& instance, const sc::Scenario& s, ScenarioVerdict v,
                               ScenarioReport& report) {
    const vk::ValidationLog& log = instance.validationLog();
    report.validationErrors = log.errors;
    report.validationWarnings = log.warnings;
    report.validationMessages = log.messages;
    say("validation: {} ({} errors, {} warnings), synchronization validation on", plural(log.count(), "message"),
        log.errors, log.warnings);
    if (v.status != kExitNotReproduced || log.count() == 0) return v;
    v.status = kExitValidation;
    v.line = s.hasControl()
                 ? fmt::format(
                       "--- VALIDATION: {} (see stderr); a barrier is labelled a control (insufficient on "
                       "purpose), so its hazards are deliberate and the results say nothing about the driver",
                       plural(log.count(), "validation message"))
                 : fmt::format(
                       "--- VALIDATION: the scenario's Vulkan usage drew {} (see stderr); results are not "
                       "trustworthy until they are fixed",
                       plural(log.count(), "validation message"));
    return v;
}

// The extra queues the scenario's [[queue]] tables ask for, in order: another family or the
// main one's, needing compute when a dispatch is put on it.
std::vector<vk::ExtraQueueRequest> queueRequests(const sc::Scenario& s) {
    std::vector<vk::ExtraQueueRequest> out;
    for (uint32_t q = 1; q < s.queues.size(); ++q) {
        const bool dispatches = std::any_of(s.steps.begin(), s.steps.end(), [&](const sc::Step& step) {
            return step.queue == q && std::holds_alternative<sc::Dispatch>(step.body);
        });
        out.push_back({.otherFamily = s.queues[q].family == sc::QueueFamilyChoice::Other,
                       .needs = static_cast<VkQueueFlags>(dispatches ? VK_QUEUE_COMPUTE_BIT : VK_QUEUE_TRANSFER_BIT)});
    }
    return out;
}

// One line per [[queue]] (where it landed, or its fallback), printed and kept in the report,
// and the notes on split and on the order of the steps.
void describeQueues(const vk::Device& device, const sc::Scenario& s, ScenarioReport& report) {
    if (!s.usesQueues()) return;
    say("  queue:    main: family {}, queue 0", device.queueFamily());
    for (size_t q = 1; q < s.queues.size(); ++q) {
        const vk::ExtraQueue& e = device.extraQueues().at(q - 1);
        report.queues.push_back(
            fmt::format("{} (family \"{}\"): {}", s.queues[q].name, sc::name(s.queues[q].family), e.note));
        say("  queue:    {}", report.queues.back());
    }
    say("  note: split submits each step on its queue and waits for it, so it records no signal or wait step; "
        "multipass and single submit one batch per signal/wait boundary with the file's semaphores");
    if (s.reordered)
        say("  note: the steps run in an order the semaphores allow (a timeline wait comes before its signal in "
            "the file), as the steps line lists them");
}

void describeDevice(const vk::DeviceInfo& d, ScenarioReport& report) {
    report.deviceName = d.properties.deviceName;
    report.vendorId = d.properties.vendorID;
    report.deviceId = d.properties.deviceID;
    if (!d.hasDriverProperties) return;
    report.driverName = d.driver.driverName;
    report.driverInfo = d.driver.driverInfo;
}

ScenarioVerdict runLoaded(const Options& o, const sc::Scenario& s, ScenarioReport& report) {
    vk::Instance instance(o.validation);
    const auto devices = vk::enumerateDevices(instance);
    std::vector<std::string> notes;
    const vk::DeviceInfo chosen = selectDevice(instance, devices, o, notes);
    describeDevice(chosen, report);
    if (s.usesSync2() && !chosen.supported.synchronization2)
        throw CannotTest("the scenario records synchronization2 barriers and the device lacks synchronization2");
    vk::Device device(
        instance, chosen,
        {.synchronization2 = s.usesSync2(),
         .afterLoad = o.printStream ? std::function<void()>(installStreamPrinter) : std::function<void()>(),
         .extraQueues = queueRequests(s)});
    printHeader(s, chosen);
    describeQueues(device, s, report);
    for (const auto& note : notes) say("  note: {}", note);
    if (o.printStream) return printScenarioStreams(device, s, o);
    if (o.repeat > 1)
        say("  --repeat {}: every mode {} times on this device, fresh buffers each time", o.repeat, o.repeat);
    const RunTarget target{.device = device, .instance = instance};
    ScenarioVerdict v;
    if (o.repeat > 1) {
        v = runRepeated(target, s, o, report);
    } else {
        const std::vector<ModeOutcome> modes = runModes(target, s, o);
        accumulate(report.modes, modes, o, 1);
        v = verdict(modes);
    }
    if (!device.abandoned()) vkDeviceWaitIdle(device.get());
    return o.validation ? withValidation(instance, s, v, report) : v;
}

// The report's facts from the options and the file, before anything runs.
ScenarioReport startReport(const Options& o, const sc::Scenario& s) {
    return {
        .version = kReproVersion,
        .gitHash = kReproGitHash,
        .commandLine = o.commandLine,
        .name = s.name,
        .source = s.source,
        .pattern = s.pattern,
        .expected = s.expected,
        .file = s.file,
        .fileSha256 = s.fileSha256,
        .fileBytes = s.fileBytes,
        .steps = s.steps.size(),
        .barrier = o.scenarioBarrier ? std::optional<std::string>(std::string(name(*o.scenarioBarrier))) : std::nullopt,
        .controls = s.hasControl(),
        .repeat = o.repeat,
        .validation = o.validation};
}

// The run, every failure turned into its verdict (printed, and kept in `report`).
int runScenarioGuarded(const Options& options, const sc::Scenario& s, ScenarioReport& report) {
    ScenarioVerdict v;
    try {
        v = runLoaded(options, s, report);
    } catch (const UsageError& e) {
        sayError("repro: {}", e.what());
        return kExitUsage;
    } catch (const CannotTest& e) {
        v = {kExitCannotTest, fmt::format("--- CANNOT TEST HERE: {}", e.what())};
    } catch (const vk::VulkanError& e) {
        const bool lost = e.result == VK_ERROR_DEVICE_LOST;
        v = {lost ? kExitHang : kExitCannotTest,
             fmt::format("--- {}: {}", lost ? "GPU HANG" : "CANNOT TEST HERE", e.what())};
    } catch (const std::exception& e) {
        v = {kExitCannotTest, fmt::format("--- CANNOT TEST HERE: internal error: {}", e.what())};
    }
    say("{}", v.line);
    report.verdict = v.line;
    report.exitStatus = v.status;
    return v.status;
}

// The JSON document to --json FILE and, with --format json, to stdout or -o FILE; with -o
// and --format text, the text report. A lost write is exit 1 unless a hang or a
// reproduction says more; the results are printed either way.
int writeScenarioReports(const Options& o, const ScenarioReport& report, int status) {
    const std::string json = renderScenarioJson(report);
    bool written = true;
    if (o.format == Format::Json) written = emitFormatDocument(o, "the scenario report", json);
    written = emitJsonFile(o, "the scenario report", json) && written;
    written = emitTextFile(o) && written;
    const bool stronger = status == kExitHang || status == kExitReproduced || status > 125;
    if (writeFailed() && !stronger) {
        sayError("repro: the report could not be written to {}", failedStream());
        return kExitUsage;
    }
    return written || stronger ? status : kExitUsage;
}

}  // namespace

int runScenarioCommand(const Options& options) {
    sc::Scenario s;
    try {
        s = sc::loadScenario(*options.scenario);  // nothing runs on a bad file
        if (options.scenarioBarrier) {
            if (const std::string why = sc::replaceBarriers(s, *options.scenarioBarrier); !why.empty())
                throw UsageError(why);
        }
    } catch (const UsageError& e) {
        sayError("repro: {}", e.what());
        return kExitUsage;
    }
    if (const auto problem = outputPathProblem(options)) {  // before any GPU work
        sayError("repro: {}", *problem);
        return kExitUsage;
    }
    // stdout carries only the document, unless -o takes it to a file.
    if (options.format == Format::Json && !options.output) textStream() = stderr;
    if (options.format == Format::Text && options.output) captureText();  // for the -o file
    ScenarioReport report = startReport(options, s);
    const int status = runScenarioGuarded(options, s, report);
    if (status == kExitUsage) return status;
    return writeScenarioReports(options, report, status);
}

std::vector<std::string> scenarioFolders() {
    std::vector<std::string> out;
    std::error_code ec;
    // Beside the binary first (an install moved with --prefix or DESTDIR), then where it was
    // configured to go, then the source tree it was built from.
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path beside =
        ec ? std::filesystem::path() : exe.parent_path() / ".." / "share/repro/scenarios";
    for (const std::filesystem::path& folder :
         {beside, std::filesystem::path(REPRO_INSTALLED_SCENARIOS), std::filesystem::path(REPRO_SOURCE_SCENARIOS)}) {
        if (folder.empty() || !std::filesystem::is_directory(folder, ec)) continue;
        const std::string canonical = std::filesystem::weakly_canonical(folder, ec).string();
        if (std::find(out.begin(), out.end(), canonical) == out.end()) out.push_back(canonical);
    }
    return out;
}

int listScenarios() {
    const auto folders = scenarioFolders();
    if (folders.empty()) {
        say("no scenarios/ folder found (looked in {} and {})", REPRO_SOURCE_SCENARIOS, REPRO_INSTALLED_SCENARIOS);
        return kExitNotReproduced;
    }
    for (const auto& folder : folders) {
        std::vector<std::string> files;
        for (const auto& entry : std::filesystem::directory_iterator(folder)) {
            if (entry.path().extension() == ".toml") files.push_back(entry.path().string());
        }
        std::sort(files.begin(), files.end());
        say("{}:", folder);
        for (const auto& file : files) {
            try {
                const sc::Scenario s = sc::loadScenario(file);
                say("  {:<40} expected: {:<15} {}", s.name, s.expected, s.source);
            } catch (const UsageError& e) {
                sayError("repro: {}", e.what());
                return kExitUsage;
            }
        }
    }
    return kExitNotReproduced;
}

}  // namespace repro
