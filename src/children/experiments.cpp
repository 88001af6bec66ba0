// --matrix and --driver-env-sweep: the parent starts one child process per run (so a hang
// or crash in one cannot lose the others), reads each child's JSON report and prints a
// table as the children finish.
#include "children/experiments.hpp"

#include <stdlib.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <optional>
#include <set>
#include <tuple>
#include <variant>
#include <string>
#include <utility>
#include <vector>

#include "forensics/environment.hpp"
#include "core/interrupt.hpp"
#include "report/issue_markdown.hpp"
#include "children/triage.hpp"
#include "report/report_render.hpp"
#include "children/run_factors.hpp"
#include "core/spirv_module.hpp"
#include "core/errors.hpp"
#include "core/text.hpp"
#include "core/variant.hpp"
#include "scenario/submit_budget.hpp"
#include "report/verdict.hpp"
#include "core/output.hpp"
#include "cli/output_paths.hpp"
#include "repro_shared.h"
#include "repro_version.h"
#include "vk/describe.hpp"
#include "vk/watch.hpp"
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
        p.driverId = vk::driverIdShortName(d.driver.driverID);
        p.driver = fmt::format("{} {}", d.driver.driverName, d.driver.driverInfo);
    } else {
        p.driver = vk::driverVersionText(d);
    }
    p.cpu = d.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    p.memoryTypes = d.memory.memoryTypeCount;
    return p;
}

std::filesystem::path makeLogDir(const char* what) {
    std::string pattern = fmt::format("{}/repro-{}-XXXXXX", childLogRoot(), what);
    if (!::mkdtemp(pattern.data())) {
        throw UsageError(fmt::format("cannot create a folder for the children's logs ({})", pattern));
    }
    return pattern;
}

void finishLogDir(const Options& options, const std::filesystem::path& dir, const std::string& keepWhy) {
    if (options.keepLogs || !keepWhy.empty()) {
        say("  logs and reports kept in {}{}", dir.string(), options.keepLogs ? " (--keep-logs)" : ": " + keepWhy);
        return;
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (ec) say("  could not remove {}: {}", dir.string(), ec.message());
}

ChildLogFolder::ChildLogFolder(const Options& options, std::filesystem::path dir)
    : options_(options), dir_(std::move(dir)), exceptions_(std::uncaught_exceptions()) {}

ChildLogFolder::~ChildLogFolder() {
    // A run that ended normally went through finishLogDir, which removed the folder or kept
    // it and said why (a baseline that cannot test keeps its log): that stands.
    const bool early = interruptSignal() != 0 || std::uncaught_exceptions() > exceptions_;
    std::error_code ec;
    if (early && std::filesystem::exists(dir_, ec)) finishLogDir(options_, dir_);
}

double childTimeLimit(const Options& o, const Plan& plan, bool cpu, uint32_t scale) {
    if (plan.builtIn()) {
        const uint32_t convTs = o.chainLength * 4 * std::max({o.dispatchRepeat, scale, 1u});
        const double perMode = submitTimeoutSeconds(o.timeoutSeconds, o.shape, convTs, cpu);
        return 2.0 * perMode * 3 * o.repeat + 600.0;
    }
    double perMode = 0;
    for (const scenario::Scenario& s : plan.variants) {
        double all = 120;
        for (const double b : submitBudgets(s, cpu)) all += b * std::max({o.workScale, scale, 1u});
        perMode += o.timeoutSeconds ? *o.timeoutSeconds * double(s.steps.size() + 2) : all;
    }
    return 2.0 * perMode * 3 * o.repeat + 600.0;
}

std::string planLine(const Options& o, const Plan& plan) {
    if (plan.builtIn()) return fmt::format("at N={}, preset {} ({})", o.chainLength, o.preset, describe(o.shape));
    const scenario::Scenario& s = plan.variants.front();
    return fmt::format("on scenario '{}' ({})", escaped(s.name), escaped(s.file));
}

size_t planWorkItems(const Options& o, const Plan& plan) {
    if (plan.builtIn()) return 2 * size_t{o.chainLength};
    return scenario::workSteps(plan.variants.front());
}

Options withFactors(const Options& o, const RunFactors& f) {
    Options out = o;
    if (f.barrier) out.barrier = *f.barrier, out.barrierGiven = true;
    if (f.memory) out.memory = *f.memory;
    if (f.workScale) out.workScale = *f.workScale;
    if (f.submit.cuts()) out.submit = f.submit;
    return out;
}

std::string planRefusal(const Options& o, const RunFactors& f) {
    try {
        (void)makePlan(withFactors(o, f));
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

bool hasBarrierStep(const scenario::Scenario& s) {
    return std::any_of(s.steps.begin(), s.steps.end(),
                       [](const scenario::Step& step) { return std::holds_alternative<scenario::Barrier>(step.body); });
}

int documentStatus(int status) {
    return status == kExitReproduced || status == kExitHang || status > 125 ? status : kExitUsage;
}

void printChildrenHeader(const std::string& ran, const ProbedDevice& device, const std::filesystem::path& dir,
                         const std::string& dirNote) {
    say("repro {} (git {}): {}", kReproVersion, kReproGitHash, ran);
    say("Device: {} | driver: {} | driverID {}", device.name, device.driver,
        device.driverId.empty() ? "?" : device.driverId);
    say("  each run is a child process of this binary with its own device; logs and JSON reports in {}{}", dir.string(),
        dirNote);
}

namespace {

std::string validationText(const Options& o, const ChildOutcome& c) {
    if (!o.validation) return "-";
    if (!c.report) return "?";
    // A child that never ran its modes drew no messages because nothing ran: not "clean".
    if (c.status == kExitCannotTest || c.status == kExitUsage) return "not run";
    if (c.validationMessages == 0) return "clean";
    return fmt::format("{} msgs{}", c.validationMessages, c.hazards ? fmt::format(" ({} hazards)", c.hazards) : "");
}

std::string gpuText(const ChildOutcome& c) {
    return c.gpuSeconds ? fmt::format("{:.3f} ms", *c.gpuSeconds * 1e3) : "-";
}

std::string exitText(const ChildOutcome& c) { return c.status >= 0 ? std::to_string(c.status) : "-"; }

// The parent's facts for RADV's template: the device it probed, this host, the command.
IssueFacts childrenIssueFacts(const char* what, const Options& o, const ProbedDevice& device,
                              const std::vector<std::string>& summary, const ChildrenStory& story,
                              const std::string& home) {
    const std::string& verdict = summary.back();  // "matrix verdict: ...": the heading says the rest
    const EnvironmentReport environment = captureEnvironment();
    IssueFacts f{
        .title = fmt::format("repro {}: {}", what, verdict.substr(verdict.find(": ") + 2)),
        .description = fmt::format(
            "{} Result: {}.",
            story.ran.empty()
                ? fmt::format("repro {} ran the command's runs as child processes of repro on {}.", what, device.name)
                : story.ran,
            verdict),
        .system = {{"GPU", device.name},
                   {"Driver", fmt::format("{} ({})", device.driver,
                                          device.driverId.empty() ? "driverID unknown" : device.driverId)},
                   {"Mesa version", mesaVersion(device.driver)}},
        .version = kReproVersion,
        .gitHash = kReproGitHash,
        .commandLine = o.commandLine,
        .environment = environment.variables,
        .llvmAnswer = story.llvmAnswer,
        .kernelLogProblem =
            "the runs were child processes of repro: each one's JSON report holds the "
            "kernel log lines it read (`--keep-logs` keeps them)"};
    const auto host = hostSystemInformation(environment, home);
    f.system.insert(f.system.end(), host.begin(), host.end());
    if (story.hang) f.hangNotes = hangEvidenceNotes(device.driver.substr(0, device.driver.find(' ')));
    return f;
}

}  // namespace

// The text went to stderr as it ran (or to stdout, with -o); the document goes to stdout
// (or the -o file).
bool printMarkdown(const char* what, const Options& o, const ProbedDevice& device,
                   const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                   const std::vector<std::string>& summary, const ChildrenStory& story) {
    if (o.format != Format::Markdown) return true;
    const IssueContext context = currentIssueContext();
    const IssueFacts facts = childrenIssueFacts(what, o, device, summary, story, context.home);
    std::string out = issueHead(facts, context);
    out += "#### Results\n\n" + markdownTable(header, rows) + "\n";
    for (const auto& line : summary) out += "- " + markdownText(line) + "\n";
    out += "\n" + issueTail(facts, context);
    return emitFormatDocument(o, fmt::format("the {} Markdown document", what), withoutHome(out, context.home));
}

int interruptedExit() {
    const int signal = interruptSignal();
    say("--- INTERRUPTED by {}: the rows above are complete; no verdict", interruptName(signal));
    return 128 + signal;
}

std::string interruptedAfter(size_t count, std::string_view noun) {
    return fmt::format("interrupted by {} after {} {}{}", interruptName(), count, noun, count == 1 ? "" : "s");
}

namespace {

// The columns of the matrix's Markdown table, finished or interrupted.
const std::vector<std::string> kMatrixColumns = {"#", "variant", "result", "exit", "validation", "GPU", "note"};

// What the matrix has seen so far, row by row.
struct MatrixTally {
    size_t controls = 0, quirks = 0, valid = 0;  // variants of each kind
    int hangs = 0, wrong = 0, ran = 0, racedControls = 0, hazardControls = 0;
    std::vector<std::pair<Variant, ChildOutcome>> outcomes;  // every row, for the conclusion
    std::vector<std::string> quirkResults, wrongNames, uncleanNames;
    std::vector<std::string> notRun;  // valid variants that gave no result (could not test, crashed, no report)
    std::vector<std::vector<std::string>> rows;  // for --format markdown
    std::string keepWhy;                         // why the children's folder is kept: a line points at a log in it
    size_t workItems = 0;                        // the plan's (planWorkItems): what a submit structure cuts
    bool file = false;                           // the plan is a file's: its rows are around its own stream
};

// A line that points at a child's log: the folder is kept, so the file is there to read.
std::string pointAtLog(MatrixTally& t, const ChildOutcome& c) {
    t.keepWhy = "a line above points at a child's log";
    return "log " + c.log;
}

// The reference the children use, in words for the matrix's introduction.
std::string childReference(const Options& o, bool file) {
    if (file && o.reference == ReferenceKind::Cpu)
        return "each child checks against the file's CPU model (--reference cpu) and runs no split";
    if (file) return "each child checks against the file's CPU model and split";
    switch (o.reference) {
        case ReferenceKind::Cpu:
            return "each child checks against the CPU reference (--reference cpu) and runs no split";
        case ReferenceKind::None:
            return "each child checks for zeros and non-finite values only (--reference none) and runs no split";
        default:
            return "each child also runs split, blade's stream, as its reference";
    }
}

// Counts the kinds of variant and says what the matrix will run.
MatrixTally introduceMatrix(const Options& o, const Plan& plan, const std::vector<Variant>& variants, size_t folded) {
    MatrixTally t;
    t.workItems = planWorkItems(o, plan);
    t.file = !plan.builtIn();
    t.controls = size_t(std::count_if(variants.begin(), variants.end(), [](const Variant& v) { return isControl(v); }));
    t.quirks = size_t(std::count_if(variants.begin(), variants.end(), [](const Variant& v) { return bladeQuirks(v); }));
    t.valid = variants.size() - t.controls - t.quirks;
    say("  {} variants ({} valid, {} controls{}), one factor at a time around {} own stream, for multipass and "
        "single; {}. Only the valid variants decide the exit status.",
        variants.size(), t.valid, t.controls,
        t.file ? std::string() : fmt::format(", {} with blade's own quirks", t.quirks),
        t.file ? "the file's" : "blade's", childReference(o, t.file));
    if (folded > 0) {
        say("  {} more variants are folded into the ones they repeat: with a --barrier other than blade's, multipass "
            "and single record the same stream, so each such stream is listed once (as multipass = single)",
            folded);
    }
    if (o.dropDispatch) {
        say("  --drop-dispatch {}: every variant leaves that dispatch out, so wrong output is expected everywhere; "
            "a wrong control shows the dropped dispatch, not a race",
            *o.dropDispatch);
    }
    if (!o.validation) say("  (add --validation to check that every valid variant is validation-clean)");
    if (!o.timestamps) say("  (add --timestamps for GPU time per variant; it adds query commands)");
    if (o.timestamps || o.breadcrumbs) say("  note: {}", kInstrumentationCaveat);
    return t;
}

// The cause that cut a mode of the child short whatever its control removed (report/verdict.hpp
// cutShortBy), in words; "" for none.
std::string modeCutShortBy(const ChildOutcome& c) {
    for (const ModeReport& m : c.report ? c.report->modes : std::vector<ModeReport>{})
        if (const std::string_view cut = cutShortBy(m.result.causeKind); !cut.empty()) return std::string(cut);
    return "";
}

// A control's note: with a dropped dispatch, wrong output is that dispatch's doing; a mode the
// job timeout killed says nothing of the control (not counted as raced).
std::string controlNote(const Options& o, const ChildOutcome& c, MatrixTally& t) {
    if (c.hazards) ++t.hazardControls;
    // Correct only when it ran to a result; a control that never ran says so.
    if (!c.anyWrong && childRunResult(c) != RunResult::Correct) return "control: no result (" + resultText(c) + ")";
    if (!c.anyWrong) return "control: correct anyway";
    if (const std::string cut = modeCutShortBy(c); !cut.empty())
        return "control: not judged (" + cut + " cut a mode short)";
    if (c.status == kExitHang || c.process.timedOut) return "control: hung (" + resultText(c) + ")";
    if (o.dropDispatch)
        return fmt::format("control: wrong, as --drop-dispatch {} makes every variant", *o.dropDispatch);
    ++t.racedControls;
    return "control: raced (wrong output without a valid barrier)";
}

// What a row changes nothing about on this device, or "".
std::string noEffectNote(const MatrixTally& t, const ProbedDevice& device, const Variant& v) {
    if (v.factors.memory && device.memoryTypes <= 1) return "changes nothing here: the device has one memory type";
    const uint32_t every = v.factors.submit.every;
    if (every > 0 && every >= t.workItems) {
        return fmt::format("changes nothing here: {} {} fit in one submit of {}", t.workItems,
                           t.file ? "work steps" : "dispatches", every);
    }
    return "";
}

// A valid variant's outcome into the tally.
void countValid(const Options& o, const Variant& v, const ChildOutcome& c, MatrixTally& t, std::string& note) {
    if (c.status == kExitHang || c.process.timedOut) {
        // A hang, or a child killed at its time limit, in a valid variant.
        ++t.ran;
        ++t.hangs;
        t.wrongNames.push_back(fmt::format("{} ({})", label(v), resultText(c)));
        note = c.reason.empty() ? pointAtLog(t, c) : c.reason;
    } else if (c.process.signal != 0) {
        // The child itself died of a signal: a crash of this binary, not a GPU hang (a
        // driver fault inside the child's Vulkan calls ends in 125 or 3 through its supervisor).
        t.notRun.push_back(fmt::format("{}: crashed (signal {}; {})", label(v), c.process.signal, pointAtLog(t, c)));
    } else if (c.report) {
        if (c.status != kExitCannotTest) ++t.ran;
        if (c.anyWrong && c.status == kExitReproduced) {
            ++t.wrong;
            t.wrongNames.push_back(label(v));
        }
        if (o.validation && c.validationMessages > 0) t.uncleanNames.push_back(label(v));
        if (c.status == kExitCannotTest) t.notRun.push_back(fmt::format("{}: {}", label(v), c.verdictLine));
    } else {
        t.notRun.push_back(fmt::format("{}: {} ({})", label(v), outcomeText(c), pointAtLog(t, c)));
    }
}

// Counts one child's outcome into the tally and returns the row's note.
std::string judgeVariant(const Options& o, const ProbedDevice& device, const Variant& v, const ChildOutcome& c,
                         MatrixTally& t) {
    std::string note;
    if (isControl(v)) {
        note = controlNote(o, c, t);
    } else if (bladeQuirks(v)) {
        note = "blade's quirks, not valid Vulkan: not judged";
        if (!c.verdictLine.empty()) note += "; " + c.verdictLine;
        t.quirkResults.push_back(fmt::format("{}: {}", label(v), outcomeText(c)));  // names its exit once
    } else {
        countValid(o, v, c, t, note);
    }
    auto add = [&](const std::string& text) {
        if (!text.empty()) note += (note.empty() ? "" : "; ") + text;
    };
    if (v.factors.memory && !c.memory.empty()) add(c.memory);
    add(noEffectNote(t, device, v));
    const bool hung = c.status == kExitHang || c.process.timedOut;  // countValid's note is its reason
    if (c.anyWrong && !hung && !isControl(v) && !bladeQuirks(v)) add(c.reason);
    t.outcomes.emplace_back(v, c);
    return note;
}

// The matrix's exit status and verdict from the valid variants alone.
std::pair<int, std::string> matrixVerdict(const MatrixTally& t) {
    if (t.hangs > 0) return {kExitHang, "GPU HANG in a valid variant"};
    if (t.wrong > 0) return {kExitReproduced, "BUG REPRODUCED by a valid variant"};
    if (t.ran == 0) return {kExitCannotTest, "CANNOT TEST: no valid variant ran"};
    // "Not reproduced" (or validation messages) speaks for every valid variant only when
    // every one of them ran.
    if (!t.notRun.empty()) {
        return {kExitCannotTest,
                fmt::format("CANNOT TEST: {} of the {} valid variants gave no result", t.notRun.size(), t.valid)};
    }
    if (!t.uncleanNames.empty()) return {kExitValidation, "VALIDATION messages in a valid variant"};
    return {kExitNotReproduced, "NOT REPRODUCED by any valid variant"};
}

// The experiment a matrix row is, for the conclusion; nullopt for rows it does not weigh
// (blade's own stream, the controls, --dispatch-repeat alone).
std::optional<ExperimentKind> experimentOf(const Variant& v) {
    const RunFactors& f = v.factors;
    if (isControl(v)) return std::nullopt;
    if (bladeQuirks(v)) return ExperimentKind::BladeExact;
    if (f.barrier) return ExperimentKind::Barrier;
    if (f.memory) return ExperimentKind::Memory;
    if (f.submit.splitMiB) return ExperimentKind::SplitMib;
    if (f.submit.every > 0)
        return f.submit.hostWait ? ExperimentKind::SubmitEveryWait : ExperimentKind::SubmitEveryNoWait;
    return std::nullopt;
}

// The triage's input from the matrix's rows: blade's stream of the first mode it fails in
// as the baseline (with its cause), that mode's rows as the experiments.
TriageInput matrixTriageInput(const Options& o, const ProbedDevice& device, const MatrixTally& t) {
    auto modeOf = [](const Variant& v) { return v.factors.mode ? std::string(name(*v.factors.mode)) : std::string(); };
    auto isBlade = [](const Variant& v) { return v.factors == RunFactors{.mode = v.factors.mode}; };
    TriageInput in;
    in.userModules = o.spirvDir.has_value();
    in.file = t.file;
    std::string mode = "multipass";
    for (const auto& [v, c] : t.outcomes) {
        if (!isBlade(v)) continue;
        const RunResult r = childRunResult(c);
        if (modeOf(v) == "multipass" || r == RunResult::Wrong || r == RunResult::Hang) {
            readTriageBaseline(c, in);
            mode = modeOf(v);
            if (r == RunResult::Wrong || r == RunResult::Hang) break;
        }
    }
    for (const auto& [v, c] : t.outcomes) {
        const std::optional<ExperimentKind> kind = experimentOf(v);
        if (!kind || (modeOf(v) != mode && !v.folded)) continue;
        ExperimentOutcome e{
            .kind = *kind, .label = labelWithoutMode(v), .result = childRunResult(c), .detail = resultText(c, true)};
        if (!noEffectNote(t, device, v).empty() && e.result != RunResult::Wrong) {
            e.result = RunResult::NoEffect;
            e.detail = noEffectNote(t, device, v);
        }
        in.experiments.push_back(e);
    }
    return in;
}

// The summary lines after the table, ending with the verdict; returns the exit status.
int concludeMatrix(const Options& o, const ProbedDevice& device, size_t variants, const MatrixTally& t) {
    std::vector<std::string> summary;
    auto line = [&](std::string text) {
        say("{}", text);
        summary.push_back(text.substr(text.find_first_not_of("- ")));
    };
    line(
        fmt::format("--- matrix: {} variants: {} valid ({} ran, {} reproduced the bug, {} hung), "
                    "{} controls ({} raced, {} drew hazard messages){}",
                    variants, t.valid, t.ran, t.wrong, t.hangs, t.controls, t.racedControls, t.hazardControls,
                    t.file ? std::string() : fmt::format(", {} with blade's quirks", t.quirks)));
    for (const auto& text : t.quirkResults) line("    blade's quirks: " + text);
    for (const auto& text : t.notRun) line("    not tested: " + text);
    if (o.validation) {
        line(fmt::format("--- validation: {} of the valid default-profile variants drew messages{}",
                         t.uncleanNames.size(), t.uncleanNames.empty() ? "" : ": " + join(t.uncleanNames)));
    }
    const TriageConclusion triage = concludeTriage(matrixTriageInput(o, device, t));
    line("--- hypotheses (from the rows above; --triage runs more experiments) ---");
    for (const HypothesisFinding& h : triage.hypotheses) line("  " + findingLine(h));
    line("--- " + triage.line);
    const auto [status, verdict] = matrixVerdict(t);
    line(fmt::format("--- matrix verdict: {}{}", verdict, t.wrongNames.empty() ? "" : ": " + join(t.wrongNames)));
    const bool written = printMarkdown("--matrix", o, device, kMatrixColumns, t.rows, summary);
    return written ? status : documentStatus(status);
}

// Says what the sweep will set, and what RADV_DEBUG=hang does to the result.
void introduceDriverEnvSweep(const Options& o, const ProbedDevice& device, const std::vector<DriverSetting>& settings) {
    say("  note: RADV_DEBUG=hang itself adds synchronization (it implies syncshaders: it waits after every command "
        "to find the hanging one), so a bug that disappears under it cannot be caught with it");
    if (settings.empty()) {
        say("  no documented synchronization setting for driver {}; --all-drivers runs every "
            "driver's settings (they should change nothing here)",
            device.driverId.empty() ? "?" : device.driverId);
    } else if (o.allDrivers) {
        say("  --all-drivers: settings of other drivers are expected to change nothing here");
    }
}

// Whether a child reproduced the bug: exit 2, a hang, or killed at its time limit.
bool reproduces(const ChildOutcome& c) {
    return c.status == kExitReproduced || c.status == kExitHang || c.process.timedOut;
}

// The sweep's rows so far.
struct SweepTally {
    std::vector<std::vector<std::string>> rows;                      // for --format markdown
    std::vector<std::string> cures, proofs, stillFailing, notKnown;  // proofs[i]: what cures[i] proves
};

// One table row and, under it, what a change of outcome under the setting proves; on stderr and for Markdown.
void sweepRow(SweepTally& t, const std::vector<std::string>& cells, const std::string& proves) {
    say("  {:<28} {:<40} {:>4}  {:<10} {}", cells[0], cells[1], cells[2], cells[3], cells[4]);
    if (!proves.empty()) say("      if the outcome changes: {}", proves);
    t.rows.push_back(cells);
    t.rows.back().push_back(proves);
}

// RADV_DEBUG=llvm's row: whether LLVM compiled, read from the child's device name, where RADV
// appends " (LLVM x.y.z)" when LLVM is the compiler and nothing for ACO (radv_physical_device.c,
// radv_get_compiler_string; a drirc workaround for one game also appends "LLVM 9.0.1"). Empty
// for other rows and when the child has no device in its report.
std::string llvmTookEffect(const DriverSetting& s, const ChildOutcome& c) {
    if (s.variable != "RADV_DEBUG" || s.value != "llvm" || !c.report || !c.report->device) return "";
    return c.report->device->deviceName.find("LLVM") != std::string::npos
               ? "; took effect: the device name names LLVM"
               : "; did not take effect: the device name names no LLVM, so ACO compiled (a Mesa without LLVM, or "
                 "one that keeps llvm to debug builds): the row proves nothing";
}

// The verdict lines after the table; returns the baseline's exit status.
int concludeDriverEnvSweep(const Options& o, const ProbedDevice& device, const ChildOutcome& baseline,
                           const SweepTally& t) {
    std::vector<std::string> summary;
    std::string verdict;
    if (childRunResult(baseline) == RunResult::NotRun) {
        // No result is no "does not reproduce": the sweep cannot judge any setting.
        const std::string why = baseline.verdictLine.empty() ? lastOutputLine(baseline) : baseline.verdictLine;
        verdict = fmt::format("--- driver-env-sweep: no result without a setting: {}{}; no setting can be judged",
                              outcomeText(baseline), why.empty() ? "" : ": " + why);
    } else if (!reproduces(baseline)) {
        verdict = fmt::format(
            "--- driver-env-sweep: the run without a setting does not reproduce "
            "(exit {}); there is no failure for a setting to remove",
            baseline.status);
    } else {
        verdict = fmt::format(
            "--- driver-env-sweep: the bug reproduces without a setting; it "
            "disappears under: {}",
            t.cures.empty() ? "none of them" : join(t.cures));
        for (size_t i = 0; i < t.cures.size(); ++i)
            summary.push_back(t.cures[i] + " cures it, which points at " + t.proofs[i]);
        if (!t.stillFailing.empty()) summary.push_back("still reproduces under: " + join(t.stillFailing));
    }
    if (!t.notKnown.empty()) summary.push_back("not run, not known to this driver: " + join(t.notKnown));
    say("{}", verdict);
    for (const auto& text : summary) say("    {}", text);
    summary.insert(summary.begin(),
                   "RADV_DEBUG=hang itself adds synchronization (it implies syncshaders), so a bug that "
                   "disappears under it cannot be caught with it");
    summary.push_back(verdict.substr(4));
    const bool written =
        printMarkdown("--driver-env-sweep", o, device,
                      {"setting", "result", "exit", "GPU", "effect", "a change of outcome proves"}, t.rows, summary);
    const int status = baseline.status >= 0 ? baseline.status : baseline.process.timedOut ? kExitHang : kExitCannotTest;
    return written ? status : documentStatus(status);
}

// --split-ms at half the queue's job timeout (the per-submit cap by time), for multipass
// and single; none when the first child named no timeout, said in one line.
std::vector<Variant> splitMsRows(const MatrixTally& t) {
    const std::optional<double> timeout = t.outcomes.empty() ? std::nullopt : reportedJobTimeout(t.outcomes[0].second);
    if (!timeout) {
        say("       split-ms (half the job timeout): not run: the first child's report names no job timeout for "
            "this device's queue");
        return {};
    }
    const double half = *timeout * 500.0;
    say("       2 more valid variants: --split-ms {} (half the {:.1f} s job timeout the first child's report names)",
        splitMsText(half), *timeout);
    return splitMsVariants(half);
}

// A file's matrix rows (fileMatrixVariants) that apply to it: a row the file refuses (a memory
// row that moves no buffer, --work-scale where no dispatch has a work loop, a submit
// structure on a file with queues: scenario/plan.hpp makePlan's rules), a barrier row where the
// file has no barrier step, and a submit structure that would leave one submit are left out,
// each said once.
std::vector<Variant> fileRows(const Options& o, const Plan& plan) {
    const bool barriers = hasBarrierStep(plan.variants.front());
    std::vector<Variant> out;
    std::set<std::string> said;
    for (const Variant& v : fileMatrixVariants()) {
        std::string why;
        if (v.factors.barrier && !barriers) why = "the file has no barrier step to replace";
        if (v.factors.submit.every > 0 && planWorkItems(o, plan) <= v.factors.submit.every)
            why = fmt::format("the file has {} work step(s), one submit either way", planWorkItems(o, plan));
        bool control = false;
        try {
            if (why.empty()) control = makePlan(withFactors(o, v.factors)).variants.front().hasControl();
        } catch (const UsageError& e) {
            why = e.what();
        }
        if (why.empty()) {
            out.push_back(v);
            out.back().fileControl = control;
        } else if (said.insert(labelWithoutMode(v)).second) {
            say("  note: --matrix: row {} left out: {}", labelWithoutMode(v), why);
        }
    }
    return out;
}

// An interrupted matrix: the rows that finished, in the Markdown document too (with
// --format markdown), and "no verdict"; 128 + the signal (or 1 when the document was lost).
int interruptedMatrix(const Options& o, const ProbedDevice& device, const MatrixTally& t) {
    const int status = interruptedExit();
    const std::string line = "matrix: " + interruptedAfter(t.rows.size(), "row") + "; no verdict";
    const bool written = printMarkdown("--matrix", o, device, kMatrixColumns, t.rows, {line});
    return written ? status : kExitUsage;
}

}  // namespace

int runMatrix(const Options& o, const Plan& plan) {
    const ProbedDevice device = probe(o);
    const auto dir = makeLogDir("matrix");
    const ChildLogFolder logs(o, dir);  // removed (or kept and named) when interrupted
    printChildrenHeader("--matrix " + planLine(o, plan), device, dir);
    std::vector<Variant> variants;
    size_t folded = 0;
    if (plan.builtIn()) {
        const double splitMiB = 0.9 * double(computeSizes(o.shape).bigBytes) / 1048576.0;
        std::tie(variants, folded) = foldSameStreams(matrixVariants(splitMiB));
    } else {
        variants = fileRows(o, plan);
    }
    MatrixTally t = introduceMatrix(o, plan, variants, folded);
    const double limit = childTimeLimit(o, plan, device.cpu);
    say("--- matrix ---");
    // The variant column fits the longest label (the --split-ms rows added later are shorter).
    size_t width = 44;
    for (const Variant& v : variants) width = std::max(width, label(v).size());
    say("  {:>3}  {:<{}} {:<22} {:>4}  {:<20} {}", "#", "variant", width, "result", "exit", "validation", "gpu");
    for (size_t i = 0; i < variants.size(); ++i) {
        if (interruptSignal() != 0) return interruptedMatrix(o, device, t);
        if (i == 1) {  // the first child has said what the queue's job timeout is
            const std::vector<Variant> extra = splitMsRows(t);
            variants.insert(variants.end(), extra.begin(), extra.end());
            t.valid += extra.size();
        }
        const Variant& v = variants[i];
        watch::row(static_cast<unsigned>(i + 1), static_cast<unsigned>(variants.size()), "matrix " + label(v));
        const ChildOutcome c = runChild({.options = o,
                                         .factors = v.factors,
                                         .dir = dir,
                                         .tag = fmt::format("variant-{:02}", i + 1),
                                         .limitSeconds = limit});
        if (c.process.interrupted) return interruptedMatrix(o, device, t);
        const std::string note = judgeVariant(o, device, v, c, t);
        say("  {:>3}  {:<{}} {:<22} {:>4}  {:<20} {}{}", i + 1, label(v), width, resultText(c), exitText(c),
            validationText(o, c), gpuText(c), note.empty() ? "" : "  " + note);
        t.rows.push_back(
            {std::to_string(i + 1), label(v), resultText(c), exitText(c), validationText(o, c), gpuText(c), note});
    }
    const int status = concludeMatrix(o, device, variants.size(), t);
    finishLogDir(o, dir, t.keepWhy);
    return status;
}

int runDriverEnvSweep(const Options& o, const Plan& plan) {
    const ProbedDevice device = probe(o);
    const auto dir = makeLogDir("driver-env");
    const ChildLogFolder logs(o, dir);  // removed (or kept and named) when interrupted
    printChildrenHeader("--driver-env-sweep " + planLine(o, plan), device, dir);
    const std::vector<DriverSetting> settings = driverSettingsFor(device.driverId, o.allDrivers);
    introduceDriverEnvSweep(o, device, settings);
    const double limit = childTimeLimit(o, plan, device.cpu);
    say("--- driver settings ---");
    say("  {:<28} {:<40} {:>4}  {:<10} {}", "setting", "result", "exit", "gpu", "effect");
    SweepTally t;
    const ChildOutcome baseline = runChild({.options = o, .dir = dir, .tag = "baseline", .limitSeconds = limit});
    if (baseline.process.interrupted) return interruptedExit();
    sweepRow(t, {"(none)", resultText(baseline, true), exitText(baseline), gpuText(baseline), "the driver as it is"},
             "");
    const std::optional<std::string> library =
        baseline.report && baseline.report->device ? baseline.report->device->driverLibrary : std::nullopt;
    for (size_t i = 0; i < settings.size(); ++i) {
        if (interruptSignal() != 0) return interruptedExit();
        const DriverSetting& s = settings[i];
        const RunFactors factors{.driverEnv = DriverEnv{.variable = s.variable, .value = s.value}};
        const std::string assignment = childEnv(factors).front();
        const LibraryOptionCheck known =
            library ? optionKnownToLibrary(*library, s.variable, s.value)
                    : LibraryOptionCheck{.detail = "not checked: the loader named no driver library"};
        if (known.presence == OptionPresence::NotKnown) {  // setting it would test nothing
            t.notKnown.push_back(assignment);
            sweepRow(t, {assignment, "not known to this driver", "-", "-", known.detail}, s.proves);
            continue;
        }
        watch::row(static_cast<unsigned>(i + 1), static_cast<unsigned>(settings.size()),
                   "driver settings " + assignment);
        const ChildOutcome c = runChild({.options = o,
                                         .factors = factors,
                                         .dir = dir,
                                         .tag = fmt::format("setting-{:02}", i + 1),
                                         .limitSeconds = limit});
        if (c.process.interrupted) return interruptedExit();
        if (reproduces(baseline) && !reproduces(c) && c.status == kExitNotReproduced) {
            t.cures.push_back(assignment);
            t.proofs.push_back(s.proves);
        }
        if (reproduces(baseline) && reproduces(c)) t.stillFailing.push_back(assignment);
        const std::string note = (s.driver == device.driverId ? "" : " (not this device's driver)") +
                                 std::string(known.presence == OptionPresence::Known ? "" : "; " + known.detail) +
                                 llvmTookEffect(s, c);
        sweepRow(t, {assignment, resultText(c, true), exitText(c), gpuText(c), s.effect + note}, s.proves);
    }
    const int status = concludeDriverEnvSweep(o, device, baseline, t);
    finishLogDir(o, dir);
    return status;
}

}  // namespace repro
