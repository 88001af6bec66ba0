// The stages of one point's run, in the order engine/length.cpp's runPoint calls them: the
// workload's preparation (the reference made before the modes, calibration), then for each
// run of a mode its submits and readback and its judgement, then the runs that waited for the
// reference, the causes and the report. Each stage takes what it needs and returns what it
// made; the one thing carried from run to run is `Runs`. What differs between the built-in
// chain and a file is the workload's (engine/workload.hpp); the rest is here. Internal to
// src/engine; Vulkan calls stay in src/vk.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/session.hpp"
#include "forensics/cause.hpp"
#include "reference/judge.hpp"
#include "reference/step_check.hpp"
#include "scenario/scenario_check.hpp"
#include "vk/recorder.hpp"

namespace repro::run {

// What every stage of one point reads: the session and the point.
struct Length {
    Session& session;
    PlanPoint point;
    uint32_t n = 0;  // the built-in chain's length at this point (point.n); 0 for a file

    const Options& options() const { return session.options; }
    // Where the evidence keeps split's times for this point: the chain's length, a file's
    // variant (Plan::variants).
    uint32_t evidenceKey() const { return session.plan.builtIn() ? n : static_cast<uint32_t>(point.variant); }
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
    vk::ModeRun run;                 // its submits, as the host saw them
    std::optional<Failure> failure;  // a submit or a readback that did not complete
    // The built-in chain: small[N]; every intermediate only when kept (--check-steps), with
    // --check-steps' summaries as the intermediates were read (reference/step_check.hpp)
    std::shared_ptr<ChainResult> buffers;
    std::optional<StepReport> steps;               // against the reference, when there was one
    std::optional<StepCheckReport> dispatchCheck;  // each dispatch from the GPU's own input
    // A file: its checked bytes and host reads; with --check-steps split's steps against the
    // CPU model (scenario/scenario_check.hpp) and how many readback submits that took
    std::shared_ptr<const scenario::ModeBytes> bytes;
    std::optional<scenario::StepChecker::Result> fileSteps;
    uint64_t stepReadbacks = 0;
    KernelLogEvidence log;  // the kernel log during it
    // A digest of the final bytes (small[N], or the checked bytes and host reads), for
    // --repeat's "bit-identical across runs" without keeping every run's bytes.
    uint64_t digest = 0;
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

// The runs of one point so far: what one run leaves for the next. The reference itself is the
// workload's (engine/workload.hpp).
struct Runs {
    std::vector<RunRecord> records;      // in the order they ran, but the folded ones
    std::map<Mode, FoldedRuns> folded;   // --repeat past kListedRuns: counted only (foldLastRun)
    std::map<Mode, uint32_t> likeFirst;  // of them, waiting runs with run 1's bytes (finishFolded)
    std::vector<double> predicted;       // the last prediction per work item (--split-ms)
    bool deviceGone = false;             // a hang, a loss or an interrupt: nothing more runs
    bool interrupted = false;            // SIGINT/SIGTERM
};

// --repeat: the runs of a mode past the first kListedRuns are folded into counts once judged
// (hostile-input probe R14: each run kept its record, and the child sent the whole report
// after each, so memory and traffic grew with every run). The first wrong run of a mode is
// always listed (its cause is decided and the aggregate shows it); a reference-only split
// and an interrupted run are listed too. A run waiting for the reference (split runs after
// the modes) is folded when its final bytes have run 1's digest, and then counts as run 1 is
// judged (finishFolded, after judgeWaiting); one whose bytes differ stays listed until judged.
inline constexpr uint32_t kListedRuns = 20;
// Whether `record` (just judged, the last of runs.records) stays listed.
bool listed(const Runs& runs, const RunRecord& record);
// Folds the last record into runs.folded (its mode's counts) and drops it.
void foldLastRun(const Length& length, Runs& runs);
// After the waiting runs are judged: the folded runs like run 1 count wrong when run 1 is.
void finishFolded(Runs& runs);

// The run's name on the --trace timeline: "mode multipass, N=2, run 1 of 1" (", the
// reference" for a split run made only to be the reference).
std::string traceTitle(const Length& length, const PlannedRun& planned);

// repro's canary (not blade's) after a run whose submits, waits and readback all returned
// VK_SUCCESS (why: docs/forensics.md "The canary"): an empty command buffer [begin, end] submitted
// on `encoder`'s queue and waited on for `timeoutSeconds` (--timeout, else kCanarySeconds). The
// outcome goes to out.run.canary; one that did not complete becomes the run's failure (out.failure
// and out.run.failure), a lost device then judged as any other (recordFailure: the device-fault
// report, the cause from the kernel log).
void checkCanary(vk::Encoder& encoder, Mode mode, double timeoutSeconds, Submitted& out);
// --print-stream: the canary's calls as a run makes them (swallowed by the stream printer).
void recordCanaryForStream(vk::Encoder& encoder, Mode mode);
using vk::kCanarySeconds;

// After a run's own submits (and the chain's readback): their recording and wait times into
// the session's phases, a submit that did not complete as out.failure, repro's canary
// (checkCanary, on `encoder`), the kernel log since Evidence::beforeMode and, for a split
// run that completed, its times as the predictions' basis (Evidence::recordSplit).
void finishSubmit(const Length& length, vk::Encoder& encoder, Mode mode, Submitted& out);

// Whether the workload runs split once before the point's modes to predict their GPU time:
// there is evidence without split's times for the point, the first mode is not split (which
// measures itself), and --split-ms or the queue's known job timeout needs a prediction.
bool needsCalibration(const Length& length);

// --dump-dir: `size` bytes at `data` written to `path`; false, with a line on stderr, on failure.
bool writeDumpFile(const std::filesystem::path& path, const void* data, size_t size);

// The progress line's row (--repeat) and, for a one-submit mode, the prediction of its GPU
// time from split's (printed, with the job-timeout warning where it comes near the queue's
// limit): the per work item predictions, also what --split-ms cuts by (kept in
// runs.predicted). `scale` multiplies the conv-Ts of the built-in chain (--dispatch-repeat).
void prepareRun(const Length& length, const PlannedRun& planned, Runs& runs, size_t workItems, uint32_t scale);

// The run's classification and its printed lines: judged by the workload (against the
// reference, made the reference, left waiting), or a hang or an interrupt (which set
// runs.deviceGone). Appends the record to runs.records and returns it.
const RunRecord& judgeRun(const Length& length, Runs& runs, const PlannedRun& planned, Submitted submitted);
// A mode that could not start, and why: its "not run" lines, and its result.
ModeResult reportNotRun(Mode mode, std::string reason);
// The result line under the mode line (with " [run r/R]" under --repeat).
void printClassification(const Length& length, const RunRecord& record);
// --timestamps: the GPU time line of a run.
void printGpuTimes(const Length& length, const RunRecord& record, bool chainKinds);

// The cause of split's own run, decided when it fails the self-checks it gets as the
// reference (forensics/cause.hpp): kept in the record (decideCauses leaves it), which becomes
// `killed` when the evidence says the kernel's job timeout cut a submit short. nullopt when
// the run gathers no evidence.
std::optional<Cause> decideSplitCause(const Length& length, const Runs& runs, RunRecord& record);
// A cause's printed lines ("  mode=split      cause: ...", its evidence, contradictions and
// what is missing).
void printCause(const Length& length, const RunRecord& record, const Cause& cause);

// Why each wrong or hung run went wrong, from the evidence (forensics/cause.hpp); a run the
// evidence says was cut short becomes `killed`.
void decideCauses(const Length& length, Runs& runs);
// The per-mode aggregates (and their "i/R runs wrong" lines), the verdict and every run's report.
PointOutcome reportPoint(const Length& length, const Runs& runs);
// The report entry of one run.
ModeReport toModeReport(const RunRecord& record, const Options& options, const PlanPoint& point);

// FNV-1a over `bytes`, continuing from `digest` (0: a fresh one): Submitted::digest.
uint64_t digestBytes(const void* bytes, size_t size, uint64_t digest = 0);

}  // namespace repro::run
