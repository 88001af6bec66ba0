// Words for device facts: driver IDs, device types, decoded driver versions, queue flags.
#pragma once

#include <volk.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace repro::vk {

struct DeviceInfo;

std::string driverIdName(VkDriverId id);                // "DRIVER_ID_MESA_RADV"
std::string driverIdShortName(VkDriverId id);           // "MESA_RADV" (as driverSettings keys it)
std::string deviceTypeName(VkPhysicalDeviceType type);  // "DISCRETE_GPU"
std::string apiVersionText(uint32_t version);           // "1.3.230"
// driverVersion decoded by the vendor's convention: NVIDIA 10.8.8.6 bits, Intel's
// Windows driver 18.14 bits, everyone else (Mesa included) VK_MAKE_API_VERSION.
std::string driverVersionText(const DeviceInfo& info);
std::string queueFlagsText(VkQueueFlags flags);  // "GRAPHICS|COMPUTE|TRANSFER"
std::string uuidText(const uint8_t (&uuid)[VK_UUID_SIZE]);

// Pipeline stage and access masks by their Vulkan names without the VK_ prefix and _BIT
// suffix, '|'-joined in bit order ("COMPUTE_SHADER", "MEMORY_WRITE|TRANSFER_WRITE"; "0"
// for an empty mask, "0x..." for bits this build does not name). The *2 forms take the
// 64-bit synchronization2 masks.
std::string stageMaskText(VkPipelineStageFlags mask);
std::string accessMaskText(VkAccessFlags mask);
std::string stageMask2Text(VkPipelineStageFlags2 mask);
std::string accessMask2Text(VkAccessFlags2 mask);

// One bit of a Vulkan flag mask and its name without the VK_ prefix and _BIT suffix.
struct BitName {
    uint64_t bit;
    const char* name;
};
// mask's named bits '|'-joined in the order of names (a name may cover several bits); `none`
// for an empty mask; the bits left unnamed as "|0x..." when `showUnnamed`, else left out (and
// `none` when no named bit is set).
std::string maskText(uint64_t mask, std::initializer_list<BitName> names, std::string_view none = "0",
                     bool showUnnamed = true);

}  // namespace repro::vk
