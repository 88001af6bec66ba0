// `repro --scenario FILE` and `--list-scenarios` (scenario_run.hpp).
#include "scenario_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>

#include "core/errors.hpp"
#include "core/output.hpp"
#include "core/scenario_cpu.hpp"
#include "core/scenario_parse.hpp"
#include "core/verdict.hpp"
#include "device_choice.hpp"
#include "stream_capture.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/instance.hpp"
#include "vk/physical_device.hpp"
#include "vk/scenario_recorder.hpp"
#include "vk/trace.hpp"

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

// Runs the modes (split first when asked for, as the reference) and prints each (with
// `print`; otherwise only failures, for --repeat).
std::vector<ModeOutcome> runModes(vk::Device& device, const sc::Scenario& s, const Options& o, bool print = true) {
    const vk::ScenarioPipelines pipelines = vk::createScenarioPipelines(device, s);
    const sc::Contents model = sc::runCpuModel(s);
    sc::Contents expected;
    for (const auto& b : s.buffers) {
        if (b.checked) expected.emplace(b.name, model.at(b.name));
    }
    std::vector<ModeOutcome> out;
    std::optional<sc::Contents> split;  // split's checked bytes, once it completed
    const double timeout = o.timeoutSeconds.value_or(kScenarioTimeoutSeconds);
    for (const Mode mode : o.modes) {
        ModeOutcome m{.mode = mode, .run = vk::runScenarioMode(device, pipelines, s, mode, timeout), .wrong = {}};
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
        out.push_back(std::move(m));
        if (mode == Mode::Split) split = out.back().run.checked;
    }
    return out;
}

int verdict(const std::vector<ModeOutcome>& modes) {
    for (const auto& m : modes) {
        if (m.run.hang) {
            say("--- GPU HANG: mode {}: {}", name(m.mode), m.run.failure);
            return kExitHang;
        }
    }
    for (const auto& m : modes) {
        if (m.wrong) {
            say("--- BUG REPRODUCED: mode {} is wrong: {}", name(m.mode), *m.wrong);
            return kExitReproduced;
        }
        if (!m.run.completed) {
            say("--- CANNOT TEST HERE: mode {}: {}", name(m.mode), m.run.failure);
            return kExitCannotTest;
        }
    }
    say("--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU model{}",
        std::any_of(modes.begin(), modes.end(), [](const ModeOutcome& m) { return m.mode == Mode::Split; })
            ? " and to split"
            : "");
    return kExitNotReproduced;
}

// --repeat K: the modes K times on one device, each run with fresh buffers; a count of wrong
// runs per mode, the first wrong run's difference, and the verdict over all K. A hang or a
// failed mode ends the runs there.
int runRepeated(vk::Device& device, const sc::Scenario& s, const Options& o) {
    std::vector<uint32_t> wrong(o.modes.size(), 0);
    std::vector<std::string> first(o.modes.size());
    uint32_t runs = 0;
    for (; runs < o.repeat; ++runs) {
        const std::vector<ModeOutcome> modes = runModes(device, s, o, false);
        const bool ended =
            std::any_of(modes.begin(), modes.end(), [](const ModeOutcome& m) { return !m.run.completed; });
        if (ended) {
            say("  run {} of {} did not complete; the runs end here", runs + 1, o.repeat);
            return verdict(modes);
        }
        for (size_t i = 0; i < modes.size(); ++i) {
            if (!modes[i].wrong) continue;
            if (wrong[i]++ == 0) first[i] = fmt::format("run {}: {}", runs + 1, *modes[i].wrong);
        }
    }
    int status = kExitNotReproduced;
    for (size_t i = 0; i < o.modes.size(); ++i) {
        say("  mode={:<9} wrong in {} of {} runs{}", name(o.modes[i]), wrong[i], runs,
            wrong[i] ? " (first: " + first[i] + ")" : "");
    }
    for (size_t i = 0; i < o.modes.size() && status == kExitNotReproduced; ++i) {
        if (wrong[i] == 0) continue;
        say("--- BUG REPRODUCED: mode {} is wrong in {} of {} runs; {}", name(o.modes[i]), wrong[i], runs, first[i]);
        status = kExitReproduced;
    }
    if (status == kExitNotReproduced)
        say("--- NOT REPRODUCED: in all {} runs every mode's checked buffers are bit-identical to the CPU model{}",
            runs, std::find(o.modes.begin(), o.modes.end(), Mode::Split) != o.modes.end() ? " and to split" : "");
    return status;
}

// --print-stream: each mode recorded under the swallowing tracer (stream_capture.hpp), so
// nothing reaches the queue, and its calls printed; exit 0.
int printScenarioStreams(vk::Device& device, const sc::Scenario& s, const Options& o) {
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
    say("--- command stream printed; nothing was run (--print-stream)");
    return kExitNotReproduced;
}

int runLoaded(const Options& o, const sc::Scenario& s) {
    vk::Instance instance(false);
    const auto devices = vk::enumerateDevices(instance);
    std::vector<std::string> notes;
    const vk::DeviceInfo chosen = selectDevice(instance, devices, o, notes);
    if (s.usesSync2() && !chosen.supported.synchronization2)
        throw CannotTest("the scenario records synchronization2 barriers and the device lacks synchronization2");
    vk::Device device(
        instance, chosen,
        {.synchronization2 = s.usesSync2(),
         .afterLoad = o.printStream ? std::function<void()>(installStreamPrinter) : std::function<void()>()});
    printHeader(s, chosen);
    for (const auto& note : notes) say("  note: {}", note);
    if (o.printStream) return printScenarioStreams(device, s, o);
    if (o.repeat > 1)
        say("  --repeat {}: every mode {} times on this device, fresh buffers each time", o.repeat, o.repeat);
    const int status = o.repeat > 1 ? runRepeated(device, s, o) : verdict(runModes(device, s, o));
    if (!device.abandoned()) vkDeviceWaitIdle(device.get());
    return status;
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
    try {
        return runLoaded(options, s);
    } catch (const UsageError& e) {
        sayError("repro: {}", e.what());
        return kExitUsage;
    } catch (const CannotTest& e) {
        say("--- CANNOT TEST HERE: {}", e.what());
        return kExitCannotTest;
    } catch (const vk::VulkanError& e) {
        const bool lost = e.result == VK_ERROR_DEVICE_LOST;
        say("--- {}: {}", lost ? "GPU HANG" : "CANNOT TEST HERE", e.what());
        return lost ? kExitHang : kExitCannotTest;
    } catch (const std::exception& e) {
        say("--- CANNOT TEST HERE: internal error: {}", e.what());
        return kExitCannotTest;
    }
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
