// --matrix and --driver-env-sweep: the parent starts one child process per run (so a hang
// or crash in one cannot lose the others), reads each child's JSON report and prints a
// table as the children finish.
#include "experiments.hpp"

#include <nlohmann/json.hpp>
#include <stdlib.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "core/interrupt.hpp"
#include "core/report_render.hpp"
#include "core/spirv_module.hpp"
#include "core/subprocess.hpp"
#include "core/variant.hpp"
#include "core/verdict.hpp"
#include "core/output.hpp"
#include "repro_shared.h"
#include "repro_version.h"
#include "vk/describe.hpp"
#include "vk/device.hpp"

namespace repro {
namespace {

// --spirv is checked once here, so a bad file is one usage error, not one per child.
void checkSpirvDir(const Options& options) {
    if (!options.spirvDir) return;
    const std::filesystem::path dir(*options.spirvDir);
    checkComputeInterface(loadSpirvFile(dir / "conv_t.spv"), "--spirv " + (dir / "conv_t.spv").string(),
                          {REPRO_CONV_WORKGROUP_X, REPRO_CONV_WORKGROUP_Y, 1}, 4);
    checkComputeInterface(loadSpirvFile(dir / "slice.spv"), "--spirv " + (dir / "slice.spv").string(),
                          {REPRO_SLICE_WORKGROUP_X, 1, 1}, 3);
}

}  // namespace

ProbedDevice probe(const Options& options) {
    checkSpirvDir(options);
    vk::Instance instance(false);
    const auto devices = vk::enumerateDevices(instance);
    const vk::DeviceInfo& d = vk::chooseDevice(devices, options.device);
    ProbedDevice p;
    p.name = d.properties.deviceName;
    if (d.hasDriverProperties) {
        p.driverId = vk::driverIdName(d.driver.driverID);
        if (p.driverId.starts_with("DRIVER_ID_")) p.driverId = p.driverId.substr(10);
        p.driver = fmt::format("{} {}", d.driver.driverName, d.driver.driverInfo);
    } else {
        p.driver = vk::driverVersionText(d);
    }
    p.cpu = d.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    p.memoryTypes = d.memory.memoryTypeCount;
    return p;
}

std::vector<std::string> baseChildArgs(const Options& options) {
    // Flags of the parent alone (--invert applies once, to the parent's status), and the
    // document flags: each child writes its own JSON report where the parent says.
    static const char* const parentOnly[] = {"--matrix", "--driver-env-sweep", "--all-drivers", "--invert",
                                             "--triage", "--watchdog-probe", "--keep-logs"};
    static const char* const withValue[] = {"--format", "--output", "-o"};
    std::vector<std::string> args;
    for (size_t i = 1; i < options.commandLine.size(); ++i) {
        const std::string& a = options.commandLine[i];
        if (std::find(std::begin(parentOnly), std::end(parentOnly), a) != std::end(parentOnly)) continue;
        if (std::find(std::begin(withValue), std::end(withValue), a) != std::end(withValue)) {
            ++i;  // and its value
            continue;
        }
        if (a.starts_with("--format=") || a.starts_with("--output=") || (a.starts_with("-o") && a.size() > 2)) continue;
        args.push_back(a);
    }
    return args;
}

std::filesystem::path makeLogDir(const char* what) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/repro-{}-XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
    if (!::mkdtemp(pattern.data())) {
        throw UsageError(fmt::format("cannot create a folder for the children's logs ({})", pattern));
    }
    return pattern;
}

void finishLogDir(const Options& options, const std::filesystem::path& dir) {
    if (options.keepLogs) {
        say("  logs and reports kept in {} (--keep-logs)", dir.string());
        return;
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (ec) say("  could not remove {}: {}", dir.string(), ec.message());
}

double childTimeLimit(const Options& o, bool cpu, uint32_t dispatchRepeat) {
    const uint32_t convTs = o.chainLength * 4 * std::max({o.dispatchRepeat, dispatchRepeat, 1u});
    const double perMode = submitTimeoutSeconds(o.timeoutSeconds, o.shape, convTs, cpu);
    return 2.0 * perMode * 3 * o.repeat + 600.0;
}

namespace {

// The child's log starts with the environment and the command line it ran with.
void writeChildLogHeader(const std::string& path, const std::vector<std::string>& env,
                         const std::vector<std::string>& argv) {
    std::ofstream log(path);
    log << "env:";
    for (const auto& e : env) log << ' ' << e;
    log << "\nargv:";
    for (const auto& a : argv) log << ' ' << a;
    log << "\n\n";
}

// The modes under test: their classifications, the first wrong one's reason, GPU time.
void readModes(const nlohmann::json& r, ChildOutcome& out) {
    double gpu = 0;
    bool haveGpu = false;
    for (const auto& m : r.value("modes", nlohmann::json::array())) {
        if (!m.value("role", "").starts_with("under test")) continue;
        const std::string kind = m.value("classification", "?");
        out.classifications.push_back(fmt::format("{} {}", m.value("mode", "?"), kind));
        const bool wrong = kind != "ok" && kind != "not run";
        if (wrong && !out.anyWrong) {
            out.anyWrong = true;
            out.wrongMode = m.value("mode", "");
            out.reason = m.value("reason", "");
        }
        const auto& g = m["gpu"];
        if (g.is_object() && g["mode_seconds"].is_number()) {
            gpu += g["mode_seconds"].get<double>();
            haveGpu = true;
        }
    }
    if (haveGpu) out.gpuSeconds = gpu;
}

// Validation message counts, and how many name a SYNC-HAZARD.
void readValidation(const nlohmann::json& r, ChildOutcome& out) {
    const auto& v = r["validation"];
    if (!v.is_object()) return;
    out.validationMessages = v.value("errors", uint64_t{0}) + v.value("warnings", uint64_t{0});
    for (const auto& msg : v.value("messages", nlohmann::json::array())) {
        if (msg.is_string() && msg.get<std::string>().find("SYNC-HAZARD") != std::string::npos) {
            ++out.hazards;
        }
    }
}

// The verdict's first line (without "--- "), and the memory types of small[0] and big[0].
void readVerdictAndMemory(const nlohmann::json& r, ChildOutcome& out) {
    const auto lines = r["verdict"].value("lines", nlohmann::json::array());
    if (!lines.empty() && lines[0].is_string()) {
        out.verdictLine = lines[0].get<std::string>();
        if (out.verdictLine.starts_with("--- ")) out.verdictLine = out.verdictLine.substr(4);
    }
    if (out.reason.empty()) out.reason = out.verdictLine;
    const auto& device = r["device"];
    if (!device.is_object()) return;
    std::vector<std::string> types;
    for (const auto& m : device.value("memory", nlohmann::json::array())) {
        const std::string buffer = m.value("buffer", "");
        if (buffer == "small[0]" || buffer == "big[0]") {
            types.push_back(fmt::format("{}: type {} {}", buffer, m.value("type_index", 0),
                                        m.value("type_flags", "")));
        }
    }
    out.memory = join(types, "; ");
}

}  // namespace

ChildOutcome runOne(const std::string& exe, const std::vector<std::string>& args,
                    const std::vector<std::string>& env, const std::filesystem::path& dir,
                    const std::string& tag, double limit) {
    ChildOutcome out;
    const auto json = dir / (tag + ".json");
    out.log = (dir / (tag + ".log")).string();
    std::vector<std::string> argv{exe};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--output", json.string()});
    writeChildLogHeader(out.log, env, argv);
    out.process = runChild(argv, env, out.log, limit);
    out.status = out.process.signal == 0 && out.process.started ? out.process.status : -1;
    std::ifstream in(json);
    if (!in) return out;
    const nlohmann::json r = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (r.is_discarded() || !r.is_object()) return out;
    out.report = true;
    out.json = r;
    readModes(r, out);
    readValidation(r, out);
    readVerdictAndMemory(r, out);
    return out;
}

std::string resultText(const ChildOutcome& c, bool withModes) {
    if (!c.process.started) return "did not start: " + c.process.error;
    if (c.process.timedOut) return fmt::format("killed after {:.0f} s", c.process.seconds);
    if (c.process.signal) return fmt::format("crashed (signal {})", c.process.signal);
    if (c.status == kExitCannotTest) return "cannot test";
    if (c.status == kExitUsage) return "usage error";
    if (!c.report) return fmt::format("no report (exit {})", c.status);
    if (withModes) return join(c.classifications, ", ");
    std::vector<std::string> kinds;
    for (const auto& k : c.classifications) kinds.push_back(k.substr(k.find(' ') + 1));
    return join(kinds, ", ");
}

namespace {

std::string validationText(const Options& o, const ChildOutcome& c) {
    if (!o.validation) return "-";
    if (!c.report) return "?";
    if (c.validationMessages == 0) return "clean";
    return fmt::format("{} msgs{}", c.validationMessages,
                       c.hazards ? fmt::format(" ({} hazards)", c.hazards) : "");
}

std::string gpuText(const ChildOutcome& c) {
    return c.gpuSeconds ? fmt::format("{:.3f} ms", *c.gpuSeconds * 1e3) : "-";
}

void printHeader(const char* what, const Options& o, const ProbedDevice& device,
                 const std::filesystem::path& dir) {
    say("repro {} (git {}): {} at N={}, preset {} ({})", kReproVersion, kReproGitHash, what,
        o.chainLength, o.preset, describe(o.shape));
    say("Device: {} | driver: {} | driverID {}", device.name, device.driver,
        device.driverId.empty() ? "?" : device.driverId);
    say("  each run is a child process of this binary with its own device; logs and JSON "
        "reports in {}",
        dir.string());
}

}  // namespace

// The text went to stderr as it ran; the block goes to stdout.
void printMarkdown(const char* what, const Options& o, const ProbedDevice& device,
                   const std::vector<std::string>& header,
                   const std::vector<std::vector<std::string>>& rows,
                   const std::vector<std::string>& summary) {
    if (o.format != Format::Markdown) return;
    std::string command = "repro";
    for (size_t i = 1; i < o.commandLine.size(); ++i) command += " " + o.commandLine[i];
    const std::string& verdict = summary.back();  // "matrix verdict: ...": the heading says the rest
    std::string out = fmt::format("### repro {}: {}\n\n", what,
                                  markdownText(verdict.substr(verdict.find(": ") + 2)));
    out += fmt::format("`{}` on **{}** ({}, driverID {}), repro {} (git {})\n\n", command,
                       markdownText(device.name), markdownText(device.driver),
                       device.driverId.empty() ? "?" : device.driverId, kReproVersion, kReproGitHash);
    out += markdownTable(header, rows) + "\n";
    for (const auto& line : summary) out += "- " + markdownText(line) + "\n";
    writeText(stdout, out);
}

int interruptedExit() {
    const int signal = interruptSignal();
    say("--- INTERRUPTED by {}: the rows above are complete; no verdict",
        signal == SIGTERM ? "SIGTERM" : "SIGINT");
    return 128 + signal;
}

namespace {

// What the matrix has seen so far, row by row.
struct MatrixTally {
    size_t controls = 0, quirks = 0, valid = 0;  // variants of each kind
    int hangs = 0, wrong = 0, ran = 0, unclean = 0, racedControls = 0, hazardControls = 0;
    std::vector<std::string> quirkResults, wrongNames, uncleanNames, notRun;
    std::vector<std::vector<std::string>> rows;  // for --format markdown
};

// Counts the kinds of variant and says what the matrix will run.
MatrixTally introduceMatrix(const Options& o, const std::vector<Variant>& variants) {
    MatrixTally t;
    t.controls = size_t(std::count_if(variants.begin(), variants.end(), [](const Variant& v) { return v.control; }));
    t.quirks =
        size_t(std::count_if(variants.begin(), variants.end(), [](const Variant& v) { return v.bladeQuirks; }));
    t.valid = variants.size() - t.controls - t.quirks;
    say("  {} variants ({} valid, {} controls, {} with blade's own quirks), one factor at a time "
        "around blade's own stream, for multipass and single; each child also runs split, "
        "blade's stream, as its reference. Only the valid variants decide the exit status.",
        variants.size(), t.valid, t.controls, t.quirks);
    if (!o.validation) say("  (add --validation to check that every valid variant is validation-clean)");
    if (!o.timestamps) say("  (add --timestamps for GPU time per variant; it adds query commands)");
    if (o.timestamps || o.breadcrumbs) say("  note: {}", kInstrumentationCaveat);
    return t;
}

// Counts one child's outcome into the tally and returns the row's note.
std::string judgeVariant(const Options& o, const Variant& v, const ChildOutcome& c, MatrixTally& t) {
    std::string note;
    if (v.control) {
        note = c.anyWrong ? "control: raced (wrong output without a valid barrier)" : "control: correct anyway";
        if (c.anyWrong) ++t.racedControls;
        if (c.hazards) ++t.hazardControls;
    } else if (v.bladeQuirks) {
        note = "blade's quirks, not valid Vulkan: not judged";
        if (!c.verdictLine.empty()) note += "; " + c.verdictLine;
        t.quirkResults.push_back(fmt::format("{}: {} (exit {})", v.label, resultText(c), c.status));
    } else if (c.status == kExitHang || c.process.timedOut || c.process.signal != 0) {
        // A hang, a child killed at its time limit, or a crash (a driver fault takes the
        // process with it) in a valid variant.
        ++t.ran;
        ++t.hangs;
        t.wrongNames.push_back(fmt::format("{} ({})", v.label, resultText(c)));
        note = c.reason.empty() ? "log " + c.log : c.reason;
    } else if (c.report) {
        if (c.status != kExitCannotTest) ++t.ran;
        if (c.anyWrong && c.status == kExitReproduced) {
            ++t.wrong;
            t.wrongNames.push_back(v.label);
        }
        if (o.validation && c.validationMessages > 0) {
            ++t.unclean;
            t.uncleanNames.push_back(v.label);
        }
        if (c.status == kExitCannotTest) t.notRun.push_back(fmt::format("{}: {}", v.label, c.verdictLine));
    } else {
        t.notRun.push_back(fmt::format("{}: {} (log {})", v.label, resultText(c), c.log));
    }
    const bool memory = std::find(v.args.begin(), v.args.end(), "--memory") != v.args.end();
    if (memory && !c.memory.empty()) note += (note.empty() ? "" : "; ") + c.memory;
    if (c.anyWrong && !v.control && !v.bladeQuirks) note += (note.empty() ? "" : "; ") + c.reason;
    return note;
}

// The matrix's exit status and verdict from the valid variants alone.
std::pair<int, std::string> matrixVerdict(const MatrixTally& t) {
    if (t.hangs > 0) return {kExitHang, "GPU HANG in a valid variant"};
    if (t.wrong > 0) return {kExitReproduced, "BUG REPRODUCED by a valid variant"};
    if (t.ran == 0) return {kExitCannotTest, "CANNOT TEST: no valid variant ran"};
    if (t.unclean > 0) return {kExitValidation, "VALIDATION messages in a valid variant"};
    return {kExitNotReproduced, "NOT REPRODUCED by any valid variant"};
}

// The summary lines after the table, ending with the verdict; returns the exit status.
int concludeMatrix(const Options& o, const ProbedDevice& device, size_t variants, const MatrixTally& t) {
    std::vector<std::string> summary;
    auto line = [&](std::string text) {
        say("{}", text);
        summary.push_back(text.substr(text.find_first_not_of("- ")));
    };
    line(fmt::format("--- matrix: {} variants: {} valid ({} ran, {} reproduced the bug, {} hung), "
                     "{} controls ({} raced, {} drew hazard messages), {} with blade's quirks",
                     variants, t.valid, t.ran, t.wrong, t.hangs, t.controls, t.racedControls, t.hazardControls,
                     t.quirks));
    for (const auto& text : t.quirkResults) line("    blade's quirks: " + text);
    for (const auto& text : t.notRun) line("    not tested: " + text);
    if (o.validation) {
        line(fmt::format("--- validation: {} of the valid default-profile variants drew messages{}", t.unclean,
                         t.unclean ? ": " + join(t.uncleanNames) : ""));
    }
    const auto [status, verdict] = matrixVerdict(t);
    line(fmt::format("--- matrix verdict: {}{}", verdict, t.wrongNames.empty() ? "" : ": " + join(t.wrongNames)));
    printMarkdown("--matrix", o, device, {"#", "variant", "result", "exit", "validation", "GPU", "note"}, t.rows,
                  summary);
    return status;
}

// Says what the sweep will set, and what RADV_DEBUG=hang does to the result.
void introduceDriverEnvSweep(const Options& o, const ProbedDevice& device,
                             const std::vector<DriverSetting>& settings) {
    say("  note: RADV_DEBUG=hang itself adds synchronization (it waits after every command to "
        "find the hanging one), so a bug that disappears under it cannot be caught with it");
    if (settings.empty()) {
        say("  no documented synchronization setting for driver {}; --all-drivers runs every "
            "driver's settings (they should change nothing here)",
            device.driverId.empty() ? "?" : device.driverId);
    } else if (o.allDrivers) {
        say("  --all-drivers: settings of other drivers are expected to change nothing here");
    }
}

// "VARIABLE=value", appended to the variable's value in this environment (Mesa's debug
// lists are comma-separated).
std::string settingAssignment(const DriverSetting& s) {
    std::string value = s.value;
    if (const char* existing = std::getenv(s.variable.c_str()); existing && *existing) {
        value = std::string(existing) + "," + s.value;
    }
    return s.variable + "=" + value;
}

// Whether a child reproduced the bug: exit 2, a hang, or killed at its time limit.
bool reproduces(const ChildOutcome& c) {
    return c.status == kExitReproduced || c.status == kExitHang || c.process.timedOut;
}

// The sweep's rows so far.
struct SweepTally {
    std::vector<std::vector<std::string>> rows;  // for --format markdown
    std::vector<std::string> cures, stillFailing;
};

// One table row, on stderr and for Markdown.
void sweepRow(SweepTally& t, const std::string& setting, const ChildOutcome& c, const std::string& effect) {
    const std::string exit = c.status >= 0 ? std::to_string(c.status) : "-";
    say("  {:<28} {:<40} {:>4}  {:<10} {}", setting, resultText(c, true), exit, gpuText(c), effect);
    t.rows.push_back({setting, resultText(c, true), exit, gpuText(c), effect});
}

// The verdict lines after the table; returns the baseline's exit status.
int concludeDriverEnvSweep(const Options& o, const ProbedDevice& device, const ChildOutcome& baseline,
                           const SweepTally& t) {
    std::vector<std::string> summary;
    std::string verdict;
    if (!reproduces(baseline)) {
        verdict = fmt::format("--- driver-env-sweep: the run without a setting does not reproduce "
                              "(exit {}); there is no failure for a setting to remove",
                              baseline.status);
    } else {
        verdict = fmt::format("--- driver-env-sweep: the bug reproduces without a setting; it "
                              "disappears under: {}",
                              t.cures.empty() ? "none of them" : join(t.cures));
        if (!t.stillFailing.empty()) summary.push_back("still reproduces under: " + join(t.stillFailing));
    }
    say("{}", verdict);
    for (const auto& text : summary) say("    {}", text);
    summary.insert(summary.begin(), "RADV_DEBUG=hang itself adds synchronization, so a bug that "
                                    "disappears under it cannot be caught with it");
    summary.push_back(verdict.substr(4));
    printMarkdown("--driver-env-sweep", o, device, {"setting", "result", "exit", "GPU", "effect"}, t.rows,
                  summary);
    if (baseline.status >= 0) return baseline.status;
    return baseline.process.timedOut ? kExitHang : kExitCannotTest;
}

}  // namespace

int runMatrix(const Options& o) {
    const ProbedDevice device = probe(o);
    const auto dir = makeLogDir("matrix");
    printHeader("--matrix", o, device, dir);
    const ChainSizes sizes = computeSizes(o.shape);
    const double splitMiB = 0.9 * double(sizes.bigBytes) / 1048576.0;
    const std::vector<Variant> variants = matrixVariants(splitMiB);
    MatrixTally t = introduceMatrix(o, variants);
    const std::string exe = selfExecutable(o.commandLine.empty() ? "repro" : o.commandLine[0]);
    const std::vector<std::string> base = baseChildArgs(o);
    const double limit = childTimeLimit(o, device.cpu);
    say("--- matrix ---");
    say("  {:>3}  {:<44} {:<22} {:>4}  {:<20} {}", "#", "variant", "result", "exit", "validation", "gpu");
    for (size_t i = 0; i < variants.size(); ++i) {
        if (interruptSignal() != 0) return interruptedExit();
        const Variant& v = variants[i];
        std::vector<std::string> args = base;
        args.insert(args.end(), v.args.begin(), v.args.end());
        const ChildOutcome c = runOne(exe, args, {}, dir, fmt::format("variant-{:02}", i + 1), limit);
        if (c.process.interrupted) return interruptedExit();
        const std::string note = judgeVariant(o, v, c, t);
        const std::string exit = c.status >= 0 ? std::to_string(c.status) : "-";
        say("  {:>3}  {:<44} {:<22} {:>4}  {:<20} {}{}", i + 1, v.label, resultText(c), exit,
            validationText(o, c), gpuText(c), note.empty() ? "" : "  " + note);
        t.rows.push_back({std::to_string(i + 1), v.label, resultText(c), exit, validationText(o, c), gpuText(c), note});
    }
    return concludeMatrix(o, device, variants.size(), t);
}

int runDriverEnvSweep(const Options& o) {
    const ProbedDevice device = probe(o);
    const auto dir = makeLogDir("driver-env");
    printHeader("--driver-env-sweep", o, device, dir);
    const std::vector<DriverSetting> settings = driverSettingsFor(device.driverId, o.allDrivers);
    introduceDriverEnvSweep(o, device, settings);
    const std::string exe = selfExecutable(o.commandLine.empty() ? "repro" : o.commandLine[0]);
    const std::vector<std::string> base = baseChildArgs(o);
    const double limit = childTimeLimit(o, device.cpu);
    say("--- driver settings ---");
    say("  {:<28} {:<40} {:>4}  {:<10} {}", "setting", "result", "exit", "gpu", "effect");
    SweepTally t;
    const ChildOutcome baseline = runOne(exe, base, {}, dir, "baseline", limit);
    if (baseline.process.interrupted) return interruptedExit();
    sweepRow(t, "(none)", baseline, "the driver as it is");
    for (size_t i = 0; i < settings.size(); ++i) {
        if (interruptSignal() != 0) return interruptedExit();
        const DriverSetting& s = settings[i];
        const std::string assignment = settingAssignment(s);
        const ChildOutcome c = runOne(exe, base, {assignment}, dir, fmt::format("setting-{:02}", i + 1), limit);
        if (c.process.interrupted) return interruptedExit();
        if (reproduces(baseline) && !reproduces(c) && c.status == kExitNotReproduced) t.cures.push_back(assignment);
        if (reproduces(baseline) && reproduces(c)) t.stillFailing.push_back(assignment);
        sweepRow(t, assignment, c, s.effect + (s.driver == device.driverId ? "" : " (not this device's driver)"));
    }
    return concludeDriverEnvSweep(o, device, baseline, t);
}

}  // namespace repro
