// Physical-device queries, blade's acceptance rule and cooperative-matrix decision, and
// the choice of one device (blade `vulkan/init.rs` at 72c30c1).
#include "vk/physical_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/errors.hpp"
#include "core/text.hpp"
#include "vk/check.hpp"
#include "vk/instance.hpp"
#include "vk/feature_structs.hpp"

namespace repro::vk {

namespace {

// vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR's list, as blade reads it through ash
// 0.38 (read_into_defaulted_vector: count, then fill, again while VK_INCOMPLETE) and
// `.unwrap_or_default()` (init.rs:492-497): any failure gives an empty list. volk has no
// entry for it with these headers, so it is loaded through vkGetInstanceProcAddr, as ash's
// khr::cooperative_matrix::Instance does (init.rs:760).
std::vector<VkCooperativeMatrixPropertiesKHR> cooperativeMatrixProperties(VkInstance instance,
                                                                          VkPhysicalDevice device) {
    const auto get = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
        vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
    if (!get) return {};
    std::vector<VkCooperativeMatrixPropertiesKHR> raw;
    VkResult r = VK_SUCCESS;
    do {
        uint32_t count = 0;
        if (get(device, &count, nullptr) != VK_SUCCESS) return {};
        raw.assign(count,
                   VkCooperativeMatrixPropertiesKHR{.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR});
        r = get(device, &count, raw.data());
        raw.resize(count);
    } while (r == VK_INCOMPLETE);
    if (r != VK_SUCCESS) return {};
    return raw;
}

std::vector<std::string> deviceExtensions(VkPhysicalDevice device) {
    uint32_t count = 0;
    check(vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr),
          "vkEnumerateDeviceExtensionProperties");
    std::vector<VkExtensionProperties> exts(count);
    check(vkEnumerateDeviceExtensionProperties(device, nullptr, &count, exts.data()),
          "vkEnumerateDeviceExtensionProperties");
    std::vector<std::string> names;
    for (const auto& e : exts) names.emplace_back(e.extensionName);
    return names;
}

// Driver, ID and PCI-bus properties through vkGetPhysicalDeviceProperties2 (1.1 devices).
void queryExtendedProperties(DeviceInfo& d) {
    const bool v12 = d.apiVersion() >= VK_API_VERSION_1_2;
    d.hasDriverProperties = v12 || d.hasExtension(VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
    d.driver = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    d.ids = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
             .pNext = d.hasDriverProperties ? &d.driver : nullptr};
    VkPhysicalDevicePCIBusInfoPropertiesEXT pci{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT,
                                                .pNext = &d.ids};
    const bool hasPci = d.hasExtension(VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
    VkPhysicalDeviceProperties2 props2{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                       .pNext = hasPci ? static_cast<void*>(&pci) : static_cast<void*>(&d.ids)};
    vkGetPhysicalDeviceProperties2(d.handle, &props2);
    d.ids.pNext = nullptr;
    d.driver.pNext = nullptr;
    if (hasPci) {
        d.pciBus = fmt::format("{:04x}:{:02x}:{:02x}.{:x}", pci.pciDomain, pci.pciBus, pci.pciDevice, pci.pciFunction);
    }
}

// The feature structs blade reads (feature_structs.hpp), and whether the device has the
// extension or core version of the three whose presence gates the answer.
struct FeatureQuery : FeatureStructs {
    bool timelineExt = false;
    bool renderingExt = false;
    bool coopMatrixExt = false;
};

// Chains q's structs, each only where d has its extension or core version (1.1 devices),
// and returns the chain's head (null when none is chained). q must outlive the chain.
void* linkFeatureChain(FeatureQuery& q, const DeviceInfo& d) {
    const bool v12 = d.apiVersion() >= VK_API_VERSION_1_2;
    const bool v13 = d.apiVersion() >= VK_API_VERSION_1_3;
    q.timelineExt = v12 || d.hasExtension(VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
    q.renderingExt = v13 || d.hasExtension(VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME);
    q.coopMatrixExt = d.hasExtension(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
    void* chain = nullptr;
    auto link = [&chain](auto& s, bool present) { prependIf(chain, s, present); };
    link(q.timeline, q.timelineExt);
    link(q.rendering, q.renderingExt);
    link(q.inlineBlock, v13 || d.hasExtension(VK_EXT_INLINE_UNIFORM_BLOCK_EXTENSION_NAME));
    link(q.bda, v12 || d.hasExtension(VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME));
    link(q.f16, v12 || d.hasExtension(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME));
    link(q.exec, d.hasExtension(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME));
    link(q.fault, d.hasExtension(VK_EXT_DEVICE_FAULT_EXTENSION_NAME));
    link(q.indexing, v12 || d.hasExtension(VK_EXT_DESCRIPTOR_INDEXING_EXTENSION_NAME));
    link(q.sync2, v13 || d.hasExtension(VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME));
    link(q.memoryModel, v12 || d.hasExtension(VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME));
    link(q.storage16, true);  // core since 1.1, which every queried device has
    // Safe under validation layers older than the extension: their
    // vkGetPhysicalDeviceFeatures2 checks only pFeatures->sType, not the chain
    // (Vulkan-ValidationLayers v1.3.239 layers/generated/parameter_validation.cpp:8708-8715).
    link(q.coopMatrix, q.coopMatrixExt);
    return chain;
}

// What the filled structs say, as blade reads them (`vendorID` from the device's properties).
SupportedFeatures readSupportedFeatures(const FeatureQuery& q, const VkPhysicalDeviceFeatures2& features,
                                        uint32_t vendorID) {
    return SupportedFeatures{
        .timelineSemaphore = q.timelineExt && q.timeline.timelineSemaphore,
        .dynamicRendering = q.renderingExt && q.rendering.dynamicRendering,
        .inlineUniformBlock =
            q.inlineBlock.inlineUniformBlock == VK_TRUE && vendorID != 0x5143,  // not on Qualcomm (blade)
        .bufferDeviceAddress = q.bda.bufferDeviceAddress == VK_TRUE,
        .shaderFloat16 = q.f16.shaderFloat16 == VK_TRUE,
        .pipelineExecutableInfo = q.exec.pipelineExecutableInfo == VK_TRUE,
        .dualSrcBlend = features.features.dualSrcBlend == VK_TRUE,
        .bindingArray = q.indexing.shaderStorageBufferArrayNonUniformIndexing == VK_TRUE &&
                        q.indexing.shaderSampledImageArrayNonUniformIndexing == VK_TRUE &&
                        q.indexing.descriptorBindingPartiallyBound == VK_TRUE,
        .synchronization2 = q.sync2.synchronization2 == VK_TRUE,
        .deviceFault = q.fault.deviceFault == VK_TRUE,
        .vulkanMemoryModel = q.memoryModel.vulkanMemoryModel == VK_TRUE,
        .storageBuffer16BitAccess = q.storage16.storageBuffer16BitAccess == VK_TRUE,
        .uniformAndStorageBuffer16BitAccess = q.storage16.uniformAndStorageBuffer16BitAccess == VK_TRUE,
        .cooperativeMatrix = q.coopMatrixExt && q.coopMatrix.cooperativeMatrix == VK_TRUE,
    };
}

// The feature structs blade reads, each chained only where the device has its extension
// or core version, and what they say (1.1 devices).
void querySupportedFeatures(DeviceInfo& d) {
    FeatureQuery q;
    VkPhysicalDeviceFeatures2 features{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                       .pNext = linkFeatureChain(q, d)};
    vkGetPhysicalDeviceFeatures2(d.handle, &features);
    d.supported = readSupportedFeatures(q, features, d.properties.vendorID);
}

// blade's capabilities.cooperative_matrix (init.rs:474-538): the gates in its order, then
// the property query and the tile choice.
void decideCooperativeMatrix(const Instance& instance, DeviceInfo& d) {
    const SupportedFeatures& s = d.supported;
    const std::pair<bool, const char*> gates[] = {
        {d.hasExtension(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME), "device lacks VK_KHR_cooperative_matrix"},
        {s.cooperativeMatrix, "VK_KHR_cooperative_matrix without its cooperativeMatrix feature"},
        {s.vulkanMemoryModel, "no vulkanMemoryModel feature, which blade requires with it"}};
    for (const auto& [passed, why] : gates) {
        if (passed) continue;
        d.cooperativeMatrixNote = why;
        return;
    }
    const bool f16Inputs = s.shaderFloat16 && s.storageBuffer16BitAccess;
    const auto props = cooperativeMatrixProperties(instance.get(), d.handle);
    d.supported.cooperativeMatrixTiles = bladeCooperativeTiles(props, f16Inputs);
    if (!d.supported.cooperativeMatrixTiles.supported()) {
        d.cooperativeMatrixNote = fmt::format(
            "device has no usable tile: none of its {} configurations is 8x8x8 or 16x16x16, "
            "subgroup scope, all-f32{}",
            props.size(),
            f16Inputs ? " or f16 A/B with f32 C/Result"
                      : " (f16 not looked for: shaderFloat16 or storageBuffer16BitAccess missing)");
    }
}

// blade hard-codes queue family 0 (init.rs:297); where it cannot do compute, the first
// family that can, said in queueNote.
void chooseQueueFamily(DeviceInfo& d) {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d.handle, &count, nullptr);
    d.queueFamilies.resize(count);
    vkGetPhysicalDeviceQueueFamilyProperties(d.handle, &count, d.queueFamilies.data());
    for (uint32_t f = 0; f < d.queueFamilies.size(); ++f) {
        if (!(d.queueFamilies[f].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
        d.queueFamily = f;
        d.queueNote = f == 0 ? "family 0, as blade hard-codes it"
                             : fmt::format("family {}: family 0 cannot do compute, so NOT blade's family 0", f);
        return;
    }
}

// blade's acceptance rule (init.rs:64-68, 297-335): empty when usable, else why not.
std::string unusableReason(const DeviceInfo& d) {
    if (d.apiVersion() < VK_API_VERSION_1_1) return "Vulkan 1.0 device; blade needs 1.1";
    // VK_KHR_descriptor_update_template is core in 1.1, which the line above requires; the two
    // features count only with their extension or core version (readSupportedFeatures).
    if (!d.supported.timelineSemaphore) return "no timeline semaphores (VK_KHR_timeline_semaphore)";
    if (!d.supported.dynamicRendering) return "no dynamic rendering (VK_KHR_dynamic_rendering), which blade requires";
    if (!d.queueFamily) return "no queue family with VK_QUEUE_COMPUTE_BIT";
    return "";
}

DeviceInfo queryDevice(const Instance& instance, uint32_t index, VkPhysicalDevice handle) {
    DeviceInfo d;
    d.index = index;
    d.handle = handle;
    vkGetPhysicalDeviceProperties(d.handle, &d.properties);
    d.extensions = deviceExtensions(d.handle);
    vkGetPhysicalDeviceMemoryProperties(d.handle, &d.memory);
    if (d.apiVersion() >= VK_API_VERSION_1_1) {
        queryExtendedProperties(d);
        querySupportedFeatures(d);
        decideCooperativeMatrix(instance, d);
    }
    chooseQueueFamily(d);
    d.unusable = unusableReason(d);
    return d;
}

}  // namespace

bool DeviceInfo::hasExtension(const char* name) const {
    return std::find(extensions.begin(), extensions.end(), name) != extensions.end();
}

CooperativeMatrixTiles bladeCooperativeTiles(std::span<const VkCooperativeMatrixPropertiesKHR> props, bool f16Inputs) {
    // blade's find_tile closure (init.rs:498-511).
    using T = VkComponentTypeKHR;
    auto findTile = [&](T a, T b, T c, T result) -> uint32_t {
        for (const uint32_t size : {8u, 16u}) {
            const bool listed = std::any_of(props.begin(), props.end(), [&](const VkCooperativeMatrixPropertiesKHR& p) {
                return p.MSize == size && p.NSize == size && p.KSize == size && p.AType == a && p.BType == b &&
                       p.CType == c && p.ResultType == result && p.scope == VK_SCOPE_SUBGROUP_KHR;
            });
            if (listed) return size;
        }
        return 0;
    };
    constexpr T f32 = VK_COMPONENT_TYPE_FLOAT32_KHR;
    constexpr T f16 = VK_COMPONENT_TYPE_FLOAT16_KHR;
    return {.f32Tile = findTile(f32, f32, f32, f32), .f16Tile = f16Inputs ? findTile(f16, f16, f32, f32) : 0};
}

std::vector<DeviceInfo> enumerateDevices(const Instance& instance) {
    uint32_t count = 0;
    check(vkEnumeratePhysicalDevices(instance.get(), &count, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> handles(count);
    check(vkEnumeratePhysicalDevices(instance.get(), &count, handles.data()), "vkEnumeratePhysicalDevices");
    std::vector<DeviceInfo> devices;
    for (uint32_t i = 0; i < count; ++i) devices.push_back(queryDevice(instance, i, handles[i]));
    return devices;
}

const DeviceInfo& chooseDevice(const std::vector<DeviceInfo>& devices, const std::optional<std::string>& selector) {
    if (devices.empty()) {
        throw CannotTest(
            "no Vulkan device: the loader found no driver "
            "(check VK_DRIVER_FILES / VK_ICD_FILENAMES and the installed ICDs)");
    }
    if (!selector) {
        for (const auto& d : devices) {
            if (d.unusable.empty()) return d;
        }
        throw CannotTest(fmt::format("no usable Vulkan device: {} (device 0): {}", devices[0].properties.deviceName,
                                     devices[0].unusable));
    }
    const DeviceInfo* match = nullptr;
    const bool numeric = !selector->empty() && std::all_of(selector->begin(), selector->end(),
                                                           [](unsigned char c) { return std::isdigit(c); });
    if (numeric) {
        const unsigned long index = std::stoul(selector->size() > 9 ? "4294967295" : *selector);
        if (index < devices.size()) match = &devices[index];
    } else {
        const std::string needle = lower(*selector);
        const auto found = std::find_if(devices.begin(), devices.end(), [&](const DeviceInfo& d) {
            return lower(d.properties.deviceName).find(needle) != std::string::npos;
        });
        if (found != devices.end()) match = &*found;
    }
    if (!match) {
        std::string known;
        for (const auto& d : devices) {
            known += fmt::format("{}{}: {}", known.empty() ? "" : ", ", d.index, d.properties.deviceName);
        }
        throw CannotTest(fmt::format("--device: no device matches {} (devices: {})", quote(*selector), known));
    }
    if (!match->unusable.empty()) {
        throw CannotTest(fmt::format("device {} ({}) cannot run the repro: {}", match->index,
                                     match->properties.deviceName, match->unusable));
    }
    return *match;
}

}  // namespace repro::vk
