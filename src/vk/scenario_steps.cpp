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

namespace {

// An image barrier step: one VkImageMemoryBarrier(2) with the file's masks and layouts.
void recordImageBarrier(VkCommandBuffer cmd, const sc::Barrier& b, const ScenarioBuffers& mb) {
    const VkImage image = mb.image(b.buffer)->get();
    if (b.sync2) {
        const VkImageMemoryBarrier2 barrier{.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
                                            .srcStageMask = b.srcStage,
                                            .srcAccessMask = b.srcAccess,
                                            .dstStageMask = b.dstStage,
                                            .dstAccessMask = b.dstAccess,
                                            .oldLayout = vkLayout(b.oldLayout),
                                            .newLayout = vkLayout(b.newLayout),
                                            .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                            .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                            .image = image,
                                            .subresourceRange = kImageColor};
        const VkDependencyInfo dependency{
            .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1, .pImageMemoryBarriers = &barrier};
        return vkCmdPipelineBarrier2(cmd, &dependency);
    }
    recordImageTransition(cmd, image, vkLayout(b.oldLayout), vkLayout(b.newLayout),
                          {static_cast<uint32_t>(b.srcStage), static_cast<uint32_t>(b.srcAccess)},
                          {static_cast<uint32_t>(b.dstStage), static_cast<uint32_t>(b.dstAccess)});
}

VkImageSubresourceLayers colorLayers() { return {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}; }

// Image transfer `t`, step `step`: its one region on mip 0, layer 0 (a buffer side tightly
// packed), each image in the layout the parser found it in (Step::layouts).
void recordImageTransfer(VkCommandBuffer cmd, const sc::Step& step, const sc::ImageTransfer& t,
                         const ScenarioBuffers& mb) {
    using K = sc::ImageTransferKind;
    const VkImageLayout srcLayout = vkLayout(sc::layoutAt(step, t.src)),
                        dstLayout = vkLayout(sc::layoutAt(step, t.dst));
    if (t.kind == K::Clear) {
        VkClearColorValue color{};
        color.uint32[0] = t.value;  // r32ui, and r32f's bits (float32[0] shares them)
        for (int c = 0; c < 4 && t.format == sc::ImageFormat::Rgba8unorm; ++c)  // byte c of the word, as unorm
            color.float32[c] = static_cast<float>((t.value >> (8 * c)) & 0xffu) / 255.0f;
        return vkCmdClearColorImage(cmd, mb.image(t.dst)->get(), dstLayout, &color, 1, &kImageColor);
    }
    VkExtent3D extent{t.width, t.height, 1};
    if (t.kind == K::ImageToImage) {
        const VkImageCopy region{.srcSubresource = colorLayers(),
                                 .srcOffset = {static_cast<int32_t>(t.srcX), static_cast<int32_t>(t.srcY), 0},
                                 .dstSubresource = colorLayers(),
                                 .dstOffset = {static_cast<int32_t>(t.dstX), static_cast<int32_t>(t.dstY), 0},
                                 .extent = extent};
        return vkCmdCopyImage(cmd, mb.image(t.src)->get(), srcLayout, mb.image(t.dst)->get(), dstLayout, 1, &region);
    }
    const bool toImage = t.kind == K::BufferToImage;
    const VkBufferImageCopy region{.bufferOffset = t.bufferOffset,
                                   .imageSubresource = colorLayers(),
                                   .imageOffset = {static_cast<int32_t>(toImage ? t.dstX : t.srcX),
                                                   static_cast<int32_t>(toImage ? t.dstY : t.srcY), 0},
                                   .imageExtent = extent};
    if (toImage) return vkCmdCopyBufferToImage(cmd, mb.at(t.src).get(), mb.image(t.dst)->get(), dstLayout, 1, &region);
    vkCmdCopyImageToBuffer(cmd, mb.image(t.src)->get(), srcLayout, mb.at(t.dst).get(), 1, &region);
}

// An image's initial contents: UNDEFINED -> TRANSFER_DST (its contents from a mode before
// discarded), cleared to 0 or copied from its staging buffer, then -> its initial layout.
void recordImageUpload(VkCommandBuffer cmd, const sc::BufferSpec& spec, const ScenarioBuffers& mb) {
    const VkImage image = mb.image(spec.name)->get();
    recordImageTransition(cmd, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                          {VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0},
                          {VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT});
    if (startsZero(spec)) {
        const VkClearColorValue zero{};
        vkCmdClearColorImage(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &kImageColor);
    } else {
        const VkBufferImageCopy region{.imageSubresource = colorLayers(),
                                       .imageExtent = {spec.image->width, spec.image->height, 1}};
        vkCmdCopyBufferToImage(cmd, mb.at(spec.name).get(), image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    }
    recordImageTransition(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, vkLayout(spec.image->layout),
                          {VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT},
                          {VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT});
}

// Image `spec` from `layout` to TRANSFER_SRC, after every earlier write, for the copy out.
void toTransferSrc(VkCommandBuffer cmd, const sc::BufferSpec& spec, const ScenarioBuffers& mb, VkImageLayout layout) {
    recordImageTransition(cmd, mb.image(spec.name)->get(), layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                          {VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT},
                          {VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT});
}

// vkCmdCopyImageToBuffer of all of image `spec`, in TRANSFER_SRC, into its staging buffer.
void copyImageOut(VkCommandBuffer cmd, const sc::BufferSpec& spec, const ScenarioBuffers& mb) {
    const VkBufferImageCopy region{.imageSubresource = colorLayers(),
                                   .imageExtent = {spec.image->width, spec.image->height, 1}};
    vkCmdCopyImageToBuffer(cmd, mb.image(spec.name)->get(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           mb.at(spec.name).get(), 1, &region);
}

// The layout image `name` (which work step `index` names) is in after split's submit of that step:
// the one it runs in (Step::layouts), or on one queue with no work step or host read after it its
// final layout (that submit records the later transitions too; with queues each is its own submit).
VkImageLayout splitLayoutAfter(const sc::Scenario& s, const std::string& name, size_t index) {
    const auto later = [](const sc::Step& step) {
        return isWork(step) || std::holds_alternative<sc::HostRead>(step.body);
    };
    const bool last = std::none_of(s.steps.begin() + static_cast<std::ptrdiff_t>(index) + 1, s.steps.end(), later);
    return vkLayout(last && !s.usesQueues() ? s.buffer(name)->image->finalLayout : s.steps[index].layouts.at(name));
}

}  // namespace

void recordImageReadback(VkCommandBuffer cmd, const sc::BufferSpec& spec, const ScenarioBuffers& mb, bool copy) {
    if (!copy) return toTransferSrc(cmd, spec, mb, vkLayout(spec.image->finalLayout));
    copyImageOut(cmd, spec, mb);
}

std::vector<std::pair<VkImage, VkImageLayout>> recordStepImageReadback(VkCommandBuffer cmd, const sc::Scenario& s,
                                                                       size_t index,
                                                                       const std::vector<std::string>& names,
                                                                       const ScenarioBuffers& mb, bool copy) {
    std::vector<std::pair<VkImage, VkImageLayout>> moved;
    for (const auto& name : names) {
        const sc::BufferSpec& spec = *s.buffer(name);
        if (!spec.image) continue;
        const VkImageLayout at = splitLayoutAfter(s, name, index);
        if (copy) {
            copyImageOut(cmd, spec, mb);
        } else if (at != VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL) {
            toTransferSrc(cmd, spec, mb, at);
            moved.emplace_back(mb.image(name)->get(), at);
        }
    }
    return moved;
}

void recordImageTransition(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                           std::pair<VkPipelineStageFlags, VkAccessFlags> src,
                           std::pair<VkPipelineStageFlags, VkAccessFlags> dst, std::pair<uint32_t, uint32_t> families) {
    const VkImageMemoryBarrier barrier{.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                                       .srcAccessMask = src.second,
                                       .dstAccessMask = dst.second,
                                       .oldLayout = from,
                                       .newLayout = to,
                                       .srcQueueFamilyIndex = families.first,
                                       .dstQueueFamilyIndex = families.second,
                                       .image = image,
                                       .subresourceRange = kImageColor};
    vkCmdPipelineBarrier(cmd, src.first, dst.first, 0, 0, nullptr, 0, nullptr, 1, &barrier);
}

void recordBarrier(VkCommandBuffer cmd, const sc::Barrier& b, const ScenarioBuffers& mb) {
    using K = sc::BarrierKind;
    if (b.kind == K::None) return;
    if (b.kind == K::Image) return recordImageBarrier(cmd, b, mb);
    if (b.kind == K::BladeGlobal) return recordBladeGlobalBarrier(cmd);
    if (b.kind == K::BladeCompute) return recordBladeComputeBarrier(cmd);
    const bool memory = b.kind != K::ExecutionOnly;
    if (b.sync2 && b.kind != K::Buffer)
        return recordMemoryBarrier2(cmd, b.srcStage, memory ? b.srcAccess : 0, b.dstStage, memory ? b.dstAccess : 0);
    if (b.sync2) {
        const VkBufferMemoryBarrier2 onBuffer{.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
                                              .srcStageMask = b.srcStage,
                                              .srcAccessMask = b.srcAccess,
                                              .dstStageMask = b.dstStage,
                                              .dstAccessMask = b.dstAccess,
                                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                              .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                              .buffer = mb.at(b.buffer).get(),
                                              .offset = 0,
                                              .size = VK_WHOLE_SIZE};
        const VkDependencyInfo dependency{.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                                          .bufferMemoryBarrierCount = 1,
                                          .pBufferMemoryBarriers = &onBuffer};
        return vkCmdPipelineBarrier2(cmd, &dependency);
    }
    const auto low = [](uint64_t bits) { return static_cast<uint32_t>(bits & 0xffffffffu); };  // sync1's 32-bit masks
    if (b.kind == K::Buffer)
        return recordBufferBarrier(cmd, mb.at(b.buffer).get(), low(b.srcStage), low(b.srcAccess), low(b.dstStage),
                                   low(b.dstAccess));
    if (memory) return recordMemoryBarrier(cmd, low(b.srcStage), low(b.srcAccess), low(b.dstStage), low(b.dstAccess));
    vkCmdPipelineBarrier(cmd, low(b.srcStage), low(b.dstStage), 0, 0, nullptr, 0, nullptr, 0, nullptr);
}

void recordWork(Encoder& encoder, const ScenarioPipelines& pipelines, const sc::Step& step, const ScenarioBuffers& mb) {
    const VkCommandBuffer cmd = encoder.cmd();
    if (const auto* d = std::get_if<sc::Dispatch>(&step.body)) {
        const ComputePipeline& p = pipelines.forDispatch(*d);
        std::vector<VkBuffer> bound;  // per binding: a buffer, or with a view in `views` none
        std::vector<VkImageView> views;
        for (const auto& name : d->bindings) {
            const ScenarioImage* image = mb.image(name);
            views.push_back(image ? image->view.get() : VK_NULL_HANDLE);
            bound.push_back(image ? VK_NULL_HANDLE : mb.at(name).get());
        }
        if (d->user.empty() && d->kernel == sc::Kernel::ConvT) bound.push_back(mb.convParams()->get());
        if (d->user.empty() && d->kernel == sc::Kernel::Slice) bound.push_back(mb.sliceParams()->get());
        views.resize(bound.size(), VK_NULL_HANDLE);
        encoder.bindPipelineAndResources(p, bound, views);
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
    } else if (const auto* t = std::get_if<sc::ImageTransfer>(&step.body)) {
        recordImageTransfer(cmd, step, *t, mb);
    }
}

void recordFreshState(VkCommandBuffer cmd, const sc::Scenario& s, const ScenarioBuffers& buffers) {
    recordBladeGlobalBarrier(cmd);
    for (const auto& spec : s.buffers) {
        if (spec.image) {
            recordImageUpload(cmd, spec, buffers);
        } else if (startsZero(spec))
            vkCmdFillBuffer(cmd, buffers.at(spec.name).get(), 0, VK_WHOLE_SIZE, 0);
        else if (spec.placement == sc::Placement::DeviceLocal)
            copyWhole(cmd, *buffers.twin(spec.name), buffers.at(spec.name));
    }
    recordBladeGlobalBarrier(cmd);
}

bool inMode(const sc::Step& step, Mode mode) { return (step.modeMask >> static_cast<unsigned>(mode)) & 1u; }

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

}  // namespace repro::vk
