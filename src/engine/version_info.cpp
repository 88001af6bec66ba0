// The Vulkan loader's version for --version (see engine/version_info.hpp).
#include "engine/version_info.hpp"

#include <volk.h>

#include <fmt/format.h>

#include "vk/check.hpp"
#include "vk/describe.hpp"

namespace repro {

std::string loaderVersionText() {
    if (volkInitialize() != VK_SUCCESS) return "no loader (libvulkan.so.1 could not be loaded)";
    if (vkEnumerateInstanceVersion == nullptr) return "1.0 (the loader has no vkEnumerateInstanceVersion)";
    uint32_t version = 0;
    const VkResult result = vkEnumerateInstanceVersion(&version);
    if (result != VK_SUCCESS) {
        return fmt::format("unknown (vkEnumerateInstanceVersion returned {})", vk::resultName(result));
    }
    return vk::apiVersionText(version);
}

}  // namespace repro
