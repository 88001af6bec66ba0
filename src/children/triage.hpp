// The reasoning of --triage (and of --matrix's closing section): from the outcomes of
// experiments that each change one thing about the failing run, which hypothesis about
// the cause each outcome supports or rules out, and one conclusion line that names a cause
// only when the evidence does and otherwise says what is missing. Pure logic; Vulkan-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace repro {

// The hypotheses, in the order they are printed.
enum class Hypothesis {
    MissingFlush,    // H1: a cache flush or invalidation the driver does not emit
    SubmitBoundary,  // H2: state that drains only at a submit boundary
    JobTimeout,      // H3: the kernel's job watchdog kills the long submit
    BytesPerSubmit,  // H4: the bytes one submit writes
    ShaderCompiler,  // H5: the shader compiler
    BladeQuirks,     // H6: blade's own invalid usage
};
std::string_view code(Hypothesis h);      // "H1" .. "H6"
std::string_view describe(Hypothesis h);  // "a cache flush or invalidation the driver does not emit", ...
inline constexpr Hypothesis kHypotheses[] = {Hypothesis::MissingFlush,   Hypothesis::SubmitBoundary,
                                             Hypothesis::JobTimeout,     Hypothesis::BytesPerSubmit,
                                             Hypothesis::ShaderCompiler, Hypothesis::BladeQuirks};

// What one child run of the failing mode gave.
enum class RunResult {
    Wrong,     // the mode under test was wrong (exit 2)
    Correct,   // every mode under test was right (exit 0, or 4: validation messages only)
    Hang,      // a GPU hang or device loss (exit 3), killed at its time limit, or a crash
    NotRun,    // could not run here (125, a usage error, no report) or was not started
    NoEffect,  // not run: the experiment changes nothing on this device (said in the detail)
};
std::string_view name(RunResult r);  // "wrong", "correct", "hang", "not run", "no effect"

// The experiments, by what they change.
enum class ExperimentKind {
    Barrier,            // --barrier sync2|buffer|full
    Memory,             // --memory device-local|host-visible|host-cached
    SubmitEveryWait,    // --submit-every K with host waits
    SubmitEveryNoWait,  // --submit-every K without host waits
    SplitMs,            // --split-ms T, T half the queue's timeout
    SplitMib,           // --split-mib X
    OneStepRepeat,      // -n 1 --dispatch-repeat 2N: at least the baseline's conv-T work in
                        // one submit, 1/N of its bytes
    CheckSteps,         // split's per-dispatch CPU check: Wrong = a dispatch failed it
    CompilerSwitch,     // RADV_DEBUG=llvm: the other shader compiler
    BladeExact,         // --profile blade-exact
};
Hypothesis hypothesisOf(ExperimentKind k);

// The experiments that change multipass's and single's recording (--barrier,
// --submit-every, --split-ms, --split-mib, --dispatch-repeat): never run on split.
bool changesRecording(ExperimentKind k);

struct ExperimentOutcome {
    ExperimentKind kind = ExperimentKind::Barrier;
    std::string label;  // "barrier=full", "RADV_DEBUG=llvm"
    RunResult result = RunResult::NotRun;
    std::string detail;  // one line: the child's result or why it was not run
};

// The watchdog probe (--watchdog-probe): what a submit longer than the timeout did.
enum class ProbeResult {
    NotRun,
    SoftKill,  // zeros (or wrong output) with no error, the submit ended near the timeout
    HardKill,  // device lost
    NoKill,    // every rung correct, up to the longest submit it made
};
std::string_view name(ProbeResult r);  // "not run", "soft kill", "hard kill", "no kill"

struct ProbeOutcome {
    ProbeResult result = ProbeResult::NotRun;
    double longestSeconds = 0;  // the longest submit it measured, seconds (NoKill: its bound)
    std::string detail;         // one line
};

// Everything the conclusion is drawn from. The baseline is the user's command (blade's
// stream, default profile) with every mode.
struct TriageInput {
    RunResult baseline = RunResult::NotRun;
    std::string baselineDetail;  // "multipass zero, single zero (exit 2)"
    std::string failingMode;     // the first wrong mode, "multipass"
    // The baseline's `cause` (report schema 2) for the failing mode: kind ("job_timeout",
    // "hang_killed", "synchronization", "shader_compiler", "blade_quirks", "undetermined"),
    // its verdict line and what it lists as missing; empty kind when the report has none.
    std::string causeKind;
    std::string causeVerdict;
    std::vector<std::string> causeMissing;
    // The longest submit of the failing mode the baseline measured (seconds), if known.
    std::optional<double> baselineSubmitSeconds;
    // Whether that submit measurably ran its full predicted time (the cause's
    // decisive_submit.ran_in_full): it did all its work. nullopt when not measurable.
    std::optional<bool> baselineRanInFull;
    std::vector<ExperimentOutcome> experiments;
    ProbeOutcome probe;
    // --spirv: the modules are the user's, so H5 names the shaders before the compiler.
    bool userModules = false;
    // A scenario file: H6 (blade's own invalid usage) is the built-in chain's question only.
    bool file = false;
};

enum class Finding { Supports, RulesOut, NoEvidence };
std::string_view name(Finding f);  // "supports", "rules out", "no evidence"

// One row of the table: hypothesis -> experiment -> outcome -> points to.
struct TriageRow {
    Hypothesis hypothesis = Hypothesis::MissingFlush;
    std::string experiment;
    std::string outcome;
    Finding finding = Finding::NoEvidence;
    std::string why;  // one short clause
};

struct HypothesisFinding {
    Hypothesis hypothesis = Hypothesis::MissingFlush;
    Finding finding = Finding::NoEvidence;
    std::string why;
};

// One hypothesis's finding in words, as --triage and --matrix print it: "H1 a cache flush or
// invalidation the driver does not emit: supports (barrier=full makes it correct)", without
// the parentheses when there is no why.
std::string findingLine(const HypothesisFinding& h);

enum class ConclusionKind {
    NotReproduced,
    JobTimeout,
    GpuHang,  // a hang the job timeout only ended (the baseline's cause hang_killed)
    Synchronization,
    BytesPerSubmit,
    ShaderCompiler,
    BladeQuirks,
    Undetermined
};
// "not_reproduced", "job_timeout", "gpu_hang", "synchronization", "bytes_per_submit", "shader_compiler",
// "blade_quirks", "undetermined" (the JSON names)
std::string_view name(ConclusionKind k);

struct TriageConclusion {
    std::vector<TriageRow> rows;                // the baseline's cause, the experiments, the probe
    std::vector<HypothesisFinding> hypotheses;  // H1..H6, in order
    ConclusionKind kind = ConclusionKind::Undetermined;
    std::string line;  // "conclusion: ..."
};

// Draws the conclusion by the rules of docs/experiments.md "How the findings are weighed" (each
// experiment changes one thing of a wrong baseline) and "--triage" (a correct baseline:
// NotReproduced, or BladeQuirks when blade-exact alone is wrong; one with no result: Undetermined).
// Besides: the default profile reproducing rules out H6, and H4 is concluded alone only without a
// synchronization cause (a cache that overflows with the bytes of a submit is a synchronization
// bug). A hang_killed baseline is GpuHang, weighed by the recording experiments. One cause
// supported and nothing contradicting it is that cause; otherwise Undetermined, naming the
// contradiction or what is missing.
TriageConclusion concludeTriage(const TriageInput& input);

// The answer to RADV's issue template question "does it happen with RADV_DEBUG=llvm?", from
// the CompilerSwitch experiment: "yes: ..." (LLVM gives the same wrong or hung result), "no:
// ..." (correct with LLVM: the default compiler, ACO, is the suspect), or "not tested: ..."
// with the child's detail; empty when the baseline was not wrong or hung (nothing to ask).
std::string llvmAnswer(const TriageInput& input);

// What the triage's JSON document says besides the input and the conclusion.
struct TriageRunFacts {
    std::string version, git;              // repro's
    std::vector<std::string> commandLine;  // argv as given
    std::string deviceName, driver, driverId;
    uint32_t chainLength = 0;
    std::optional<double> timeoutSeconds;  // the queue's job timeout, when known
    std::string timeoutSource;
    int exitStatus = 0;
    bool interrupted = false;  // a SIGINT or SIGTERM ended it early: the document holds what ran
};

// The "repro-triage" document, schema_version 1: docs/report-schema.md "The triage document"
// (docs/report.schema.json $defs/triageDocument).
nlohmann::json triageDocument(const TriageRunFacts& facts, const TriageInput& input,
                              const TriageConclusion& conclusion);

// One rung of the watchdog probe's ladder: `convTs` conv-Ts in one submit of single, as
// -n `steps` --dispatch-repeat `repeat`; seconds; the child's outcome text.
struct ProbeRung {
    uint32_t convTs = 0, steps = 0, repeat = 0;
    uint32_t batch = 0;  // the one-dispatch ladder's --batch (0 in the conv-T ladder)
    std::optional<double> predictedSeconds, measuredSeconds;
    std::string outcome;  // "single ok (exit 0)"
};

// The "repro-watchdog-probe" document of --watchdog-probe, schema_version 1: docs/report-schema.md
// "The watchdog probe document" (docs/report.schema.json $defs/watchdogProbeDocument).
nlohmann::json watchdogProbeDocument(const TriageRunFacts& facts, const std::vector<ProbeRung>& rungs,
                                     const ProbeOutcome& outcome, const std::string& verdict);

}  // namespace repro
