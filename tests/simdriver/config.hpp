// The simulated driver's settings: what REPRO_SIMULATE asks for, and its parser.
// tests/README.md ("The simulated driver") documents the grammar; this header is its
// exact statement. Pure: no Vulkan calls, so the unit tests cover every rule.
#pragma once

#include <vulkan/vulkan_core.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace repro::simdriver {

// The entry points a fault (crash, abort, stall, lost) can be put in. vkWaitSemaphores
// stands for vkWaitSemaphores and vkWaitSemaphoresKHR, vkQueueSubmit2 for vkQueueSubmit2
// and vkQueueSubmit2KHR: an alias is the same entry point.
enum class FaultCall {
    EnumeratePhysicalDevices,
    CreateDevice,
    CreateComputePipelines,
    CreateShaderModule,
    AllocateMemory,
    MapMemory,
    QueueSubmit,
    QueueSubmit2,
    WaitSemaphores,
    QueueWaitIdle,
    DeviceWaitIdle,
    GetQueryPoolResults,
    DestroyDevice,
    CmdDispatchIndirect,
    DestroyBuffer,
};
inline constexpr int kFaultCallCount = 15;

// The Vulkan name of `call` ("vkQueueSubmit").
std::string_view callName(FaultCall call);
// A wait counts only calls that returned VK_SUCCESS from the driver below (see faults.hpp).
bool isWait(FaultCall call);

enum class FaultKind { Crash, Abort, Stall, Lost };
std::string_view faultName(FaultKind kind);

// crash:CALL[:k], abort:CALL[:k], stall:CALL[:k], lost:CALL[:k]: the k-th call (1-based).
struct Fault {
    FaultKind kind = FaultKind::Crash;
    FaultCall call = FaultCall::QueueSubmit;
    uint64_t k = 1;
};

// pci=DOMAIN:BUS:DEV.FN, hexadecimal, as lspci prints it ("0000:c4:00.0").
struct PciAddress {
    uint32_t domain = 0;
    uint32_t bus = 0;       // 0..0xff
    uint32_t device = 0;    // 0..0x1f
    uint32_t function = 0;  // 0..7
    bool operator==(const PciAddress&) const = default;
};
// "0000:c4:00.0"
std::string pciText(const PciAddress& pci);

// identity[:key=value,...]: what vkGetPhysicalDeviceProperties(2) report. Unset fields
// keep the driver's own value. `identity` alone is the original report's device
// (defaultIdentity()).
struct Identity {
    std::optional<std::string> name;  // deviceName, < 256 bytes
    std::optional<VkDriverId> driverId;
    std::optional<std::string> driverName;  // < 256 bytes
    std::optional<std::string> driverInfo;  // < 256 bytes
    std::optional<uint32_t> vendorId;
    std::optional<uint32_t> deviceId;
    std::optional<VkPhysicalDeviceType> type;
    std::optional<uint32_t> apiVersion;     // VK_MAKE_API_VERSION(0, major, minor, patch)
    std::optional<uint32_t> driverVersion;  // VK_MAKE_VERSION(major, minor, patch) as Mesa packs it, or raw
    std::optional<VkConformanceVersion> conformance;
    std::optional<PciAddress> pci;
};

// The original report's device (blade issue #356): AMD Radeon 890M Graphics (RADV STRIX1),
// DRIVER_ID_MESA_RADV, driverName "radv", driverInfo "Mesa 26.0.2", vendor 0x1002, device
// 0x150e, integrated GPU, driverVersion 26.0.2 (Mesa's vk_get_driver_version() packs its
// release as VK_MAKE_VERSION, src/vulkan/util/vk_util.c).
Identity defaultIdentity();

// A simulated GPU clock: each dispatch costs msPerDispatch + usPerWorkgroup * (x*y*z) / 1000
// milliseconds.
struct ClockCost {
    double usPerWorkgroup = 0;
    double msPerDispatch = 0;
};

// Soft: the killed command buffer's wait returns without error, and nothing says so later
// (kernels that do not pass the killed job's error on to the context's next submission).
// SoftNextSubmit: the same, but the next vkQueueSubmit on the device returns
// VK_ERROR_DEVICE_LOST and the device is lost from then on (amdgpu fails the context's next
// submission with -ENODATA; RADV's winsys turns that into VK_ERROR_DEVICE_LOST, "guilty of a
// soft recovery"). Hard: the device is lost at the kill (a GPU reset).
enum class Recovery { Soft, Hard, SoftNextSubmit };

// watchdog:timeout=MS[,us-per-wg=U][,ms-per-dispatch=M][,recovery=soft|soft-next-submit|hard][,kmsg=FILE]
struct Watchdog {
    double timeoutMs = 0;  // > 0
    ClockCost cost;
    Recovery recovery = Recovery::Soft;
    std::optional<std::string> kmsgPath;
};

// seed-bug[:dispatches=K] and flaky:P[,dispatches=K][,seed=S]: dispatches past the K-th of
// a command buffer are not forwarded (flaky: in a fraction P of the command buffers).
struct SeedBug {
    uint32_t dispatches = 12;
};
struct Flaky {
    double probability = 0;  // 0..1
    uint32_t dispatches = 12;
    uint64_t seed = 1;
};

// hang[:dispatches=K]: a command buffer that records more than K dispatches (default 2)
// hangs at its (K+1)-th: that dispatch never ends on the simulated clock, so it and every
// later dispatch write nothing. With watchdog the kernel's job timeout then ends the
// command buffer (soft recovery: no error, outputs unwritten); with clock alone the
// submit never completes. Needs watchdog or clock.
struct Hang {
    uint32_t dispatches = 2;
};

// stale:dispatch=D: the dispatch after dispatch D (same command buffer) reads the contents
// its inputs had before dispatch D ran.
struct Stale {
    uint32_t dispatch = 1;  // >= 1
};

// cured-by:OPTION[,variable=VARIABLE]: the simulated wrong result (seed-bug, flaky, stale, hang,
// drop-transfers) goes away when the driver's debug variable VARIABLE (default RADV_DEBUG, as
// the simulated device poses as RADV) names OPTION, as a driver toggle that fixes the bug would.
struct CuredBy {
    std::string option;
    std::string variable = "RADV_DEBUG";
};

// Everything REPRO_SIMULATE asked for. Empty (the variable unset or empty): the layer
// forwards every call unchanged.
struct Config {
    std::optional<Identity> identity;
    std::optional<SeedBug> seedBug;
    std::optional<Flaky> flaky;
    std::optional<ClockCost> clock;
    std::optional<Watchdog> watchdog;
    std::optional<Stale> stale;
    std::optional<Hang> hang;
    std::optional<Fault> processFault;  // crash, abort or stall
    std::optional<Fault> lost;
    bool api10 = false;  // api:1.0
    // drop-transfers: a transfer recorded after other work and a barrier in the same
    // command buffer is not forwarded (recording.hpp TransferDrops).
    bool dropTransfers = false;
    // lost-transitions: an image layout transition recorded after other work in the same
    // command buffer loses the image's contents (recording.hpp ImageTransitions).
    bool lostTransitions = false;
    // no-storage-images: vkGetPhysicalDeviceFormatProperties reports no STORAGE_IMAGE_BIT for
    // any format or tiling (a device that cannot bind the file's image as a storage image).
    bool noStorageImages = false;
    // weak-barriers: a dispatch after another in the same command buffer with no pipeline
    // barrier between them that carries a memory dependency (a memory or buffer barrier with
    // both access masks non-empty, compute or all-commands in both stage masks) reads what its
    // buffers held before the other dispatch (stale's copies); valid barriers stay correct.
    bool weakBarriers = false;
    // weak-barriers:hang: such a dispatch never ends on the simulated clock instead (clock or
    // watchdog needed), whether or not it shares a buffer with the one before.
    bool weakBarriersHang = false;
    // second-family: the device shows one more queue family, COMPUTE|TRANSFER with one queue,
    // whose queue is the driver's queue 0 of family 0 under another name; its queue family
    // ownership transfers reach the driver as plain buffer barriers (tests/README.md).
    bool secondFamily = false;
    // device-fault: the device lists VK_EXT_device_fault with its deviceFault feature; the
    // layer answers vkGetDeviceFaultInfoEXT itself (a description, no address or vendor
    // record) and keeps the extension and its feature struct from the driver below.
    bool deviceFault = false;
    std::optional<CuredBy> curedBy;

    bool empty() const;
    // The clock that costs dispatches (clock or watchdog), if any.
    std::optional<ClockCost> cost() const;
};

// Either a Config or the one line to print on stderr, exactly
// "repro-simulate: REPRO_SIMULATE='<text>': <what is wrong>".
struct ParseResult {
    std::optional<Config> config;
    std::string error;
};

// Parses REPRO_SIMULATE. Grammar (tests/README.md states it with examples):
//   value     = "" | behaviour *( ";" behaviour )
//   behaviour = name [ ":" argument ]
//   argument  = positional *( "," setting ) | setting *( "," setting )
//   setting   = key "=" value
// Nothing is trimmed or case-folded; an unknown behaviour, an unknown or repeated key, a
// malformed value or a conflicting combination is an error.
ParseResult parseSimulate(std::string_view text);

// Whether `list`, a debug variable's value, names `option`, as Mesa's parse_debug_string reads
// it (util/u_debug.c: names separated by commas or spaces, compared whole; the value "all" alone
// names every one).
bool optionListed(std::string_view list, std::string_view option);

// `config` as the driver runs it when the cure's variable holds `value` (nullopt: unset): without
// its wrong-result behaviour when the value names the cure's option, unchanged otherwise.
Config cured(const Config& config, std::optional<std::string_view> value);

// The VkDriverId of a name with or without the "VK_" and "DRIVER_ID_" prefixes
// ("DRIVER_ID_MESA_RADV", "MESA_RADV"); nullopt when the 1.3.239 headers have no such id.
std::optional<VkDriverId> parseDriverId(std::string_view name);

}  // namespace repro::simdriver
