// Opt-in additions to the command stream (--timestamps, --breadcrumbs, --labels) as hooks
// the recorders call at fixed points; each hook is a no-op when its option is off, so
// without them the stream is exactly blade's.
#pragma once

#include <volk.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vk/handles.hpp"
#include "vk/memory.hpp"

namespace repro::vk {

class Device;

// One dispatch's GPU time from its timestamp pair (--timestamps).
struct DispatchTime {
    uint32_t number = 0;  // chain number, 1-based
    bool convT = false;
    uint32_t commandBuffer = 0;  // index among the mode's chain command buffers
    bool finished = false;       // its end timestamp was written (available)
    double seconds = 0;          // end - begin, when finished
    double endSinceStart = 0;    // its end timestamp minus its command buffer's first, seconds
    // --trace: its name as --print-stream shows its bind ("conv_t(small[0], weight, big[0],
    // conv_params)") and its two raw timestamps (masked to timestampValidBits), when finished.
    std::string name;
    uint64_t beginTicks = 0, endTicks = 0;
};

// GPU times of one mode, read after the mode (whether or not it completed).
struct GpuTimes {
    std::vector<DispatchTime> dispatches;  // recording order, repeats included
    std::vector<double> submitSeconds;     // per chain command buffer whose queries are all written
    // The last dispatch whose end timestamp was written, and when, relative to its
    // command buffer's start: where a killed or hung submit stopped.
    std::optional<DispatchTime> lastFinished;
    // --trace: each chain command buffer's first timestamp (raw, masked; nullopt where it was
    // not written), and how ticks become nanoseconds.
    std::vector<std::optional<uint64_t>> commandBufferStarts;
    double nsPerTick = 1;        // VkPhysicalDeviceLimits::timestampPeriod
    uint64_t validMask = ~0ull;  // (1 << timestampValidBits) - 1
};

class Instrumentation {
  public:
    struct Request {
        bool timestamps = false;   // vkCmdWriteTimestamp(BOTTOM_OF_PIPE) at each chain command
                                   // buffer's start and before and after every dispatch
        bool breadcrumbs = false;  // vkCmdWriteBufferMarkerAMD(BOTTOM_OF_PIPE) after every dispatch
        bool labels = false;       // vkCmdBegin/EndDebugUtilsLabelEXT around dispatches and barriers
    };

    Instrumentation() = default;
    // Creates what `request` needs for chains of up to `maxSteps` steps with each conv-T
    // recorded `dispatchRepeat` times. Timestamps need a queue family with
    // timestampValidBits > 0, breadcrumbs VK_AMD_buffer_marker, labels VK_EXT_debug_utils:
    // without them the option is turned off and `notes` says why. Throws VulkanError.
    Instrumentation(const Device& device, const Request& request, uint32_t maxSteps, uint32_t dispatchRepeat,
                    std::vector<std::string>& notes);

    bool timestamps() const { return timestamps_; }
    bool breadcrumbs() const { return breadcrumbs_; }
    bool labels() const { return labels_; }
    // The breadcrumb buffer (--breadcrumbs), else nullptr.
    const Buffer* markers() const { return markers_ ? &*markers_ : nullptr; }

    // Before a mode: a new breadcrumb run id and zeroed markers (host), and the query
    // reset, recorded into the mode's clearing command buffer `cmd`.
    void startMode(VkCommandBuffer cmd);
    // A chain command buffer's first command (its start timestamp).
    void commandBufferStarted(VkCommandBuffer cmd);
    // Around dispatch `number` (1-based chain number): label and timestamp before it,
    // timestamp, breadcrumb and label end after it.
    // `name`: the dispatch as --trace names it (DispatchTime::name); `label`: its --labels text
    // (empty: the chain's "dispatch N (step S conv-T)").
    void beforeDispatch(VkCommandBuffer cmd, uint32_t number, std::string name = {}, const std::string& label = {});
    void afterDispatch(VkCommandBuffer cmd, uint32_t number);
    void beginLabel(VkCommandBuffer cmd, const std::string& text) const;
    void endLabel(VkCommandBuffer cmd) const;

    // The mode's GPU times from the queries written so far (availability, never waiting:
    // after a kill or a hang some are never written). Empty without timestamps.
    GpuTimes readTimes(const Device& device) const;
    // After a failed submit: the breadcrumbs' reading for a chain of `dispatches`
    // dispatches, one line; empty without breadcrumbs.
    std::string breadcrumbReport(uint32_t dispatches) const;

  private:
    void writeTimestamp(VkCommandBuffer cmd);

    bool timestamps_ = false;
    bool breadcrumbs_ = false;
    bool labels_ = false;
    Owned<VkQueryPool> queryPool_;
    uint32_t queryCapacity_ = 0;
    double nsPerTick_ = 1;  // VkPhysicalDeviceLimits::timestampPeriod
    uint64_t validMask_ = ~0ull;
    std::optional<Buffer> markers_;  // one uint32 slot per dispatch number (breadcrumbs.hpp)
    uint32_t runId_ = 0;
    // Queries of the mode being run: reset in the mode's clearing submit and filled in
    // order across all its command buffers.
    uint32_t queriesUsed_ = 0;
    std::vector<uint32_t> commandBufferFirstQuery_;
    struct DispatchQueries {
        uint32_t before = 0;  // query index; the end is before + 1
        uint32_t number = 0;
        uint32_t commandBuffer = 0;
        std::string name;
    };
    std::vector<DispatchQueries> dispatchQueries_;
};

// After a failed submit with VK_ERROR_DEVICE_LOST: what VK_EXT_device_fault reports (one
// line per record); empty when the extension is not enabled.
std::string deviceFaultReport(const Device& device);

}  // namespace repro::vk
