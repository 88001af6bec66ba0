// Instance and device creation following blade-graphics `vulkan/init.rs` at 72c30c1
// (summarised in blade-command-stream.md §1).
#include "vk/device.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "core/shape.hpp"
#include "vk/check.hpp"

// Test seam (issue: fault injection): test builds link a definition that may replace
// entries of volk's function table after each load; the normal repro binary has none,
// so the weak reference stays null and nothing can be injected.
extern "C" void reproAfterVolkLoad(int stage) __attribute__((weak));

namespace repro::vk {
namespace {

// Lets a linked test seam adjust volk's function pointers: stage 0 after
// volkInitialize, 1 after volkLoadInstanceOnly, 2 after volkLoadDevice.
void afterVolkLoad(int stage) {
    if (reproAfterVolkLoad) reproAfterVolkLoad(stage);
}

#ifndef VK_KHR_cooperative_matrix
// VK_KHR_cooperative_matrix, absent from the distribution's Vulkan headers (1.3.239): these
// are KhronosGroup/Vulkan-Headers v1.3.255 include/vulkan/vulkan_core.h, the first release
// with the extension (spec version 2; unchanged through 1.4.359 apart from enumerators
// added to VkComponentTypeKHR and VkScopeKHR). With newer headers their own are used.
constexpr const char* VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME = "VK_KHR_cooperative_matrix";
constexpr auto VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR =
    static_cast<VkStructureType>(1000506000);
constexpr auto VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR =
    static_cast<VkStructureType>(1000506001);

typedef enum VkComponentTypeKHR {
    VK_COMPONENT_TYPE_FLOAT16_KHR = 0,
    VK_COMPONENT_TYPE_FLOAT32_KHR = 1,
    VK_COMPONENT_TYPE_FLOAT64_KHR = 2,
    VK_COMPONENT_TYPE_SINT8_KHR = 3,
    VK_COMPONENT_TYPE_SINT16_KHR = 4,
    VK_COMPONENT_TYPE_SINT32_KHR = 5,
    VK_COMPONENT_TYPE_SINT64_KHR = 6,
    VK_COMPONENT_TYPE_UINT8_KHR = 7,
    VK_COMPONENT_TYPE_UINT16_KHR = 8,
    VK_COMPONENT_TYPE_UINT32_KHR = 9,
    VK_COMPONENT_TYPE_UINT64_KHR = 10,
    VK_COMPONENT_TYPE_MAX_ENUM_KHR = 0x7FFFFFFF
} VkComponentTypeKHR;

typedef enum VkScopeKHR {
    VK_SCOPE_DEVICE_KHR = 1,
    VK_SCOPE_WORKGROUP_KHR = 2,
    VK_SCOPE_SUBGROUP_KHR = 3,
    VK_SCOPE_QUEUE_FAMILY_KHR = 5,
    VK_SCOPE_MAX_ENUM_KHR = 0x7FFFFFFF
} VkScopeKHR;

typedef struct VkCooperativeMatrixPropertiesKHR {
    VkStructureType sType;
    void* pNext;
    uint32_t MSize;
    uint32_t NSize;
    uint32_t KSize;
    VkComponentTypeKHR AType;
    VkComponentTypeKHR BType;
    VkComponentTypeKHR CType;
    VkComponentTypeKHR ResultType;
    VkBool32 saturatingAccumulation;
    VkScopeKHR scope;
} VkCooperativeMatrixPropertiesKHR;

typedef struct VkPhysicalDeviceCooperativeMatrixFeaturesKHR {
    VkStructureType sType;
    void* pNext;
    VkBool32 cooperativeMatrix;
    VkBool32 cooperativeMatrixRobustBufferAccess;
} VkPhysicalDeviceCooperativeMatrixFeaturesKHR;

typedef VkResult(VKAPI_PTR* PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)(
    VkPhysicalDevice physicalDevice, uint32_t* pPropertyCount,
    VkCooperativeMatrixPropertiesKHR* pProperties);
#endif  // VK_KHR_cooperative_matrix

// The first Vulkan-Headers release with VK_KHR_cooperative_matrix; a validation layer
// generated from an older one does not know its structures.
constexpr uint32_t kCoopMatrixHeaderVersion = VK_MAKE_API_VERSION(0, 1, 3, 255);

// The numbers device.hpp uses so that it needs no new headers.
static_assert(kComponentTypeFloat16 == VK_COMPONENT_TYPE_FLOAT16_KHR);
static_assert(kComponentTypeFloat32 == VK_COMPONENT_TYPE_FLOAT32_KHR);
static_assert(kScopeSubgroup == VK_SCOPE_SUBGROUP_KHR);
// The C layout on LP64 (Linux x86-64 and AArch64), where the driver writes these.
static_assert(sizeof(void*) != 8 || (sizeof(VkCooperativeMatrixPropertiesKHR) == 56 &&
                                     offsetof(VkCooperativeMatrixPropertiesKHR, scope) == 48));
static_assert(sizeof(void*) != 8 || sizeof(VkPhysicalDeviceCooperativeMatrixFeaturesKHR) == 24);

// vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR's list, as blade reads it through ash
// 0.38 (read_into_defaulted_vector: count, then fill, again while VK_INCOMPLETE) and
// `.unwrap_or_default()` (init.rs:492-497): any failure gives an empty list. volk has no
// entry for it with these headers, so it is loaded through vkGetInstanceProcAddr, as ash's
// khr::cooperative_matrix::Instance does (init.rs:760).
std::vector<CoopMatrixProps> cooperativeMatrixProperties(VkInstance instance,
                                                         VkPhysicalDevice device) {
    const auto get = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
        vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
    if (!get) return {};
    std::vector<VkCooperativeMatrixPropertiesKHR> raw;
    VkResult r = VK_SUCCESS;
    do {
        uint32_t count = 0;
        if (get(device, &count, nullptr) != VK_SUCCESS) return {};
        raw.assign(count, VkCooperativeMatrixPropertiesKHR{
                              .sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR});
        r = get(device, &count, raw.data());
        raw.resize(count);
    } while (r == VK_INCOMPLETE);
    if (r != VK_SUCCESS) return {};
    std::vector<CoopMatrixProps> props;
    for (const auto& p : raw) {
        props.push_back({.mSize = p.MSize,
                         .nSize = p.NSize,
                         .kSize = p.KSize,
                         .aType = static_cast<uint32_t>(p.AType),
                         .bType = static_cast<uint32_t>(p.BType),
                         .cType = static_cast<uint32_t>(p.CType),
                         .resultType = static_cast<uint32_t>(p.ResultType),
                         .saturatingAccumulation = p.saturatingAccumulation == VK_TRUE,
                         .scope = static_cast<uint32_t>(p.scope)});
    }
    return props;
}

// ash 0.38's HEADER_VERSION_COMPLETE, the cap blade puts on apiVersion (init.rs:591-782).
constexpr uint32_t kBladeApiCap = VK_MAKE_API_VERSION(0, 1, 3, 281);

VKAPI_ATTR VkBool32 VKAPI_CALL onValidationMessage(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    auto* log = static_cast<ValidationLog*>(user);
    const bool error = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0;
    (error ? log->errors : log->warnings)++;
    std::string text = fmt::format("{} {}: {}", error ? "error" : "warning",
                                   data->pMessageIdName ? data->pMessageIdName : "-",
                                   data->pMessage ? data->pMessage : "");
    std::fprintf(stderr, "validation: %s\n", text.c_str());
    std::fflush(stderr);
    log->messages.push_back(std::move(text));
    return VK_FALSE;
}

std::vector<std::string> instanceExtensions(const char* layer) {
    uint32_t count = 0;
    if (vkEnumerateInstanceExtensionProperties(layer, &count, nullptr) != VK_SUCCESS) return {};
    std::vector<VkExtensionProperties> props(count);
    if (vkEnumerateInstanceExtensionProperties(layer, &count, props.data()) != VK_SUCCESS) return {};
    std::vector<std::string> names;
    for (const auto& p : props) names.emplace_back(p.extensionName);
    return names;
}

bool contains(const std::vector<std::string>& list, const char* name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

}  // namespace

Instance::Instance(bool validation) {
    // volk's own volkInitialize calls whatever vkGetInstanceProcAddr it finds without a
    // null check; load the loader here and hand volk a checked entry point.
    void* loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!loader) loader = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL);
    auto getInstanceProcAddr =
        loader ? reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(loader, "vkGetInstanceProcAddr"))
               : nullptr;
    if (!getInstanceProcAddr) {
        throw CannotTest("no Vulkan loader: libvulkan.so.1 could not be loaded "
                         "(install libvulkan1 and a driver, e.g. mesa-vulkan-drivers)");
    }
    volkInitializeCustom(getInstanceProcAddr);  // the loader stays loaded for the process
    afterVolkLoad(0);
    apiVersion_ = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion) vkEnumerateInstanceVersion(&apiVersion_);
    apiVersion_ = std::min(apiVersion_, kBladeApiCap);
    if (apiVersion_ < VK_API_VERSION_1_1) {
        throw CannotTest(fmt::format("the Vulkan loader supports only {}.{}; the repro needs 1.1",
                                     VK_API_VERSION_MAJOR(apiVersion_),
                                     VK_API_VERSION_MINOR(apiVersion_)));
    }

    const auto available = instanceExtensions(nullptr);
    std::vector<const char*> extensions;
    debugUtils_ = contains(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (debugUtils_) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (contains(available, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME)) {
        extensions.push_back(VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
    }
    VkInstanceCreateFlags flags = 0;
    if (contains(available, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
        extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
        flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }

    std::vector<const char*> layers;
    const VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT validationFeatures{
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .enabledValidationFeatureCount = 1,
        .pEnabledValidationFeatures = enables,
    };
    const void* next = nullptr;
    if (validation) {
        constexpr const char* kLayer = "VK_LAYER_KHRONOS_validation";
        uint32_t count = 0;
        vkEnumerateInstanceLayerProperties(&count, nullptr);
        std::vector<VkLayerProperties> props(count);
        vkEnumerateInstanceLayerProperties(&count, props.data());
        const auto layer = std::find_if(props.begin(), props.end(), [&](const auto& p) {
            return std::strcmp(p.layerName, kLayer) == 0;
        });
        const bool present = layer != props.end();
        if (present) validationLayerSpec_ = layer->specVersion;
        if (!present) {
            throw CannotTest("--validation: VK_LAYER_KHRONOS_validation is not installed "
                             "(package vulkan-validationlayers)");
        }
        if (!debugUtils_) {
            throw CannotTest("--validation: VK_EXT_debug_utils is not available to count messages");
        }
        layers.push_back(kLayer);
        if (contains(instanceExtensions(kLayer), VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
            extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
            next = &validationFeatures;
        }
    }

    const VkApplicationInfo app{
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "repro",
        .applicationVersion = 1,
        .pEngineName = "blade",  // as blade names itself; drivers may key workarounds on it
        .engineVersion = 1,
        .apiVersion = apiVersion_,
    };
    const VkInstanceCreateInfo info{
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = next,
        .flags = flags,
        .pApplicationInfo = &app,
        .enabledLayerCount = static_cast<uint32_t>(layers.size()),
        .ppEnabledLayerNames = layers.data(),
        .enabledExtensionCount = static_cast<uint32_t>(extensions.size()),
        .ppEnabledExtensionNames = extensions.data(),
    };
    const VkResult r = vkCreateInstance(&info, nullptr, &instance_);
    if (r != VK_SUCCESS) throw VulkanError("vkCreateInstance", r);
    volkLoadInstanceOnly(instance_);
    afterVolkLoad(1);

    if (validation) {
        const VkDebugUtilsMessengerCreateInfoEXT messenger{
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
            .pfnUserCallback = onValidationMessage,
            .pUserData = log_.get(),
        };
        check(vkCreateDebugUtilsMessengerEXT(instance_, &messenger, nullptr, &messenger_),
              "vkCreateDebugUtilsMessengerEXT");
    }
}

Instance::~Instance() {
    if (abandoned_) return;
    if (messenger_ != VK_NULL_HANDLE) vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
    if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

bool DeviceInfo::hasExtension(const char* name) const { return contains(extensions, name); }

CooperativeMatrixTiles bladeCooperativeTiles(std::span<const CoopMatrixProps> props, bool f16Inputs) {
    // blade's find_tile closure (init.rs:498-511).
    auto findTile = [&](uint32_t a, uint32_t b, uint32_t c, uint32_t result) -> uint32_t {
        for (const uint32_t size : {8u, 16u}) {
            const bool listed = std::any_of(props.begin(), props.end(), [&](const CoopMatrixProps& p) {
                return p.mSize == size && p.nSize == size && p.kSize == size && p.aType == a &&
                       p.bType == b && p.cType == c && p.resultType == result &&
                       p.scope == kScopeSubgroup;
            });
            if (listed) return size;
        }
        return 0;
    };
    constexpr uint32_t f32 = kComponentTypeFloat32;
    constexpr uint32_t f16 = kComponentTypeFloat16;
    return {.f32Tile = findTile(f32, f32, f32, f32),
            .f16Tile = f16Inputs ? findTile(f16, f16, f32, f32) : 0};
}

std::vector<DeviceInfo> enumerateDevices(const Instance& instance) {
    uint32_t count = 0;
    check(vkEnumeratePhysicalDevices(instance.get(), &count, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> handles(count);
    check(vkEnumeratePhysicalDevices(instance.get(), &count, handles.data()),
          "vkEnumeratePhysicalDevices");

    std::vector<DeviceInfo> devices;
    for (uint32_t i = 0; i < count; ++i) {
        DeviceInfo d;
        d.index = i;
        d.handle = handles[i];
        vkGetPhysicalDeviceProperties(d.handle, &d.properties);

        uint32_t extCount = 0;
        check(vkEnumerateDeviceExtensionProperties(d.handle, nullptr, &extCount, nullptr),
              "vkEnumerateDeviceExtensionProperties");
        std::vector<VkExtensionProperties> exts(extCount);
        check(vkEnumerateDeviceExtensionProperties(d.handle, nullptr, &extCount, exts.data()),
              "vkEnumerateDeviceExtensionProperties");
        for (const auto& e : exts) d.extensions.emplace_back(e.extensionName);

        const bool v11 = d.apiVersion() >= VK_API_VERSION_1_1;
        const bool v12 = d.apiVersion() >= VK_API_VERSION_1_2;
        const bool v13 = d.apiVersion() >= VK_API_VERSION_1_3;
        if (v11) {
            d.hasDriverProperties = v12 || d.hasExtension(VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
            d.driver = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
            d.ids = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
                     .pNext = d.hasDriverProperties ? &d.driver : nullptr};
            VkPhysicalDevicePCIBusInfoPropertiesEXT pci{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT,
                .pNext = &d.ids};
            const bool hasPci = d.hasExtension(VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
            VkPhysicalDeviceProperties2 props2{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                               .pNext = hasPci ? static_cast<void*>(&pci)
                                                               : static_cast<void*>(&d.ids)};
            vkGetPhysicalDeviceProperties2(d.handle, &props2);
            d.ids.pNext = nullptr;
            d.driver.pNext = nullptr;
            if (hasPci) {
                d.pciBus = fmt::format("{:04x}:{:02x}:{:02x}.{:x}", pci.pciDomain, pci.pciBus,
                                       pci.pciDevice, pci.pciFunction);
            }
        }
        vkGetPhysicalDeviceMemoryProperties(d.handle, &d.memory);
        uint32_t familyCount = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(d.handle, &familyCount, nullptr);
        d.queueFamilies.resize(familyCount);
        vkGetPhysicalDeviceQueueFamilyProperties(d.handle, &familyCount, d.queueFamilies.data());

        const bool timelineExt = v12 || d.hasExtension(VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
        const bool templateExt = v11 || d.hasExtension(VK_KHR_DESCRIPTOR_UPDATE_TEMPLATE_EXTENSION_NAME);
        const bool renderingExt = v13 || d.hasExtension(VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME);
        if (v11) {
            VkPhysicalDeviceTimelineSemaphoreFeatures timeline{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
            VkPhysicalDeviceDynamicRenderingFeatures rendering{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES};
            VkPhysicalDeviceInlineUniformBlockFeatures inlineBlock{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_INLINE_UNIFORM_BLOCK_FEATURES};
            VkPhysicalDeviceBufferDeviceAddressFeatures bda{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
            VkPhysicalDeviceShaderFloat16Int8Features f16{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
            VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exec{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
            VkPhysicalDeviceFaultFeaturesEXT fault{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FAULT_FEATURES_EXT};
            VkPhysicalDeviceDescriptorIndexingFeatures indexing{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_FEATURES};
            VkPhysicalDeviceSynchronization2Features sync2{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES};
            // What blade's cooperative-matrix decision reads (init.rs:318-335, 474-521).
            VkPhysicalDeviceVulkanMemoryModelFeatures memoryModel{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
            VkPhysicalDevice16BitStorageFeatures storage16{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
            VkPhysicalDeviceCooperativeMatrixFeaturesKHR coopMatrix{
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
            const bool coopMatrixExt = d.hasExtension(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
            // Chain only structs whose extension or core version the device has.
            void* chain = nullptr;
            auto link = [&chain](auto& s, bool present) {
                if (!present) return;
                s.pNext = chain;
                chain = &s;
            };
            link(timeline, timelineExt);
            link(rendering, renderingExt);
            link(inlineBlock, v13 || d.hasExtension(VK_EXT_INLINE_UNIFORM_BLOCK_EXTENSION_NAME));
            link(bda, v12 || d.hasExtension(VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME));
            link(f16, v12 || d.hasExtension(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME));
            link(exec, d.hasExtension(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME));
            link(fault, d.hasExtension(VK_EXT_DEVICE_FAULT_EXTENSION_NAME));
            link(indexing, v12 || d.hasExtension(VK_EXT_DESCRIPTOR_INDEXING_EXTENSION_NAME));
            link(sync2, v13 || d.hasExtension(VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME));
            link(memoryModel, v12 || d.hasExtension(VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME));
            link(storage16, true);  // core since 1.1, which this branch has
            // Safe under validation layers older than the extension: their
            // vkGetPhysicalDeviceFeatures2 checks only pFeatures->sType, not the chain
            // (Vulkan-ValidationLayers v1.3.239 layers/generated/parameter_validation.cpp:8708-8715).
            link(coopMatrix, coopMatrixExt);
            VkPhysicalDeviceFeatures2 features{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                               .pNext = chain};
            vkGetPhysicalDeviceFeatures2(d.handle, &features);
            d.supported = BladeFeatures{
                .timelineSemaphore = timelineExt && timeline.timelineSemaphore,
                .dynamicRendering = renderingExt && rendering.dynamicRendering,
                .inlineUniformBlock = inlineBlock.inlineUniformBlock == VK_TRUE &&
                                      d.properties.vendorID != 0x5143,  // not on Qualcomm (blade)
                .bufferDeviceAddress = bda.bufferDeviceAddress == VK_TRUE,
                .shaderFloat16 = f16.shaderFloat16 == VK_TRUE,
                .pipelineExecutableInfo = exec.pipelineExecutableInfo == VK_TRUE,
                .dualSrcBlend = features.features.dualSrcBlend == VK_TRUE,
                .bindingArray = indexing.shaderStorageBufferArrayNonUniformIndexing == VK_TRUE &&
                                indexing.shaderSampledImageArrayNonUniformIndexing == VK_TRUE &&
                                indexing.descriptorBindingPartiallyBound == VK_TRUE,
                .synchronization2 = sync2.synchronization2 == VK_TRUE,
                .vulkanMemoryModel = memoryModel.vulkanMemoryModel == VK_TRUE,
                .storageBuffer16BitAccess = storage16.storageBuffer16BitAccess == VK_TRUE,
                .uniformAndStorageBuffer16BitAccess =
                    storage16.uniformAndStorageBuffer16BitAccess == VK_TRUE,
                .cooperativeMatrix = coopMatrixExt && coopMatrix.cooperativeMatrix == VK_TRUE,
            };
            d.deviceFaultSupported = fault.deviceFault == VK_TRUE;
            // blade's capabilities.cooperative_matrix (init.rs:474-538): the gates in its
            // order, then the property query and the tile choice.
            const BladeFeatures& s = d.supported;
            if (!coopMatrixExt) {
                d.cooperativeMatrixNote = "device lacks VK_KHR_cooperative_matrix";
            } else if (!s.cooperativeMatrix) {
                d.cooperativeMatrixNote = "VK_KHR_cooperative_matrix without its cooperativeMatrix feature";
            } else if (!s.vulkanMemoryModel) {
                d.cooperativeMatrixNote = "no vulkanMemoryModel feature, which blade requires with it";
            } else {
                d.cooperativeMatrixProperties = cooperativeMatrixProperties(instance.get(), d.handle);
                d.supported.cooperativeMatrixTiles =
                    bladeCooperativeTiles(d.cooperativeMatrixProperties,
                                          s.shaderFloat16 && s.storageBuffer16BitAccess);
                if (!d.supported.cooperativeMatrixTiles.supported()) {
                    d.cooperativeMatrixNote = fmt::format(
                        "device has no usable tile: none of its {} configurations is 8x8x8 or "
                        "16x16x16, subgroup scope, all-f32{}",
                        d.cooperativeMatrixProperties.size(),
                        s.shaderFloat16 && s.storageBuffer16BitAccess
                            ? " or f16 A/B with f32 C/Result"
                            : " (f16 not looked for: shaderFloat16 or storageBuffer16BitAccess missing)");
                }
            }
        }

        if (!d.queueFamilies.empty() && (d.queueFamilies[0].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
            d.queueFamily = 0;
            d.queueNote = "family 0, as blade hard-codes it";
        } else {
            for (uint32_t f = 0; f < d.queueFamilies.size(); ++f) {
                if (d.queueFamilies[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
                    d.queueFamily = f;
                    d.queueNote = fmt::format(
                        "family {}: family 0 cannot do compute, so NOT blade's family 0", f);
                    break;
                }
            }
        }

        if (!v11) {
            d.unusable = "Vulkan 1.0 device; blade needs 1.1";
        } else if (!timelineExt || !d.supported.timelineSemaphore) {
            d.unusable = "no timeline semaphores (VK_KHR_timeline_semaphore)";
        } else if (!templateExt) {
            d.unusable = "no VK_KHR_descriptor_update_template";
        } else if (!renderingExt || !d.supported.dynamicRendering) {
            d.unusable = "no dynamic rendering (VK_KHR_dynamic_rendering), which blade requires";
        } else if (!d.queueFamily) {
            d.unusable = "no queue family with VK_QUEUE_COMPUTE_BIT";
        }
        devices.push_back(std::move(d));
    }
    return devices;
}

const DeviceInfo& chooseDevice(const std::vector<DeviceInfo>& devices,
                               const std::optional<std::string>& selector) {
    if (devices.empty()) {
        throw CannotTest("no Vulkan device: the loader found no driver "
                         "(check VK_DRIVER_FILES / VK_ICD_FILENAMES and the installed ICDs)");
    }
    if (!selector) {
        for (const auto& d : devices) {
            if (d.unusable.empty()) return d;
        }
        throw CannotTest(fmt::format("no usable Vulkan device: {} (device 0): {}",
                                     devices[0].properties.deviceName, devices[0].unusable));
    }
    const DeviceInfo* match = nullptr;
    const bool numeric = !selector->empty() &&
                         std::all_of(selector->begin(), selector->end(),
                                     [](unsigned char c) { return std::isdigit(c); });
    if (numeric) {
        const unsigned long index = std::stoul(selector->size() > 9 ? "4294967295" : *selector);
        if (index < devices.size()) match = &devices[index];
    } else {
        const std::string needle = lower(*selector);
        for (const auto& d : devices) {
            if (lower(d.properties.deviceName).find(needle) != std::string::npos) {
                match = &d;
                break;
            }
        }
    }
    if (!match) {
        std::string known;
        for (const auto& d : devices) {
            known += fmt::format("{}{}: {}", known.empty() ? "" : ", ", d.index, d.properties.deviceName);
        }
        throw UsageError(fmt::format("--device: no device matches '{}' (devices: {})", *selector, known));
    }
    if (!match->unusable.empty()) {
        throw CannotTest(fmt::format("device {} ({}) cannot run the repro: {}", match->index,
                                     match->properties.deviceName, match->unusable));
    }
    return *match;
}

Device::Device(const Instance& instance, const DeviceInfo& info, const DeviceOptions& options)
    : info_(info) {
    const bool v12 = info.apiVersion() >= VK_API_VERSION_1_2;
    const bool v13 = info.apiVersion() >= VK_API_VERSION_1_3;
    const bool deviceFault = options.deviceFault;
    if (options.synchronization2 && !info.supported.synchronization2) {
        throw CannotTest("--barrier sync2/full need the synchronization2 feature (Vulkan 1.3 or "
                         "VK_KHR_synchronization2), which this device lacks");
    }
    if (options.bladeExact && *info.queueFamily != 0) {
        throw CannotTest(fmt::format("--profile blade-exact: blade records on queue family 0, which "
                                     "has no compute here ({})",
                                     info.queueNote));
    }
    // blade-exact only: blade's cooperative matrix, decided in enumerateDevices as blade
    // decides it (init.rs:474-538) and enabled as it enables it (init.rs:986-991, 1062-1094).
    const BladeFeatures& s = info.supported;
    const CooperativeMatrixTiles& tiles = s.cooperativeMatrixTiles;
    const bool withCoopMatrix = options.bladeExact && tiles.supported();
    const bool withStorage16 = options.bladeExact && tiles.f16Tile > 0;
    // A validation layer generated from headers older than the extension rejects
    // VkPhysicalDeviceCooperativeMatrixFeaturesKHR in vkCreateDevice's pNext
    // (VUID-VkDeviceCreateInfo-pNext-pNext, "unknown VkStructureType") and then fails the
    // call with VK_ERROR_VALIDATION_FAILED_EXT (Vulkan-ValidationLayers v1.3.239
    // layers/generated/parameter_validation.cpp:5483, layers/stateless_validation.h:565-572,
    // layers/generated/chassis.cpp:439-440).
    // There the extension and its struct are withheld; the rest of blade's set stays.
    const uint32_t layerSpec = instance.validationLayerSpecVersion();
    const bool coopWithheld = withCoopMatrix && layerSpec != 0 && layerSpec < kCoopMatrixHeaderVersion;
    if (withStorage16 && !s.uniformAndStorageBuffer16BitAccess) {
        // blade checks only storageBuffer16BitAccess (init.rs:515-516) but enables both
        // (init.rs:1071-1078), so its own vkCreateDevice would be asking for a missing feature.
        throw CannotTest(fmt::format(
            "--profile blade-exact: blade's f16 cooperative-matrix tile ({}) makes it enable "
            "uniformAndStorageBuffer16BitAccess, which this device lacks (blade's own "
            "vkCreateDevice would fail here)",
            tiles.f16Tile));
    }
    // blade's extension list, in its push order (init.rs:933-998): the three it requires,
    // then the optional ones the device lists.
    auto enable = [&](const char* name) {
        if (info.hasExtension(name)) extensions_.emplace_back(name);
    };
    enable(VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
    enable(VK_KHR_DESCRIPTOR_UPDATE_TEMPLATE_EXTENSION_NAME);
    enable(VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME);
    if (info.supported.inlineUniformBlock) enable(VK_EXT_INLINE_UNIFORM_BLOCK_EXTENSION_NAME);
    if (!v12) {
        enable(VK_EXT_DESCRIPTOR_INDEXING_EXTENSION_NAME);
        enable(VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME);
    }
    enable(VK_AMD_BUFFER_MARKER_EXTENSION_NAME);
    enable(VK_AMD_SHADER_INFO_EXTENSION_NAME);
    enable(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    if (info.hasExtension(VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME) &&
        info.hasExtension(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) {
        enable(VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME);
        enable(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    }
    enable(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    if (withCoopMatrix) {  // init.rs:986-991; a tile implies the device lists both
        if (!coopWithheld) enable(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
        if (!v12) enable(VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME);
    }
    enable(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    const bool withFault = deviceFault && info.deviceFaultSupported;
    if (withFault) enable(VK_EXT_DEVICE_FAULT_EXTENSION_NAME);
    const bool withSync2 = options.synchronization2;
    if (withSync2 && !v13) enable(VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME);

    // Features: blade passes pEnabledFeatures = NULL and chains VkPhysicalDeviceFeatures2;
    // every boolean it does not name stays VK_FALSE (robustBufferAccess included).
    VkPhysicalDeviceTimelineSemaphoreFeatures timeline{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
        .timelineSemaphore = VK_TRUE};
    VkPhysicalDeviceDynamicRenderingFeatures rendering{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES,
        .dynamicRendering = VK_TRUE};
    VkPhysicalDeviceInlineUniformBlockFeatures inlineBlock{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_INLINE_UNIFORM_BLOCK_FEATURES,
        .inlineUniformBlock = VK_TRUE};
    VkPhysicalDeviceBufferDeviceAddressFeatures bda{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES,
        .bufferDeviceAddress = VK_TRUE};
    VkPhysicalDeviceShaderFloat16Int8Features f16{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
        .shaderFloat16 = VK_TRUE};
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exec{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
        .pipelineExecutableInfo = VK_TRUE};
    // blade turns binding arrays on where all three features exist (init.rs:1026-1035);
    // the default profile leaves them off, blade-exact follows blade.
    VkPhysicalDeviceDescriptorIndexingFeatures indexing{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_FEATURES,
        .shaderSampledImageArrayNonUniformIndexing = VK_TRUE,
        .shaderStorageBufferArrayNonUniformIndexing = VK_TRUE,
        .descriptorBindingPartiallyBound = VK_TRUE};
    // With an f16 tile (init.rs:1071-1078).
    VkPhysicalDevice16BitStorageFeatures storage16{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        .storageBuffer16BitAccess = VK_TRUE,
        .uniformAndStorageBuffer16BitAccess = VK_TRUE};
    // With any tile (init.rs:1080-1094): vulkanMemoryModel alone, not
    // vulkanMemoryModelDeviceScope, and not cooperativeMatrixRobustBufferAccess.
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR coopMatrix{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
        .cooperativeMatrix = VK_TRUE};
    VkPhysicalDeviceVulkanMemoryModelFeatures memoryModel{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
        .vulkanMemoryModel = VK_TRUE};
    void* chain = nullptr;
    auto link = [&](auto& st, bool on, const char* name) {
        if (!on) return;
        st.pNext = chain;
        chain = &st;
        features_.emplace_back(name);
    };
    // ash's push_next prepends, so blade's chain runs in reverse push order; same here,
    // linked in blade's push order (init.rs:1017-1125).
    link(timeline, true, "timelineSemaphore");
    link(rendering, true, "dynamicRendering");
    link(inlineBlock, s.inlineUniformBlock, "inlineUniformBlock");
    link(indexing, options.bladeExact && s.bindingArray,
         "shaderStorageBufferArrayNonUniformIndexing+shaderSampledImageArrayNonUniformIndexing+"
         "descriptorBindingPartiallyBound");
    link(bda, s.bufferDeviceAddress, "bufferDeviceAddress");
    // blade: shaderFloat16 where supported or where the f16 tile is > 0 (init.rs:538,
    // 1064-1070); a tile needs shaderFloat16 supported, so that is "where supported".
    link(f16, s.shaderFloat16, "shaderFloat16");
    link(storage16, withStorage16, "storageBuffer16BitAccess+uniformAndStorageBuffer16BitAccess");
    link(coopMatrix, withCoopMatrix && !coopWithheld, "cooperativeMatrix");
    link(memoryModel, withCoopMatrix, "vulkanMemoryModel");
    link(exec, s.pipelineExecutableInfo && info.hasExtension(
                                               VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME),
         "pipelineExecutableInfo");
    VkPhysicalDeviceFaultFeaturesEXT fault{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FAULT_FEATURES_EXT,
                                           .deviceFault = VK_TRUE};
    link(fault, withFault, "deviceFault (--breadcrumbs; not blade's)");
    VkPhysicalDeviceSynchronization2Features sync2{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES,
        .synchronization2 = VK_TRUE};
    link(sync2, withSync2, "synchronization2 (--barrier; not blade's)");
    VkPhysicalDeviceFeatures2 features{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                       .pNext = chain};
    if (s.dualSrcBlend) {
        features.features.dualSrcBlend = VK_TRUE;
        features_.insert(features_.begin(), "dualSrcBlend");
    }
    (void)v13;
    // What blade would enable and this device does not get, with the reason.
    omitted_.clear();
    if (!withCoopMatrix) {
        omitted_.push_back(fmt::format(
            "cooperativeMatrix + vulkanMemoryModel (blade: with an 8x8 or 16x16 tile; {})",
            !options.bladeExact && tiles.supported() ? "only with --profile blade-exact"
                                                      : info.cooperativeMatrixNote));
    } else if (coopWithheld) {
        omitted_.push_back(fmt::format(
            "VK_KHR_cooperative_matrix + cooperativeMatrix (blade: f32 tile {}, f16 tile {}; "
            "withheld: the validation layer {}.{}.{} predates the extension (1.3.255) and fails "
            "vkCreateDevice with its feature struct; run without --validation to get it)",
            tiles.f32Tile, tiles.f16Tile, VK_API_VERSION_MAJOR(layerSpec),
            VK_API_VERSION_MINOR(layerSpec), VK_API_VERSION_PATCH(layerSpec)));
    }
    if (!withStorage16) {
        std::string why = !options.bladeExact && tiles.f16Tile > 0 ? "only with --profile blade-exact"
                          : tiles.supported() ? fmt::format("device has an f32 tile ({}) only", tiles.f32Tile)
                                              : info.cooperativeMatrixNote;
        omitted_.push_back(fmt::format(
            "storageBuffer16BitAccess+uniformAndStorageBuffer16BitAccess (blade: with an f16 "
            "cooperative-matrix tile; {})",
            why));
    }
    omitted_.push_back("unifiedImageLayouts");
    if (!(options.bladeExact && s.bindingArray)) {
        omitted_.push_back("descriptor-indexing features (blade: binding arrays)");
    }

    queueFamily_ = *info.queueFamily;
    const float priority = 1.0f;
    const VkDeviceQueueCreateInfo queueInfo{
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = queueFamily_,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    std::vector<const char*> names;
    for (const auto& e : extensions_) names.push_back(e.c_str());
    const VkDeviceCreateInfo createInfo{
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &features,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &queueInfo,
        .enabledExtensionCount = static_cast<uint32_t>(names.size()),
        .ppEnabledExtensionNames = names.data(),
        .pEnabledFeatures = nullptr,
    };
    const VkResult r = vkCreateDevice(info.handle, &createInfo, nullptr, &life_.device);
    if (r != VK_SUCCESS) throw VulkanError("vkCreateDevice", r);
    volkLoadDevice(life_.device);
    // On a Vulkan 1.2 device with VK_KHR_synchronization2 only the KHR entry point exists;
    // barriers.hpp calls the core name, so point it there (same signature).
    if (withSync2 && !v13) vkCmdPipelineBarrier2 = vkCmdPipelineBarrier2KHR;
    afterVolkLoad(2);
    vkGetDeviceQueue(life_.device, queueFamily_, 0, &queue_);
    debugUtils_ = instance.hasDebugUtils();
}

bool Device::extensionEnabled(std::string_view name) const {
    return std::find(extensions_.begin(), extensions_.end(), name) != extensions_.end();
}

bool Device::featureEnabled(std::string_view name) const {
    return std::find(features_.begin(), features_.end(), name) != features_.end();
}

Device::~Device() {
    if (life_.device == VK_NULL_HANDLE || life_.abandoned) return;
    vkDestroyDevice(life_.device, nullptr);
}

}  // namespace repro::vk
