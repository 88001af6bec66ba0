// Command recording plumbing and submit/wait, following blade `vulkan/command.rs`,
// `vulkan/descriptor.rs` and `vulkan/mod.rs` at 72c30c1.
#include "vk/encoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "core/interrupt.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/pipeline.hpp"

namespace repro::vk {

Encoder::Encoder(const Device& device) : Encoder(device, device.queue(), device.queueFamily()) {}

Encoder::Encoder(const Device& device, VkQueue queue, uint32_t family)
    : device_(device), queue_(queue), family_(family) {
    const VkCommandPoolCreateInfo poolInfo{
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = family_,
    };
    commandPool_ = device.create(vkCreateCommandPool, poolInfo, "vkCreateCommandPool");
    addSlot();
    timeline_ = createSemaphore(device, true);
}

Owned<VkSemaphore> createSemaphore(const Device& device, bool timeline) {
    const VkSemaphoreTypeCreateInfo type{
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = timeline ? VK_SEMAPHORE_TYPE_TIMELINE : VK_SEMAPHORE_TYPE_BINARY,
        .initialValue = 0};
    const VkSemaphoreCreateInfo info{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
    return device.create(vkCreateSemaphore, info, "vkCreateSemaphore");
}

void Encoder::addSlot() {
    Slot slot;
    const VkCommandBufferAllocateInfo cbInfo{
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = commandPool_.get(),
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    check(vkAllocateCommandBuffers(device_.get(), &cbInfo, &slot.commandBuffer), "vkAllocateCommandBuffers");
    addDescriptorPool(slot, 16);
    slots_.push_back(std::move(slot));
}

// blade descriptor.rs:20-77: pool sizes for 16 sets, scaled here with maxSets for the
// larger pools blade adds on overflow (the per-type counts of those are UNVERIFIED).
void Encoder::addDescriptorPool(Slot& slot, uint32_t maxSets) {
    const uint32_t scale = maxSets / 16;
    std::vector<VkDescriptorPoolSize> sizes = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 16 * scale}, {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 32 * scale},
        {VK_DESCRIPTOR_TYPE_SAMPLER, 16 * scale},        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 16 * scale},
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 16 * scale},
    };
    const VkDescriptorPoolCreateInfo info{
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .flags = 0,
        .maxSets = maxSets,
        .poolSizeCount = static_cast<uint32_t>(sizes.size()),
        .pPoolSizes = sizes.data(),
    };
    // The new pool goes first, as blade inserts it; appended and rotated to the front, because
    // GCC 12 -O2 reads vector::insert at begin() as a null dereference (-Wnull-dereference).
    slot.descriptorPools.push_back(device_.create(vkCreateDescriptorPool, info, "vkCreateDescriptorPool"));
    std::rotate(slot.descriptorPools.begin(), slot.descriptorPools.end() - 1, slot.descriptorPools.end());
}

void Encoder::begin() {
    if (inFlight_ == slots_.size()) addSlot();
    current_ = inFlight_;
    Slot& slot = slots_[current_];
    slot.descriptorPools.resize(1);
    check(vkResetDescriptorPool(device_.get(), slot.descriptorPools[0].get(), 0), "vkResetDescriptorPool");
    const VkCommandBufferBeginInfo info{
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    check(vkBeginCommandBuffer(slot.commandBuffer, &info), "vkBeginCommandBuffer");
}

void Encoder::bindPipelineAndBuffers(const ComputePipeline& pipeline, std::initializer_list<VkBuffer> buffers) {
    bindPipelineAndBuffers(pipeline, std::span<const VkBuffer>(buffers.begin(), buffers.size()));
}

void Encoder::bindPipelineAndBuffers(const ComputePipeline& pipeline, std::span<const VkBuffer> buffers) {
    std::vector<VkDescriptorBufferInfo> infos;
    for (VkBuffer b : buffers) infos.push_back({.buffer = b, .offset = 0, .range = VK_WHOLE_SIZE});
    bindPipelineAndInfos(pipeline, infos.data());
}

void Encoder::bindPipelineAndResources(const ComputePipeline& pipeline, std::span<const VkBuffer> buffers,
                                       std::span<const VkImageView> views) {
    union Info {  // one template stride serves both (vk/pipeline.cpp)
        VkDescriptorBufferInfo buffer;
        VkDescriptorImageInfo image;
    };
    std::vector<Info> infos(buffers.size());
    for (size_t i = 0; i < buffers.size(); ++i) {
        if (views[i] != VK_NULL_HANDLE) {
            infos[i].image = {.imageView = views[i], .imageLayout = VK_IMAGE_LAYOUT_GENERAL};
        } else {
            infos[i].buffer = {.buffer = buffers[i], .offset = 0, .range = VK_WHOLE_SIZE};
        }
    }
    bindPipelineAndInfos(pipeline, infos.data());
}

void Encoder::bindPipelineAndInfos(const ComputePipeline& pipeline, const void* infos) {
    Slot& slot = slots_[current_];
    vkCmdBindPipeline(slot.commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline.get());

    const VkDescriptorSetLayout layout = pipeline.setLayout.get();
    VkDescriptorSet set = VK_NULL_HANDLE;
    for (;;) {
        const VkDescriptorSetAllocateInfo info{
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
            .descriptorPool = slot.descriptorPools[0].get(),
            .descriptorSetCount = 1,
            .pSetLayouts = &layout,
        };
        const VkResult r = vkAllocateDescriptorSets(device_.get(), &info, &set);
        if (r == VK_SUCCESS) break;
        if (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL) {
            throw VulkanError("vkAllocateDescriptorSets", r);
        }
        if (slot.poolGrowth >= 4) {
            throw VulkanError("vkAllocateDescriptorSets", r, "pool growth exhausted");
        }
        ++slot.poolGrowth;
        addDescriptorPool(slot, 1u << (4 * (slot.poolGrowth + 1)));  // 16^(growth+1) sets
    }

    vkUpdateDescriptorSetWithTemplate(device_.get(), set, pipeline.updateTemplate.get(), infos);
    vkCmdBindDescriptorSets(slot.commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout.get(),
                            /*firstSet=*/0, 1, &set, 0, nullptr);
}

void Encoder::end() { check(vkEndCommandBuffer(cmd()), "vkEndCommandBuffer"); }

SubmitOutcome Encoder::submitAndWait(double timeoutSeconds) {
    SubmitOutcome out = submit();
    if (out.status != SubmitStatus::Completed) return out;
    return wait(out.timelineValue, timeoutSeconds);
}

SubmitOutcome Encoder::submitNoWait(const std::vector<SemaphoreOp>& waits, const std::vector<SemaphoreOp>& signals) {
    SubmitOutcome out = submit(waits, signals);
    if (out.status == SubmitStatus::Completed) ++inFlight_;
    return out;
}

SubmitOutcome Encoder::waitForAll(double timeoutSeconds) {
    if (timelineValue_ == 0) return {};
    return wait(timelineValue_, timeoutSeconds);
}

SubmitOutcome Encoder::submit(const std::vector<SemaphoreOp>& waits, const std::vector<SemaphoreOp>& signals) {
    SubmitOutcome out;
    if (interruptSignal() != 0) {
        out.status = SubmitStatus::Interrupted;
        out.call = "vkQueueSubmit (not made: interrupted)";
        return out;
    }
    out.timelineValue = ++timelineValue_;
    std::vector<VkSemaphore> waitSemaphores, signalSemaphores{timeline_.get()};
    std::vector<uint64_t> waitValues, signalValues{out.timelineValue};
    std::vector<VkPipelineStageFlags> stages;
    for (const SemaphoreOp& w : waits) {
        waitSemaphores.push_back(w.semaphore);
        waitValues.push_back(w.value);
        stages.push_back(w.stage);
    }
    for (const SemaphoreOp& s : signals) {
        signalSemaphores.push_back(s.semaphore);
        signalValues.push_back(s.value);
    }
    const VkTimelineSemaphoreSubmitInfo timelineInfo{
        .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
        .waitSemaphoreValueCount = static_cast<uint32_t>(waitValues.size()),
        .pWaitSemaphoreValues = waitValues.empty() ? nullptr : waitValues.data(),
        .signalSemaphoreValueCount = static_cast<uint32_t>(signalValues.size()),
        .pSignalSemaphoreValues = signalValues.data(),
    };
    const VkCommandBuffer commandBuffer = cmd();
    const VkSubmitInfo submit{
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .pNext = &timelineInfo,
        .waitSemaphoreCount = static_cast<uint32_t>(waitSemaphores.size()),
        .pWaitSemaphores = waitSemaphores.empty() ? nullptr : waitSemaphores.data(),
        .pWaitDstStageMask = stages.empty() ? nullptr : stages.data(),
        .commandBufferCount = 1,
        .pCommandBuffers = &commandBuffer,
        .signalSemaphoreCount = static_cast<uint32_t>(signalSemaphores.size()),
        .pSignalSemaphores = signalSemaphores.data(),
    };
    const VkResult r = vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE);
    if (r != VK_SUCCESS) {
        out.status = r == VK_ERROR_DEVICE_LOST ? SubmitStatus::DeviceLost : SubmitStatus::Failed;
        out.result = r;
        out.call = "vkQueueSubmit";
    }
    return out;
}

SubmitOutcome Encoder::wait(uint64_t value, double timeoutSeconds) {
    SubmitOutcome out;
    out.timelineValue = value;
    const VkSemaphore semaphore = timeline_.get();
    const VkSemaphoreWaitInfo waitInfo{
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .flags = 0,
        .semaphoreCount = 1,
        .pSemaphores = &semaphore,
        .pValues = &out.timelineValue,
    };
    VkResult r = VK_SUCCESS;
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    // blade waits through the KHR entry point (mod.rs:775-800); core where it is absent.
    auto wait = device_.extensions().timelineSemaphore ? vkWaitSemaphoresKHR : vkWaitSemaphores;
    double interruptedAt = -1;
    for (;;) {
        const double limit = interruptedAt >= 0 ? interruptedAt + kInterruptDrainSeconds : timeoutSeconds;
        const double slice = std::clamp(limit - elapsed(), 0.0, 0.1);
        r = wait(device_.get(), &waitInfo, static_cast<uint64_t>(slice * 1e9));
        if (r != VK_TIMEOUT) break;
        if (interruptedAt < 0 && interruptSignal() != 0) interruptedAt = elapsed();
        if (elapsed() >= limit) break;
    }
    out.waitSeconds = elapsed();
    out.result = r;
    out.call = "vkWaitSemaphores";
    if (interruptedAt >= 0) {
        out.status = SubmitStatus::Interrupted;
        out.drained = r == VK_SUCCESS;
        return out;
    }
    out.status = r == VK_SUCCESS             ? SubmitStatus::Completed
                 : r == VK_TIMEOUT           ? SubmitStatus::Timeout
                 : r == VK_ERROR_DEVICE_LOST ? SubmitStatus::DeviceLost
                                             : SubmitStatus::Failed;
    if (r == VK_SUCCESS) inFlight_ = 0;  // every command buffer up to `value` has completed
    return out;
}

}  // namespace repro::vk
