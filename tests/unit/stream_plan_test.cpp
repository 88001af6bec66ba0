// The experiment recorder's plan (src/vk/stream_plan.hpp): with the default options it is
// blade's own stream (docs/blade-stream.md "Per mode", the literal recorders of
// src/vk/blade_modes.cpp), and each experiment flag changes only what its comment says.
// The plans are compared as the lines describe() prints, so a failure shows the stream.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "vk/stream_plan.hpp"

namespace repro {
namespace {

std::vector<std::string> lines(const std::vector<PlanStep>& plan) {
    std::vector<std::string> out;
    for (const PlanStep& s : plan) out.push_back(describe(s));
    return out;
}

std::vector<std::string> plan(Mode mode, uint32_t steps, const RecordingOptions& options = {}) {
    return lines(planExperiment(mode, steps, options, computeSizes(presetShape("tiny"))));
}

std::string dispatch(uint32_t number) {
    return "dispatch " + std::to_string(number) + " (step " + std::to_string((number + 1) / 2) +
           (number % 2 ? " conv-T)" : " slice)");
}

TEST(StreamPlan, OnlyTheDefaultOptionsAreBladesStream) {
    EXPECT_TRUE(isBladeStream({}));
    EXPECT_FALSE(isBladeStream({.barrier = BarrierKind::Sync2}));
    EXPECT_FALSE(isBladeStream({.barrier = BarrierKind::None}));
    EXPECT_FALSE(isBladeStream({.submit = {.every = 2}}));
    EXPECT_FALSE(isBladeStream({.submit = {.splitMiB = 1.0}}));
    EXPECT_FALSE(isBladeStream({.submit = {.splitMs = 5.0}}));
    EXPECT_FALSE(isBladeStream({.dispatchRepeat = 2}));
    EXPECT_FALSE(isBladeStream({.dropDispatch = 3}));
    // --no-host-wait alone cuts nothing: one submit, which the host waits for.
    EXPECT_TRUE(isBladeStream({.submit = {.hostWait = false}}));
}

// blade's multipass: begin; for each step: G, conv-T, G, slice; G (finish), end; one
// submit, waited.
TEST(StreamPlan, DefaultMultipassIsBladesMultipass) {
    std::vector<std::string> expected = {"begin"};
    for (uint32_t d = 1; d <= 6; ++d) {
        expected.push_back("barrier G");
        expected.push_back(dispatch(d));
    }
    expected.push_back("finish + host-read barrier");
    expected.push_back("submit (all 3 steps), host wait");
    EXPECT_EQ(plan(Mode::Multipass, 3), expected);
}

// blade's single: begin, G; for each step: (after the first: C), conv-T, C, slice; G
// (finish), end; one submit, waited.
TEST(StreamPlan, DefaultSingleIsBladesSingle) {
    std::vector<std::string> expected = {"begin", "barrier G"};
    for (uint32_t d = 1; d <= 6; ++d) {
        if (d > 1) expected.push_back("barrier C");
        expected.push_back(dispatch(d));
    }
    expected.push_back("finish + host-read barrier");
    expected.push_back("submit (all 3 steps), host wait");
    EXPECT_EQ(plan(Mode::Single, 3), expected);
}

TEST(StreamPlan, TheOneSubmitCountsEveryConvTForTheWaitTimeout) {
    for (const Mode mode : {Mode::Multipass, Mode::Single}) {
        const std::vector<PlanStep> p = planExperiment(mode, 7, {}, computeSizes(presetShape("tiny")));
        ASSERT_EQ(p.back().kind, PlanStep::Kind::Submit) << name(mode);
        EXPECT_EQ(p.back().convTsSinceWait, 7u) << name(mode);
        EXPECT_EQ(p.back().what, "all 7 steps") << name(mode);
    }
}

TEST(StreamPlan, SplitHasNoPlan) { EXPECT_THROW(plan(Mode::Split, 2), std::invalid_argument); }

TEST(StreamPlan, AnotherBarrierStartsWithGAndSitsBetweenEveryTwoDispatchesInBothModes) {
    const std::vector<std::pair<BarrierKind, std::string>> kinds = {
        {BarrierKind::Sync2, "barrier sync2"},
        {BarrierKind::Full, "barrier full"},
        {BarrierKind::ExecutionOnly, "barrier execution-only"}};
    for (const auto& [kind, text] : kinds) {
        std::vector<std::string> expected = {"begin", "barrier G"};
        for (uint32_t d = 1; d <= 4; ++d) {
            if (d > 1) expected.push_back(text);
            expected.push_back(dispatch(d));
        }
        expected.push_back("finish + host-read barrier");
        expected.push_back("submit (all 2 steps), host wait");
        EXPECT_EQ(plan(Mode::Multipass, 2, {.barrier = kind}), expected) << text;
        EXPECT_EQ(plan(Mode::Single, 2, {.barrier = kind}), expected) << text;
    }
}

TEST(StreamPlan, TheBufferBarrierCoversTheDispatchBefore) {
    EXPECT_EQ(plan(Mode::Single, 1, {.barrier = BarrierKind::Buffer}),
              (std::vector<std::string>{"begin", "barrier G", dispatch(1), "barrier buffer (output of dispatch 1)",
                                        dispatch(2), "finish + host-read barrier", "submit (all 1 steps), host wait"}));
}

TEST(StreamPlan, BarrierNonePutsNothingBetweenDispatches) {
    EXPECT_EQ(plan(Mode::Multipass, 2, {.barrier = BarrierKind::None}),
              (std::vector<std::string>{"begin", "barrier G", dispatch(1), dispatch(2), dispatch(3), dispatch(4),
                                        "finish + host-read barrier", "submit (all 2 steps), host wait"}));
}

TEST(StreamPlan, ARepeatedConvTHasTheModesBarrierBetweenItsRepeatsAndCountsEachRepeat) {
    const std::vector<PlanStep> p =
        planExperiment(Mode::Single, 1, {.dispatchRepeat = 3}, computeSizes(presetShape("tiny")));
    EXPECT_EQ(lines(p), (std::vector<std::string>{"begin", "barrier G", dispatch(1), "barrier C", dispatch(1),
                                                  "barrier C", dispatch(1), "barrier C", dispatch(2),
                                                  "finish + host-read barrier", "submit (all 1 steps), host wait"}));
    EXPECT_EQ(p.back().convTsSinceWait, 3u);
    // multipass: blade's G before each dispatch, repeats included (each its own pass).
    EXPECT_EQ(plan(Mode::Multipass, 1, {.dispatchRepeat = 2}),
              (std::vector<std::string>{"begin", "barrier G", dispatch(1), "barrier G", dispatch(1), "barrier G",
                                        dispatch(2), "finish + host-read barrier", "submit (all 1 steps), host wait"}));
}

TEST(StreamPlan, TheDroppedDispatchIsLeftOutAndNothingElse) {
    EXPECT_EQ(plan(Mode::Multipass, 2, {.dropDispatch = 3}),
              (std::vector<std::string>{"begin", "barrier G", dispatch(1), "barrier G", dispatch(2), "barrier G",
                                        dispatch(4), "finish + host-read barrier", "submit (all 2 steps), host wait"}));
}

TEST(StreamPlan, SubmitEveryCutsCommandBuffersEachStartingWithGAndOnlyTheLastReadByTheHost) {
    const std::vector<PlanStep> p =
        planExperiment(Mode::Single, 2, {.submit = {.every = 2, .hostWait = false}}, computeSizes(presetShape("tiny")));
    EXPECT_EQ(lines(p), (std::vector<std::string>{"begin", "barrier G", dispatch(1), "barrier C", dispatch(2), "finish",
                                                  "submit (dispatches 1..2), no host wait", "begin", "barrier G",
                                                  dispatch(3), "barrier C", dispatch(4), "finish + host-read barrier",
                                                  "submit (dispatches 3..4), host wait"}));
    // Without host waits in between, the last submit's wait covers both conv-Ts.
    EXPECT_EQ(p[6].convTsSinceWait, 1u);
    EXPECT_EQ(p.back().convTsSinceWait, 2u);
    // With host waits, each submit counts only its own.
    const std::vector<PlanStep> waited =
        planExperiment(Mode::Single, 2, {.submit = {.every = 2}}, computeSizes(presetShape("tiny")));
    EXPECT_EQ(describe(waited[6]), "submit (dispatches 1..2), host wait");
    EXPECT_EQ(waited.back().convTsSinceWait, 1u);
}

TEST(StreamPlan, SplitMsNeedsAPredictionForEveryDispatch) {
    const ChainSizes sizes = computeSizes(presetShape("tiny"));
    const RecordingOptions o{.submit = {.splitMs = 5.0}};
    EXPECT_THROW(planExperiment(Mode::Multipass, 2, o, sizes), std::invalid_argument);
    EXPECT_THROW(planExperiment(Mode::Multipass, 2, o, sizes, std::vector<double>{0.001, 0.001}),
                 std::invalid_argument);
    // 4 ms per conv-T, 2 ms per slice: past 5 ms at each step's slice.
    const std::vector<double> predicted = {0.004, 0.002, 0.004, 0.002};
    const std::vector<PlanStep> p = planExperiment(Mode::Multipass, 2, o, sizes, predicted);
    std::vector<std::string> submits;
    for (const PlanStep& s : p) {
        if (s.kind == PlanStep::Kind::Submit) submits.push_back(describe(s));
    }
    EXPECT_EQ(submits,
              (std::vector<std::string>{"submit (dispatches 1..2), host wait", "submit (dispatches 3..4), host wait"}));
}

}  // namespace
}  // namespace repro
