// Which device runs, with what a bisect needs to trust it: --device and blade's rule,
// --expect-driver, a note when several drivers offer a usable device, and the loader's own
// words when no device is there.
#pragma once

#include <string>
#include <vector>

#include "core/options.hpp"
#include "core/report.hpp"
#include "vk/instance.hpp"
#include "vk/physical_device.hpp"

namespace repro {

// The device for `options` (vk::chooseDevice), checked against --expect-driver (a
// case-insensitive part of its driverName or VkDriverId name). Throws CannotTest naming
// the devices there are, with the loader's problems, when nothing fits. Adds a note
// when several drivers offer a usable device and none was asked for.
const vk::DeviceInfo& selectDevice(const vk::Instance& instance, const std::vector<vk::DeviceInfo>& devices,
                                   const Options& options, std::vector<std::string>& notes);

// After the device is made: CannotTest when --expect-driver matches neither the device's
// names nor the driver library the loader says it loaded.
void checkExpectedDriver(const Options& options, const DeviceReport& device);

// The loader's version and what it said about the drivers.
LoaderReport describeLoader(const vk::Instance& instance);

}  // namespace repro
