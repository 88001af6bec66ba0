// The run of one chain length: which modes run in which order, against which reference,
// how often, and what the results mean. Vulkan calls stay in src/vk.
#include "session.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/environment.hpp"
#include "core/interrupt.hpp"
#include "core/judge.hpp"
#include "core/rust_format.hpp"
#include "core/step_check.hpp"
#include "core/cpu_reference.hpp"
#include "core/text.hpp"
#include "core/underflow.hpp"
#include "evidence.hpp"
#include "core/verdict.hpp"
#include "core/output.hpp"
#include "core/parallel.hpp"
#include "vk/check.hpp"
#include "vk/readback.hpp"

namespace repro {
namespace {

// One run of one mode.
struct RunRecord {
    Mode mode = Mode::Split;
    uint32_t index = 1;          // 1..R
    bool referenceOnly = false;  // split run only to be the reference (not judged)
    ModeResult result;
    // final, plus intermediates with --check-steps; shared with the Judge when this run is
    // the reference
    std::shared_ptr<ChainResult> buffers = std::make_shared<ChainResult>();
    // --check-steps, summed up as the intermediates were read (the buffers are not kept
    // unless this run is, or waits for, the reference)
    std::optional<StepReport> steps;               // against the reference
    std::optional<StepCheckReport> dispatchCheck;  // each dispatch from the GPU's own input
    vk::GpuTimes gpu;                              // --timestamps
    vk::ModeRun run;                               // its submits, as the host saw them (for the cause)
    KernelLogEvidence log;                         // the kernel log during it
};

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

// A failed submit or readback: what ended it and where.
struct Failure {
    vk::SubmitOutcome outcome;
    std::string where;
    double timeout = 0;
};

std::string hangReason(const Failure& f) {
    if (f.outcome.status == vk::SubmitStatus::Timeout) {
        return fmt::format("hung: {} for {} did not signal within the {:.0f} s timeout ({})", f.outcome.call, f.where,
                           f.timeout, vk::resultName(f.outcome.result));
    }
    return fmt::format("lost the device: {} returned {} at {}", f.outcome.call, vk::resultName(f.outcome.result),
                       f.where);
}

// Writes `values` to DIR/<mode>.f32 (with --sweep DIR/<mode>-n<N>.f32, one file per chain
// length) as raw float32; false (and a line on stderr) on failure.
bool dumpFinal(const std::string& dir, Mode mode, std::optional<uint32_t> sweepLength, std::span<const float> values) {
    const auto path = std::filesystem::path(dir) / (sweepLength ? fmt::format("{}-n{}.f32", name(mode), *sweepLength)
                                                                : fmt::format("{}.f32", name(mode)));
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(values.size() * sizeof(float)));
    out.close();
    if (!out) {
        sayError("repro: --dump-dir: could not write {} ({})", quote(path.string()), std::strerror(errno));
        return false;
    }
    return true;
}

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = text.find('\n', start);
        out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

bool bitIdentical(std::span<const float> a, std::span<const float> b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](float x, float y) {
               return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y);
           });
}

ModeReport toModeReport(const RunRecord& r, const Options& o, uint32_t n) {
    ModeReport m{.result = r.result};
    m.role = r.referenceOnly ? "reference (run after the modes under test)"
             : o.repeat > 1  ? fmt::format("under test, run {}/{}", r.index, o.repeat)
                             : "under test";
    if (o.sweep) m.role += fmt::format(", N={}", n);
    for (const auto& d : r.gpu.dispatches) {
        if (d.finished) m.dispatchGpuSeconds.push_back(d.seconds);
    }
    m.submitGpuSeconds = r.gpu.submitSeconds;
    if (!r.gpu.submitSeconds.empty()) {
        double total = 0;
        for (double t : r.gpu.submitSeconds) total += t;
        m.modeGpuSeconds = total;
    }
    return m;
}

// Called with small[k-1], big[k-1] and small[k] of each step k as they are read back.
using StepVisitor =
    std::function<void(std::span<const float> input, std::span<const float> big, std::span<const float> small)>;

// What --check-steps computes from each step of one run as it is read back: the
// per-dispatch CPU check and, with a reference already there, the check against it.
struct StepChecks {
    DispatchStepChecker dispatches;
    std::optional<StepJudging> judging;

    void add(std::span<const float> input, std::span<const float> big, std::span<const float> small) {
        dispatches.add(input, big, small);
        if (judging) judging->add(big, small);
    }
    void finish(RunRecord& record) const {
        record.dispatchCheck = dispatches.report();
        if (judging) record.steps = judging->report();
    }
};

class LengthRun {
  public:
    LengthRun(Session& s, uint32_t n, bool progress) : s_(s), n_(n), progress_(progress) {}
    LengthOutcome run();

  private:
    void makeReference();
    void calibrate();
    void predict(Mode mode);
    void decideCauses();
    bool runOnce(Mode mode, uint32_t index, bool referenceOnly);
    std::optional<Failure> execute(RunRecord& record);
    std::optional<Failure> read(const vk::Buffer& buffer, HostFloats& values);
    std::optional<Failure> readSteps(ChainResult& into, bool keep, const StepVisitor& step);
    StepChecks startStepChecks(const RunRecord& record) const;
    void recordInterrupted(RunRecord& record, const Failure& f);
    void recordFailure(RunRecord& record, const Failure& f, const std::string& forensics);
    void judgeCompleted(RunRecord& record);
    void checkEachDispatchOnCpu(RunRecord& record);
    void judgePending();
    void classifyRecord(RunRecord& record) const;
    void printClassification(const RunRecord& record) const;
    void printStepReport(const RunRecord& record) const;
    void printGpuTimes(const RunRecord& record) const;
    void clearProgress() const;
    ModeResult aggregate(Mode mode) const;
    Verdict decide() const;

    Session& s_;
    uint32_t n_;
    bool progress_;
    std::optional<Judge> judge_;
    std::vector<RunRecord> records_;
    std::vector<size_t> pending_;  // records waiting for the reference
    bool deviceGone_ = false;
    bool interrupted_ = false;
    bool dumpFailed_ = false;
    std::string lastForensics_;
    std::vector<double> predicted_;                           // per chain dispatch, for --split-ms
    StepCheckState splitStepCheck_ = StepCheckState::NotRun;  // split's per-dispatch CPU check
    std::string splitStepCheckDetail_;
};

void LengthRun::makeReference() {
    if (s_.options.reference == ReferenceKind::None) judge_ = Judge::none();
    if (s_.options.reference != ReferenceKind::Cpu) return;
    const auto start = Clock::now();
    judge_ = Judge::cpu(s_.options.shape, n_);
    say("  reference: cpu (the chain in float64 on the host, derived float32 tolerance; {:.1f} s)",
        secondsSince(start));
}

void LengthRun::clearProgress() const {
    if (progress_) writeText(stderr, "\r\x1b[K");
}

// Before a one-submit mode that runs ahead of split at this length, one step recorded as
// split measures what its dispatches take, so the mode's GPU time can be predicted: for
// --split-ms, and for the job-timeout warning and cause where the queue has a known
// timeout (elsewhere the split run after the modes gives the causes their predictions).
void LengthRun::calibrate() {
    if (!s_.evidence || s_.evidence->splitTimes(n_)) return;
    const std::vector<Mode>& modes = s_.options.modes;
    if (modes.empty() || !oneSubmitMode(modes.front())) return;  // split runs first and measures
    const bool limit = s_.evidence->watchdog().timeout.kind == TimeoutKind::Limit;
    if (!s_.options.submit.splitMs && !limit) return;
    Rig& rig = s_.rig;
    const vk::ModeSettings settings{
        .steps = 1, .timeout = rig.waitTimeout(s_.options), .hostReadBarrier = rig.profile.hostReadBarrier};
    const vk::ModeRun run = vk::runMode(rig.resources, rig.encoder, rig.instrumentation, settings, Mode::Split);
    if (!run.completed) {
        say("  calibration: one step as split did not complete ({} at {}): no prediction",
            vk::resultName(run.failure.result), run.failedSubmit);
        return;
    }
    const SplitTimes one = splitTimesOf(run);
    s_.evidence->recordSplit(n_, repeatCalibration(one, n_));
    const bool timed = one.dispatchGpuSeconds.size() == 2;
    const auto& t = timed ? one.dispatchGpuSeconds : one.submitWaitSeconds;
    say("  calibration: one step as split (2 submits): conv-T {:.3f} ms, slice {:.3f} ms ({}), for the "
        "predictions below",
        t[0] * 1e3, t[1] * 1e3, timed ? "GPU time, timestamps" : "host waits, an upper bound of the GPU time");
}

// The predicted GPU time of the mode's one submit, and the warning when it comes near the
// queue's job timeout (core/cause.hpp predictionWarning). Also what --split-ms cuts by.
void LengthRun::predict(Mode mode) {
    predicted_ = s_.evidence->predictedDispatchSeconds(n_);
    const std::optional<SplitTimes> split = s_.evidence->splitTimes(n_);
    if (!split || s_.options.submit.cuts()) return;
    SplitTimes times = *split;
    for (size_t d = 0; d < times.dispatchGpuSeconds.size(); d += 2)
        times.dispatchGpuSeconds[d] *= s_.options.dispatchRepeat;
    for (size_t d = 0; d < times.submitWaitSeconds.size(); d += 2)
        times.submitWaitSeconds[d] *= s_.options.dispatchRepeat;
    const std::optional<Prediction> p = predictSubmit(times, 0, 2 * size_t{n_});
    if (!p) return;
    // -q: only the result lines and the verdict (a warning below still prints).
    if (!s_.options.quiet) {
        say("  prediction: {} will keep the {} queue busy about {:.3f} s in one submit (from split's {})", name(mode),
            name(s_.evidence->queueKind()), p->seconds, name(p->basis));
    }
    const QueueTimeout& timeout = s_.evidence->watchdog().timeout;
    if (auto w = predictionWarning(name(mode), *p, name(s_.evidence->queueKind()), timeout)) say("--- warning: {}", *w);
}

// After the length's runs: why each wrong or hung run of a mode went wrong, from the
// evidence (core/cause.hpp); a run the evidence says was cut short becomes `killed`.
void LengthRun::decideCauses() {
    if (!s_.evidence) return;
    bool earlierKill = false;
    for (RunRecord& r : records_) {
        const bool wrong = isWrong(r.result.kind) || r.result.kind == Classification::Hang;
        if (!wrong || r.referenceOnly || r.mode == Mode::Split) continue;
        CauseInput in =
            causeInputFor(r.result, r.run, s_.evidence->splitTimes(n_), s_.options.dispatchRepeat, *s_.evidence, r.log);
        in.bladeExact = s_.rig.profile.bladeExact();
        in.reference = s_.options.reference == ReferenceKind::Cpu    ? JudgedAgainst::Cpu
                       : s_.options.reference == ReferenceKind::None ? JudgedAgainst::None
                                                                     : JudgedAgainst::Split;
        in.splitStepCheck = splitStepCheck_;
        in.splitStepCheckDetail = splitStepCheckDetail_;
        in.earlierKill = earlierKill;
        const Cause c = decideCause(in);
        r.result.cause = c.verdict;
        r.result.causeKind = std::string(name(c.kind));
        r.result.causeJson = causeJson(c, in).dump();
        if (c.killed && isWrong(r.result.kind)) r.result.kind = Classification::Killed;
        earlierKill = earlierKill || c.killed;
        say("  mode={:<9} {}{}", name(r.mode), c.verdict,
            s_.options.repeat > 1 ? fmt::format(" [run {}/{}]", r.index, s_.options.repeat) : "");
        for (const auto& line : c.evidence) say("      evidence: {}", line);
        for (const auto& line : c.contradictions) say("      contradicts: {}", line);
        for (const auto& line : c.missing) say("      missing: {}", line);
    }
}

// Runs the mode and reads back small[N] (every intermediate with --check-steps).
std::optional<Failure> LengthRun::execute(RunRecord& record) {
    Rig& rig = s_.rig;
    const vk::WaitTimeout timeout = rig.waitTimeout(s_.options);
    const vk::ModeSettings settings{.steps = n_,
                                    .recording = {.barrier = s_.options.barrier,
                                                  .submit = s_.options.submit,
                                                  .dispatchRepeat = s_.options.dispatchRepeat,
                                                  .dropDispatch = s_.options.dropDispatch},
                                    .timeout = timeout,
                                    .hostReadBarrier = rig.profile.hostReadBarrier,
                                    .fillPattern = s_.options.poison ? kPoisonPattern : 0u,
                                    .predictedSeconds = predicted_};
    const bool steps = s_.options.checkSteps;
    // Without a judge yet this run becomes the reference (split) or waits for it: it keeps
    // every intermediate; otherwise each is checked as it is read and dropped.
    const bool keep = steps && !judge_;
    std::future<ChainResult> copies = hostCopiesInBackground(copySlots(rig.buffers, n_, steps, keep));
    record.run = vk::runMode(rig.resources, rig.encoder, rig.instrumentation, settings, record.mode);
    const vk::ModeRun& run = record.run;
    record.result.submits = run.submits;
    record.result.wallSeconds = run.wallSeconds;
    record.gpu = run.gpu;
    s_.timings.recording += run.recordSeconds;
    s_.timings.gpuWait += run.waitSeconds;
    lastForensics_ = run.forensics;
    if (!run.completed) return Failure{run.failure, run.failedSubmit, run.failedTimeout};
    const auto start = Clock::now();
    ChainResult into = copies.get();
    std::optional<Failure> failure;
    double checking = 0;
    if (!steps) {
        failure = read(rig.buffers.small[n_], into.small[n_]);
    } else {
        StepChecks checks = startStepChecks(record);
        failure = readSteps(
            into, keep, [&](std::span<const float> input, std::span<const float> big, std::span<const float> small) {
                const auto t0 = Clock::now();
                checks.add(input, big, small);
                checking += secondsSince(t0);
            });
        if (!failure) checks.finish(record);
    }
    *record.buffers = std::move(into);
    s_.timings.readback += secondsSince(start) - checking;
    s_.timings.verification += checking;
    return failure;
}

// Reads `buffer` into `values` (its pages mapped beforehand where they can be).
std::optional<Failure> LengthRun::read(const vk::Buffer& buffer, HostFloats& values) {
    const vk::WaitTimeout timeout = s_.rig.waitTimeout(s_.options);
    vk::Readback r = vk::readBuffer(s_.rig.resources, s_.rig.encoder, timeout, buffer, std::move(values));
    if (!r.ok) return Failure{r.failure, "reading back " + buffer.name, timeout.seconds(s_.options.shape, 0)};
    values = std::move(r.values);
    return std::nullopt;
}

// --check-steps' readback in chain order: small[0], then big[k-1] and small[k] for k = 1..N,
// `step(small[k-1], big[k-1], small[k])` after each k. With `keep`, `into` (copySlots' full
// layout) keeps every buffer; without, its three slots are reused and only small[N] is left,
// at index N.
std::optional<Failure> LengthRun::readSteps(ChainResult& into, bool keep, const StepVisitor& step) {
    const vk::ChainBuffers& buffers = s_.rig.buffers;
    HostFloats* previous = &into.small[0];
    std::optional<Failure> failure = read(buffers.small[0], *previous);
    for (uint32_t k = 1; k <= n_ && !failure; ++k) {
        HostFloats& big = into.big[keep ? k - 1 : 0];
        HostFloats& small = keep ? into.small[k] : (previous == &into.small[0] ? into.small[1] : into.small[0]);
        failure = read(buffers.big[k - 1], big);
        if (!failure) failure = read(buffers.small[k], small);
        if (failure) break;
        step(*previous, big, small);
        previous = &small;
    }
    if (failure || keep) return failure;
    HostFloats final = std::move(*previous);
    into = ChainResult{};
    into.small.resize(size_t{n_} + 1);
    into.small[n_] = std::move(final);
    return std::nullopt;
}

void LengthRun::recordInterrupted(RunRecord& record, const Failure& f) {
    interrupted_ = true;
    deviceGone_ = true;  // nothing more is submitted
    if (!f.outcome.drained) {
        // The queue did not finish within the bound: its objects may still be in use.
        s_.rig.device.abandon();
        s_.instance.abandon();
    }
    clearProgress();
    record.result.kind = Classification::NotRun;
    record.result.reason =
        fmt::format("interrupted by {} at {}; {}", interruptSignal() == SIGTERM ? "SIGTERM" : "SIGINT", f.where,
                    f.outcome.drained ? "the queue drained"
                                      : fmt::format("the queue did not drain within {:.0f} s", kInterruptDrainSeconds));
    say("  mode={:<9} interrupted", name(record.mode));
    say("{}", classificationLine(record.result));
}

void LengthRun::recordFailure(RunRecord& record, const Failure& f, const std::string& forensics) {
    deviceGone_ = true;
    if (f.outcome.status == vk::SubmitStatus::Timeout) {
        s_.rig.device.abandon();
        s_.instance.abandon();
    } else {
        s_.rig.device.markLost();
    }
    record.result.kind = Classification::Hang;
    record.result.reason = hangReason(f);
    clearProgress();
    say("  mode={:<9} HANG", name(record.mode));
    say("{}", classificationLine(record.result));
    if (!forensics.empty()) {
        record.result.reason += "; " + forensics;
        for (const auto& line : splitLines(forensics)) say("    {}", line);
    }
    const vk::DeviceInfo& info = s_.rig.device.info();
    for (const auto& note : hangEvidenceNotes(info.hasDriverProperties ? info.driver.driverName : "")) {
        say("    hang evidence: {}", note);
    }
}

void LengthRun::judgeCompleted(RunRecord& record) {
    const auto start = Clock::now();
    const HostFloats& final = record.buffers->final();
    record.result.stats = computeStats(final);
    const std::optional<uint32_t> sweepLength = s_.options.sweep ? std::optional<uint32_t>(n_) : std::nullopt;
    if (s_.options.dumpDir && !dumpFinal(*s_.options.dumpDir, record.mode, sweepLength, final)) dumpFailed_ = true;
    clearProgress();
    if (record.referenceOnly) say("  reference (split, run after the modes under test):");
    say("{}", modeLine(record.mode, *record.result.stats));
    if (record.mode == Mode::Split && !judge_) {
        // Split is the reference for the other modes (auto, split).
        const Classified c = classify(final, *record.result.stats, std::nullopt, "");
        record.result.kind = c.kind;
        record.result.reason =
            c.kind == Classification::Ok ? "finite and non-zero; the reference for the other modes" : c.reason;
        judge_ = Judge::fromRun(record.referenceOnly ? "split (run after the modes under test)" : "split",
                                record.buffers, *record.result.stats);
        printClassification(record);
    } else if (judge_) {
        classifyRecord(record);
        printClassification(record);
        printStepReport(record);
    } else {
        pending_.push_back(records_.size());
    }
    printGpuTimes(record);
    if (s_.options.checkSteps) checkEachDispatchOnCpu(record);
    s_.timings.verification += secondsSince(start);
}

// --check-steps: every dispatch checked on the CPU from the GPU's own input to it, against
// a one-step float32 bound that stays sharp at any chain length (core/step_check.hpp), and,
// with a reference there already, each dispatch's output against the reference's.
StepChecks LengthRun::startStepChecks(const RunRecord& record) const {
    // REPRO_STEP_CHECK=exact: every element's bound from its own T_j (a second cpuConvT pass
    // a step), so each conv-T line shows the bound itself beside the measured difference.
    const char* mode = std::getenv("REPRO_STEP_CHECK");
    const bool exact = mode && std::string_view(mode) == "exact";
    StepChecks checks{.dispatches = DispatchStepChecker(s_.options.shape, s_.sizes, makeWeight(s_.sizes), 0, exact)};
    if (judge_ && judge_->hasReference() && !record.referenceOnly) {
        checks.judging.emplace(judge_->beginSteps(s_.options.shape, s_.sizes));
    }
    return checks;
}

// The per-dispatch CPU check's lines, from the summary made during the readback. Split's
// outcome tells the cause whether the shaders compute right one dispatch at a time.
void LengthRun::checkEachDispatchOnCpu(RunRecord& record) {
    const StepCheckReport& report = *record.dispatchCheck;
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
    if (record.mode != Mode::Split) return;
    splitStepCheck_ = report.firstWrong ? StepCheckState::Failed : StepCheckState::Passed;
    splitStepCheckDetail_ = report.firstWrong ? report.dispatches[*report.firstWrong].line() : "";
}

// Runs `mode` once from fresh state. False when nothing more may run (hang, loss, a
// failed readback, an interrupt).
bool LengthRun::runOnce(Mode mode, uint32_t index, bool referenceOnly) {
    RunRecord record{.mode = mode, .index = index, .referenceOnly = referenceOnly};
    record.result.mode = mode;
    if (progress_) {
        writeText(stderr,
                  fmt::format("\r\x1b[Krepro: N={} mode {} run {}/{}", n_, name(mode), index, s_.options.repeat));
        std::fflush(stderr);
    }
    if (s_.evidence && oneSubmitMode(mode)) predict(mode);
    if (s_.evidence) s_.evidence->beforeMode();
    const std::optional<Failure> failure = execute(record);
    if (s_.evidence) record.log = s_.evidence->afterMode();
    if (s_.evidence && mode == Mode::Split && record.run.completed) {
        s_.evidence->recordSplit(n_, splitTimesOf(record.run));
    }
    if (failure && failure->outcome.status == vk::SubmitStatus::Interrupted) {
        recordInterrupted(record, *failure);
    } else if (failure) {
        recordFailure(record, *failure, lastForensics_);
    } else {
        judgeCompleted(record);
    }
    records_.push_back(std::move(record));
    if (s_.modeDone) s_.modeDone(toModeReport(records_.back(), s_.options, n_));
    return !failure;
}

void LengthRun::printGpuTimes(const RunRecord& record) const {
    if (record.gpu.submitSeconds.empty()) return;
    double convT = 0, slice = 0, submits = 0;
    size_t convTCount = 0, sliceCount = 0;
    // A conv-T recorded R times with --dispatch-repeat counts R times.
    for (const auto& d : record.gpu.dispatches) {
        if (!d.finished) continue;
        (d.convT ? convT : slice) += d.seconds;
        ++(d.convT ? convTCount : sliceCount);
    }
    for (double t : record.gpu.submitSeconds) submits += t;
    const size_t count = record.gpu.submitSeconds.size();
    say("    gpu: {:.3f} ms in {} submit{}; conv-T {:.3f} ms each, slice {:.3f} ms each (mean of {} and {}){}",
        submits * 1e3, count, count == 1 ? "" : "s", convTCount ? convT / double(convTCount) * 1e3 : 0.0,
        sliceCount ? slice / double(sliceCount) * 1e3 : 0.0, convTCount, sliceCount,
        s_.options.dropDispatch && record.mode != Mode::Split ? " (a dispatch was dropped)" : "");
}

void LengthRun::classifyRecord(RunRecord& record) const {
    const Classified c = judge_->classifyFinal(record.buffers->final(), *record.result.stats);
    record.result.kind = c.kind;
    record.result.reason = c.reason;
}

void LengthRun::printClassification(const RunRecord& record) const {
    std::string line = classificationLine(record.result);
    if (s_.options.repeat > 1 && !record.referenceOnly) {
        line += fmt::format(" [run {}/{}]", record.index, s_.options.repeat);
    }
    say("{}", line);
}

void LengthRun::printStepReport(const RunRecord& record) const {
    if (!s_.options.checkSteps || !judge_ || !judge_->hasReference() || record.referenceOnly) return;
    // Summed up during the readback, or now for a run that waited for the reference.
    const StepReport steps =
        record.steps ? *record.steps : judge_->checkSteps(s_.options.shape, s_.sizes, *record.buffers);
    if (steps.firstWrong) {
        const DispatchCheck& d = steps.dispatches[*steps.firstWrong];
        say("    check-steps against {}: first wrong dispatch {}: step {} {} is {}: {}", judge_->label(),
            d.dispatchNumber(), d.step, d.convT ? "conv-T" : "slice", name(d.verdict.kind), d.verdict.reason);
    } else {
        say("    check-steps against {}: every dispatch's output matches", judge_->label());
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

ModeResult LengthRun::aggregate(Mode mode) const {
    ModeResult total{.mode = mode};
    const RunRecord* first = nullptr;
    const RunRecord* firstWrong = nullptr;
    total.runs = 0;
    for (const RunRecord& r : records_) {
        // A run stopped by an interrupt did not run: only completed runs count.
        if (r.mode != mode || r.referenceOnly || r.result.kind == Classification::NotRun) continue;
        if (!first) first = &r;
        ++total.runs;
        total.submits += r.result.submits;
        total.wallSeconds += r.result.wallSeconds;
        if (isWrong(r.result.kind) || r.result.kind == Classification::Hang) {
            ++total.wrongRuns;
            if (!firstWrong) firstWrong = &r;
        }
        if (first != &r && r.result.stats && first->result.stats &&
            !bitIdentical(r.buffers->final(), first->buffers->final())) {
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

// The records that waited for a reference that came after them (split run last).
void LengthRun::judgePending() {
    for (const size_t i : pending_) {
        RunRecord& record = records_[i];
        if (judge_) {
            classifyRecord(record);
        } else {
            // The reference never came (the device was lost first): self-checks only.
            const Classified c = classify(record.buffers->final(), *record.result.stats, std::nullopt, "");
            record.result.kind = c.kind;
            record.result.reason = c.reason;
        }
        say("  mode={:<9} (classified against {})", name(record.mode),
            judge_ ? judge_->label() : std::string("nothing: the reference did not complete"));
        printClassification(record);
        printStepReport(record);
    }
}

namespace {

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

}  // namespace

Verdict LengthRun::decide() const {
    std::vector<ModeResult> judged;
    for (const Mode mode : s_.options.modes) judged.push_back(aggregate(mode));
    // A hang in the reference-only split still decides the verdict.
    for (const RunRecord& r : records_) {
        if (r.referenceOnly && r.result.kind == Classification::Hang) judged.push_back(r.result);
    }
    const bool underflowed = judge_ && judge_->underflowed();
    const std::string referenceName = judge_ && judge_->hasReference() ? judge_->label() : "";
    const uint64_t messages = s_.options.validation ? s_.instance.validationLog().count() : 0;
    const UnderflowEstimate underflow =
        referenceName.empty() ? underflowEstimate(s_.options.shape, n_) : UnderflowEstimate{};
    Verdict verdict = decideVerdict(judged, referenceName, underflowed, messages, underflow);
    // blade-exact's params descriptor mismatch is undefined behaviour: when split, blade's
    // plainest stream, is wrong too, the profile cannot test this driver.
    const auto splitWrong = std::find_if(records_.begin(), records_.end(), [](const RunRecord& r) {
        return r.mode == Mode::Split && isWrong(r.result.kind);
    });
    if (s_.rig.paramsDescriptorMismatch && verdict.exitStatus != kExitHang &&
        (splitWrong != records_.end() || underflowed)) {
        verdict = Verdict{.exitStatus = kExitCannotTest,
                          .lines = {fmt::format(
                              "--- CANNOT TEST WITH --profile blade-exact: split, blade's plainest stream, is {} "
                              "too. blade's params is a Uniform block written through a STORAGE_BUFFER descriptor "
                              "(undefined behaviour), and this driver gives it no usable data; drop the profile, or "
                              "give --spirv modules that declare params as a storage block",
                              splitWrong != records_.end() ? std::string(name(splitWrong->result.kind))
                                                           : std::string("zero or denormal"))}};
    }
    // Without split there is nothing to tell blade's undefined behaviour from the driver's.
    const bool splitRan =
        std::any_of(records_.begin(), records_.end(), [](const RunRecord& r) { return r.mode == Mode::Split; });
    if (s_.rig.paramsDescriptorMismatch && verdict.exitStatus == kExitReproduced && !splitRan) {
        verdict =
            Verdict{.exitStatus = kExitCannotTest,
                    .lines = {"--- CANNOT TEST WITH --profile blade-exact here: a mode is wrong, but split did not run "
                              "to show whether blade's params descriptor (a Uniform block written through a "
                              "STORAGE_BUFFER descriptor, undefined behaviour) already breaks this driver; add "
                              "--mode all (or --reference split), or drop the profile"}};
    }
    explainNoOps(s_.options, n_, verdict);
    if (s_.options.reference == ReferenceKind::None && underflow.possible) {
        verdict.lines.insert(verdict.lines.begin(),
                             fmt::format("--- warning: --reference none at N = {}: a correct device may give "
                                         "zeros here ({}); all-zero output is not judged",
                                         n_, underflow.basis));
    }
    return verdict;
}

LengthOutcome LengthRun::run() {
    makeReference();
    calibrate();
    const std::vector<Mode>& modes = s_.options.modes;
    const bool splitAsked = std::find(modes.begin(), modes.end(), Mode::Split) != modes.end();
    const bool splitAfter =
        !splitAsked && (s_.options.reference == ReferenceKind::Auto || s_.options.reference == ReferenceKind::Split);
    for (const Mode mode : modes) {
        for (uint32_t r = 1; r <= s_.options.repeat && !deviceGone_; ++r) runOnce(mode, r, false);
        const bool ran =
            std::any_of(records_.begin(), records_.end(), [&](const RunRecord& rec) { return rec.mode == mode; });
        if (deviceGone_ && !ran) {
            const ModeResult notRun{
                .mode = mode,
                .kind = Classification::NotRun,
                .reason = interrupted_ ? "interrupted before it started" : "an earlier mode lost the device"};
            say("  mode={:<9} not run", name(mode));
            say("{}", classificationLine(notRun));
        }
    }
    if (splitAfter && !deviceGone_) runOnce(Mode::Split, 1, true);
    judgePending();
    decideCauses();

    LengthOutcome out{.deviceGone = deviceGone_, .interrupted = interrupted_, .dumpFailed = dumpFailed_};
    for (const Mode mode : modes) {
        ModeResult m = aggregate(mode);
        if (m.runs > 1) {
            say("  {}: {}/{} runs wrong; results {} across runs", name(mode), m.wrongRuns, m.runs,
                m.identicalAcrossRuns ? "bit-identical" : "NOT bit-identical");
        }
        out.judged.push_back(std::move(m));
    }
    out.verdict = decide();
    out.referenceName = judge_ ? judge_->label() : "none";
    for (const RunRecord& r : records_) out.modes.push_back(toModeReport(r, s_.options, n_));
    return out;
}

}  // namespace

void printValidation(const Session& s) {
    if (!s.options.validation) return;
    const auto& log = s.instance.validationLog();
    say("validation: {} message{} ({} errors, {} warnings), synchronization validation on", log.count(),
        log.count() == 1 ? "" : "s", log.errors, log.warnings);
}

LengthOutcome runLength(Session& session, uint32_t n, bool progress) { return LengthRun(session, n, progress).run(); }

int interruptedStatus() {
    const int signal = interruptSignal();
    if (signal == 0) return 0;
    say("--- INTERRUPTED by {}: the results above are complete for the modes that finished; no verdict",
        signal == SIGTERM ? "SIGTERM" : "SIGINT");
    return 128 + signal;
}

int runChainLength(Session& s, RunReport& report) {
    say("--- results ---");
    const size_t first = report.modes.size();  // modeDone adds each run as it ends
    LengthOutcome out = runLength(s, s.options.chainLength, /*progress=*/false);
    printValidation(s);
    report.modes.resize(first);  // replaced by the final classifications
    report.modes.insert(report.modes.end(), out.modes.begin(), out.modes.end());
    report.referenceName = out.referenceName;
    report.verdict = out.verdict;
    if (const int status = interruptedStatus()) {
        report.verdict.lines = {"--- INTERRUPTED: no verdict"};
        return status;
    }
    for (const auto& line : out.verdict.lines) say("{}", line);
    // A dump that could not be written is a usage error unless a hang or a reproduction
    // says more; the results above are printed either way.
    if (out.dumpFailed && out.verdict.exitStatus != kExitHang && out.verdict.exitStatus != kExitReproduced) {
        return kExitUsage;
    }
    return out.verdict.exitStatus;
}

}  // namespace repro
