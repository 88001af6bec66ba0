// The kernel log lines a simulated watchdog kill leaves (watchdog:...,kmsg=FILE), in the
// /dev/kmsg record format and amdgpu's wording. Pure.
//
// Record format (Linux Documentation/ABI/testing/dev-kmsg): "PRI,SEQ,USEC,FLAGS;MESSAGE",
// PRI the syslog facility * 8 + level (kernel messages: facility 0), SEQ the record's
// sequence number, USEC the time in microseconds, FLAGS '-' for a whole line; bytes
// outside printable ASCII and the backslash are written as \xNN. The dictionary lines
// (" SUBSYSTEM=pci", " DEVICE=+pci:...") that follow a dev_printk record are left out.
//
// Wording, from drivers/gpu/drm/amd/amdgpu at Linux 6.12 and later (dev_err/dev_info since
// "drm/amdgpu/job: Replace DRM_INFO/ERROR logging", amd-gfx 2024-07-08; amdgpu.h defines
// dev_fmt as "amdgpu: ", so every line reads "amdgpu <pci address>: amdgpu: ..."):
//   - amdgpu_job_timedout() (amdgpu_job.c) tries amdgpu_ring_soft_recovery() first; when
//     that works it logs only "ring %s timeout, but soft recovered" (dev_err) and returns.
//   - Otherwise: "ring %s timeout, signaled seq=%u, emitted seq=%u" (dev_err), then
//     "Process information: process %s pid %d thread %s pid %d" (dev_err), then, through
//     amdgpu_device_gpu_recover() (amdgpu_device.c), "GPU reset begin!" and
//     "GPU reset(%d) succeeded!" (dev_info, %d the device's reset counter). Kernels with
//     a per-ring reset try that first ("Starting %s ring reset", "Ring %s reset
//     succeeded"); the simulation models the full reset, and kernels from 2025 on print
//     "GPU reset begin!. Source: %d" (not simulated).
// Kernels before the 2024 change printed the same texts through DRM_ERROR, as
// "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, ..." without the
// device prefix.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"

namespace repro::simdriver {

// amdgpu's ring for the queue family: family 0 (RADV's graphics queue, the one blade
// uses) is "gfx_0.0.0", any other "comp_1.0.0" (RADV's compute family; amdgpu names its
// rings gfx_<me>.<pipe>.<queue> and comp_<me>.<pipe>.<queue>, gfx_v11_0.c).
std::string ringName(uint32_t queueFamily);

// What one kill reports.
struct KillReport {
    std::string pciAddress = "0000:c4:00.0";
    std::string ring = "gfx_0.0.0";
    uint64_t signaledSeq = 0;  // the last job of the ring that completed
    uint64_t emittedSeq = 0;   // the killed job
    Recovery recovery = Recovery::Soft;
    uint32_t resetCount = 1;  // the device's GPU reset counter after this reset
    std::string processName;  // /proc/self/comm
    int pid = 0;
    std::string threadName;
    int tid = 0;
};

// One log record's level (KERN_ERR 3, KERN_INFO 6) and text.
struct KmsgLine {
    int level = 3;
    std::string message;
};

// The lines amdgpu logs for `kill`, in order: soft recovery one line, a reset four.
std::vector<KmsgLine> kmsgLines(const KillReport& kill);

// One record: "PRI,SEQ,USEC,-;MESSAGE" with the message escaped as /dev/kmsg does, no
// trailing newline.
std::string kmsgRecord(int priority, uint64_t sequence, int64_t usec, std::string_view message);

}  // namespace repro::simdriver
