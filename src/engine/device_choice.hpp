// Which device runs, with what a bisect needs to trust it: --device and blade's rule,
// --expect-driver, a note when several drivers offer a usable device, and the loader's own
// words when no device is there.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"
#include "report/report.hpp"
#include "vk/instance.hpp"
#include "vk/physical_device.hpp"

namespace repro {

// The device for `options` (vk::chooseDevice), checked against --expect-driver (a
// case-insensitive part of its driverName or VkDriverId name, or of the path of a driver
// library the loader read, or a path to that library), with the queue family of --queue
// (applyQueueChoice). Throws CannotTest naming the devices there are, with the loader's
// problems, when nothing fits. Adds a note when several drivers offer a usable device and
// none was asked for, and one for each problem the loader reported (a driver that failed
// to load).
vk::DeviceInfo selectDevice(const vk::Instance& instance, const std::vector<vk::DeviceInfo>& devices,
                            const Options& options, std::vector<std::string>& notes);

// --queue: the family to submit to. Default keeps blade's family 0 (or the first with
// compute, said in queueNote); gfx: the first family with GRAPHICS and COMPUTE; compute: the
// first with COMPUTE and without GRAPHICS (on RADV a different hardware ring, with its
// own kernel timeout on older kernels); INDEX: that family. CannotTest when the device has
// no such family or it cannot do compute.
void applyQueueChoice(vk::DeviceInfo& device, const QueueChoice& choice);

// After the device is made: CannotTest when --expect-driver matches neither the device's
// names nor the driver library the loader says the device runs on (libraryMatches).
void checkExpectedDriver(const Options& options, const DeviceReport& device);

// The loader's version and what it said about the drivers.
LoaderReport describeLoader(const vk::Instance& instance);

// --list-devices: the text list (printDeviceList), and the JSON document (device_list.hpp)
// on stdout with --format json and in the --output file. Returns the exit status: 0, or 1
// when the --output file cannot be written (said in one line).
int listDevices(const vk::Instance& instance, const std::vector<vk::DeviceInfo>& devices, const Options& options);

// The Vulkan loader's instance version for --version, "1.3.239", from
// vkEnumerateInstanceVersion through volk; "1.0 (the loader has no vkEnumerateInstanceVersion)"
// for a Vulkan 1.0 loader (the Vulkan spec, "Instance Version": a 1.0 loader lacks the
// command); "no loader (...)" when libvulkan.so.1 cannot be loaded. Never throws, never exits.
std::string loaderVersionText();

}  // namespace repro
