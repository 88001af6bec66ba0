// The simulated clock after submission: queue serialisation, waits (many short ones
// included), timeline values and timestamp query results (clock.hpp).
#include "clock.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace repro::simdriver {
namespace {

constexpr Nanoseconds kMs = 1'000'000;

TEST(QueueClock, JobsRunInSubmissionOrder) {
    QueueClock q;
    const JobTiming a = q.schedule(100 * kMs, 0, 50 * kMs);
    EXPECT_EQ(a.start, 100 * kMs);
    EXPECT_EQ(a.end, 150 * kMs);
    EXPECT_EQ(a.sequence, 1u);
    const JobTiming b = q.schedule(120 * kMs, 0, 30 * kMs);  // the queue is busy until 150
    EXPECT_EQ(b.start, 150 * kMs);
    EXPECT_EQ(b.end, 180 * kMs);
    EXPECT_EQ(b.sequence, 2u);
    const JobTiming c = q.schedule(500 * kMs, 0, 0);  // an idle queue starts at the submit
    EXPECT_EQ(c.start, 500 * kMs);
    EXPECT_EQ(c.end, 500 * kMs);
    const JobTiming d = q.schedule(500 * kMs, 700 * kMs, 10 * kMs);  // waits for a semaphore
    EXPECT_EQ(d.start, 700 * kMs);
    EXPECT_EQ(q.freeAt(), 710 * kMs);
    EXPECT_EQ(q.jobs(), 4u);
    EXPECT_EQ(q.schedule(0, 0, kNever).end, kNever);  // no overflow
}

TEST(PlanWait, CompletionTimeoutAndLoss) {
    const Nanoseconds now = 1000 * kMs;
    EXPECT_EQ(planWait(now, 0, kNever, kNever).end, WaitEnd::Completed);  // untracked: the driver decided
    EXPECT_EQ(planWait(now, now, kNever, now).wakeAt, now);
    const WaitPlan sleep = planWait(now, now + 40 * kMs, kNever, now + 100 * kMs);
    EXPECT_EQ(sleep.end, WaitEnd::Completed);
    EXPECT_EQ(sleep.wakeAt, now + 40 * kMs);
    const WaitPlan timeout = planWait(now, now + 400 * kMs, kNever, now + 100 * kMs);
    EXPECT_EQ(timeout.end, WaitEnd::TimedOut);
    EXPECT_EQ(timeout.wakeAt, now + 100 * kMs);
    const WaitPlan polled = planWait(now, now + 1, kNever, now);  // timeout 0
    EXPECT_EQ(polled.end, WaitEnd::TimedOut);
    EXPECT_EQ(polled.wakeAt, now);
    const WaitPlan lost = planWait(now, now + 200 * kMs, now + 200 * kMs, kNever);  // the killed job itself
    EXPECT_EQ(lost.end, WaitEnd::DeviceLost);
    EXPECT_EQ(lost.wakeAt, now + 200 * kMs);
    EXPECT_EQ(planWait(now, now + 300 * kMs, now + 200 * kMs, now + 100 * kMs).end, WaitEnd::TimedOut);
    EXPECT_EQ(planWait(now, now + 100 * kMs, now + 200 * kMs, kNever).end,
              WaitEnd::Completed);                                          // done before the loss
    EXPECT_EQ(planWait(now, 0, now - 1, kNever).end, WaitEnd::DeviceLost);  // lost already
}

TEST(PlanWait, ManyShortWaitsReachTheCompletion) {
    // repro waits in slices of 100 ms (src/vk/encoder.cpp); a job that completes 350 ms
    // after the first slice began times out three slices and completes in the fourth.
    Nanoseconds now = 0;
    const Nanoseconds target = 350 * kMs;
    std::vector<WaitEnd> ends;
    for (int slice = 0; slice < 10; ++slice) {
        const WaitPlan p = planWait(now, target, kNever, deadlineAfter(now, 100 * kMs));
        ends.push_back(p.end);
        now = p.wakeAt;
        if (p.end != WaitEnd::TimedOut) break;
    }
    EXPECT_EQ(ends,
              (std::vector<WaitEnd>{WaitEnd::TimedOut, WaitEnd::TimedOut, WaitEnd::TimedOut, WaitEnd::Completed}));
    EXPECT_EQ(now, target);
}

TEST(DeadlineAfter, SaturatesAtNever) {
    EXPECT_EQ(deadlineAfter(5, 10), 15);
    EXPECT_EQ(deadlineAfter(5, UINT64_MAX), kNever);
    EXPECT_EQ(deadlineAfter(kNever - 1, 2), kNever);
}

TEST(SemaphoreTimeline, CompletionAndObservedValue) {
    SemaphoreTimeline t(0);
    t.signal(1, 100);
    t.signal(2, 200);
    t.signal(5, 300);
    EXPECT_EQ(t.completionOf(1), 100);
    EXPECT_EQ(t.completionOf(2), 200);
    EXPECT_EQ(t.completionOf(3), 300);  // reached by the signal of 5
    EXPECT_EQ(t.completionOf(6), 0);    // no submitted signal reaches it
    EXPECT_EQ(t.observedValue(5, 50), 0u);
    EXPECT_EQ(t.observedValue(5, 150), 1u);
    EXPECT_EQ(t.observedValue(5, 250), 2u);
    EXPECT_EQ(t.observedValue(5, 300), 5u);
    EXPECT_EQ(t.observedValue(1, 50), 0u);   // the driver is behind: never above what it says
    EXPECT_EQ(t.observedValue(7, 400), 7u);  // a host signal the layer did not see
    t.prune(250);
    EXPECT_EQ(t.completionOf(2), 200);
    EXPECT_EQ(t.observedValue(5, 250), 2u);
    SemaphoreTimeline initial(10);
    initial.signal(11, 100);
    EXPECT_EQ(initial.observedValue(11, 50), 10u);
}

TEST(Timestamps, TicksFromNanoseconds) {
    EXPECT_EQ(timestampTicks(123456789, 1.0, 64), 123456789u);
    EXPECT_EQ(timestampTicks(1000, 10.0, 64), 100u);
    EXPECT_EQ(timestampTicks(1000, 38.4615, 64), 26u);
    EXPECT_EQ(timestampTicks((Nanoseconds{1} << 40) + 7, 1.0, 36), 7u);
}

// Results laid out as vkGetQueryPoolResults writes them.
struct Results {
    std::vector<std::byte> bytes;
    explicit Results(size_t n, uint8_t fill = 0xab) : bytes(n, std::byte{fill}) {}
    template <typename T>
    T at(size_t offset) const {
        T v;
        std::memcpy(&v, bytes.data() + offset, sizeof v);
        return v;
    }
    template <typename T>
    void put(size_t offset, T v) {
        std::memcpy(bytes.data() + offset, &v, sizeof v);
    }
};

TEST(QueryResults, SixtyFourBitWithAvailability) {
    const std::vector<QuerySlot> slots = {{.tracked = true, .at = 5000},
                                          {.tracked = true, .never = true},
                                          {},  // untracked: the driver's result
                                          {.tracked = true, .at = 9000}};
    const QueryRequest request{
        .first = 0, .count = 4, .stride = 16, .flags = VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT};
    Results below(64), out(64, 0xcd);
    below.put<uint64_t>(32, 42);
    below.put<uint64_t>(40, 1);
    const VkResult r = composeQueryResults(request, slots, below.bytes, VK_SUCCESS, 6000, out.bytes);
    EXPECT_EQ(r, VK_NOT_READY);
    EXPECT_EQ(out.at<uint64_t>(0), 5000u);
    EXPECT_EQ(out.at<uint64_t>(8), 1u);
    EXPECT_EQ(out.at<uint64_t>(16), 0xcdcdcdcdcdcdcdcdull);  // never written: the value stays as it was
    EXPECT_EQ(out.at<uint64_t>(24), 0u);                     // ... and is unavailable
    EXPECT_EQ(out.at<uint64_t>(32), 42u);
    EXPECT_EQ(out.at<uint64_t>(40), 1u);
    EXPECT_EQ(out.at<uint64_t>(48), 0xcdcdcdcdcdcdcdcdull);  // not yet written at 6000
    EXPECT_EQ(out.at<uint64_t>(56), 0u);
    Results later(64, 0xcd);
    const std::vector<QuerySlot> done = {slots[0], slots[2], slots[3]};
    EXPECT_EQ(composeQueryResults({.first = 0, .count = 3, .stride = 16, .flags = request.flags}, done, below.bytes,
                                  VK_SUCCESS, 9000, later.bytes),
              VK_SUCCESS);
}

TEST(QueryResults, ThirtyTwoBitKeepsTheLowBitsAndHonoursFirstAndStride) {
    const std::vector<QuerySlot> slots = {{}, {}, {.tracked = true, .at = (Nanoseconds{1} << 33) + 77}};
    Results below(8), out(8);
    EXPECT_EQ(composeQueryResults({.first = 2, .count = 1, .stride = 8, .flags = 0, .validBits = 64}, slots,
                                  below.bytes, VK_SUCCESS, Nanoseconds{1} << 40, out.bytes),
              VK_SUCCESS);
    EXPECT_EQ(out.at<uint32_t>(0), 77u);
    EXPECT_EQ(out.at<uint32_t>(4), 0xababababu);  // beyond the one 4-byte result: untouched
}

TEST(QueryResults, TicksUseThePeriodAndValidBits) {
    const std::vector<QuerySlot> slots = {{.tracked = true, .at = 1000}};
    Results below(8), out(8);
    composeQueryResults({.count = 1, .stride = 8, .flags = VK_QUERY_RESULT_64_BIT, .nsPerTick = 10, .validBits = 64},
                        slots, below.bytes, VK_SUCCESS, 2000, out.bytes);
    EXPECT_EQ(out.at<uint64_t>(0), 100u);
}

TEST(QueryResults, ADriverErrorWinsAndUntrackedNotReadyStays) {
    const std::vector<QuerySlot> slots = {{.tracked = true, .at = 1}};
    Results below(8), out(8);
    EXPECT_EQ(composeQueryResults({.count = 1, .stride = 8, .flags = VK_QUERY_RESULT_64_BIT}, slots, below.bytes,
                                  VK_ERROR_DEVICE_LOST, 5, out.bytes),
              VK_ERROR_DEVICE_LOST);
    EXPECT_EQ(composeQueryResults({.count = 1, .stride = 8, .flags = VK_QUERY_RESULT_64_BIT}, {}, below.bytes,
                                  VK_NOT_READY, 5, out.bytes),
              VK_NOT_READY);
}

TEST(QueryResults, NeverWrittenIsNotReadyEvenWithWait) {
    const std::vector<QuerySlot> slots = {{.tracked = true, .at = 10}, {.tracked = true, .never = true}};
    const QueryRequest request{.count = 2, .stride = 8, .flags = VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT};
    EXPECT_EQ(queryWaitTarget(request, slots), 10);  // what a WAIT_BIT call sleeps until
    Results below(16), out(16);
    EXPECT_EQ(composeQueryResults(request, slots, below.bytes, VK_SUCCESS, 10, out.bytes), VK_NOT_READY);
    EXPECT_EQ(out.at<uint64_t>(0), 10u);
    EXPECT_EQ(queryWaitTarget({.first = 5, .count = 2}, slots), 0);
}

TEST(QueryResults, ABufferTooSmallStopsWriting) {
    const std::vector<QuerySlot> slots = {{.tracked = true, .at = 1}, {.tracked = true, .at = 2}};
    Results below(8), out(8);
    EXPECT_EQ(composeQueryResults({.count = 2, .stride = 8, .flags = VK_QUERY_RESULT_64_BIT}, slots, below.bytes,
                                  VK_SUCCESS, 5, out.bytes),
              VK_SUCCESS);
    EXPECT_EQ(out.at<uint64_t>(0), 1u);
}

}  // namespace
}  // namespace repro::simdriver
