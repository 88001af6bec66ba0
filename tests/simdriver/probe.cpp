// repro_simdriver_probe NAME...: a minimal Vulkan client for the simulated driver's
// end-to-end tests. It creates an instance and a device on physical device 0 (queue
// family 0, with VK_KHR_descriptor_update_template, VK_KHR_timeline_semaphore and
// VK_EXT_pci_bus_info where listed), then prints what the entry points look like through the loader and any
// layers:
//   apiVersion MAJOR.MINOR.PATCH
//   extension NAME            (one line per device extension)
//   NAME device set|null instance set|null
// Exit status 0, or 1 with one line on stderr naming the Vulkan call that failed.
#include <dlfcn.h>
#include <vulkan/vulkan_core.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int fail(const char* call, VkResult r) {
    std::fprintf(stderr, "repro_simdriver_probe: %s failed: VkResult %d\n", call, static_cast<int>(r));
    return 1;
}

template <typename Fn>
Fn load(PFN_vkGetInstanceProcAddr gipa, VkInstance instance, const char* name) {
    return reinterpret_cast<Fn>(gipa(instance, name));
}

// Prints the device extensions, then creates a device on queue family 0 with those of
// interest enabled; false after one line on stderr when a call fails.
bool createDevice(PFN_vkGetInstanceProcAddr gipa, VkInstance instance, VkPhysicalDevice physical, VkDevice& device) {
    const auto enumerate =
        load<PFN_vkEnumerateDeviceExtensionProperties>(gipa, instance, "vkEnumerateDeviceExtensionProperties");
    uint32_t extCount = 0;
    VkResult r = enumerate(physical, nullptr, &extCount, nullptr);
    std::vector<VkExtensionProperties> exts(extCount);
    if (r == VK_SUCCESS) r = enumerate(physical, nullptr, &extCount, exts.data());
    if (r != VK_SUCCESS) return fail("vkEnumerateDeviceExtensionProperties", r) == 0;
    std::vector<const char*> enabled;
    for (const auto& e : exts) {
        std::printf("extension %s\n", e.extensionName);
        if (std::strcmp(e.extensionName, VK_KHR_DESCRIPTOR_UPDATE_TEMPLATE_EXTENSION_NAME) == 0 ||
            std::strcmp(e.extensionName, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME) == 0 ||
            std::strcmp(e.extensionName, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME) == 0) {
            enabled.push_back(e.extensionName);
        }
    }
    const float priority = 1.0f;
    const VkDeviceQueueCreateInfo queue{.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                        .queueFamilyIndex = 0,
                                        .queueCount = 1,
                                        .pQueuePriorities = &priority};
    const VkDeviceCreateInfo deviceInfo{.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                        .queueCreateInfoCount = 1,
                                        .pQueueCreateInfos = &queue,
                                        .enabledExtensionCount = static_cast<uint32_t>(enabled.size()),
                                        .ppEnabledExtensionNames = enabled.data()};
    r = load<PFN_vkCreateDevice>(gipa, instance, "vkCreateDevice")(physical, &deviceInfo, nullptr, &device);
    return r == VK_SUCCESS || fail("vkCreateDevice", r) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IONBF, 0);  // every line out before a simulated crash
    void* loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    const auto gipa =
        loader ? reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(loader, "vkGetInstanceProcAddr")) : nullptr;
    if (!gipa) return fail("dlopen libvulkan.so.1", VK_ERROR_INITIALIZATION_FAILED);
    const VkApplicationInfo app{.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3};
    const VkInstanceCreateInfo info{.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance instance = VK_NULL_HANDLE;
    VkResult r = load<PFN_vkCreateInstance>(gipa, VK_NULL_HANDLE, "vkCreateInstance")(&info, nullptr, &instance);
    if (r != VK_SUCCESS) return fail("vkCreateInstance", r);
    uint32_t count = 1;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    r = load<PFN_vkEnumeratePhysicalDevices>(gipa, instance, "vkEnumeratePhysicalDevices")(instance, &count, &physical);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || count == 0) return fail("vkEnumeratePhysicalDevices", r);
    VkPhysicalDeviceProperties p{};
    load<PFN_vkGetPhysicalDeviceProperties>(gipa, instance, "vkGetPhysicalDeviceProperties")(physical, &p);
    std::printf("apiVersion %u.%u.%u\n", VK_API_VERSION_MAJOR(p.apiVersion), VK_API_VERSION_MINOR(p.apiVersion),
                VK_API_VERSION_PATCH(p.apiVersion));
    VkDevice device = VK_NULL_HANDLE;
    if (!createDevice(gipa, instance, physical, device)) return 1;
    const auto gdpa = load<PFN_vkGetDeviceProcAddr>(gipa, instance, "vkGetDeviceProcAddr");
    for (int i = 1; i < argc; ++i) {
        std::printf("%s device %s instance %s\n", argv[i], gdpa(device, argv[i]) ? "set" : "null",
                    gipa(instance, argv[i]) ? "set" : "null");
    }
    load<PFN_vkDestroyDevice>(gipa, instance, "vkDestroyDevice")(device, nullptr);
    load<PFN_vkDestroyInstance>(gipa, instance, "vkDestroyInstance")(instance, nullptr);
    return 0;
}
