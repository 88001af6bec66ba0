// What the simulated driver reports about itself: the identity patched into
// vkGetPhysicalDeviceProperties(2), the extension it adds for pci=, and the entry points
// api:1.0 hides. Pure: these functions edit structures the layer got from the driver.
#pragma once

#include <vulkan/vulkan_core.h>

#include <string_view>
#include <vector>

#include "config.hpp"

namespace repro::simdriver {

// Overwrites the fields `identity` sets (deviceName, vendorID, deviceID, deviceType,
// apiVersion, driverVersion); with `api10`, apiVersion becomes 1.0 with the driver's own
// patch number.
void applyIdentity(const Identity* identity, bool api10, VkPhysicalDeviceProperties& properties);

// The same on a VkPhysicalDeviceProperties2 chain, plus the structures of its pNext chain
// that carry identity: VkPhysicalDeviceDriverProperties and
// VkPhysicalDeviceVulkan12Properties (driverID, driverName, driverInfo,
// conformanceVersion) and, with pci=, VkPhysicalDevicePCIBusInfoPropertiesEXT.
void applyIdentity(const Identity* identity, bool api10, VkPhysicalDeviceProperties2& properties);

// Whether `name` is a device-level command (its first parameter a VkDevice, VkQueue or
// VkCommandBuffer) that Vulkan 1.1, 1.2 or 1.3 added to core: what a 1.0 device does not
// have under its core name (VK_VERSION_1_1..1_3 sections of the 1.3.239 vulkan_core.h).
// Their extension aliases (vkCreateDescriptorUpdateTemplateKHR, ...) are not in the list.
bool isPromotedDeviceCommand(std::string_view name);

// The driver's device extensions with VK_EXT_pci_bus_info added when it is not already
// there (identity with pci=).
std::vector<VkExtensionProperties> withPciBusInfo(std::vector<VkExtensionProperties> extensions);

}  // namespace repro::simdriver
