// Loader and instance creation following blade-graphics `vulkan/init.rs` at 72c30c1.
#include "vk/instance.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/errors.hpp"
#include "core/output.hpp"
#include "core/text.hpp"
#include "vk/check.hpp"
#include "vk/entry_points.hpp"
#include "vk/watch.hpp"

// Test seam: test builds link a definition that may replace entries of volk's function
// table after each load; the normal repro binary has none, so the weak reference stays
// null and nothing can be injected.
extern "C" void reproAfterVolkLoad(int stage) __attribute__((weak));

namespace repro::vk {
namespace {

// ash 0.38's HEADER_VERSION_COMPLETE, the cap blade puts on apiVersion (init.rs:591-782).
constexpr uint32_t kBladeApiCap = VK_MAKE_API_VERSION(0, 1, 3, 281);
constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
constexpr const char* kGfxrLayer = "VK_LAYER_LUNARG_gfxreconstruct";

bool isLoaderMessage(const VkDebugUtilsMessengerCallbackDataEXT* data) {
    return data->pMessageIdName && std::strcmp(data->pMessageIdName, "Loader Message") == 0;
}

VKAPI_ATTR VkBool32 VKAPI_CALL onLoaderMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                               VkDebugUtilsMessageTypeFlagsEXT,
                                               const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    if (!isLoaderMessage(data) || !data->pMessage) return VK_FALSE;
    using S = LoaderMessage::Severity;
    const S s = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)     ? S::Error
                : (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) ? S::Warning
                : (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT)    ? S::Info
                                                                               : S::Verbose;
    static_cast<std::vector<LoaderMessage>*>(user)->push_back({.severity = s, .text = data->pMessage});
    return VK_FALSE;
}

VKAPI_ATTR VkBool32 VKAPI_CALL onValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    if (isLoaderMessage(data)) return VK_FALSE;  // the loader's, kept by onLoaderMessage
    auto* log = static_cast<ValidationLog*>(user);
    const bool error = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0;
    (error ? log->errors : log->warnings)++;
    std::string text =
        fmt::format("{} {}: {}", error ? "error" : "warning", data->pMessageIdName ? data->pMessageIdName : "-",
                    data->pMessage ? data->pMessage : "");
    writeText(stderr, "validation: " + text + "\n");
    log->messages.push_back(std::move(text));
    return VK_FALSE;
}

// The loader's entry for the instance layer `name`, or nullopt when it lists none.
std::optional<VkLayerProperties> installedLayer(const char* name) {
    uint32_t count = 0;
    vkEnumerateInstanceLayerProperties(&count, nullptr);
    std::vector<VkLayerProperties> props(count);
    vkEnumerateInstanceLayerProperties(&count, props.data());
    for (const VkLayerProperties& p : props) {
        if (std::strcmp(p.layerName, name) == 0) return p;
    }
    return std::nullopt;
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

bool listed(const std::vector<std::string>& list, const char* name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

void afterVolkLoad(int stage) {
    watch::wrapVolk(stage);
    if (reproAfterVolkLoad) reproAfterVolkLoad(stage);
}

// volk's own volkInitialize calls whatever vkGetInstanceProcAddr it finds without a null
// check; load the loader here and hand volk a checked entry point.
void Instance::loadLoader() {
    void* loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!loader) loader = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL);
    auto getInstanceProcAddr =
        loader ? reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(loader, "vkGetInstanceProcAddr")) : nullptr;
    if (!getInstanceProcAddr) {
        throw CannotTest(
            "no Vulkan loader: libvulkan.so.1 could not be loaded "
            "(install libvulkan1 and a driver, e.g. mesa-vulkan-drivers)");
    }
    volkInitializeCustom(getInstanceProcAddr);  // the loader stays loaded for the process
    afterVolkLoad(0);
    loaderVersion_ = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion) vkEnumerateInstanceVersion(&loaderVersion_);
    apiVersion_ = std::min(loaderVersion_, kBladeApiCap);
    if (apiVersion_ < VK_API_VERSION_1_1) {
        throw CannotTest(fmt::format("the Vulkan loader supports only {}.{}; the repro needs 1.1",
                                     VK_API_VERSION_MAJOR(apiVersion_), VK_API_VERSION_MINOR(apiVersion_)));
    }
}

// blade's instance extensions (init.rs:615-660): debug utils, properties2 where listed,
// portability enumeration (with its create flag) where the loader lists it.
std::vector<const char*> Instance::chooseExtensions(VkInstanceCreateFlags& flags) {
    const auto available = instanceExtensions(nullptr);
    std::vector<const char*> extensions;
    debugUtils_ = listed(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (debugUtils_) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (listed(available, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME)) {
        extensions.push_back(VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
    }
    if (listed(available, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
        extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
        flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
    return extensions;
}

// --validation: the Khronos layer with synchronization validation. Returns the pNext for
// VkInstanceCreateInfo (the validation features, where the layer offers them).
const void* Instance::enableValidation(std::vector<const char*>& layers, std::vector<const char*>& extensions) {
    const std::optional<VkLayerProperties> layer = installedLayer(kValidationLayer);
    if (!layer) {
        throw CannotTest(
            "--validation: VK_LAYER_KHRONOS_validation is not installed "
            "(package vulkan-validationlayers)");
    }
    validationLayerSpec_ = layer->specVersion;
    if (!debugUtils_) {
        throw CannotTest("--validation: VK_EXT_debug_utils is not available to count messages");
    }
    layers.push_back(kValidationLayer);
    if (!listed(instanceExtensions(kValidationLayer), VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
        return nullptr;
    }
    extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    validationFeatures_ = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                           .enabledValidationFeatureCount = 1,
                           .pEnabledValidationFeatures = &syncValidation_};
    return &validationFeatures_;
}

// A VK_DRIVER_FILES or VK_ICD_FILENAMES that is empty or names nothing makes the loader use
// no driver from it without a word: under `git bisect run` a typo would skip every revision.
void checkDriverFiles() {
    if (auto problem = driverVariableProblem(std::getenv("VK_DRIVER_FILES"), std::getenv("VK_ICD_FILENAMES"))) {
        throw CannotTest(*problem);
    }
}

// --capture-gfxr FILE: the GFXReconstruct layer, next to repro, writing exactly FILE. Its
// settings are environment variables it reads at vkCreateInstance (GFXReconstruct's
// USAGE_desktop_Vulkan.md, https://github.com/LunarG/gfxreconstruct): no timestamp in the
// name, a flush after every call (a crash or hang keeps what came before it), only its
// warnings and errors on stderr (unless the user set GFXRECON_LOG_LEVEL), and "unassisted"
// memory tracking, which writes mapped memory at each submit rather than
// catching writes with SIGSEGV, the signal the supervised child reads as a crash.
void Instance::enableGfxr(const std::string& file) {
    if (!installedLayer(kGfxrLayer))
        throw CannotTest("--capture-gfxr: VK_LAYER_LUNARG_gfxreconstruct is not installed (package gfxreconstruct)");
    ::setenv("GFXRECON_CAPTURE_FILE", file.c_str(), 1);
    ::setenv("GFXRECON_CAPTURE_FILE_TIMESTAMP", "false", 1);
    ::setenv("GFXRECON_CAPTURE_FILE_FLUSH", "true", 1);
    ::setenv("GFXRECON_MEMORY_TRACKING_MODE", "unassisted", 1);
    ::setenv("GFXRECON_LOG_LEVEL", "warning", 0);  // its info lines stay out of repro's stderr
}

void Instance::createMessengers(bool validation) {
    if (debugUtils_) {
        check(vkCreateDebugUtilsMessengerEXT(instance_, &loaderMessengerInfo_, nullptr, &loaderMessenger_),
              "vkCreateDebugUtilsMessengerEXT");
    }
    if (!validation) return;
    const VkDebugUtilsMessengerCreateInfoEXT messenger{
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = onValidationMessage,
        .pUserData = log_.get(),
    };
    check(vkCreateDebugUtilsMessengerEXT(instance_, &messenger, nullptr, &messenger_),
          "vkCreateDebugUtilsMessengerEXT");
}

namespace {

// The loader's problems, for a failed vkCreateInstance: "the loader says: ...". A driver
// manifest that is not JSON fails before any messenger exists (the loader reads the
// manifests in vkEnumerateInstanceExtensionProperties too), so its words are not in `log`:
// then the manifests are read here and the loader's own line for them is quoted.
std::string loaderSays(const std::vector<LoaderMessage>& log) {
    std::string text;
    for (const auto& p : loaderProblems(log)) text += (text.empty() ? "" : " | ") + p;
    if (!text.empty()) return "the loader says: " + text;
    const char* driverFiles = std::getenv("VK_DRIVER_FILES");
    const char* searchPath = driverFiles ? driverFiles : std::getenv("VK_ICD_FILENAMES");
    const std::vector<std::string> bad =
        unreadableDriverManifests(searchPath ? searchPath : defaultDriverManifestPath());
    if (bad.empty()) return "";
    return fmt::format(
        "driver manifest {}: the loader calls that \"Failed to parse JSON file\" and returns "
        "VK_ERROR_OUT_OF_HOST_MEMORY, though no memory ran out",
        fmt::join(bad, " | driver manifest "));
}

}  // namespace

Instance::Instance(bool validation, const std::optional<std::string>& gfxrCapture) {
    checkDriverFiles();
    loadLoader();
    VkInstanceCreateFlags flags = 0;
    std::vector<const char*> extensions = chooseExtensions(flags);
    // GFXReconstruct's layer first, nearest repro, so that it captures repro's calls as made.
    // (Pushed here, before the validation layer, not inserted at begin() later: GCC 12 -O2
    // reads vector::insert at begin() as a null dereference, -Wnull-dereference.)
    std::vector<const char*> layers;
    if (gfxrCapture) layers.push_back(kGfxrLayer);
    const void* next = validation ? enableValidation(layers, extensions) : nullptr;
    if (gfxrCapture) enableGfxr(*gfxrCapture);
    // The loader reports what it finds and fails on to a messenger chained here, during
    // vkCreateInstance itself, and to the one createMessengers makes afterwards.
    loaderMessengerInfo_ = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .pNext = next,
        .messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT |
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
        .pfnUserCallback = onLoaderMessage,
        .pUserData = loaderLog_.get(),
    };
    if (debugUtils_) next = &loaderMessengerInfo_;
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
    if (r != VK_SUCCESS) throw VulkanError("vkCreateInstance", r, loaderSays(*loaderLog_));
    volkLoadInstanceOnly(instance_);
    resolveInstanceEntryPoints();
    afterVolkLoad(1);
    loaderMessengerInfo_.pNext = nullptr;
    createMessengers(validation);
}

Instance::~Instance() {
    if (abandoned_) return;
    if (messenger_ != VK_NULL_HANDLE) vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
    if (loaderMessenger_ != VK_NULL_HANDLE) vkDestroyDebugUtilsMessengerEXT(instance_, loaderMessenger_, nullptr);
    if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

}  // namespace repro::vk
