// The stages of one chain length's run, in the order engine/length.cpp's runLength calls them:
// choose the reference, calibrate, and for each run of a mode prepare its settings, submit
// it and read it back (checking each intermediate as it comes, reference/step_check.hpp), judge
// it; then judge the runs that waited for the reference, decide the causes and report.
// Each stage takes what it needs and returns what it made; the one thing carried from run
// to run is `Runs`. Internal to src/run; Vulkan calls stay in src/vk.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "forensics/cause.hpp"
#include "reference/judge.hpp"
#include "reference/step_check.hpp"
#include "engine/session.hpp"
#include "vk/modes.hpp"

namespace repro::run {

// What every stage of one chain length reads: the session and the length.
struct Length {
    Session& session;
    uint32_t n = 0;

    const Options& options() const { return session.options; }
};

// One run of one mode, as planned.
struct PlannedRun {
    Mode mode = Mode::Split;
    uint32_t index = 1;          // 1..R
    bool referenceOnly = false;  // split run only to be the reference (not judged)
};

// A failed submit or readback: what ended it and where.
struct Failure {
    vk::SubmitOutcome outcome;
    std::string where;
    double timeout = 0;  // seconds the host waited
};

// What a mode's submits and its readback left behind.
struct Submitted {
    vk::ModeRun run;                       // its submits, as the host saw them
    std::optional<Failure> failure;        // a submit or a readback that did not complete
    std::shared_ptr<ChainResult> buffers;  // small[N]; every intermediate only when kept
    // --check-steps, summed up as the intermediates were read (reference/step_check.hpp)
    std::optional<StepReport> steps;               // against the reference, when there was one
    std::optional<StepCheckReport> dispatchCheck;  // each dispatch from the GPU's own input
    KernelLogEvidence log;                         // the kernel log during it
};

// One run of one mode, judged (or waiting for the reference).
struct RunRecord {
    PlannedRun plan;
    ModeResult result;
    Submitted submitted;
    bool waitsForReference = false;  // split runs after it: judged by judgeWaiting
    bool dumpFailed = false;         // its --dump-dir file could not be written

    Mode mode() const { return plan.mode; }
    const HostFloats& final() const { return submitted.buffers->final(); }
};

// The runs of one length so far and the reference they are judged against: what one run
// leaves for the next.
struct Runs {
    std::optional<Judge> judge;      // set before the modes (cpu, none) or by split's run
    std::vector<RunRecord> records;  // in the order they ran
    std::vector<double> predicted;   // the last prediction per chain dispatch (--split-ms)
    bool deviceGone = false;         // a hang, a loss or an interrupt: nothing more runs
    bool interrupted = false;        // SIGINT/SIGTERM
};

// ---- Before the modes (device_stages.cpp, judge_stages.cpp) ---------------------------

// --reference cpu: the host's chain (printed with its time); none: Judge::none(); split
// and auto: nothing yet, split's run becomes the reference.
std::optional<Judge> referenceBeforeModes(const Length& length);
// One step recorded as split before a one-submit mode that runs first, for its predictions.
void calibrate(const Length& length);
// Whether split runs after the modes under test, only as their reference.
bool splitRunsAfter(const Options& options);

// ---- One run of one mode (device_stages.cpp) -----------------------------------------

// The run's name on the --trace timeline: "mode multipass, N=2, run 1 of 1" (", the
// reference" for a split run made only to be the reference).
std::string traceTitle(const Length& length, const PlannedRun& planned);
// The row for the progress line (--repeat), the prediction (kept in runs.predicted) and the
// mode's settings.
vk::ModeSettings prepareMode(const Length& length, const PlannedRun& planned, Runs& runs);
// Records and submits the mode from fresh state, then reads small[N] back (with
// --check-steps every intermediate in chain order, each checked and dropped unless the run
// is or waits for the reference), with the kernel log around it.
Submitted submitAndReadBack(const Length& length, const vk::ModeSettings& settings, const PlannedRun& planned,
                            const Runs& runs);

// ---- Judging (judge_stages.cpp) ------------------------------------------------------

// The run's classification and its printed lines: judged against runs.judge, made the
// reference (split, when none is there yet), left waiting, or a hang or an interrupt (which
// set runs.deviceGone). Appends the record to runs.records and returns it.
const RunRecord& judgeRun(const Length& length, Runs& runs, const PlannedRun& planned, Submitted submitted);
// A mode that could not start: its "not run" lines.
void reportNotRun(const Length& length, const Runs& runs, Mode mode);
// The runs that waited for a reference that came after them (split run last).
void judgeWaiting(const Length& length, Runs& runs);

// ---- After the runs (outcome_stages.cpp) ---------------------------------------------

// The cause of split's own run, decided when it fails the self-checks it gets as the
// reference (forensics/cause.hpp): kept in the record (decideCauses leaves it), which becomes
// `killed` when the evidence says the kernel's job timeout cut a submit short. nullopt
// when the run gathers no evidence.
std::optional<Cause> decideSplitCause(const Length& length, const Runs& runs, RunRecord& record);
// A cause's printed lines ("  mode=split      cause: ...", its evidence, contradictions
// and what is missing).
void printCause(const Length& length, const RunRecord& record, const Cause& cause);

// Why each wrong or hung run went wrong, from the evidence (forensics/cause.hpp); a run the
// evidence says was cut short becomes `killed`.
void decideCauses(const Length& length, Runs& runs);
// The per-mode aggregates (and their "i/R runs wrong" lines), the verdict and every run's
// report.
LengthOutcome reportLength(const Length& length, const Runs& runs);
// The report entry of one run.
ModeReport toModeReport(const RunRecord& record, const Options& options, uint32_t n);

}  // namespace repro::run
