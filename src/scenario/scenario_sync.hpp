// Queues and semaphores of a scenario (docs/scenarios.md "Queues and semaphores"): the
// batches its steps make on each queue, the checks of its semaphores before anything runs (a
// binary wait with no signal before it, a timeline wait no signal reaches, a cycle, a data
// race between queues), and the order the steps then run in. Vulkan-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace repro::scenario {

// VkPipelineStageFlagBits2 and VkAccessFlagBits2 values (Vulkan spec, "Pipeline Stages",
// "Access Types"); each equals its original VkPipelineStageFlagBits / VkAccessFlagBits.
inline constexpr uint64_t kTopOfPipeStage = 0x1, kDrawIndirectStage = 0x2, kComputeStage = 0x800,
                          kTransferStage = 0x1000, kBottomOfPipeStage = 0x2000, kAllCommandsStage = 0x10000;
inline constexpr uint64_t kIndirectCommandRead = 0x1, kShaderRead = 0x20, kShaderWrite = 0x40, kTransferRead = 0x800,
                          kTransferWrite = 0x1000, kMemoryRead = 0x8000, kMemoryWrite = 0x10000;

// How one step uses one buffer: its stages, its accesses, and those of them that write.
struct Use {
    uint64_t stage = 0, access = 0, writes = 0;
};

// Each buffer `step` uses, with how (a dispatch's bindings as dispatchReads/dispatchWrites
// say, its indirect args at DRAW_INDIRECT; a fill, update or copy at TRANSFER). Pure.
std::map<std::string, Use> usesOf(const Step& step, const Scenario& s);

// The image barrier of `step` when it transitions its image's layout (old_layout !=
// new_layout), else nullptr. A transition reads and writes the image (Vulkan spec, "Image
// Layout Transitions"): the checks between queues take it as a write at its source stage, the
// ownership transfers as a use at its stages.
const Barrier* layoutTransition(const Step& step);

// Stage sets of a first and of a second synchronization scope: ALL_COMMANDS in either, and
// BOTTOM_OF_PIPE in a first, stand for every stage (Vulkan spec, "Pipeline Stages"). TOP_OF_PIPE
// in a second scope is taken as no stage: it orders execution at most, with no access, so it
// makes nothing visible.
uint64_t firstScope(uint64_t stages);
uint64_t secondScope(uint64_t stages);

// `b` with its masks spelled out: blade's G and C as a memory barrier of the masks
// vk/barriers.hpp records them with; any other kind as it is.
Barrier explicitForm(const Barrier& b);

// One batch: what one VkSubmitInfo carries in multipass and single (Vulkan spec, "Queue
// Submission"): the waits that open it, its steps (dispatches, transfers and barriers) as one
// command buffer, and the signals that end it. Indices into Scenario::steps, in their order.
struct Batch {
    uint32_t queue = 0;  // index into Scenario::queues
    std::vector<size_t> waits, work, signals;
    size_t first = 0;  // the index of its first step
};

// The batches of `s`, in the order of their first steps. A queue's steps are cut into a new
// batch at a wait that follows work or a signal, and at work that follows a signal; so a
// batch is waits, then work, then signals, each possibly empty. Pure.
std::vector<Batch> batchesOf(const Scenario& s);

// The most batches the checks take (their reachability is a bit matrix of this side).
inline constexpr size_t kMaxBatches = 4096;

// Checks the semaphores of `s` and orders its steps; a scenario with no [[queue]] and no
// [[semaphore]] is left as it is. Throws UsageError with one line "FILE:LINE:COLUMN: ..." for each
// refusal of semaphores and queues that docs/scenarios.md "What is checked before anything runs" lists
// (binary and timeline values, a cycle of batches, a data race between queues, a wait that does not
// reach a step's stage), and for more than kMaxBatches batches. Then s.steps become the batches' steps
// in the order of docs/scenarios.md "Queues and semaphores" ("The order the steps run in");
// s.reordered says whether the order changed. Every mode and the CPU model run the steps in that order.
void checkAndOrderSemaphores(Scenario& s);

// One queue family ownership transfer of an exclusive buffer or image: a release on the queue
// that holds it (srcQueueFamilyIndex fromFamily, dstQueueFamilyIndex toFamily), then the same
// barrier as an acquire on the queue that uses it next, with the masks of the table in
// docs/scenarios.md "Queues and semaphores" ("Queue family ownership"); an image's keeps its layout
// (oldLayout == newLayout == `layout`). Stages and accesses are VkPipelineStageFlagBits2 /
// VkAccessFlagBits2 values, all below bit 32 (so also the original VkPipelineStageFlags / VkAccessFlags).
struct OwnershipTransfer {
    std::string buffer;
    uint32_t fromQueue = 0, toQueue = 0;    // indices into Scenario::queues
    uint32_t fromFamily = 0, toFamily = 0;  // the queue families those queues landed in
    // The release right after step `after` (an index into Scenario::steps; none: at the end of the
    // upload submit), the acquire right before step `before` (none: at the start of the readback submit).
    std::optional<size_t> after, before;
    uint64_t srcStage = 0, srcAccess = 0;         // the release's first scope (the table's release row)
    uint64_t dstStage = 0, dstAccess = 0;         // the acquire's second scope (the table's acquire row)
    ImageLayout layout = ImageLayout::Undefined;  // an image's layout between the two steps; a buffer's undefined
};

// The ownership transfers that one mode of `s` needs when its queues landed in the queue
// families `familyOf` (familyOf[q] for Scenario::queues[q]; [0] the main queue's), in step order,
// for each buffer and image that is neither `sharing = "concurrent"` nor `ownership_transfers =
// false`, where docs/scenarios.md "Queues and semaphores" ("Queue family ownership") puts them.
// Empty when every queue landed in one family. `s` must have passed checkAndOrderSemaphores and
// checkImageLayouts (an image's layout is the parser's record: Step::layouts, ImageSpec::finalLayout).
// Pure. `withLeftOut`: also those of the buffers with `ownership_transfers = false` (what that
// control leaves out, for the header to name).
std::vector<OwnershipTransfer> ownershipTransfers(const Scenario& s, const std::vector<uint32_t>& familyOf,
                                                  bool withLeftOut = false);

}  // namespace repro::scenario
