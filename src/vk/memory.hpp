// Buffers and their memory, placed as blade-graphics places them
// (blade-command-stream.md §3: blade `vulkan/resource.rs`, gpu-alloc 0.6 usage.rs).
#pragma once

#include <volk.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vk/handles.hpp"

namespace repro::vk {

class Device;

// blade's gpu::Memory classes used by the original repro.
enum class MemoryClass {
    Device,  // gpu-alloc FAST_DEVICE_ACCESS
    Shared,  // HOST_ACCESS | DOWNLOAD | UPLOAD | FAST_DEVICE_ACCESS: host-visible, mapped
};
std::string_view name(MemoryClass c);  // "Device", "Shared"

// Pure function (no Vulkan calls): the memory type blade's allocator picks for `cls`
// among the types in `typeBits`. Rules (init.rs:1298-1324 and gpu-alloc usage.rs):
// a type is allowed only if its flags are a subset of DEVICE_LOCAL|HOST_VISIBLE|
// HOST_COHERENT|HOST_CACHED|LAZILY_ALLOCATED and HOST_VISIBLE comes with HOST_COHERENT;
// it is compatible if not LAZILY_ALLOCATED or PROTECTED and, for Shared, HOST_VISIBLE.
// Lowest score wins: 8*(device-local mismatch) + 4*(host-visible mismatch) +
// 2*(cached mismatch) + 1*(coherent mismatch), where Device wants DEVICE_LOCAL and not
// HOST_VISIBLE/CACHED/COHERENT, and Shared wants DEVICE_LOCAL, HOST_CACHED, HOST_COHERENT.
// Ties go to the lowest index (blade's unstable sort is not reproducible).
std::optional<uint32_t> chooseMemoryType(const VkPhysicalDeviceMemoryProperties& memory,
                                         uint32_t typeBits, MemoryClass cls);

// "DEVICE_LOCAL|HOST_VISIBLE|..." or "none".
std::string memoryFlagsText(VkMemoryPropertyFlags flags);

// Usage flags blade gives every buffer (resource.rs:363-426), without
// SHADER_DEVICE_ADDRESS: the default profile does not use buffer device addresses.
inline constexpr VkBufferUsageFlags kBladeBufferUsage =
    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT |
    VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
    VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;

// A buffer with its own VkDeviceMemory (one vkAllocateMemory per buffer; blade's
// power-of-two sub-allocation is not reproduced here). Shared buffers stay mapped.
struct Buffer {
    std::string name;
    VkDeviceSize size = 0;  // bytes
    MemoryClass memoryClass = MemoryClass::Device;
    uint32_t memoryType = 0;
    Owned<VkBuffer> buffer;
    Owned<VkDeviceMemory> memory;
    void* mapped = nullptr;  // Shared only: persistently mapped whole allocation

    VkBuffer get() const { return buffer.get(); }
};

// vkCreateBuffer -> vkGetBufferMemoryRequirements -> vkAllocateMemory -> vkBindBufferMemory
// (-> vkMapMemory for Shared). Throws CannotTest when no memory type fits or the
// allocation runs out of memory (naming the bytes needed and the heap), VulkanError
// for other failures.
Buffer createBuffer(const Device& device, std::string name, VkDeviceSize bytes, MemoryClass cls);

}  // namespace repro::vk
