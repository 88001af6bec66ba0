// Records and runs a scenario in one mode (vk/scenario_recorder.hpp).
#include "vk/scenario_recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.hpp"
#include "reference/host_read.hpp"
#include "core/parallel.hpp"
#include "scenario/scenario_sync.hpp"
#include "vk/barriers.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/encoder.hpp"
#include "vk/memory.hpp"
#include "vk/trace.hpp"

extern const uint32_t conv_t_spv[];
extern const size_t conv_t_spv_words;
extern const uint32_t slice_spv[];
extern const size_t slice_spv_words;
extern const uint32_t scenario_increment_spv[];
extern const size_t scenario_increment_spv_words;
extern const uint32_t scenario_copy_spv[];
extern const size_t scenario_copy_spv_words;
extern const uint32_t scenario_noop_spv[];
extern const size_t scenario_noop_spv_words;
extern const uint32_t scenario_compare_swap_spv[];
extern const size_t scenario_compare_swap_spv_words;
extern const uint32_t scenario_private_array_spv[];
extern const size_t scenario_private_array_spv_words;
extern const uint32_t scenario_work_spv[];
extern const size_t scenario_work_spv_words;
extern const uint32_t scenario_indirect_writer_spv[];
extern const size_t scenario_indirect_writer_spv_words;

namespace repro::vk {
namespace sc = repro::scenario;

const ComputePipeline& ScenarioPipelines::of(sc::Kernel k) const {
    if (k == sc::Kernel::CompareSwap) return compareSwap;
    if (k == sc::Kernel::Work) return work;
    if (k == sc::Kernel::IndirectWriter) return indirectWriter;
    if (k == sc::Kernel::ConvT) return convT;
    if (k == sc::Kernel::Slice) return slice;
    return k == sc::Kernel::Increment ? increment : k == sc::Kernel::Copy ? copy : noop;
}

const ComputePipeline& ScenarioPipelines::forDispatch(const sc::Dispatch& d) const {
    if (!d.user.empty()) return user.at(d.user);
    return d.kernel == sc::Kernel::PrivateArray ? privateArray.at(d.privateWords) : of(d.kernel);
}

// The built-in kernels the steps of `s` dispatch (not private-array, made per size below).
std::set<sc::Kernel> usedKernels(const sc::Scenario& s) {
    std::set<sc::Kernel> used;
    for (const auto& step : s.steps) {
        const auto* d = std::get_if<sc::Dispatch>(&step.body);
        if (d && d->user.empty()) used.insert(d->kernel);
    }
    return used;
}

ScenarioPipelines createScenarioPipelines(const Device& device, const sc::Scenario& s) {
    // Only the kernels the steps use: each pipeline is a shader compile in the driver, which a
    // run pays for before its first submit (bench/overhead.sh --scenario).
    ScenarioPipelines out;
    const std::set<sc::Kernel> used = usedKernels(s);
    const PipelineOptions builtIn{.pushConstantBytes = sizeof(sc::KernelParams)};
    const auto make = [&](sc::Kernel k, ComputePipeline& into, std::span<const uint32_t> spirv, uint32_t bindings) {
        if (!used.count(k)) return;
        into = createComputePipeline(device, std::string(sc::name(k)), spirv, bindings, builtIn);
        if (trace::installed()) trace::nameObject(reinterpret_cast<uint64_t>(into.pipeline.get()), into.name);
    };
    make(sc::Kernel::Increment, out.increment, std::span(scenario_increment_spv, scenario_increment_spv_words), 1);
    make(sc::Kernel::Copy, out.copy, std::span(scenario_copy_spv, scenario_copy_spv_words), 2);
    make(sc::Kernel::Noop, out.noop, std::span(scenario_noop_spv, scenario_noop_spv_words), 1);
    make(sc::Kernel::CompareSwap, out.compareSwap,
         std::span(scenario_compare_swap_spv, scenario_compare_swap_spv_words), 1);
    make(sc::Kernel::Work, out.work, std::span(scenario_work_spv, scenario_work_spv_words), 1);
    make(sc::Kernel::IndirectWriter, out.indirectWriter,
         std::span(scenario_indirect_writer_spv, scenario_indirect_writer_spv_words), 1);
    // blade #356's kernels as the built-in chain makes them (engine/rig.cpp, the default profile: every
    // binding a storage buffer, no push constants), named as its pipelines are
    if (used.count(sc::Kernel::ConvT))
        out.convT = createComputePipeline(device, "conv_t", std::span(conv_t_spv, conv_t_spv_words), 4);
    if (used.count(sc::Kernel::Slice))
        out.slice = createComputePipeline(device, "slice", std::span(slice_spv, slice_spv_words), 3);
    for (const ComputePipeline* p : {&out.convT, &out.slice}) {
        if (p->pipeline && trace::installed())
            trace::nameObject(reinterpret_cast<uint64_t>(p->pipeline.get()), p->name);
    }
    for (const auto& step : s.steps) {
        const auto* d = std::get_if<sc::Dispatch>(&step.body);
        if (!d || !d->user.empty() || d->kernel != sc::Kernel::PrivateArray || out.privateArray.count(d->privateWords))
            continue;
        PipelineOptions options{.pushConstantBytes = sizeof(sc::KernelParams)};
        options.specialization = {d->privateWords};
        out.privateArray.emplace(
            d->privateWords,
            createComputePipeline(device, fmt::format("private-array {}", d->privateWords),
                                  std::span(scenario_private_array_spv, scenario_private_array_spv_words), 2, options));
        if (trace::installed()) {
            const ComputePipeline& p = out.privateArray.at(d->privateWords);
            trace::nameObject(reinterpret_cast<uint64_t>(p.pipeline.get()), p.name);
        }
    }
    for (const sc::UserKernel& k : s.kernels) {
        const PipelineOptions options{.entryPoint = k.entry, .pushConstantBytes = sizeof(sc::KernelParams)};
        const auto& p = out.user
                            .emplace(k.name, createComputePipeline(device, k.name, k.words,
                                                                   static_cast<uint32_t>(k.writes.size()), options))
                            .first->second;
        if (trace::installed()) trace::nameObject(reinterpret_cast<uint64_t>(p.pipeline.get()), p.name);
    }
    return out;
}

namespace {

// The queue family each of the scenario's queues landed in ([0] the main queue's).
std::vector<uint32_t> queueFamilies(const Device& device, const sc::Scenario& s) {
    std::vector<uint32_t> out{device.queueFamily()};
    for (size_t q = 1; q < s.queues.size(); ++q) out.push_back(device.extraQueues().at(q - 1).family);
    return out;
}

// Those families, each once, the main one first: two or more make a buffer with `sharing =
// "concurrent"` VK_SHARING_MODE_CONCURRENT among them; the others stay exclusive, and their
// queue family ownership transfers are recorded (Ownership below).
std::vector<uint32_t> familiesOf(const Device& device, const sc::Scenario& s) {
    std::vector<uint32_t> out;
    for (const uint32_t f : queueFamilies(device, s)) {
        if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
    }
    return out;
}

// Whether a buffer's initial words are all zero (init zero, or undefined, which repro zeroes).
bool startsZero(const sc::BufferSpec& spec) {
    return spec.init == sc::InitKind::Zero || spec.init == sc::InitKind::Undefined;
}

}  // namespace

ScenarioMemory scenarioMemory(sc::Placement p) {
    switch (p) {
        case sc::Placement::DeviceLocal:
            return {MemoryClass::Device, BufferMemory::DeviceLocal};
        case sc::Placement::HostVisible:
            return {MemoryClass::Device, BufferMemory::HostVisible};
        case sc::Placement::Shared:
            return {MemoryClass::Shared, BufferMemory::Blade};
    }
    return {MemoryClass::Device, BufferMemory::DeviceLocal};
}

ScenarioBuffers::ScenarioBuffers(const Device& device, const sc::Scenario& s, bool stepReadbacks)
    : s_(s), allocator_(device, false) {
    const std::vector<uint32_t> families = familiesOf(device, s);
    std::set<std::string> written;  // by a step or a host write, in any mode (writtenRanges)
    for (const auto& step : s.steps) {
        for (const sc::WrittenRange& r : sc::writtenRanges(step, s)) written.insert(r.buffer);
    }
    for (const auto& spec : s.buffers) {
        const bool host = spec.placement != sc::Placement::DeviceLocal;  // mapped
        const ScenarioMemory memory = scenarioMemory(spec.placement);
        Buffer b = allocator_.create(spec.name, spec.bytes, memory.memoryClass,
                                     {.placement = memory.placement,
                                      .concurrentFamilies = spec.concurrent ? families : std::vector<uint32_t>{}});
        const bool zero = startsZero(spec);
        // A device-local buffer that starts as zeros is filled by the upload submit; it needs
        // a twin only to be read back.
        if (!host && (!zero || spec.checked || stepReadbacks)) {
            // concurrent among the families: --check-steps reads back into it on a step's queue
            twins_.emplace(spec.name,
                           allocator_.create(spec.name + " (host twin)", spec.bytes, MemoryClass::Device,
                                             {.placement = BufferMemory::HostVisible, .concurrentFamilies = families}));
        }
        // Zero buffers, host-visible ones included, are filled by each mode's upload submit;
        // a twin of one is only read into.
        void* mapped = host ? b.mapped : twins_.count(spec.name) ? twins_.at(spec.name).mapped : nullptr;
        if (mapped && !zero) {
            // kept when restore() writes them again: a host-visible buffer that something
            // writes or the host writes before each mode (init = "host"), or a twin read into
            const bool rewritten =
                host ? written.count(spec.name) || spec.init == sc::InitKind::Host : spec.checked || stepReadbacks;
            // host, chain-input and chain-weight words that the parse made whole (no copy)
            const bool whole = (spec.init == sc::InitKind::Host || spec.init == sc::InitKind::ChainInput ||
                                spec.init == sc::InitKind::ChainWeight) &&
                               spec.words.size() * 4 == spec.bytes;
            if (whole && !rewritten) {
                copyToMapped(mapped, spec.words.data(), spec.bytes);
            } else {
                std::vector<uint32_t> words = sc::initialWords(spec);
                copyToMapped(mapped, words.data(), spec.bytes);
                if (rewritten) initial_.emplace(spec.name, std::move(words));
            }
        }
        buffers_.emplace(spec.name, std::move(b));
    }
    // conv_params and slice_params, the uniform blocks of the built-in chain (core/shape.hpp
    // convParams, sliceParams) for the file's shape, when a step dispatches conv-t or slice
    const std::set<sc::Kernel> used = usedKernels(s);
    if (s.shape && (used.count(sc::Kernel::ConvT) || used.count(sc::Kernel::Slice))) {
        const ChainSizes sizes = computeSizes(*s.shape);
        const auto make = [&](const char* name, const void* bytes, uint64_t size) {
            // blade's Shared class, where the built-in chain puts them (vk/buffers.cpp)
            Buffer b = allocator_.create(name, size, MemoryClass::Shared, {.placement = BufferMemory::Blade});
            std::memcpy(b.mapped, bytes, size);  // HOST_COHERENT: no flush
            return b;
        };
        const ConvParams conv = repro::convParams(*s.shape, sizes);
        const SliceParams slice = repro::sliceParams(*s.shape, sizes);
        if (used.count(sc::Kernel::ConvT)) convParams_ = make("conv_params", &conv, sizeof(conv));
        if (used.count(sc::Kernel::Slice)) sliceParams_ = make("slice_params", &slice, sizeof(slice));
    }
    if (!trace::installed()) return;  // --print-stream: the lines name buffers as the file does
    for (const std::optional<Buffer>* b : {&convParams_, &sliceParams_}) {
        if (*b) trace::nameObject(reinterpret_cast<uint64_t>((*b)->get()), (*b)->name);
    }
    for (const auto& [name, b] : buffers_) trace::nameObject(reinterpret_cast<uint64_t>(b.get()), name);
    for (const auto& [name, b] : twins_) trace::nameObject(reinterpret_cast<uint64_t>(b.get()), name + " (host twin)");
}

const Buffer* ScenarioBuffers::twin(const std::string& name) const {
    const auto it = twins_.find(name);
    return it == twins_.end() ? nullptr : &it->second;
}

void ScenarioBuffers::restore() {
    if (std::exchange(fresh_, false)) return;
    for (const auto& spec : s_.buffers) {
        const auto words = initial_.find(spec.name);
        if (words == initial_.end()) continue;
        const Buffer& to = twins_.count(spec.name) ? twins_.at(spec.name) : buffers_.at(spec.name);
        copyToMapped(to.mapped, words->second.data(), spec.bytes);
    }
}

namespace {

void copyWhole(VkCommandBuffer cmd, const Buffer& from, const Buffer& to) {
    const VkBufferCopy region{.srcOffset = 0, .dstOffset = 0, .size = from.size};
    vkCmdCopyBuffer(cmd, from.get(), to.get(), 1, &region);
}

// The barrier step as the file gives it.
void recordBarrier(VkCommandBuffer cmd, const sc::Barrier& b, const ScenarioBuffers& mb) {
    using K = sc::BarrierKind;
    if (b.kind == K::None) return;
    if (b.kind == K::BladeGlobal) return recordBladeGlobalBarrier(cmd);
    if (b.kind == K::BladeCompute) return recordBladeComputeBarrier(cmd);
    const VkBuffer buffer = b.kind == K::Buffer ? mb.at(b.buffer).get() : VK_NULL_HANDLE;
    const bool memory = b.kind != K::ExecutionOnly;
    if (b.sync2) {
        const VkMemoryBarrier2 global{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                                      .srcStageMask = b.srcStage,
                                      .srcAccessMask = memory ? b.srcAccess : 0,
                                      .dstStageMask = b.dstStage,
                                      .dstAccessMask = memory ? b.dstAccess : 0};
        const VkBufferMemoryBarrier2 onBuffer{.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
                                              .srcStageMask = b.srcStage,
                                              .srcAccessMask = b.srcAccess,
                                              .dstStageMask = b.dstStage,
                                              .dstAccessMask = b.dstAccess,
                                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                              .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                              .buffer = buffer,
                                              .offset = 0,
                                              .size = VK_WHOLE_SIZE};
        const bool isBuffer = b.kind == K::Buffer;
        const VkDependencyInfo dependency{.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                                          .memoryBarrierCount = isBuffer ? 0u : 1u,
                                          .pMemoryBarriers = isBuffer ? nullptr : &global,
                                          .bufferMemoryBarrierCount = isBuffer ? 1u : 0u,
                                          .pBufferMemoryBarriers = isBuffer ? &onBuffer : nullptr};
        return vkCmdPipelineBarrier2(cmd, &dependency);
    }
    const auto stage = [](uint64_t bits) { return static_cast<VkPipelineStageFlags>(bits & 0xffffffffu); };
    const auto access = [](uint64_t bits) { return static_cast<VkAccessFlags>(bits & 0xffffffffu); };
    const VkMemoryBarrier global{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                 .srcAccessMask = access(b.srcAccess),
                                 .dstAccessMask = access(b.dstAccess)};
    const VkBufferMemoryBarrier onBuffer{.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                                         .srcAccessMask = access(b.srcAccess),
                                         .dstAccessMask = access(b.dstAccess),
                                         .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                         .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                         .buffer = buffer,
                                         .offset = 0,
                                         .size = VK_WHOLE_SIZE};
    vkCmdPipelineBarrier(cmd, stage(b.srcStage), stage(b.dstStage), 0, b.kind == K::Memory ? 1u : 0u, &global,
                         b.kind == K::Buffer ? 1u : 0u, &onBuffer, 0, nullptr);
}

// One step that is not a barrier: its dispatch or transfer command.
void recordWork(Encoder& encoder, const ScenarioPipelines& pipelines, const sc::Step& step, const ScenarioBuffers& mb) {
    const VkCommandBuffer cmd = encoder.cmd();
    if (const auto* d = std::get_if<sc::Dispatch>(&step.body)) {
        const ComputePipeline& p = pipelines.forDispatch(*d);
        std::vector<VkBuffer> bound;
        for (const auto& name : d->bindings) bound.push_back(mb.at(name).get());
        if (d->user.empty() && d->kernel == sc::Kernel::ConvT) bound.push_back(mb.convParams()->get());
        if (d->user.empty() && d->kernel == sc::Kernel::Slice) bound.push_back(mb.sliceParams()->get());
        encoder.bindPipelineAndBuffers(p, std::span<const VkBuffer>(bound));
        if (!d->user.empty() || !sc::isChainKernel(d->kernel)) {  // conv-t and slice take none, as blade's
            const sc::KernelParams params = sc::pushConstants(*d);
            vkCmdPushConstants(cmd, p.layout.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params), &params);
        }
        if (d->indirect) {
            vkCmdDispatchIndirect(cmd, mb.at(d->indirect->buffer).get(), d->indirect->offset);
        } else {
            vkCmdDispatch(cmd, d->groups[0], d->groups[1], d->groups[2]);
        }
    } else if (const auto* f = std::get_if<sc::Fill>(&step.body)) {
        vkCmdFillBuffer(cmd, mb.at(f->buffer).get(), f->offset, f->size, f->value);
    } else if (const auto* u = std::get_if<sc::Update>(&step.body)) {
        vkCmdUpdateBuffer(cmd, mb.at(u->buffer).get(), u->offset, u->words.size() * 4, u->words.data());
    } else if (const auto* c = std::get_if<sc::Copy>(&step.body)) {
        const VkBufferCopy region{.srcOffset = c->srcOffset, .dstOffset = c->dstOffset, .size = c->size};
        vkCmdCopyBuffer(cmd, mb.at(c->src).get(), mb.at(c->dst).get(), 1, &region);
    }
}

// One mode's queue family ownership transfers (scenario/scenario_sync.hpp ownershipTransfers),
// recorded where they belong: each release a VkBufferMemoryBarrier in a vkCmdPipelineBarrier
// of its own, srcStageMask the uses' stages, dstStageMask BOTTOM_OF_PIPE, srcAccessMask their
// writes; each acquire one with srcStageMask and dstStageMask the next use's stage and
// dstAccessMask its accesses (Vulkan spec, "Queue Family Ownership Transfer": the release's
// dstAccessMask and the acquire's srcAccessMask are ignored, so both are 0). None on a device
// where every queue landed in one family, or without queues.
class Ownership {
  public:
    Ownership(const Device& device, const sc::Scenario& s) : s_(s) {
        if (s.usesQueues()) transfers_ = sc::ownershipTransfers(s, queueFamilies(device, s));
    }
    // Whether a release follows step `step`.
    bool releases(size_t step) const {
        return std::any_of(transfers_.begin(), transfers_.end(), [&](const auto& t) { return t.after == step; });
    }
    // The releases after step `step` (none: the upload's end).
    void releasesAfter(VkCommandBuffer cmd, std::optional<size_t> step, const ScenarioBuffers& mb) const {
        for (const auto& t : transfers_) {
            if (t.after == step) record(cmd, t, mb, true);
        }
    }
    // The acquires before step `step` (none: the readback's start).
    void acquiresBefore(VkCommandBuffer cmd, std::optional<size_t> step, const ScenarioBuffers& mb) const {
        for (const auto& t : transfers_) {
            if (t.before == step) record(cmd, t, mb, false);
        }
    }

  private:
    void record(VkCommandBuffer cmd, const sc::OwnershipTransfer& t, const ScenarioBuffers& mb, bool release) const {
        const auto bits = [](uint64_t v) { return static_cast<uint32_t>(v & 0xffffffffu); };
        trace::note(fmt::format("{} buffer '{}': queue {} (family {}) -> queue {} (family {})",
                                release ? "release" : "acquire", t.buffer, s_.queues[t.fromQueue].name, t.fromFamily,
                                s_.queues[t.toQueue].name, t.toFamily));
        const VkBufferMemoryBarrier barrier{.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                                            .srcAccessMask = release ? bits(t.srcAccess) : 0u,
                                            .dstAccessMask = release ? 0u : bits(t.dstAccess),
                                            .srcQueueFamilyIndex = t.fromFamily,
                                            .dstQueueFamilyIndex = t.toFamily,
                                            .buffer = mb.at(t.buffer).get(),
                                            .offset = 0,
                                            .size = VK_WHOLE_SIZE};
        vkCmdPipelineBarrier(cmd, bits(release ? t.srcStage : t.dstStage),
                             release ? uint32_t{VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT} : bits(t.dstStage), 0, 0, nullptr,
                             1, &barrier, 0, nullptr);
    }
    const sc::Scenario& s_;
    std::vector<sc::OwnershipTransfer> transfers_;
};

// The timestamp pair around each of a mode's own command buffers (runScenarioMode's
// `timestamps`): one two-query pool, reset at the start of each command buffer and read after
// its submit's wait. Inactive where not asked for or the queue family has no timestamps.
class ModeStamps {
  public:
    ModeStamps(const Device& device, bool wanted) : device_(device) {
        const DeviceInfo& info = device.info();
        const uint32_t bits = info.queueFamilies[device.queueFamily()].timestampValidBits;
        if (!wanted || bits == 0) return;
        nsPerTick_ = info.properties.limits.timestampPeriod;
        mask_ = bits >= 64 ? ~0ull : (1ull << bits) - 1;
        const VkQueryPoolCreateInfo poolInfo{
            .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
        VkQueryPool pool = VK_NULL_HANDLE;
        check(vkCreateQueryPool(device.get(), &poolInfo, nullptr, &pool), "vkCreateQueryPool");
        pool_ = Owned<VkQueryPool>(device.life(), pool);
        seconds_ = 0.0;
    }
    // encoder.begin() and, when active, the reset and the first timestamp.
    void begin(Encoder& encoder) const {
        encoder.begin();
        if (!pool_) return;
        vkCmdResetQueryPool(encoder.cmd(), pool_.get(), 0, 2);
        vkCmdWriteTimestamp(encoder.cmd(), VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool_.get(), 0);
    }
    void end(VkCommandBuffer cmd) const {
        if (pool_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_.get(), 1);
    }
    // After the submit's wait: adds the pair's interval; a pair not available ends the sum.
    void collect() {
        if (!pool_ || !seconds_) return;
        uint64_t raw[4] = {};  // (value, availability) twice; no WAIT_BIT, the submit is done
        const VkResult r =
            vkGetQueryPoolResults(device_.get(), pool_.get(), 0, 2, sizeof(raw), raw, 2 * sizeof(uint64_t),
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
        if (r != VK_SUCCESS || raw[1] == 0 || raw[3] == 0) {
            seconds_.reset();
            return;
        }
        *seconds_ += double((raw[2] - raw[0]) & mask_) * nsPerTick_ * 1e-9;
    }
    std::optional<double> seconds() const { return seconds_; }

  private:
    const Device& device_;
    Owned<VkQueryPool> pool_;
    double nsPerTick_ = 1;
    uint64_t mask_ = ~0ull;
    std::optional<double> seconds_;  // set while active and every pair was read
};

// The timestamp pairs of a mode with queues (runScenarioMode's `timestamps` on a file with a
// [[queue]] or [[semaphore]]): a pair around each of its own command buffers on every queue
// (split: one per step; multipass and single: one per batch), pair k at queries 2k and
// 2k + 1 of one pool. The upload submit resets the whole pool on the main queue, since
// vkCmdResetQueryPool is not a command every queue family records (a transfer-only one does
// not: Vulkan spec, vkCmdResetQueryPool's supported queue types) and the batches are all
// submitted before any is waited for. Read once the mode's submits are waited for. A queue
// whose family has no timestamps (timestampValidBits 0) writes none, and the sum is then
// not measured (nullopt). Inactive where not asked for.
class QueueStamps {
  public:
    QueueStamps(const Device& device, bool wanted, const sc::Scenario& s) : device_(device) {
        if (!wanted) return;
        const DeviceInfo& info = device.info();
        nsPerTick_ = info.properties.limits.timestampPeriod;
        for (const uint32_t f : queueFamilies(device, s)) bits_.push_back(info.queueFamilies[f].timestampValidBits);
        pairs_ = static_cast<uint32_t>(std::max<size_t>(s.steps.size(), 1));  // >= split's submits, batches
        const VkQueryPoolCreateInfo poolInfo{.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                             .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                             .queryCount = 2 * pairs_};
        VkQueryPool pool = VK_NULL_HANDLE;
        check(vkCreateQueryPool(device.get(), &poolInfo, nullptr, &pool), "vkCreateQueryPool");
        pool_ = Owned<VkQueryPool>(device.life(), pool);
    }
    // In the upload submit: every query unavailable again.
    void reset(VkCommandBuffer cmd) const {
        if (pool_) vkCmdResetQueryPool(cmd, pool_.get(), 0, 2 * pairs_);
    }
    // Pair `k` (< the scenario's steps) at the start and the end of a command buffer on `queue`.
    void begin(VkCommandBuffer cmd, uint32_t k, uint32_t queue) { write(cmd, k, queue, 0); }
    void end(VkCommandBuffer cmd, uint32_t k, uint32_t queue) { write(cmd, k, queue, 1); }
    // After every submit of the mode is waited for: the pairs' intervals summed, each masked
    // to its family's valid bits; nullopt when inactive, or when a pair was not written.
    std::optional<double> collect() const {
        if (!pool_ || written_.empty()) return std::nullopt;
        double seconds = 0;
        for (const auto& [k, queue] : written_) {
            if (bits_[queue] == 0) return std::nullopt;
            uint64_t raw[4] = {};  // (value, availability) twice
            const VkResult r =
                vkGetQueryPoolResults(device_.get(), pool_.get(), 2 * k, 2, sizeof(raw), raw, 2 * sizeof(uint64_t),
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
            if (r != VK_SUCCESS || raw[1] == 0 || raw[3] == 0) return std::nullopt;
            const uint64_t mask = bits_[queue] >= 64 ? ~0ull : (1ull << bits_[queue]) - 1;
            seconds += double((raw[2] - raw[0]) & mask) * nsPerTick_ * 1e-9;
        }
        return seconds;
    }

  private:
    void write(VkCommandBuffer cmd, uint32_t k, uint32_t queue, uint32_t half) {
        if (!pool_) return;
        if (half == 0) written_.emplace_back(k, queue);
        if (bits_[queue] == 0) return;  // this family has no timestamps: collect() says so
        vkCmdWriteTimestamp(cmd, half ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT : VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                            pool_.get(), 2 * k + half);
    }
    const Device& device_;
    std::vector<uint32_t> bits_;  // timestampValidBits by scenario queue
    double nsPerTick_ = 1;
    uint32_t pairs_ = 0;
    Owned<VkQueryPool> pool_;
    std::vector<std::pair<uint32_t, uint32_t>> written_;  // (pair, queue) begun
};

// Whether `out` completed; else false with `run` filled (what failed, and how).
bool completed(const SubmitOutcome& out, const std::string& what, ScenarioModeRun& run) {
    if (out.status == SubmitStatus::Completed) return true;
    run.hang = out.status == SubmitStatus::Timeout || out.status == SubmitStatus::DeviceLost;
    run.timedOut = out.status == SubmitStatus::Timeout;
    run.failure =
        fmt::format("{} ({}): {}{}", what, out.call, resultName(out.result), run.timedOut ? " (timed out)" : "");
    return false;
}

// Ends the open command buffer, submits it and waits; false (with `run` filled) on failure.
// `stamps`: one of the mode's own submits (its end timestamp, wait time and GPU time counted).
bool submit(Encoder& encoder, const std::string& what, double timeoutSeconds, ScenarioModeRun& run,
            ModeStamps* stamps = nullptr) {
    if (stamps) stamps->end(encoder.cmd());
    encoder.end();
    const SubmitOutcome out = encoder.submitAndWait(timeoutSeconds);
    if (stamps) run.gpuWait += out.waitSeconds;
    if (!completed(out, what, run)) return false;
    if (stamps) stamps->collect();
    return true;
}

// The same with semaphores to wait for: submitted, then the host waits for the encoder.
bool submitAfter(Encoder& encoder, const std::vector<SemaphoreOp>& waits, const std::string& what,
                 double timeoutSeconds, ScenarioModeRun& run) {
    encoder.end();
    const SubmitOutcome out = encoder.submitNoWait(waits, {});
    if (!completed(out, what, run)) return false;
    return completed(encoder.waitForAll(timeoutSeconds), what, run);
}

// One mode's queues: an encoder per scenario queue ([0] the main one, which also uploads and
// reads back) and the scenario's semaphores, made fresh for the mode (a binary signal is
// consumed, a timeline counts up from 0), named by the file's names for --print-stream.
struct ModeQueues {
    std::vector<std::unique_ptr<Encoder>> encoders;
    std::vector<Owned<VkSemaphore>> semaphores;
};

ModeQueues makeQueues(const Device& device, const sc::Scenario& s) {
    ModeQueues q;
    q.encoders.push_back(std::make_unique<Encoder>(device));
    for (size_t i = 1; i < s.queues.size(); ++i) {
        const ExtraQueue& e = device.extraQueues().at(i - 1);
        q.encoders.push_back(std::make_unique<Encoder>(device, e.queue, e.family));
    }
    for (size_t i = 0; i < q.encoders.size() && trace::installed(); ++i) {
        const auto timeline = reinterpret_cast<uint64_t>(q.encoders[i]->timeline());
        if (s.usesQueues()) trace::nameObject(timeline, fmt::format("timeline({})", s.queues[i].name));
    }
    for (const auto& spec : s.semaphores) {
        const VkSemaphoreTypeCreateInfo type{
            .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
            .semaphoreType = spec.timeline ? VK_SEMAPHORE_TYPE_TIMELINE : VK_SEMAPHORE_TYPE_BINARY,
            .initialValue = 0};
        const VkSemaphoreCreateInfo info{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
        VkSemaphore raw = VK_NULL_HANDLE;
        check(vkCreateSemaphore(device.get(), &info, nullptr, &raw), "vkCreateSemaphore");
        q.semaphores.emplace_back(device.life(), raw);
        if (trace::installed()) trace::nameObject(reinterpret_cast<uint64_t>(raw), spec.name);
    }
    return q;
}

constexpr VkPipelineStageFlags kAllCommands = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;

// Whether `mode` records `step` (a barrier's `modes`: scenario/scenario.hpp Step::modeMask).
bool inMode(const sc::Step& step, Mode mode) { return (step.modeMask >> static_cast<unsigned>(mode)) & 1u; }

// The buffers step `index` of `s` writes (writtenRanges), each once, in the order written.
std::vector<std::string> writtenBuffers(const sc::Scenario& s, size_t index) {
    std::vector<std::string> out;
    for (const sc::WrittenRange& r : sc::writtenRanges(s.steps[index], s)) {
        if (std::find(out.begin(), out.end(), r.buffer) == out.end()) out.push_back(r.buffer);
    }
    return out;
}

// --check-steps after split's step `index`: [begin, G, copies of the device-local buffers it
// writes to their twins, host-read barrier, end], waited, on `encoder`'s queue (the step's);
// then the host reads them and hands them to readback.onStep. With `ownership`, the step's
// releases follow the host-read barrier, after a G that orders the copies before them. False
// (with `run` filled) when the submit fails.
bool readBackStep(Encoder& encoder, const sc::Scenario& s, size_t index, const ScenarioBuffers& mb,
                  double timeoutSeconds, const StepReadback& readback, ScenarioModeRun& run,
                  const Ownership* ownership = nullptr) {
    const std::vector<std::string> names = writtenBuffers(s, index);
    if (names.empty()) return true;
    encoder.begin();
    recordBladeGlobalBarrier(encoder.cmd());
    for (const auto& name : names) {
        if (const Buffer* twin = mb.twin(name)) copyWhole(encoder.cmd(), mb.at(name), *twin);
    }
    recordHostReadBarrier(encoder.cmd());
    if (ownership && ownership->releases(index)) {
        recordBladeGlobalBarrier(encoder.cmd());
        ownership->releasesAfter(encoder.cmd(), index, mb);
    }
    ++run.stepReadbacks;
    if (!submit(encoder, fmt::format("the readback after {} (--check-steps)", s.steps[index].label), timeoutSeconds,
                run))
        return false;
    sc::Contents written;
    for (const auto& name : names) {
        const Buffer* twin = mb.twin(name);
        const Buffer& from = twin ? *twin : mb.at(name);
        const auto* bytes = static_cast<const uint8_t*>(from.mapped);
        written.emplace(name, std::vector<uint8_t>(bytes, bytes + s.buffer(name)->bytes));
    }
    readback.onStep(index, written);
    return true;
}

// split with queues: each step that is not a barrier, signal or wait in its own submit on its
// queue, waited for; a submit on another queue than the one before also waits (on the device)
// for that queue's timeline, so that split stays the fully ordered reference.

// With readback.onStep (--check-steps), a step that writes something is read back on its own
// queue after its submit, and its ownership releases move from its command buffer to the end
// of the readback's, since a queue family must not touch a buffer it released.
bool recordSplitOnQueues(ModeQueues& q, const ScenarioPipelines& pipelines, const sc::Scenario& s,
                         const ScenarioBuffers& mb, const Ownership& ownership, QueueStamps& stamps,
                         const StepReadback& readback, double timeoutSeconds, ScenarioModeRun& run) {
    uint32_t lastQueue = 0;
    for (size_t i = 0; i < s.steps.size(); ++i) {
        const sc::Step& step = s.steps[i];
        const auto& body = step.body;
        if (std::holds_alternative<sc::Barrier>(body) || std::holds_alternative<sc::Signal>(body) ||
            std::holds_alternative<sc::Wait>(body))
            continue;
        Encoder& encoder = *q.encoders[step.queue];
        const auto pair = static_cast<uint32_t>(run.submits);
        encoder.begin();
        stamps.begin(encoder.cmd(), pair, step.queue);
        recordBladeGlobalBarrier(encoder.cmd());
        ownership.acquiresBefore(encoder.cmd(), i, mb);
        recordWork(encoder, pipelines, step, mb);
        const bool readsBack = readback.onStep && !writtenBuffers(s, i).empty();
        if (!readsBack) ownership.releasesAfter(encoder.cmd(), i, mb);
        recordBladeGlobalBarrier(encoder.cmd());
        stamps.end(encoder.cmd(), pair, step.queue);
        std::vector<SemaphoreOp> waits;
        const Encoder& previous = *q.encoders[lastQueue];
        if (step.queue != lastQueue && previous.lastValue() > 0)
            waits.push_back({.semaphore = previous.timeline(), .value = previous.lastValue(), .stage = kAllCommands});
        lastQueue = step.queue;
        ++run.submits;
        const auto waited = Clock::now();
        const bool done =
            submitAfter(encoder, waits, fmt::format("submit {} ({})", run.submits, step.label), timeoutSeconds, run);
        run.gpuWait += secondsSince(waited);
        if (!done) return false;
        if (readsBack && !readBackStep(encoder, s, i, mb, timeoutSeconds, readback, run, &ownership)) return false;
    }
    return true;
}

// A batch's waits and signals as submit semaphores; the first batch of a queue other than the
// main one also waits for the main queue's upload (its timeline value `upload`).
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

// multipass and single with queues: one submit per batch (scenario/scenario_sync.hpp), in the
// steps' order, with its waits and signals; each queue's first batch starts with G in single,
// its last ends with G; multipass puts G before each step as without queues. Then the host
// waits for every queue.
bool recordBatches(ModeQueues& q, const ScenarioPipelines& pipelines, const sc::Scenario& s, Mode mode,
                   const ScenarioBuffers& mb, const Ownership& ownership, QueueStamps& stamps, double timeoutSeconds,
                   ScenarioModeRun& run) {
    const std::vector<sc::Batch> batches = sc::batchesOf(s);
    std::vector<size_t> first(s.queues.size(), batches.size()), last(s.queues.size(), 0);
    for (size_t b = 0; b < batches.size(); ++b) {
        first[batches[b].queue] = std::min(first[batches[b].queue], b);
        last[batches[b].queue] = b;
    }
    const uint64_t upload = q.encoders[0]->lastValue();
    for (size_t b = 0; b < batches.size(); ++b) {
        const sc::Batch& batch = batches[b];
        Encoder& encoder = *q.encoders[batch.queue];
        encoder.begin();
        stamps.begin(encoder.cmd(), static_cast<uint32_t>(b), batch.queue);
        if (mode == Mode::Single && b == first[batch.queue]) recordBladeGlobalBarrier(encoder.cmd());
        for (const size_t i : batch.work) {
            if (const auto* barrier = std::get_if<sc::Barrier>(&s.steps[i].body)) {
                if (inMode(s.steps[i], mode)) recordBarrier(encoder.cmd(), *barrier, mb);
                continue;
            }
            if (mode == Mode::Multipass) recordBladeGlobalBarrier(encoder.cmd());
            ownership.acquiresBefore(encoder.cmd(), i, mb);
            recordWork(encoder, pipelines, s.steps[i], mb);
            ownership.releasesAfter(encoder.cmd(), i, mb);
        }
        if (b == last[batch.queue]) recordBladeGlobalBarrier(encoder.cmd());
        stamps.end(encoder.cmd(), static_cast<uint32_t>(b), batch.queue);
        encoder.end();
        std::vector<SemaphoreOp> waits, signals;
        batchSemaphores(q, s, batch, b == first[batch.queue], upload, waits, signals);
        ++run.submits;
        trace::note(fmt::format("submit {}: batch {} of {} on queue {}", run.submits, b + 1, batches.size(),
                                s.queues[batch.queue].name));
        const std::string what = fmt::format("submit {} (batch {} of {} on queue {})", run.submits, b + 1,
                                             batches.size(), s.queues[batch.queue].name);
        if (!completed(encoder.submitNoWait(waits, signals), what, run)) return false;
    }
    const auto waited = Clock::now();
    for (size_t i = 0; i < q.encoders.size(); ++i) {
        const std::string what = fmt::format("the wait for queue {}", s.queues[i].name);
        if (!completed(q.encoders[i]->waitForAll(timeoutSeconds), what, run)) return false;
    }
    run.gpuWait += secondsSince(waited);
    return true;
}

bool isHostPoint(const sc::Step& step) {
    return std::holds_alternative<sc::HostWrite>(step.body) || std::holds_alternative<sc::HostRead>(step.body);
}

// Host point `index` of `s`: the host writes the words into the buffer's mapped memory, or
// reads all of it into run.hostReads (HOST_COHERENT: no flush or invalidate). The caller has
// waited for every earlier submit and, before a read, recorded recordHostReadBarrier after them.
void hostPoint(const sc::Scenario& s, size_t index, const ScenarioBuffers& mb, ScenarioModeRun& run) {
    if (const auto* h = std::get_if<sc::HostWrite>(&s.steps[index].body)) {
        auto* bytes = static_cast<uint8_t*>(mb.at(h->buffer).mapped);
        std::memcpy(bytes + h->offset, h->words.data(), h->words.size() * 4);
    } else if (const auto* r = std::get_if<sc::HostRead>(&s.steps[index].body)) {
        const auto* bytes = static_cast<const uint8_t*>(mb.at(r->buffer).mapped);
        run.hostReads[index] = std::vector<uint8_t>(bytes, bytes + s.buffer(r->buffer)->bytes);
    }
}

// split: one submit per step, [begin, G, step, G, end], waited; a host write between two
// submits; a host read after a submit of its own, [begin, host-read barrier, end]. With
// readback.onStep, each step's written buffers are read back after its submit (readBackStep).
bool recordSplit(Encoder& encoder, const ScenarioPipelines& pipelines, const sc::Scenario& s, const ScenarioBuffers& mb,
                 double timeoutSeconds, const StepReadback& readback, ScenarioModeRun& run, ModeStamps& stamps) {
    for (size_t i = 0; i < s.steps.size(); ++i) {
        const sc::Step& step = s.steps[i];
        if (std::holds_alternative<sc::Barrier>(step.body)) continue;
        const bool read = std::holds_alternative<sc::HostRead>(step.body);
        if (isHostPoint(step) && !read) {
            hostPoint(s, i, mb, run);
            continue;
        }
        stamps.begin(encoder);
        if (read) {
            recordHostReadBarrier(encoder.cmd());
        } else {
            recordBladeGlobalBarrier(encoder.cmd());
            recordWork(encoder, pipelines, step, mb);
            recordBladeGlobalBarrier(encoder.cmd());
        }
        ++run.submits;
        if (!submit(encoder, fmt::format("submit {} ({})", run.submits, step.label), timeoutSeconds, run, &stamps))
            return false;
        if (read) hostPoint(s, i, mb, run);
        if (!read && readback.onStep && !readBackStep(encoder, s, i, mb, timeoutSeconds, readback, run)) return false;
    }
    return true;
}

// Without queues: split as above; multipass and single one submit on the main queue, ended
// and begun again at each host point.
// Whether the first step after `index` that is not a barrier is a work step (not a host
// point, not the end).
bool workFollows(const sc::Scenario& s, size_t index) {
    for (size_t j = index + 1; j < s.steps.size(); ++j) {
        if (std::holds_alternative<sc::Barrier>(s.steps[j].body)) continue;
        return !isHostPoint(s.steps[j]);
    }
    return false;
}

bool recordOneQueue(Encoder& encoder, const ScenarioPipelines& pipelines, const sc::Scenario& s, Mode mode,
                    const ScenarioBuffers& mb, double timeoutSeconds, const StepReadback& readback,
                    ScenarioModeRun& run, ModeStamps& stamps) {
    if (mode == Mode::Split) return recordSplit(encoder, pipelines, s, mb, timeoutSeconds, readback, run, stamps);
    const bool hostPoints = std::any_of(s.steps.begin(), s.steps.end(), isHostPoint);
    stamps.begin(encoder);
    if (mode == Mode::Single) recordBladeGlobalBarrier(encoder.cmd());
    uint32_t sinceSubmit = 0;  // work steps in the submit being recorded (--submit-every)
    // Ends the submit being recorded, G (and H before a host read), and waits for it; `what`
    // names it in a failure. beginNext() starts the next one (single: with G).
    const auto endSubmit = [&](bool hostRead, const std::string& what) {
        recordBladeGlobalBarrier(encoder.cmd());
        if (hostRead) recordHostReadBarrier(encoder.cmd());
        ++run.submits;
        return submit(encoder, fmt::format("submit {} ({})", run.submits, what), timeoutSeconds, run, &stamps);
    };
    const auto beginNext = [&] {
        stamps.begin(encoder);
        if (mode == Mode::Single) recordBladeGlobalBarrier(encoder.cmd());
        sinceSubmit = 0;
    };
    for (size_t i = 0; i < s.steps.size(); ++i) {
        const sc::Step& step = s.steps[i];
        if (const auto* b = std::get_if<sc::Barrier>(&step.body)) {
            if (inMode(step, mode)) recordBarrier(encoder.cmd(), *b, mb);
            continue;
        }
        if (isHostPoint(step)) {  // the host's access between two waited submits
            if (!endSubmit(std::holds_alternative<sc::HostRead>(step.body), "before " + step.label)) return false;
            hostPoint(s, i, mb, run);
            beginNext();
            continue;
        }
        if (mode == Mode::Multipass) recordBladeGlobalBarrier(encoder.cmd());
        recordWork(encoder, pipelines, step, mb);
        // --submit-every K: the submit ends after its K-th work step, as at a host point but
        // without the host's access, unless no work step comes before the next host point
        if (s.submitEvery == 0 || ++sinceSubmit < s.submitEvery || !workFollows(s, i)) continue;
        if (!endSubmit(false, fmt::format("after {}, --submit-every {}", step.label, s.submitEvery))) return false;
        beginNext();
    }
    recordBladeGlobalBarrier(encoder.cmd());
    ++run.submits;
    return submit(encoder,
                  hostPoints ? fmt::format("submit {} (after the last host point)", run.submits)
                  : s.submitEvery > 0
                      ? fmt::format("submit {} (the last, --submit-every {})", run.submits, s.submitEvery)
                      : fmt::format("the one submit of all {} steps", s.steps.size()),
                  timeoutSeconds, run, &stamps);
}

// With queues (scenario/scenario_sync.hpp), split and the batches; without, recordOneQueue.
// The timestamps cover the main queue's submits without queues only.
bool recordMode(ModeQueues& q, const ScenarioPipelines& pipelines, const sc::Scenario& s, Mode mode,
                const ScenarioBuffers& mb, const Ownership& ownership, double timeoutSeconds,
                const StepReadback& readback, ScenarioModeRun& run, ModeStamps& stamps, QueueStamps& queueStamps) {
    if (s.usesQueues()) {
        if (mode == Mode::Split)
            return recordSplitOnQueues(q, pipelines, s, mb, ownership, queueStamps, readback, timeoutSeconds, run);
        return recordBatches(q, pipelines, s, mode, mb, ownership, queueStamps, timeoutSeconds, run);
    }
    return recordOneQueue(*q.encoders[0], pipelines, s, mode, mb, timeoutSeconds, readback, run, stamps);
}

// Below this many checked bytes the host copies are made on the caller at the readback.
constexpr uint64_t kBackgroundCopyBytes = 1 << 20;

// The host copies of the checked buffers (zeros, `bytes` long each), made on a thread of
// their own (startInBackground) while the GPU runs the mode, so that their page faults and
// zeroing are not part of the readback, as the built-in chain's host copies are made
// (engine/device_stages.cpp hostCopiesInBackground); get() rethrows std::bad_alloc.
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

}  // namespace

ScenarioModeRun runScenarioMode(Device& device, const ScenarioPipelines& pipelines, ScenarioBuffers& mb,
                                const sc::Scenario& s, Mode mode, double timeoutSeconds, bool timestamps,
                                const StepReadback& readback) {
    ScenarioModeRun run;
    auto phase = Clock::now();
    // Declared after the encoder, so destroyed first: abandons the device before it goes
    // (and before the caller's buffers go, which then leak).
    struct AbandonOnTimeout {
        Device& device;
        const ScenarioModeRun& run;
        ~AbandonOnTimeout() {
            if (run.timedOut) device.abandon();
        }
    };
    mb.restore();
    std::future<sc::Contents> copies = hostCopiesInBackground(s);
    ModeQueues queues = makeQueues(device, s);
    Encoder& encoder = *queues.encoders[0];
    ModeStamps stamps(device, timestamps && !s.usesQueues());
    QueueStamps queueStamps(device, timestamps && s.usesQueues(), s);
    const Ownership ownership(device, s);
    const AbandonOnTimeout guard{device, run};
    encoder.begin();  // the upload of the device-local buffers' initial contents
    for (const auto& spec : s.buffers) {
        if (startsZero(spec))
            vkCmdFillBuffer(encoder.cmd(), mb.at(spec.name).get(), 0, VK_WHOLE_SIZE, 0);
        else if (spec.placement == sc::Placement::DeviceLocal)
            copyWhole(encoder.cmd(), *mb.twin(spec.name), mb.at(spec.name));
    }
    recordBladeGlobalBarrier(encoder.cmd());
    ownership.releasesAfter(encoder.cmd(), std::nullopt, mb);  // to the queues that use a buffer first
    queueStamps.reset(encoder.cmd());
    if (!submit(encoder, "the upload submit", timeoutSeconds, run)) return run;
    run.buffersAndUpload = secondsSince(phase);
    phase = Clock::now();
    const bool recorded =
        recordMode(queues, pipelines, s, mode, mb, ownership, timeoutSeconds, readback, run, stamps, queueStamps);
    run.recording = std::max(0.0, secondsSince(phase) - run.gpuWait);
    run.gpuSeconds = s.usesQueues() ? queueStamps.collect() : stamps.seconds();
    if (!recorded) return run;
    phase = Clock::now();
    encoder.begin();  // the readback: checked device-local buffers into their twins
    ownership.acquiresBefore(encoder.cmd(), std::nullopt, mb);  // every buffer back on the main queue
    recordBladeGlobalBarrier(encoder.cmd());
    for (const auto& spec : s.buffers) {
        if (spec.checked && mb.twin(spec.name)) copyWhole(encoder.cmd(), mb.at(spec.name), *mb.twin(spec.name));
    }
    recordHostReadBarrier(encoder.cmd());
    std::vector<SemaphoreOp> afterQueues;  // the readback waits for every other queue's work
    for (size_t i = 1; i < queues.encoders.size(); ++i) {
        const Encoder& other = *queues.encoders[i];
        if (other.lastValue() > 0)
            afterQueues.push_back({.semaphore = other.timeline(), .value = other.lastValue(), .stage = kAllCommands});
    }
    const bool readBack = afterQueues.empty()
                              ? submit(encoder, "the readback submit", timeoutSeconds, run)
                              : submitAfter(encoder, afterQueues, "the readback submit", timeoutSeconds, run);
    if (!readBack) return run;
    run.checked = copies.get();
    for (const auto& spec : s.buffers) {
        if (!spec.checked) continue;
        const Buffer* twin = mb.twin(spec.name);
        const Buffer& from = twin ? *twin : mb.at(spec.name);
        copyFromMapped(run.checked.at(spec.name).data(), from.mapped, spec.bytes);  // as the built-in reads small[N]
    }
    run.readback = secondsSince(phase);
    run.completed = true;
    return run;
}

}  // namespace repro::vk
