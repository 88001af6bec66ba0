// The logical device as blade-graphics creates it: one queue, blade's extensions and
// features where the device has them (blade `vulkan/init.rs` at 72c30c1, lines 928-1125;
// docs/blade-stream.md "Device"), as typed state whose display names are derived.
#pragma once

#include <volk.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/profile.hpp"
#include "vk/check.hpp"
#include "vk/extensions.hpp"
#include "vk/handles.hpp"
#include "vk/instance.hpp"
#include "vk/physical_device.hpp"

namespace repro::vk {

// The features enabled through VkPhysicalDeviceFeatures2's chain; every other boolean
// stays VK_FALSE (robustBufferAccess included), as in blade.
struct EnabledFeatures {
    bool dualSrcBlend = false;
    bool timelineSemaphore = true;
    bool dynamicRendering = true;
    bool inlineUniformBlock = false;
    // shaderStorageBufferArrayNonUniformIndexing, shaderSampledImageArrayNonUniformIndexing
    // and descriptorBindingPartiallyBound (blade's binding arrays; blade-exact only).
    bool bindingArray = false;
    bool bufferDeviceAddress = false;
    bool shaderFloat16 = false;
    bool storage16Bit = false;  // storageBuffer16BitAccess + uniformAndStorageBuffer16BitAccess
    bool cooperativeMatrix = false;
    bool vulkanMemoryModel = false;  // vulkanMemoryModel alone, not DeviceScope
    bool pipelineExecutableInfo = false;
    bool deviceFault = false;       // not blade's
    bool synchronization2 = false;  // not blade's
    // Display names, dualSrcBlend first then the chain in blade's push order
    // (init.rs:1017-1125); repro's own are marked "(…; not blade's)".
    std::vector<std::string> names() const;
};

// A queue besides the main one (a scenario's [[queue]]: docs/scenarios.md "Queues and
// semaphores").
struct ExtraQueueRequest {
    bool otherFamily = false;  // true: another family than the main one; false: the main one's
    // What its commands need: VK_QUEUE_COMPUTE_BIT for dispatches, else VK_QUEUE_TRANSFER_BIT
    // (which a graphics or compute family supports whether or not it reports the bit: Vulkan
    // spec "Queues").
    VkQueueFlags needs = VK_QUEUE_TRANSFER_BIT;
};

// Where an extra queue landed.
struct ExtraQueue {
    uint32_t family = 0, index = 0;  // vkGetDeviceQueue's arguments
    bool fallback = false;           // it is the main queue itself: the device has no queue to spare
    bool otherFamily = false;        // a family other than the main queue's
    std::string note;                // "family 1 (TRANSFER), queue 0", or why it fell back
    VkQueue queue = VK_NULL_HANDLE;  // set by Device
};

// The choice for each request, in order, as a pure function of the families: "other" takes
// the first family besides `mainFamily` that supports its needs and has a queue left, else a
// second queue of the main family, else the main queue; "same" a second queue of the main
// family, else the main queue. Each queue is taken once.
std::vector<ExtraQueue> chooseExtraQueues(const std::vector<VkQueueFamilyProperties>& families, uint32_t mainFamily,
                                          const std::vector<ExtraQueueRequest>& requests);

// What the logical device enables beyond blade's default set.
struct DeviceOptions {
    bool deviceFault = false;           // VK_EXT_device_fault where supported (the query after a lost device)
    bool synchronization2 = false;      // --barrier sync2|full; CannotTest where unsupported
    bool calibratedTimestamps = false;  // VK_EXT_calibrated_timestamps where listed (--trace --timestamps)
    // --profile: queue family 0 whatever its flags, blade's descriptor-indexing features,
    // blade's cooperative matrix (CannotTest where its f16 tile would make blade ask for
    // uniformAndStorageBuffer16BitAccess the device lacks; withheld under a validation
    // layer older than 1.3.255, which would fail vkCreateDevice: omittedFeatures() says so).
    ProfileSettings profile;
    // Called right after volkLoadDevice, before any other call on the device (the
    // command-stream tracer installs itself there: vk/trace.hpp).
    std::function<void()> afterLoad;
    // Queues besides the main one, created with it (chooseExtraQueues); none by default.
    std::vector<ExtraQueueRequest> extraQueues;
};

// The choice, as pure functions of the device's facts and the options.
// `coopWithheld`: the validation layer predates VK_KHR_cooperative_matrix.
EnabledExtensions chooseExtensions(const DeviceInfo& info, const DeviceOptions& options, bool coopWithheld);
EnabledFeatures chooseFeatures(const DeviceInfo& info, const DeviceOptions& options, bool coopWithheld);
// What blade would enable and this device does not get, one line each with the reason.
std::vector<std::string> omittedFeatures(const DeviceInfo& info, const DeviceOptions& options, bool coopWithheld,
                                         uint32_t layerSpecVersion);

// Whether this process abandoned a device (Device::abandon): its objects are leaked on
// purpose, since the GPU may still use them, so the process should end with _exit (no
// exit handlers of the driver or the loader, and no leak check of a sanitizer build, which
// would report the deliberate leak as an error and change the exit status).
void noteDeviceAbandoned();
bool deviceAbandoned();

// The logical device: one queue (priority 1.0) of `info.queueFamily`, the extensions and
// features chosen above. Throws CannotTest (see DeviceOptions) or VulkanError.
class Device {
  public:
    Device(const Instance& instance, const DeviceInfo& info, const DeviceOptions& options = {});
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    VkDevice get() const { return life_.device; }
    const DeviceLife* life() const { return &life_; }
    VkQueue queue() const { return queue_; }
    uint32_t queueFamily() const { return queueFamily_; }
    // The extra queues DeviceOptions asked for, in its order.
    const std::vector<ExtraQueue>& extraQueues() const { return extraQueues_; }
    const DeviceInfo& info() const { return info_; }
    const EnabledExtensions& extensions() const { return extensions_; }
    const EnabledFeatures& features() const { return features_; }
    const std::vector<std::string>& omittedFeatures() const { return omitted_; }
    bool debugUtils() const { return debugUtils_; }

    // One handle made by `fn` (a vkCreate* entry of volk's) from `info` on this device and
    // owned by it. `checker` judges the result (check: throws VulkanError naming `call` when
    // the call fails).
    template <typename T, typename Info>
    Owned<T> create(VkResult (*fn)(VkDevice, const Info*, const VkAllocationCallbacks*, T*), const Info& info,
                    const char* call, void (*checker)(VkResult, std::string_view) = &check) const {
        T raw = VK_NULL_HANDLE;
        checker(fn(life_.device, &info, nullptr, &raw), call);
        return Owned<T>(&life_, raw);
    }

    // After a timeout: leak everything, since the GPU may still use it. A lost device needs
    // nothing: vkDeviceWaitIdle is finite after VK_ERROR_DEVICE_LOST (per spec), so the
    // rig's teardown waits and destroys every object as usual.
    void abandon() {
        life_.abandoned = true;
        noteDeviceAbandoned();
    }
    bool abandoned() const { return life_.abandoned; }

  private:
    DeviceInfo info_;
    DeviceLife life_;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t queueFamily_ = 0;
    std::vector<ExtraQueue> extraQueues_;
    EnabledExtensions extensions_;
    EnabledFeatures features_;
    std::vector<std::string> omitted_;
    bool debugUtils_ = false;
};

}  // namespace repro::vk
