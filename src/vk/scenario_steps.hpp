// One scenario step's commands (the file's barrier as written, a dispatch with its pipeline and
// descriptor set, a transfer), the fresh-state submit's commands, and what the step walker asks
// of a step: shared by the walk on one queue (vk/scenario_recorder.cpp) and the walk over the
// file's queues (vk/scenario_queues.cpp).
#pragma once

#include <volk.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli/options.hpp"
#include "scenario/scenario.hpp"
#include "vk/scenario_resources.hpp"

namespace repro::vk {

class Encoder;

// One VkImageMemoryBarrier (the original form) on a scenario image's color subresource:
// `from` -> `to` with the (stages, accesses) of each scope; repro's own transitions, and with
// `families` (srcQueueFamilyIndex, dstQueueFamilyIndex) a queue family ownership transfer's half.
void recordImageTransition(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                           std::pair<VkPipelineStageFlags, VkAccessFlags> src,
                           std::pair<VkPipelineStageFlags, VkAccessFlags> dst,
                           std::pair<uint32_t, uint32_t> families = {VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED});

// The readback of checked image `spec`: its final layout -> TRANSFER_SRC, or with `copy`
// vkCmdCopyImageToBuffer into its staging buffer (ScenarioBuffers::at). The readback records
// every image's transition before the copies.
void recordImageReadback(VkCommandBuffer cmd, const scenario::BufferSpec& spec, const ScenarioBuffers& mb, bool copy);

// --check-steps' readback of the images among `names` (the step's writtenBuffers) after split's
// submit of step `index`: with `copy` false, each image not in TRANSFER_SRC in the layout that
// submit left it in taken there (a copy may read GENERAL too, but the validation layer warns of
// it), returning those images and the layouts they came from; with `copy`,
// vkCmdCopyImageToBuffer of each into its staging buffer (ScenarioBuffers::at), returning nothing.
std::vector<std::pair<VkImage, VkImageLayout>> recordStepImageReadback(VkCommandBuffer cmd, const scenario::Scenario& s,
                                                                       size_t index,
                                                                       const std::vector<std::string>& names,
                                                                       const ScenarioBuffers& mb, bool copy);

// The barrier step `b` as the file gives it: blade's G or C, or the file's masks in the
// original form (vkCmdPipelineBarrier) or synchronization2 (vkCmdPipelineBarrier2), global or
// on one buffer, or an image barrier with its layout transition; nothing for `none`.
void recordBarrier(VkCommandBuffer cmd, const scenario::Barrier& b, const ScenarioBuffers& buffers);

// One work step (a dispatch: bind its pipeline and a fresh descriptor set of its buffers, its
// push constants, vkCmdDispatch or vkCmdDispatchIndirect; a fill, an update or a copy). Nothing
// for any other step.
void recordWork(Encoder& encoder, const ScenarioPipelines& pipelines, const scenario::Step& step,
                const ScenarioBuffers& buffers);

// The fresh-state commands every mode starts with, the one rule the built-in chain's clearing
// submit follows too (vk/run_mode.cpp): G; then, in the file's buffer order, a device-local
// buffer with initial words copied from its host twin, a buffer that starts as zeros filled
// with 0 (host-visible ones too: a mode before may have written them), an image taken from
// UNDEFINED to TRANSFER_DST, cleared to 0 or copied from its staging buffer, then taken to its
// initial layout (ImageSpec::layout); then G.
void recordFreshState(VkCommandBuffer cmd, const scenario::Scenario& s, const ScenarioBuffers& buffers);

// Whether `mode` records `step` (a barrier's `modes`: scenario::Step::modeMask).
bool inMode(const scenario::Step& step, Mode mode);
using scenario::isHostPoint;  // a host write or read (scenario/scenario.hpp)
using scenario::isWork;       // what a submit holds (scenario/scenario.hpp)

// Per step index of `s`: its work number, 1-based among the work steps in file order (the
// numbers the mode's submits name: vk::SubmitRecord), 0 for any other step.
std::vector<uint32_t> workNumbers(const scenario::Scenario& s);

// The buffers step `index` of `s` writes (scenario::writtenRanges), each once, in the order written.
std::vector<std::string> writtenBuffers(const scenario::Scenario& s, size_t index);

}  // namespace repro::vk
