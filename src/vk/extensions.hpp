// The device extensions repro enables (chooseExtensions in device.hpp decides them), in a
// header of their own so that entry_points, which resolves their functions, does not
// depend on the device. Internal to src/vk.
#pragma once

#include <vector>

namespace repro::vk {

// The device extensions enabled, each true only where the device lists it.
struct EnabledExtensions {
    bool timelineSemaphore = false;
    bool descriptorUpdateTemplate = false;
    bool dynamicRendering = false;
    bool inlineUniformBlock = false;
    bool descriptorIndexing = false;   // below Vulkan 1.2 only
    bool bufferDeviceAddress = false;  // below Vulkan 1.2 only
    bool amdBufferMarker = false;      // blade enables it even with validation off
    bool amdShaderInfo = false;
    bool pipelineExecutableProperties = false;
    bool externalMemory = false;  // with externalMemoryFd, as a pair
    bool externalMemoryFd = false;
    bool externalMemoryHost = false;
    bool cooperativeMatrix = false;  // blade-exact, where blade finds a tile
    bool vulkanMemoryModel = false;  // with cooperativeMatrix below Vulkan 1.2
    bool memoryBudget = false;
    bool deviceFault = false;       // --breadcrumbs; not blade's
    bool synchronization2 = false;  // --barrier sync2|full below Vulkan 1.3; not blade's
    // --trace with --timestamps: VK_EXT_calibrated_timestamps, to align GPU timestamps with
    // the host's clock (vk/gpu_trace.hpp); not blade's.
    bool calibratedTimestamps = false;
    // The extension names, in blade's push order (init.rs:933-998), repro's own last.
    std::vector<const char*> names() const;
};

}  // namespace repro::vk
