// The simulated GPU clock after submission: when each command buffer runs on its queue,
// when a wait may report completion, what a timeline semaphore reads, and what timestamp
// queries return. Pure (the layer passes the current CLOCK_MONOTONIC time in), so the
// unit tests cover every case.
#pragma once

#include <vulkan/vulkan_core.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "recording.hpp"

namespace repro::simdriver {

inline constexpr Nanoseconds kNever = std::numeric_limits<Nanoseconds>::max();

// A command buffer's place on its queue.
struct JobTiming {
    Nanoseconds start = 0;
    Nanoseconds end = 0;
    uint64_t sequence = 0;  // 1 for the queue's first job
};

// One queue: jobs run one at a time, in submission order.
class QueueClock {
  public:
    // A job of `duration` submitted at `submit`, which may not start before `notBefore`
    // (the completions it waits for): it starts at max(submit, notBefore, the previous
    // job's end).
    JobTiming schedule(Nanoseconds submit, Nanoseconds notBefore, Nanoseconds duration);
    // When the queue has nothing left to run (0: never used).
    Nanoseconds freeAt() const { return freeAt_; }
    uint64_t jobs() const { return jobs_; }

  private:
    Nanoseconds freeAt_ = 0;
    uint64_t jobs_ = 0;
};

enum class WaitEnd { Completed, DeviceLost, TimedOut };

// When a wait started at `now` returns and with what. `target`: the simulated completion
// of what it waits for (<= now: already complete); `lostAt`: when the device is lost
// (kNever: not); `deadline`: now + the wait's timeout (kNever: no timeout). A loss at or
// before the target ends the wait as lost; the deadline ends it first when it comes first.
struct WaitPlan {
    Nanoseconds wakeAt = 0;
    WaitEnd end = WaitEnd::Completed;
};
WaitPlan planWait(Nanoseconds now, Nanoseconds target, Nanoseconds lostAt, Nanoseconds deadline);

// now + timeoutNs, or kNever when that does not fit (UINT64_MAX: wait for ever).
Nanoseconds deadlineAfter(Nanoseconds now, uint64_t timeoutNs);

// The signal operations submitted on one timeline semaphore, in value order.
class SemaphoreTimeline {
  public:
    explicit SemaphoreTimeline(uint64_t initialValue = 0) : last_(initialValue) {}
    // A submit that signals `value` when its command buffers complete at `completion`.
    void signal(uint64_t value, Nanoseconds completion);
    // When the semaphore reaches `value` on the simulated clock: the completion of the
    // first signal of at least `value`; 0 when no submitted signal reaches it (signalled
    // by the host, or not yet submitted: the driver's own wait decides).
    Nanoseconds completionOf(uint64_t value) const;
    // What vkGetSemaphoreCounterValue reports at `now` when the driver says `realValue`:
    // a signal whose simulated completion is still ahead has not happened yet.
    uint64_t observedValue(uint64_t realValue, Nanoseconds now) const;
    // Forgets signals completed before `now`, keeping the latest of them.
    void prune(Nanoseconds now);

  private:
    struct Signal {
        uint64_t value;
        Nanoseconds completion;
        uint64_t previous;  // the semaphore's value before this signal
    };
    uint64_t last_;
    std::vector<Signal> signals_;
};

// A timestamp query's simulated value: untracked (the driver's own result stands), never
// written (after a watchdog kill point), or written at `at`.
struct QuerySlot {
    bool tracked = false;
    bool never = false;
    Nanoseconds at = 0;
};

// vkGetQueryPoolResults' arguments for one pool.
struct QueryRequest {
    uint32_t first = 0;
    uint32_t count = 0;
    VkDeviceSize stride = 0;
    VkQueryResultFlags flags = 0;
    double nsPerTick = 1;     // VkPhysicalDeviceLimits::timestampPeriod
    uint32_t validBits = 64;  // the queue family's timestampValidBits
};

// Simulated ticks of time `at`: at / nsPerTick, keeping the low `validBits` bits.
uint64_t timestampTicks(Nanoseconds at, double nsPerTick, uint32_t validBits);

// The latest time among the tracked, written queries of the request: what a WAIT_BIT
// call sleeps until (0 when there is none).
Nanoseconds queryWaitTarget(const QueryRequest& request, std::span<const QuerySlot> slots);

// Builds the application's results in `out` (request.count results, `request.stride`
// bytes apart). `below` is a copy of `out` into which the driver below wrote its own
// results, returning `belowResult`. Untracked queries take the driver's bytes; tracked
// ones get simulated ticks when written by `now`, else stay unwritten (availability 0
// with WITH_AVAILABILITY_BIT). Returns belowResult when it is an error, VK_NOT_READY when
// any tracked query is unavailable, belowResult otherwise. A query never written returns
// VK_NOT_READY even with WAIT_BIT: a real driver would wait until device loss; the
// simulation answers at once so that no caller hangs.
VkResult composeQueryResults(const QueryRequest& request, std::span<const QuerySlot> slots,
                             std::span<const std::byte> below, VkResult belowResult, Nanoseconds now,
                             std::span<std::byte> out);

}  // namespace repro::simdriver
