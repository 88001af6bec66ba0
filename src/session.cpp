// The run of one invocation: which modes run in which order, against which reference,
// how often, and what the results mean. Vulkan calls stay in vk/chain.cpp.
#include "session.hpp"

#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <bit>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "core/interrupt.hpp"
#include "core/judge.hpp"
#include "core/rust_format.hpp"
#include "core/verdict.hpp"
#include "output.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"

namespace repro {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// One run of one mode.
struct RunRecord {
    Mode mode = Mode::Split;
    uint32_t index = 1;          // 1..R
    bool referenceOnly = false;  // split run only to be the reference (not judged)
    ModeResult result;
    ChainResult buffers;         // final, plus intermediates with --check-steps
    std::vector<double> dispatchGpuSeconds, submitGpuSeconds;  // --timestamps
    std::vector<bool> dispatchIsConvT;                          // parallel to dispatchGpuSeconds
};

// How a chain length's runs ended.
struct LengthOutcome {
    std::vector<ModeResult> judged;  // one per mode under test, runs aggregated
    Verdict verdict;
    bool deviceGone = false;
};

std::string hangReason(const vk::SubmitOutcome& f, const std::string& where, double timeout) {
    if (f.status == vk::SubmitStatus::Timeout) {
        return fmt::format("hung: {} for {} did not signal within the {:.0f} s timeout ({})",
                           f.call, where, timeout, vk::resultName(f.result));
    }
    return fmt::format("lost the device: {} returned {} at {}", f.call, vk::resultName(f.result),
                       where);
}

// Writes `values` to DIR/<mode>.f32 as raw float32; false (and a line on stderr) on failure.
bool dumpFinal(const std::string& dir, Mode mode, const std::vector<float>& values) {
    const auto path = std::filesystem::path(dir) / fmt::format("{}.f32", name(mode));
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(values.size() * sizeof(float)));
    out.close();
    if (!out) {
        fmt::print(stderr, "repro: --dump-dir: could not write {}\n", path.string());
        return false;
    }
    return true;
}

std::vector<std::string> lines(const std::string& text) {
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

bool bitIdentical(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](float x, float y) {
               return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y);
           });
}

class LengthRun {
  public:
    LengthRun(Session& s, uint32_t n, bool progress) : s_(s), n_(n), progress_(progress) {}

    LengthOutcome run();

  private:
    void makeCpuJudge();
    bool runOnce(Mode mode, uint32_t index, bool referenceOnly);
    void classifyRecord(RunRecord& record);
    void printClassification(const RunRecord& record) const;
    void printStepReport(const RunRecord& record) const;
    void printGpuTimes(const RunRecord& record) const;
    ModeResult aggregate(Mode mode) const;

    Session& s_;
    uint32_t n_;
    bool progress_;
    std::optional<Judge> judge_;
    std::vector<RunRecord> records_;
    std::vector<size_t> pending_;  // records waiting for the reference
    bool deviceGone_ = false;
    bool interrupted_ = false;
    bool dumpFailed_ = false;

  public:
    bool dumpFailed() const { return dumpFailed_; }
    bool interrupted() const { return interrupted_; }
};

void LengthRun::makeCpuJudge() {
    const auto start = Clock::now();
    judge_ = Judge::cpu(s_.options.shape, n_, s_.options.checkSteps);
    say("  reference: cpu (the chain in float64 on the host, derived float32 tolerance; {:.1f} s)",
        secondsSince(start));
}

// Runs `mode` once from fresh state and reads back what it wrote. False when the device
// is gone (hang, loss, or a failed readback).
bool LengthRun::runOnce(Mode mode, uint32_t index, bool referenceOnly) {
    RunRecord record{.mode = mode, .index = index, .referenceOnly = referenceOnly};
    record.result.mode = mode;
    if (progress_) {
        fmt::print(stderr, "\r\x1b[Krepro: N={} mode {} run {}/{}", n_, name(mode), index,
                   s_.options.repeat);
        std::fflush(stderr);
    }
    vk::Chain& chain = s_.chain;
    chain.length = n_;
    const uint32_t pattern = s_.options.poison ? kPoisonPattern : 0u;
    const vk::ModeRun run = vk::runMode(chain, mode, pattern);
    record.result.submits = run.submits;
    record.result.wallSeconds = run.wallSeconds;
    record.dispatchGpuSeconds = run.dispatchGpuSeconds;
    record.dispatchIsConvT = run.dispatchIsConvT;
    record.submitGpuSeconds = run.submitGpuSeconds;
    s_.report.timings.recording += run.recordSeconds;
    s_.report.timings.gpuWait += run.waitSeconds;
    const auto readbackStart = Clock::now();

    std::optional<std::pair<vk::SubmitOutcome, std::string>> failure;
    if (!run.completed) {
        failure = {run.failure, run.failedSubmit};
    } else {
        // Read back small[N], and every intermediate with --check-steps.
        const bool steps = s_.options.checkSteps;
        record.buffers.small.resize(n_ + 1);
        record.buffers.big.resize(steps ? n_ : 0);
        for (uint32_t i = steps ? 1 : n_; i <= n_ && !failure; ++i) {
            vk::Readback r = vk::readBuffer(chain, chain.buffers.small[i]);
            if (!r.ok) failure = {r.failure, fmt::format("reading back small[{}]", i)};
            record.buffers.small[i] = std::move(r.values);
        }
        for (uint32_t i = 0; steps && i < n_ && !failure; ++i) {
            vk::Readback r = vk::readBuffer(chain, chain.buffers.big[i]);
            if (!r.ok) failure = {r.failure, fmt::format("reading back big[{}]", i)};
            record.buffers.big[i] = std::move(r.values);
        }
    }
    s_.report.timings.readback += secondsSince(readbackStart);
    if (failure && failure->first.status == vk::SubmitStatus::Interrupted) {
        interrupted_ = true;
        deviceGone_ = true;  // nothing more is submitted
        if (!failure->first.drained) {
            // The queue did not finish within the bound: its objects may still be in use.
            s_.device.abandon();
            s_.instance.abandon();
        }
        if (progress_) fmt::print(stderr, "\r\x1b[K");
        record.result.kind = Classification::NotRun;
        record.result.reason = fmt::format(
            "interrupted by {} at {}; {}", interruptSignal() == SIGTERM ? "SIGTERM" : "SIGINT",
            failure->second,
            failure->first.drained ? "the queue drained"
                                   : fmt::format("the queue did not drain within {:.0f} s",
                                                 kInterruptDrainSeconds));
        say("  mode={:<9} interrupted", name(mode));
        say("{}", classificationLine(record.result));
        records_.push_back(std::move(record));
        return false;
    }
    if (failure) {
        deviceGone_ = true;
        if (failure->first.status == vk::SubmitStatus::Timeout) {
            s_.device.abandon();
            s_.instance.abandon();
        } else {
            s_.device.markLost();
        }
        record.result.kind = Classification::Hang;
        const double timeout = submitTimeoutSeconds(
            s_.options.timeoutSeconds, s_.options.shape, n_,
            s_.device.info().properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU);
        record.result.reason = hangReason(failure->first, failure->second,
                                          run.completed ? timeout : run.failedTimeout);
        if (progress_) fmt::print(stderr, "\r\x1b[K");
        say("  mode={:<9} HANG", name(mode));
        say("{}", classificationLine(record.result));
        if (!run.forensics.empty()) {
            record.result.reason += "; " + run.forensics;
            for (const auto& line : lines(run.forensics)) say("    {}", line);
        }
        for (const auto& note : hangEvidenceNotes(s_.device.info().hasDriverProperties
                                                      ? s_.device.info().driver.driverName
                                                      : "")) {
            say("    hang evidence: {}", note);
        }
        records_.push_back(std::move(record));
        return false;
    }

    const auto verifyStart = Clock::now();
    const std::vector<float>& final = record.buffers.final();
    record.result.stats = computeStats(final);
    if (s_.options.dumpDir && !dumpFinal(*s_.options.dumpDir, mode, final)) dumpFailed_ = true;
    if (progress_) fmt::print(stderr, "\r\x1b[K");
    if (referenceOnly) say("  reference (split, run after the modes under test):");
    say("{}", modeLine(mode, *record.result.stats));

    const bool isReferenceSource = mode == Mode::Split && !judge_ &&
                                   s_.options.reference != ReferenceKind::Cpu &&
                                   s_.options.reference != ReferenceKind::None;
    if (isReferenceSource) {
        const Classified c = classify(final, *record.result.stats, std::nullopt, "");
        record.result.kind = c.kind;
        record.result.reason = c.kind == Classification::Ok
                                   ? "finite and non-zero; the reference for the other modes"
                                   : c.reason;
        judge_ = Judge::fromRun(referenceOnly ? "split (run after the modes under test)" : "split",
                                record.buffers);
        printClassification(record);
    } else if (judge_) {
        classifyRecord(record);
        printClassification(record);
        printStepReport(record);
    } else {
        pending_.push_back(records_.size());
    }
    printGpuTimes(record);
    s_.report.timings.verification += secondsSince(verifyStart);
    records_.push_back(std::move(record));
    return true;
}

void LengthRun::printGpuTimes(const RunRecord& record) const {
    if (record.submitGpuSeconds.empty()) return;
    double convT = 0, slice = 0, submits = 0;
    size_t convTCount = 0, sliceCount = 0;
    // Dispatch times come in recording order, each tagged conv-T or slice (a conv-T
    // recorded R times with --dispatch-repeat counts R times).
    for (size_t i = 0; i < record.dispatchGpuSeconds.size(); ++i) {
        const bool isConvT = i < record.dispatchIsConvT.size() && record.dispatchIsConvT[i];
        (isConvT ? convT : slice) += record.dispatchGpuSeconds[i];
        ++(isConvT ? convTCount : sliceCount);
    }
    for (double t : record.submitGpuSeconds) submits += t;
    say("    gpu: {:.3f} ms in {} submit{}; conv-T {:.3f} ms each, slice {:.3f} ms each (mean of "
        "{} and {}){}",
        submits * 1e3, record.submitGpuSeconds.size(), record.submitGpuSeconds.size() == 1 ? "" : "s",
        convTCount ? convT / double(convTCount) * 1e3 : 0.0,
        sliceCount ? slice / double(sliceCount) * 1e3 : 0.0, convTCount, sliceCount,
        s_.options.dropDispatch && record.mode != Mode::Split ? " (a dispatch was dropped)" : "");
}

void LengthRun::classifyRecord(RunRecord& record) {
    const Classified c = judge_->classifyFinal(record.buffers.final(), *record.result.stats);
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
    const StepReport steps = judge_->checkSteps(s_.options.shape, s_.sizes, record.buffers);
    if (steps.firstWrong) {
        const DispatchCheck& d = steps.dispatches[*steps.firstWrong];
        say("    check-steps against {}: first wrong dispatch {}: step {} {} is {}: {}",
            judge_->label(), d.dispatchNumber(), d.step, d.convT ? "conv-T" : "slice",
            name(d.verdict.kind), d.verdict.reason);
    } else {
        say("    check-steps against {}: every dispatch's output matches", judge_->label());
    }
    for (const DispatchCheck& d : steps.dispatches) {
        const float percent = d.stats.elements == 0
                                  ? 0.0f
                                  : 100.0f * static_cast<float>(d.stats.nonZero) /
                                        static_cast<float>(d.stats.elements);
        say("      dispatch {:>3} step {:>3} {:<6} nz={}/{} ({}%) sum={} max_abs={} -> {}",
            d.dispatchNumber(), d.step, d.convT ? "conv-T" : "slice", d.stats.nonZero,
            d.stats.elements, rustFixed(percent, 1), rustExp(d.stats.sum), rustExp(d.stats.maxAbs),
            name(d.verdict.kind));
    }
}

ModeResult LengthRun::aggregate(Mode mode) const {
    ModeResult total{.mode = mode};
    const RunRecord* first = nullptr;
    const RunRecord* firstWrong = nullptr;
    total.runs = 0;
    for (const RunRecord& r : records_) {
        if (r.mode != mode || r.referenceOnly) continue;
        if (!first) first = &r;
        ++total.runs;
        total.submits += r.result.submits;
        total.wallSeconds += r.result.wallSeconds;
        if (isWrong(r.result.kind) || r.result.kind == Classification::Hang) {
            ++total.wrongRuns;
            if (!firstWrong) firstWrong = &r;
        }
        if (first != &r && r.result.stats && first->result.stats &&
            !bitIdentical(r.buffers.final(), first->buffers.final())) {
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
    return total;
}

LengthOutcome LengthRun::run() {
    if (s_.options.reference == ReferenceKind::Cpu) makeCpuJudge();
    if (s_.options.reference == ReferenceKind::None) judge_ = Judge::none();

    std::vector<Mode> modes = s_.options.modes;
    const bool splitAsked = std::find(modes.begin(), modes.end(), Mode::Split) != modes.end();
    const bool splitAfter = !splitAsked && (s_.options.reference == ReferenceKind::Auto ||
                                            s_.options.reference == ReferenceKind::Split);
    for (const Mode mode : modes) {
        for (uint32_t r = 1; r <= s_.options.repeat && !deviceGone_; ++r) runOnce(mode, r, false);
        if (deviceGone_ && std::none_of(records_.begin(), records_.end(),
                                        [&](const RunRecord& rec) { return rec.mode == mode; })) {
            ModeResult notRun{.mode = mode, .kind = Classification::NotRun,
                              .reason = interrupted_ ? "interrupted before it started"
                                                     : "an earlier mode lost the device"};
            say("  mode={:<9} not run", name(mode));
            say("{}", classificationLine(notRun));
        }
    }
    if (splitAfter && !deviceGone_) runOnce(Mode::Split, 1, true);

    for (const size_t i : pending_) {
        RunRecord& record = records_[i];
        if (judge_) {
            classifyRecord(record);
        } else {
            // The reference never came (the device was lost first): self-checks only.
            const Classified c = classify(record.buffers.final(), *record.result.stats,
                                          std::nullopt, "");
            record.result.kind = c.kind;
            record.result.reason = c.reason;
        }
        say("  mode={:<9} (classified against {})", name(record.mode),
            judge_ ? judge_->label() : std::string("nothing: the reference did not complete"));
        printClassification(record);
        printStepReport(record);
    }

    LengthOutcome out;
    out.deviceGone = deviceGone_;
    for (const Mode mode : modes) {
        ModeResult m = aggregate(mode);
        if (m.runs > 1) {
            say("  {}: {}/{} runs wrong; results {} across runs", name(mode), m.wrongRuns, m.runs,
                m.identicalAcrossRuns ? "bit-identical" : "NOT bit-identical");
        }
        out.judged.push_back(std::move(m));
    }
    // A hang in the reference-only split still decides the verdict.
    for (const RunRecord& r : records_) {
        if (r.referenceOnly && r.result.kind == Classification::Hang) out.judged.push_back(r.result);
    }
    const bool underflowed = judge_ && judge_->underflowed();
    const std::string referenceName = judge_ && judge_->hasReference() ? judge_->label() : "";
    const uint64_t messages = s_.options.validation ? s_.instance.validationLog().count() : 0;
    out.verdict = decideVerdict(out.judged, referenceName, underflowed, messages);
    // blade-exact's params descriptor mismatch is undefined behaviour: when split, blade's
    // plainest stream, is wrong too, the profile cannot test this driver.
    const auto splitWrong = std::find_if(records_.begin(), records_.end(), [](const RunRecord& r) {
        return r.mode == Mode::Split && isWrong(r.result.kind);
    });
    if (s_.paramsDescriptorMismatch && out.verdict.exitStatus != kExitHang &&
        (splitWrong != records_.end() || underflowed)) {
        out.verdict = Verdict{
            .exitStatus = kExitCannotTest,
            .lines = {fmt::format(
                "--- CANNOT TEST WITH --profile blade-exact: split, blade's plainest stream, is {} "
                "too. blade's params is a Uniform block written through a STORAGE_BUFFER descriptor "
                "(undefined behaviour), and this driver gives it no usable data; drop the profile, or "
                "give --spirv modules that declare params as a storage block",
                splitWrong != records_.end() ? std::string(name(splitWrong->result.kind))
                                             : std::string("zero or denormal"))}};
    }
    s_.report.referenceName = judge_ ? judge_->label() : "none";
    for (const RunRecord& r : records_) {
        ModeReport m;
        m.result = r.result;
        m.role = r.referenceOnly ? "reference (run after the modes under test)"
                                 : (s_.options.repeat > 1
                                        ? fmt::format("under test, run {}/{}", r.index, s_.options.repeat)
                                        : "under test");
        if (s_.options.sweep) m.role += fmt::format(", N={}", n_);
        m.dispatchGpuSeconds = r.dispatchGpuSeconds;
        m.submitGpuSeconds = r.submitGpuSeconds;
        if (!r.submitGpuSeconds.empty()) {
            double total = 0;
            for (double t : r.submitGpuSeconds) total += t;
            m.modeGpuSeconds = total;
        }
        s_.report.modes.push_back(std::move(m));
    }
    if (s_.options.reference == ReferenceKind::None && n_ >= 40) {
        out.verdict.lines.insert(out.verdict.lines.begin(),
                                 "--- warning: --reference none at N >= 40: with the default data "
                                 "the signal shrinks ~4x per step and float32 underflows from "
                                 "about N = 60, where a correct device also gives zeros");
    }
    return out;
}

void printValidation(const Session& s) {
    if (!s.options.validation) return;
    const auto& log = s.instance.validationLog();
    say("validation: {} message{} ({} errors, {} warnings), synchronization validation on",
        log.count(), log.count() == 1 ? "" : "s", log.errors, log.warnings);
}

}  // namespace

// 128 + the signal, after saying so, when the run was interrupted; 0 otherwise.
int interruptedStatus() {
    const int signal = interruptSignal();
    if (signal == 0) return 0;
    say("--- INTERRUPTED by {}: the results above are complete for the modes that finished; "
        "no verdict",
        signal == SIGTERM ? "SIGTERM" : "SIGINT");
    return 128 + signal;
}

int runChainLength(Session& s) {
    say("--- results ---");
    LengthRun run(s, s.options.chainLength, /*progress=*/false);
    const LengthOutcome out = run.run();
    printValidation(s);
    s.report.verdict = out.verdict;
    if (const int status = interruptedStatus()) {
        s.report.verdict.lines = {"--- INTERRUPTED: no verdict"};
        return status;
    }
    for (const auto& line : out.verdict.lines) say("{}", line);
    // A dump that could not be written is a usage error unless a hang or a reproduction
    // says more; the results above are printed either way.
    if (run.dumpFailed() && out.verdict.exitStatus != kExitHang &&
        out.verdict.exitStatus != kExitReproduced) {
        return kExitUsage;
    }
    return out.verdict.exitStatus;
}

int runSweep(Session& s) {
    const auto [first, last] = *s.options.sweep;
    const bool progress = ::isatty(STDERR_FILENO) != 0;
    std::map<uint32_t, std::vector<ModeResult>> table;
    std::map<uint32_t, int> statuses;
    bool hang = false;
    for (uint32_t n = first; n <= last && !hang; ++n) {
        say("--- results for N={} ---", n);
        LengthRun run(s, n, progress);
        const LengthOutcome out = run.run();
        if (run.interrupted()) break;
        for (const auto& line : out.verdict.lines) say("{}", line);
        table[n] = out.judged;
        statuses[n] = out.verdict.exitStatus;
        hang = out.deviceGone;
    }
    if (const int status = interruptedStatus()) return status;
    if (progress) fmt::print(stderr, "\r\x1b[K");

    say("--- sweep: classification by chain length ---");
    std::string header = fmt::format("  {:>4}", "N");
    for (const Mode m : s.options.modes) header += fmt::format("  {:<12}", name(m));
    say("{}", header);
    std::map<Mode, std::optional<uint32_t>> smallest;
    for (const auto& [n, results] : table) {
        std::string row = fmt::format("  {:>4}", n);
        for (const ModeResult& r : results) {
            if (std::find(s.options.modes.begin(), s.options.modes.end(), r.mode) ==
                s.options.modes.end()) {
                continue;
            }
            std::string cell{name(r.kind)};
            if (statuses[n] == kExitCannotTest && isWrong(r.kind)) cell = "inconclusive";
            if (r.runs > 1) cell += fmt::format(" {}/{}", r.wrongRuns, r.runs);
            row += fmt::format("  {:<12}", cell);
            const bool reproduces = (isWrong(r.kind) && statuses[n] == kExitReproduced) ||
                                    r.kind == Classification::Hang;
            if (reproduces && !smallest[r.mode]) smallest[r.mode] = n;
        }
        say("{}", row);
    }
    std::vector<std::string> parts;
    for (const Mode m : s.options.modes) {
        parts.push_back(fmt::format("{} {}", name(m),
                                    smallest[m] ? fmt::format("N={}", *smallest[m]) : "none"));
    }
    say("--- smallest reproducing N: {}", join(parts));
    printValidation(s);

    int status = kExitNotReproduced;
    const auto any = [&](int code) {
        return std::any_of(statuses.begin(), statuses.end(), [&](auto& kv) { return kv.second == code; });
    };
    const bool allInconclusive = std::all_of(statuses.begin(), statuses.end(), [](auto& kv) {
        return kv.second == kExitCannotTest;
    });
    if (any(kExitHang)) {
        status = kExitHang;
    } else if (any(kExitReproduced)) {
        status = kExitReproduced;
    } else if (allInconclusive) {
        status = kExitCannotTest;
    } else if (s.options.validation && s.instance.validationLog().count() > 0) {
        status = kExitValidation;
    }
    const std::string verdict = fmt::format(
        "--- sweep verdict: {}; smallest reproducing N: {}",
        status == kExitHang          ? "GPU HANG"
        : status == kExitReproduced  ? "BUG REPRODUCED"
        : status == kExitCannotTest  ? "INCONCLUSIVE at every N"
        : status == kExitValidation  ? "VALIDATION messages"
                                     : "NOT REPRODUCED at any N",
        join(parts));
    say("{}", verdict);
    s.report.verdict = Verdict{.exitStatus = status, .lines = {verdict}};
    return status;
}

}  // namespace repro
