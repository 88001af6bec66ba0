// Why a mode went wrong (multipass and single, and split's own submits): the kernel's job timeout (the
// submit was killed), a GPU hang that the timeout ended, a synchronization bug, the shader
// compiler, or blade-exact's own quirks, decided from evidence only (timings against
// split's, the queue's timeout, the kernel log, breadcrumbs, the per-dispatch CPU check),
// naming what is missing or contradicts and never guessing. Pure logic; Vulkan-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "forensics/kernel_log.hpp"
#include "forensics/watchdog.hpp"

namespace repro {

// ---- Thresholds (seconds) -------------------------------------------------------------

// Each, and why: docs/watchdog.md "3. Telling the timeout from a synchronization bug" (the decision).
// Ended at the timeout T: T - d <= measured <= T + d (+ kGpuResetAllowanceSeconds with a GPU reset in the log),
// d = max(kNearTimeoutFraction T, kNearTimeoutFloorSeconds), which also covers the timer's jiffy granularity.
inline constexpr double kNearTimeoutFraction = 0.15;
inline constexpr double kNearTimeoutFloorSeconds = 0.1;
inline constexpr double kGpuResetAllowanceSeconds = 10.0;
// Cut short: measured <= kShortFraction P - margin, ran in full: measured >= kFullFraction P - margin, for a
// prediction P (a factor 2 would be far beyond the clock differences of a warm GPU). margin: kTimestampMarginSeconds
// for P from timestamps (GPU time only: the host's measurement adds its own overhead, never less), else
// kMarginSeconds + kMarginPerHostWaitSeconds per split submit summed.
inline constexpr double kShortFraction = 0.5;
inline constexpr double kFullFraction = 0.75;
inline constexpr double kTimestampMarginSeconds = 0.01;
inline constexpr double kMarginSeconds = 0.05;
inline constexpr double kMarginPerHostWaitSeconds = 0.002;

// ---- Predictions ----------------------------------------------------------------------

// Where a predicted GPU time comes from: split's timestamp queries (the dispatches' own
// GPU time), or the host's wait for each split submit (one dispatch each), which bounds the
// GPU time from above.
enum class PredictionBasis { Timestamps, HostWaits };
std::string_view name(PredictionBasis b);  // "timestamps", "host waits"

struct Prediction {
    double seconds = 0;
    PredictionBasis basis = PredictionBasis::Timestamps;
    uint32_t summed = 0;  // split dispatches (= split submits) summed into it
};

// What split measured, in chain order (conv-T 1, slice 1, conv-T 2, ...): GPU seconds
// per dispatch from timestamps (empty when not measured) and the host's wait per split
// submit (empty when not measured).
struct SplitTimes {
    std::vector<double> dispatchGpuSeconds;
    std::vector<double> submitWaitSeconds;
};

// The predicted GPU time of a submit holding chain dispatches [first, first + count):
// the sum of their timestamp times when split has them all, else of their host waits;
// nullopt when neither covers the range.
std::optional<Prediction> predictSubmit(const SplitTimes& split, size_t first, size_t count);

// The warning before a mode runs, when one submit is predicted to come near the queue's
// limit (at least half of it), e.g. "multipass will keep the gfx queue busy about 2.9 s
// in one submit; this kernel kills a job after 2000 ms" (from T - d on), or "... about
// 1.2 s in one submit, 60% of the 2000 ms after which this kernel kills a job"; a host-
// wait prediction adds " (an upper bound: split's host waits)". nullopt when the timeout
// is not a known limit or the prediction is below half of it.
std::optional<std::string> predictionWarning(std::string_view mode, const Prediction& prediction,
                                             std::string_view queue, const QueueTimeout& timeout);

// ---- Evidence -------------------------------------------------------------------------

enum class OutputVerdict { Correct, Zero, Mismatch, NonFinite, Unwritten };
std::string_view name(OutputVerdict v);  // "correct", "zero", "mismatch", "nonfinite", "unwritten"

// One submit of the mode.
struct SubmitEvidence {
    std::optional<Prediction> predicted;    // predictSubmit of its dispatches
    std::optional<double> measuredSeconds;  // host: vkQueueSubmit to its wait's completion
    uint32_t dispatches = 0;                // chain dispatches it holds
    // Breadcrumbs or timestamps: the last dispatch that finished (1-based, of
    // `dispatches`; 0 = none) and when, in seconds since the submit began.
    std::optional<uint32_t> lastFinishedDispatch;
    std::optional<double> lastFinishedSeconds;
};

// The kernel log during the mode (KernelLogReader::readNew after it, gpuEvents of that).
struct KernelLogEvidence {
    bool readable = false;
    std::string problem;  // why not ("cannot read the kernel log /dev/kmsg: ...")
    std::string command;  // what to run afterwards (KernelLogReader::afterwardsCommand)
    uint64_t lost = 0;    // lost-record reports during the mode
    std::vector<GpuEvent> events;
};

enum class StepCheckState { NotRun, Passed, Failed };
// What the mode's output was judged against (options.hpp ReferenceKind, auto folded into Split).
enum class JudgedAgainst { Split, Cpu, None };

struct CauseInput {
    std::string mode = "multipass";
    OutputVerdict output = OutputVerdict::Correct;
    bool deviceLost = false;    // a submit, wait or readback of the mode returned VK_ERROR_DEVICE_LOST
    bool waitTimedOut = false;  // the host's wait gave up (the GPU never finished)
    // The loss came at repro's canary (engine/stages.hpp checkCanary): every submit, wait and
    // readback of the mode had returned VK_SUCCESS, so the driver reported it late.
    bool canaryLost = false;
    std::vector<SubmitEvidence> submits;
    QueueTimeout timeout;       // the queue's job timeout (queueWatchdog)
    std::string queue = "gfx";  // its name in verdicts: "the gfx queue"
    KernelLogEvidence kernelLog;
    std::optional<int64_t> ownPid;                   // repro's pid: a kill record naming another process is not its
    bool bladeExact = false;                         // --profile blade-exact
    JudgedAgainst reference = JudgedAgainst::Split;  // what the output was judged against
    StepCheckState splitStepCheck = StepCheckState::NotRun;  // split's per-dispatch CPU check
    std::string splitStepCheckDetail;                        // its first failing dispatch, one line
    bool earlierKill = false;  // an earlier mode of this run was killed (its context is lost)
    // With --spirv: the modules are the user's, and what spirv-val said of them
    // (userModulesLine, core/spirv_validation.hpp); empty for repro's built-in modules.
    std::string userModules;
    // --drop-dispatch K in this mode: the run left dispatch K out on purpose, so a submit
    // shorter than predicted, or one whose dispatch timestamps stop early, is the
    // experiment's doing and no evidence of a kill.
    std::optional<uint32_t> droppedDispatch;
    // The positive controls this mode runs under ("dispatch 3 left out of multipass and single by
    // repro (--drop-dispatch 3)"), joined; empty for none. Wrong output is then the control's
    // doing, never synchronization (issue 35 §2), unless the kernel log names the firmware or the
    // job timeout; a mode that never finished (lost, or its wait timed out) that nothing else
    // explains is the control's or the file's own: undecided.
    std::string control;
    // A scenario file: the levers it names are --work-scale and --check-steps, not a larger
    // shape and the chain's per-dispatch check.
    bool file = false;
    // The amdgpu card's MES firmware versions as sysfs shows them ("card0 mes_fw_version 0x00000083,
    // mes_kiq_fw_version 0x0000006c"); empty when not read (no amdgpu card, no fw_version files)
    std::string firmware;
};

// ---- The cause ------------------------------------------------------------------------

enum class CauseKind {
    NoFailure,
    JobTimeout,
    HangKilled,
    Synchronization,
    ShaderCompiler,
    BladeQuirks,
    Control,   // the mode ran under a positive control (CauseInput::control): the control's doing
    Firmware,  // the kernel log has amdgpu's MES (scheduler firmware) failing to answer during the mode
    Undetermined
};
// "no_failure", "job_timeout", "hang_killed", "synchronization", "shader_compiler",
// "blade_quirks", "control", "firmware", "undetermined" (the JSON names)
std::string_view name(CauseKind k);

// How the kernel recovered from a job it stopped, from the kernel log during the mode (amdgpu's
// words; docs/forensics.md "The canary"): Soft, "ring ... timeout, but soft recovered" of
// repro's (the kernel fails the context's next submission with -ENODATA: RADV "guilty of a
// soft recovery"); Hard, a ring or GPU reset after a timeout of repro's (-ETIME, "guilty of a
// hard recovery"); Innocent, a reset after another process's timeout (-ECANCELED, "this
// context is innocent"); Unknown, no kill record or no readable log.
enum class Recovery { Unknown, Soft, Hard, Innocent };
// "unknown", "soft", "hard", "innocent" (the JSON names)
std::string_view name(Recovery r);
Recovery recoveryOf(const CauseInput& in);

struct Cause {
    CauseKind kind = CauseKind::Undetermined;
    // The output is wrong and the evidence says a submit was cut short (ended at the
    // timeout, long before its predicted work, with unfinished breadcrumbs, or cancelled
    // after an earlier kill), with nothing contradicting it: the integrator's `killed`.
    bool killed = false;
    std::vector<std::string> evidence;        // what was seen, one fact a line
    std::vector<std::string> missing;         // what would decide it and was not available
    std::vector<std::string> contradictions;  // facts that do not fit together
    std::optional<size_t> decisiveSubmit;     // the submit the verdict is about
    // Whether that submit measurably ran its full predicted time; nullopt without a
    // measurement and a prediction above the host's timing margin.
    std::optional<bool> ranInFull;
    // The line to print: "cause: the kernel's job timeout (2000 ms, gfx queue): the submit
    // ended after 2.00 s of a predicted 2.90 s, kernel log 'ring gfx_0.0.0 timeout, but soft
    // recovered'", "cause: synchronization: ...", "cause undetermined: ... (missing: ...)".
    std::string verdict;
};

// Decides, for a mode whose output is `output`, by the rules of docs/watchdog.md "3. Telling the
// timeout from a synchronization bug" (the thresholds T - d, the ratios and margins, the evidence
// table; split's submits: "split's own submits"), tried in this order: correct output (NoFailure; a
// kill record of repro's during it is still listed), a positive control, the MES firmware, the
// kernel's kill records, ended at the timeout, an earlier mode's kill, then the causes left with the
// job timeout excluded (a submit cut short: Undetermined, killed; ShaderCompiler, BladeQuirks,
// Synchronization). Anything missing on the way is named and the cause is Undetermined; a
// contradiction makes it Undetermined too.
Cause decideCause(const CauseInput& input);

// The cause as JSON (strings, numbers, booleans, null): kind, killed, verdict, evidence,
// missing, contradictions, timeout {kind: "limit"|"no_limit"|"unknown", ms or null,
// source}, decisive_submit {index, measured_seconds, predicted_seconds, basis:
// "timestamps"|"host_waits"} or null, kernel_log {readable, problem, kill_records (the
// kill events' messages)}.
nlohmann::json causeJson(const Cause& cause, const CauseInput& input);

}  // namespace repro
