// Instance and device creation following blade-graphics `vulkan/init.rs` at 72c30c1
// (summarised in blade-command-stream.md §1).
#include "vk/device.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
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
        const bool present = std::any_of(props.begin(), props.end(), [&](const auto& p) {
            return std::strcmp(p.layerName, kLayer) == 0;
        });
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
            };
            d.deviceFaultSupported = fault.deviceFault == VK_TRUE;
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
    enable(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    const bool withFault = deviceFault && info.deviceFaultSupported;
    if (withFault) enable(VK_EXT_DEVICE_FAULT_EXTENSION_NAME);
    const bool withSync2 = options.synchronization2;
    if (withSync2 && !v13) enable(VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME);

    // Features: blade passes pEnabledFeatures = NULL and chains VkPhysicalDeviceFeatures2;
    // every boolean it does not name stays VK_FALSE (robustBufferAccess included).
    const BladeFeatures& s = info.supported;
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
    void* chain = nullptr;
    auto link = [&](auto& st, bool on, const char* name) {
        if (!on) return;
        st.pNext = chain;
        chain = &st;
        features_.emplace_back(name);
    };
    // ash's push_next prepends, so blade's chain runs in reverse push order; same here.
    link(timeline, true, "timelineSemaphore");
    link(rendering, true, "dynamicRendering");
    link(inlineBlock, s.inlineUniformBlock, "inlineUniformBlock");
    link(bda, s.bufferDeviceAddress, "bufferDeviceAddress");
    link(f16, s.shaderFloat16, "shaderFloat16");
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
    // blade turns binding arrays on where all three features exist (init.rs:1005-1125);
    // the default profile leaves them off, blade-exact follows blade.
    VkPhysicalDeviceDescriptorIndexingFeatures indexing{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_FEATURES,
        .shaderSampledImageArrayNonUniformIndexing = VK_TRUE,
        .shaderStorageBufferArrayNonUniformIndexing = VK_TRUE,
        .descriptorBindingPartiallyBound = VK_TRUE};
    link(indexing, options.bladeExact && s.bindingArray,
         "shaderStorageBufferArrayNonUniformIndexing+shaderSampledImageArrayNonUniformIndexing+"
         "descriptorBindingPartiallyBound");
    VkPhysicalDeviceFeatures2 features{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                       .pNext = chain};
    if (s.dualSrcBlend) {
        features.features.dualSrcBlend = VK_TRUE;
        features_.insert(features_.begin(), "dualSrcBlend");
    }
    (void)v13;
    omitted_ = {"cooperativeMatrix + vulkanMemoryModel (blade: only with a usable f16 tile)",
                "storageBuffer16BitAccess (blade: only with cooperative matrix)",
                "unifiedImageLayouts"};
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
