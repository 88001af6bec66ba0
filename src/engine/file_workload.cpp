// A scenario file's workload (see engine/file_workload.hpp).
#include "engine/file_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <variant>

#include <nlohmann/json.hpp>

#include "core/clock.hpp"
#include "core/output.hpp"
#include "core/rust_format.hpp"
#include "core/shape.hpp"
#include "core/text.hpp"
#include "core/variant.hpp"
#include "core/errors.hpp"
#include "engine/evidence.hpp"
#include "report/trace_events.hpp"
#include "report/verdict.hpp"
#include "scenario/scenario_cpu.hpp"
#include "vk/check.hpp"
#include "vk/describe.hpp"
#include "vk/device.hpp"
#include "vk/encoder.hpp"
#include "vk/instance.hpp"
#include "vk/instrumentation.hpp"
#include "vk/stress.hpp"

namespace repro {

using namespace run;
namespace sc = repro::scenario;

// What a point's runs share: the file at the point and what was made for it once.
struct FileWorkload::Point {
    const sc::Scenario& s;
    vk::ScenarioPipelines pipelines;
    std::unique_ptr<vk::ScenarioBuffers> buffers;
    std::optional<vk::StressKit> stress;  // --stress on a file on one queue
    sc::References refs;
    std::vector<double> budgets;  // submitBudgets
    // split's bytes once its run completed and could be the reference (not when killed)
    std::shared_ptr<const sc::ModeBytes> split;
    bool splitKilled = false;
    bool splitWrong = false;  // the CPU model found split wrong: no reference for a waiting mode
};

FileWorkload::FileWorkload(vk::Device& device, vk::Instrumentation& instrumentation)
    : device_(device), instrumentation_(instrumentation), encoder_(std::make_unique<vk::Encoder>(device)) {}

FileWorkload::~FileWorkload() = default;

namespace {

// A CannotTest when the device's driver ends a shader loop before one of `s`'s work steps is
// done (core/variant.hpp shaderLoopLimit: lavapipe's 65,535): the step would write other words
// than the CPU model's with no fault of the driver, so nothing is run.
void refuseLoopsPastTheDriversLimit(const vk::DeviceInfo& d, const sc::Scenario& s) {
    if (!d.hasDriverProperties) return;
    const std::optional<ShaderLoopLimit> limit = shaderLoopLimit(vk::driverIdShortName(d.driver.driverID));
    if (!limit) return;
    for (const sc::Step& step : s.steps) {
        const auto* dispatch = std::get_if<sc::Dispatch>(&step.body);
        if (!dispatch || !dispatch->user.empty() || dispatch->kernel != sc::Kernel::Work ||
            dispatch->params.work <= limit->iterations)
            continue;
        throw CannotTest(fmt::format(
            "{}: {} loops {} times, and {} ends a shader loop after {} iterations ({}): a known limit of that "
            "driver, not a fault, so its words would differ from the CPU model's; keep work at most {} on it, or "
            "run on another driver",
            s.file, step.label, dispatch->params.work, limit->driver, limit->iterations, limit->source,
            limit->iterations));
    }
}

}  // namespace

void FileWorkload::beginPoint(const Length& length) {
    Session& session = length.session;
    const sc::Scenario& s = session.plan.file(length.point);
    refuseLoopsPastTheDriversLimit(device_.info(), s);
    point_.reset();  // the last point's buffers go before this one's are made
    auto begin = Clock::now();
    const bool stress = session.options.stress;
    vk::ScenarioPipelines pipelines = vk::createScenarioPipelines(device_, s, stress);
    std::optional<vk::StressKit> kit;
    if (stress && !s.usesQueues()) kit.emplace(vk::createStressKit(device_, s));
    session.timings.pipelines += secondsSince(begin);
    begin = Clock::now();
    // --print-stream records and compares nothing: no CPU model (a full-size CPU chain is ~30 s)
    sc::References refs = session.options.printStream ? sc::References{} : sc::cpuReferences(s);
    session.timings.reference += secondsSince(begin);
    begin = Clock::now();
    // --check-steps reads split's steps back, split asked for or run after the modes as their reference
    const bool splitRuns = splitAsked(session.options) || splitRunsAfter(session.options);
    auto buffers = std::make_unique<vk::ScenarioBuffers>(device_, s, session.options.checkSteps && splitRuns);
    session.timings.buffersAndUpload += secondsSince(begin);
    point_.reset(new Point{.s = s,
                           .pipelines = std::move(pipelines),
                           .buffers = std::move(buffers),
                           .stress = std::move(kit),
                           .refs = std::move(refs),
                           .budgets = submitBudgets(s, device_.info().isCpu())});
    calibrate(length);
}

// Before a one-submit mode that runs ahead of split, the file run once as split measures
// what its work steps take, so the mode's GPU time can be predicted: for --split-ms, and for
// the job-timeout warning and cause where the queue has a known timeout (the chain's
// calibration, engine/chain_workload.cpp, runs one step; a file's steps differ, so all run).
void FileWorkload::calibrate(const Length& length) {
    Session& session = length.session;
    if (!needsCalibration(length)) return;
    trace_events::Span span("calibration: the file as split", "mode");
    const vk::ScenarioRunSettings settings{.fixed = session.options.timeoutSeconds, .stepSeconds = point_->budgets};
    vk::ScenarioModeRun ran = vk::runScenarioMode(device_, *encoder_, point_->pipelines, *point_->buffers,
                                                  instrumentation_, point_->s, Mode::Split, settings);
    if (!ran.run.completed) {
        say("  calibration: the file as split did not complete ({} at {}): no prediction",
            vk::resultName(ran.run.failure.result), ran.run.failedSubmit);
        return;
    }
    const SplitTimes times = splitTimesOf(ran.run);
    session.evidence->recordSplit(length.evidenceKey(), times);
    const bool timed = !times.dispatchGpuSeconds.empty();
    double total = 0;
    for (const double t : timed ? times.dispatchGpuSeconds : times.submitWaitSeconds) total += t;
    say("  calibration: the file as split ({} submits): {:.3f} ms of work steps ({}), for the predictions below",
        ran.run.submits, total * 1e3, timed ? "GPU time, timestamps" : "host waits, an upper bound of the GPU time");
}

size_t FileWorkload::workItems(const Length& length) const {
    return sc::workSteps(length.session.plan.file(length.point));
}

vk::ScenarioRunSettings FileWorkload::settings(const Length& length, const PlannedRun& planned,
                                               const Runs& runs) const {
    const Options& o = length.options();
    const sc::Scenario& s = point_->s;
    vk::ScenarioRunSettings out{.fixed = o.timeoutSeconds, .stepSeconds = point_->budgets};
    if (planned.mode == Mode::Split) return out;
    if (point_->stress) out.stress = &*point_->stress;
    out.cutAfter = fileCuts(s, o.submit, runs.predicted);
    out.hostWait = o.submit.hostWait;
    if (o.dropDispatch) {
        uint32_t k = 0;
        for (size_t i = 0; i < s.steps.size(); ++i) {
            if (std::holds_alternative<sc::Dispatch>(s.steps[i].body) && ++k == *o.dropDispatch) out.droppedStep = i;
        }
    }
    return out;
}

Submitted FileWorkload::submit(const Length& length, const PlannedRun& planned, Runs& runs) {
    Session& session = length.session;
    const Options& o = session.options;
    prepareRun(length, planned, runs, workItems(length), 1);
    vk::ScenarioRunSettings settings = this->settings(length, planned, runs);
    std::optional<sc::StepChecker> checker;  // the model's copy of every buffer: only when asked for
    if (o.checkSteps && planned.mode == Mode::Split) settings.readback.onStep = std::ref(checker.emplace(point_->s));
    if (session.evidence) session.evidence->beforeMode();
    vk::ScenarioModeRun ran = vk::runScenarioMode(device_, *encoder_, point_->pipelines, *point_->buffers,
                                                  instrumentation_, point_->s, planned.mode, settings);
    session.timings.buffersAndUpload += ran.buffersAndUpload;
    session.timings.readback += ran.readback;
    Submitted out{.run = std::move(ran.run), .stepReadbacks = ran.stepReadbacks};
    finishSubmit(length, *encoder_, planned.mode, out);
    if (checker) out.fileSteps = checker->result();
    if (!out.run.completed) return out;
    auto bytes = std::make_shared<sc::ModeBytes>(sc::ModeBytes{std::move(ran.checked), std::move(ran.hostReads)});
    for (const auto& [name, b] : bytes->checked) out.digest = digestBytes(b.data(), b.size(), out.digest);
    for (const auto& [index, b] : bytes->hostReads) out.digest = digestBytes(b.data(), b.size(), out.digest);
    out.bytes = std::move(bytes);
    return out;
}

namespace {

// "'data' nz=16384/16384 (100.0%)", a checked buffer's words that are not zero; for one
// holding a value of the built-in chain, the original's float figures after it (its line,
// verdict.hpp modeLine). At most three buffers, then how many in all.
std::string checkedLine(const sc::Scenario& s, const sc::ModeBytes& m) {
    const sc::ChainValues chain = sc::checkedChainValues(s);
    std::string out;
    size_t shown = 0;
    for (const auto& spec : s.buffers) {
        const auto it = m.checked.find(spec.name);
        if (it == m.checked.end()) continue;
        if (++shown > 3) continue;
        const std::vector<uint8_t>& bytes = it->second;
        const size_t words = bytes.size() / 4;
        size_t nonZero = 0;
        for (size_t w = 0; w < words; ++w) {
            uint32_t word = 0;
            std::memcpy(&word, bytes.data() + 4 * w, 4);
            nonZero += word != 0;
        }
        const float percent = words ? 100.0f * float(nonZero) / float(words) : 0.0f;
        out += fmt::format("{}'{}' nz={}/{} ({}%)", out.empty() ? "" : ", ", spec.name, nonZero, words,
                           rustFixed(percent, 1));
        if (chain.count(spec.name) && s.shape) {
            std::vector<float> floats(words);
            std::memcpy(floats.data(), bytes.data(), words * 4);
            const BufferStats stats = computeStats(floats);
            out += fmt::format(" sum={} max_abs={}", rustExp(stats.sum), rustExp(stats.maxAbs));
        }
    }
    if (shown > 3) out += fmt::format(", ... ({} checked buffers)", shown);
    if (!m.hostReads.empty()) out += sc::hostReadNote(m.hostReads.size());
    return out;
}

// Whether every checked byte of `m` is zero (RADV's symptom in blade #356: an all-zero result).
bool allZero(const sc::ModeBytes& m) {
    for (const auto& [name, bytes] : m.checked) {
        if (std::any_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b != 0; })) return false;
    }
    return !m.checked.empty();
}

// --check-steps' report object (ModeResult::stepCheckJson) and its lines under split's result.
std::string stepCheckJson(const sc::Scenario& s, const sc::StepChecker::Result& r, uint64_t readbacks, bool completed) {
    nlohmann::json j{{"checked", r.checked},
                     {"wrong", r.wrong},
                     {"readbacks", readbacks},
                     {"completed", completed},
                     {"not_checked", nlohmann::json::array()},
                     {"first_wrong_step", nullptr},
                     {"first_wrong_label", nullptr},
                     {"first_wrong_detail", nullptr}};
    for (const size_t i : r.notChecked) j["not_checked"].push_back(s.steps[i].label);
    if (r.firstWrong) {
        j["first_wrong_step"] = *r.firstWrong + 1;
        j["first_wrong_label"] = s.steps[*r.firstWrong].label;
        j["first_wrong_detail"] = r.firstDetail;
    }
    return j.dump();
}

void printStepCheck(const sc::Scenario& s, const sc::StepChecker::Result& r, uint64_t readbacks, bool completed) {
    if (r.firstWrong) {
        say("    check-steps: first wrong step: {}: {}; {} of {} checked step(s) differ", s.steps[*r.firstWrong].label,
            r.firstDetail, r.wrong, r.checked);
    } else {
        say("    check-steps: {} {} checked step(s) matched the CPU model after their submit ({} readback "
            "submit(s))",
            completed ? "all" : "before the run ended,", r.checked, readbacks);
    }
    if (!r.notChecked.empty())
        say("    check-steps: not checked (the CPU model cannot know what they write: {}): {}",
            sc::unmodelledKernels(s) == "a user kernel" ? "a user kernel's output"
                                                        : "the output of " + sc::unmodelledKernels(s),
            sc::stepLabels(s, r.notChecked));
}

// --dump-dir: each checked buffer's bytes as DIR/<mode>[-<point>]-<buffer>.bin (characters
// other than letters, digits, '.', '-' and '_' made '_'); false (and a line) on failure.
bool dumpBytes(const std::string& dir, Mode mode, const std::string& point, const sc::ModeBytes& m) {
    const auto safe = [](std::string text) {
        for (char& c : text) {
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
        }
        return text;
    };
    for (const auto& [buffer, bytes] : m.checked) {
        const auto path = std::filesystem::path(dir) /
                          fmt::format("{}{}-{}.bin", name(mode), point.empty() ? "" : "-" + safe(point), safe(buffer));
        if (!writeDumpFile(path, bytes.data(), bytes.size())) return false;
    }
    return true;
}

}  // namespace

void FileWorkload::judge(const Length& length, RunRecord& record, const sc::ModeBytes* split) {
    const sc::Scenario& s = point_->s;
    const sc::StepChecker::Result* steps = record.submitted.fileSteps ? &*record.submitted.fileSteps : nullptr;
    const sc::Judgement j = sc::judgeBytes(s, point_->refs, split, *record.submitted.bytes, steps);
    if (j.wrong) {
        record.result.kind = allZero(*record.submitted.bytes) ? Classification::Zero : Classification::Mismatch;
        record.result.reason = *j.wrong;
        return;
    }
    const bool isSplit = record.mode() == Mode::Split;
    record.result.kind = Classification::Ok;
    const bool splitAlone = length.session.options.modes == std::vector<Mode>{Mode::Split};
    record.result.reason = sc::identicalTo(s, split != nullptr, splitAlone) +
                           sc::hostReadNote(record.submitted.bytes->hostReads.size()) + j.chainNote +
                           sc::splitOnlyNote(s, isSplit && !split);
}

void FileWorkload::judgeCompleted(const Length& length, Runs& runs, RunRecord& record) {
    Session& session = length.session;
    const sc::Scenario& s = point_->s;
    if (session.options.dumpDir &&
        !dumpBytes(*session.options.dumpDir, record.mode(), length.point.label, *record.submitted.bytes))
        record.dumpFailed = true;
    if (record.plan.referenceOnly) say("  reference (split, run after the modes under test):");
    say("  mode={:<9} {}", name(record.mode()), checkedLine(s, *record.submitted.bytes));
    const bool split = record.mode() == Mode::Split;
    // Split run after the modes is their reference, as for the chain: each waits for it and is
    // compared with it then (judgeWaiting), so "bit-identical to split" is only said of a mode
    // compared with it. Where the CPU model checks every buffer it judges the mode now as well:
    // a driver crash in split's run leaves that result (a --matrix row's "ok, hang").
    record.waitsForReference = !split && !point_->split && splitRunsAfter(session.options) && !point_->splitKilled;
    if (!record.waitsForReference || sc::splitOnlyList(s).empty()) {
        judge(length, record, split ? nullptr : point_->split.get());
        if (split && record.result.kind == Classification::Ok)
            record.result.reason += "; the reference for the other modes";
        std::optional<Cause> cause;
        if (split && isWrong(record.result.kind)) cause = decideSplitCause(length, runs, record);
        if (split && record.result.kind == Classification::Killed) {
            record.result.reason += "; its submit was cut short by the kernel's job timeout, so it is no reference";
            point_->splitKilled = true;
            if (session.evidence) session.evidence->forgetSplit(length.evidenceKey());
        } else if (split) {
            point_->split = record.submitted.bytes;
            point_->splitWrong = isWrong(record.result.kind);
        }
        printClassification(length, record);
        if (cause) printCause(length, record, *cause);
    }
    if (record.submitted.fileSteps) {
        printStepCheck(s, *record.submitted.fileSteps, record.submitted.stepReadbacks, record.submitted.run.completed);
        record.result.stepCheckJson = stepCheckJson(s, *record.submitted.fileSteps, record.submitted.stepReadbacks,
                                                    record.submitted.run.completed);
    }
    printGpuTimes(length, record, /*chainKinds=*/false);
}

void FileWorkload::judgeWaiting(const Length& length, RunRecord& record) {
    // A split the CPU model found wrong is no reference: the mode is judged by the CPU model alone
    const sc::ModeBytes* reference = point_->splitWrong ? nullptr : point_->split.get();
    judge(length, record, reference);
    say("  mode={:<9} (classified against {})", name(record.mode()),
        reference            ? "split"
        : point_->splitWrong ? "the CPU model alone: split was wrong"
                             : "the CPU model alone: split did not complete");
    printClassification(length, record);
}

std::string FileWorkload::referenceName() const {
    if (!point_) return "none";
    const bool model = sc::modelCompares(point_->s);
    if (point_->split) return model ? "the CPU model and split" : "split";
    return model ? "the CPU model" : "none";
}

Verdict FileWorkload::decide(const Length& length, const Runs&, const std::vector<ModeResult>& aggregates) const {
    const Session& s = length.session;
    const uint64_t messages = s.options.validation ? s.instance.validationLog().count() : 0;
    const std::string reference = referenceName();
    Verdict verdict = decideVerdict(aggregates, reference == "none" ? "" : reference, false, messages);
    const sc::Scenario& file = point_->s;
    if (verdict.exitStatus == kExitNotReproduced && !verdict.lines.empty()) {
        const bool splitAlone = s.options.modes == std::vector<Mode>{Mode::Split};  // split is the mode itself
        const bool withSplit = point_->split != nullptr && !splitAlone;
        verdict.lines.front() =
            fmt::format("--- NOT REPRODUCED: every mode's checked buffers are {}{}",
                        sc::identicalTo(file, withSplit, splitAlone), sc::splitOnlyNote(file, false));
    }
    if (verdict.exitStatus == kExitValidation && !verdict.lines.empty() && file.hasControl()) {
        verdict.lines.front() = fmt::format(
            "--- VALIDATION: {} message(s) (see stderr); {} is labelled a control (insufficient on purpose), so its "
            "hazards are deliberate and the results say nothing about the driver",
            messages, file.controlSteps());
    }
    if (s.options.submit.every > 0 && s.options.submit.every >= workItems(length)) {
        verdict.lines.insert(verdict.lines.begin(),
                             fmt::format("--- note: --submit-every {} changes nothing here: the file has {} work "
                                         "step(s), which multipass and single still submit once",
                                         s.options.submit.every, workItems(length)));
    }
    return verdict;
}

void FileWorkload::addCauseFacts(const Length& length, const Runs& runs, const RunRecord& r, CauseInput& in) const {
    const bool split = r.mode() == Mode::Split;
    in.file = true;
    in.reference = split || !point_->split ? JudgedAgainst::None : JudgedAgainst::Split;
    for (const RunRecord& other : runs.records) {
        if (other.mode() != Mode::Split || !other.submitted.fileSteps) continue;
        const sc::StepChecker::Result& steps = *other.submitted.fileSteps;
        // Passed only where every step was checked: a user kernel's unchecked step may be the wrong one
        const bool whole = steps.checked && steps.notChecked.empty() && other.submitted.run.completed;
        in.splitStepCheck = steps.firstWrong ? StepCheckState::Failed
                            : whole          ? StepCheckState::Passed
                                             : StepCheckState::NotRun;
        in.splitStepCheckDetail =
            steps.firstWrong ? point_->s.steps[*steps.firstWrong].label + ": " + steps.firstDetail : "";
    }
    if (!split) in.droppedDispatch = length.options().dropDispatch;
}

void FileWorkload::recordForStream(const Length& length, Mode mode) {
    vk::ScenarioRunSettings settings = this->settings(length, {.mode = mode}, Runs{});
    if (length.options().checkSteps && mode == Mode::Split)  // split's readback submits shown, nothing compared
        settings.readback.onStep = [](size_t, const sc::Contents&) {};
    (void)vk::runScenarioMode(device_, *encoder_, point_->pipelines, *point_->buffers, instrumentation_, point_->s,
                              mode, settings);
    recordCanaryForStream(*encoder_, mode);
}

std::string FileWorkload::streamTitle(const Length& length, Mode mode) const {
    return fmt::format("mode {}{}: scenario '{}' (src/vk/scenario_recorder.cpp)", name(mode),
                       length.point.label.empty() ? "" : ", " + length.point.label, escaped(point_->s.name));
}

std::string FileWorkload::streamNote() const {
    return "each mode starts with repro's fresh-state submit (buffers that start as zeros filled, device-local ones "
           "copied from their host twins, the host waiting for it), then the mode's own stream, then the readback "
           "submit where a checked buffer is device-local, then repro's canary (an empty command buffer, submitted and "
           "waited on: a lost device the driver reports only at the next submit shows there); # G marks blade's "
           "global barrier";
}

}  // namespace repro
