// Every Vulkan entry point repro calls, checked once after volk has loaded them, so that a
// driver (or a manifest) that lacks one ends the run with one line naming it (CannotTest,
// 125) instead of a call through a null pointer. Functions promoted to core after 1.0 come
// from their extension's KHR alias when the core name is missing, as a Vulkan 1.0 driver
// or an ICD manifest declaring "api_version": "1.0.0" provides them (the loader then hands
// out only the extension's names).
#pragma once

namespace repro::vk {

struct EnabledExtensions;

// After volkLoadInstanceOnly: vkGetPhysicalDeviceProperties2 and vkGetPhysicalDeviceFeatures2
// (or their KHR aliases, VK_KHR_get_physical_device_properties2) and the 1.0 functions.
void resolveInstanceEntryPoints();

// After volkLoadDevice: the device functions repro records and submits with, the
// descriptor-update-template and timeline-semaphore functions from their KHR aliases where
// needed, and those of `extensions` that repro calls (VK_AMD_buffer_marker,
// VK_AMD_shader_info, VK_EXT_device_fault). With `synchronization2` (--barrier sync2 or
// full): vkCmdPipelineBarrier2, the KHR alias where VK_KHR_synchronization2 is enabled (a
// device below 1.3), else the core name, which the loader withholds where the ICD's
// manifest declares an older "api_version" than the device reports. CannotTest (125),
// naming the function and the flag, when the one chosen is missing: before any mode runs.
void resolveDeviceEntryPoints(const EnabledExtensions& extensions, bool synchronization2);

}  // namespace repro::vk
