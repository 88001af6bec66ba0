// The pipeline barriers the chain records, one named function each, with the stage and
// access masks spelled out where they are built.
#pragma once

#include <volk.h>

namespace repro::vk {

// One global VkMemoryBarrier through vkCmdPipelineBarrier (no dependency flags).
inline void recordMemoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
                                VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
    const VkMemoryBarrier barrier{
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = srcAccess, .dstAccessMask = dstAccess};
    vkCmdPipelineBarrier(cmd, srcStage, dstStage, /*dependencyFlags=*/0, 1, &barrier, 0, nullptr, 0, nullptr);
}

// blade's global barrier "G" (`CommandEncoder::barrier`, command.rs:369-389 at 72c30c1),
// emitted at every pass start and by finish() before vkEndCommandBuffer:
// ALL_COMMANDS -> ALL_COMMANDS, MEMORY_WRITE|TRANSFER_WRITE ->
// MEMORY_READ|MEMORY_WRITE|TRANSFER_READ|TRANSFER_WRITE (the TRANSFER bits are blade's
// extra_sync_src/dst_access workarounds, the same for every vendor).
inline void recordBladeGlobalBarrier(VkCommandBuffer cmd) {
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                        VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                        VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                            VK_ACCESS_TRANSFER_WRITE_BIT);
}

// blade's compute barrier "C" (`ComputeCommandEncoder::barrier`, command.rs:859-876),
// what pass.barrier() records inside one compute pass: COMPUTE_SHADER -> COMPUTE_SHADER,
// SHADER_WRITE -> SHADER_READ|SHADER_WRITE. Not G: the original report quotes G here.
inline void recordBladeComputeBarrier(VkCommandBuffer cmd) {
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

// One global VkMemoryBarrier2 through vkCmdPipelineBarrier2 (Vulkan 1.3 or
// VK_KHR_synchronization2; the device must enable the synchronization2 feature).
inline void recordMemoryBarrier2(VkCommandBuffer cmd, VkPipelineStageFlags2 srcStage, VkAccessFlags2 srcAccess,
                                 VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess) {
    const VkMemoryBarrier2 barrier{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                                   .srcStageMask = srcStage,
                                   .srcAccessMask = srcAccess,
                                   .dstStageMask = dstStage,
                                   .dstAccessMask = dstAccess};
    const VkDependencyInfo dependency{
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &barrier};
    vkCmdPipelineBarrier2(cmd, &dependency);
}

// --barrier sync2: the storage-specific synchronization2 barrier the original report lists
// as an untried workaround: COMPUTE_SHADER/SHADER_STORAGE_WRITE ->
// COMPUTE_SHADER/SHADER_STORAGE_READ|SHADER_STORAGE_WRITE.
inline void recordSync2StorageBarrier(VkCommandBuffer cmd) {
    recordMemoryBarrier2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                         VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                         VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

// --barrier full: synchronization2 with everything in both scopes: ALL_COMMANDS,
// MEMORY_WRITE -> ALL_COMMANDS, MEMORY_READ|MEMORY_WRITE.
inline void recordSync2FullBarrier(VkCommandBuffer cmd) {
    recordMemoryBarrier2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
                         VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                         VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
}

// One VkBufferMemoryBarrier on the whole of `buffer` through vkCmdPipelineBarrier (no dependency
// flags). The defaults are --barrier buffer, on exactly the buffer the previous dispatch wrote:
// COMPUTE_SHADER, SHADER_WRITE -> COMPUTE_SHADER, SHADER_READ|SHADER_WRITE, no queue-family
// transfer; a scenario's sync1 buffer barrier and ownership transfer pass their own.
inline void recordBufferBarrier(VkCommandBuffer cmd, VkBuffer buffer,
                                VkPipelineStageFlags srcStage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                VkAccessFlags srcAccess = VK_ACCESS_SHADER_WRITE_BIT,
                                VkPipelineStageFlags dstStage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                VkAccessFlags dstAccess = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                                uint32_t srcFamily = VK_QUEUE_FAMILY_IGNORED,
                                uint32_t dstFamily = VK_QUEUE_FAMILY_IGNORED) {
    const VkBufferMemoryBarrier barrier{.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                                        .srcAccessMask = srcAccess,
                                        .dstAccessMask = dstAccess,
                                        .srcQueueFamilyIndex = srcFamily,
                                        .dstQueueFamilyIndex = dstFamily,
                                        .buffer = buffer,
                                        .offset = 0,
                                        .size = VK_WHOLE_SIZE};
    vkCmdPipelineBarrier(cmd, srcStage, dstStage, 0, 0, nullptr, 1, &barrier, 0, nullptr);
}

// --barrier execution-only, a control: orders execution COMPUTE_SHADER -> COMPUTE_SHADER but
// carries no memory barrier, so writes are not made available or visible (Vulkan spec,
// "Execution and Memory Dependencies"): invalid for a read-after-write on purpose.
inline void recordExecutionOnlyBarrier(VkCommandBuffer cmd) {
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr,
                         0, nullptr, 0, nullptr);
}

// Not in blade: makes device writes visible to the host before it reads the mapped
// result (Vulkan spec, "Host Write Ordering Guarantees" covers only host->device; a
// device->host read needs HOST_READ in a dependency's second access scope, which G's
// ALL_COMMANDS does not include). Recorded after the final G of a mode's last command
// buffer.
inline void recordHostReadBarrier(VkCommandBuffer cmd) {
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                        VK_ACCESS_HOST_READ_BIT);
}

}  // namespace repro::vk
