// Physical devices: what each one supports of blade's set, blade's acceptance rule and
// cooperative-matrix decision, and the choice of one (blade `vulkan/init.rs` at 72c30c1,
// lines 297-538 and 903-918; docs/blade-stream.md "Physical device").
#pragma once

#include <volk.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vk/khr_cooperative_matrix.hpp"

namespace repro::vk {

class Instance;

// blade's crate::CooperativeMatrix (lib.rs:223-240 at 72c30c1): each field a square tile
// size, 8 or 16, or 0 when there is no such configuration.
struct CooperativeMatrixTiles {
    uint32_t f32Tile = 0;  // A, B, C and Result all FLOAT32
    uint32_t f16Tile = 0;  // A and B FLOAT16, C and Result FLOAT32
    // blade's is_supported(): VK_KHR_cooperative_matrix is enabled exactly when this holds.
    bool supported() const { return f32Tile > 0 || f16Tile > 0; }
    bool operator==(const CooperativeMatrixTiles&) const = default;
};

// blade's tile choice (init.rs:498-521): for each kind, the first size of 8 then 16 with
// an entry whose M = N = K = size, whose A/B/C/Result types match, and whose scope is
// SUBGROUP; saturatingAccumulation is not looked at. So 8 wins when both are listed. The
// f16 tile is looked for only when `f16Inputs` (blade: shaderFloat16 and
// storageBuffer16BitAccess both supported, init.rs:515-516), else it is 0.
// Pure; the caller applies blade's gates first (extension, cooperativeMatrix and
// vulkanMemoryModel features, init.rs:474-488).
CooperativeMatrixTiles bladeCooperativeTiles(std::span<const VkCooperativeMatrixPropertiesKHR> props, bool f16Inputs);

// What the device supports of the optional features blade turns on (init.rs:1005-1125),
// plus the two repro adds for its own options.
struct SupportedFeatures {
    bool timelineSemaphore = false;
    bool dynamicRendering = false;
    bool inlineUniformBlock = false;
    bool bufferDeviceAddress = false;
    bool shaderFloat16 = false;
    bool pipelineExecutableInfo = false;
    bool dualSrcBlend = false;
    // blade's binding_array: shaderStorageBufferArrayNonUniformIndexing,
    // shaderSampledImageArrayNonUniformIndexing and descriptorBindingPartiallyBound.
    bool bindingArray = false;
    bool synchronization2 = false;  // not blade's; needed by --barrier sync2/full
    bool deviceFault = false;       // not blade's; VK_EXT_device_fault, queried after a lost device
    // VkPhysicalDeviceVulkanMemoryModelFeatures::vulkanMemoryModel (Vulkan 1.2 or
    // VK_KHR_vulkan_memory_model listed; else false).
    bool vulkanMemoryModel = false;
    // VkPhysicalDevice16BitStorageFeatures (core in 1.1).
    bool storageBuffer16BitAccess = false;
    bool uniformAndStorageBuffer16BitAccess = false;
    // VkPhysicalDeviceCooperativeMatrixFeaturesKHR::cooperativeMatrix, where the device
    // lists VK_KHR_cooperative_matrix; else false.
    bool cooperativeMatrix = false;
    // blade's capabilities.cooperative_matrix (init.rs:474-538): zero unless the extension,
    // cooperativeMatrix and vulkanMemoryModel are all there, then bladeCooperativeTiles
    // over the device's property list.
    CooperativeMatrixTiles cooperativeMatrixTiles;
};

// One physical device and whether it can run the repro.
struct DeviceInfo {
    uint32_t index = 0;  // position in vkEnumeratePhysicalDevices
    VkPhysicalDevice handle = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties properties{};
    bool hasDriverProperties = false;  // VkPhysicalDeviceDriverProperties filled
    VkPhysicalDeviceDriverProperties driver{};
    VkPhysicalDeviceIDProperties ids{};
    std::optional<std::string> pciBus;  // "0000:03:00.0", with VK_EXT_pci_bus_info
    VkPhysicalDeviceMemoryProperties memory{};
    std::vector<VkQueueFamilyProperties> queueFamilies;
    std::vector<std::string> extensions;
    SupportedFeatures supported;
    // Why supported.cooperativeMatrixTiles is zero (one line); empty when blade has a tile.
    std::string cooperativeMatrixNote;
    // blade hard-codes family 0 (init.rs:297); if it cannot do compute, the first that can.
    std::optional<uint32_t> queueFamily;
    std::string queueNote;
    std::string unusable;  // empty when usable, else why not (one line)

    bool hasExtension(const char* name) const;
    uint32_t apiVersion() const { return properties.apiVersion; }
    bool isCpu() const { return properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU; }
};

// Every device the loader returns, in its order, with blade's acceptance rule applied:
// API >= 1.1, VK_KHR_timeline_semaphore, VK_KHR_descriptor_update_template and
// VK_KHR_dynamic_rendering (or the core version that promoted each), the
// timelineSemaphore and dynamicRendering features, and a queue family with compute.
// Also blade's cooperative-matrix decision (supported.cooperativeMatrixTiles,
// init.rs:474-538), with vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR loaded through
// the instance. Throws VulkanError when enumeration fails.
std::vector<DeviceInfo> enumerateDevices(const Instance& instance);

// `selector` empty: the first usable device (blade's rule). A number: that index. Else
// the first device whose name contains it, case-insensitively. Throws CannotTest when
// nothing matches (under `git bisect run` a revision whose driver offers no such device
// cannot be tested), when there is no usable device, or when the chosen one is not.
const DeviceInfo& chooseDevice(const std::vector<DeviceInfo>& devices, const std::optional<std::string>& selector);

}  // namespace repro::vk
