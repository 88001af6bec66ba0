// The cause decision (cause.hpp): per-submit timing facts against the queue's timeout and
// split's prediction, kill records attributed to processes, then the rules in the order
// decideCause documents.
#include "forensics/cause.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/enum_names.hpp"

namespace repro {
namespace {

std::string seconds(double s) { return fmt::format("{:.2f} s", s); }

// split's own submits: one dispatch each, the source of every prediction.
bool isSplit(const CauseInput& in) { return in.mode == "split"; }

double window(double timeoutSeconds) {
    return std::max(kNearTimeoutFraction * timeoutSeconds, kNearTimeoutFloorSeconds);
}

double margin(const Prediction& p) {
    if (p.basis == PredictionBasis::Timestamps) return kTimestampMarginSeconds;
    return kMarginSeconds + kMarginPerHostWaitSeconds * p.summed;
}

// The decisive submit's timing against the timeout and its prediction.
struct Timing {
    std::optional<size_t> index;
    std::optional<double> measured;
    std::optional<Prediction> predicted;
    bool endedAtTimeout = false;    // within the window around T
    bool shortRun = false;          // measured <= 0.5 P - margin
    bool fullRun = false;           // measured >= 0.75 P - margin
    bool measurable = false;        // the prediction is larger than twice the timing margin
    bool unfinishedCrumbs = false;  // breadcrumbs: not every dispatch finished
    bool allCrumbs = false;         // breadcrumbs: every dispatch finished
};

struct Analysis {
    bool limit = false, noLimit = false;
    double T = 0, d = 0;
    bool logComplete = false;
    std::vector<const GpuEvent*> ourKills, otherKills, faults;
    bool gpuReset = false;
    bool allBeforeTimeout = false;  // every submit measured and completed before T - d
    Timing t;
};

bool isOwnerKind(GpuEventKind k) { return k == GpuEventKind::RingTimeout || k == GpuEventKind::SoftRecovered; }

// Kill records split by whose they are: a reset after a timeout that names a process
// belongs to that process too.
void attributeKills(const CauseInput& in, Analysis& a) {
    std::optional<int64_t> owner;
    for (const GpuEvent& e : in.kernelLog.events) {
        if (isOwnerKind(e.kind)) owner = e.pid;
        if (e.kind == GpuEventKind::PageFault || e.kind == GpuEventKind::VmFaultStatus) a.faults.push_back(&e);
        if (!isKillEvent(e)) continue;
        if (e.kind == GpuEventKind::GpuResetBegin || e.kind == GpuEventKind::GpuResetSucceeded ||
            e.kind == GpuEventKind::GpuResetFailed) {
            a.gpuReset = true;
        }
        const std::optional<int64_t> pid = e.pid ? e.pid : owner;
        const bool ours = !in.ownPid || !pid || *pid == *in.ownPid;
        (ours ? a.ourKills : a.otherKills).push_back(&e);
    }
}

Timing submitTiming(const SubmitEvidence& s, const Analysis& a) {
    Timing t;
    t.measured = s.measuredSeconds;
    t.predicted = s.predicted;
    const double top = a.T + a.d + (a.gpuReset ? kGpuResetAllowanceSeconds : 0.0);
    t.endedAtTimeout = a.limit && t.measured && *t.measured >= a.T - a.d && *t.measured <= top;
    if (t.measured && t.predicted) {
        const double m = margin(*t.predicted);
        t.shortRun = *t.measured <= kShortFraction * t.predicted->seconds - m;
        t.fullRun = *t.measured >= kFullFraction * t.predicted->seconds - m;
        // Below twice the margin the host cannot tell a submit that did its work from one
        // that did not: the comparison says nothing either way.
        t.measurable = t.predicted->seconds > 2 * m;
    }
    if (s.lastFinishedDispatch && s.dispatches > 0) {
        t.unfinishedCrumbs = *s.lastFinishedDispatch < s.dispatches;
        t.allCrumbs = !t.unfinishedCrumbs;
    }
    return t;
}

Analysis analyze(const CauseInput& in) {
    Analysis a;
    a.limit = in.timeout.kind == TimeoutKind::Limit;
    a.noLimit = in.timeout.kind == TimeoutKind::NoLimit;
    a.T = a.limit ? in.timeout.seconds() : 0.0;
    a.d = a.limit ? window(a.T) : 0.0;
    a.logComplete = in.kernelLog.readable && in.kernelLog.lost == 0;
    attributeKills(in, a);
    bool allMeasured = !in.submits.empty();
    bool allBefore = true;
    double longest = -1;
    for (size_t i = 0; i < in.submits.size(); ++i) {
        const auto& m = in.submits[i].measuredSeconds;
        if (!m) allMeasured = false;
        if (m && a.limit && *m >= a.T - a.d) allBefore = false;
        const double key = m ? *m : -0.5;
        if (!a.t.index || key > longest) {
            longest = key;
            a.t = submitTiming(in.submits[i], a);
            a.t.index = i;
        }
    }
    a.allBeforeTimeout = a.noLimit || (a.limit && allMeasured && allBefore);
    return a;
}

// A kill record's message from its first telling word on ("ring gfx_0.0.0 timeout, ...").
std::string excerpt(const GpuEvent& e) {
    std::string_view t = e.text;
    size_t first = std::string_view::npos;
    for (const std::string_view word :
         {"ring ", "Starting ", "Ring ", "GPU reset", "GPU Recovery", "device wedged", "GPU HANG", "Resetting ", "MES ",
          "MODE2", "GCVM_", "VM_L2", "Timedout job", "Engine reset", "NVRM: Xid", "fifo:"}) {
        first = std::min(first, t.find(word));
    }
    if (first != std::string_view::npos) t = t.substr(first);
    std::string out(t.substr(0, 100));
    if (t.size() > 100) out += "...";
    return out;
}

std::string killRecords(const std::vector<const GpuEvent*>& kills) {
    std::string out;
    for (size_t i = 0; i < kills.size() && i < 2; ++i) out += fmt::format("{}'{}'", i ? ", " : "", excerpt(*kills[i]));
    if (kills.size() > 2) out += fmt::format(" and {} more", kills.size() - 2);
    return out;
}

// "the submit ended after 2.00 s of a predicted 2.90 s" (which submit when there are more).
std::string endedPhrase(const CauseInput& in, const Timing& t) {
    const std::string which = in.submits.size() > 1 && t.index
                                  ? fmt::format("submit {} of {}", *t.index + 1, in.submits.size())
                                  : std::string("the submit");
    std::string out = t.measured ? fmt::format("{} ended after {}", which, seconds(*t.measured))
                                 : fmt::format("{} (its duration was not measured)", which);
    if (t.predicted) out += fmt::format(" of a predicted {}", seconds(t.predicted->seconds));
    return out;
}

std::string logMissing(const CauseInput& in) {
    const std::string why = in.kernelLog.readable
                                ? "records were overwritten before repro read them"
                                : (in.kernelLog.problem.empty() ? std::string("not read") : in.kernelLog.problem);
    return in.kernelLog.command.empty() ? fmt::format("the kernel log ({})", why)
                                        : fmt::format("the kernel log ({}; run {})", why, in.kernelLog.command);
}

// "recovery: soft (...)": how the kernel recovered, in amdgpu's and RADV's words.
std::string recoveryLine(const CauseInput& in) {
    switch (recoveryOf(in)) {
        case Recovery::Soft:
            return "recovery: soft (the kernel stopped the job's waves and let its fence signal; it fails the "
                   "context's next submission with -ENODATA, in RADV's words 'guilty of a soft recovery')";
        case Recovery::Hard:
            return "recovery: hard (a ring or GPU reset after repro's job timed out; the kernel fails the context's "
                   "next submission with -ETIME, in RADV's words 'guilty of a hard recovery')";
        case Recovery::Innocent:
            return "recovery: a reset after another process's job timed out: repro's context is innocent (-ECANCELED, "
                   "in RADV's words 'this context is innocent')";
        case Recovery::Unknown:
            break;
    }
    return "recovery: not known (no kill record in the kernel log during the mode)";
}

void addEvidence(const CauseInput& in, const Analysis& a, Cause& c) {
    const Timing& t = a.t;
    if (t.measured && t.predicted) {
        c.evidence.push_back(fmt::format("{} ({:.0f}% of the prediction, from {})", endedPhrase(in, t),
                                         100.0 * *t.measured / std::max(t.predicted->seconds, 1e-12),
                                         name(t.predicted->basis)));
    } else if (t.index) {
        c.evidence.push_back(endedPhrase(in, t));
    }
    if (a.limit)
        c.evidence.push_back(fmt::format("the {} queue's job timeout: {} ms ({})", in.queue, in.timeout.milliseconds,
                                         in.timeout.source));
    if (a.noLimit)
        c.evidence.push_back(fmt::format("no job timeout applies to the {} queue ({})", in.queue, in.timeout.source));
    if (t.index && in.submits[*t.index].lastFinishedDispatch) {
        const auto& s = in.submits[*t.index];
        c.evidence.push_back(fmt::format(
            "breadcrumbs: the last dispatch that finished was {} of {}{}", *s.lastFinishedDispatch, s.dispatches,
            s.lastFinishedSeconds ? fmt::format(", {} after the submit began", seconds(*s.lastFinishedSeconds)) : ""));
    }
    if (!a.ourKills.empty()) c.evidence.push_back("kernel log during the mode: " + killRecords(a.ourKills));
    if (!a.otherKills.empty()) {
        const GpuEvent& e = *a.otherKills.front();
        c.evidence.push_back(fmt::format("kernel log: {} for another process ({} pid {}), not repro",
                                         killRecords(a.otherKills),
                                         e.process.empty() ? std::string("unnamed") : e.process, e.pid.value_or(-1)));
    }
    if (!a.faults.empty())
        c.evidence.push_back("kernel log: GPU page fault during the mode: '" + excerpt(*a.faults.front()) + "'");
    if (a.logComplete && a.ourKills.empty())
        c.evidence.push_back("no job-timeout record in the kernel log during the mode");
    if (in.deviceLost && in.canaryLost) {
        c.evidence.push_back(
            "the mode ended in VK_ERROR_DEVICE_LOST at repro's canary (an empty command buffer after the mode), "
            "although every submit, wait and readback of the mode had returned VK_SUCCESS: the driver reported the "
            "loss only at the next submit");
    } else if (in.deviceLost) {
        c.evidence.push_back("the mode ended in VK_ERROR_DEVICE_LOST");
    }
    if (in.deviceLost) c.evidence.push_back(recoveryLine(in));
    if (in.waitTimedOut) c.evidence.push_back("the host's wait gave up before the GPU finished");
}

Cause finish(Cause c, CauseKind kind, std::string verdict, bool killed = false) {
    c.kind = kind;
    c.verdict = std::move(verdict);
    c.killed = killed && c.contradictions.empty();
    return c;
}

// "cause undetermined: <main> (contradicts: ...; missing: ...)".
Cause undetermined(Cause c, const std::string& main, bool killed = false) {
    std::string tail;
    if (!c.contradictions.empty()) tail += "contradicts: " + fmt::format("{}", fmt::join(c.contradictions, "; "));
    if (!c.missing.empty())
        tail += std::string(tail.empty() ? "" : "; ") + "missing: " + fmt::format("{}", fmt::join(c.missing, "; "));
    return finish(std::move(c), CauseKind::Undetermined,
                  tail.empty() ? "cause undetermined: " + main : fmt::format("cause undetermined: {} ({})", main, tail),
                  killed);
}

// The log says the kernel stopped a job of this process during the mode.
std::optional<Cause> byKillRecords(const CauseInput& in, const Analysis& a, Cause c) {
    if (a.ourKills.empty()) return std::nullopt;
    const Timing& t = a.t;
    const std::string records = killRecords(a.ourKills);
    if (a.noLimit)
        c.contradictions.push_back(
            fmt::format("the log has {} but no job timeout applies to the {} queue", records, in.queue));
    if (a.limit && a.allBeforeTimeout) {
        c.contradictions.push_back(
            fmt::format("the log has {} but every submit completed before the {} ms timeout could fire", records,
                        in.timeout.milliseconds));
    }
    if (t.allCrumbs)
        c.contradictions.push_back(
            fmt::format("the log has {} but the breadcrumbs say every dispatch finished", records));
    if (!c.contradictions.empty()) return undetermined(std::move(c), "a job-timeout record of repro's during the mode");
    // split's own submits are what the predictions come from: none is expected for them.
    if (!t.predicted && !isSplit(in))
        c.missing.push_back("a prediction of the submit's GPU time (split's timestamps or waits)");
    if (!t.measured) c.missing.push_back("the submit's measured duration");
    const std::string limit = a.limit ? fmt::format("{} ms, {} queue", in.timeout.milliseconds, in.queue)
                                      : fmt::format("{} queue, timeout unknown", in.queue);
    if (t.endedAtTimeout && t.predicted && t.predicted->seconds <= a.T - a.d) {
        return finish(
            std::move(c), CauseKind::HangKilled,
            fmt::format("cause: a GPU hang, ended by the kernel's job timeout ({}): the submit was predicted to take "
                        "{} but ran until the timeout ({}), kernel log {}",
                        limit, seconds(t.predicted->seconds), seconds(*t.measured), records),
            true);
    }
    const char* alone = isSplit(in) ? "one dispatch alone outlives it (split, one dispatch per submit): " : "";
    return finish(std::move(c), CauseKind::JobTimeout,
                  fmt::format("cause: the kernel's job timeout ({}): {}{}, kernel log {}", limit, alone,
                              endedPhrase(in, t), records),
                  true);
}

// The amdgpu MES wedge (public report: ROCm/legacy-rocm-build #5724, GFX11.5 with MES firmware
// 0x83): the scheduler firmware stops answering ("MES failed to respond to msg=REMOVE_QUEUE"),
// often with a VM protection fault, a MODE2 reset and "device wedged, but recovered through
// reset". No process is named; the record falls in the mode. The firmware's doing, whatever
// the timing says, so it comes before the job timeout.
std::optional<Cause> byFirmware(const CauseInput& in, Cause c) {
    const auto& events = in.kernelLog.events;
    const auto mes = std::find_if(events.begin(), events.end(),
                                  [](const GpuEvent& e) { return e.kind == GpuEventKind::MesNoResponse; });
    if (mes == events.end()) return std::nullopt;
    std::vector<std::string> signature;
    for (const GpuEvent& e : events) {
        if (e.kind == GpuEventKind::VmFaultStatus || e.kind == GpuEventKind::GpuResetBegin ||
            e.kind == GpuEventKind::DeviceWedged || e.kind == GpuEventKind::MesNoResponse)
            signature.push_back("'" + excerpt(e) + "'");
    }
    c.evidence.push_back(fmt::format("kernel log during the mode: {}", fmt::join(signature, ", ")));
    if (in.firmware.empty())
        c.missing.push_back("the MES firmware version (the card's fw_version files in sysfs were not read)");
    else
        c.evidence.push_back("firmware: " + in.firmware);
    return finish(std::move(c), CauseKind::Firmware,
                  fmt::format("cause: the GPU's scheduler firmware (amdgpu MES) stopped answering the kernel ('{}'){}: "
                              "a firmware fault that the kernel recovers by resetting the GPU, not this command "
                              "stream's; compare the MES firmware version with a known-good one",
                              excerpt(*mes), in.firmware.empty() ? "" : ", firmware " + in.firmware),
                  true);
}

// Ended at the timeout, but the log has no kill record of repro's.
std::optional<Cause> byTimeAtTimeout(const CauseInput& in, const Analysis& a, Cause c) {
    if (!a.t.endedAtTimeout) return std::nullopt;
    const std::string main = fmt::format("{}, at the {} ms timeout, which points at the kernel's job timeout",
                                         endedPhrase(in, a.t), in.timeout.milliseconds);
    if (a.logComplete) {
        c.contradictions.push_back(
            fmt::format("the submit ended at the {} ms timeout, but the readable kernel log has no "
                        "job-timeout record for repro",
                        in.timeout.milliseconds));
        return undetermined(std::move(c), main);
    }
    c.missing.push_back(logMissing(in));
    return undetermined(std::move(c), main, true);
}

// A submit cancelled because an earlier mode's kill lost the context.
std::optional<Cause> byEarlierKill(const CauseInput& in, const Analysis& a, Cause c) {
    if (!in.earlierKill || !in.deviceLost) return std::nullopt;
    c.evidence.push_back("an earlier mode of this run was killed; the kernel then refuses the context's submits");
    return finish(
        std::move(c), CauseKind::JobTimeout,
        fmt::format("cause: the kernel's job timeout, in an earlier mode: {} in VK_ERROR_DEVICE_LOST because the "
                    "context was lost to that kill",
                    endedPhrase(in, a.t)),
        true);
}

// The rest of the way to a synchronization verdict: the submit must have done its work
// and the shader compiler must be excluded.
Cause synchronization(const CauseInput& in, const Analysis& a, Cause c) {
    const Timing& t = a.t;
    if (in.deviceLost || in.waitTimedOut) {
        return undetermined(std::move(c), in.deviceLost ? "the mode lost the device without a job-timeout record"
                                                        : "the host's wait gave up without a job-timeout record");
    }
    const bool timed = t.measured && t.predicted && t.measurable;
    if (!timed && !t.allCrumbs) {
        if (!t.predicted) c.missing.push_back("a prediction of the submit's GPU time (split's timestamps or waits)");
        if (!t.measured) c.missing.push_back("the submit's measured duration");
        if (t.measured && t.predicted && !t.measurable) {
            c.missing.push_back(
                fmt::format("a prediction above the host's timing margin (predicted {} is within {} of "
                            "noise; --timestamps or {} give one)",
                            seconds(t.predicted->seconds), seconds(2 * margin(*t.predicted)),
                            in.file ? "--work-scale" : "a larger shape"));
        }
    }
    if (in.reference == JudgedAgainst::Cpu && in.splitStepCheck == StepCheckState::NotRun) {
        c.missing.push_back("split's per-dispatch CPU check (whether one dispatch alone computes right)");
    }
    if (in.reference == JudgedAgainst::None && in.splitStepCheck != StepCheckState::Passed) {
        c.missing.push_back(in.file ? "a reference (split) or split's step-by-step check (--check-steps)"
                                    : "a reference (split) or split's per-dispatch CPU check");
    }
    if (!c.missing.empty())
        return undetermined(std::move(c),
                            "the job timeout is excluded, but whether the submit did its work "
                            "with correct shaders is not known");
    if (in.reference == JudgedAgainst::Split)
        c.evidence.push_back("split runs the same shaders, one dispatch per submit");
    if (in.splitStepCheck == StepCheckState::Passed) c.evidence.push_back("split passes the per-dispatch CPU check");
    std::string ran;
    if (!timed) {
        ran = "every dispatch finished (breadcrumbs)";
    } else if (t.fullRun) {
        ran = fmt::format("the submit ran its full predicted time ({} of {})", seconds(*t.measured),
                          seconds(t.predicted->seconds));
    } else {
        ran = fmt::format(
            "the submit ran {:.0f}% of its predicted time ({} of {}; dispatches that overlap, as a missing "
            "dependency lets them, take less)",
            100.0 * *t.measured / t.predicted->seconds, seconds(*t.measured), seconds(t.predicted->seconds));
    }
    const std::string why = a.logComplete && a.ourKills.empty() ? std::string("no job-timeout record in the kernel log")
                            : a.noLimit ? fmt::format("no job timeout applies to the {} queue", in.queue)
                                        : fmt::format("every submit completed before the {} ms timeout could fire",
                                                      in.timeout.milliseconds);
    return finish(std::move(c), CauseKind::Synchronization,
                  fmt::format("cause: synchronization: {} and its output is wrong; {}", ran, why));
}

// split wrong with the job timeout excluded and its per-dispatch check not failing: split
// has no barrier inside a submit (each dispatch is its own submit, waited for), so
// neither a missing barrier nor the job timeout explains it.
Cause splitOwnFailure(const CauseInput& in, Cause c) {
    if (in.deviceLost || in.waitTimedOut) {
        return undetermined(std::move(c), in.deviceLost ? "split lost the device without a job-timeout record"
                                                        : "the host's wait for split gave up without a job-timeout "
                                                          "record");
    }
    if (in.splitStepCheck == StepCheckState::NotRun) {
        c.missing.push_back(
            "split's per-dispatch CPU check (--check-steps: whether one dispatch alone computes right)");
    }
    return undetermined(std::move(c),
                        "split, one dispatch per submit and each waited for, is wrong with the job timeout "
                        "excluded: no barrier inside a submit is involved");
}

// The job timeout is excluded (or cannot be) here: short submits, the compiler, blade's
// quirks, synchronization.
Cause otherCauses(const CauseInput& in, const Analysis& a, Cause c) {
    const Timing& t = a.t;
    const bool excluded = a.allBeforeTimeout || (a.logComplete && a.ourKills.empty());
    if (!excluded) {
        if (!a.limit && !a.noLimit)
            c.missing.push_back(fmt::format("the {} queue's job timeout ({})", in.queue, in.timeout.source));
        if (!a.logComplete) c.missing.push_back(logMissing(in));
        if (a.limit && !t.measured) c.missing.push_back("the submit's measured duration");
        return undetermined(std::move(c), "the kernel's job timeout cannot be excluded");
    }
    if (a.limit && t.measured && *t.measured > a.T + a.d + (a.gpuReset ? kGpuResetAllowanceSeconds : 0.0)) {
        c.contradictions.push_back(
            fmt::format("{} without a job-timeout record, past the {} ms timeout: the kernel applies "
                        "a longer one, or the submit waited behind other work",
                        endedPhrase(in, t), in.timeout.milliseconds));
        return undetermined(std::move(c), "a submit that outlived the job timeout");
    }
    if ((t.shortRun || t.unfinishedCrumbs) && in.droppedDispatch) {
        c.evidence.push_back(
            fmt::format("dispatch {} was left out on purpose (--drop-dispatch): the submit's shorter "
                        "time is the experiment's own, no evidence of a kill",
                        *in.droppedDispatch));
    } else if (t.shortRun || t.unfinishedCrumbs) {
        const std::string main = fmt::format(
            "{}{}, with no job-timeout record: its work did not all run, and the job timeout "
            "cannot have fired that early",
            endedPhrase(in, t), in.deviceLost ? " in VK_ERROR_DEVICE_LOST" : " with no error");
        return undetermined(std::move(c), main, true);
    }
    if (in.splitStepCheck == StepCheckState::Failed && !in.userModules.empty()) {
        // The user's modules: a module with undefined behaviour is wrong on a correct
        // compiler too, and spirv-val cannot see most of it; the compiler is not blamed.
        return finish(std::move(c), CauseKind::ShaderCompiler,
                      fmt::format("cause: the shaders or the shader compiler: split, one dispatch per submit, fails "
                                  "the per-dispatch CPU check ({}); {}; the modules may be invalid (undefined "
                                  "behaviour such as a barrier() after a non-uniform return passes spirv-val)",
                                  in.splitStepCheckDetail.empty() ? "see the step check" : in.splitStepCheckDetail,
                                  in.userModules));
    }
    if (in.splitStepCheck == StepCheckState::Failed) {
        return finish(
            std::move(c), CauseKind::ShaderCompiler,
            fmt::format("cause: the shader compiler (or the device's arithmetic): split, one dispatch per submit, "
                        "fails the per-dispatch CPU check ({})",
                        in.splitStepCheckDetail.empty() ? "see the step check" : in.splitStepCheckDetail));
    }
    if (isSplit(in) && !in.bladeExact) return splitOwnFailure(in, std::move(c));
    if (in.bladeExact) {
        return finish(
            std::move(c), CauseKind::BladeQuirks,
            "cause: blade's own invalid usage (--profile blade-exact): its quirks can make the output wrong without "
            "a driver bug; rerun with --profile default");
    }
    return synchronization(in, a, std::move(c));
}

}  // namespace

std::string_view name(PredictionBasis b) { return b == PredictionBasis::Timestamps ? "timestamps" : "host waits"; }

std::string_view name(OutputVerdict v) {
    static constexpr std::string_view kNames[] = {"correct", "zero", "mismatch", "nonfinite", "unwritten"};
    return nameOf(kNames, v);
}

std::string_view name(CauseKind k) {
    static constexpr std::string_view kNames[] = {"no_failure",      "job_timeout",     "hang_killed",
                                                  "synchronization", "shader_compiler", "blade_quirks",
                                                  "control",         "firmware",        "undetermined"};
    return nameOf(kNames, k);
}

std::optional<Prediction> predictSubmit(const SplitTimes& split, size_t first, size_t count) {
    const auto sum = [&](const std::vector<double>& v) -> std::optional<double> {
        if (count == 0 || first + count > v.size()) return std::nullopt;
        double total = 0;
        for (size_t i = first; i < first + count; ++i) {
            if (!std::isfinite(v[i]) || v[i] < 0) return std::nullopt;
            total += v[i];
        }
        return total;
    };
    if (const auto t = sum(split.dispatchGpuSeconds))
        return Prediction{*t, PredictionBasis::Timestamps, static_cast<uint32_t>(count)};
    if (const auto w = sum(split.submitWaitSeconds))
        return Prediction{*w, PredictionBasis::HostWaits, static_cast<uint32_t>(count)};
    return std::nullopt;
}

std::optional<std::string> predictionWarning(std::string_view mode, const Prediction& p, std::string_view queue,
                                             const QueueTimeout& timeout) {
    if (timeout.kind != TimeoutKind::Limit || timeout.milliseconds <= 0) return std::nullopt;
    const double T = timeout.seconds();
    const std::string bound = p.basis == PredictionBasis::HostWaits ? " (an upper bound: split's host waits)" : "";
    const std::string head =
        fmt::format("{} will keep the {} queue busy about {:.1f} s in one submit", mode, queue, p.seconds);
    if (p.seconds >= T - window(T)) {
        return fmt::format("{}; this kernel kills a job after {} ms{}", head, timeout.milliseconds, bound);
    }
    if (p.seconds >= 0.5 * T) {
        return fmt::format("{}, {:.0f}% of the {} ms after which this kernel kills a job{}", head,
                           100.0 * p.seconds / T, timeout.milliseconds, bound);
    }
    return std::nullopt;
}

std::string_view name(Recovery r) {
    static constexpr std::string_view kNames[] = {"unknown", "soft", "hard", "innocent"};
    return nameOf(kNames, r);
}

Recovery recoveryOf(const CauseInput& in) {
    Analysis a;
    attributeKills(in, a);
    const auto reset = [](const GpuEvent* e) {
        return e->kind != GpuEventKind::RingTimeout && e->kind != GpuEventKind::SoftRecovered;
    };
    if (std::any_of(a.ourKills.begin(), a.ourKills.end(), reset)) return Recovery::Hard;
    if (std::any_of(a.ourKills.begin(), a.ourKills.end(),
                    [](const GpuEvent* e) { return e->kind == GpuEventKind::SoftRecovered; }))
        return Recovery::Soft;
    if (!a.ourKills.empty()) return Recovery::Hard;  // a timeout with no soft recovery: a reset follows
    if (!a.otherKills.empty()) return Recovery::Innocent;
    return Recovery::Unknown;
}

// A mode wrong or lost under a positive control. The firmware, or the kernel's job timeout (a
// kill record of repro's, the submit predicted past the timeout), explains it whatever the
// control removed. Otherwise wrong output is the control caught; a mode that never finished may
// be the control's or the file's own hang, which only the mode run without the control tells.
Cause underControl(const CauseInput& in, const Analysis& a, Cause c) {
    c.evidence.insert(c.evidence.begin(), "the mode runs under a positive control: " + in.control);
    if (auto r = byFirmware(in, c)) return std::move(*r);
    if (auto r = byKillRecords(in, a, c); r && r->kind == CauseKind::JobTimeout) return std::move(*r);
    if (!in.deviceLost && !in.waitTimedOut)
        return finish(std::move(c), CauseKind::Control,
                      "cause: the control (" + in.control + "): the control was caught, not the driver");
    const std::string missing =
        fmt::format("{} run without the control, which tells whether the file hangs as written", in.mode);
    c.missing.push_back(missing);
    return finish(std::move(c), CauseKind::Control,
                  fmt::format("cause: the control ({}) or the file itself: the mode did not finish under the control, "
                              "and this run did not run it without the control (missing: {})",
                              in.control, missing));
}

Cause decideCause(const CauseInput& in) {
    const Analysis a = analyze(in);
    Cause c;
    c.decisiveSubmit = a.t.index;
    if (a.t.measurable) c.ranInFull = a.t.fullRun;  // measurable: measured, predicted, above the margin
    addEvidence(in, a, c);
    if (in.output == OutputVerdict::Correct)
        return finish(std::move(c), CauseKind::NoFailure, "cause: none (the output is correct)");
    if (!in.control.empty()) return underControl(in, a, std::move(c));
    if (auto r = byFirmware(in, c)) return std::move(*r);
    if (auto r = byKillRecords(in, a, c)) return std::move(*r);
    if (auto r = byTimeAtTimeout(in, a, c)) return std::move(*r);
    if (auto r = byEarlierKill(in, a, c)) return std::move(*r);
    return otherCauses(in, a, std::move(c));
}

nlohmann::json causeJson(const Cause& c, const CauseInput& in) {
    using nlohmann::json;
    const auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    json submit = nullptr;
    if (c.decisiveSubmit && *c.decisiveSubmit < in.submits.size()) {
        const SubmitEvidence& s = in.submits[*c.decisiveSubmit];
        submit = {{"index", *c.decisiveSubmit},
                  {"measured_seconds", opt(s.measuredSeconds)},
                  {"ran_in_full", c.ranInFull ? json(*c.ranInFull) : json(nullptr)},
                  {"predicted_seconds", s.predicted ? json(s.predicted->seconds) : json(nullptr)},
                  {"basis", s.predicted
                                ? json(s.predicted->basis == PredictionBasis::Timestamps ? "timestamps" : "host_waits")
                                : json(nullptr)}};
    }
    json kills = json::array();
    for (const GpuEvent& e : in.kernelLog.events) {
        if (isKillEvent(e)) kills.push_back(e.text);
    }
    const char* kind = in.timeout.kind == TimeoutKind::Limit     ? "limit"
                       : in.timeout.kind == TimeoutKind::NoLimit ? "no_limit"
                                                                 : "unknown";
    return {{"kind", std::string(name(c.kind))},
            {"killed", c.killed},
            {"verdict", c.verdict},
            {"evidence", c.evidence},
            {"missing", c.missing},
            {"contradictions", c.contradictions},
            {"timeout",
             {{"kind", kind},
              {"ms", in.timeout.kind == TimeoutKind::Limit ? json(in.timeout.milliseconds) : json(nullptr)},
              {"source", in.timeout.source}}},
            {"decisive_submit", submit},
            {"device_lost",
             in.deviceLost ? json({{"at_canary", in.canaryLost}, {"recovery", name(recoveryOf(in))}}) : json(nullptr)},
            {"kernel_log",
             {{"readable", in.kernelLog.readable}, {"problem", in.kernelLog.problem}, {"kill_records", kills}}}};
}

}  // namespace repro
