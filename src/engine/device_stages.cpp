// The device side of one run (engine/stages.hpp): calibration, the mode's settings and
// prediction, its submits, and the readback that checks each intermediate as it comes.
#include <cstdio>
#include <algorithm>
#include <cstdlib>

#include <future>
#include <span>
#include <string_view>

#include "core/clock.hpp"
#include "reference/cpu_reference.hpp"
#include "core/output.hpp"
#include "core/parallel.hpp"
#include "report/trace_events.hpp"
#include "engine/evidence.hpp"
#include "engine/stages.hpp"
#include "vk/check.hpp"
#include "vk/readback.hpp"
#include "vk/watch.hpp"

namespace repro::run {
namespace {

bool oneSubmitMode(Mode m) { return m != Mode::Split; }

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

StepChecks startStepChecks(const Length& length, const Runs& runs, const PlannedRun& planned) {
    const Session& s = length.session;
    // REPRO_STEP_CHECK=exact: every element's bound from its own T_j (a second cpuConvT pass
    // a step), so each conv-T line shows the bound itself beside the measured difference.
    const char* mode = std::getenv("REPRO_STEP_CHECK");
    const bool exact = mode && std::string_view(mode) == "exact";
    StepChecks checks{.dispatches = DispatchStepChecker(s.options.shape, s.sizes, makeWeight(s.sizes), 0, exact)};
    if (runs.judge && runs.judge->hasReference() && !planned.referenceOnly) {
        checks.judging.emplace(runs.judge->beginSteps(s.options.shape, s.sizes));
    }
    return checks;
}

// Reads `buffer` into `values` (its pages mapped beforehand where they can be).
std::optional<Failure> read(const Length& length, const vk::Buffer& buffer, HostFloats& values) {
    Rig& rig = length.session.rig;
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
std::optional<Failure> readSteps(const Length& length, ChainResult& into, bool keep, StepChecks& checks) {
    const vk::ChainBuffers& buffers = length.session.rig.buffers;
    HostFloats* previous = &into.small[0];
    std::optional<Failure> failure = read(length, buffers.small[0], *previous);
    for (uint32_t k = 1; k <= length.n && !failure; ++k) {
        HostFloats& big = into.big[keep ? k - 1 : 0];
        HostFloats& small = keep ? into.small[k] : (previous == &into.small[0] ? into.small[1] : into.small[0]);
        failure = read(length, buffers.big[k - 1], big);
        if (!failure) failure = read(length, buffers.small[k], small);
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

// Reads small[N] back, or with --check-steps every intermediate (readSteps) with its
// checks' summaries in `out`. Readback time and checking time add up apart.
void readBack(const Length& length, const Runs& runs, const PlannedRun& planned, ChainResult into, Submitted& out) {
    Session& s = length.session;
    trace_events::Span span("readback", "phase");
    const auto start = Clock::now();
    double checking = 0;
    if (!s.options.checkSteps) {
        out.failure = read(length, s.rig.buffers.small[length.n], into.small[length.n]);
    } else {
        StepChecks checks = startStepChecks(length, runs, planned);
        out.failure = readSteps(length, into, !runs.judge, checks);
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

}  // namespace

bool splitRunsAfter(const Options& o) {
    const bool splitAsked = std::find(o.modes.begin(), o.modes.end(), Mode::Split) != o.modes.end();
    return !splitAsked && (o.reference == ReferenceKind::Auto || o.reference == ReferenceKind::Split);
}

// Before a one-submit mode that runs ahead of split at this length, one step recorded as
// split measures what its dispatches take, so the mode's GPU time can be predicted: for
// --split-ms, and for the job-timeout warning and cause where the queue has a known
// timeout (elsewhere the split run after the modes gives the causes their predictions).
void calibrate(const Length& length) {
    Session& s = length.session;
    if (!s.evidence || s.evidence->splitTimes(length.n)) return;
    const std::vector<Mode>& modes = s.options.modes;
    if (modes.empty() || !oneSubmitMode(modes.front())) return;  // split runs first and measures
    const bool limit = s.evidence->watchdog().timeout.kind == TimeoutKind::Limit;
    if (!s.options.submit.splitMs && !limit) return;
    Rig& rig = s.rig;
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

namespace {

// The predicted GPU time of the mode's one submit, and the warning when it comes near the
// queue's job timeout (forensics/cause.hpp predictionWarning). Also what --split-ms cuts by.
std::vector<double> predict(const Length& length, Mode mode) {
    const Session& s = length.session;
    std::vector<double> perDispatch = s.evidence->predictedDispatchSeconds(length.n);
    const std::optional<SplitTimes> split = s.evidence->splitTimes(length.n);
    if (!split || s.options.submit.cuts()) return perDispatch;
    SplitTimes times = *split;
    for (size_t d = 0; d < times.dispatchGpuSeconds.size(); d += 2)
        times.dispatchGpuSeconds[d] *= s.options.dispatchRepeat;
    for (size_t d = 0; d < times.submitWaitSeconds.size(); d += 2)
        times.submitWaitSeconds[d] *= s.options.dispatchRepeat;
    const std::optional<Prediction> p = predictSubmit(times, 0, 2 * size_t{length.n});
    if (!p) return perDispatch;
    // -q: only the result lines and the verdict (a warning below still prints).
    if (!s.options.quiet) {
        say("  prediction: {} will keep the {} queue busy about {:.3f} s in one submit (from split's {})", name(mode),
            name(s.evidence->queueKind()), p->seconds, name(p->basis));
    }
    watch::predict(name(mode), p->seconds);
    const QueueTimeout& timeout = s.evidence->watchdog().timeout;
    if (auto w = predictionWarning(name(mode), *p, name(s.evidence->queueKind()), timeout)) say("--- warning: {}", *w);
    return perDispatch;
}

}  // namespace

std::string traceTitle(const Length& length, const PlannedRun& planned) {
    return fmt::format("mode {}, N={}, run {} of {}{}", name(planned.mode), length.n, planned.index,
                       planned.referenceOnly ? 1 : length.options().repeat,
                       planned.referenceOnly ? ", the reference" : "");
}

vk::ModeSettings prepareMode(const Length& length, const PlannedRun& planned, Runs& runs) {
    const Session& s = length.session;
    const Options& options = s.options;
    if (options.repeat > 1 && !options.sweep && !planned.referenceOnly) {
        const auto at = std::find(options.modes.begin(), options.modes.end(), planned.mode) - options.modes.begin();
        watch::row(static_cast<unsigned>(at) * options.repeat + planned.index,
                   static_cast<unsigned>(options.modes.size()) * options.repeat,
                   fmt::format("repeat: {} run {} of {}", name(planned.mode), planned.index, options.repeat));
    }
    if (s.evidence && oneSubmitMode(planned.mode)) runs.predicted = predict(length, planned.mode);
    const Options& o = s.options;
    return vk::ModeSettings{.steps = length.n,
                            .recording = {.barrier = o.barrier,
                                          .submit = o.submit,
                                          .dispatchRepeat = o.dispatchRepeat,
                                          .dropDispatch = o.dropDispatch},
                            .timeout = s.rig.waitTimeout(o),
                            .hostReadBarrier = s.rig.profile.hostReadBarrier,
                            .fillPattern = o.poison ? kPoisonPattern : 0u,
                            .predictedSeconds = runs.predicted};
}

Submitted submitAndReadBack(const Length& length, const vk::ModeSettings& settings, const PlannedRun& planned,
                            const Runs& runs) {
    Session& s = length.session;
    Rig& rig = s.rig;
    if (s.evidence) s.evidence->beforeMode();
    // Without a judge yet this run becomes the reference (split) or waits for it: it keeps
    // every intermediate; otherwise each is checked as it is read and dropped.
    const bool keep = s.options.checkSteps && !runs.judge;
    std::future<ChainResult> copies =
        hostCopiesInBackground(copySlots(rig.buffers, length.n, s.options.checkSteps, keep));
    Submitted out{.buffers = std::make_shared<ChainResult>()};
    out.run = vk::runMode(rig.resources, rig.encoder, rig.instrumentation, settings, planned.mode);
    s.timings.recording += out.run.recordSeconds;
    s.timings.gpuWait += out.run.waitSeconds;
    if (!out.run.completed) {
        out.failure = Failure{out.run.failure, out.run.failedSubmit, out.run.failedTimeout};
    } else {
        readBack(length, runs, planned, copies.get(), out);
    }
    if (s.evidence) out.log = s.evidence->afterMode();
    if (s.evidence && planned.mode == Mode::Split && out.run.completed) {
        s.evidence->recordSplit(length.n, splitTimesOf(out.run));
    }
    return out;
}

}  // namespace repro::run
