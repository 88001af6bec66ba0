// Unit tests for chooseDevice (src/vk/physical_device.hpp) on synthetic device lists: the
// rejections no real device here can produce (no device, none usable, an unusable one
// chosen), with the exact messages docs/bad-input.md lists. And bladeCooperativeTiles, blade's
// cooperative-matrix tile choice, on synthetic property lists (lavapipe has no
// VK_KHR_cooperative_matrix).
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"

namespace repro::vk {
namespace {

DeviceInfo device(uint32_t index, const char* name, std::string unusable = {}) {
    DeviceInfo d;
    d.index = index;
    std::strncpy(d.properties.deviceName, name, sizeof d.properties.deviceName - 1);
    d.unusable = std::move(unusable);
    return d;
}

// The message of what `choose` throws as E; empty if it throws nothing or something else.
template <typename E, typename F>
std::string thrown(F choose) {
    try {
        choose();
    } catch (const E& e) {
        return e.what();
    } catch (...) {
    }
    return {};
}

TEST(ChooseDevice, NoDeviceCannotTest) {
    const std::vector<DeviceInfo> none;
    EXPECT_EQ(thrown<CannotTest>([&] { chooseDevice(none, std::nullopt); }),
              "no Vulkan device: the loader found no driver (check VK_DRIVER_FILES / VK_ICD_FILENAMES "
              "and the installed ICDs)");
}

TEST(ChooseDevice, NoUsableDeviceCannotTest) {
    const std::vector<DeviceInfo> devices{device(0, "Old GPU", "Vulkan 1.0 device; blade needs 1.1"),
                                          device(1, "Other GPU", "no timeline semaphores (VK_KHR_timeline_semaphore)")};
    EXPECT_EQ(thrown<CannotTest>([&] { chooseDevice(devices, std::nullopt); }),
              "no usable Vulkan device: Old GPU (device 0): Vulkan 1.0 device; blade needs 1.1");
}

TEST(ChooseDevice, ChosenUnusableDeviceCannotTest) {
    const std::vector<DeviceInfo> devices{device(0, "Good GPU"),
                                          device(1, "Old GPU", "Vulkan 1.0 device; blade needs 1.1")};
    const std::string expected = "device 1 (Old GPU) cannot run the repro: Vulkan 1.0 device; blade needs 1.1";
    EXPECT_EQ(thrown<CannotTest>([&] { chooseDevice(devices, std::string("1")); }), expected);
    EXPECT_EQ(thrown<CannotTest>([&] { chooseDevice(devices, std::string("old")); }), expected);
    EXPECT_EQ(&chooseDevice(devices, std::nullopt), &devices[0]);
}

TEST(ChooseDevice, UnmatchedSelectorIsAUsageErrorListingTheDevices) {
    const std::vector<DeviceInfo> devices{device(0, "Good GPU"), device(1, "Old GPU", "too old")};
    EXPECT_EQ(thrown<CannotTest>([&] { chooseDevice(devices, std::string("nvidia")); }),
              "--device: no device matches 'nvidia' (devices: 0: Good GPU, 1: Old GPU)");
    EXPECT_EQ(thrown<CannotTest>([&] { chooseDevice(devices, std::string("99999999999")); }),
              "--device: no device matches '99999999999' (devices: 0: Good GPU, 1: Old GPU)");
}

using CoopMatrixProps = VkCooperativeMatrixPropertiesKHR;
constexpr VkComponentTypeKHR F16 = VK_COMPONENT_TYPE_FLOAT16_KHR, F32 = VK_COMPONENT_TYPE_FLOAT32_KHR;
constexpr VkComponentTypeKHR S8 = VK_COMPONENT_TYPE_SINT8_KHR, S32 = VK_COMPONENT_TYPE_SINT32_KHR;
constexpr VkComponentTypeKHR U8 = VK_COMPONENT_TYPE_UINT8_KHR, U32 = VK_COMPONENT_TYPE_UINT32_KHR;
constexpr VkScopeKHR kScopeSubgroup = VK_SCOPE_SUBGROUP_KHR, kWorkgroup = VK_SCOPE_WORKGROUP_KHR;

CoopMatrixProps props(uint32_t m, uint32_t n, uint32_t k, VkComponentTypeKHR a, VkComponentTypeKHR b,
                      VkComponentTypeKHR c, VkComponentTypeKHR result, VkScopeKHR scope = kScopeSubgroup,
                      bool saturating = false) {
    return {.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR,
            .MSize = m,
            .NSize = n,
            .KSize = k,
            .AType = a,
            .BType = b,
            .CType = c,
            .ResultType = result,
            .saturatingAccumulation = saturating ? VK_TRUE : VK_FALSE,
            .scope = scope};
}

// RADV on RDNA3 (gfx11): 16x16x16 only, f16 and integer inputs, subgroup scope.
const std::vector<CoopMatrixProps> kRdna3{
    props(16, 16, 16, F16, F16, F16, F16), props(16, 16, 16, F16, F16, F32, F32),
    props(16, 16, 16, U8, U8, U32, U32),   props(16, 16, 16, U8, U8, S32, S32),
    props(16, 16, 16, S8, S8, S32, S32),   props(16, 16, 16, S8, S8, S32, S32, kScopeSubgroup, true),
};

// An NVIDIA-like list: non-square f16 shapes first, f16 16x16x16 with f16 and f32
// accumulators, int8 32-deep, no all-f32 entry.
const std::vector<CoopMatrixProps> kNvidia{
    props(16, 8, 16, F16, F16, F16, F16), props(16, 8, 8, F16, F16, F16, F16),   props(16, 8, 16, F16, F16, F32, F32),
    props(16, 8, 8, F16, F16, F32, F32),  props(16, 16, 16, F16, F16, F16, F16), props(16, 16, 16, F16, F16, F32, F32),
    props(16, 8, 32, U8, U8, U32, U32),   props(16, 16, 32, S8, S8, S32, S32),
};

TEST(ChooseDeviceCoopMatrix, Rdna3HasAnF16TileOf16AndNoF32Tile) {
    const auto tiles = bladeCooperativeTiles(kRdna3, true);
    EXPECT_EQ(tiles.f16Tile, 16u);
    EXPECT_EQ(tiles.f32Tile, 0u);
    EXPECT_TRUE(tiles.supported());
}

TEST(ChooseDeviceCoopMatrix, NvidiaLikeListHasAnF16TileOf16) {
    const auto tiles = bladeCooperativeTiles(kNvidia, true);
    EXPECT_EQ(tiles.f16Tile, 16u);
    EXPECT_EQ(tiles.f32Tile, 0u);
}

TEST(ChooseDeviceCoopMatrix, WithoutF16InputsTheF16TileIsNotLookedFor) {
    // blade: shaderFloat16 and storageBuffer16BitAccess gate the f16 tile (init.rs:515-516).
    const auto tiles = bladeCooperativeTiles(kRdna3, false);
    EXPECT_EQ(tiles, CooperativeMatrixTiles{});
    EXPECT_FALSE(tiles.supported());
    std::vector<CoopMatrixProps> withF32 = kRdna3;
    withF32.push_back(props(16, 16, 16, F32, F32, F32, F32));
    EXPECT_EQ(bladeCooperativeTiles(withF32, false), (CooperativeMatrixTiles{.f32Tile = 16, .f16Tile = 0}));
}

TEST(ChooseDeviceCoopMatrix, EightWinsOverSixteenWhateverTheListOrder) {
    const std::vector<CoopMatrixProps> list{props(16, 16, 16, F32, F32, F32, F32), props(8, 8, 8, F32, F32, F32, F32),
                                            props(16, 16, 16, F16, F16, F32, F32), props(8, 8, 8, F16, F16, F32, F32)};
    EXPECT_EQ(bladeCooperativeTiles(list, true), (CooperativeMatrixTiles{.f32Tile = 8, .f16Tile = 8}));
}

TEST(ChooseDeviceCoopMatrix, OnlySquareSubgroupEightOrSixteenCount) {
    const std::vector<CoopMatrixProps> list{
        props(32, 32, 32, F32, F32, F32, F32),           // size not 8 or 16
        props(16, 16, 8, F32, F32, F32, F32),            // K differs
        props(8, 8, 8, F32, F32, F32, F32, kWorkgroup),  // not subgroup scope
        props(16, 16, 16, F16, F16, F16, F32),           // C is f16
        props(16, 16, 16, F16, F32, F32, F32),           // B is f32
    };
    EXPECT_EQ(bladeCooperativeTiles(list, true), CooperativeMatrixTiles{});
    EXPECT_EQ(bladeCooperativeTiles({}, true), CooperativeMatrixTiles{});
}

TEST(ChooseDeviceCoopMatrix, SaturatingAccumulationIsNotLookedAt) {
    const std::vector<CoopMatrixProps> list{props(16, 16, 16, F32, F32, F32, F32, kScopeSubgroup, true)};
    EXPECT_EQ(bladeCooperativeTiles(list, true).f32Tile, 16u);
}

}  // namespace
}  // namespace repro::vk
