// Unit tests for the pure parts of src/vk/memory.{hpp,cpp}: chooseMemoryType (blade's
// allocator rules) and memoryFlagsText, on synthetic VkPhysicalDeviceMemoryProperties.
// No vk* function is called.
#include "vk/memory.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>

namespace repro::vk {
namespace {

constexpr VkMemoryPropertyFlags DL = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags HV = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
constexpr VkMemoryPropertyFlags HC = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags CACHED = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
constexpr VkMemoryPropertyFlags LAZY = VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT;
constexpr VkMemoryPropertyFlags PROTECTED = VK_MEMORY_PROPERTY_PROTECTED_BIT;
constexpr VkMemoryPropertyFlags AMD_COHERENT = VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD;
constexpr VkMemoryPropertyFlags AMD_UNCACHED = VK_MEMORY_PROPERTY_DEVICE_UNCACHED_BIT_AMD;
constexpr uint32_t kAllTypes = ~0u;

// Memory properties with one type per entry of `types` (all on heap 0, except
// non-device-local types on heap 1).
VkPhysicalDeviceMemoryProperties layout(std::initializer_list<VkMemoryPropertyFlags> types) {
    VkPhysicalDeviceMemoryProperties p{};
    p.memoryHeapCount = 2;
    p.memoryHeaps[0] = {.size = 8ull << 30, .flags = VK_MEMORY_HEAP_DEVICE_LOCAL_BIT};
    p.memoryHeaps[1] = {.size = 16ull << 30, .flags = 0};
    for (const VkMemoryPropertyFlags f : types) {
        p.memoryTypes[p.memoryTypeCount++] = {.propertyFlags = f, .heapIndex = (f & DL) ? 0u : 1u};
    }
    return p;
}

// A discrete GPU: VRAM, system memory (write-combined and cached), and the BAR window.
const VkPhysicalDeviceMemoryProperties kDiscrete = layout({DL, HV | HC, HV | HC | CACHED, DL | HV | HC});

TEST(ChooseMemoryType, DiscreteGpu) {
    // Device: DEVICE_LOCAL and nothing host-side (score 0).
    EXPECT_EQ(chooseMemoryType(kDiscrete, kAllTypes, MemoryClass::Device), std::optional(0u));
    // Shared: host-visible; device-local|coherent (score 2) beats host cached|coherent
    // without device-local (score 8) and write-combined system memory (score 10).
    EXPECT_EQ(chooseMemoryType(kDiscrete, kAllTypes, MemoryClass::Shared), std::optional(3u));
}

TEST(ChooseMemoryType, TypeBitsMaskTheCandidates) {
    // Without the BAR window, Shared falls back to cached system memory.
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0b0111, MemoryClass::Shared), std::optional(2u));
    // Without the cached type, to write-combined system memory.
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0b0011, MemoryClass::Shared), std::optional(1u));
    // Device without type 0: the BAR window (device-local, score 5) beats system memory.
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0b1110, MemoryClass::Device), std::optional(3u));
    // Device with host types only: the one with fewer host properties (HV|HC 13 < 15).
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0b0110, MemoryClass::Device), std::optional(1u));
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0b0100, MemoryClass::Device), std::optional(2u));
    // No bits: nothing.
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0, MemoryClass::Device), std::nullopt);
    EXPECT_EQ(chooseMemoryType(kDiscrete, 0, MemoryClass::Shared), std::nullopt);
}

TEST(ChooseMemoryType, BitsBeyondTheTypeCountAreIgnored) {
    VkPhysicalDeviceMemoryProperties p = layout({HV | HC});
    // Garbage past memoryTypeCount that would win if it were read.
    p.memoryTypes[1] = {.propertyFlags = DL, .heapIndex = 0};
    p.memoryTypes[2] = {.propertyFlags = DL | HV | HC | CACHED, .heapIndex = 0};
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Device), std::optional(0u));
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Shared), std::optional(0u));
    EXPECT_EQ(chooseMemoryType(p, 0b110, MemoryClass::Device), std::nullopt);
}

TEST(ChooseMemoryType, HighestTypeIndex) {
    VkPhysicalDeviceMemoryProperties p{};
    p.memoryTypeCount = VK_MAX_MEMORY_TYPES;  // 32
    for (uint32_t i = 0; i < 31; ++i) p.memoryTypes[i] = {.propertyFlags = HV | HC, .heapIndex = 1};
    p.memoryTypes[31] = {.propertyFlags = DL, .heapIndex = 0};
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Device), std::optional(31u));
    EXPECT_EQ(chooseMemoryType(p, 1u << 31, MemoryClass::Device), std::optional(31u));
    EXPECT_EQ(chooseMemoryType(p, 1u << 31, MemoryClass::Shared), std::nullopt);
}

TEST(ChooseMemoryType, ApuWithDeviceCoherentAmdTypesSkipsThem) {
    // RADV-like APU layout with the AMD device-coherent types placed first, where they
    // would win on score if blade's allowed-flags filter were missing.
    const VkPhysicalDeviceMemoryProperties p = layout({
        DL | AMD_COHERENT | AMD_UNCACHED,                // 0: would score 0 for Device
        DL | HV | HC | CACHED | AMD_COHERENT,            // 1: would score 0 for Shared
        HV | HC | CACHED | AMD_COHERENT | AMD_UNCACHED,  // 2
        DL,                                              // 3
        DL | HV | HC,                                    // 4
        HV | HC,                                         // 5
        HV | HC | CACHED,                                // 6
    });
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Device), std::optional(3u));
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Shared), std::optional(4u));
    // Only AMD types allowed by the buffer: no type under blade's rules.
    EXPECT_EQ(chooseMemoryType(p, 0b0111, MemoryClass::Device), std::nullopt);
    EXPECT_EQ(chooseMemoryType(p, 0b0111, MemoryClass::Shared), std::nullopt);
}

TEST(ChooseMemoryType, RadvApuLayout) {
    // RADV on an APU (Radeon 890M-like): VRAM carve-out, its CPU-visible window, GTT
    // write-combined and cached, then the AMD device-coherent duplicates.
    const VkPhysicalDeviceMemoryProperties p = layout({
        DL,
        DL | HV | HC,
        HV | HC,
        HV | HC | CACHED,
        DL | AMD_COHERENT | AMD_UNCACHED,
        DL | HV | HC | AMD_COHERENT | AMD_UNCACHED,
        HV | HC | AMD_COHERENT | AMD_UNCACHED,
        HV | HC | CACHED | AMD_COHERENT | AMD_UNCACHED,
    });
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Device), std::optional(0u));
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Shared), std::optional(1u));
    // A buffer that may live only in the AMD types or in GTT: GTT.
    EXPECT_EQ(chooseMemoryType(p, 0b11111100, MemoryClass::Shared), std::optional(3u));
    EXPECT_EQ(chooseMemoryType(p, 0b11111100, MemoryClass::Device), std::optional(2u));
}

TEST(ChooseMemoryType, HostVisibleWithoutCoherentIsSkipped) {
    // Type 0 is device-local, host-visible and cached but not coherent: for Shared it
    // would score 1 (better than type 1's 2), for Device 4+2 = 6 (better than type 2's 13).
    const VkPhysicalDeviceMemoryProperties p = layout({DL | HV | CACHED, DL | HV | HC, HV | HC});
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Shared), std::optional(1u));
    EXPECT_EQ(chooseMemoryType(p, 0b101, MemoryClass::Device), std::optional(2u));
    EXPECT_EQ(chooseMemoryType(p, 0b001, MemoryClass::Shared), std::nullopt);
    EXPECT_EQ(chooseMemoryType(p, 0b001, MemoryClass::Device), std::nullopt);
    // Device-local host-visible without coherent or cached is skipped too (it would score
    // 2 + 1 = 3 for Shared, better than type 1's 10).
    const VkPhysicalDeviceMemoryProperties q = layout({DL | HV, HV | HC});
    EXPECT_EQ(chooseMemoryType(q, kAllTypes, MemoryClass::Shared), std::optional(1u));
}

TEST(ChooseMemoryType, LazilyAllocatedIsSkipped) {
    const VkPhysicalDeviceMemoryProperties p = layout({DL | LAZY, DL | HV | HC});
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Device), std::optional(1u));
    EXPECT_EQ(chooseMemoryType(p, 0b01, MemoryClass::Device), std::nullopt);
}

TEST(ChooseMemoryType, ProtectedIsSkipped) {
    const VkPhysicalDeviceMemoryProperties p = layout({DL | PROTECTED, DL | HV | HC});
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Device), std::optional(1u));
    EXPECT_EQ(chooseMemoryType(p, 0b01, MemoryClass::Device), std::nullopt);
}

TEST(ChooseMemoryType, SharedNeedsHostVisible) {
    const VkPhysicalDeviceMemoryProperties p = layout({DL, DL});
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Shared), std::nullopt);
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Device), std::optional(0u));
    // A device with only host memory (a CPU driver such as lavapipe) still serves Device.
    const VkPhysicalDeviceMemoryProperties cpu = layout({HV | HC | CACHED});
    EXPECT_EQ(chooseMemoryType(cpu, kAllTypes, MemoryClass::Device), std::optional(0u));
    EXPECT_EQ(chooseMemoryType(cpu, kAllTypes, MemoryClass::Shared), std::optional(0u));
}

TEST(ChooseMemoryType, EmptyPropertiesGiveNothing) {
    const VkPhysicalDeviceMemoryProperties p{};
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Device), std::nullopt);
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Shared), std::nullopt);
}

TEST(ChooseMemoryType, ScoresPreferTheRightProperties) {
    // Device: fewer host properties is better among device-local types.
    EXPECT_EQ(chooseMemoryType(layout({DL | HV | HC | CACHED, DL | HV | HC}), kAllTypes, MemoryClass::Device),
              std::optional(1u));
    // Device: device-local beats anything that is not.
    EXPECT_EQ(chooseMemoryType(layout({HV | HC, DL | HV | HC | CACHED}), kAllTypes, MemoryClass::Device),
              std::optional(1u));
    // Shared: cached beats uncached, device-local beats both.
    EXPECT_EQ(chooseMemoryType(layout({HV | HC, HV | HC | CACHED}), kAllTypes, MemoryClass::Shared), std::optional(1u));
    EXPECT_EQ(chooseMemoryType(layout({DL | HV | HC, DL | HV | HC | CACHED}), kAllTypes, MemoryClass::Shared),
              std::optional(1u));
    EXPECT_EQ(chooseMemoryType(layout({HV | HC | CACHED, DL | HV | HC}), kAllTypes, MemoryClass::Shared),
              std::optional(1u));
}

TEST(ChooseMemoryType, TiesGoToTheLowestIndex) {
    const VkPhysicalDeviceMemoryProperties p = layout({HV | HC, DL, DL, DL | HV | HC, DL | HV | HC});
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Device), std::optional(1u));
    EXPECT_EQ(chooseMemoryType(p, 0b11100, MemoryClass::Device), std::optional(2u));
    EXPECT_EQ(chooseMemoryType(p, kAllTypes, MemoryClass::Shared), std::optional(3u));
    EXPECT_EQ(chooseMemoryType(p, 0b10000, MemoryClass::Shared), std::optional(4u));
}

// ---- memoryFlagsText and names ---------------------------------------------------------

TEST(MemoryFlagsText, Names) {
    EXPECT_EQ(memoryFlagsText(0), "none");
    EXPECT_EQ(memoryFlagsText(DL), "DEVICE_LOCAL");
    EXPECT_EQ(memoryFlagsText(HV | HC | CACHED), "HOST_VISIBLE|HOST_COHERENT|HOST_CACHED");
    EXPECT_EQ(memoryFlagsText(DL | HV | HC), "DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT");
    EXPECT_EQ(memoryFlagsText(LAZY | DL), "DEVICE_LOCAL|LAZILY_ALLOCATED");
    EXPECT_EQ(memoryFlagsText(PROTECTED), "PROTECTED");
    EXPECT_EQ(memoryFlagsText(DL | AMD_COHERENT | AMD_UNCACHED),
              "DEVICE_LOCAL|DEVICE_COHERENT_AMD|DEVICE_UNCACHED_AMD");
    EXPECT_EQ(memoryFlagsText(DL | HV | HC | CACHED | LAZY | PROTECTED | AMD_COHERENT | AMD_UNCACHED),
              "DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT|HOST_CACHED|LAZILY_ALLOCATED|PROTECTED|"
              "DEVICE_COHERENT_AMD|DEVICE_UNCACHED_AMD");
}

TEST(MemoryClassName, Names) {
    EXPECT_EQ(name(MemoryClass::Device), "Device");
    EXPECT_EQ(name(MemoryClass::Shared), "Shared");
}

// --memory placements (choosePlacementType), on the same synthetic devices.
TEST(ChoosePlacementType, DiscreteGpuTakesVramWriteCombinedAndCachedSystemMemory) {
    EXPECT_EQ(choosePlacementType(kDiscrete, kAllTypes, BufferMemory::DeviceLocal), std::optional(0u));
    // Write-combined system memory (HV|HC, type 1) before the BAR window (type 3).
    EXPECT_EQ(choosePlacementType(kDiscrete, kAllTypes, BufferMemory::HostVisible), std::optional(1u));
    EXPECT_EQ(choosePlacementType(kDiscrete, kAllTypes, BufferMemory::HostCached), std::optional(2u));
    // Blade is answered by chooseMemoryType, not here.
    EXPECT_EQ(choosePlacementType(kDiscrete, kAllTypes, BufferMemory::Blade), std::nullopt);
}

TEST(ChoosePlacementType, FallsBackWithinTheRequirementsOnly) {
    // Without system memory, host-visible lands in the BAR window; without VRAM-only,
    // device-local lands there too; host-cached has nothing left.
    EXPECT_EQ(choosePlacementType(kDiscrete, 0b1001, BufferMemory::HostVisible), std::optional(3u));
    EXPECT_EQ(choosePlacementType(kDiscrete, 0b1110, BufferMemory::DeviceLocal), std::optional(3u));
    EXPECT_EQ(choosePlacementType(kDiscrete, 0b1001, BufferMemory::HostCached), std::nullopt);
    // Host-visible memory must be coherent: HV alone never qualifies.
    const auto nonCoherent = layout({DL, HV, HV | CACHED});
    EXPECT_EQ(choosePlacementType(nonCoherent, kAllTypes, BufferMemory::HostVisible), std::nullopt);
    EXPECT_EQ(choosePlacementType(nonCoherent, kAllTypes, BufferMemory::HostCached), std::nullopt);
}

TEST(ChoosePlacementType, ProtectedAndLazyTypesAreNeverChosen) {
    const auto odd = layout({DL | PROTECTED, DL | LAZY, DL | AMD_COHERENT | AMD_UNCACHED, DL});
    EXPECT_EQ(choosePlacementType(odd, kAllTypes, BufferMemory::DeviceLocal), std::optional(3u));
}

TEST(ChoosePlacementType, UnifiedMemoryDeviceOffersOneTypeForEverything) {
    // lavapipe: a single DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT|HOST_CACHED type.
    const auto unified = layout({DL | HV | HC | CACHED});
    for (auto m : {BufferMemory::DeviceLocal, BufferMemory::HostVisible, BufferMemory::HostCached}) {
        EXPECT_EQ(choosePlacementType(unified, kAllTypes, m), std::optional(0u));
    }
}

}  // namespace
}  // namespace repro::vk
