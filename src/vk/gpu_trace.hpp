// --trace's GPU track (report/trace_events.hpp): each dispatch's interval from its timestamp
// pair (--timestamps), on the host's clock. Where the device has VK_EXT_calibrated_timestamps
// with the device and CLOCK_MONOTONIC time domains (Vulkan spec, "Calibrated Timestamps"),
// one vkGetCalibratedTimestampsEXT after the mode pairs a device tick count with the host's
// nanoseconds; without it each command buffer's first timestamp is put at its
// vkQueueSubmit's host time, and the trace says that the alignment is approximate.
#pragma once

#include <optional>
#include <string>

#include "cli/options.hpp"
#include "report/trace_events.hpp"
#include "vk/recorder.hpp"

namespace repro::vk {

class Device;

// The device's tick count and the host's monotonic nanoseconds at one moment, read by
// vkGetCalibratedTimestampsEXT; nullopt when the extension is not enabled, a domain is
// missing or the call fails. `maxDeviationNs` gets the call's bound on the pair's error.
std::optional<trace_events::GpuClockPair> calibrateGpuClock(const Device& device, const GpuTimes& times,
                                                            double& maxDeviationNs);

// Sends each finished dispatch of `run` (whose GpuTimes came with --timestamps) as a slice
// on the GPU track, named as --print-stream shows its bind, with `title` (the mode's run)
// and `mode` in its args. Nothing without --trace or without timestamps.
void traceGpuDispatches(const Device& device, const ModeRun& run, const std::string& title, Mode mode);

}  // namespace repro::vk
