// What the host around the Vulkan driver looks like (OS, kernel, CPU, the GPU kernel
// driver's parameters and firmware, driver-relevant environment variables), read
// without root from procfs/sysfs, plus where a hang leaves evidence and how long the
// kernel's job watchdog lets one submit run. Vulkan-free; tests point it at a fake tree.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "forensics/system_facts.hpp"
#include "forensics/watchdog.hpp"

namespace repro {

// The uname(2) fields the report uses. `error` is non-empty when uname failed; the
// other fields are then empty.
struct UnameFacts {
    std::string sysname, release, version, machine;
    std::string error;
};

// uname(2) of this host; never throws (a failure lands in `error`).
UnameFacts hostUname();

// This process's environment (`environ`) as "NAME=value" strings, in environ's order.
std::vector<std::string> processEnvironment();

// Where captureEnvironment reads from. The defaults are this host; tests replace them.
struct EnvironmentSources {
    std::filesystem::path root = "/";                             // prefixed to /etc, /proc, /sys
    std::vector<std::string> environment = processEnvironment();  // "NAME=value"
    UnameFacts uname = hostUname();
    std::string seamNote;  // said first in the notes when a test seam is in force
};

// This process's sources: the host, or, with the test seam REPRO_TEST_ROOT=DIR, a fake tree
// (DIR/etc, DIR/proc, DIR/sys; the kernel release from DIR/proc/sys/kernel/osrelease when
// it exists), said in the report's notes. For tests of the watchdog facts through the
// simulated driver (tests/README.md).
EnvironmentSources processEnvironmentSources();

// Reads the environment facts. Never throws and never guesses: a value that cannot be
// read is "unreadable (<reason>)", one that does not exist "not present (<path>)";
// paths in values and notes are shown relative to `root` ("/sys/module/amdgpu"), so
// a report from a fake tree reads like one from a real host. What host, kernelDriver, drmCards and notes
// hold: docs/report-schema.md "`environment`" (the OS name falls back to /usr/lib/os-release). And:
//  - variables: RADV_*, ACO_*, RADEON_*, AMD_*, MESA_*, INTEL_*, ANV_*, NVK_*, NAK_*,
//    VK_LOADER_*, REPRO_* and exactly VK_ICD_FILENAMES, VK_DRIVER_FILES, VK_INSTANCE_LAYERS,
//    VK_LAYER_PATH, VK_ADD_LAYER_PATH, sorted by name (only those that are set).
EnvironmentReport captureEnvironment(const EnvironmentSources& sources = {});

// True when an environment variable NAME changes Vulkan driver or loader behaviour
// (the prefixes and exact names listed above).
bool isDriverVariable(std::string_view name);

// Where the kernel and the driver leave evidence of a GPU hang, as one-line notes
// (commands to run, files to attach; commands and paths are in `backticks`, Markdown
// code spans). `driverName` is the Vulkan driverName
// ("radv", "NVK", "llvmpipe", "NVIDIA", "Intel open-source Mesa driver"...) or a
// kernel driver name ("amdgpu", "i915", "xe", "nouveau", "nvidia"), case-insensitive.
// Unknown names get the generic kernel-log note; lavapipe/llvmpipe says there is none.
std::vector<std::string> hangEvidenceNotes(const std::string& driverName);

// The value of the first fact named `key` in `facts` (a report's host or kernelDriver
// facts); nullptr when there is none.
const std::string* factValue(const std::vector<std::pair<std::string, std::string>>& facts, std::string_view key);

// The DRM card the Vulkan device is, matched by PCI bus address when the device has
// one, else by vendor and device ID (only when exactly one card matches); nullptr when
// none matches (lavapipe, a card sysfs did not describe).
const DrmCard* findDrmCard(const EnvironmentReport& env, const DeviceReport& device);

// The kernel's job watchdog for the queue the repro submits to: how long one submit
// may run on the GPU before the kernel kills it (soft recovery, ring reset or GPU reset).
struct JobWatchdog {
    std::string driver;             // kernel driver: "amdgpu", "xe", "i915"
    std::optional<double> seconds;  // nullopt: the watchdog is disabled (no limit)
    // true: the value was read from this system's parameter files; false: a default (for
    // amdgpu the running kernel's, by version; for xe and i915 a common one, not read)
    bool read = false;
    // "read from /sys/module/amdgpu/parameters/lockup_timeout '5000' (one value: ...)",
    // "kernel default for Linux 6.19+: 2000 ms (lockup_timeout empty)" or "common
    // default, not read (...)": where `seconds` comes from.
    std::string source;
};

// The job watchdog for `device`'s kernel driver (the card found by findDrmCard; with no device, or no
// match, the first card whose driver is amdgpu, xe or i915), by the defaults and rules of
// docs/watchdog.md "1. The timeout amdgpu applies" and "7. Other drivers" (`read` false: a default):
//  - amdgpu: amdgpuQueueTimeout (watchdog.hpp) of the queue the device's family runs on (GRAPHICS in
//    queueFlags, or no flags: the gfx ring; COMPUTE without GRAPHICS: a compute ring), from the captured
//    `amdgpu.lockup_timeout` and `kernel.release`; nullopt when the timeout is unknown (queueWatchdog says why).
//  - xe: the matched card's render engine's job_timeout_ms (rcs, else ccs).
//  - i915: enable_hangcheck N disables it; else the render engine's heartbeat_interval_ms.
// nullopt when the driver has no watchdog this function knows (nvidia, nouveau, lavapipe, no card at all).
std::optional<JobWatchdog> jobWatchdogSeconds(const EnvironmentReport& env, const DeviceReport* device = nullptr);

// The queue repro submits to, as the kernel driver sees it.
struct QueueWatchdog {
    std::string driver;    // kernel driver ("amdgpu", "i915", "xe", "nvidia", "nouveau",
                           // "lavapipe" for a CPU device); empty when no card matched
    std::string ring;      // "amdgpu gfx ring (gfx_0.0.0 on RADV)", "i915 render (rcs) engine"
    QueueTimeout timeout;  // Limit, NoLimit ("no known timeout" for nouveau and lavapipe)
                           // or Unknown, always with its source
};

// The full answer behind jobWatchdogSeconds, unknown cases included, for the queue of
// kind `queue` (nullopt: the kind of `device`'s queue flags, gfx without flags). A CPU
// device is lavapipe (no known timeout); nvidia is Unknown (its display watchdog's length
// is not documented); nouveau has no known timeout. Never throws.
QueueWatchdog queueWatchdog(const EnvironmentReport& env, const DeviceReport* device,
                            std::optional<QueueKind> queue = std::nullopt);

}  // namespace repro
