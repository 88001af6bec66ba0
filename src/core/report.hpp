// The run's report as data: what text, Markdown and JSON render (docs/contract.md,
// "Output"). Vulkan-free;
// the Vulkan side fills it in, renderers only read it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/options.hpp"
#include "core/shape.hpp"
#include "core/stats.hpp"
#include "core/verdict.hpp"

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
    // it (core/loader_log.hpp); nothing when the loader did not say.
    std::optional<std::string> driverLibrary, driverManifest;
};

// The Vulkan loader: its version and what it said about the drivers.
struct LoaderReport {
    std::string version;                       // "1.3.239" (vkEnumerateInstanceVersion)
    std::vector<std::string> driverLibraries;  // every driver library a manifest named
    std::vector<std::string> problems;         // its warnings and errors, in its words
};

// Host-side phase timings in seconds (--timings; always in JSON). `total` ends when the
// verdict is known; `teardown` follows it: destroying the Vulkan objects, the device and
// the instance (the driver unloads), measured after the text report was printed, so it is
// in Markdown and JSON only.
struct PhaseTimings {
    double instanceAndDevice = 0, pipelines = 0, buffersAndUpload = 0, recording = 0, gpuWait = 0, readback = 0,
           verification = 0, total = 0;
    // After `total`: all of the teardown, and of it the device's part (the chain's buffers,
    // memory, pipelines and vkDestroyDevice); the rest is the instance's (vkDestroyInstance,
    // where the loader unloads the driver).
    double teardown = 0, teardownDevice = 0;
    double teardownInstance() const { return teardown > teardownDevice ? teardown - teardownDevice : 0.0; }
};

// One mode's outcome as the report shows it.
struct ModeReport {
    ModeResult result;  // classification, reason, stats, submits, wall time
    std::string role;   // "under test", "reference (run after)", ...
    // GPU time from timestamp queries (--timestamps), seconds; empty when not measured.
    std::vector<double> dispatchGpuSeconds;  // in chain order: conv-T 1, slice 1, conv-T 2...
    std::vector<double> submitGpuSeconds;
    std::optional<double> modeGpuSeconds;
};

struct ValidationSummary {
    bool enabled = false;
    uint64_t errors = 0, warnings = 0;
    std::vector<std::string> messages;
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

// The experiment settings of the run (docs/experiments.md): what multipass and single
// recorded and how the buffers and pipelines were made.
struct ExperimentReport {
    std::string barrier = "blade";
    uint32_t submitEvery = 0;  // 0: no --submit-every
    std::optional<double> splitMiB;
    std::optional<double> splitMs;  // --split-ms T, milliseconds
    bool hostWait = true;
    std::string memory = "blade";
    uint32_t dispatchRepeat = 1;
    std::string profile = "default";
    std::optional<std::string> spirvDir;
    std::optional<uint32_t> dropDispatch;  // --drop-dispatch K (a positive control)
    // Every flag that changes blade's stream, as typed (core/run_changes.hpp): the one list
    // the header, the Markdown and the JSON share.
    std::vector<std::string> changes;
    bool control = false;             // --barrier execution-only|none
    std::vector<std::string> quirks;  // blade-exact's quirks in force
};

// --print-stream: one mode's command stream as the tracer printed it (src/vk/trace.hpp).
struct StreamReport {
    std::string title;               // "mode single, N=2: blade's stream (...)"
    std::vector<std::string> calls;  // one Vulkan call per line
};

struct RunReport {
    std::string version, gitHash;
    std::vector<std::string> commandLine;
    EnvironmentReport environment;
    LoaderReport loader;
    std::optional<DeviceReport> device;
    std::string preset;
    Shape shape;
    ChainSizes sizes;
    uint32_t chainLength = 0;
    ExperimentReport experiment;
    std::string referenceName;  // "split", "cpu", "none", "split, run after ..."
    std::vector<ModeReport> modes;
    ValidationSummary validation;
    PhaseTimings timings;
    Verdict verdict;
    std::vector<StreamReport> streams;  // --print-stream only
};

}  // namespace repro
