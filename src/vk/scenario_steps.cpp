// One scenario step's commands (vk/scenario_steps.hpp).
#include "vk/scenario_steps.hpp"

#include <algorithm>
#include <span>
#include <variant>

#include "scenario/scenario_cpu.hpp"
#include "vk/barriers.hpp"
#include "vk/encoder.hpp"

namespace repro::vk {
namespace sc = repro::scenario;

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

void recordFreshState(VkCommandBuffer cmd, const sc::Scenario& s, const ScenarioBuffers& buffers) {
    recordBladeGlobalBarrier(cmd);
    for (const auto& spec : s.buffers) {
        if (startsZero(spec))
            vkCmdFillBuffer(cmd, buffers.at(spec.name).get(), 0, VK_WHOLE_SIZE, 0);
        else if (spec.placement == sc::Placement::DeviceLocal)
            copyWhole(cmd, *buffers.twin(spec.name), buffers.at(spec.name));
    }
    recordBladeGlobalBarrier(cmd);
}

bool inMode(const sc::Step& step, Mode mode) { return (step.modeMask >> static_cast<unsigned>(mode)) & 1u; }

bool isWork(const sc::Step& step) {
    return std::holds_alternative<sc::Dispatch>(step.body) || std::holds_alternative<sc::Fill>(step.body) ||
           std::holds_alternative<sc::Update>(step.body) || std::holds_alternative<sc::Copy>(step.body);
}

bool isHostPoint(const sc::Step& step) {
    return std::holds_alternative<sc::HostWrite>(step.body) || std::holds_alternative<sc::HostRead>(step.body);
}

std::vector<uint32_t> workNumbers(const sc::Scenario& s) {
    std::vector<uint32_t> out(s.steps.size(), 0);
    uint32_t next = 0;
    for (size_t i = 0; i < s.steps.size(); ++i) {
        if (isWork(s.steps[i])) out[i] = ++next;
    }
    return out;
}

std::vector<std::string> writtenBuffers(const sc::Scenario& s, size_t index) {
    std::vector<std::string> out;
    for (const sc::WrittenRange& r : sc::writtenRanges(s.steps[index], s)) {
        if (std::find(out.begin(), out.end(), r.buffer) == out.end()) out.push_back(r.buffer);
    }
    return out;
}

std::string workName(const sc::Step& step) { return step.label; }

}  // namespace repro::vk
