// A scenario's modes over its queues (vk/scenario_queues.hpp).
#include "vk/scenario_queues.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/clock.hpp"
#include "vk/barriers.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/scenario_steps.hpp"
#include "vk/trace.hpp"

namespace repro::vk {
namespace sc = repro::scenario;

Ownership::Ownership(const Device& device, const sc::Scenario& s) : s_(s) {
    if (s.usesQueues()) transfers_ = sc::ownershipTransfers(s, queueFamilies(device, s));
}

bool Ownership::releases(size_t step) const {
    return std::any_of(transfers_.begin(), transfers_.end(), [&](const auto& t) { return t.after == step; });
}

void Ownership::releasesAfter(VkCommandBuffer cmd, std::optional<size_t> step, const ScenarioBuffers& mb) const {
    for (const auto& t : transfers_) {
        if (t.after == step) record(cmd, t, mb, true);
    }
}

void Ownership::acquiresBefore(VkCommandBuffer cmd, std::optional<size_t> step, const ScenarioBuffers& mb) const {
    for (const auto& t : transfers_) {
        if (t.before == step) record(cmd, t, mb, false);
    }
}

void Ownership::record(VkCommandBuffer cmd, const sc::OwnershipTransfer& t, const ScenarioBuffers& mb,
                       bool release) const {
    const auto bits = [](uint64_t v) { return static_cast<uint32_t>(v & 0xffffffffu); };
    const uint32_t srcStage = bits(release ? t.srcStage : t.dstStage), srcAccess = release ? bits(t.srcAccess) : 0u;
    const uint32_t dstStage = release ? uint32_t{VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT} : bits(t.dstStage);
    const uint32_t dstAccess = release ? 0u : bits(t.dstAccess);
    const ScenarioImage* image = mb.image(t.buffer);
    trace::note(fmt::format("{} {} '{}': queue {} (family {}) -> queue {} (family {})", release ? "release" : "acquire",
                            image ? "image" : "buffer", t.buffer, s_.queues[t.fromQueue].name, t.fromFamily,
                            s_.queues[t.toQueue].name, t.toFamily));
    if (image)  // in the layout it is in there: no transition
        return recordImageTransition(cmd, image->get(), vkLayout(t.layout), vkLayout(t.layout), {srcStage, srcAccess},
                                     {dstStage, dstAccess}, {t.fromFamily, t.toFamily});
    recordBufferBarrier(cmd, mb.at(t.buffer).get(), srcStage, srcAccess, dstStage, dstAccess, t.fromFamily, t.toFamily);
}

QueueStamps::QueueStamps(const Device& device, bool wanted, const sc::Scenario& s) : device_(device) {
    if (!wanted) return;
    const DeviceInfo& info = device.info();
    nsPerTick_ = info.properties.limits.timestampPeriod;
    for (const uint32_t f : queueFamilies(device, s)) bits_.push_back(info.queueFamilies[f].timestampValidBits);
    pairs_ = static_cast<uint32_t>(std::max<size_t>(s.steps.size(), 1));  // >= split's submits, batches
    const VkQueryPoolCreateInfo poolInfo{.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                         .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                         .queryCount = 2 * pairs_};
    pool_ = device.create(vkCreateQueryPool, poolInfo, "vkCreateQueryPool");
}

void QueueStamps::reset(VkCommandBuffer cmd) const {
    if (pool_) vkCmdResetQueryPool(cmd, pool_.get(), 0, 2 * pairs_);
}

std::vector<double> QueueStamps::collect() const {
    if (!pool_ || written_.empty()) return {};
    std::vector<double> out;
    for (const auto& [k, queue] : written_) {
        if (bits_[queue] == 0) return {};
        uint64_t raw[4] = {};  // (value, availability) twice
        const VkResult r =
            vkGetQueryPoolResults(device_.get(), pool_.get(), 2 * k, 2, sizeof(raw), raw, 2 * sizeof(uint64_t),
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
        if (r != VK_SUCCESS || raw[1] == 0 || raw[3] == 0) return {};
        const uint64_t mask = bits_[queue] >= 64 ? ~0ull : (1ull << bits_[queue]) - 1;
        out.push_back(double((raw[2] - raw[0]) & mask) * nsPerTick_ * 1e-9);
    }
    return out;
}

void QueueStamps::write(VkCommandBuffer cmd, uint32_t k, uint32_t queue, uint32_t half) {
    if (!pool_) return;
    if (half == 0) written_.emplace_back(k, queue);
    if (bits_[queue] == 0) return;  // this family has no timestamps: collect() says so
    vkCmdWriteTimestamp(cmd, half ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT : VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                        pool_.get(), 2 * k + half);
}

ModeQueues makeQueues(const Device& device, Encoder& main, const sc::Scenario& s) {
    ModeQueues q;
    q.encoders.push_back(&main);
    for (size_t i = 1; i < s.queues.size(); ++i) {
        const ExtraQueue& e = device.extraQueues().at(i - 1);
        q.owned.push_back(std::make_unique<Encoder>(device, e.queue, e.family));
        q.encoders.push_back(q.owned.back().get());
    }
    for (size_t i = 0; i < q.encoders.size() && trace::installed() && s.usesQueues(); ++i)
        trace::nameHandle(q.encoders[i]->timeline(), fmt::format("timeline({})", s.queues[i].name));
    for (const auto& spec : s.semaphores) {
        q.semaphores.push_back(createSemaphore(device, spec.timeline));
        trace::nameHandle(q.semaphores.back().get(), spec.name);
    }
    return q;
}

bool readBackStep(Encoder& encoder, const sc::Scenario& s, size_t index, const ScenarioBuffers& mb,
                  const ScenarioRunSettings& settings, ScenarioModeRun& out, const Ownership* ownership) {
    const std::vector<std::string> names = writtenBuffers(s, index);
    if (names.empty()) return true;
    encoder.begin();
    recordBladeGlobalBarrier(encoder.cmd());
    // the images' transitions before any copy (a driver may lose one after work: lost-transitions)
    const auto moved = recordStepImageReadback(encoder.cmd(), s, index, names, mb, false);
    for (const auto& name : names) {
        if (const Buffer* twin = mb.twin(name)) copyWhole(encoder.cmd(), mb.at(name), *twin);
    }
    (void)recordStepImageReadback(encoder.cmd(), s, index, names, mb, true);
    recordHostReadBarrier(encoder.cmd());
    // the step's releases last, after the images are back in the layouts they release them in
    const auto releases = [&] {
        if (!ownership || !ownership->releases(index)) return;
        recordBladeGlobalBarrier(encoder.cmd());
        ownership->releasesAfter(encoder.cmd(), index, mb);
    };
    if (moved.empty()) releases();
    encoder.end();
    ++out.stepReadbacks;
    const double timeout = submitTimeout(settings, 0);
    const std::string what = fmt::format("the readback after {} (--check-steps)", s.steps[index].label);
    if (!noteOutcome(encoder.submitAndWait(timeout), what, timeout, out.run)) return false;
    if (!moved.empty()) {  // the images back to their layouts, in a command buffer of their own
        encoder.begin();
        for (const auto& [image, layout] : moved)
            recordImageTransition(
                encoder.cmd(), image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, layout,
                {VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0},
                {VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT});
        releases();
        encoder.end();
        ++out.stepReadbacks;
        if (!noteOutcome(encoder.submitAndWait(timeout), what + ", its images' layouts back", timeout, out.run))
            return false;
    }
    sc::Contents written;
    for (const auto& name : names) {
        const Buffer* twin = mb.twin(name);
        const Buffer& from = twin ? *twin : mb.at(name);
        const auto* bytes = static_cast<const uint8_t*>(from.mapped);
        written.emplace(name, std::vector<uint8_t>(bytes, bytes + s.buffer(name)->bytes));
    }
    settings.readback.onStep(index, written);
    return true;
}

namespace {

constexpr VkPipelineStageFlags kAllCommands = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;

// One of the mode's own submits as the host saw it (vk::SubmitRecord), holding work numbers
// [first, last] (0: none).
void noteSubmit(ModeRun& run, const std::string& what, uint32_t first, uint32_t last, bool waited,
                Clock::time_point start) {
    ++run.submits;
    run.submitRecords.push_back({.what = what,
                                 .firstDispatch = first,
                                 .lastDispatch = last,
                                 .hostWaited = waited,
                                 .hostSeconds = waited ? secondsSince(start) : 0});
}

// split's submit of step `i` on its queue, waiting on the device for the queue before it.
bool splitStep(QueueWalk& w, size_t i, uint32_t& lastQueue, uint32_t number) {
    const sc::Step& step = w.s.steps[i];
    Encoder& encoder = *w.queues.encoders[step.queue];
    const auto pair = static_cast<uint32_t>(w.out.run.submits);
    const auto start = Clock::now();
    encoder.begin();
    w.stamps.begin(encoder.cmd(), pair, step.queue);
    recordBladeGlobalBarrier(encoder.cmd());
    w.ownership.acquiresBefore(encoder.cmd(), i, w.buffers);
    if (const sc::Barrier* transition = sc::layoutTransition(step))
        recordBarrier(encoder.cmd(), *transition, w.buffers);
    recordWork(encoder, w.pipelines, step, w.buffers);
    const bool readsBack = w.settings.readback.onStep && !writtenBuffers(w.s, i).empty();
    if (!readsBack) w.ownership.releasesAfter(encoder.cmd(), i, w.buffers);
    recordBladeGlobalBarrier(encoder.cmd());
    w.stamps.end(encoder.cmd(), pair, step.queue);
    std::vector<SemaphoreOp> waits;
    const Encoder& previous = *w.queues.encoders[lastQueue];
    if (step.queue != lastQueue && previous.lastValue() > 0)
        waits.push_back({.semaphore = previous.timeline(), .value = previous.lastValue(), .stage = kAllCommands});
    lastQueue = step.queue;
    encoder.end();
    const double timeout = submitTimeout(w.settings, w.settings.stepSeconds.at(i));
    SubmitOutcome out = encoder.submitNoWait(waits, {});
    if (out.status == SubmitStatus::Completed) out = encoder.waitForAll(timeout);
    w.out.run.waitSeconds += out.waitSeconds;
    noteSubmit(w.out.run, step.label, number, number, true, start);
    if (!noteOutcome(out, fmt::format("submit {} ({})", w.out.run.submits, step.label), timeout, w.out.run))
        return false;
    return !readsBack || readBackStep(encoder, w.s, i, w.buffers, w.settings, w.out, &w.ownership);
}

bool recordSplitOnQueues(QueueWalk& w) {
    const std::vector<uint32_t> numbers = workNumbers(w.s);
    uint32_t lastQueue = 0;
    for (size_t i = 0; i < w.s.steps.size(); ++i) {
        // barriers, signals and waits: split orders by its host waits; but a layout transition,
        // which is a use of its image (sc::ownershipTransfers), gets a submit of its own
        if (numbers[i] == 0 && !sc::layoutTransition(w.s.steps[i])) continue;
        if (!splitStep(w, i, lastQueue, numbers[i])) return false;
    }
    return true;
}

void batchSemaphores(const ModeQueues& q, const sc::Scenario& s, const sc::Batch& batch, bool firstOnQueue,
                     uint64_t upload, std::vector<SemaphoreOp>& waits, std::vector<SemaphoreOp>& signals) {
    for (const size_t i : batch.waits) {
        const auto& w = std::get<sc::Wait>(s.steps[i].body);
        waits.push_back({.semaphore = q.semaphores[w.semaphore].get(),
                         .value = w.value,
                         .stage = static_cast<VkPipelineStageFlags>(w.stage & 0xffffffffu)});
    }
    if (batch.queue != 0 && firstOnQueue && upload > 0)
        waits.push_back({.semaphore = q.encoders[0]->timeline(), .value = upload, .stage = kAllCommands});
    for (const size_t i : batch.signals) {
        const auto& sig = std::get<sc::Signal>(s.steps[i].body);
        signals.push_back({.semaphore = q.semaphores[sig.semaphore].get(), .value = sig.value});
    }
}

// One batch's command buffer on its queue: its steps as `mode` records them.
void recordBatch(QueueWalk& w, const sc::Batch& batch, Mode mode, bool firstOnQueue, bool lastOnQueue, uint32_t k,
                 const std::vector<uint32_t>& numbers, uint32_t& firstWork, uint32_t& lastWork) {
    Encoder& encoder = *w.queues.encoders[batch.queue];
    encoder.begin();
    w.stamps.begin(encoder.cmd(), k, batch.queue);
    if (mode == Mode::Single && firstOnQueue) recordBladeGlobalBarrier(encoder.cmd());
    for (const size_t i : batch.work) {
        w.ownership.acquiresBefore(encoder.cmd(), i, w.buffers);  // a barrier's: its layout transition's
        if (const auto* barrier = std::get_if<sc::Barrier>(&w.s.steps[i].body)) {
            if (inMode(w.s.steps[i], mode)) recordBarrier(encoder.cmd(), *barrier, w.buffers);
        } else if (w.settings.droppedStep != i) {  // --drop-dispatch: the positive control leaves it out
            if (mode == Mode::Multipass) recordBladeGlobalBarrier(encoder.cmd());
            recordWork(encoder, w.pipelines, w.s.steps[i], w.buffers);
        }
        w.ownership.releasesAfter(encoder.cmd(), i, w.buffers);
        if (numbers[i] != 0) {
            if (firstWork == 0) firstWork = numbers[i];
            lastWork = numbers[i];
        }
    }
    if (lastOnQueue) recordBladeGlobalBarrier(encoder.cmd());
    w.stamps.end(encoder.cmd(), k, batch.queue);
    encoder.end();
}

bool recordBatches(QueueWalk& w, Mode mode) {
    const sc::Scenario& s = w.s;
    const std::vector<sc::Batch> batches = sc::batchesOf(s);
    std::vector<size_t> first(s.queues.size(), batches.size()), last(s.queues.size(), 0);
    for (size_t b = 0; b < batches.size(); ++b) {
        first[batches[b].queue] = std::min(first[batches[b].queue], b);
        last[batches[b].queue] = b;
    }
    const uint64_t upload = w.queues.encoders[0]->lastValue();
    const std::vector<uint32_t> numbers = workNumbers(s);
    const double budget = std::accumulate(w.settings.stepSeconds.begin(), w.settings.stepSeconds.end(), 0.0);
    for (size_t b = 0; b < batches.size(); ++b) {
        const sc::Batch& batch = batches[b];
        uint32_t firstWork = 0, lastWork = 0;
        recordBatch(w, batch, mode, b == first[batch.queue], b == last[batch.queue], static_cast<uint32_t>(b), numbers,
                    firstWork, lastWork);
        std::vector<SemaphoreOp> waits, signals;
        batchSemaphores(w.queues, s, batch, b == first[batch.queue], upload, waits, signals);
        const std::string what =
            fmt::format("batch {} of {} on queue {}", b + 1, batches.size(), s.queues[batch.queue].name);
        trace::note(fmt::format("submit {}: {}", w.out.run.submits + 1, what));
        const auto start = Clock::now();
        const SubmitOutcome out = w.queues.encoders[batch.queue]->submitNoWait(waits, signals);
        noteSubmit(w.out.run, what, firstWork, lastWork, false, start);
        if (!noteOutcome(out, fmt::format("submit {} ({})", w.out.run.submits, what), 0, w.out.run)) return false;
    }
    const double timeout = submitTimeout(w.settings, budget);
    for (size_t i = 0; i < w.queues.encoders.size(); ++i) {
        const SubmitOutcome out = w.queues.encoders[i]->waitForAll(timeout);
        w.out.run.waitSeconds += out.waitSeconds;
        if (!noteOutcome(out, fmt::format("the wait for queue {}", s.queues[i].name), timeout, w.out.run)) return false;
    }
    return true;
}

}  // namespace

bool recordOnQueues(QueueWalk& walk, Mode mode) {
    return mode == Mode::Split ? recordSplitOnQueues(walk) : recordBatches(walk, mode);
}

}  // namespace repro::vk
