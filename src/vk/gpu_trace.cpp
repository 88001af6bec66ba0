// The GPU track of --trace (see gpu_trace.hpp).
#include "vk/gpu_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "forensics/breadcrumbs.hpp"
#include "vk/device.hpp"

namespace repro::vk {
namespace {

bool hasDomains(const Device& device) {
    if (!vkGetPhysicalDeviceCalibrateableTimeDomainsEXT) return false;
    const VkPhysicalDevice physical = device.info().handle;
    uint32_t count = 0;
    if (vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(physical, &count, nullptr) != VK_SUCCESS) return false;
    std::vector<VkTimeDomainEXT> domains(count);
    if (vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(physical, &count, domains.data()) != VK_SUCCESS) return false;
    const auto has = [&](VkTimeDomainEXT d) { return std::find(domains.begin(), domains.end(), d) != domains.end(); };
    return has(VK_TIME_DOMAIN_DEVICE_EXT) && has(VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT);
}

// How the mode's ticks map to host time: the calibrated pair, else per command buffer its
// first timestamp at its submit's host time.
struct Alignment {
    std::optional<trace_events::GpuClockPair> calibrated;
    std::vector<std::optional<trace_events::GpuClockPair>> perCommandBuffer;
    double maxDeviationNs = 0;

    const trace_events::GpuClockPair* forCommandBuffer(uint32_t c) const {
        if (calibrated) return &*calibrated;
        return c < perCommandBuffer.size() && perCommandBuffer[c] ? &*perCommandBuffer[c] : nullptr;
    }
};

Alignment alignmentFor(const Device& device, const ModeRun& run) {
    Alignment a;
    a.calibrated = calibrateGpuClock(device, run.gpu, a.maxDeviationNs);
    if (a.calibrated) return a;
    const auto& starts = run.gpu.commandBufferStarts;
    for (size_t c = 0; c < starts.size(); ++c) {
        if (!starts[c] || c >= run.submitRecords.size()) {
            a.perCommandBuffer.emplace_back();
            continue;
        }
        a.perCommandBuffer.push_back(trace_events::GpuClockPair{.ticks = *starts[c],
                                                                .host = run.submitRecords[c].submittedAt,
                                                                .nsPerTick = run.gpu.nsPerTick,
                                                                .validMask = run.gpu.validMask});
    }
    return a;
}

void sayAlignment(const Alignment& a) {
    trace_events::fact("gpu_clock_alignment",
                       a.calibrated
                           ? fmt::format("calibrated: vkGetCalibratedTimestampsEXT (device and CLOCK_MONOTONIC "
                                         "domains) after each mode, max deviation {:.0f} ns",
                                         a.maxDeviationNs)
                           : "approximate: no VK_EXT_calibrated_timestamps with the device and CLOCK_MONOTONIC "
                             "domains; each command buffer's first timestamp is put at its vkQueueSubmit's "
                             "host time (the GPU started it then or later)");
}

}  // namespace

std::optional<trace_events::GpuClockPair> calibrateGpuClock(const Device& device, const GpuTimes& times,
                                                            double& maxDeviationNs) {
    if (!device.extensions().calibratedTimestamps || !vkGetCalibratedTimestampsEXT || !hasDomains(device))
        return std::nullopt;
    const VkCalibratedTimestampInfoEXT infos[2] = {
        {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, .timeDomain = VK_TIME_DOMAIN_DEVICE_EXT},
        {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, .timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT}};
    uint64_t values[2] = {0, 0};
    uint64_t deviation = 0;
    if (vkGetCalibratedTimestampsEXT(device.get(), 2, infos, values, &deviation) != VK_SUCCESS) return std::nullopt;
    maxDeviationNs = static_cast<double>(deviation);
    return trace_events::GpuClockPair{.ticks = values[0] & times.validMask,
                                      .host = static_cast<trace_events::Nanos>(values[1]),
                                      .nsPerTick = times.nsPerTick,
                                      .validMask = times.validMask};
}

void traceGpuDispatches(const Device& device, const ModeRun& run, const std::string& title, Mode mode) {
    if (!trace_events::attached() || run.gpu.dispatches.empty()) return;
    const Alignment alignment = alignmentFor(device, run);
    sayAlignment(alignment);
    trace_events::Nanos previousEnd = 0;
    for (const DispatchTime& d : run.gpu.dispatches) {
        const trace_events::GpuClockPair* pair = alignment.forCommandBuffer(d.commandBuffer);
        if (!d.finished || !pair) continue;
        // The timestamps are written in order at the bottom of the pipe, so intervals follow
        // one another; a begin that rounds to before the last end starts at that end.
        const trace_events::Nanos begin = std::max(pair->toHost(d.beginTicks), previousEnd);
        const trace_events::Nanos end = std::max(pair->toHost(d.endTicks), begin);
        previousEnd = end;
        trace_events::slice(d.name.empty() ? describeDispatch(d.number) : d.name, "dispatch", trace_events::Track::Gpu,
                            begin, end,
                            {{"dispatch", describeDispatch(d.number)},
                             {"mode", name(mode)},
                             {"run", title},
                             {"command_buffer", d.commandBuffer},
                             {"gpu_ms", d.seconds * 1e3},
                             {"aligned", alignment.calibrated ? "calibrated" : "approximate"}});
    }
}

}  // namespace repro::vk
