// Memory-type choice per blade's allocator rules, and buffer creation.
#include "vk/memory.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "vk/check.hpp"
#include "vk/describe.hpp"
#include "vk/device.hpp"

namespace repro::vk {

std::string_view name(MemoryClass c) { return c == MemoryClass::Device ? "Device" : "Shared"; }

namespace {

// The properties a memory type's choice depends on.
struct TypeFlags {
    VkMemoryPropertyFlags all;
    bool deviceLocal, hostVisible, coherent, cached;
};

// The lowest-scoring type among `typeBits` (ties: the lowest index); `score` returns -1
// for a type that is not allowed.
template <typename Score>
std::optional<uint32_t> lowestScore(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits, Score&& score) {
    std::optional<uint32_t> best;
    int bestScore = 1 << 30;
    for (uint32_t i = 0; i < memory.memoryTypeCount && i < 32; ++i) {
        if (!(typeBits & (1u << i))) continue;
        const VkMemoryPropertyFlags f = memory.memoryTypes[i].propertyFlags;
        const int s = score(TypeFlags{.all = f,
                                      .deviceLocal = (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0,
                                      .hostVisible = (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0,
                                      .coherent = (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0,
                                      .cached = (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0});
        if (s >= 0 && s < bestScore) {
            bestScore = s;
            best = i;
        }
    }
    return best;
}

}  // namespace

std::optional<uint32_t> chooseMemoryType(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits,
                                         MemoryClass cls) {
    constexpr VkMemoryPropertyFlags kAllowed =
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT |
        VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT;
    return lowestScore(memory, typeBits, [cls](const TypeFlags& t) {
        if ((t.all & ~kAllowed) != 0) return -1;      // e.g. DEVICE_COHERENT_AMD, PROTECTED
        if (t.hostVisible && !t.coherent) return -1;  // blade drops non-coherent host types
        if (t.all & VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT) return -1;
        if (cls == MemoryClass::Shared && !t.hostVisible) return -1;
        if (cls == MemoryClass::Device) {
            return 8 * !t.deviceLocal + 4 * t.hostVisible + 2 * t.cached + 1 * t.coherent;
        }
        return 8 * !t.deviceLocal + 2 * !t.cached + 1 * !t.coherent;
    });
}

std::string memoryFlagsText(VkMemoryPropertyFlags flags) {
    return maskText(flags,
                    {{VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "DEVICE_LOCAL"},
                     {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "HOST_VISIBLE"},
                     {VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "HOST_COHERENT"},
                     {VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "HOST_CACHED"},
                     {VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT, "LAZILY_ALLOCATED"},
                     {VK_MEMORY_PROPERTY_PROTECTED_BIT, "PROTECTED"},
                     {VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD, "DEVICE_COHERENT_AMD"},
                     {VK_MEMORY_PROPERTY_DEVICE_UNCACHED_BIT_AMD, "DEVICE_UNCACHED_AMD"}},
                    "none", false);
}

std::optional<uint32_t> choosePlacementType(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits,
                                            BufferMemory placement) {
    if (placement == BufferMemory::Blade) return std::nullopt;
    return lowestScore(memory, typeBits, [placement](const TypeFlags& t) {
        // PROTECTED and LAZILY_ALLOCATED never hold a storage buffer here; the AMD
        // device-coherent types need the deviceCoherentMemory feature, which is not enabled.
        if (t.all & (VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT |
                     VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD | VK_MEMORY_PROPERTY_DEVICE_UNCACHED_BIT_AMD)) {
            return -1;
        }
        switch (placement) {
            case BufferMemory::DeviceLocal:
                return t.deviceLocal ? int{t.hostVisible} : -1;
            case BufferMemory::HostVisible:
                return t.hostVisible && t.coherent ? 2 * t.cached + t.deviceLocal : -1;
            case BufferMemory::HostCached:
                return t.hostVisible && t.coherent && t.cached ? int{t.deviceLocal} : -1;
            case BufferMemory::Blade:
                break;
        }
        return -1;
    });
}

namespace {

// The memory type and whether the buffer is mapped, or CannotTest.
std::pair<uint32_t, bool> chooseType(const Device& device, const std::string& bufferName, uint32_t typeBits,
                                     MemoryClass cls, BufferMemory placement) {
    const auto& props = device.info().memory;
    if (placement == BufferMemory::Blade) {
        const auto type = chooseMemoryType(props, typeBits, cls);
        if (!type) {
            throw CannotTest(
                fmt::format("no memory type for {} buffer '{}' among types 0x{:x} under "
                            "blade's rules",
                            repro::vk::name(cls), bufferName, typeBits));
        }
        return {*type, cls == MemoryClass::Shared};
    }
    const auto type = choosePlacementType(props, typeBits, placement);
    if (!type) {
        throw CannotTest(
            fmt::format("--memory {}: the device offers no such memory type for '{}' "
                        "(types 0x{:x})",
                        repro::name(placement), bufferName, typeBits));
    }
    return {*type, placement != BufferMemory::DeviceLocal};
}

// vkAllocateMemory, with CannotTest for out-of-memory results.
Owned<VkDeviceMemory> allocate(const Device& device, const std::string& what, VkDeviceSize bytes, uint32_t type,
                               bool deviceAddress) {
    const auto& props = device.info().memory;
    const VkMemoryAllocateFlagsInfo flags{.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                          .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    const VkMemoryAllocateInfo alloc{
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = deviceAddress ? &flags : nullptr,
        .allocationSize = bytes,
        .memoryTypeIndex = type,
    };
    VkDeviceMemory memory = VK_NULL_HANDLE;
    const VkResult r = vkAllocateMemory(device.get(), &alloc, nullptr, &memory);
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
        const uint32_t heap = props.memoryTypes[type].heapIndex;
        throw CannotTest(
            fmt::format("not enough device memory: vkAllocateMemory({} bytes for '{}', type {}) returned {}; "
                        "heap {} holds {} MiB",
                        bytes, what, type, resultName(r), heap, props.memoryHeaps[heap].size >> 20));
    }
    if (r != VK_SUCCESS) throw VulkanError("vkAllocateMemory", r, what);
    return Owned<VkDeviceMemory>(device.life(), memory);
}

// vkCreateBuffer with blade's usage; out of memory is CannotTest naming the heap the
// class would come from.
Owned<VkBuffer> createRawBuffer(const Device& device, const std::string& name, VkDeviceSize bytes, MemoryClass cls,
                                bool deviceAddress, const std::vector<uint32_t>& families = {}) {
    const bool concurrent = families.size() >= 2;
    const VkBufferCreateInfo info{
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = bytes,
        .usage = kBladeBufferUsage | (deviceAddress ? VkBufferUsageFlags{VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT}
                                                    : VkBufferUsageFlags{0}),
        .sharingMode = concurrent ? VK_SHARING_MODE_CONCURRENT : VK_SHARING_MODE_EXCLUSIVE,
        .queueFamilyIndexCount = concurrent ? static_cast<uint32_t>(families.size()) : 0u,
        .pQueueFamilyIndices = concurrent ? families.data() : nullptr,
    };
    VkBuffer raw = VK_NULL_HANDLE;
    const VkResult r = vkCreateBuffer(device.get(), &info, nullptr, &raw);
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
        const auto& props = device.info().memory;
        std::string heaps;
        if (const auto type = chooseMemoryType(props, ~0u, cls)) {
            const uint32_t heap = props.memoryTypes[*type].heapIndex;
            heaps = fmt::format("; {} memory would come from heap {}, which holds {} MiB", repro::vk::name(cls), heap,
                                props.memoryHeaps[heap].size >> 20);
        }
        throw CannotTest(fmt::format("vkCreateBuffer({}, {} bytes): {}{}", name, bytes, resultName(r), heaps));
    }
    if (r != VK_SUCCESS) throw VulkanError("vkCreateBuffer", r, name);
    return Owned<VkBuffer>(device.life(), raw);
}

}  // namespace

Allocator::Allocator(const Device& device, bool gpuAllocLayout) : device_(&device) {
    if (gpuAllocLayout) planner_.emplace();
}

Buffer Allocator::create(std::string name, VkDeviceSize bytes, MemoryClass cls, const BufferOptions& options) {
    const Device& device = *device_;
    Buffer b{.name = std::move(name), .size = bytes, .memoryClass = cls};
    b.buffer = createRawBuffer(device, b.name, bytes, cls, options.deviceAddress, options.concurrentFamilies);
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(device.get(), b.get(), &req);
    const auto [type, mapped] = chooseType(device, b.name, req.memoryTypeBits, cls, options.placement);
    b.memoryType = type;
    const auto& props = device.info().memory;
    const VkDeviceSize heapSize = props.memoryHeaps[props.memoryTypes[type].heapIndex].size;
    std::optional<Placement> place;
    if (planner_) {
        place =
            planner_->place(type, heapSize, cls == MemoryClass::Shared ? GpuAllocUsage::Shared : GpuAllocUsage::Device,
                            req.size, std::max<VkDeviceSize>(req.alignment, 1));
    }
    if (!place || place->dedicated) {
        bindDedicated(b, req.size, mapped, options.deviceAddress);
    } else {
        bindInChunk(b, *place, mapped, options.deviceAddress);
    }
    return b;
}

Owned<VkDeviceMemory> bindImageMemory(const Device& device, const std::string& name, VkImage image, MemoryClass cls,
                                      BufferMemory placement) {
    VkMemoryRequirements req{};
    vkGetImageMemoryRequirements(device.get(), image, &req);
    const uint32_t type = chooseType(device, name, req.memoryTypeBits, cls, placement).first;
    Owned<VkDeviceMemory> memory = allocate(device, name, req.size, type, false);
    check(vkBindImageMemory(device.get(), image, memory.get(), 0), "vkBindImageMemory");
    return memory;
}

void Allocator::bindDedicated(Buffer& b, VkDeviceSize bytes, bool mapped, bool deviceAddress) {
    const Device& device = *device_;
    b.memory = allocate(device, b.name, bytes, b.memoryType, deviceAddress);
    b.memoryHandle = b.memory.get();
    check(vkBindBufferMemory(device.get(), b.get(), b.memoryHandle, 0), "vkBindBufferMemory");
    if (mapped) check(vkMapMemory(device.get(), b.memoryHandle, 0, bytes, 0, &b.mapped), "vkMapMemory");
    dedicated_.push_back(fmt::format("type {}: {} bytes, dedicated: {}", b.memoryType, bytes, b.name));
}

void Allocator::bindInChunk(Buffer& b, const Placement& place, bool mapped, bool deviceAddress) {
    const Device& device = *device_;
    if (place.newChunk) {
        const uint64_t chunkBytes = planner_->chunks()[place.chunk].size;
        Chunk chunk{.memory = allocate(device, fmt::format("chunk {} for '{}'", place.chunk, b.name), chunkBytes,
                                       b.memoryType, deviceAddress),
                    .type = b.memoryType,
                    .size = chunkBytes};
        // gpu-alloc maps a host-visible chunk once, whole (blade resource.rs:203-218).
        if (mapped)
            check(vkMapMemory(device.get(), chunk.memory.get(), 0, chunkBytes, 0, &chunk.mapped), "vkMapMemory");
        if (chunks_.size() <= place.chunk) chunks_.resize(place.chunk + 1);
        chunks_[place.chunk] = std::move(chunk);
    }
    Chunk& chunk = chunks_.at(place.chunk);
    b.memoryHandle = chunk.memory.get();
    b.memoryOffset = place.offset;
    check(vkBindBufferMemory(device.get(), b.get(), b.memoryHandle, b.memoryOffset), "vkBindBufferMemory");
    if (chunk.mapped) b.mapped = static_cast<char*>(chunk.mapped) + place.offset;
    chunk.contents.push_back(fmt::format("{}@{}", b.name, place.offset));
}

std::vector<std::string> Allocator::describeLayout() const {
    std::vector<std::string> lines = dedicated_;
    for (size_t i = 0; i < chunks_.size(); ++i) {
        const Chunk& c = chunks_[i];
        if (!c.memory) continue;
        lines.push_back(
            fmt::format("type {}: {} bytes, shared chunk {}: {}", c.type, c.size, i, fmt::join(c.contents, ", ")));
    }
    return lines;
}

void copyWhole(VkCommandBuffer cmd, const Buffer& from, const Buffer& to) {
    const VkBufferCopy region{.srcOffset = 0, .dstOffset = 0, .size = from.size};
    vkCmdCopyBuffer(cmd, from.get(), to.get(), 1, &region);
}

Buffer createBuffer(const Device& device, std::string name, VkDeviceSize bytes, MemoryClass cls) {
    return Allocator(device, false).create(std::move(name), bytes, cls);
}

}  // namespace repro::vk
