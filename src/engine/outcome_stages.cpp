// After the runs of one length (engine/stages.hpp): the causes of the wrong runs, the
// per-mode aggregates, the verdict and the report entries.
#include <algorithm>
#include <bit>
#include <span>
#include <string>
#include <vector>

#include "core/output.hpp"
#include "reference/underflow.hpp"
#include "report/verdict.hpp"
#include "engine/evidence.hpp"
#include "engine/stages.hpp"
#include "engine/text_report.hpp"

namespace repro::run {
namespace {

bool bitIdentical(std::span<const float> a, std::span<const float> b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](float x, float y) {
               return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y);
           });
}

// What split's per-dispatch CPU check said (the last split run that had one): whether the
// shaders compute right one dispatch at a time, for the causes.
std::pair<StepCheckState, std::string> splitStepCheck(const Runs& runs) {
    std::pair<StepCheckState, std::string> out{StepCheckState::NotRun, ""};
    for (const RunRecord& r : runs.records) {
        if (r.mode() != Mode::Split || !r.submitted.dispatchCheck) continue;
        const StepCheckReport& report = *r.submitted.dispatchCheck;
        out.first = report.firstWrong ? StepCheckState::Failed : StepCheckState::Passed;
        out.second = report.firstWrong ? report.dispatches[*report.firstWrong].line() : "";
    }
    return out;
}

// What decideCause needs about `r`. split's own submits are predicted from nothing (its
// times are what predicts the others); its output was judged by the self-checks when it
// was the reference.
CauseInput causeInput(const Length& length, const Runs& runs, const RunRecord& r, bool earlierKill) {
    const Session& s = length.session;
    const bool split = r.mode() == Mode::Split;
    CauseInput in = causeInputFor(r.result, r.submitted.run, split ? std::nullopt : s.evidence->splitTimes(length.n),
                                  s.options.dispatchRepeat, *s.evidence, r.submitted.log);
    in.bladeExact = s.rig.profile.bladeExact();
    in.reference = s.options.reference == ReferenceKind::Cpu    ? JudgedAgainst::Cpu
                   : s.options.reference == ReferenceKind::None ? JudgedAgainst::None
                   : split                                      ? JudgedAgainst::None
                                                                : JudgedAgainst::Split;
    const auto [splitState, splitDetail] = splitStepCheck(runs);
    in.splitStepCheck = splitState;
    in.splitStepCheckDetail = splitDetail;
    in.earlierKill = earlierKill;
    if (!split) in.droppedDispatch = s.options.dropDispatch;  // split stays blade's stream
    return in;
}

// The cause into the run's result; a wrong run the evidence says was cut short is killed.
void applyCause(RunRecord& r, const Cause& c, const CauseInput& in) {
    r.result.cause = c.verdict;
    r.result.causeKind = std::string(name(c.kind));
    r.result.causeJson = causeJson(c, in).dump();
    if (c.killed && isWrong(r.result.kind)) r.result.kind = Classification::Killed;
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

// The cause's printed lines: the cause, then each fact once.
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
    const CauseInput in = causeInput(length, runs, record, earlierKill);
    const Cause c = decideCause(in);
    applyCause(record, c, in);
    return c;
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
        const CauseInput in = causeInput(length, runs, r, earlierKill);
        const Cause c = decideCause(in);
        applyCause(r, c, in);
        earlierKill = earlierKill || c.killed;
        printCause(length, r, c);
    }
}

ModeReport toModeReport(const RunRecord& r, const Options& o, uint32_t n) {
    ModeReport m{.result = r.result};
    m.role = r.plan.referenceOnly ? "reference (run after the modes under test)"
             : o.repeat > 1       ? fmt::format("under test, run {}/{}", r.plan.index, o.repeat)
                                  : "under test";
    if (o.sweep) m.role += fmt::format(", N={}", n);
    const vk::GpuTimes& gpu = r.submitted.run.gpu;
    for (const auto& d : gpu.dispatches) {
        if (d.finished) m.dispatchGpuSeconds.push_back(d.seconds);
    }
    m.submitGpuSeconds = gpu.submitSeconds;
    if (!gpu.submitSeconds.empty()) {
        double total = 0;
        for (double t : gpu.submitSeconds) total += t;
        m.modeGpuSeconds = total;
    }
    return m;
}

namespace {

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
        if (first != &r && r.result.stats && first->result.stats && !bitIdentical(r.final(), first->final())) {
            total.identicalAcrossRuns = false;
        }
    }
    const RunRecord* shown = firstWrong ? firstWrong : first;
    if (!shown) {
        total.kind = Classification::NotRun;
        total.reason = "an earlier mode lost the device";
        return total;
    }
    total.kind = shown->result.kind;
    total.reason = shown->result.reason;
    total.stats = shown->result.stats;
    total.cause = shown->result.cause;
    total.causeKind = shown->result.causeKind;
    total.causeJson = shown->result.causeJson;
    total.perDispatchCheckJson = shown->result.perDispatchCheckJson;
    return total;
}

// What the verdict must add for experiments that change nothing or are invalid on purpose:
// a control's validation messages are its deliberate hazards, and --submit-every K with
// K >= 2N leaves multipass and single one submit each.
void explainNoOps(const Options& o, uint32_t n, Verdict& verdict) {
    if (isControl(o.barrier) && verdict.exitStatus == kExitValidation && !verdict.lines.empty()) {
        verdict.lines.front() = fmt::format(
            "--- VALIDATION: the messages (see stderr) are the ones --barrier {} is for: a control leaves out the "
            "barrier's memory dependency on purpose, so its hazards are deliberate and its results say nothing "
            "about the driver",
            name(o.barrier));
    }
    if (o.submit.every >= 2 * n) {
        verdict.lines.insert(verdict.lines.begin(),
                             fmt::format("--- note: --submit-every {} changes nothing at N = {}: multipass and single "
                                         "have {} dispatches, one submit each, as without it",
                                         o.submit.every, n, 2 * n));
    }
}

// blade-exact's params descriptor mismatch is undefined behaviour: when split, blade's
// plainest stream, is wrong too (or did not run), the profile cannot test this driver.
void explainBladeExact(const Runs& runs, bool underflowed, Verdict& verdict) {
    const auto splitWrong = std::find_if(runs.records.begin(), runs.records.end(), [](const RunRecord& r) {
        return r.mode() == Mode::Split && isWrong(r.result.kind);
    });
    if (verdict.exitStatus != kExitHang && (splitWrong != runs.records.end() || underflowed)) {
        verdict = Verdict{.exitStatus = kExitCannotTest,
                          .lines = {fmt::format(
                              "--- CANNOT TEST WITH --profile blade-exact: split, blade's plainest stream, is {} "
                              "too. blade's params is a Uniform block written through a STORAGE_BUFFER descriptor "
                              "(undefined behaviour), and this driver gives it no usable data; drop the profile, or "
                              "give --spirv modules that declare params as a storage block",
                              splitWrong != runs.records.end() ? std::string(name(splitWrong->result.kind))
                                                               : std::string("zero or denormal"))}};
    }
    // Without split there is nothing to tell blade's undefined behaviour from the driver's.
    const bool splitRan = std::any_of(runs.records.begin(), runs.records.end(),
                                      [](const RunRecord& r) { return r.mode() == Mode::Split; });
    if (verdict.exitStatus == kExitReproduced && !splitRan) {
        verdict =
            Verdict{.exitStatus = kExitCannotTest,
                    .lines = {"--- CANNOT TEST WITH --profile blade-exact here: a mode is wrong, but split did not run "
                              "to show whether blade's params descriptor (a Uniform block written through a "
                              "STORAGE_BUFFER descriptor, undefined behaviour) already breaks this driver; add "
                              "--mode all (or --reference split), or drop the profile"}};
    }
}

Verdict decide(const Length& length, const Runs& runs, const std::vector<ModeResult>& aggregates) {
    const Session& s = length.session;
    std::vector<ModeResult> judged = aggregates;
    // A hang in the reference-only split still decides the verdict.
    for (const RunRecord& r : runs.records) {
        if (r.plan.referenceOnly && r.result.kind == Classification::Hang) judged.push_back(r.result);
    }
    const bool underflowed = runs.judge && runs.judge->underflowed();
    const std::string referenceName = runs.judge && runs.judge->hasReference() ? runs.judge->label() : "";
    const uint64_t messages = s.options.validation ? s.instance.validationLog().count() : 0;
    const UnderflowEstimate underflow =
        referenceName.empty() ? underflowEstimate(s.options.shape, length.n) : UnderflowEstimate{};
    Verdict verdict = decideVerdict(judged, referenceName, underflowed, messages, underflow);
    if (s.rig.paramsDescriptorMismatch) explainBladeExact(runs, underflowed, verdict);
    explainNoOps(s.options, length.n, verdict);
    if (s.options.reference == ReferenceKind::None && underflow.possible) {
        verdict.lines.insert(verdict.lines.begin(),
                             fmt::format("--- warning: --reference none at N = {}: a correct device may give "
                                         "zeros here ({}); all-zero output is not judged",
                                         length.n, underflow.basis));
    }
    return verdict;
}

}  // namespace

LengthOutcome reportLength(const Length& length, const Runs& runs) {
    const Options& o = length.options();
    LengthOutcome out{.deviceGone = runs.deviceGone, .interrupted = runs.interrupted};
    for (const RunRecord& r : runs.records) out.dumpFailed = out.dumpFailed || r.dumpFailed;
    for (const Mode mode : o.modes) {
        ModeResult m = aggregate(runs, mode);
        if (m.runs > 1) {
            say("  {}: {}/{} runs wrong; results {} across runs", name(mode), m.wrongRuns, m.runs,
                m.identicalAcrossRuns ? "bit-identical" : "NOT bit-identical");
        }
        out.judged.push_back(std::move(m));
    }
    out.verdict = decide(length, runs, out.judged);
    out.referenceName = runs.judge ? runs.judge->label() : "none";
    for (const RunRecord& r : runs.records) out.modes.push_back(toModeReport(r, o, length.n));
    return out;
}

}  // namespace repro::run
