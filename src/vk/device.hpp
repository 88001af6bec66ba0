// Instance, physical-device choice and logical device, as blade-graphics sets them up
// (blade-command-stream.md §1, blade `vulkan/init.rs` at 72c30c1).
#pragma once

#include <volk.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vk/handles.hpp"

namespace repro::vk {

// Messages from the validation layer's debug-utils messenger (warnings and errors).
struct ValidationLog {
    uint64_t errors = 0;
    uint64_t warnings = 0;
    std::vector<std::string> messages;  // "<severity> <message-id>: <text>"
    uint64_t count() const { return errors + warnings; }
};

// Loads the Vulkan loader through volk and creates the instance: apiVersion
// min(loader, 1.3.281) as blade asks (ash's header version), no layers unless
// `validation`, VK_EXT_debug_utils and VK_KHR_get_physical_device_properties2 and
// VK_KHR_portability_enumeration where the loader lists them.
// With `validation`: VK_LAYER_KHRONOS_validation with synchronization validation
// (VkValidationFeaturesEXT) and a messenger that counts and prints to stderr.
// Throws CannotTest when there is no loader or the layer is missing, VulkanError when
// vkCreateInstance fails.
class Instance {
  public:
    explicit Instance(bool validation);
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    VkInstance get() const { return instance_; }
    uint32_t apiVersion() const { return apiVersion_; }
    bool hasDebugUtils() const { return debugUtils_; }
    // VkLayerProperties::specVersion of VK_LAYER_KHRONOS_validation (the Vulkan header it
    // was generated from) when `validation`; 0 without the layer.
    uint32_t validationLayerSpecVersion() const { return validationLayerSpec_; }
    const ValidationLog& validationLog() const { return *log_; }
    // After a timed-out wait the device cannot be destroyed, so neither can the instance.
    void abandon() { abandoned_ = true; }

  private:
    bool abandoned_ = false;
    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    std::unique_ptr<ValidationLog> log_ = std::make_unique<ValidationLog>();
    uint32_t apiVersion_ = 0;
    uint32_t validationLayerSpec_ = 0;
    bool debugUtils_ = false;
};

// VK_KHR_cooperative_matrix enum values that the tile choice compares, as plain numbers so
// that this header works with Vulkan headers older than 1.3.255, the first to define the
// extension (KhronosGroup/Vulkan-Headers v1.3.255 include/vulkan/vulkan_core.h;
// device.cpp checks them against the real or locally defined enums).
inline constexpr uint32_t kComponentTypeFloat16 = 0;  // VK_COMPONENT_TYPE_FLOAT16_KHR
inline constexpr uint32_t kComponentTypeFloat32 = 1;  // VK_COMPONENT_TYPE_FLOAT32_KHR
inline constexpr uint32_t kScopeSubgroup = 3;         // VK_SCOPE_SUBGROUP_KHR

// One VkCooperativeMatrixPropertiesKHR from vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR,
// field for field (types are VkComponentTypeKHR values, scope a VkScopeKHR value).
struct CoopMatrixProps {
    uint32_t mSize = 0;
    uint32_t nSize = 0;
    uint32_t kSize = 0;
    uint32_t aType = 0;
    uint32_t bType = 0;
    uint32_t cType = 0;
    uint32_t resultType = 0;
    bool saturatingAccumulation = false;
    uint32_t scope = 0;
};

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
CooperativeMatrixTiles bladeCooperativeTiles(std::span<const CoopMatrixProps> props, bool f16Inputs);

// Optional features blade turns on where the device has them (init.rs:1005-1125).
struct BladeFeatures {
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
    bool deviceFaultSupported = false;  // VK_EXT_device_fault and its deviceFault feature
    VkPhysicalDeviceMemoryProperties memory{};
    std::vector<VkQueueFamilyProperties> queueFamilies;
    std::vector<std::string> extensions;
    BladeFeatures supported;
    // vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR's list, queried only where blade
    // queries it: extension listed, cooperativeMatrix and vulkanMemoryModel supported.
    std::vector<CoopMatrixProps> cooperativeMatrixProperties;
    // Why supported.cooperativeMatrixTiles is zero (one line); empty when blade has a tile.
    std::string cooperativeMatrixNote;
    // blade hard-codes family 0 (init.rs:297); if it cannot do compute, the first that can.
    std::optional<uint32_t> queueFamily;
    std::string queueNote;
    std::string unusable;  // empty when usable, else why not (one line)

    bool hasExtension(const char* name) const;
    uint32_t apiVersion() const { return properties.apiVersion; }
};

// Every device the loader returns, in its order, with blade's acceptance rule applied:
// API >= 1.1, VK_KHR_timeline_semaphore, VK_KHR_descriptor_update_template and
// VK_KHR_dynamic_rendering (or the core version that promoted each), the
// timelineSemaphore and dynamicRendering features, and a queue family with compute.
// Also blade's cooperative-matrix decision (supported.cooperativeMatrixTiles, init.rs:474-538),
// with vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR loaded through the instance.

std::vector<DeviceInfo> enumerateDevices(const Instance& instance);

// `selector` empty: the first usable device (blade's rule). A number: that index. Else
// the first device whose name contains it, case-insensitively. Throws UsageError when
// nothing matches, CannotTest when there is no usable device or the chosen one is not.
const DeviceInfo& chooseDevice(const std::vector<DeviceInfo>& devices,
                               const std::optional<std::string>& selector);

// What the logical device enables beyond the default.
struct DeviceOptions {
    bool deviceFault = false;       // VK_EXT_device_fault where supported (--breadcrumbs); not blade's
    bool synchronization2 = false;  // the synchronization2 feature (--barrier sync2|full); not
                                    // blade's. CannotTest where unsupported.
    bool bladeExact = false;        // --profile blade-exact: queue family 0 whatever its flags,
                                    // blade's descriptor-indexing features, and, where blade
                                    // finds a cooperative-matrix tile, VK_KHR_cooperative_matrix
                                    // (+ VK_KHR_vulkan_memory_model below 1.2) with the
                                    // cooperativeMatrix and vulkanMemoryModel features, and
                                    // with an f16 tile the two 16-bit storage features.
                                    // CannotTest where the f16 tile would make blade ask for
                                    // uniformAndStorageBuffer16BitAccess the device lacks.
                                    // Under a validation layer older than 1.3.255 the
                                    // extension and cooperativeMatrix are withheld (the layer
                                    // would fail vkCreateDevice); omittedFeatures() says so.
};

// The logical device: one queue (priority 1.0) of `info.queueFamily`, the three
// extensions blade requires plus those of its optional ones the device lists, and the
// features the repro needs plus those blade turns on where supported.
class Device {
  public:
    Device(const Instance& instance, const DeviceInfo& info, const DeviceOptions& options = {});
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    VkDevice get() const { return life_.device; }
    const DeviceLife* life() const { return &life_; }
    VkQueue queue() const { return queue_; }
    uint32_t queueFamily() const { return queueFamily_; }
    const DeviceInfo& info() const { return info_; }
    const std::vector<std::string>& enabledExtensions() const { return extensions_; }
    bool extensionEnabled(std::string_view name) const;
    // Whether the feature named as in enabledFeatures() (e.g. "bufferDeviceAddress") is on.
    bool featureEnabled(std::string_view name) const;
    const std::vector<std::string>& enabledFeatures() const { return features_; }
    const std::vector<std::string>& omittedFeatures() const { return omitted_; }
    bool debugUtils() const { return debugUtils_; }

    // After VK_ERROR_DEVICE_LOST: wait for idle (finite after loss, per spec) so every
    // object may be destroyed. After a timeout: leak everything instead.
    void markLost() { lost_ = true; }
    void abandon() { life_.abandoned = true; }
    bool abandoned() const { return life_.abandoned; }

  private:
    DeviceInfo info_;
    DeviceLife life_;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t queueFamily_ = 0;
    std::vector<std::string> extensions_;
    std::vector<std::string> features_;
    std::vector<std::string> omitted_;
    bool debugUtils_ = false;
    bool lost_ = false;
};

}  // namespace repro::vk
