// The built-in chain's workload (see engine/chain_workload.hpp): its device side (calibration,
// the mode's settings, its submits, the readback that checks each intermediate as it comes)
// and its judgement (the chain's Judge, the per-dispatch check, the verdict's additions).
#include "engine/chain_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <span>
#include <string_view>

#include "core/clock.hpp"
#include "core/output.hpp"
#include "core/parallel.hpp"
#include "core/rust_format.hpp"
#include "core/text.hpp"
#include "engine/evidence.hpp"
#include "reference/cpu_reference.hpp"
#include "reference/underflow.hpp"
#include "report/trace_events.hpp"
#include "report/verdict.hpp"
#include "vk/check.hpp"
#include "vk/readback.hpp"
#include "vk/watch.hpp"

namespace repro {

using namespace run;

namespace {

// Host copies smaller than this in all are made on the caller: a thread costs more than
// their page faults (bytes).
constexpr size_t kBackgroundCopyBytes = 1 << 20;

// The host copies a readback fills, as element counts (0: an empty slot).
struct CopySlots {
    std::vector<size_t> small, big;
};

// The slots of a run's readback: small[N] alone without --check-steps; with it, every
// small[0..N] and big[0..N) when `keep`, else the three one step needs at a time (small[k-1],
// small[k] and big[k-1] in slots 0, 1 and 0), reused from step to step.
CopySlots copySlots(const vk::ChainBuffers& buffers, uint32_t n, bool checkSteps, bool keep) {
    const auto elements = [](const vk::Buffer& b) { return b.size / sizeof(float); };
    CopySlots slots;
    if (checkSteps && !keep) {
        slots.small = {elements(buffers.small[0]), elements(buffers.small[0])};
        slots.big = {n > 0 ? elements(buffers.big[0]) : 0};
        return slots;
    }
    slots.small.assign(size_t{n} + 1, 0);
    for (uint32_t i = checkSteps ? 0 : n; i <= n; ++i) slots.small[i] = elements(buffers.small[i]);
    for (uint32_t i = 0; checkSteps && i < n; ++i) slots.big.push_back(elements(buffers.big[i]));
    return slots;
}

// The host copies of `slots`, made on a background thread with their pages mapped
// (prefaultedHostFloats): started before a mode's submits, the page faults happen while the
// GPU runs instead of inside the read (bench/RESULTS.md). Empty slots stay empty. get()
// rethrows std::bad_alloc.
std::future<ChainResult> hostCopiesInBackground(CopySlots slots) {
    size_t bytes = 0;
    for (const size_t e : slots.small) bytes += e * sizeof(float);
    for (const size_t e : slots.big) bytes += e * sizeof(float);
    auto make = [slots = std::move(slots)] {
        ChainResult c;
        for (const size_t elements : slots.small)
            c.small.push_back(elements ? prefaultedHostFloats(elements) : HostFloats{});
        for (const size_t elements : slots.big)
            c.big.push_back(elements ? prefaultedHostFloats(elements) : HostFloats{});
        return c;
    };
    if (bytes < kBackgroundCopyBytes) return std::async(std::launch::deferred, std::move(make));
    return startInBackground(std::move(make));
}

// What --check-steps computes from each step of one run as it is read back: the
// per-dispatch CPU check and, with a reference already there, the check against it.
struct StepChecks {
    DispatchStepChecker dispatches;
    std::optional<StepJudging> judging;
    double seconds = 0;  // spent in add()

    void add(std::span<const float> input, std::span<const float> big, std::span<const float> small) {
        const auto start = Clock::now();
        dispatches.add(input, big, small);
        if (judging) judging->add(big, small);
        seconds += secondsSince(start);
    }
};

StepChecks startStepChecks(const Length& length, const std::optional<Judge>& judge, const ChainSizes& sizes,
                           const PlannedRun& planned) {
    const Session& s = length.session;
    // REPRO_STEP_CHECK=exact: every element's bound from its own T_j (a second cpuConvT pass
    // a step), so each conv-T line shows the bound itself beside the measured difference.
    const char* mode = std::getenv("REPRO_STEP_CHECK");
    const bool exact = mode && std::string_view(mode) == "exact";
    StepChecks checks{.dispatches = DispatchStepChecker(s.options.shape, sizes, makeWeight(sizes), 0, exact)};
    if (judge && judge->hasReference() && !planned.referenceOnly) {
        checks.judging.emplace(judge->beginSteps(s.options.shape, sizes));
    }
    return checks;
}

// Reads `buffer` into `values` (its pages mapped beforehand where they can be).
std::optional<Failure> read(const Length& length, Rig& rig, const vk::Buffer& buffer, HostFloats& values) {
    const vk::WaitTimeout timeout = rig.waitTimeout(length.options());
    vk::Readback r = vk::readBuffer(rig.resources, rig.encoder, timeout, buffer, std::move(values));
    if (!r.ok) return Failure{r.failure, "reading back " + buffer.name, timeout.seconds(length.options().shape, 0)};
    values = std::move(r.values);
    return std::nullopt;
}

// --check-steps' readback in chain order: small[0], then big[k-1] and small[k] for k = 1..N,
// each step checked as soon as its three buffers are there. With `keep`, `into` (copySlots'
// full layout) keeps every buffer; without, its three slots are reused and only small[N]
// is left, at index N.
std::optional<Failure> readSteps(const Length& length, Rig& rig, ChainResult& into, bool keep, StepChecks& checks) {
    const vk::ChainBuffers& buffers = rig.buffers;
    HostFloats* previous = &into.small[0];
    std::optional<Failure> failure = read(length, rig, buffers.small[0], *previous);
    for (uint32_t k = 1; k <= length.n && !failure; ++k) {
        HostFloats& big = into.big[keep ? k - 1 : 0];
        HostFloats& small = keep ? into.small[k] : (previous == &into.small[0] ? into.small[1] : into.small[0]);
        failure = read(length, rig, buffers.big[k - 1], big);
        if (!failure) failure = read(length, rig, buffers.small[k], small);
        if (failure) break;
        checks.add(*previous, big, small);
        previous = &small;
    }
    if (failure || keep) return failure;
    HostFloats final = std::move(*previous);
    into = ChainResult{};
    into.small.resize(size_t{length.n} + 1);
    into.small[length.n] = std::move(final);
    return std::nullopt;
}

// Writes `values` to DIR/<mode>.f32 (with --sweep DIR/<mode>-n<N>.f32, one file per chain
// length) as raw float32; false (and a line on stderr) on failure.
bool dumpFinal(const std::string& dir, Mode mode, std::optional<uint32_t> sweepLength, std::span<const float> values) {
    const auto path = std::filesystem::path(dir) / (sweepLength ? fmt::format("{}-n{}.f32", name(mode), *sweepLength)
                                                                : fmt::format("{}.f32", name(mode)));
    return writeDumpFile(path, values.data(), values.size() * sizeof(float));
}

// Against the judge, or with none (the reference never came: the device was lost first) by
// the self-checks alone.
void classifyAgainst(const std::optional<Judge>& judge, RunRecord& record) {
    const Classified c = judge ? judge->classifyFinal(record.final(), *record.result.stats)
                               : classify(record.final(), *record.result.stats, std::nullopt, "");
    record.result.kind = c.kind;
    record.result.reason = c.reason;
}

// --check-steps: every dispatch checked on the CPU from the GPU's own input to it, against
// a one-step float32 bound that stays sharp at any chain length (reference/step_check.hpp),
// summed up during the readback.
void printDispatchCheck(RunRecord& record) {
    const StepCheckReport& report = *record.submitted.dispatchCheck;
    if (report.firstWrong) {
        say("    per-dispatch CPU check (each dispatch from the GPU's own input): first wrong: {} ({:.1f} s)",
            report.dispatches[*report.firstWrong].line(), report.seconds);
    } else {
        say("    per-dispatch CPU check (each dispatch from the GPU's own input): every dispatch within its "
            "one-step bound ({:.1f} s)",
            report.seconds);
    }
    for (const DispatchStepCheck& d : report.dispatches) say("      {}", d.line());
    record.result.perDispatchCheckJson = perDispatchCheckJson(report).dump();
}

// The bound on the host's chain as a stand-in reference nobody asked for: multiply-adds
// of N conv-Ts (reference/cpu_reference.hpp convTermCount). The full-size chain at N = 7 is
// 4.1e10 and took 0.9 s on the H200's host (bench/RESULTS.md); 2e11 keeps the stand-in
// under about a minute on a slow host.
constexpr double kStandInCpuMaxTerms = 2e11;

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

// How the options record multipass and single (vk/stream_plan.hpp).
RecordingOptions recordingOptions(const Options& o) {
    return {
        .barrier = o.barrier, .submit = o.submit, .dispatchRepeat = o.dispatchRepeat, .dropDispatch = o.dropDispatch};
}

}  // namespace

Verdict ChainWorkload::decide(const Length& length, const Runs& runs, const std::vector<ModeResult>& aggregates) const {
    const Session& s = length.session;
    const bool underflowed = judge_ && judge_->underflowed();
    const std::string referenceName = judge_ && judge_->hasReference() ? judge_->label() : "";
    const uint64_t messages = s.options.validation ? s.instance.validationLog().count() : 0;
    const UnderflowEstimate underflow =
        referenceName.empty() ? underflowEstimate(s.options.shape, length.n) : UnderflowEstimate{};
    Verdict verdict = decideVerdict(aggregates, referenceName, underflowed, messages, underflow);
    if (rig_.paramsDescriptorMismatch) explainBladeExact(runs, underflowed, verdict);
    explainNoOps(s.options, length.n, verdict);
    if (s.options.reference == ReferenceKind::None && underflow.possible) {
        verdict.lines.insert(verdict.lines.begin(),
                             fmt::format("--- warning: --reference none at N = {}: a correct device may give "
                                         "zeros here ({}); all-zero output is not judged",
                                         length.n, underflow.basis));
    }
    return verdict;
}

void ChainWorkload::beginPoint(const Length& length) {
    const Options& o = length.options();
    judge_.reset();
    if (o.reference == ReferenceKind::None) judge_ = Judge::none();
    if (o.reference == ReferenceKind::Cpu) {
        const auto start = Clock::now();
        judge_ = Judge::cpu(o.shape, length.n);
        const double seconds = secondsSince(start);
        length.session.timings.reference += seconds;  // the report's timings.reference, as a file's
        say("  reference: cpu (the chain in float64 on the host, derived float32 tolerance; {:.1f} s)", seconds);
    }
    calibrate(length);
}

// Before a one-submit mode that runs ahead of split at this length, one step recorded as
// split measures what its dispatches take, so the mode's GPU time can be predicted: for
// --split-ms, and for the job-timeout warning and cause where the queue has a known
// timeout (elsewhere the split run after the modes gives the causes their predictions).
void ChainWorkload::calibrate(const Length& length) {
    Session& s = length.session;
    if (!needsCalibration(length)) return;
    Rig& rig = rig_;
    const vk::ModeSettings settings{.steps = 1,
                                    .timeout = rig.waitTimeout(s.options),
                                    .hostReadBarrier = rig.profile.hostReadBarrier,
                                    .traceTitle = "calibration: one step as split"};
    trace_events::Span span(settings.traceTitle, "mode");
    const vk::ModeRun run = vk::runMode(rig.resources, rig.encoder, rig.instrumentation, settings, Mode::Split);
    if (!run.completed) {
        say("  calibration: one step as split did not complete ({} at {}): no prediction",
            vk::resultName(run.failure.result), run.failedSubmit);
        return;
    }
    const SplitTimes one = splitTimesOf(run);
    s.evidence->recordSplit(length.n, repeatCalibration(one, length.n));
    const bool timed = one.dispatchGpuSeconds.size() == 2;
    const auto& t = timed ? one.dispatchGpuSeconds : one.submitWaitSeconds;
    say("  calibration: one step as split (2 submits): conv-T {:.3f} ms, slice {:.3f} ms ({}), for the "
        "predictions below",
        t[0] * 1e3, t[1] * 1e3, timed ? "GPU time, timestamps" : "host waits, an upper bound of the GPU time");
}

vk::ModeSettings ChainWorkload::settings(const Length& length, const Runs& runs) const {
    const Options& o = length.options();
    return vk::ModeSettings{.steps = length.n,
                            .recording = recordingOptions(o),
                            .timeout = rig_.waitTimeout(o),
                            .hostReadBarrier = rig_.profile.hostReadBarrier,
                            .fillPattern = o.poison ? kPoisonPattern : 0u,
                            .predictedSeconds = runs.predicted};
}

Submitted ChainWorkload::submit(const Length& length, const PlannedRun& planned, Runs& runs) {
    Session& s = length.session;
    Rig& rig = rig_;
    prepareRun(length, planned, runs, workItems(length), s.options.dispatchRepeat);
    vk::ModeSettings settings = this->settings(length, runs);
    settings.traceTitle = traceTitle(length, planned);
    if (s.evidence) s.evidence->beforeMode();
    // Without a judge yet this run becomes the reference (split) or waits for it: it keeps
    // every intermediate; otherwise each is checked as it is read and dropped.
    const bool keep = s.options.checkSteps && !judge_;
    std::future<ChainResult> copies =
        hostCopiesInBackground(copySlots(rig.buffers, length.n, s.options.checkSteps, keep));
    Submitted out{.buffers = std::make_shared<ChainResult>()};
    out.run = vk::runMode(rig.resources, rig.encoder, rig.instrumentation, settings, planned.mode);
    if (out.run.completed) readBack(length, planned, copies.get(), out);
    finishSubmit(length, rig.encoder, planned.mode, out);
    if (out.run.completed && s.options.repeat > 1) {
        const HostFloats& last = out.buffers->final();
        out.digest = digestBytes(last.data(), last.size() * sizeof(float));
    }
    return out;
}

// Reads small[N] back, or with --check-steps every intermediate (readSteps) with its
// checks' summaries in `out`. Readback time and checking time add up apart.
void ChainWorkload::readBack(const Length& length, const PlannedRun& planned, ChainResult into, Submitted& out) const {
    Session& s = length.session;
    trace_events::Span span("readback", "phase");
    const auto start = Clock::now();
    double checking = 0;
    if (!s.options.checkSteps) {
        out.failure = read(length, rig_, rig_.buffers.small[length.n], into.small[length.n]);
    } else {
        StepChecks checks = startStepChecks(length, judge_, sizes_, planned);
        out.failure = readSteps(length, rig_, into, !judge_, checks);
        checking = checks.seconds;
        if (!out.failure) {
            out.dispatchCheck = checks.dispatches.report();
            if (checks.judging) out.steps = checks.judging->report();
        }
    }
    *out.buffers = std::move(into);
    span.args() = {{"buffers", s.options.checkSteps ? "every intermediate (--check-steps), each checked as read"
                                                    : fmt::format("small[{}]", length.n)},
                   {"checking_s", checking}};
    s.timings.readback += secondsSince(start) - checking;
    s.timings.verification += checking;
}

// --check-steps against the reference: the first wrong dispatch and one line per dispatch.
void ChainWorkload::printStepReport(const Length& length, const RunRecord& record) const {
    const Session& s = length.session;
    const std::optional<Judge>& judge = judge_;
    if (!s.options.checkSteps || !judge || !judge->hasReference() || record.plan.referenceOnly) return;
    // Summed up during the readback, or now for a run that waited for the reference.
    const StepReport steps = record.submitted.steps
                                 ? *record.submitted.steps
                                 : judge->checkSteps(s.options.shape, sizes_, *record.submitted.buffers);
    if (steps.firstWrong) {
        const DispatchCheck& d = steps.dispatches[*steps.firstWrong];
        say("    check-steps against {}: first wrong dispatch {}: step {} {} is {}: {}", judge->label(),
            d.dispatchNumber(), d.step, d.convT ? "conv-T" : "slice", name(d.verdict.kind), d.verdict.reason);
    } else {
        say("    check-steps against {}: every dispatch's output matches", judge->label());
    }
    for (const DispatchCheck& d : steps.dispatches) {
        const float percent = d.stats.elements == 0
                                  ? 0.0f
                                  : 100.0f * static_cast<float>(d.stats.nonZero) / static_cast<float>(d.stats.elements);
        say("      dispatch {:>3} step {:>3} {:<6} nz={}/{} ({}%) sum={} max_abs={} -> {}", d.dispatchNumber(), d.step,
            d.convT ? "conv-T" : "slice", d.stats.nonZero, d.stats.elements, rustFixed(percent, 1),
            rustExp(d.stats.sum), rustExp(d.stats.maxAbs), name(d.verdict.kind));
    }
}

// split, the reference, was killed by the job timeout: its output says nothing about the
// other modes. They are judged against the CPU reference instead, or, where that was not
// asked for and would be long, or --reference split was explicit, by the self-checks
// alone, saying why. What split measured is forgotten: a kill, not its work.
void ChainWorkload::replaceKilledReference(const Length& length) {
    const Options& o = length.options();
    if (length.session.evidence) length.session.evidence->forgetSplit(length.n);
    const double terms = double(convTermCount(o.shape)) * length.n;
    std::string why;
    if (o.reference == ReferenceKind::Split) {
        why = "--reference split asked for split alone";
    } else if (terms > kStandInCpuMaxTerms) {
        why = fmt::format(
            "the CPU reference would take {:.1e} multiply-adds, past the {:.0e} repro spends on a "
            "reference nobody asked for (--reference cpu computes it)",
            terms, kStandInCpuMaxTerms);
    }
    if (!why.empty()) {
        say("  reference: none: split, killed by the kernel's job timeout, cannot be the reference, and {}; the "
            "other modes get the zero and non-finite checks only",
            why);
        judge_ = Judge::none();
        return;
    }
    const auto start = Clock::now();
    judge_ = Judge::cpu(o.shape, length.n);
    say("  reference: cpu in place of split, which the kernel's job timeout killed (the chain in float64 on the "
        "host, derived float32 tolerance; {:.1f} s)",
        secondsSince(start));
}

// Split without a reference yet becomes it (auto, split): checked for zero and non-finite.
// When it fails them, its cause is decided at once: a split the job timeout killed is no
// reference (replaceKilledReference).
void ChainWorkload::becomeTheReference(const Length& length, Runs& runs, RunRecord& record) {
    const Classified c = classify(record.final(), *record.result.stats, std::nullopt, "");
    record.result.kind = c.kind;
    record.result.reason =
        c.kind == Classification::Ok ? "finite and non-zero; the reference for the other modes" : c.reason;
    const std::optional<Cause> cause =
        c.kind == Classification::Ok ? std::nullopt : decideSplitCause(length, runs, record);
    if (cause && record.result.kind == Classification::Killed) {
        record.result.reason += "; its submit was cut short by the kernel's job timeout, so it is no reference";
        printClassification(length, record);
        printCause(length, record, *cause);
        replaceKilledReference(length);
        return;
    }
    judge_ = Judge::fromRun(record.plan.referenceOnly ? "split (run after the modes under test)" : "split",
                            record.submitted.buffers, *record.result.stats);
    printClassification(length, record);
    if (cause) printCause(length, record, *cause);
}

void ChainWorkload::judgeCompleted(const Length& length, Runs& runs, RunRecord& record) {
    Session& s = length.session;
    record.result.stats = computeStats(record.final());
    const std::optional<uint32_t> sweepLength = s.options.sweep ? std::optional<uint32_t>(length.n) : std::nullopt;
    if (s.options.dumpDir && !dumpFinal(*s.options.dumpDir, record.mode(), sweepLength, record.final())) {
        record.dumpFailed = true;
    }
    if (record.plan.referenceOnly) say("  reference (split, run after the modes under test):");
    say("{}", modeLine(record.mode(), *record.result.stats));
    if (record.mode() == Mode::Split && !judge_) {
        becomeTheReference(length, runs, record);
    } else if (judge_) {
        classifyAgainst(judge_, record);
        printClassification(length, record);
        printStepReport(length, record);
    } else {
        record.waitsForReference = true;
    }
    printGpuTimes(length, record, /*chainKinds=*/true);
    if (s.options.checkSteps) printDispatchCheck(record);
}

void ChainWorkload::judgeWaiting(const Length& length, RunRecord& record) {
    classifyAgainst(judge_, record);
    say("  mode={:<9} (classified against {})", name(record.mode()),
        judge_ ? judge_->label() : std::string("nothing: the reference did not complete"));
    printClassification(length, record);
    printStepReport(length, record);
}

void ChainWorkload::addCauseFacts(const Length& length, const Runs& runs, const RunRecord& r, CauseInput& in) const {
    const Options& o = length.options();
    const bool split = r.mode() == Mode::Split;
    in.bladeExact = rig_.profile.bladeExact();
    in.reference = o.reference == ReferenceKind::Cpu    ? JudgedAgainst::Cpu
                   : o.reference == ReferenceKind::None ? JudgedAgainst::None
                   : split                              ? JudgedAgainst::None
                                                        : JudgedAgainst::Split;
    const auto [splitState, splitDetail] = splitStepCheck(runs);
    in.splitStepCheck = splitState;
    in.splitStepCheckDetail = splitDetail;
    if (!split) in.droppedDispatch = o.dropDispatch;  // split stays blade's stream
}

void ChainWorkload::recordForStream(const Length& length, Mode mode) {
    vk::runMode(rig_.resources, rig_.encoder, rig_.instrumentation, settings(length, Runs{}), mode);
    recordCanaryForStream(rig_.encoder, mode);
}

std::string ChainWorkload::streamTitle(const Length& length, Mode mode) const {
    const bool blade = mode == Mode::Split || isBladeStream(recordingOptions(length.options()));
    return fmt::format(
        "mode {}, N={}: {}", name(mode), length.n,
        blade ? "blade's stream (src/vk/blade_modes.cpp)" : "the experiment recorder's plan (src/vk/stream_plan.cpp)");
}

std::string ChainWorkload::streamNote() const {
    return "each mode starts with repro's clearing submit (it fills every buffer the chain writes, and the host waits "
           "for it), then the mode's own stream, then repro's canary (an empty command buffer, submitted and waited "
           "on: a "
           "lost device the driver reports only at the next submit shows there); # G and # C mark blade's two barriers";
}

}  // namespace repro
