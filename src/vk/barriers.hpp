// The pipeline barriers the chain records, one named function each, with the stage and
// access masks spelled out where they are built.
#pragma once

#include <volk.h>

namespace repro::vk {

// blade's global barrier "G" (`CommandEncoder::barrier`, command.rs:369-389 at 72c30c1),
// emitted at every pass start and by finish() before vkEndCommandBuffer:
// ALL_COMMANDS -> ALL_COMMANDS, MEMORY_WRITE|TRANSFER_WRITE ->
// MEMORY_READ|MEMORY_WRITE|TRANSFER_READ|TRANSFER_WRITE (the TRANSFER bits are blade's
// extra_sync_src/dst_access workarounds, the same for every vendor).
inline void recordBladeGlobalBarrier(VkCommandBuffer cmd) {
    const VkMemoryBarrier barrier{
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT |
                         VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
    };
    vkCmdPipelineBarrier(cmd, /*srcStageMask=*/VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         /*dstStageMask=*/VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         /*dependencyFlags=*/0, 1, &barrier, 0, nullptr, 0, nullptr);
}

// blade's compute barrier "C" (`ComputeCommandEncoder::barrier`, command.rs:859-876),
// what pass.barrier() records inside one compute pass: COMPUTE_SHADER -> COMPUTE_SHADER,
// SHADER_WRITE -> SHADER_READ|SHADER_WRITE. Not G: the original report quotes G here.
inline void recordBladeComputeBarrier(VkCommandBuffer cmd) {
    const VkMemoryBarrier barrier{
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
    };
    vkCmdPipelineBarrier(cmd, /*srcStageMask=*/VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         /*dstStageMask=*/VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         /*dependencyFlags=*/0, 1, &barrier, 0, nullptr, 0, nullptr);
}

// Not in blade: makes device writes visible to the host before it reads the mapped
// result (Vulkan spec, "Host Write Ordering Guarantees" covers only host->device; a
// device->host read needs HOST_READ in a dependency's second access scope, which G's
// ALL_COMMANDS does not include). Recorded after the final G of a mode's last command
// buffer.
inline void recordHostReadBarrier(VkCommandBuffer cmd) {
    const VkMemoryBarrier barrier{
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    vkCmdPipelineBarrier(cmd, /*srcStageMask=*/VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         /*dstStageMask=*/VK_PIPELINE_STAGE_HOST_BIT,
                         /*dependencyFlags=*/0, 1, &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace repro::vk
