// The layer's state, shared by its three files: layer.cpp (loader interface, instance,
// physical device, device creation, proc-address tables), layer_commands.cpp (command
// buffer recording) and layer_queue.cpp (submits, waits, queries, faults). Internal to
// the layer: nothing here is exported from the shared library.
//
// Dispatchable handles are found through their dispatch key, the loader's dispatch table
// pointer stored in the first word of every dispatchable object; a queue and a command
// buffer share their device's key, a physical device its instance's (Vulkan-Loader
// docs/LoaderLayerInterface.md, "Layer Dispatch Initialization" and "Distributed
// Dispatching Requirements").
#pragma once

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan_core.h>

#include <cstdarg>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clock.hpp"
#include "config.hpp"
#include "faults.hpp"
#include "kmsg.hpp"
#include "recording.hpp"

namespace repro::simdriver::layer {

inline constexpr const char* kLayerName = "VK_LAYER_REPRO_simulate";

// Which intercepts a Config needs; a call whose group is inactive goes straight to the
// next layer or driver (its proc address is the next one's), so an empty REPRO_SIMULATE
// leaves only instance and device creation and destruction passing through the layer.
enum Group : uint32_t {
    kAlways = 0,
    kProperties = 1u << 0,     // identity or api:1.0
    kPciExtension = 1u << 1,   // identity with pci=
    kRecording = 1u << 2,      // seed-bug, flaky, clock, watchdog, stale
    kClockGroup = 1u << 3,     // clock or watchdog: submits, waits, timestamps
    kLoss = 1u << 4,           // lost, clock or watchdog: a lost device's submits and waits
    kStale = 1u << 5,          // stale: buffers and descriptor sets
    kTransfers = 1u << 6,      // drop-transfers, lost-transitions: transfer commands and pipeline barriers
    kFamilies = 1u << 7,       // second-family: queue families, queues, command pools, barriers
    kDeviceFault = 1u << 8,    // device-fault: the extension, its feature and vkGetDeviceFaultInfoEXT
    kFormats = 1u << 9,        // no-storage-images: vkGetPhysicalDeviceFormatProperties
    kWeakBarriers = 1u << 10,  // weak-barriers: pipeline barriers (and kStale's buffers, kRecording's dispatches)
};
uint32_t groupsOf(const Config& config);

inline void* dispatchKey(const void* handle) { return *static_cast<void* const*>(handle); }

// The instance-level functions of the next layer or driver that the layer calls.
struct InstanceDispatch {
    PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
    PFN_vkDestroyInstance destroyInstance = nullptr;
    PFN_vkEnumeratePhysicalDevices enumeratePhysicalDevices = nullptr;
    PFN_vkGetPhysicalDeviceProperties getPhysicalDeviceProperties = nullptr;
    PFN_vkGetPhysicalDeviceProperties2 getPhysicalDeviceProperties2 = nullptr;
    PFN_vkGetPhysicalDeviceProperties2 getPhysicalDeviceProperties2KHR = nullptr;
    PFN_vkEnumerateDeviceExtensionProperties enumerateDeviceExtensionProperties = nullptr;
    PFN_vkGetPhysicalDeviceQueueFamilyProperties getPhysicalDeviceQueueFamilyProperties = nullptr;
    PFN_vkGetPhysicalDeviceQueueFamilyProperties2 getPhysicalDeviceQueueFamilyProperties2 = nullptr;
    PFN_vkGetPhysicalDeviceMemoryProperties getPhysicalDeviceMemoryProperties = nullptr;
    PFN_vkGetPhysicalDeviceFormatProperties getPhysicalDeviceFormatProperties = nullptr;
    PFN_vkGetPhysicalDeviceFeatures2 getPhysicalDeviceFeatures2 = nullptr;
    PFN_vkGetPhysicalDeviceFeatures2 getPhysicalDeviceFeatures2KHR = nullptr;
};

struct InstanceState {
    VkInstance handle = VK_NULL_HANDLE;
    InstanceDispatch next;
    std::shared_ptr<const Config> config;
    uint32_t groups = 0;
};

// The device-level functions of the next layer or driver, loaded by name; a name the
// next one does not have stays null.
// clang-format off
#define REPRO_SIM_DEVICE_FUNCTIONS(X)                                                           \
    X(DestroyDevice) X(GetDeviceQueue) X(GetDeviceQueue2) X(QueueSubmit) X(QueueSubmit2)           \
    X(QueueSubmit2KHR) X(QueueWaitIdle) X(DeviceWaitIdle) X(WaitSemaphores) X(WaitSemaphoresKHR)   \
    X(GetSemaphoreCounterValue) X(GetSemaphoreCounterValueKHR) X(CreateSemaphore)                  \
    X(DestroySemaphore) X(WaitForFences) X(GetFenceStatus) X(ResetFences) X(DestroyFence)          \
    X(AllocateCommandBuffers) X(FreeCommandBuffers) X(BeginCommandBuffer) X(ResetCommandBuffer)    \
    X(ResetCommandPool) X(DestroyCommandPool) X(CmdDispatch) X(CmdDispatchBase)                    \
    X(CmdDispatchBaseKHR) X(CmdDispatchIndirect) X(CmdWriteTimestamp) X(CmdWriteTimestamp2)        \
    X(CmdWriteTimestamp2KHR) X(CmdResetQueryPool) X(ResetQueryPool) X(ResetQueryPoolEXT)           \
    X(GetQueryPoolResults) X(DestroyQueryPool) X(CreateBuffer) X(DestroyBuffer)                    \
    X(GetBufferMemoryRequirements) X(AllocateMemory) X(FreeMemory) X(BindBufferMemory)             \
    X(MapMemory) X(CmdCopyBuffer) X(CmdPipelineBarrier) X(CreateDescriptorUpdateTemplate)          \
    X(CreateDescriptorUpdateTemplateKHR) X(DestroyDescriptorUpdateTemplate)                        \
    X(DestroyDescriptorUpdateTemplateKHR) X(UpdateDescriptorSetWithTemplate)                       \
    X(UpdateDescriptorSetWithTemplateKHR) X(UpdateDescriptorSets) X(CmdBindDescriptorSets)         \
    X(AllocateDescriptorSets) X(CreateComputePipelines) X(CreateShaderModule) X(CmdFillBuffer)     \
    X(CmdUpdateBuffer) X(CmdCopyBuffer2) X(CmdCopyBuffer2KHR) X(CmdPipelineBarrier2)               \
    X(CmdPipelineBarrier2KHR) X(CreateCommandPool) X(CmdCopyBufferToImage) X(CmdCopyImageToBuffer) \
    X(CmdCopyImage) X(CmdClearColorImage) X(CreateImage)
// clang-format on

struct DeviceDispatch {
#define REPRO_SIM_MEMBER(name) PFN_vk##name name = nullptr;
    REPRO_SIM_DEVICE_FUNCTIONS(REPRO_SIM_MEMBER)
#undef REPRO_SIM_MEMBER
};

struct QueueState {
    uint32_t family = 0;
    QueueClock clock;
};

// A query command recorded in a command buffer; applied to the pool when the command
// buffer is submitted, in recording order.
struct QueryOp {
    bool reset = false;  // vkCmdResetQueryPool of [first, first + count)
    VkQueryPool pool = VK_NULL_HANDLE;
    uint32_t first = 0;
    uint32_t count = 0;
    TimestampDecision timestamp;  // a vkCmdWriteTimestamp(2) of query `first`
};

// A buffer and its memory that the layer made (stale's copies).
struct OwnedBuffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
};

struct CommandBufferState {
    VkCommandPool pool = VK_NULL_HANDLE;
    CommandBufferModel model;
    std::vector<QueryOp> queryOps;
    std::vector<VkDescriptorSet> computeSets;  // bound at the COMPUTE bind point, by set number
    // stale: (buffer bound to dispatch D, its copy from before dispatch D)
    std::vector<std::pair<VkBuffer, OwnedBuffer>> staleBefore;
    std::vector<OwnedBuffer> owned;  // freed at the next begin, reset or free
    bool tracedSkip = false;
    TransferDrops transfers;       // drop-transfers
    ImageTransitions transitions;  // lost-transitions
    // weak-barriers: a dispatch was recorded and no barrier with a memory dependency after it
    bool weakPending = false;
};

// One descriptor of a descriptor update template (vkCreateDescriptorUpdateTemplate).
struct TemplateEntry {
    uint32_t binding = 0;
    uint32_t arrayElement = 0;
    uint32_t count = 0;
    VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    size_t offset = 0;
    size_t stride = 0;
};

// A watchdog kill whose kernel log lines are not yet written.
struct PendingKill {
    Nanoseconds at = 0;
    KillReport report;
};

struct DeviceState {
    VkDevice handle = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    std::shared_ptr<const Config> config;
    uint32_t groups = 0;
    PFN_vkGetDeviceProcAddr nextGetDeviceProcAddr = nullptr;
    DeviceDispatch next;
    RecordRules rules;
    SplitMix64 flakyDraws{1};
    double nsPerTick = 1;
    std::vector<uint32_t> timestampValidBits;  // by queue family (the driver's)
    // second-family: the index of the family the layer adds (the driver's family count)
    uint32_t addedFamily = ~0u;
    VkPhysicalDeviceMemoryProperties memory{};
    std::string pciAddress = "0000:c4:00.0";
    std::unordered_map<VkQueue, QueueState> queues;
    std::unordered_map<VkCommandBuffer, CommandBufferState> commandBuffers;
    std::unordered_map<VkSemaphore, SemaphoreTimeline> timelines;
    std::unordered_map<VkSemaphore, Nanoseconds> binarySignals;  // a binary semaphore's last signal
    std::unordered_map<VkFence, Nanoseconds> fences;
    std::unordered_map<VkQueryPool, std::vector<QuerySlot>> queries;
    std::unordered_map<VkQueryPool, uint32_t> queryFamilies;  // the family that last wrote the pool
    std::unordered_map<VkBuffer, VkDeviceSize> bufferSizes;
    std::unordered_map<VkDescriptorUpdateTemplate, std::vector<TemplateEntry>> templates;
    // (binding, array element) -> buffer of every storage-buffer descriptor written
    std::unordered_map<VkDescriptorSet, std::map<std::pair<uint32_t, uint32_t>, VkBuffer>> sets;
    Nanoseconds lostAt = kNever;
    // recovery=soft-next-submit: the first submit from this time on returns
    // VK_ERROR_DEVICE_LOST and loses the device (config.hpp Recovery).
    Nanoseconds lostAtNextSubmit = kNever;
    uint32_t gpuResets = 0;
    std::vector<PendingKill> kills;
};

// Everything the layer knows, behind one mutex. Calls that may block (waits, the sleeps of
// the simulated clock) release it first.
struct Globals {
    std::mutex mutex;
    std::unordered_map<void*, std::unique_ptr<InstanceState>> instances;
    std::unordered_map<void*, std::unique_ptr<DeviceState>> devices;
    std::unique_ptr<FaultCounter> faults;
    std::map<std::string, uint64_t> kmsgSequence;  // next SEQ per kmsg file
};
// Never destroyed, so that a call during process exit still finds it.
Globals& globals();

// Lookups under the mutex; null when the handle is unknown.
InstanceState* instanceOf(const void* dispatchable);
DeviceState* deviceOf(const void* dispatchable);

// CLOCK_MONOTONIC now, and a sleep until a CLOCK_MONOTONIC time (at once when it has
// passed; kNever returns at once too, as nothing waits for ever on the simulated clock).
Nanoseconds monotonicNow();
void sleepUntil(Nanoseconds when);

// REPRO_SIMULATE_TRACE: unset, empty or "0": silent; "1" or "stderr": one line per event on
// stderr; anything else: a file the lines are appended to. Each line starts
// "repro-simulate: ".
bool tracing();
void trace(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Writes the kernel log records of the kills of `device` due by `upTo` (kNever: all).
// Call with the mutex held.
void flushKills(DeviceState& device, Nanoseconds upTo);

// Fault points (faults.hpp). faultBefore: for a call that is not a wait, before it is
// passed down; faultAfterWait: for a wait, with what the driver returned. Both return the
// result the application gets (VK_ERROR_DEVICE_LOST when lost is due, after marking
// `device` lost) or VK_SUCCESS / `result`; a crash, abort or stall does not return. Call
// without the mutex held.
VkResult faultBefore(FaultCall call, DeviceState* device);
VkResult faultAfterWait(FaultCall call, DeviceState* device, VkResult result);

// `f`, one of the layer's entry points, as the PFN_vkVoidFunction vkGet*ProcAddr returns
// (the caller casts it back to the entry point's own type).
template <typename Fn>
PFN_vkVoidFunction interceptFn(Fn f) {
    return reinterpret_cast<PFN_vkVoidFunction>(f);
}

// An entry point the layer may put itself in front of.
struct Intercept {
    const char* name;
    PFN_vkVoidFunction function;
    uint32_t groups;                     // active when any of these groups is
    std::optional<FaultCall> faultCall;  // ... or when a fault targets this entry point
};
std::span<const Intercept> commandIntercepts();  // layer_commands.cpp
std::span<const Intercept> queueIntercepts();    // layer_queue.cpp

// Whether `intercept` is active for `config` (with `groups` = groupsOf(config)).
bool active(const Intercept& intercept, const Config& config, uint32_t groups);

// Releases the layer's buffers of one command buffer (stale's copies). Mutex held.
void releaseOwned(DeviceState& device, CommandBufferState& commandBuffer);

}  // namespace repro::simdriver::layer
