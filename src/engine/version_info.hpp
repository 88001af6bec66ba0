// --version's run-time facts that need the Vulkan loader (the rest is cli/help.hpp's
// versionText, which is Vulkan-free).
#pragma once

#include <string>

namespace repro {

// The Vulkan loader's instance version, "1.3.239", from vkEnumerateInstanceVersion through
// volk; "1.0 (the loader has no vkEnumerateInstanceVersion)" for a Vulkan 1.0 loader (the
// Vulkan spec, "Instance Version": a 1.0 loader lacks the command); "no loader (...)" when
// libvulkan.so.1 cannot be loaded. Never throws, never exits.
std::string loaderVersionText();

}  // namespace repro
