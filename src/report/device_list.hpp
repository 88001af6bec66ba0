// `repro --list-devices --format json` (and `--output FILE`): the devices the loader offers,
// as a JSON document of its own, "repro-device-list" (docs/report-schema.md,
// "Device list"; docs/report.schema.json, $defs/device_list). Vulkan-free: the caller fills
// ListedDevice from the physical devices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace repro {

inline constexpr int kDeviceListSchemaVersion = 1;

// One physical device, in the loader's order.
struct ListedDevice {
    uint32_t index = 0;                     // its --device INDEX
    std::string deviceName;                 // VkPhysicalDeviceProperties::deviceName
    std::string deviceType;                 // "DISCRETE_GPU", "CPU", ...
    std::string apiVersion;                 // "1.3.230"
    std::optional<std::string> driverName;  // VkPhysicalDeviceDriverProperties (absent before Vulkan 1.2)
    std::optional<std::string> driverInfo;
    std::optional<std::string> driverId;  // "DRIVER_ID_MESA_RADV"
    std::string driverVersion;            // decoded as the vendor encodes it
    std::string unusable;                 // why blade's rule refuses it; empty: usable
};

// The document: repro's version, the loader, the devices. One JSON object and a newline.
std::string renderDeviceListJson(const std::string& version, const std::string& gitHash, const LoaderReport& loader,
                                 const std::vector<ListedDevice>& devices);

// `--list-devices --format markdown`: a heading and one table row per device (index,
// name, type, Vulkan version, driver, usable or why not), cells escaped. Ends with a newline.
std::string renderDeviceListMarkdown(const std::vector<ListedDevice>& devices);

}  // namespace repro
