// Which call a fault happens in (faults.hpp): every call counts for most entry points,
// only successful ones for waits.
#include "faults.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace repro::simdriver {
namespace {

FaultCounter counter(const std::string& text) {
    const ParseResult r = parseSimulate(text);
    EXPECT_TRUE(r.config) << r.error;
    const Config c = r.config.value_or(Config{});
    return FaultCounter(c.processFault, c.lost);
}

TEST(FaultCounter, TheKthCallAndNoOther) {
    FaultCounter f = counter("crash:vkQueueSubmit:3");
    EXPECT_FALSE(f.onCall(FaultCall::QueueSubmit, true));
    EXPECT_FALSE(f.onCall(FaultCall::CreateDevice, true));  // other entry points count apart
    EXPECT_FALSE(f.onCall(FaultCall::QueueSubmit, true));
    EXPECT_EQ(f.onCall(FaultCall::QueueSubmit, true), FaultKind::Crash);
    EXPECT_FALSE(f.onCall(FaultCall::QueueSubmit, true));
    EXPECT_EQ(f.calls(FaultCall::QueueSubmit), 4u);
    EXPECT_EQ(f.calls(FaultCall::CreateDevice), 1u);
}

TEST(FaultCounter, DefaultKIsTheFirstCall) {
    FaultCounter f = counter("abort:vkCreateDevice");
    EXPECT_EQ(f.onCall(FaultCall::CreateDevice, true), FaultKind::Abort);
}

TEST(FaultCounter, WaitsCountOnlySuccessfulCalls) {
    // lost:vkWaitSemaphores:2 with the driver answering TIMEOUT, SUCCESS, TIMEOUT x3, SUCCESS.
    FaultCounter f = counter("lost:vkWaitSemaphores:2");
    EXPECT_FALSE(f.onCall(FaultCall::WaitSemaphores, false));
    EXPECT_FALSE(f.onCall(FaultCall::WaitSemaphores, true));
    for (int i = 0; i < 3; ++i) EXPECT_FALSE(f.onCall(FaultCall::WaitSemaphores, false));
    EXPECT_EQ(f.onCall(FaultCall::WaitSemaphores, true), FaultKind::Lost);
    EXPECT_EQ(f.calls(FaultCall::WaitSemaphores), 2u);
}

TEST(FaultCounter, LostAndAProcessFaultOnOneEntryPoint) {
    FaultCounter f = counter("lost:vkQueueSubmit:2;stall:vkQueueSubmit:4");
    EXPECT_FALSE(f.onCall(FaultCall::QueueSubmit, true));
    EXPECT_EQ(f.onCall(FaultCall::QueueSubmit, true), FaultKind::Lost);
    EXPECT_FALSE(f.onCall(FaultCall::QueueSubmit, true));
    EXPECT_EQ(f.onCall(FaultCall::QueueSubmit, true), FaultKind::Stall);
}

TEST(FaultCounter, NothingWithoutAFault) {
    FaultCounter f(std::nullopt, std::nullopt);
    for (int i = 0; i < kFaultCallCount; ++i) {
        EXPECT_FALSE(f.onCall(static_cast<FaultCall>(i), true));
        EXPECT_FALSE(f.targets(static_cast<FaultCall>(i)));
    }
    FaultCounter g = counter("lost:vkQueueWaitIdle;crash:vkMapMemory");
    EXPECT_TRUE(g.targets(FaultCall::QueueWaitIdle));
    EXPECT_TRUE(g.targets(FaultCall::MapMemory));
    EXPECT_FALSE(g.targets(FaultCall::QueueSubmit));
}

// How a test picks k for "split completes, multipass is lost" with repro --mode all -n N:
// per mode one clearing submit (waited), then the mode's own submits (split 2N, each
// waited; multipass 1). Split uses waits 1 .. 2N+1; multipass's clear is 2N+2 and its
// own submit 2N+3. repro's slices that time out do not move it.
TEST(FaultCounter, LostKForSplitCompletesAndMultipassIsLost) {
    constexpr uint64_t kChain = 3;
    constexpr uint64_t k = 2 * kChain + 3;
    FaultCounter f = counter("lost:vkWaitSemaphores:" + std::to_string(k));
    std::vector<std::string> plan = {"split clear"};
    for (uint64_t i = 0; i < 2 * kChain; ++i) plan.push_back("split submit");
    plan.insert(plan.end(), {"multipass clear", "multipass submit", "single clear", "single submit"});
    std::string lostAt;
    for (const std::string& wait : plan) {
        EXPECT_FALSE(f.onCall(FaultCall::WaitSemaphores, false));  // a 100 ms slice that timed out
        if (f.onCall(FaultCall::WaitSemaphores, true)) {
            lostAt = wait;
            break;
        }
    }
    EXPECT_EQ(lostAt, "multipass submit");
}

}  // namespace
}  // namespace repro::simdriver
