// Record-time decisions: which dispatches of a command buffer are forwarded (seed-bug,
// flaky, the watchdog's cut point), their simulated costs, where timestamps fall, and
// flaky's draws (recording.hpp).
#include "recording.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace repro::simdriver {
namespace {

constexpr Nanoseconds kMs = 1'000'000;

RecordRules rules(const std::string& text) {
    const ParseResult r = parseSimulate(text);
    EXPECT_TRUE(r.config) << r.error;
    return RecordRules::from(r.config.value_or(Config{}));
}

// The numbers of the dispatches forwarded out of `count`, each of `workgroups`.
std::vector<uint32_t> forwarded(CommandBufferModel& m, uint32_t count, uint64_t workgroups = 1) {
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < count; ++i) {
        const DispatchDecision d = m.dispatch(workgroups);
        EXPECT_EQ(d.number, i + 1);
        if (d.forward) out.push_back(d.number);
    }
    return out;
}

std::vector<uint32_t> upTo(uint32_t n) {
    std::vector<uint32_t> v;
    for (uint32_t i = 1; i <= n; ++i) v.push_back(i);
    return v;
}

TEST(SplitMix64, PublishedSequence) {
    // splitmix64 from seed 0 (the reference outputs of Vigna's splitmix64.c).
    SplitMix64 g(0);
    EXPECT_EQ(g.next(), 0xe220a8397b1dcdafull);
    EXPECT_EQ(g.next(), 0x6e789e6aa1b965f4ull);
    EXPECT_EQ(g.next(), 0x06c45d188009454full);
}

TEST(SplitMix64, DeterministicAndUniform) {
    SplitMix64 a(1), b(1), c(2);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(a.next(), b.next());
    EXPECT_NE(SplitMix64(1).next(), c.next());
    SplitMix64 g(1);
    int below = 0;
    constexpr int kDraws = 100000;
    for (int i = 0; i < kDraws; ++i) {
        const double u = g.nextUnit();
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        below += u < 0.3;
    }
    // Binomial(100000, 0.3): standard deviation 145; 0.3 +- 0.005 is 3.4 of them.
    EXPECT_NEAR(below / double(kDraws), 0.3, 0.005);
}

TEST(Cost, MillisecondsPlusMicrosecondsPerWorkgroup) {
    EXPECT_EQ(dispatchCost({.usPerWorkgroup = 2.5, .msPerDispatch = 1}, 1000), 3'500'000);
    EXPECT_EQ(dispatchCost({.usPerWorkgroup = 0, .msPerDispatch = 30}, 123456), 30 * kMs);
    EXPECT_EQ(dispatchCost({.usPerWorkgroup = 1, .msPerDispatch = 0}, 0), 0);  // an indirect dispatch
    // The original's conv-T [61, 4, 128] at 1 us per workgroup: 31.232 ms.
    EXPECT_EQ(dispatchCost({.usPerWorkgroup = 1, .msPerDispatch = 0}, 61 * 4 * 128), 31'232'000);
    EXPECT_EQ(dispatchCost({.usPerWorkgroup = 1e9, .msPerDispatch = 1e9}, ~0ull), Nanoseconds{1} << 62);  // capped
}

TEST(SeedBug, DispatchesPastKAreNotForwarded) {
    CommandBufferModel m;
    m.begin(rules("seed-bug"), false);
    EXPECT_EQ(forwarded(m, 14), upTo(12));  // the original's multipass at N = 7: 14 dispatches
    EXPECT_EQ(m.skipped(), 2u);
    EXPECT_EQ(m.dispatches(), 14u);
    EXPECT_FALSE(m.killed());
    m.begin(rules("seed-bug"), false);
    EXPECT_EQ(forwarded(m, 12), upTo(12));  // N = 6: nothing skipped
    m.begin(rules("seed-bug:dispatches=7"), false);
    EXPECT_EQ(forwarded(m, 8), upTo(7));
    m.begin(rules("seed-bug:dispatches=0"), false);
    EXPECT_TRUE(forwarded(m, 3).empty());
    m.begin(rules("seed-bug:dispatches=7"), false);
    EXPECT_EQ(forwarded(m, 1), upTo(1));  // split: one dispatch per command buffer
}

TEST(SeedBug, ReasonAndSkippedDispatchesCostNothing) {
    CommandBufferModel m;
    m.begin(rules("seed-bug:dispatches=2;clock:us-per-wg=0,ms-per-dispatch=10"), false);
    m.dispatch(1);
    m.dispatch(1);
    const DispatchDecision third = m.dispatch(1);
    EXPECT_FALSE(third.forward);
    EXPECT_EQ(third.reason, SkipReason::SeedBug);
    EXPECT_EQ(third.cost, 0);
    EXPECT_EQ(third.start, 20 * kMs);
    EXPECT_EQ(m.duration(), 20 * kMs);
}

TEST(Flaky, OnlyDrawnCommandBuffersLoseTheirTail) {
    CommandBufferModel m;
    m.begin(rules("flaky:0.3"), true);
    EXPECT_TRUE(m.drawn());
    EXPECT_EQ(forwarded(m, 14), upTo(12));
    m.begin(rules("flaky:0.3,dispatches=5"), true);
    EXPECT_EQ(forwarded(m, 14), upTo(5));
    m.begin(rules("flaky:0.3"), false);
    EXPECT_FALSE(m.drawn());
    EXPECT_EQ(forwarded(m, 14), upTo(14));
    m.begin(rules("seed-bug"), true);  // a draw means nothing without flaky
    EXPECT_FALSE(m.drawn());
}

TEST(Clock, DispatchesRunOneAfterAnother) {
    CommandBufferModel m;
    m.begin(rules("clock:us-per-wg=2,ms-per-dispatch=1"), false);
    EXPECT_EQ(m.timestamp().offset, 0);
    const DispatchDecision a = m.dispatch(500);  // 1 + 1 ms
    EXPECT_EQ(a.start, 0);
    EXPECT_EQ(a.cost, 2 * kMs);
    const DispatchDecision b = m.dispatch(0);  // indirect: 1 ms
    EXPECT_EQ(b.start, 2 * kMs);
    EXPECT_EQ(b.cost, 1 * kMs);
    EXPECT_TRUE(m.timestamp().available);
    EXPECT_EQ(m.timestamp().offset, 3 * kMs);
    EXPECT_EQ(m.duration(), 3 * kMs);
    m.begin(rules("clock:us-per-wg=2"), false);
    EXPECT_EQ(m.duration(), 0);  // an empty command buffer (the clearing fills) costs nothing
}

TEST(Watchdog, TheCrossingDispatchAndEveryLaterOneAreKilled) {
    CommandBufferModel m;
    m.begin(rules("watchdog:timeout=200,ms-per-dispatch=30"), false);
    EXPECT_EQ(forwarded(m, 8), upTo(6));  // 6 x 30 = 180 ms; the 7th would end at 210
    EXPECT_TRUE(m.killed());
    EXPECT_EQ(m.skipped(), 2u);
    EXPECT_EQ(m.duration(), 200 * kMs);  // completes at exactly start + timeout
    EXPECT_FALSE(m.timestamp().available);
}

TEST(Watchdog, EndingExactlyAtTheTimeoutIsNotAKill) {
    CommandBufferModel m;
    m.begin(rules("watchdog:timeout=180,ms-per-dispatch=30"), false);
    EXPECT_EQ(forwarded(m, 6), upTo(6));
    EXPECT_FALSE(m.killed());
    EXPECT_EQ(m.duration(), 180 * kMs);
    const DispatchDecision seventh = m.dispatch(1);
    EXPECT_FALSE(seventh.forward);
    EXPECT_EQ(seventh.reason, SkipReason::Watchdog);
    EXPECT_EQ(m.duration(), 180 * kMs);
}

TEST(Watchdog, ASingleDispatchOverTheTimeoutIsKilledAtOnce) {
    CommandBufferModel m;
    m.begin(rules("watchdog:timeout=2000,us-per-wg=100"), false);
    EXPECT_TRUE(m.timestamp().available);            // before the kill point
    EXPECT_FALSE(m.dispatch(61 * 4 * 128).forward);  // 3123 ms
    EXPECT_TRUE(m.killed());
    EXPECT_EQ(m.duration(), 2000 * kMs);
    m.begin(rules("watchdog:timeout=2000,us-per-wg=100"), false);  // begin starts over
    EXPECT_FALSE(m.killed());
    EXPECT_TRUE(m.dispatch(14400).forward);  // a slice: 1440 ms
}

TEST(NoRules, EverythingForwardedAndFree) {
    CommandBufferModel m;
    m.begin(RecordRules{}, true);
    EXPECT_EQ(forwarded(m, 100), upTo(100));
    EXPECT_EQ(m.duration(), 0);
    EXPECT_FALSE(RecordRules{}.any());
    EXPECT_TRUE(rules("seed-bug").any());
    EXPECT_FALSE(rules("identity;lost:vkQueueSubmit").any());
}

TEST(Hang, TheDispatchAfterTheKthIsKilledAtTheTimeout) {
    CommandBufferModel m;
    m.begin(rules("watchdog:timeout=500,ms-per-dispatch=1;hang:dispatches=2"), false);
    EXPECT_EQ(forwarded(m, 6), upTo(2));  // the 3rd never ends: the watchdog kills it and the rest
    EXPECT_TRUE(m.killed());
    EXPECT_EQ(m.skipped(), 4u);
    EXPECT_EQ(m.duration(), 500 * kMs);
    m.begin(rules("watchdog:timeout=500,ms-per-dispatch=1;hang:dispatches=2"), false);
    EXPECT_EQ(forwarded(m, 2), upTo(2));  // a submit boundary every 2 dispatches: no hang
    EXPECT_FALSE(m.killed());
    EXPECT_EQ(m.duration(), 2 * kMs);
}

TEST(Hang, WithoutAWatchdogTheCommandBufferNeverCompletes) {
    CommandBufferModel m;
    m.begin(rules("clock:us-per-wg=1;hang:dispatches=1"), false);
    forwarded(m, 4);
    EXPECT_FALSE(m.killed());
    EXPECT_EQ(m.duration(), Nanoseconds{1} << 62);  // saturated, not overflowed
}

// weak-barriers:hang: the dispatch the layer says hangs costs for ever; the ones before it keep
// their cost, and so does a command buffer in which none hangs.
TEST(Hang, ADispatchSaidToHangNeverEnds) {
    CommandBufferModel m;
    m.begin(rules("clock:us-per-wg=1;weak-barriers:hang"), false);
    EXPECT_TRUE(m.dispatch(1000).forward);
    EXPECT_EQ(m.duration(), kMs);
    EXPECT_EQ(m.dispatch(1000, true).cost, Nanoseconds{1} << 62);
    EXPECT_EQ(m.duration(), Nanoseconds{1} << 62);
    m.begin(rules("clock:us-per-wg=1;weak-barriers:hang"), false);
    m.dispatch(1000);
    m.dispatch(1000);
    EXPECT_EQ(m.duration(), 2 * kMs);
}

// drop-transfers: the upload and readback shapes (transfers, no barrier between) and
// split's shape (one piece of work between barriers) keep every transfer; a transfer after
// work and a barrier is dropped, and so is every later one.
TEST(TransferDrops, ATransferAfterWorkAndABarrierIsDropped) {
    TransferDrops t;
    t.begin();
    EXPECT_TRUE(t.transfer());  // upload: copies back to back, then G
    EXPECT_TRUE(t.transfer());
    EXPECT_TRUE(t.transfer());
    t.barrier();
    t.begin();
    t.barrier();  // readback: G, copies, host barrier
    EXPECT_TRUE(t.transfer());
    EXPECT_TRUE(t.transfer());
    t.barrier();
    t.begin();
    t.barrier();  // split: G, one step, G
    EXPECT_TRUE(t.transfer());
    t.barrier();
    t.begin();
    t.barrier();  // multipass: G, dispatch, G, fill, barrier, copy
    t.dispatch();
    t.barrier();
    EXPECT_FALSE(t.transfer());
    t.barrier();
    EXPECT_FALSE(t.transfer());
    t.begin();  // single without a barrier: a fill right after a dispatch stays, a copy after a barrier goes
    t.dispatch();
    EXPECT_TRUE(t.transfer());
    t.barrier();
    EXPECT_FALSE(t.transfer());
    t.begin();  // a transfer, a barrier, a transfer (transfer -> transfer)
    EXPECT_TRUE(t.transfer());
    t.barrier();
    EXPECT_FALSE(t.transfer());
}

}  // namespace
}  // namespace repro::simdriver
