// Memory-type choice per blade's allocator rules, and buffer creation.
#include "vk/memory.hpp"

#include <fmt/format.h>

#include "vk/check.hpp"
#include "vk/device.hpp"

namespace repro::vk {

std::string_view name(MemoryClass c) { return c == MemoryClass::Device ? "Device" : "Shared"; }

std::optional<uint32_t> chooseMemoryType(const VkPhysicalDeviceMemoryProperties& memory,
                                         uint32_t typeBits, MemoryClass cls) {
    constexpr VkMemoryPropertyFlags kAllowed =
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT |
        VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT;
    std::optional<uint32_t> best;
    int bestScore = 1 << 30;
    for (uint32_t i = 0; i < memory.memoryTypeCount && i < 32; ++i) {
        if (!(typeBits & (1u << i))) continue;
        const VkMemoryPropertyFlags f = memory.memoryTypes[i].propertyFlags;
        const bool deviceLocal = f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        const bool hostVisible = f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
        const bool coherent = f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        const bool cached = f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
        if ((f & ~kAllowed) != 0) continue;             // e.g. DEVICE_COHERENT_AMD, PROTECTED
        if (hostVisible && !coherent) continue;         // blade drops non-coherent host types
        if (f & VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT) continue;
        if (cls == MemoryClass::Shared && !hostVisible) continue;
        int score = 0;
        if (cls == MemoryClass::Device) {
            score = 8 * !deviceLocal + 4 * hostVisible + 2 * cached + 1 * coherent;
        } else {
            score = 8 * !deviceLocal + 2 * !cached + 1 * !coherent;
        }
        if (score < bestScore) {
            bestScore = score;
            best = i;
        }
    }
    return best;
}

std::string memoryFlagsText(VkMemoryPropertyFlags flags) {
    static constexpr std::pair<VkMemoryPropertyFlags, const char*> kNames[] = {
        {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "DEVICE_LOCAL"},
        {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "HOST_VISIBLE"},
        {VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "HOST_COHERENT"},
        {VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "HOST_CACHED"},
        {VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT, "LAZILY_ALLOCATED"},
        {VK_MEMORY_PROPERTY_PROTECTED_BIT, "PROTECTED"},
        {VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD, "DEVICE_COHERENT_AMD"},
        {VK_MEMORY_PROPERTY_DEVICE_UNCACHED_BIT_AMD, "DEVICE_UNCACHED_AMD"},
    };
    std::string text;
    for (const auto& [bit, label] : kNames) {
        if (flags & bit) text += fmt::format("{}{}", text.empty() ? "" : "|", label);
    }
    return text.empty() ? "none" : text;
}

Buffer createBuffer(const Device& device, std::string name, VkDeviceSize bytes, MemoryClass cls) {
    Buffer b;
    b.name = std::move(name);
    b.size = bytes;
    b.memoryClass = cls;
    const VkBufferCreateInfo info{
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = bytes,
        .usage = kBladeBufferUsage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkBuffer raw = VK_NULL_HANDLE;
    VkResult r = vkCreateBuffer(device.get(), &info, nullptr, &raw);
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
        const auto& props = device.info().memory;
        std::string heaps;
        if (const auto type = chooseMemoryType(props, ~0u, cls)) {
            const uint32_t heap = props.memoryTypes[*type].heapIndex;
            heaps = fmt::format("; {} memory would come from heap {}, which holds {} MiB",
                                repro::vk::name(cls), heap, props.memoryHeaps[heap].size >> 20);
        }
        throw CannotTest(fmt::format("vkCreateBuffer({}, {} bytes): {}{}", b.name, bytes,
                                     resultName(r), heaps));
    }
    if (r != VK_SUCCESS) throw VulkanError("vkCreateBuffer", r, b.name);
    b.buffer = Owned<VkBuffer>(device.life(), raw);

    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(device.get(), raw, &req);
    const auto& props = device.info().memory;
    const auto type = chooseMemoryType(props, req.memoryTypeBits, cls);
    if (!type) {
        throw CannotTest(fmt::format("no memory type for {} buffer '{}' among types 0x{:x} under "
                                     "blade's rules",
                                     repro::vk::name(cls), b.name, req.memoryTypeBits));
    }
    b.memoryType = *type;
    const VkMemoryAllocateInfo alloc{
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = *type,
    };
    VkDeviceMemory memory = VK_NULL_HANDLE;
    r = vkAllocateMemory(device.get(), &alloc, nullptr, &memory);
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
        const uint32_t heap = props.memoryTypes[*type].heapIndex;
        throw CannotTest(fmt::format(
            "not enough device memory: vkAllocateMemory({} bytes for '{}', type {}) returned {}; "
            "heap {} holds {} MiB",
            req.size, b.name, *type, resultName(r), heap, props.memoryHeaps[heap].size >> 20));
    }
    if (r != VK_SUCCESS) throw VulkanError("vkAllocateMemory", r, b.name);
    b.memory = Owned<VkDeviceMemory>(device.life(), memory);
    check(vkBindBufferMemory(device.get(), raw, memory, 0), "vkBindBufferMemory");
    if (cls == MemoryClass::Shared) {
        check(vkMapMemory(device.get(), memory, 0, req.size, 0, &b.mapped), "vkMapMemory");
    }
    return b;
}

}  // namespace repro::vk
