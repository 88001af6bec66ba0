// A scenario's modes over its queues (docs/scenarios.md "Queues and semaphores"): split submits
// each step on its own queue, waited for; multipass and single one batch per signal/wait
// boundary with the file's semaphores (scenario/scenario_sync.hpp batchesOf); queue family
// ownership transfers wherever an exclusive buffer or image changes family. Part of the step
// walker (vk/scenario_recorder.hpp), which records files without queues itself.
#pragma once

#include <volk.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario/scenario_sync.hpp"
#include "vk/encoder.hpp"
#include "vk/handles.hpp"
#include "vk/scenario_resources.hpp"
#include "vk/scenario_settings.hpp"

namespace repro::vk {

// One mode's queue family ownership transfers (scenario_sync.hpp ownershipTransfers), recorded
// where they belong: each release a VkBufferMemoryBarrier (an image's a VkImageMemoryBarrier,
// oldLayout == newLayout its layout there) in a vkCmdPipelineBarrier of its own, srcStageMask
// the uses' stages, dstStageMask BOTTOM_OF_PIPE, srcAccessMask their writes; each acquire one
// with srcStageMask and dstStageMask the next use's stage and dstAccessMask its accesses
// (Vulkan spec, "Queue Family Ownership Transfer": the release's dstAccessMask and the
// acquire's srcAccessMask are ignored, so both are 0). None where every queue landed in one
// family, or without queues.
class Ownership {
  public:
    Ownership(const Device& device, const scenario::Scenario& s);
    // Whether a release follows step `step`.
    bool releases(size_t step) const;
    // The releases after step `step` (nullopt: the fresh-state submit's end).
    void releasesAfter(VkCommandBuffer cmd, std::optional<size_t> step, const ScenarioBuffers& buffers) const;
    // The acquires before step `step` (nullopt: the readback's start, every buffer back on the main queue).
    void acquiresBefore(VkCommandBuffer cmd, std::optional<size_t> step, const ScenarioBuffers& buffers) const;

  private:
    void record(VkCommandBuffer cmd, const scenario::OwnershipTransfer& t, const ScenarioBuffers& buffers,
                bool release) const;
    const scenario::Scenario& s_;
    std::vector<scenario::OwnershipTransfer> transfers_;
};

// --timestamps on a file with queues: a TOP_OF_PIPE/BOTTOM_OF_PIPE pair around each of the
// mode's own command buffers on any queue (one pool, reset in the fresh-state submit), read
// after every submit is waited for; masked to each family's timestampValidBits (Vulkan spec
// "Timestamp Queries"). Inactive where not asked for.
class QueueStamps {
  public:
    QueueStamps(const Device& device, bool wanted, const scenario::Scenario& s);
    void reset(VkCommandBuffer cmd) const;
    // Pair `k` at the start and the end of a command buffer on scenario queue `queue`.
    void begin(VkCommandBuffer cmd, uint32_t k, uint32_t queue) { write(cmd, k, queue, 0); }
    void end(VkCommandBuffer cmd, uint32_t k, uint32_t queue) { write(cmd, k, queue, 1); }
    // Each pair's interval in seconds, in the order begun; empty when inactive or when a pair
    // was not written (or its family has no timestamps).
    std::vector<double> collect() const;

  private:
    void write(VkCommandBuffer cmd, uint32_t k, uint32_t queue, uint32_t half);
    const Device& device_;
    std::vector<uint32_t> bits_;  // timestampValidBits by scenario queue
    double nsPerTick_ = 1;
    uint32_t pairs_ = 0;
    Owned<VkQueryPool> pool_;
    std::vector<std::pair<uint32_t, uint32_t>> written_;  // (pair, queue) begun
};

// One mode's queues: an encoder per scenario queue ([0] the main one, the caller's, which also
// makes the fresh-state and readback submits and lives from mode to mode as the built-in
// chain's encoder does) and the file's semaphores, the others made fresh for the mode (a
// binary signal is consumed, a timeline counts up from 0), named by the file's names for
// --print-stream.
struct ModeQueues {
    std::vector<Encoder*> encoders;
    std::vector<std::unique_ptr<Encoder>> owned;  // encoders[1...]
    std::vector<Owned<VkSemaphore>> semaphores;
};
ModeQueues makeQueues(const Device& device, Encoder& main, const scenario::Scenario& s);

// --check-steps after split's step `index`: [begin, G, the images it writes taken to
// TRANSFER_SRC from their layouts there, copies of the device-local buffers it writes to
// their twins and of the images to their staging buffers, H, end], waited, on `encoder`'s queue
// (the step's), then [begin, those images back to their layouts, end] when there are any; then
// the host reads them and hands them to settings.readback.onStep. With `ownership`, the step's
// releases follow H, after a G that orders the copies before them (in the second command
// buffer, after the images' way back, when there is one: an image is released in the layout the
// file has it in). False (the run ended) when a submit fails.
bool readBackStep(Encoder& encoder, const scenario::Scenario& s, size_t index, const ScenarioBuffers& buffers,
                  const ScenarioRunSettings& settings, ScenarioModeRun& out, const Ownership* ownership = nullptr);

// What the walk over queues records with.
struct QueueWalk {
    const scenario::Scenario& s;
    const ScenarioPipelines& pipelines;
    const ScenarioBuffers& buffers;
    ModeQueues& queues;
    const Ownership& ownership;
    QueueStamps& stamps;
    const ScenarioRunSettings& settings;
    ScenarioModeRun& out;
};

// `mode` over the file's queues: split each work step (and each image layout transition, a
// use of its image: scenario::layoutTransition) in its own submit on its queue, waited for, a
// submit on another queue than the one before also waiting (on the device) for that queue's
// timeline, so that split stays the fully ordered reference; multipass and single one
// submit per batch with its waits and signals (each queue's first batch starts with G in
// single, its last ends with G; multipass puts G before each step), then the host waits for
// every queue. False when a submit or a wait failed (the run says which).
bool recordOnQueues(QueueWalk& walk, Mode mode);

}  // namespace repro::vk
