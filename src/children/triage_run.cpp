// --triage and --watchdog-probe: child runs of this binary (children/child_run.hpp), read
// back through their JSON reports, and children/triage.hpp's conclusion printed as text,
// Markdown and JSON.
#include "children/triage_run.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/interrupt.hpp"
#include "core/output.hpp"
#include "cli/output_paths.hpp"
#include "report/report_render.hpp"
#include "children/run_factors.hpp"
#include "report/trace_events.hpp"
#include "children/triage.hpp"
#include "report/verdict.hpp"
#include "children/experiments.hpp"
#include "repro_version.h"
#include "vk/watch.hpp"

namespace repro {
namespace {

// The per-hypothesis lines and the conclusion, on stderr/stdout as text; returns them
// for the Markdown block.
std::vector<std::string> sayTriageConclusion(const TriageConclusion& t, const std::string& llvmLine) {
    std::vector<std::string> summary;
    for (const HypothesisFinding& h : t.hypotheses) summary.push_back(findingLine(h));
    if (!llvmLine.empty()) summary.push_back(llvmLine);  // RADV's issue template asks it
    if (!t.hypotheses.empty()) say("--- hypotheses ---");
    for (const std::string& line : summary) say("  {}", line);
    say("--- {}", t.line);
    summary.push_back(t.line);  // last: the Markdown heading
    return summary;
}

using nlohmann::json;

// The bounds of the probe's ladder: the conv-Ts in its one submit double up to
// kProbeMaxRepeat; it stops once the submit passes 1.5 times the timeout, or
// kProbeNoTimeoutSeconds without one. Past --dispatch-repeat's limit of kMaxDispatchRepeat,
// the ladder doubles the steps (-n) instead, each with kMaxDispatchRepeat conv-Ts: a kill
// still skips the chain's last slice, so it still shows.
constexpr uint32_t kProbeMaxRepeat = 4096;
constexpr uint32_t kMaxDispatchRepeat = 64;
constexpr double kProbeTimeoutFactor = 1.5;
constexpr double kProbeNoTimeoutSeconds = 2.0;

// What the runs of one --triage or --watchdog-probe share.
struct Children {
    const Options& o;
    const Plan& plan;
    ProbedDevice device;
    std::filesystem::path dir;
    int next = 0;  // numbers the children's files

    // One child with `factors`, its time limit scaled by their --dispatch-repeat, --batch or
    // --work-scale.
    ChildOutcome run(const std::string& what, const RunFactors& factors) {
        const uint32_t batchFactor = factors.batch ? std::max(*factors.batch / std::max(o.shape.batch, 1u), 1u) : 1;
        const uint32_t scale = factors.dispatchRepeat.value_or(1) * batchFactor * factors.workScale.value_or(1);
        return runChild({.options = o,
                         .factors = factors,
                         .dir = dir,
                         .tag = fmt::format("{:02}-{}", ++next, what),
                         .limitSeconds = childTimeLimit(o, plan, device.cpu, scale)});
    }
};

// Why an experiment of the built-in chain's alone is not run on a file.
constexpr const char* kChainOnly = "not run: the built-in chain's own experiment (a file's recording is its own)";

// The mode named `text` ("multipass"); multipass for a name that is none.
Mode modeNamed(const std::string& text) {
    const std::optional<std::vector<Mode>> modes = parseModes(text);
    return modes && modes->size() == 1 ? modes->front() : Mode::Multipass;
}

// The queue's job timeout from a report: environment.job_watchdog.seconds, else the
// failing mode's cause.timeout; nullopt when unknown or disabled.
std::optional<double> timeoutSeconds(const ChildOutcome& c, const std::string& mode) {
    if (const std::optional<double> t = reportedJobTimeout(c)) return t;
    const ModeReport* m = modeEntry(c, mode);
    return m ? causeFacts(m->result).timeoutSeconds : std::nullopt;
}

// Where the timeout figure came from, or why none is known (environment.job_watchdog is
// null for lavapipe, nvidia, nouveau and a device no DRM card matches).
std::string timeoutSource(const ChildOutcome& c, bool cpu) {
    if (const std::optional<JobWatchdog> w = reportedJobWatchdog(c)) return w->source;
    return cpu ? "a CPU device: no kernel GPU scheduler runs its work, so nothing times it out"
               : "no job watchdog is known for its kernel driver (nvidia, nouveau, or no DRM card matches the device)";
}

// ---- the experiments --------------------------------------------------------------------

struct Planned {
    ExperimentKind kind;
    RunFactors factors;     // what the child changes (its mode always set)
    std::string skip;       // not run, and why ("changes nothing on this device: ...")
    bool noEffect = false;  // the skip is "changes nothing here" rather than "cannot run"
};

// The experiment's row label, from its factors: what they change ("barrier=sync2",
// "n=1 dispatch-repeat=8", "RADV_DEBUG=llvm"), after the mode for split's check, the one
// experiment on another mode ("split check-steps"). --split-ms names the halved timeout alone ("split-ms=250"),
// "split-ms (half the timeout)" when there is none to halve.
std::string plannedLabel(const Planned& p) {
    if (p.kind == ExperimentKind::SplitMs) {
        return p.factors.submit.splitMs ? "split-ms=" + splitMsText(*p.factors.submit.splitMs)
                                        : "split-ms (half the timeout)";
    }
    RunFactors f = p.factors;
    const std::optional<Mode> mode = f.mode;
    f.mode.reset();
    const std::string what = factorLabel(f);
    if (!mode || p.kind != ExperimentKind::CheckSteps) return what;
    return fmt::format("{} {}", name(*mode), what);
}

// A file's experiment with `f` that its file refuses (scenario/plan.hpp makePlan's rules: a
// memory placement that moves no buffer, a barrier where it has none): the reason, or "".
std::string fileRefuses(const Children& c, const RunFactors& f) {
    if (c.plan.builtIn()) return "";
    if (f.barrier && !hasBarrierStep(c.plan.variants.front()))
        return "no effect: the file has no barrier step to replace";
    const std::string why = planRefusal(c.o, f);
    return why.empty() ? why : "not run: " + why;
}

void planFlush(const Children& c, Mode mode, std::vector<Planned>& out) {
    // a file's barriers are its own: replaced by blade's G or the full barrier (sync2 and
    // buffer barriers are forms a file writes itself)
    const std::vector<BarrierKind> barriers =
        c.plan.builtIn() ? std::vector{BarrierKind::Sync2, BarrierKind::Buffer, BarrierKind::Full}
                         : std::vector{BarrierKind::Blade, BarrierKind::Full};
    for (const BarrierKind b : barriers) {
        Planned p{ExperimentKind::Barrier, {.mode = mode, .barrier = b}};
        p.skip = fileRefuses(c, p.factors);
        p.noEffect = p.skip.starts_with("no effect");
        out.push_back(p);
    }
    for (const BufferMemory m : {BufferMemory::DeviceLocal, BufferMemory::HostVisible, BufferMemory::HostCached}) {
        Planned p{ExperimentKind::Memory, {.mode = mode, .memory = m}};
        if (c.device.memoryTypes <= 1) {
            p.skip = "not run: the device has one memory type, so every --memory choice is blade's";
            p.noEffect = true;
        } else if (!c.plan.builtIn() && m == BufferMemory::HostCached) {
            p.skip = "not run: a file's buffers are device-local, host-visible or shared";
        } else {
            p.skip = fileRefuses(c, p.factors);
        }
        out.push_back(p);
    }
}

void planSubmits(const Children& c, Mode mode, std::optional<double> timeout, std::vector<Planned>& out) {
    for (const bool wait : {true, false}) {
        Planned p{wait ? ExperimentKind::SubmitEveryWait : ExperimentKind::SubmitEveryNoWait,
                  {.mode = mode, .submit = {.every = 2, .hostWait = wait}}};
        if (planWorkItems(c.o, c.plan) <= 2) {
            p.skip = fmt::format("not run: {} {} fit in one submit of 2", planWorkItems(c.o, c.plan),
                                 c.plan.builtIn() ? "dispatches" : "work steps");
            p.noEffect = true;
        } else {
            p.skip = fileRefuses(c, p.factors);
        }
        out.push_back(p);
    }
    Planned ms{ExperimentKind::SplitMs, {.mode = mode}};
    if (timeout) {
        ms.factors.submit = {.splitMs = *timeout * 500.0, .hostWait = false};
    } else {
        ms.skip = "not run: no known job timeout on this device to halve";
    }
    if (ms.skip.empty()) ms.skip = fileRefuses(c, ms.factors);
    out.push_back(ms);
    const double split = 0.9 * double(computeSizes(c.o.shape).bigBytes) / 1048576.0;
    Planned mib{ExperimentKind::SplitMib, {.mode = mode, .submit = {.splitMiB = split, .hostWait = false}}};
    if (!c.plan.builtIn()) mib.skip = kChainOnly;  // its bytes are the chain's big buffer's
    out.push_back(mib);
    // As much conv-T work in one submit as the baseline's N steps, with 1/N of its bytes.
    const uint32_t repeat = std::min(2 * c.o.chainLength, kMaxDispatchRepeat);
    Planned one{ExperimentKind::OneStepRepeat, {.steps = 1, .mode = mode, .dispatchRepeat = repeat}};
    if (!c.plan.builtIn()) {
        one.skip = kChainOnly;
    } else if (c.o.dropDispatch && *c.o.dropDispatch > 2) {
        one.skip = fmt::format("not run: --drop-dispatch {} is past the 2 dispatches of one step", *c.o.dropDispatch);
    }
    out.push_back(one);
}

void planOthers(const Children& c, Mode mode, std::vector<Planned>& out) {
    Planned check{ExperimentKind::CheckSteps, {.mode = Mode::Split, .checkSteps = true}};
    // split takes no --drop-dispatch (it records no positive control), so the child would be
    // a usage error.
    if (c.o.dropDispatch) check.skip = "not run: split takes no --drop-dispatch";
    out.push_back(check);
    Planned llvm{ExperimentKind::CompilerSwitch,
                 {.mode = mode, .driverEnv = DriverEnv{.variable = "RADV_DEBUG", .value = "llvm"}}};
    if (c.device.driverId != "MESA_RADV") {
        llvm.skip =
            fmt::format("not run: the driver is {}, not RADV", c.device.driverId.empty() ? "?" : c.device.driverId);
    }
    out.push_back(llvm);
    Planned exact{ExperimentKind::BladeExact, {.mode = mode, .profile = Profile::BladeExact}};
    if (!c.plan.builtIn()) exact.skip = "not run: blade's profile belongs to the built-in chain";
    out.push_back(exact);
}

// split's per-dispatch CPU check, from the child's report (its mode's per_dispatch_check).
RunResult checkStepsResult(const ChildOutcome& c) {
    if (c.process.timedOut || c.process.signal != 0 || c.status == kExitHang) return RunResult::Hang;
    const ModeReport* split = modeEntry(c, "split");
    std::string state = split ? perDispatchCheckState(split->result) : std::string();
    if (split && state.empty()) state = fileStepCheckState(split->result);
    return state == "passed" ? RunResult::Correct : state == "failed" ? RunResult::Wrong : RunResult::NotRun;
}

ExperimentOutcome runPlanned(Children& c, const Planned& p, size_t index) {
    ExperimentOutcome e{.kind = p.kind, .label = plannedLabel(p)};
    if (!p.skip.empty()) {
        e.result = p.noEffect ? RunResult::NoEffect : RunResult::NotRun;
        e.detail = p.skip;
        return e;
    }
    const ChildOutcome child = c.run(fmt::format("experiment-{:02}", index + 1), p.factors);
    if (child.process.interrupted) {
        e.detail = "interrupted";
        return e;
    }
    if (child.status == kExitUsage) {  // repro built a command it refuses: its own defect, never evidence
        const std::string line = lastOutputLine(child);
        e.detail = "repro defect: the child's command was a usage error" + (line.empty() ? "" : ": " + line);
        return e;
    }
    e.result = p.kind == ExperimentKind::CheckSteps ? checkStepsResult(child) : childRunResult(child);
    e.detail = p.kind == ExperimentKind::CheckSteps
                   ? (e.result == RunResult::Correct ? (c.plan.builtIn() ? "every dispatch within its one-step bound"
                                                                         : "every step as the CPU model has it")
                      : e.result == RunResult::Wrong ? (c.plan.builtIn() ? "a dispatch outside its one-step bound"
                                                                         : "a step differs from the CPU model")
                                                     : outcomeText(child))
                   : outcomeText(child);
    return e;
}

// ---- the watchdog probe -----------------------------------------------------------------

struct Ladder {
    std::optional<double> timeout;  // seconds
    std::string source;             // where the timeout came from, or why none is known
    ProbeOutcome outcome;
    std::vector<ProbeRung> rungs;  // every rung that ran, for the JSON document
    bool interrupted = false;
    bool firstRan = false;           // the first rung gave a result
    bool file = false;               // a scenario file: rung R is every work loop R times (--work-scale R)
    std::optional<double> hostWait;  // --timeout, seconds: repro's own wait for a submit
};

// Rung `r` in words: "4 conv-Ts" for the chain, "work x4" for a file.
std::string rungText(const Ladder& l, uint32_t r) {
    return l.file ? fmt::format("work x{}", r) : fmt::format("{} conv-Ts", r);
}

double ladderBound(const Ladder& l) { return l.timeout ? kProbeTimeoutFactor * *l.timeout : kProbeNoTimeoutSeconds; }

void sayLadderBound(const Ladder& l) {
    if (l.timeout) {
        say("  job timeout: {:.0f} ms ({}); the ladder stops once a submit passes {:.2f} s (1.5x) or {}",
            *l.timeout * 1000.0, l.source, ladderBound(l), rungText(l, kProbeMaxRepeat));
    } else {
        say("  no known job timeout on this device ({}); the ladder stops once a submit passes {:.1f} s or {}",
            l.source, kProbeNoTimeoutSeconds, rungText(l, kProbeMaxRepeat));
    }
}

// Whether a wrong or hung rung was a kill of the kernel's: its report's cause is the job
// timeout (a kill record, or the submit's timing against the timeout), or its submit
// ended at the known timeout (within [0.9, 1.5] times it). A wrong result without either
// (--drop-dispatch, a hang repro's own --timeout ended) is no kill. `mode`: the rung's
// ("single" in the conv-T ladder, "split" in the one-dispatch ladder).
bool killEvidence(const Ladder& l, const ChildOutcome& child, const std::string& mode, std::optional<double> measured) {
    const ModeReport* m = modeEntry(child, mode);
    if (m && m->result.causeKind == "job_timeout") return true;
    return l.timeout && measured && *measured >= 0.9 * *l.timeout && *measured <= kProbeTimeoutFactor * *l.timeout;
}

// Seconds as the ladders print them ("1.250 s"), "-" when not known.
std::string secondsText(std::optional<double> seconds) { return seconds ? fmt::format("{:.3f} s", *seconds) : "-"; }

// One rung's child (factors `f`, its mode set), in a --trace slice around it
// (report/trace_events.hpp) with `args`, the prediction, and the measured time and outcome
// in that mode; `rung` (its shape and prediction) completed with them, and printed as a row
// of the ladder's table under `column` (its conv-Ts, work or batch). nullopt when an
// interrupt came before the child or ended it.
std::optional<ChildOutcome> runRung(Children& c, const RunFactors& f, const std::string& tag, uint32_t column,
                                    const std::string& slice, const char* category, nlohmann::json args,
                                    ProbeRung& rung) {
    if (interruptSignal() != 0) return std::nullopt;
    trace_events::Span span(slice, category, trace_events::Track::Children);
    span.args() = std::move(args);
    if (rung.predictedSeconds) span.args()["predicted_s"] = *rung.predictedSeconds;
    ChildOutcome child = c.run(tag, f);
    if (const ModeReport* m = modeEntry(child, name(*f.mode))) rung.measuredSeconds = m->result.wallSeconds;
    rung.outcome = outcomeText(child);
    if (rung.measuredSeconds) span.args()["measured_s"] = *rung.measuredSeconds;
    span.args()["outcome"] = rung.outcome;
    if (child.process.interrupted) return std::nullopt;
    say("  {:>7}  {:>10}  {:>10}  {}", column, secondsText(rung.predictedSeconds), secondsText(rung.measuredSeconds),
        rung.outcome);
    return child;
}

// One rung's outcome into the ladder: `rung` is complete (runRung). True when the ladder goes on.
bool judgeRung(Ladder& l, const ProbeRung& rung, const ChildOutcome& child) {
    const std::optional<double> measured = rung.measuredSeconds;
    const RunResult result = childRunResult(child);
    const std::string took = secondsText(measured);
    const uint32_t repeat = rung.convTs;
    l.rungs.push_back(rung);
    // A hang that repro's own --timeout ended before the known job timeout could fire says
    // nothing about the job timeout (the hostile-input probe's N6c called it "no kill").
    if (result == RunResult::Hang && l.timeout && l.hostWait && *l.hostWait < *l.timeout &&
        !killEvidence(l, child, "single", measured)) {
        l.outcome.result = ProbeResult::NotRun;
        l.outcome.detail = fmt::format(
            "single hung at {} ({} after {}): repro's own wait (--timeout {:g} s) gave up before the {:.0f} ms job "
            "timeout could fire; give a --timeout above it",
            rungText(l, repeat), rung.outcome, took, *l.hostWait, *l.timeout * 1000.0);
        return false;
    }
    if ((result == RunResult::Wrong || result == RunResult::Hang) && !killEvidence(l, child, "single", measured)) {
        l.outcome.detail = fmt::format(
            "single {} at {} in one submit ({} after {}) with no sign of a kill: no kernel job-timeout "
            "record, and {}",
            result == RunResult::Hang ? "hung" : "was wrong", rungText(l, repeat), rung.outcome, took,
            l.timeout ? fmt::format("the submit did not end at the {:.0f} ms job timeout", *l.timeout * 1000.0)
                      : std::string("no job timeout is known here"));
        return false;
    }
    if (result == RunResult::Wrong || result == RunResult::Hang) {
        const bool hard = result == RunResult::Hang;
        l.outcome.result = hard ? ProbeResult::HardKill : ProbeResult::SoftKill;
        l.outcome.detail = fmt::format(
            "{} at {} in one submit: {} after {}", name(l.outcome.result), rungText(l, repeat),
            hard ? "the device was lost (" + resultText(child, true) + ")" : resultText(child, true) + " with no error",
            took);
        return false;
    }
    if (result != RunResult::Correct || !measured) {
        if (!l.firstRan) l.outcome.detail = "the first rung gave no result: " + outcomeText(child);
        return false;
    }
    l.firstRan = true;
    l.outcome.result = ProbeResult::NoKill;
    l.outcome.longestSeconds = std::max(l.outcome.longestSeconds, *measured);
    l.outcome.detail =
        fmt::format("no kill up to a {:.2f} s submit ({})", l.outcome.longestSeconds, rungText(l, repeat));
    return *measured <= ladderBound(l) && repeat * 2 <= kProbeMaxRepeat;
}

// Why --work-scale cannot lengthen the file of `o` (makePlan's refusal), or "".
std::string unlengthened(const Options& o) { return planRefusal(o, {.workScale = 2}); }

// The ladder R = 1, 2, 4, ...; the timeout comes from `known` or from the first rung's report.
Ladder runLadder(Children& c, std::optional<double> known, const std::string& source, bool announce) {
    const bool file = !c.plan.builtIn();
    Ladder l{.timeout = known, .source = source, .file = file, .hostWait = c.o.timeoutSeconds};
    say("  {:>7}  {:>10}  {:>10}  {}", file ? "work x" : "conv-Ts", "predicted", "measured",
        file ? "single, one submit (--work-scale R)" : "single, one submit (-n S --dispatch-repeat R)");
    std::optional<double> predicted;
    for (uint32_t r = 1;; r *= 2) {
        const uint32_t repeat = std::min(r, kMaxDispatchRepeat), steps = r / repeat;
        const RunFactors factors = file ? RunFactors{.mode = Mode::Single, .workScale = r}
                                        : RunFactors{.steps = steps, .mode = Mode::Single, .dispatchRepeat = repeat};
        ProbeRung rung{.convTs = r, .steps = steps, .repeat = repeat, .predictedSeconds = predicted};
        const std::optional<ChildOutcome> child =
            runRung(c, factors, fmt::format("probe-{}", r), r,
                    fmt::format("watchdog-probe rung: {} in one submit", rungText(l, r)), "rung",
                    {{"conv_ts", r}, {"steps", steps}, {"dispatch_repeat", repeat}}, rung);
        if (!child) {
            l.interrupted = true;
            break;
        }
        if (r == 1 && announce) {
            l.timeout = timeoutSeconds(*child, "single");
            l.source = timeoutSource(*child, c.device.cpu);
            sayLadderBound(l);
        }
        if (!judgeRung(l, rung, *child)) break;
        // The conv-T dominates: twice its repeats, at most twice the time.
        predicted = 2.0 * *rung.measuredSeconds;
    }
    return l;
}

// ---- the one-dispatch ladder ---------------------------------------------------------------

// The doublings of --batch in the probe's second ladder: one step as split, each dispatch
// alone in its submit, the conv-T's work (its workgroups, batch x channels deep) doubled
// each rung, up to 64 times the user's batch or the 65535 workgroups Vulkan guarantees in
// z (maxComputeWorkGroupCount).
constexpr uint32_t kProbeMaxBatchFactor = 64;
constexpr uint32_t kMinMaxWorkgroupsZ = 65535;

struct DispatchLadder {
    ProbeOutcome outcome;
    std::vector<ProbeRung> rungs;
    bool interrupted = false;
};

// One rung of the one-dispatch ladder; true when it goes on. A kill needs the same
// evidence as the other ladder's: split's own cause is the job timeout (a kill record of
// repro's), or its step ended at the known timeout.
bool judgeDispatchRung(const Ladder& l, DispatchLadder& d, const ProbeRung& rung, const ChildOutcome& child) {
    const std::optional<double> measured = rung.measuredSeconds;
    const RunResult result = childRunResult(child);
    const std::string took = secondsText(measured);
    d.rungs.push_back(rung);
    if (result == RunResult::Wrong || result == RunResult::Hang) {
        const bool hard = result == RunResult::Hang;
        const bool killed = killEvidence(l, child, "split", measured);
        d.outcome.result = !killed ? ProbeResult::NotRun : hard ? ProbeResult::HardKill : ProbeResult::SoftKill;
        d.outcome.detail = killed ? fmt::format("{} at batch {}: one conv-T alone in its submit, {} after {}",
                                                name(d.outcome.result), rung.batch, resultText(child, true), took)
                                  : fmt::format("split {} at batch {} ({} after {}) with no sign of a kill",
                                                hard ? "hung" : "was wrong", rung.batch, rung.outcome, took);
        return false;
    }
    if (result != RunResult::Correct || !measured) {
        if (d.rungs.size() == 1) d.outcome.detail = "the first rung gave no result: " + outcomeText(child);
        return false;
    }
    d.outcome.result = ProbeResult::NoKill;
    d.outcome.longestSeconds = std::max(d.outcome.longestSeconds, *measured);
    d.outcome.detail = fmt::format(
        "no kill up to a {:.2f} s step as split (batch {}: one conv-T, then one slice, each "
        "alone in its submit)",
        d.outcome.longestSeconds, rung.batch);
    return *measured <= ladderBound(l);
}

// The second ladder: one dispatch made longer instead of more dispatches in a submit. A
// kill here is what no submit boundary avoids (one dispatch alone past the timeout, as in
// llama-cpp-turboquant #185 and ollama #17870).
DispatchLadder runDispatchLadder(Children& c, const Ladder& l) {
    DispatchLadder d;
    say("  {:>7}  {:>10}  {:>10}  {}", "batch", "predicted", "measured",
        "split, one dispatch per submit (-n 1 --batch B): one dispatch made longer");
    std::optional<double> predicted;
    const uint32_t base = std::max(c.o.shape.batch, 1u);
    for (uint32_t f = 1; f <= kProbeMaxBatchFactor && uint64_t{base} * f * c.o.shape.channels <= kMinMaxWorkgroupsZ;
         f *= 2) {
        ProbeRung rung{.steps = 1, .batch = base * f, .predictedSeconds = predicted};
        const std::optional<ChildOutcome> child =
            runRung(c, {.steps = 1, .mode = Mode::Split, .batch = base * f}, fmt::format("dispatch-{}", f), base * f,
                    fmt::format("watchdog-probe rung: one dispatch at batch {}", base * f), "dispatch-rung",
                    {{"batch", base * f}}, rung);
        if (!child) {
            d.interrupted = true;
            break;
        }
        if (!judgeDispatchRung(l, d, rung, *child)) break;
        predicted = 2.0 * *rung.measuredSeconds;  // twice the workgroups
    }
    return d;
}

// The one-dispatch ladder's line under the verdict.
std::string dispatchLadderLine(const DispatchLadder& d) {
    switch (d.outcome.result) {
        case ProbeResult::SoftKill:
        case ProbeResult::HardKill:
            return "one dispatch made longer: " + d.outcome.detail +
                   "; a submit boundary cannot avoid this kill, only shorter dispatches can";
        case ProbeResult::NoKill:
            return "one dispatch made longer: " + d.outcome.detail;
        case ProbeResult::NotRun:
            break;
    }
    return "one dispatch made longer: no result: " +
           (d.outcome.detail.empty() ? std::string("interrupted") : d.outcome.detail);
}

// The probe's closing line.
std::string probeVerdict(const Ladder& l) {
    const ProbeOutcome& p = l.outcome;
    const std::string limit = l.timeout ? fmt::format("this kernel's {:.0f} ms job timeout", *l.timeout * 1000.0)
                                        : std::string("no known job timeout on this device");
    switch (p.result) {
        case ProbeResult::SoftKill:
            return fmt::format("watchdog probe: a kill here is soft, zeros (wrong output) with no error: {} ({})",
                               p.detail, limit);
        case ProbeResult::HardKill:
            return fmt::format("watchdog probe: a kill here is hard, the device is lost: {} ({})", p.detail, limit);
        case ProbeResult::NoKill:
            return fmt::format(
                "watchdog probe: no kill: {}; {}{}", p.detail, limit,
                l.timeout && p.longestSeconds > ladderBound(l)
                    ? ", although the submit passed 1.5x that timeout: the timeout does not apply as stated"
                    : "");
        case ProbeResult::NotRun:
            break;
    }
    return "watchdog probe: no result: " + (p.detail.empty() ? std::string("interrupted") : p.detail);
}

// ---- printing -----------------------------------------------------------------------------

void printHeader(const char* what, const Children& c) {
    const bool oneStep = c.o.watchdogProbe && c.plan.builtIn();
    printChildrenHeader(oneStep ? fmt::format("{} at one step, preset {} ({})", what, c.o.preset, describe(c.o.shape))
                                : fmt::format("{} {}", what, planLine(c.o, c.plan)),
                        c.device, c.dir,
                        c.o.keepLogs ? " (kept: --keep-logs)" : " (removed at the end; --keep-logs keeps them)");
}

// ---- the JSON document ----------------------------------------------------------------------

// What the triage and probe documents say of the run: repro, the command, the device, N,
// the probe's timeout when a ladder ran, the exit status and whether an interrupt ended it.
TriageRunFacts runFacts(const Children& c, const Ladder* ladder, int status, bool interrupted) {
    return {.version = kReproVersion,
            .git = kReproGitHash,
            .commandLine = c.o.commandLine,
            .deviceName = c.device.name,
            .driver = c.device.driver,
            .driverId = c.device.driverId,
            .chainLength = c.plan.builtIn() ? c.o.chainLength : 0,
            .timeoutSeconds = ladder ? ladder->timeout : std::nullopt,
            .timeoutSource = ladder ? ladder->source : std::string(),
            .exitStatus = status,
            .interrupted = interrupted};
}

// --format json on stdout (or in the -o file) and the --json file; an unwritable file, or a
// Markdown document that was not written (`markdownWritten` false), is exit 1 unless the
// status says more (a reproduction, a hang, an interrupt).
int writeDocument(const Options& o, const json& doc, int status, const char* what, bool markdownWritten) {
    const std::string text = doc.dump(2) + "\n";
    const std::string name = fmt::format("the {} document", what);
    bool written = o.format != Format::Json || emitFormatDocument(o, name, text);
    written = emitJsonFile(o, name, text) && written && markdownWritten;
    return written ? status : documentStatus(status);
}

// The one-dispatch ladder in the probe document: dispatch_rungs (each with its batch) and
// one_dispatch {result, detail, longest_seconds}.
void addDispatchLadder(json& doc, const DispatchLadder& d) {
    const json rungs = watchdogProbeDocument({}, d.rungs, {}, "")["rungs"];
    doc["dispatch_rungs"] = rungs;
    for (size_t i = 0; i < d.rungs.size(); ++i) doc["dispatch_rungs"][i]["batch"] = d.rungs[i].batch;
    doc["one_dispatch"] = {{"result", name(d.outcome.result)},
                           {"detail", d.outcome.detail},
                           {"longest_seconds", d.outcome.longestSeconds}};
}

// ---- --triage ---------------------------------------------------------------------------

// split as the failing mode: its stream is blade's one dispatch per submit, which the
// recording experiments leave alone (`--mode split` with them is a usage error), so each
// is skipped with the reason instead of run.
void skipRecordingOnSplit(std::vector<Planned>& plan) {
    for (Planned& p : plan) {
        if (!changesRecording(p.kind) || !p.skip.empty()) continue;
        p.skip =
            "not run: it changes multipass and single only; split, the failing mode, keeps blade's stream (one "
            "dispatch per submit)";
    }
}

std::vector<Planned> planTriage(const Children& c, const TriageInput& in, std::optional<double> timeout) {
    std::vector<Planned> plan;
    if (in.baseline == RunResult::Correct) {
        // does blade's own set-up go wrong where the valid stream does not (H6; the chain's only)
        if (c.plan.builtIn()) plan.push_back({ExperimentKind::BladeExact, {.profile = Profile::BladeExact}});
    } else if (in.baseline == RunResult::Wrong || in.baseline == RunResult::Hang) {
        const Mode mode = modeNamed(in.failingMode);
        planFlush(c, mode, plan);
        planSubmits(c, mode, timeout, plan);
        planOthers(c, mode, plan);
        if (mode == Mode::Split) skipRecordingOnSplit(plan);
    }
    return plan;
}

// What will run and about how long it takes, from the baseline's own time.
void sayEstimate(const std::vector<Planned>& plan, const ChildOutcome& baseline, std::optional<double> timeout) {
    double factor = 0;
    size_t runs = 0;
    for (const Planned& p : plan) {
        if (!p.skip.empty()) continue;
        ++runs;
        // One step of 2N conv-Ts: about 2 runs.
        factor += p.factors.steps ? 2.0 : double(p.factors.dispatchRepeat.value_or(1));
    }
    const double probe = timeout ? 8.0 * kProbeTimeoutFactor * *timeout : 0.0;
    say("  {} experiment{} to run ({} not run here): about {:.0f} s at most at the baseline's {:.1f} s a run{}", runs,
        runs == 1 ? "" : "s", plan.size() - runs, factor * baseline.process.seconds + probe, baseline.process.seconds,
        timeout ? fmt::format(", the watchdog probe's ladder included (up to {:.0f} s of submits)", probe) : "");
}

// What one --triage has run so far: its input, the table's rows, the probe's ladder, and
// why its children's logs are kept ("" when nothing needs keeping).
struct TriageRun {
    TriageInput in;
    std::vector<std::vector<std::string>> rows;
    std::optional<Ladder> ladder;
    std::string keepWhy;
};

// One table row (hypothesis, experiment, outcome, points to, why), printed and kept for Markdown.
void addRow(TriageRun& run, const TriageRow& row) {
    say("  {:<3} {:<42} {:<40} {:<12} {}", code(row.hypothesis), row.experiment, row.outcome, name(row.finding),
        row.why);
    run.rows.push_back(
        {std::string(code(row.hypothesis)), row.experiment, row.outcome, std::string(name(row.finding)), row.why});
}

// Runs the plan, printing each row as it finishes; false when interrupted (the
// interrupted experiment is left out: it gave nothing).
bool runExperiments(Children& c, const std::vector<Planned>& plan, TriageRun& run) {
    for (size_t i = 0; i < plan.size(); ++i) {
        if (interruptSignal() != 0) return false;
        if (plan[i].skip.empty()) {
            watch::row(static_cast<unsigned>(i + 1), static_cast<unsigned>(plan.size()),
                       "triage " + plannedLabel(plan[i]));
        }
        run.in.experiments.push_back(runPlanned(c, plan[i], i));
        if (run.in.experiments.back().detail == "interrupted") {
            run.in.experiments.pop_back();
            return false;
        }
        addRow(run, concludeTriage(run.in).rows.back());
    }
    return true;
}

// The baseline into `in`, printed; a baseline that gave no result (cannot test, a crash,
// no report) says why in its detail, from its last output line ("CANNOT TEST HERE: ...").
// Returns why its log is kept ("" when nothing needs keeping).
std::string readBaseline(const ChildOutcome& baseline, TriageInput& in) {
    readTriageBaseline(baseline, in);
    std::string keepWhy;
    if (in.baseline == RunResult::NotRun) {
        const std::string why = lastOutputLine(baseline);
        if (!why.empty()) in.baselineDetail += ": " + why;
        keepWhy = fmt::format("the baseline gave no result; its log is {}", baseline.log);
    }
    say("  baseline: {} in {:.1f} s", in.baselineDetail, baseline.process.seconds);
    return keepWhy;
}

int triageStatus(RunResult baseline) {
    return baseline == RunResult::Wrong     ? kExitReproduced
           : baseline == RunResult::Hang    ? kExitHang
           : baseline == RunResult::Correct ? kExitNotReproduced
                                            : kExitCannotTest;
}

// The end of a --triage, run in full or `interrupted` (the first SIGINT or SIGTERM): the
// conclusion (an interrupted one draws none: "interrupted by SIGINT after K experiments;
// no verdict"), the Markdown block, the children's folder, and the document of what ran
// (marked interrupted), with exit 128 + the signal when interrupted.
int finishTriage(const Children& c, TriageRun& run, bool interrupted) {
    TriageConclusion t = concludeTriage(run.in);
    int status = triageStatus(run.in.baseline);
    std::vector<std::string> summary;
    if (interrupted) {
        status = interruptedExit();
        t.kind = ConclusionKind::Undetermined;
        t.line = "conclusion: " + interruptedAfter(run.in.experiments.size(), "experiment") + "; no verdict";
        summary.push_back(t.line);
    }
    const std::string llvm = interrupted ? std::string() : llvmAnswer(run.in);
    if (!interrupted)
        summary = sayTriageConclusion(t, llvm.empty() ? "" : "Does it happen with RADV_DEBUG=llvm? " + llvm);
    const ChildrenStory story{
        .ran = fmt::format("repro --triage ran the command as given (every mode) on {} as the baseline ({}), then {} "
                           "experiment{} on the failing mode {}, each changing one thing{}.",
                           c.device.name, run.in.baselineDetail, run.in.experiments.size(),
                           run.in.experiments.size() == 1 ? "" : "s",
                           c.plan.builtIn() ? fmt::format("at N={}", c.o.chainLength) : std::string("of the file"),
                           run.ladder ? ", and the watchdog probe" : ""),
        .llvmAnswer = llvm.empty() ? std::nullopt : std::optional<std::string>(llvm),
        .hang = run.in.baseline == RunResult::Hang};
    const bool written = printMarkdown("--triage", c.o, c.device, {"H", "experiment", "outcome", "points to", "why"},
                                       run.rows, summary, story);
    finishLogDir(c.o, c.dir, run.keepWhy);
    const TriageRunFacts facts = runFacts(c, run.ladder ? &*run.ladder : nullptr, status, interrupted);
    return writeDocument(c.o, triageDocument(facts, run.in, t), status, "triage", written);
}

}  // namespace

int runTriage(const Options& o, const Plan& plan) {
    Children c{.o = o, .plan = plan, .device = probe(o), .dir = makeLogDir("triage")};
    const ChildLogFolder logs(o, c.dir);  // removed (or kept and named) when interrupted
    printHeader("--triage", c);
    say("  runs the command as given (every mode) as the baseline; when it reproduces, one child per experiment on the "
        "failing mode {}, each changing one thing, and the watchdog probe where the queue has a known job timeout",
        plan.builtIn() ? fmt::format("at N={}", o.chainLength) : std::string("of the file"));
    if (o.dropDispatch) {
        say("  note: --drop-dispatch {} leaves a dispatch out of every run on purpose (a positive control): the "
            "experiments then test that broken chain, not the driver",
            *o.dropDispatch);
    }
    TriageRun run;
    watch::detail("triage: the baseline run");
    const ChildOutcome baseline = c.run("baseline", RunFactors{});
    if (baseline.process.interrupted) {
        run.in.baselineDetail = "interrupted";
        return finishTriage(c, run, true);
    }
    run.keepWhy = readBaseline(baseline, run.in);
    run.in.userModules = o.spirvDir.has_value();
    run.in.file = !c.plan.builtIn();
    const std::optional<double> timeout = timeoutSeconds(baseline, run.in.failingMode);
    const std::vector<Planned> experiments = planTriage(c, run.in, timeout);
    sayEstimate(experiments, baseline, timeout);
    const bool failed = run.in.baseline == RunResult::Wrong || run.in.baseline == RunResult::Hang;
    if (failed || !experiments.empty()) {  // a correct baseline with nothing to try has no table
        say("--- triage ---");
        say("  {:<3} {:<42} {:<40} {:<12} {}", "H", "experiment", "outcome", "points to", "why");
    }
    if (failed) addRow(run, concludeTriage(run.in).rows.front());
    if (!runExperiments(c, experiments, run)) return finishTriage(c, run, true);
    if (timeout && failed && (c.plan.builtIn() || unlengthened(o).empty())) {
        say("--- watchdog probe ---");
        run.ladder = runLadder(c, timeout, timeoutSource(baseline, c.device.cpu), false);
        if (run.ladder->interrupted) return finishTriage(c, run, true);
        run.in.probe = run.ladder->outcome;
        addRow(run, concludeTriage(run.in).rows.back());
    }
    return finishTriage(c, run, false);
}

namespace {

// The probe's --format markdown document: its ladder as the table, the verdict as the summary.
bool printProbeMarkdown(const Children& c, const Ladder& l, const std::string& verdict) {
    std::vector<std::vector<std::string>> rows;
    const auto secondsText = [](std::optional<double> s) { return s ? fmt::format("{:.2f}", *s) : std::string("-"); };
    for (const ProbeRung& r : l.rungs) {
        rows.push_back({std::to_string(r.convTs), std::to_string(r.steps), std::to_string(r.repeat),
                        secondsText(r.predictedSeconds), secondsText(r.measuredSeconds), r.outcome});
    }
    const ChildrenStory story{
        .ran = fmt::format("repro --watchdog-probe made one submit longer than the queue's job timeout on purpose on "
                           "{}: {} ({} rung{}), to show what a kill by the kernel's watchdog looks like here.",
                           c.device.name,
                           l.file ? "the file as single, every dispatch's work loop longer and longer (--work-scale)"
                                  : "one step as single with its conv-T recorded more and more times",
                           l.rungs.size(), l.rungs.size() == 1 ? "" : "s"),
        .llvmAnswer = std::nullopt,
        .hang = false};
    return printMarkdown("--watchdog-probe", c.o, c.device,
                         {l.file ? "work x" : "conv-Ts", "steps", "repeat", "predicted s", "measured s", "outcome"},
                         rows, {verdict}, story);
}

}  // namespace

int runWatchdogProbe(const Options& o, const Plan& plan) {
    Children c{.o = o, .plan = plan, .device = probe(o), .dir = makeLogDir("watchdog-probe")};
    const ChildLogFolder logs(o, c.dir);  // removed (or kept and named) when interrupted
    printHeader("--watchdog-probe", c);
    say("  one submit made longer than the queue's job timeout on purpose, to show what a kill looks like here: {}",
        plan.builtIn() ? fmt::format("one step as single with its conv-T recorded R times, the conv-Ts doubling from "
                                     "1 (past R = {}, the steps double instead)",
                                     kMaxDispatchRepeat)
                       : "the file as single, every dispatch's work loop R times as long (--work-scale R), R "
                         "doubling from 1");
    say("--- watchdog probe ---");
    const std::string cannot = plan.builtIn() ? std::string() : unlengthened(o);
    Ladder l;
    if (cannot.empty()) l = runLadder(c, std::nullopt, "", true);
    l.outcome.detail = cannot.empty() ? l.outcome.detail : cannot;
    DispatchLadder d;
    if (!l.interrupted && l.outcome.result != ProbeResult::NotRun && plan.builtIn()) d = runDispatchLadder(c, l);
    l.interrupted = l.interrupted || d.interrupted;
    int status = l.outcome.result == ProbeResult::NotRun ? kExitCannotTest : kExitNotReproduced;
    std::string verdict;
    if (l.interrupted) {  // what ran, and no verdict
        status = interruptedExit();
        l.outcome = {.detail = interruptedAfter(l.rungs.size(), "rung")};
        verdict = "watchdog probe: no result: " + l.outcome.detail + "; no verdict";
    } else {
        verdict = probeVerdict(l);
        say("--- {}", verdict);
        if (!d.rungs.empty()) {
            verdict += "; " + dispatchLadderLine(d);
            say("    {}", dispatchLadderLine(d));
        }
    }
    finishLogDir(o, c.dir);
    const bool written = printProbeMarkdown(c, l, verdict);
    json doc = watchdogProbeDocument(runFacts(c, &l, status, l.interrupted), l.rungs, l.outcome, verdict);
    addDispatchLadder(doc, d);
    return writeDocument(o, doc, status, "watchdog probe", written);
}

}  // namespace repro
