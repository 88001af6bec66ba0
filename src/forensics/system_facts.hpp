// What repro records about the machine it runs on: the device and where its buffers landed,
// the Vulkan loader, and the host's environment (OS, kernel, GPU kernel driver, driver
// variables). Vulkan-free: src/vk/describe.cpp and forensics/environment.cpp fill them, the
// reports (report/report.hpp) carry them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace repro {

// Where one buffer of a blade memory class landed.
struct MemoryPlacement {
    std::string buffer;       // "small[0]", "small[N]", "big[0]", "weight"
    std::string memoryClass;  // "Device" or "Shared"
    uint32_t typeIndex = 0;
    std::string typeFlags;  // "DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT"
    uint32_t heapIndex = 0;
    uint64_t heapBytes = 0;
    std::string heapFlags;  // "DEVICE_LOCAL" or "none"
};

// Every `vulkaninfo --summary` field of the device used, plus the repro's set-up.
struct DeviceReport {
    uint32_t index = 0;
    std::string deviceName;
    std::string deviceType;     // "DISCRETE_GPU"
    std::string apiVersion;     // "1.3.230"
    std::string driverVersion;  // decoded by the vendor's convention
    uint32_t driverVersionRaw = 0;
    uint32_t vendorId = 0, deviceId = 0;
    std::string driverId;                // "DRIVER_ID_MESA_RADV"; empty if unknown
    std::string driverName, driverInfo;  // driverInfo carries Mesa's version and git hash
    std::string conformanceVersion;      // "1.3.1.1"
    std::string deviceUuid, driverUuid;
    std::optional<std::string> pciBus;  // "0000:03:00.0" with VK_EXT_pci_bus_info
    uint32_t queueFamily = 0;
    std::string queueFlags;               // "GRAPHICS|COMPUTE|TRANSFER"
    std::string queueNote;                // "family 0, as blade hard-codes it"
    std::vector<std::string> extensions;  // enabled
    std::vector<std::string> features;    // enabled
    std::vector<MemoryPlacement> memory;
    // The driver library the loader says the device runs on, and the manifest that named
    // it (forensics/loader_log.hpp); nothing when the loader did not say.
    std::optional<std::string> driverLibrary, driverManifest;
    // VkPhysicalDeviceLimits::timestampPeriod: nanoseconds per timestamp tick, the resolution
    // of the modes' GPU times (the JSON report rounds them to it); nullopt when not recorded.
    std::optional<double> timestampPeriodNs;
};

// The Vulkan loader: its version and what it said about the drivers.
struct LoaderReport {
    std::string version;                       // "1.3.239" (vkEnumerateInstanceVersion)
    std::vector<std::string> driverLibraries;  // every driver library a manifest named
    std::vector<std::string> problems;         // its warnings and errors, in its words
};

// A DRM card node (/sys/class/drm/cardN) and the PCI device behind it; empty strings
// and nullopt where sysfs did not say.
struct DrmCard {
    std::string name;                            // "card0"
    std::string pciSlot;                         // "0000:03:00.0" (PCI_SLOT_NAME in device/uevent)
    std::optional<uint32_t> vendorId, deviceId;  // device/vendor, device/device
    std::string driver;                          // kernel driver bound to it ("amdgpu"): basename of device/driver
};

// Environment facts (OS, kernel, CPU, GPU kernel driver, driver env vars), each a
// name -> value pair in the order found; values that could not be read say so.
struct EnvironmentReport {
    std::vector<std::pair<std::string, std::string>> host;          // os, kernel, cpu, cmdline
    std::vector<std::pair<std::string, std::string>> kernelDriver;  // e.g. amdgpu.lockup_timeout
    std::vector<std::pair<std::string, std::string>> variables;     // RADV_DEBUG=... (set only)
    std::vector<std::string> notes;                                 // what could not be read, hang-evidence locations
    std::vector<DrmCard> drmCards;  // structured form of the card* lines in kernelDriver
};

}  // namespace repro
