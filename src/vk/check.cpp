// VkResult to its spec name.
#include "vk/check.hpp"

#include <fmt/format.h>

namespace repro::vk {

std::string resultName(VkResult r) {
    switch (r) {
#define REPRO_RESULT(name) \
    case name:             \
        return #name;
        REPRO_RESULT(VK_SUCCESS)
        REPRO_RESULT(VK_NOT_READY)
        REPRO_RESULT(VK_TIMEOUT)
        REPRO_RESULT(VK_EVENT_SET)
        REPRO_RESULT(VK_EVENT_RESET)
        REPRO_RESULT(VK_INCOMPLETE)
        REPRO_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
        REPRO_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        REPRO_RESULT(VK_ERROR_INITIALIZATION_FAILED)
        REPRO_RESULT(VK_ERROR_DEVICE_LOST)
        REPRO_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
        REPRO_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
        REPRO_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
        REPRO_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
        REPRO_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
        REPRO_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
        REPRO_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
        REPRO_RESULT(VK_ERROR_FRAGMENTED_POOL)
        REPRO_RESULT(VK_ERROR_UNKNOWN)
        REPRO_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
        REPRO_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        REPRO_RESULT(VK_ERROR_FRAGMENTATION)
        REPRO_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        REPRO_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
        REPRO_RESULT(VK_ERROR_SURFACE_LOST_KHR)
        REPRO_RESULT(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
        REPRO_RESULT(VK_SUBOPTIMAL_KHR)
        REPRO_RESULT(VK_ERROR_OUT_OF_DATE_KHR)
        REPRO_RESULT(VK_ERROR_VALIDATION_FAILED_EXT)
        REPRO_RESULT(VK_ERROR_INVALID_SHADER_NV)
        REPRO_RESULT(VK_ERROR_NOT_PERMITTED_KHR)
        REPRO_RESULT(VK_THREAD_IDLE_KHR)
        REPRO_RESULT(VK_THREAD_DONE_KHR)
        REPRO_RESULT(VK_OPERATION_DEFERRED_KHR)
        REPRO_RESULT(VK_OPERATION_NOT_DEFERRED_KHR)
#undef REPRO_RESULT
        default:
            break;
    }
    return fmt::format("VkResult({})", static_cast<int>(r));
}

VulkanError::VulkanError(std::string_view call, VkResult r, std::string_view detail)
    : std::runtime_error(detail.empty() ? fmt::format("{} failed: {}", call, resultName(r))
                                        : fmt::format("{} failed: {} ({})", call, resultName(r), detail)),
      result(r) {}

}  // namespace repro::vk
