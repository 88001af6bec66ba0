// Buffers and their memory, placed as blade-graphics places them
// (blade `vulkan/resource.rs`, gpu-alloc 0.6 usage.rs; docs/blade-stream.md "Buffers").
#pragma once

#include <volk.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vk/gpu_alloc.hpp"
#include "core/variant.hpp"
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
std::optional<uint32_t> chooseMemoryType(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits,
                                         MemoryClass cls);

// Pure function: the memory type for a --memory placement other than blade's classes.
// Requirements: DeviceLocal needs DEVICE_LOCAL; HostVisible needs HOST_VISIBLE|HOST_COHERENT;
// HostCached needs HOST_VISIBLE|HOST_COHERENT|HOST_CACHED; none may be PROTECTED,
// LAZILY_ALLOCATED or AMD device-coherent/uncached (that needs deviceCoherentMemory). Preferences among those, in order: DeviceLocal: not HOST_VISIBLE;
// HostVisible: not HOST_CACHED (write-combined), then not DEVICE_LOCAL (system memory);
// HostCached: not DEVICE_LOCAL. Ties go to the lowest index. `Blade` is answered with
// nullopt: use chooseMemoryType with the buffer's class.
std::optional<uint32_t> choosePlacementType(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits,
                                            BufferMemory placement);

// "DEVICE_LOCAL|HOST_VISIBLE|..." or "none".
std::string memoryFlagsText(VkMemoryPropertyFlags flags);

// Usage flags blade gives every buffer (resource.rs:363-426), without
// SHADER_DEVICE_ADDRESS: the default profile does not use buffer device addresses.
inline constexpr VkBufferUsageFlags kBladeBufferUsage =
    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
    VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
    VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;

// A buffer and where its memory is: its own VkDeviceMemory (the default), or a block of a
// chunk shared with other buffers (--profile blade-exact, gpu-alloc's buddy layout).
struct Buffer {
    std::string name;
    VkDeviceSize size = 0;  // bytes
    MemoryClass memoryClass = MemoryClass::Device;
    uint32_t memoryType = 0;
    Owned<VkBuffer> buffer;
    Owned<VkDeviceMemory> memory;                  // a dedicated allocation; empty when sub-allocated
    VkDeviceMemory memoryHandle = VK_NULL_HANDLE;  // what the buffer is bound to
    VkDeviceSize memoryOffset = 0;                 // bytes into memoryHandle
    void* mapped = nullptr;  // host-visible placements: the buffer's first byte, persistently mapped

    VkBuffer get() const { return buffer.get(); }
};

// vkCmdCopyBuffer of all of `from` into `to` (at least as large), one region at offset 0.
void copyWhole(VkCommandBuffer cmd, const Buffer& from, const Buffer& to);

// How a buffer is made beyond its class.
struct BufferOptions {
    // --memory: a placement other than Blade overrides the class's type choice; host
    // placements are mapped, DeviceLocal never is.
    BufferMemory placement = BufferMemory::Blade;
    // --profile blade-exact with bufferDeviceAddress enabled: SHADER_DEVICE_ADDRESS usage and
    // VkMemoryAllocateFlagsInfo{DEVICE_ADDRESS} on the allocation (blade resource.rs:363-426).
    bool deviceAddress = false;
    // Two or more queue families: VK_SHARING_MODE_CONCURRENT among them (a scenario with
    // queues of two families; Vulkan spec "Resource Sharing Mode"); else EXCLUSIVE.
    std::vector<uint32_t> concurrentFamilies;
};

// Makes buffers and their memory. The default gives each buffer its own vkAllocateMemory of
// exactly its requirement. With `gpuAllocLayout` (--profile blade-exact) the decisions of
// gpu-alloc 0.6 as blade configures it are replayed (vk/gpu_alloc.hpp): large buffers get
// their own allocation, the others share power-of-two chunks per memory type, host-visible
// chunks mapped once whole. Buffers must be destroyed before their allocator.
class Allocator {
  public:
    Allocator(const Device& device, bool gpuAllocLayout);

    // vkCreateBuffer -> vkGetBufferMemoryRequirements -> (vkAllocateMemory) ->
    // vkBindBufferMemory (-> vkMapMemory). Throws CannotTest when no memory type fits or an
    // allocation runs out of memory (naming the bytes and the heap), VulkanError otherwise.
    Buffer create(std::string name, VkDeviceSize bytes, MemoryClass cls, const BufferOptions& options = {});

    // One line per VkDeviceMemory: type, bytes, and the buffers in it with their offsets.
    std::vector<std::string> describeLayout() const;

  private:
    void bindDedicated(Buffer& b, VkDeviceSize bytes, bool mapped, bool deviceAddress);
    void bindInChunk(Buffer& b, const Placement& place, bool mapped, bool deviceAddress);

    struct Chunk {
        Owned<VkDeviceMemory> memory;
        uint32_t type = 0;
        VkDeviceSize size = 0;
        void* mapped = nullptr;
        std::vector<std::string> contents;  // "name@offset"
    };
    const Device* device_;
    std::optional<GpuAllocPlanner> planner_;
    std::vector<Chunk> chunks_;
    std::vector<std::string> dedicated_;  // layout lines of dedicated allocations
};

// An image's own memory: vkGetImageMemoryRequirements, the type `placement` chooses (as
// Allocator::create does for a buffer of class `cls`), vkAllocateMemory, vkBindImageMemory.
// Throws CannotTest when no type fits or memory runs out, VulkanError otherwise.
Owned<VkDeviceMemory> bindImageMemory(const Device& device, const std::string& name, VkImage image, MemoryClass cls,
                                      BufferMemory placement);

// A buffer with its own allocation and the default usage (Allocator(device, false).create).
Buffer createBuffer(const Device& device, std::string name, VkDeviceSize bytes, MemoryClass cls);

}  // namespace repro::vk
