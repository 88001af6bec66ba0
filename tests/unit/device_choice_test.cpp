// Unit tests for chooseDevice (src/vk/device.hpp) on synthetic device lists: the
// rejections no real device here can produce (no device, none usable, an unusable one
// chosen), with the exact messages docs/bad-input.md lists.
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
    EXPECT_EQ(thrown<UsageError>([&] { chooseDevice(devices, std::string("nvidia")); }),
              "--device: no device matches 'nvidia' (devices: 0: Good GPU, 1: Old GPU)");
    EXPECT_EQ(thrown<UsageError>([&] { chooseDevice(devices, std::string("99999999999")); }),
              "--device: no device matches '99999999999' (devices: 0: Good GPU, 1: Old GPU)");
}

}  // namespace
}  // namespace repro::vk
