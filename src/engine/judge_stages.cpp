// Judging one run (engine/stages.hpp): its classification against the reference, its printed
// lines (the result, --check-steps' per-step lines, --timestamps' GPU times), or what a hang
// or an interrupt left; and the runs that waited for a reference that came after them.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "reference/cpu_reference.hpp"
#include "engine/text_report.hpp"
#include "forensics/environment.hpp"
#include "core/interrupt.hpp"
#include "core/output.hpp"
#include "core/rust_format.hpp"
#include "core/text.hpp"
#include "report/verdict.hpp"
#include "engine/evidence.hpp"
#include "engine/stages.hpp"
#include "vk/check.hpp"

namespace repro::run {

std::optional<Judge> referenceBeforeModes(const Length& length) {
    const Options& o = length.options();
    if (o.reference == ReferenceKind::None) return Judge::none();
    if (o.reference != ReferenceKind::Cpu) return std::nullopt;
    const auto start = Clock::now();
    Judge judge = Judge::cpu(o.shape, length.n);
    say("  reference: cpu (the chain in float64 on the host, derived float32 tolerance; {:.1f} s)",
        secondsSince(start));
    return judge;
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

// An interrupt stopped the run: nothing more is submitted.
void recordInterrupted(const Length& length, Runs& runs, RunRecord& record, const Failure& f) {
    runs.interrupted = true;
    runs.deviceGone = true;
    if (!f.outcome.drained) {
        // The queue did not finish within the bound: its objects may still be in use.
        length.session.rig.device.abandon();
        length.session.instance.abandon();
    }
    record.result.kind = Classification::NotRun;
    record.result.reason =
        fmt::format("interrupted by {} at {}; {}", interruptSignal() == SIGTERM ? "SIGTERM" : "SIGINT", f.where,
                    f.outcome.drained ? "the queue drained"
                                      : fmt::format("the queue did not drain within {:.0f} s", kInterruptDrainSeconds));
    say("  mode={:<9} interrupted", name(record.mode()));
    say("{}", classificationLine(record.result));
}

// A hang or a lost device: the device is given up and the run is a hang, with what the
// forensics and the driver can say.
void recordFailure(const Length& length, Runs& runs, RunRecord& record, const Failure& f) {
    Session& s = length.session;
    runs.deviceGone = true;
    if (f.outcome.status == vk::SubmitStatus::Timeout) {
        s.rig.device.abandon();
        s.instance.abandon();
    }
    record.result.kind = Classification::Hang;
    record.result.reason = hangReason(f);
    say("  mode={:<9} HANG", name(record.mode()));
    say("{}", classificationLine(record.result));
    const std::string& forensics = record.submitted.run.forensics;
    if (!forensics.empty()) {
        record.result.reason += "; " + forensics;
        for (const auto& line : splitLines(forensics)) sayWrapped("    " + line);
    }
    // -v printed these notes in the header already: said once.
    const vk::DeviceInfo& info = s.rig.device.info();
    if (s.options.verbose) return;
    for (const auto& note : hangEvidenceNotes(info.hasDriverProperties ? info.driver.driverName : "")) {
        sayWrapped("    hang evidence: " + note);
    }
}

void classifyAgainst(const Judge& judge, RunRecord& record) {
    const Classified c = judge.classifyFinal(record.final(), *record.result.stats);
    record.result.kind = c.kind;
    record.result.reason = c.reason;
}

void printClassification(const Length& length, const RunRecord& record) {
    std::string line = classificationLine(record.result);
    if (length.options().repeat > 1 && !record.plan.referenceOnly) {
        line += fmt::format(" [run {}/{}]", record.plan.index, length.options().repeat);
    }
    say("{}", line);
}

// --check-steps against the reference: the first wrong dispatch and one line per dispatch.
void printStepReport(const Length& length, const std::optional<Judge>& judge, const RunRecord& record) {
    const Session& s = length.session;
    if (!s.options.checkSteps || !judge || !judge->hasReference() || record.plan.referenceOnly) return;
    // Summed up during the readback, or now for a run that waited for the reference.
    const StepReport steps = record.submitted.steps
                                 ? *record.submitted.steps
                                 : judge->checkSteps(s.options.shape, s.sizes, *record.submitted.buffers);
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

void printGpuTimes(const Length& length, const RunRecord& record) {
    const vk::GpuTimes& gpu = record.submitted.run.gpu;
    if (gpu.submitSeconds.empty()) return;
    double convT = 0, slice = 0, submits = 0;
    size_t convTCount = 0, sliceCount = 0;
    // A conv-T recorded R times with --dispatch-repeat counts R times.
    for (const auto& d : gpu.dispatches) {
        if (!d.finished) continue;
        (d.convT ? convT : slice) += d.seconds;
        ++(d.convT ? convTCount : sliceCount);
    }
    for (double t : gpu.submitSeconds) submits += t;
    const size_t count = gpu.submitSeconds.size();
    say("    gpu: {:.3f} ms in {} submit{}; conv-T {:.3f} ms each, slice {:.3f} ms each (mean of {} and {}){}",
        submits * 1e3, count, count == 1 ? "" : "s", convTCount ? convT / double(convTCount) * 1e3 : 0.0,
        sliceCount ? slice / double(sliceCount) * 1e3 : 0.0, convTCount, sliceCount,
        length.options().dropDispatch && record.mode() != Mode::Split ? " (a dispatch was dropped)" : "");
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

// split, the reference, was killed by the job timeout: its output says nothing about the
// other modes. They are judged against the CPU reference instead, or, where that was not
// asked for and would be long, or --reference split was explicit, by the self-checks
// alone, saying why. What split measured is forgotten: a kill, not its work.
void replaceKilledReference(const Length& length, Runs& runs) {
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
        runs.judge = Judge::none();
        return;
    }
    const auto start = Clock::now();
    runs.judge = Judge::cpu(o.shape, length.n);
    say("  reference: cpu in place of split, which the kernel's job timeout killed (the chain in float64 on the "
        "host, derived float32 tolerance; {:.1f} s)",
        secondsSince(start));
}

// Split without a reference yet becomes it (auto, split): checked for zero and non-finite.
// When it fails them, its cause is decided at once: a split the job timeout killed is no
// reference (replaceKilledReference).
void becomeTheReference(const Length& length, Runs& runs, RunRecord& record) {
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
        replaceKilledReference(length, runs);
        return;
    }
    runs.judge = Judge::fromRun(record.plan.referenceOnly ? "split (run after the modes under test)" : "split",
                                record.submitted.buffers, *record.result.stats);
    printClassification(length, record);
    if (cause) printCause(length, record, *cause);
}

// A run whose submits and readback completed: its statistics, dump, classification and lines.
void judgeCompleted(const Length& length, Runs& runs, RunRecord& record) {
    Session& s = length.session;
    const auto start = Clock::now();
    record.result.stats = computeStats(record.final());
    const std::optional<uint32_t> sweepLength = s.options.sweep ? std::optional<uint32_t>(length.n) : std::nullopt;
    if (s.options.dumpDir && !dumpFinal(*s.options.dumpDir, record.mode(), sweepLength, record.final())) {
        record.dumpFailed = true;
    }
    if (record.plan.referenceOnly) say("  reference (split, run after the modes under test):");
    say("{}", modeLine(record.mode(), *record.result.stats));
    if (record.mode() == Mode::Split && !runs.judge) {
        becomeTheReference(length, runs, record);
    } else if (runs.judge) {
        classifyAgainst(*runs.judge, record);
        printClassification(length, record);
        printStepReport(length, runs.judge, record);
    } else {
        record.waitsForReference = true;
    }
    printGpuTimes(length, record);
    if (s.options.checkSteps) printDispatchCheck(record);
    s.timings.verification += secondsSince(start);
}

}  // namespace

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
        judgeCompleted(length, runs, record);
    }
    runs.records.push_back(std::move(record));
    return runs.records.back();
}

void reportNotRun(const Length& length, const Runs& runs, Mode mode) {
    (void)length;
    const ModeResult notRun{
        .mode = mode,
        .kind = Classification::NotRun,
        .reason = runs.interrupted ? "interrupted before it started" : "an earlier mode lost the device"};
    say("  mode={:<9} not run", name(mode));
    say("{}", classificationLine(notRun));
}

void judgeWaiting(const Length& length, Runs& runs) {
    for (RunRecord& record : runs.records) {
        if (!record.waitsForReference) continue;
        if (runs.judge) {
            classifyAgainst(*runs.judge, record);
        } else {
            // The reference never came (the device was lost first): self-checks only.
            const Classified c = classify(record.final(), *record.result.stats, std::nullopt, "");
            record.result.kind = c.kind;
            record.result.reason = c.reason;
        }
        say("  mode={:<9} (classified against {})", name(record.mode()),
            runs.judge ? runs.judge->label() : std::string("nothing: the reference did not complete"));
        printClassification(length, record);
        printStepReport(length, runs.judge, record);
    }
}

}  // namespace repro::run
