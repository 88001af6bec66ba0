// The stages every form of plan shares (engine/stages.hpp): the run's preparation and
// prediction, and its judgement when a submit failed, hung or was interrupted.
#include "engine/stages.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <numeric>
#include <ranges>

#include "core/clock.hpp"
#include "core/interrupt.hpp"
#include "core/output.hpp"
#include "core/text.hpp"
#include "engine/evidence.hpp"
#include "engine/text_report.hpp"
#include "engine/workload.hpp"
#include "forensics/environment.hpp"
#include "report/verdict.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/instance.hpp"
#include "vk/instrumentation.hpp"
#include "vk/watch.hpp"
#include "report/trace_events.hpp"

namespace repro::run {

std::string traceTitle(const Length& length, const PlannedRun& planned) {
    const std::string where = length.session.plan.builtIn() ? fmt::format("N={}", length.n) : length.point.label;
    return fmt::format("mode {}{}{}, run {} of {}{}", name(planned.mode), where.empty() ? "" : ", ", where,
                       planned.index, planned.referenceOnly ? 1 : length.options().repeat,
                       planned.referenceOnly ? ", the reference" : "");
}

namespace {

// The predicted GPU time of the mode's one submit, and the warning when it comes near the
// queue's job timeout (forensics/cause.hpp predictionWarning). Also what --split-ms cuts by.
std::vector<double> predict(const Length& length, Mode mode, size_t items, uint32_t scale) {
    const Session& s = length.session;
    const uint32_t key = length.evidenceKey();
    std::vector<double> perItem = s.evidence->predictedDispatchSeconds(key, items);
    const std::optional<SplitTimes> split = s.evidence->splitTimes(key);
    if (!split || s.options.submit.cuts()) return perItem;
    const std::optional<Prediction> p = predictSubmit(scaled(*split, scale), 0, items);
    if (!p) return perItem;
    // -q: only the result lines and the verdict (a warning below still prints).
    if (!s.options.quiet) {
        say("  prediction: {} will keep the {} queue busy about {:.3f} s in one submit (from split's {})", name(mode),
            name(s.evidence->queueKind()), p->seconds, name(p->basis));
    }
    watch::predict(name(mode), p->seconds);
    const QueueTimeout& timeout = s.evidence->watchdog().timeout;
    if (auto w = predictionWarning(name(mode), *p, name(s.evidence->queueKind()), timeout)) say("--- warning: {}", *w);
    return perItem;
}

}  // namespace

void prepareRun(const Length& length, const PlannedRun& planned, Runs& runs, size_t workItems, uint32_t scale) {
    const Session& s = length.session;
    const Options& options = s.options;
    if (options.repeat > 1 && s.plan.points(options).size() == 1 && !planned.referenceOnly) {
        const auto at = std::find(options.modes.begin(), options.modes.end(), planned.mode) - options.modes.begin();
        watch::row(static_cast<unsigned>(at) * options.repeat + planned.index,
                   static_cast<unsigned>(options.modes.size()) * options.repeat,
                   fmt::format("repeat: {} run {} of {}", name(planned.mode), planned.index, options.repeat));
    }
    if (s.evidence && planned.mode != Mode::Split) runs.predicted = predict(length, planned.mode, workItems, scale);
}

namespace {

std::string hangReason(const Failure& f) {
    if (f.outcome.status == vk::SubmitStatus::Timeout) {
        return fmt::format("hung: {} for {} did not signal within the {:.0f} s timeout ({})", f.outcome.call, f.where,
                           f.timeout, vk::resultName(f.outcome.result));
    }
    return fmt::format("lost the device: {} returned {} at {}", f.outcome.call, vk::resultName(f.outcome.result),
                       f.where);
}

// An interrupt stopped the run: nothing more is submitted.
void recordInterrupted(const Length& length, Runs& runs, RunRecord& record, const Failure& f) {
    runs.interrupted = true;
    runs.deviceGone = true;
    if (!f.outcome.drained) {
        // The queue did not finish within the bound: its objects may still be in use.
        length.session.device.abandon();
        length.session.instance.abandon();
    }
    record.result.kind = Classification::NotRun;
    record.result.reason =
        fmt::format("interrupted by {} at {}; {}", interruptName(), f.where,
                    f.outcome.drained ? "the queue drained"
                                      : fmt::format("the queue did not drain within {:.0f} s", kInterruptDrainSeconds));
    say("  mode={:<9} interrupted", name(record.mode()));
    say("{}", classificationLine(record.result));
}

// A hang or a lost device: the device is given up and the run is a hang, with what the
// forensics and the driver can say. After a wait that timed out the device and the instance
// are abandoned, never destroyed: the GPU may still run the submit.
void recordFailure(const Length& length, Runs& runs, RunRecord& record, const Failure& f) {
    Session& s = length.session;
    runs.deviceGone = true;
    if (f.outcome.status == vk::SubmitStatus::Timeout) {
        s.device.abandon();
        s.instance.abandon();
    }
    record.result.kind = Classification::Hang;
    record.result.reason = hangReason(f);
    say("  mode={:<9} HANG", name(record.mode()));
    say("{}", classificationLine(record.result));
    std::string& forensics = record.submitted.run.forensics;
    if (f.outcome.status == vk::SubmitStatus::DeviceLost) {
        // Where the device has VK_EXT_device_fault (enabled wherever supported): what it says.
        const std::string fault = vk::deviceFaultReport(s.device);
        if (!fault.empty()) forensics += (forensics.empty() ? "" : "\n") + fault;
    }
    if (!forensics.empty()) {
        record.result.reason += "; " + forensics;
        for (const auto line : std::views::split(forensics, '\n'))
            sayWrapped("    " + std::string(line.begin(), line.end()));
    }
    // -v printed these notes in the header already: said once.
    const vk::DeviceInfo& info = s.device.info();
    if (s.options.verbose) return;
    for (const auto& note : hangEvidenceNotes(info.hasDriverProperties ? info.driver.driverName : "")) {
        sayWrapped("    hang evidence: " + note);
    }
}

}  // namespace

void checkCanary(vk::Encoder& encoder, Mode mode, double timeoutSeconds, Submitted& out) {
    if (out.failure) return;  // a submit or the readback failed already and said so itself
    trace_events::Span span("canary submit (repro's, not blade's)", "phase");
    watch::detail(fmt::format("mode {}: repro's canary submit", name(mode)));
    const vk::SubmitOutcome c = vk::submitCanary(encoder, name(mode), "repro's canary", timeoutSeconds);
    out.run.canary = c;
    out.run.waitSeconds += c.waitSeconds;
    if (c.status == vk::SubmitStatus::Completed) return;
    const std::string where = "repro's canary after the mode";
    out.run.completed = false;
    out.run.failure = c;
    out.run.failedSubmit = where;
    out.run.failedTimeout = timeoutSeconds;
    out.failure = Failure{c, where, timeoutSeconds};
}

void finishSubmit(const Length& length, vk::Encoder& encoder, Mode mode, Submitted& out) {
    Session& s = length.session;
    s.timings.recording += out.run.recordSeconds;
    s.timings.gpuWait += out.run.waitSeconds;
    if (!out.run.completed && !out.failure)
        out.failure = Failure{out.run.failure, out.run.failedSubmit, out.run.failedTimeout};
    checkCanary(encoder, mode, s.options.timeoutSeconds.value_or(kCanarySeconds), out);
    if (s.evidence) out.log = s.evidence->afterMode();
    if (s.evidence && mode == Mode::Split && out.run.completed)
        s.evidence->recordSplit(length.evidenceKey(), splitTimesOf(out.run));
}

bool needsCalibration(const Length& length) {
    const Session& s = length.session;
    if (!s.evidence || s.evidence->splitTimes(length.evidenceKey())) return false;
    const std::vector<Mode>& modes = s.options.modes;
    if (modes.empty() || modes.front() == Mode::Split) return false;  // split runs first and measures
    const bool limit = s.evidence->watchdog().timeout.kind == TimeoutKind::Limit;
    return s.options.submit.splitMs || limit;
}

bool writeDumpFile(const std::filesystem::path& path, const void* data, size_t size) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) {
        sayError("repro: --dump-dir: could not write {} ({})", quote(path.string()), std::strerror(errno));
        return false;
    }
    return true;
}

void recordCanaryForStream(vk::Encoder& encoder, Mode mode) {
    (void)vk::submitCanary(encoder, name(mode), "repro's canary", kCanarySeconds);
}

void printClassification(const Length& length, const RunRecord& record) {
    std::string line = classificationLine(record.result);
    if (length.options().repeat > 1 && !record.plan.referenceOnly) {
        line += fmt::format(" [run {}/{}]", record.plan.index, length.options().repeat);
    }
    say("{}", line);
}

void printGpuTimes(const Length& length, const RunRecord& record, bool chainKinds) {
    const vk::GpuTimes& gpu = record.submitted.run.gpu;
    if (gpu.submitSeconds.empty()) return;
    const double submits = std::accumulate(gpu.submitSeconds.begin(), gpu.submitSeconds.end(), 0.0);
    const size_t count = gpu.submitSeconds.size();
    const std::string dropped =
        length.options().dropDispatch && record.mode() != Mode::Split ? " (a dispatch was dropped)" : "";
    if (!chainKinds) {
        double work = 0;
        size_t items = 0;
        for (const auto& d : gpu.dispatches) {
            if (d.finished) work += d.seconds, ++items;
        }
        // a file with queues times its batches only (no timestamps around each work step)
        const std::string steps =
            items == 0 ? std::string()
                       : fmt::format("; {:.3f} ms in its {} work step{}", work * 1e3, items, items == 1 ? "" : "s");
        say("    gpu: {:.3f} ms in {} submit{}{}{}", submits * 1e3, count, count == 1 ? "" : "s", steps, dropped);
        return;
    }
    double convT = 0, slice = 0;
    size_t convTCount = 0, sliceCount = 0;
    // A conv-T recorded R times with --dispatch-repeat counts R times.
    for (const auto& d : gpu.dispatches) {
        if (!d.finished) continue;
        (d.convT ? convT : slice) += d.seconds;
        ++(d.convT ? convTCount : sliceCount);
    }
    say("    gpu: {:.3f} ms in {} submit{}; conv-T {:.3f} ms each, slice {:.3f} ms each (mean of {} and {}){}",
        submits * 1e3, count, count == 1 ? "" : "s", convTCount ? convT / double(convTCount) * 1e3 : 0.0,
        sliceCount ? slice / double(sliceCount) * 1e3 : 0.0, convTCount, sliceCount, dropped);
}

namespace {

bool wrongOrHung(const RunRecord& r) { return isWrong(r.result.kind) || r.result.kind == Classification::Hang; }

// The mode's first listed run under test (run 1), if any.
const RunRecord* firstRunOf(const Runs& runs, Mode mode) {
    const auto it = std::find_if(runs.records.begin(), runs.records.end(),
                                 [&](const RunRecord& r) { return r.mode() == mode && !r.plan.referenceOnly; });
    return it == runs.records.end() ? nullptr : &*it;
}

}  // namespace

bool listed(const Runs& runs, const RunRecord& record) {
    if (record.plan.index <= kListedRuns || record.plan.referenceOnly) return true;
    const RunRecord* first = firstRunOf(runs, record.mode());
    // Waiting for the reference, not classified yet: folded only when its bytes are run 1's,
    // judged as run 1 is. One the CPU model judged already (a file's) folds by its own result.
    if (record.waitsForReference && record.result.kind == Classification::NotRun)
        return !first || first->submitted.digest != record.submitted.digest;
    if (record.result.kind == Classification::NotRun) return true;  // interrupted
    if (!wrongOrHung(record)) return false;
    return std::none_of(runs.records.begin(), runs.records.end() - 1, [&](const RunRecord& r) {
        return r.mode() == record.mode() && !r.plan.referenceOnly && wrongOrHung(r);
    });
}

void foldLastRun(const Length& length, Runs& runs) {
    const RunRecord& r = runs.records.back();
    FoldedRuns& f = runs.folded[r.mode()];
    if (f.runs == 0) f = {.mode = r.mode(), .point = length.point.label, .firstRun = r.plan.index};
    ++f.runs;
    const RunRecord* first = firstRunOf(runs, r.mode());
    if (r.waitsForReference && r.result.kind == Classification::NotRun) {
        ++runs.likeFirst[r.mode()];  // wrong when run 1 turns out wrong (finishFolded)
        say("    -> bit-identical to run 1: classified with it once the reference has run [run {}/{}]", r.plan.index,
            length.options().repeat);
    } else if (wrongOrHung(r)) {
        ++f.wrongRuns;
    }
    if (first && first != &r && first->submitted.digest != r.submitted.digest) f.identical = false;
    runs.records.pop_back();
}

void finishFolded(Runs& runs) {
    for (auto& [mode, count] : runs.likeFirst) {
        const RunRecord* first = firstRunOf(runs, mode);
        if (first && wrongOrHung(*first)) runs.folded[mode].wrongRuns += count;
    }
    runs.likeFirst.clear();
}

const RunRecord& judgeRun(const Length& length, Runs& runs, const PlannedRun& planned, Submitted submitted) {
    RunRecord record{.plan = planned, .result = {.mode = planned.mode}, .submitted = std::move(submitted)};
    record.result.submits = record.submitted.run.submits;
    record.result.wallSeconds = record.submitted.run.wallSeconds;
    const std::optional<Failure>& failure = record.submitted.failure;
    if (failure && failure->outcome.status == vk::SubmitStatus::Interrupted) {
        recordInterrupted(length, runs, record, *failure);
    } else if (failure) {
        recordFailure(length, runs, record, *failure);
    } else {
        const auto start = Clock::now();
        length.session.workload.judgeCompleted(length, runs, record);
        length.session.timings.verification += secondsSince(start);
    }
    runs.records.push_back(std::move(record));
    return runs.records.back();
}

ModeResult reportNotRun(Mode mode, std::string reason) {
    const ModeResult notRun{.mode = mode, .kind = Classification::NotRun, .reason = std::move(reason)};
    say("  mode={:<9} not run", name(mode));
    say("{}", classificationLine(notRun));
    return notRun;
}

uint64_t digestBytes(const void* bytes, size_t size, uint64_t digest) {
    constexpr uint64_t kOffset = 14695981039346656037ull, kPrime = 1099511628211ull;  // FNV-1a, 64 bits
    uint64_t h = digest == 0 ? kOffset : digest;
    const auto* p = static_cast<const unsigned char*>(bytes);
    for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * kPrime;
    return h;
}

}  // namespace repro::run
