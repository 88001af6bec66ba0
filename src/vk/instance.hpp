// The Vulkan loader and instance, as blade-graphics sets them up (blade `vulkan/init.rs`
// at 72c30c1, lines 591-782; docs/blade-stream.md "Instance").
#pragma once

#include <volk.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "forensics/loader_log.hpp"

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
// With `gfxrCapture` (--capture-gfxr FILE): VK_LAYER_LUNARG_gfxreconstruct first (next to
// repro, so it records repro's calls), capturing everything to exactly FILE.
// The loader's own messages are kept (loaderMessages()) from the first call on, through a
// messenger chained into VkInstanceCreateInfo and one created after it.
// Throws CannotTest when there is no loader, a layer asked for is missing, or VK_DRIVER_FILES /
// VK_ICD_FILENAMES names a file that does not exist; VulkanError (with the loader's
// problems in its message) when vkCreateInstance fails.
class Instance {
  public:
    explicit Instance(bool validation, const std::optional<std::string>& gfxrCapture = std::nullopt);
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    VkInstance get() const { return instance_; }
    uint32_t apiVersion() const { return apiVersion_; }
    // The loader's own version (vkEnumerateInstanceVersion), before blade's cap.
    uint32_t loaderVersion() const { return loaderVersion_; }
    bool hasDebugUtils() const { return debugUtils_; }
    // VkLayerProperties::specVersion of VK_LAYER_KHRONOS_validation (the Vulkan header it
    // was generated from) when `validation`; 0 without the layer.
    uint32_t validationLayerSpecVersion() const { return validationLayerSpec_; }
    const ValidationLog& validationLog() const { return *log_; }
    const std::vector<LoaderMessage>& loaderMessages() const { return *loaderLog_; }
    // After a timed-out wait the device cannot be destroyed, so neither can the instance.
    void abandon() { abandoned_ = true; }

  private:
    void loadLoader();
    std::vector<const char*> chooseExtensions(VkInstanceCreateFlags& flags);
    const void* enableValidation(std::vector<const char*>& layers, std::vector<const char*>& extensions);
    void enableGfxr(const std::string& file);
    void createMessengers(bool validation);

    bool abandoned_ = false;
    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT loaderMessenger_ = VK_NULL_HANDLE;
    std::unique_ptr<ValidationLog> log_ = std::make_unique<ValidationLog>();
    std::unique_ptr<std::vector<LoaderMessage>> loaderLog_ = std::make_unique<std::vector<LoaderMessage>>();
    VkDebugUtilsMessengerCreateInfoEXT loaderMessengerInfo_{};
    uint32_t apiVersion_ = 0;
    uint32_t loaderVersion_ = 0;
    uint32_t validationLayerSpec_ = 0;
    bool debugUtils_ = false;
    // VkValidationFeaturesEXT and its one enable, alive until vkCreateInstance returns.
    VkValidationFeatureEnableEXT syncValidation_ = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT validationFeatures_{};
};

// Lets a linked test seam adjust volk's function pointers: stage 0 after
// volkInitialize, 1 after volkLoadInstanceOnly, 2 after volkLoadDevice. A no-op in the
// repro binary, which defines no seam (tests/fault/fault_injection.cpp defines one).
void afterVolkLoad(int stage);

}  // namespace repro::vk
