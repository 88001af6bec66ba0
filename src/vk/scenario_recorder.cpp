// The step walker (vk/scenario_recorder.hpp): one mode of a scenario on the main queue, or over
// the file's queues (vk/scenario_queues.hpp), from fresh state to the checked bytes.
#include "vk/scenario_recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <optional>
#include <utility>
#include <variant>

#include "core/clock.hpp"
#include "core/parallel.hpp"
#include "reference/host_read.hpp"
#include "vk/barriers.hpp"
#include "vk/device.hpp"
#include "vk/encoder.hpp"
#include "vk/instrumentation.hpp"
#include "vk/scenario_queues.hpp"
#include "vk/scenario_steps.hpp"
#include "vk/stress.hpp"
#include "vk/trace.hpp"
#include "vk/watch.hpp"

namespace repro::vk {
namespace sc = repro::scenario;

namespace {

// The host's access at host point `index` of `s`: its words written into the buffer's mapped
// memory, or all of it read into out.hostReads (HOST_COHERENT: no flush or invalidate). The
// caller has waited for every earlier submit and, before a read, recorded H after them.
void hostPoint(const sc::Scenario& s, size_t index, const ScenarioBuffers& mb, ScenarioModeRun& out) {
    if (const auto* h = std::get_if<sc::HostWrite>(&s.steps[index].body)) {
        auto* bytes = static_cast<uint8_t*>(mb.at(h->buffer).mapped);
        std::memcpy(bytes + h->offset, h->words.data(), h->words.size() * 4);
    } else if (const auto* r = std::get_if<sc::HostRead>(&s.steps[index].body)) {
        const auto* bytes = static_cast<const uint8_t*>(mb.at(r->buffer).mapped);
        out.hostReads[index] = std::vector<uint8_t>(bytes, bytes + s.buffer(r->buffer)->bytes);
    }
}

// How many of the mode's own submits `mode` makes of `s` on one queue (for "submit 3 of 5").
uint64_t submitCount(const sc::Scenario& s, Mode mode, const ScenarioRunSettings& settings) {
    uint64_t n = 0;
    bool open = false;  // a one-submit mode has work in the submit being recorded
    for (size_t i = 0; i < s.steps.size(); ++i) {
        const sc::Step& step = s.steps[i];
        const bool read = std::holds_alternative<sc::HostRead>(step.body);
        if (mode == Mode::Split) {
            n += isWork(step) || read;
            continue;
        }
        if (isHostPoint(step)) n += 1, open = false;
        if (isWork(step)) open = true;
        if (open && i < settings.cutAfter.size() && settings.cutAfter[i]) n += 1, open = false;
    }
    return mode == Mode::Split ? n : n + 1;
}

// One mode on the main queue: the mode's command buffers through a Recording (the vocabulary
// of the built-in chain's recorders), the host points between them.
struct OneQueueWalk {
    // split: one submit per work step, [begin, G, step, G, end], waited; a host write between two
    // submits; a host read after a submit of its own [begin, G, H, end]; the last submit ends
    // with H, after the file's layout transitions that follow its step (or host read). With
    // --check-steps each step's written buffers are read back after its submit.
    bool split() {
        const size_t last = lastSplitSubmit();
        for (size_t i = 0; i < s_.steps.size(); ++i) {
            const sc::Step& step = s_.steps[i];
            const bool read = std::holds_alternative<sc::HostRead>(step.body);
            if (std::holds_alternative<sc::HostWrite>(step.body)) hostPoint(s_, i, buffers_, out_);
            if (!isWork(step) && !read) continue;
            rec_.begin();
            if (!read) {
                rec_.barrierG();
                transitionsBefore(i, std::exchange(transitioned_, i + 1));
                work(i);
            }
            if (i == last) transitionsBefore(s_.steps.size(), std::exchange(transitioned_, s_.steps.size()));
            rec_.finish(/*hostRead=*/read || i == last);
            if (!rec_.submitAndWait(step.label, submitTimeout(settings_, budgetOf(i)))) return false;
            if (read) hostPoint(s_, i, buffers_, out_);
            if (!read && settings_.readback.onStep && !readBackStep(encoder_, s_, i, buffers_, settings_, out_))
                return false;
        }
        return true;
    }

    // multipass and single: one submit, ended and begun again at each host point and after
    // each step settings.cutAfter marks; multipass puts G before each work step (its own
    // compute pass), single G once at each command buffer's start; barriers as written where
    // the mode records them; the dropped step (--drop-dispatch) left out; --stress's commands
    // at each command buffer's start.
    bool onePass(Mode mode) {
        beginPass(mode);
        for (size_t i = 0; i < s_.steps.size(); ++i) {
            const sc::Step& step = s_.steps[i];
            if (const auto* b = std::get_if<sc::Barrier>(&step.body)) {
                if (inMode(step, mode)) recordBarrier(rec_.cmd(), *b, buffers_);
                continue;
            }
            if (isHostPoint(step)) {
                const bool read = std::holds_alternative<sc::HostRead>(step.body);
                if (!endPass(fmt::format("before {}", step.label), read, true)) return false;
                hostPoint(s_, i, buffers_, out_);
                beginPass(mode);
                continue;
            }
            if (!isWork(step) || settings_.droppedStep == i) continue;
            if (mode == Mode::Multipass) rec_.barrierG();
            work(i);
            pending_ += budgetOf(i);
            if (i >= settings_.cutAfter.size() || !settings_.cutAfter[i] || !workFollows(i)) continue;
            if (!endPass(fmt::format("after {}", step.label), false, settings_.hostWait)) return false;
            beginPass(mode);
        }
        return endPass(lastSubmitName(), true, true);
    }

    // split: the image barriers with a layout transition among steps [from, to), recorded as
    // the file writes them between split's G barriers, so that the layouts are the file's
    // (split records no other barrier of the file).
    void transitionsBefore(size_t to, size_t from) {
        for (size_t j = from; j < to; ++j) {
            const auto* b = std::get_if<sc::Barrier>(&s_.steps[j].body);
            if (b && b->kind == sc::BarrierKind::Image && b->oldLayout != b->newLayout)
                recordBarrier(rec_.cmd(), *b, buffers_);
        }
    }
    void work(size_t i) {
        rec_.beforeWork(numbers_[i], rec_.namesWork() ? s_.steps[i].label : std::string(), s_.steps[i].label);
        recordWork(encoder_, pipelines_, s_.steps[i], buffers_);
        rec_.afterWork(numbers_[i]);
    }
    void beginPass(Mode mode) {
        rec_.begin();
        if (mode == Mode::Single) rec_.barrierG();
        if (!settings_.stress) return;
        if (mode == Mode::Multipass) rec_.barrierG();  // single's G is there already
        recordStress(encoder_, *settings_.stress, buffers_);
    }
    // Ends the open command buffer (G, and H before the host reads) and submits it, the host
    // waiting for it when `wait`.
    bool endPass(const std::string& what, bool hostRead, bool wait) {
        rec_.finish(hostRead);
        if (!wait) return rec_.submitNoWait(what);
        const double timeout = submitTimeout(settings_, std::exchange(pending_, 0.0));
        return rec_.submitAndWait(what, timeout);
    }
    double budgetOf(size_t i) const { return i < settings_.stepSeconds.size() ? settings_.stepSeconds[i] : 0.0; }
    // Whether a work step comes after step `index` before the next host point.
    bool workFollows(size_t index) const {
        for (size_t j = index + 1; j < s_.steps.size(); ++j) {
            if (isHostPoint(s_.steps[j])) return false;
            if (isWork(s_.steps[j]) && settings_.droppedStep != j) return true;
        }
        return false;
    }
    // The step index of split's last submit (the one that ends with H).
    size_t lastSplitSubmit() const {
        size_t last = s_.steps.size();
        for (size_t i = 0; i < s_.steps.size(); ++i) {
            if (isWork(s_.steps[i]) || std::holds_alternative<sc::HostRead>(s_.steps[i].body)) last = i;
        }
        return last;
    }
    std::string lastSubmitName() const {
        if (std::any_of(s_.steps.begin(), s_.steps.end(), isHostPoint)) return "after the last host point";
        if (std::find(settings_.cutAfter.begin(), settings_.cutAfter.end(), true) != settings_.cutAfter.end())
            return "the last";
        return fmt::format("all {} steps", s_.steps.size());
    }

    const sc::Scenario& s_;
    const ScenarioPipelines& pipelines_;
    const ScenarioBuffers& buffers_;
    const ScenarioRunSettings& settings_;
    Recording& rec_;
    Encoder& encoder_;
    ScenarioModeRun& out_;
    std::vector<uint32_t> numbers_ = workNumbers(s_);
    double pending_ = 0;       // the budget of the work steps since the last host wait
    size_t transitioned_ = 0;  // split: the image barriers before this step index are recorded
};

// Below this many checked bytes the host copies are made on the caller at the readback.
constexpr uint64_t kBackgroundCopyBytes = 1 << 20;

// The host copies of the checked buffers (zeros, `bytes` long each), made on a thread of
// their own (startInBackground) while the GPU runs the mode, so that their page faults and
// zeroing are not part of the readback, as the built-in chain's host copies are made
// (engine/chain_workload.cpp hostCopiesInBackground); get() rethrows std::bad_alloc.
std::future<sc::Contents> hostCopiesInBackground(const sc::Scenario& s) {
    std::vector<std::pair<std::string, uint64_t>> sizes;
    uint64_t bytes = 0;
    for (const auto& spec : s.buffers) {
        if (spec.checked) sizes.emplace_back(spec.name, spec.bytes), bytes += spec.bytes;
    }
    auto make = [sizes = std::move(sizes)] {
        sc::Contents copies;
        for (const auto& [name, size] : sizes) copies.emplace(name, std::vector<uint8_t>(size));
        return copies;
    };
    if (bytes < kBackgroundCopyBytes) return std::async(std::launch::deferred, std::move(make));
    return startInBackground(std::move(make));
}

// The fresh-state submit on the main queue (scenario_steps.hpp recordFreshState), then the
// releases to the queues that use a buffer first; waited. Not one of the mode's submits.
bool freshState(Encoder& encoder, Instrumentation& instrumentation, const sc::Scenario& s, const ScenarioBuffers& mb,
                const Ownership& ownership, const QueueStamps& stamps, const ScenarioRunSettings& settings,
                ModeRun& run) {
    trace::note("the fresh-state submit (repro's, not the file's)");
    encoder.begin();
    instrumentation.startMode(encoder.cmd());
    recordFreshState(encoder.cmd(), s, mb);
    ownership.releasesAfter(encoder.cmd(), std::nullopt, mb);
    stamps.reset(encoder.cmd());
    encoder.end();
    const double timeout = submitTimeout(settings, 0);
    return noteOutcome(encoder.submitAndWait(timeout), "the fresh-state submit", timeout, run);
}

// The checked buffers that are device-local copied to their host twins, [begin, (acquires
// back to the main queue), G, copies, G, H, end], after every other queue's work; then the
// host copies every checked buffer's bytes out. Skipped on one queue when no checked buffer
// is device-local (the mode's last submit ended with H).
bool readBack(Encoder& encoder, const ModeQueues& queues, const sc::Scenario& s, const ScenarioBuffers& mb,
              const Ownership& ownership, const ScenarioRunSettings& settings, std::future<sc::Contents>& copies,
              ScenarioModeRun& out) {
    const bool copiesNeeded = std::any_of(s.buffers.begin(), s.buffers.end(), [&](const sc::BufferSpec& b) {
        return b.checked && (mb.twin(b.name) || b.image);
    });
    if (copiesNeeded || s.usesQueues()) {
        trace::note("the readback submit (repro's, not the file's)");
        encoder.begin();
        ownership.acquiresBefore(encoder.cmd(), std::nullopt, mb);
        recordBladeGlobalBarrier(encoder.cmd());
        for (const auto& spec : s.buffers) {
            if (spec.checked && mb.twin(spec.name)) copyWhole(encoder.cmd(), mb.at(spec.name), *mb.twin(spec.name));
        }
        for (bool copy : {false, true}) {  // every image's transition before any image's copy
            for (const auto& spec : s.buffers) {
                if (spec.checked && spec.image) recordImageReadback(encoder.cmd(), spec, mb, copy);
            }
        }
        recordBladeGlobalBarrier(encoder.cmd());
        recordHostReadBarrier(encoder.cmd());
        encoder.end();
        std::vector<SemaphoreOp> afterQueues;  // the readback waits for every other queue's work
        for (size_t i = 1; i < queues.encoders.size(); ++i) {
            const Encoder& other = *queues.encoders[i];
            if (other.lastValue() > 0)
                afterQueues.push_back({.semaphore = other.timeline(),
                                       .value = other.lastValue(),
                                       .stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT});
        }
        const double timeout = submitTimeout(settings, 0);
        SubmitOutcome result = encoder.submitNoWait(afterQueues, {});
        if (result.status == SubmitStatus::Completed) result = encoder.waitForAll(timeout);
        if (!noteOutcome(result, "the readback submit", timeout, out.run)) return false;
    }
    out.checked = copies.get();
    for (const auto& spec : s.buffers) {
        if (!spec.checked) continue;
        const Buffer* twin = mb.twin(spec.name);
        const Buffer& from = twin ? *twin : mb.at(spec.name);
        copyFromMapped(out.checked.at(spec.name).data(), from.mapped, spec.bytes);  // as the built-in reads small[N]
    }
    return true;
}

// Records and submits the mode's own command buffers on one queue or over the file's queues.
ModeRun recordMode(Device& device, const ScenarioPipelines& pipelines, const ScenarioBuffers& mb,
                   Instrumentation& instrumentation, const sc::Scenario& s, Mode mode,
                   const ScenarioRunSettings& settings, ModeQueues& queues, const Ownership& ownership,
                   QueueStamps& stamps, ScenarioModeRun& out) {
    if (s.usesQueues()) {
        QueueWalk walk{.s = s,
                       .pipelines = pipelines,
                       .buffers = mb,
                       .queues = queues,
                       .ownership = ownership,
                       .stamps = stamps,
                       .settings = settings,
                       .out = out};
        const auto start = Clock::now();
        out.run.completed = recordOnQueues(walk, mode);
        out.run.recordSeconds = std::max(0.0, secondsSince(start) - out.run.waitSeconds);
        out.run.gpu.submitSeconds = stamps.collect();
        return std::move(out.run);
    }
    Recording rec(device, *queues.encoders[0], instrumentation, submitCount(s, mode, settings));
    OneQueueWalk walk{s, pipelines, mb, settings, rec, *queues.encoders[0], out};
    // --check-steps' readbacks (OneQueueWalk::split) note their failures in `out.run`
    const bool done = mode == Mode::Split ? walk.split() : walk.onePass(mode);
    ModeRun run = done ? rec.completed() : rec.stopped();
    if (!done) noteOutcome(out.run.failure, out.run.failedSubmit, out.run.failedTimeout, run);
    return run;
}

}  // namespace

ScenarioModeRun runScenarioMode(Device& device, Encoder& encoder, const ScenarioPipelines& pipelines,
                                ScenarioBuffers& mb, Instrumentation& instrumentation, const sc::Scenario& s, Mode mode,
                                const ScenarioRunSettings& settings) {
    ScenarioModeRun out;
    const auto start = Clock::now();
    watch::stage(watch::Stage::Modes, fmt::format("mode {}: the fresh-state submit", name(mode)), name(mode));
    mb.restore();
    std::future<sc::Contents> copies = hostCopiesInBackground(s);
    ModeQueues queues = makeQueues(device, encoder, s);
    QueueStamps stamps(device, instrumentation.timestamps() && s.usesQueues(), s);
    const Ownership ownership(device, s);
    // Declared after the queues, so destroyed before them: abandons the device first when a
    // wait timed out, since the GPU may still use what the mode made (the caller's buffers
    // then leak with it).
    struct AbandonOnTimeout {
        Device& device;
        const ScenarioModeRun& out;
        ~AbandonOnTimeout() {
            if (out.run.failure.status == SubmitStatus::Timeout) device.abandon();
        }
    } guard{device, out};
    if (!freshState(*queues.encoders[0], instrumentation, s, mb, ownership, stamps, settings, out.run)) {
        out.run.wallSeconds = secondsSince(start);
        return out;
    }
    out.buffersAndUpload = secondsSince(start);
    trace::note(fmt::format("mode {}: the file's steps", name(mode)));
    ModeRun run = recordMode(device, pipelines, mb, instrumentation, s, mode, settings, queues, ownership, stamps, out);
    out.run = std::move(run);
    if (out.run.completed) {
        const auto phase = Clock::now();
        out.run.completed = readBack(*queues.encoders[0], queues, s, mb, ownership, settings, copies, out);
        out.readback = secondsSince(phase);
    }
    // repro's canary on each of the file's other queues (the main queue's is the engine's:
    // engine/stages.hpp checkCanary): a job stopped there shows at that queue's next submit.
    for (size_t q = 1; out.run.completed && q < queues.encoders.size(); ++q) {
        const std::string what = fmt::format("repro's canary on queue '{}' after the mode", s.queues[q].name);
        const double timeout = settings.fixed.value_or(kCanarySeconds);
        const SubmitOutcome c = submitCanary(*queues.encoders[q], name(mode), what, timeout);
        if (!noteOutcome(c, what, timeout, out.run)) {
            out.run.canary = c;
            out.run.completed = false;
        }
    }
    out.run.wallSeconds = secondsSince(start);
    return out;
}

}  // namespace repro::vk
