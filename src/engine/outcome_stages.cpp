// After the runs of one point (engine/stages.hpp): the causes of the wrong runs, the per-mode
// aggregates, the verdict (the workload's) and the report entries.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "core/exit_status.hpp"
#include "core/output.hpp"
#include "reference/underflow.hpp"
#include "report/verdict.hpp"
#include "engine/evidence.hpp"
#include "engine/stages.hpp"
#include "engine/text_report.hpp"
#include "engine/workload.hpp"
#include "scenario/plan.hpp"
#include "vk/check.hpp"

namespace repro::run {
namespace {

// What decideCause needs about `r`. split's own submits are predicted from nothing (its
// times are what predicts the others); its output was judged by the self-checks when it
// was the reference. The workload adds what its form knows.
CauseInput causeInput(const Length& length, const Runs& runs, const RunRecord& r, bool earlierKill) {
    const Session& s = length.session;
    const bool split = r.mode() == Mode::Split;
    const uint32_t scale = s.plan.builtIn() ? s.options.dispatchRepeat : 1;
    CauseInput in =
        causeInputFor(r.result, r.submitted.run, split ? std::nullopt : s.evidence->splitTimes(length.evidenceKey()),
                      scale, *s.evidence, r.submitted.log);
    in.earlierKill = earlierKill;
    in.control = join(planControls(s.options, s.plan, r.mode()), "; ");  // split runs under none
    if (in.control == "none") in.control.clear();                        // join's word for empty
    s.workload.addCauseFacts(length, runs, r, in);
    return in;
}

// The cause of `r`, decided and put into its result; a wrong run the evidence says was cut
// short is killed.
Cause applyCause(const Length& length, const Runs& runs, RunRecord& r, bool earlierKill) {
    const CauseInput in = causeInput(length, runs, r, earlierKill);
    const Cause c = decideCause(in);
    r.result.cause = c.verdict;
    r.result.causeKind = std::string(name(c.kind));
    r.result.causeJson = causeJson(c, in).dump();
    if (c.killed && isWrong(r.result.kind)) r.result.kind = Classification::Killed;
    return c;
}

// The cause's line without the "(contradicts: ...; missing: ...)" an undetermined cause's
// verdict ends with (forensics/cause.cpp): the lines under it say each of those once.
std::string causeHeadline(const Cause& c) {
    const char* tail = !c.contradictions.empty() ? " (contradicts: " : !c.missing.empty() ? " (missing: " : nullptr;
    const size_t at = tail != nullptr ? c.verdict.rfind(tail) : std::string::npos;
    if (c.kind != CauseKind::Undetermined || at == std::string::npos || !c.verdict.ends_with(')')) return c.verdict;
    return c.verdict.substr(0, at);
}

}  // namespace

void printCause(const Length& length, const RunRecord& r, const Cause& c) {
    sayWrapped(fmt::format(
        "  mode={:<9} {}{}", name(r.mode()), causeHeadline(c),
        length.options().repeat > 1 ? fmt::format(" [run {}/{}]", r.plan.index, length.options().repeat) : ""));
    for (const auto& line : c.evidence) sayWrapped("      evidence: " + line);
    for (const auto& line : c.contradictions) sayWrapped("      contradicts: " + line);
    for (const auto& line : c.missing) sayWrapped("      missing: " + line);
}

std::optional<Cause> decideSplitCause(const Length& length, const Runs& runs, RunRecord& record) {
    if (!length.session.evidence) return std::nullopt;
    bool earlierKill = false;
    for (const RunRecord& r : runs.records) earlierKill = earlierKill || r.result.kind == Classification::Killed;
    return applyCause(length, runs, record, earlierKill);
}

void decideCauses(const Length& length, Runs& runs) {
    Session& s = length.session;
    if (!s.evidence) return;
    bool earlierKill = false;
    for (RunRecord& r : runs.records) {
        const bool wrong = isWrong(r.result.kind) || r.result.kind == Classification::Hang;
        // split's run that was to be the reference has its cause already (decideSplitCause).
        const bool decided = !r.result.causeKind.empty();
        earlierKill = earlierKill || (decided && r.result.kind == Classification::Killed);
        if (!wrong || decided || (r.plan.referenceOnly && r.mode() != Mode::Split)) continue;
        const Cause c = applyCause(length, runs, r, earlierKill);
        earlierKill = earlierKill || c.killed;
        printCause(length, r, c);
    }
}

ModeReport toModeReport(const RunRecord& r, const Options& o, const PlanPoint& point) {
    ModeReport m{.result = r.result};
    // One run's entry counts that run alone: 1 run, wrong when it was (the per-mode aggregate,
    // the verdict's "2/2 runs wrong", sums them); an interrupted run did not run.
    m.result.runs = r.result.kind == Classification::NotRun ? 0 : 1;
    m.result.wrongRuns = isWrong(r.result.kind) || r.result.kind == Classification::Hang ? 1 : 0;
    m.role = r.plan.referenceOnly ? "reference (run after the modes under test)"
             : o.repeat > 1       ? fmt::format("under test, run {}/{}", r.plan.index, o.repeat)
                                  : "under test";
    if (!point.label.empty()) m.role += ", " + point.label;
    const vk::GpuTimes& gpu = r.submitted.run.gpu;
    for (const auto& d : gpu.dispatches) {
        if (d.finished) m.dispatchGpuSeconds.push_back(d.seconds);
    }
    if (const auto& c = r.submitted.run.canary) {
        m.canary = c->status == vk::SubmitStatus::Interrupted ? std::string("interrupted")
                                                              : std::string(vk::resultName(c->result));
    }
    m.submitGpuSeconds = gpu.submitSeconds;
    if (!gpu.submitSeconds.empty())
        m.modeGpuSeconds = std::accumulate(gpu.submitSeconds.begin(), gpu.submitSeconds.end(), 0.0);
    return m;
}

namespace {

// Under a positive control, the verdict's lines of docs/scenarios.md "Controls": each "BUG
// REPRODUCED" line of a mode whose cause is the control (multipass or single: split runs under
// none) says CONTROL CAUGHT and a line names the control; a mode that the kernel's job timeout or
// the firmware cut short (cutShortBy) keeps its line, and a line says the control was not judged
// there; a mode the control does not reach (planControls(o, plan, mode) empty: a file's multipass
// under a barrier control) keeps its line, and a line says why. A control that every mode survives
// gets its "not caught" line. The exit status is left as it is.
void markControl(const Options& o, const Plan& plan, const std::vector<ModeResult>& judged, Verdict& verdict) {
    const std::vector<std::string> controls = planControls(o, plan);
    if (controls.empty()) return;
    const std::string what = "(" + join(controls, "; ") + ")";
    const auto unreachedLine = [&](const std::string& modes, std::string_view tail) {
        return fmt::format(
            "--- the control does not reach {} {}: on a file with one queue and no image it records "
            "blade's G, a full memory barrier, before every step{}",
            modes, what, tail);
    };
    const bool reachesAny = std::any_of(judged.begin(), judged.end(),
                                        [&](const ModeResult& m) { return !planControls(o, plan, m.mode).empty(); });
    if (verdict.exitStatus == kExitNotReproduced && !reachesAny) {  // --mode multipass alone on such a file
        verdict.lines.push_back(unreachedLine("multipass", "; run single to try the control"));
        return;
    }
    if (verdict.exitStatus == kExitNotReproduced) {
        verdict.lines.push_back("--- the control was not caught " + what +
                                ": every mode stayed right without what it removes, so on this device this run "
                                "cannot tell a driver that drops it from one that keeps it");
        return;
    }
    if (verdict.exitStatus != kExitReproduced) return;
    constexpr std::string_view kBug = "--- BUG REPRODUCED: ";
    std::vector<std::string> caught, cutShort, unreached;
    for (std::string& line : verdict.lines) {
        for (const ModeResult& m : judged) {
            if (m.mode == Mode::Split || !line.starts_with(fmt::format("{}mode {} ", kBug, name(m.mode)))) continue;
            const bool killed = !cutShortBy(m.causeKind).empty();
            const bool reached = !planControls(o, plan, m.mode).empty();
            (!reached ? unreached : killed ? cutShort : caught).emplace_back(name(m.mode));
            if (reached && !killed) line = "--- CONTROL CAUGHT: " + line.substr(kBug.size());
        }
    }
    if (!unreached.empty())
        verdict.lines.push_back(unreachedLine(join(unreached, " and "), ", so its wrong output is not the control's"));
    if (!caught.empty())
        verdict.lines.push_back("--- the control was caught " + what +
                                ": wrong output under a positive control says nothing about the driver; exit 2 as "
                                "for any wrong output");
    if (!cutShort.empty())
        verdict.lines.push_back(
            fmt::format("--- the control was not judged in {} {}: the cause above cut the mode "
                        "short before what the control removes could show",
                        join(cutShort, " and "), what));
}

// The mode's runs as one result: counts, and the first wrong run's classification (else
// the first's).
ModeResult aggregate(const Runs& runs, Mode mode) {
    ModeResult total{.mode = mode};
    const RunRecord* first = nullptr;
    const RunRecord* firstWrong = nullptr;
    total.runs = 0;
    for (const RunRecord& r : runs.records) {
        // A run stopped by an interrupt did not run: only completed runs count.
        if (r.mode() != mode || r.plan.referenceOnly || r.result.kind == Classification::NotRun) continue;
        if (!first) first = &r;
        ++total.runs;
        total.submits += r.result.submits;
        total.wallSeconds += r.result.wallSeconds;
        if (isWrong(r.result.kind) || r.result.kind == Classification::Hang) {
            ++total.wrongRuns;
            if (!firstWrong) firstWrong = &r;
        }
        if (first != &r && r.submitted.digest != first->submitted.digest) total.identicalAcrossRuns = false;
    }
    if (const auto f = runs.folded.find(mode); f != runs.folded.end()) {
        total.runs += f->second.runs;
        total.wrongRuns += f->second.wrongRuns;
        total.identicalAcrossRuns = total.identicalAcrossRuns && f->second.identical;
    }
    const RunRecord* shown = firstWrong ? firstWrong : first;
    if (!shown) {
        total.kind = Classification::NotRun;
        total.reason = "an earlier mode lost the device";
        return total;
    }
    ModeResult out = shown->result;  // its classification, reason, stats, cause and checks; the counts are all runs'
    out.submits = total.submits;
    out.wallSeconds = total.wallSeconds;
    out.runs = total.runs;
    out.wrongRuns = total.wrongRuns;
    out.identicalAcrossRuns = total.identicalAcrossRuns;
    return out;
}

}  // namespace

PointOutcome reportPoint(const Length& length, const Runs& runs) {
    const Options& o = length.options();
    PointOutcome out{.deviceGone = runs.deviceGone, .interrupted = runs.interrupted};
    for (const RunRecord& r : runs.records) out.dumpFailed = out.dumpFailed || r.dumpFailed;
    for (const Mode mode : o.modes) {
        ModeResult m = aggregate(runs, mode);
        if (m.runs > 1) {
            const auto f = runs.folded.find(mode);
            say("  {}: {}/{} runs wrong; results {} across runs{}", name(mode), m.wrongRuns, m.runs,
                m.identicalAcrossRuns ? "bit-identical" : "NOT bit-identical",
                f == runs.folded.end() ? ""
                                       : fmt::format(" ({} runs past the first {} counted here, not listed one by one)",
                                                     f->second.runs, kListedRuns));
        }
        out.judged.push_back(std::move(m));
    }
    std::vector<ModeResult> decisive = out.judged;  // a hang in the reference-only split decides too
    for (const RunRecord& r : runs.records) {
        if (r.plan.referenceOnly && r.result.kind == Classification::Hang) decisive.push_back(r.result);
    }
    out.verdict = length.session.workload.decide(length, runs, decisive);
    markControl(o, length.session.plan, out.judged, out.verdict);
    out.referenceName = length.session.workload.referenceName();
    for (const RunRecord& r : runs.records) {
        ModeReport m = toModeReport(r, o, length.point);
        // Whether the mode's runs were bit-identical is the mode's, on each of its entries.
        const auto mode =
            std::find_if(out.judged.begin(), out.judged.end(), [&](const ModeResult& j) { return j.mode == r.mode(); });
        if (!r.plan.referenceOnly && mode != out.judged.end()) m.result.identicalAcrossRuns = mode->identicalAcrossRuns;
        out.modes.push_back(std::move(m));
    }
    for (const auto& [mode, f] : runs.folded) out.folded.push_back(f);
    return out;
}

}  // namespace repro::run
