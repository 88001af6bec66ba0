// One command encoder as blade's `create_command_encoder` makes it: a command pool and
// one primary command buffer, a growing list of descriptor pools reset at every start,
// and the context's timeline semaphore for submits (docs/blade-stream.md "Recording and
// submission", "Descriptor pool").
#pragma once

#include <volk.h>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "vk/handles.hpp"

namespace repro::vk {

class Device;
struct ComputePipeline;

// How one submit ended. Where the bug can show, these are outcomes, not exceptions.
// Interrupted: SIGINT/SIGTERM arrived; the submit then completed or was abandoned after
// kInterruptDrainSeconds (see `drained`).
enum class SubmitStatus { Completed, Timeout, DeviceLost, Failed, Interrupted };

struct SubmitOutcome {
    SubmitStatus status = SubmitStatus::Completed;
    VkResult result = VK_SUCCESS;  // of the call that ended it
    std::string call;              // "vkQueueSubmit" or "vkWaitSemaphores"
    uint64_t timelineValue = 0;    // the value this submit signals
    double waitSeconds = 0;        // host time spent in the wait
    bool drained = true;           // Interrupted: the submit completed within the bound
};

// A semaphore a submit waits for or signals besides the encoder's own timeline (a scenario's
// semaphores: docs/scenarios.md "Queues and semaphores").
struct SemaphoreOp {
    VkSemaphore semaphore = VK_NULL_HANDLE;
    uint64_t value = 0;              // a timeline's value; ignored for a binary semaphore
    VkPipelineStageFlags stage = 0;  // a wait's pWaitDstStageMask entry; unused for a signal
};

class Encoder {
  public:
    explicit Encoder(const Device& device);
    // An encoder on another queue of `device`: its command pool is of `family`, its submits
    // go to `queue`.
    Encoder(const Device& device, VkQueue queue, uint32_t family);

    // The command buffer being recorded (after begin()).
    VkCommandBuffer cmd() const { return slots_[current_].commandBuffer; }

    // blade `start()`: destroys every descriptor pool but the newest, resets that one,
    // then vkBeginCommandBuffer(ONE_TIME_SUBMIT), which resets the buffer implicitly.
    // blade has one command buffer per encoder; while earlier submits are in flight
    // (submitNoWait), the next begin() takes another command buffer with its own
    // descriptor pools, allocated the first time it is needed, as a second blade encoder would.
    void begin();

    // blade `pass.with(pipeline)` + `bind(0, data)`: vkCmdBindPipeline(COMPUTE), a fresh
    // descriptor set from the newest pool (a new pool of 16^k sets on
    // OUT_OF_POOL_MEMORY/FRAGMENTED_POOL), vkUpdateDescriptorSetWithTemplate with one
    // whole-buffer VkDescriptorBufferInfo per binding, vkCmdBindDescriptorSets(set 0).
    void bindPipelineAndBuffers(const ComputePipeline& pipeline, std::initializer_list<VkBuffer> buffers);
    // The same with the buffers in a span (a scenario's user kernel binds any number).
    void bindPipelineAndBuffers(const ComputePipeline& pipeline, std::span<const VkBuffer> buffers);
    // The same with a storage buffer or a storage image per binding (a scenario's kernels: the
    // image kernels bind images, a user kernel may bind both): binding i is a
    // VkDescriptorImageInfo of views[i] in VK_IMAGE_LAYOUT_GENERAL where that is not
    // VK_NULL_HANDLE, else the whole of buffers[i]; both spans have one entry per binding, of
    // the kinds the pipeline's descriptorTypes say.
    void bindPipelineAndResources(const ComputePipeline& pipeline, std::span<const VkBuffer> buffers,
                                  std::span<const VkImageView> views);

    // vkEndCommandBuffer. Throws VulkanError.
    void end();

    // vkQueueSubmit (1 command buffer, no wait semaphores, fence VK_NULL_HANDLE) signalling
    // the timeline semaphore with the next value through VkTimelineSemaphoreSubmitInfo,
    // then vkWaitSemaphores for that value with `timeoutSeconds`, in slices of at most
    // 100 ms so that SIGINT/SIGTERM is noticed (core/interrupt.hpp). Nothing is submitted
    // once a signal has arrived.
    SubmitOutcome submitAndWait(double timeoutSeconds);

    // The same vkQueueSubmit without the host wait (--no-host-wait). Completed means
    // submitted; the command buffer stays in flight until a later submitAndWait's wait
    // completes (its timeline value covers every earlier submit). `waits` and `signals` go
    // in the VkSubmitInfo besides the timeline's signal (their values through
    // VkTimelineSemaphoreSubmitInfo; the spec ignores a binary's).
    SubmitOutcome submitNoWait(const std::vector<SemaphoreOp>& waits = {},
                               const std::vector<SemaphoreOp>& signals = {});

    // The host wait for the last value submitted (every submit of this encoder), as
    // submitAndWait waits; Completed at once when nothing was submitted.
    SubmitOutcome waitForAll(double timeoutSeconds);

    // The encoder's timeline semaphore and the value of its last submit (a wait on it orders
    // another queue after every submit so far).
    VkSemaphore timeline() const { return timeline_.get(); }
    uint64_t lastValue() const { return timelineValue_; }

  private:
    // Bind the pipeline and a fresh set written through its update template from `infos`,
    // one VkDescriptorBufferInfo or VkDescriptorImageInfo per binding.
    void bindPipelineAndInfos(const ComputePipeline& pipeline, const void* infos);
    // One command buffer and the descriptor pools its sets come from.
    struct Slot {
        VkCommandBuffer commandBuffer = VK_NULL_HANDLE;        // freed with the pool
        std::vector<Owned<VkDescriptorPool>> descriptorPools;  // newest first, as blade
        uint32_t poolGrowth = 0;                               // blade's growth_iter, never reset
    };
    void addSlot();
    void addDescriptorPool(Slot& slot, uint32_t maxSets);
    SubmitOutcome submit(const std::vector<SemaphoreOp>& waits = {}, const std::vector<SemaphoreOp>& signals = {});
    SubmitOutcome wait(uint64_t value, double timeoutSeconds);

    const Device& device_;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t family_ = 0;
    Owned<VkCommandPool> commandPool_;
    std::vector<Slot> slots_;
    size_t current_ = 0;
    size_t inFlight_ = 0;  // slots submitted and not yet waited for
    Owned<VkSemaphore> timeline_;
    uint64_t timelineValue_ = 0;  // blade's last_progress: 1, 2, 3... for the run
};

// A timeline semaphore (else a binary one) on `device`, its value 0. Throws VulkanError.
Owned<VkSemaphore> createSemaphore(const Device& device, bool timeline);

}  // namespace repro::vk
