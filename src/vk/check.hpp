// VkResult names and the error type for failed Vulkan setup calls.
#pragma once

#include <volk.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "core/errors.hpp"

namespace repro::vk {

// "VK_ERROR_DEVICE_LOST" etc.; "VkResult(<n>)" for values this build does not know.
std::string resultName(VkResult result);

// A setup call (instance, device, memory, pipeline) failed. main() turns it into one
// line and exit status 125 (cannot test here), or 3 for VK_ERROR_DEVICE_LOST.
struct VulkanError : std::runtime_error {
    VulkanError(std::string_view call, VkResult result, std::string_view detail = {});
    VkResult result;
};

// Throws VulkanError unless `result` is VK_SUCCESS. For setup calls only: the calls
// where the bug itself can show (submit, wait) return outcomes instead.
inline void check(VkResult result, std::string_view call) {
    if (result != VK_SUCCESS) throw VulkanError(call, result);
}

}  // namespace repro::vk
