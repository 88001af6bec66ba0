// Breadcrumb reading with synthetic marker values.
#include <gtest/gtest.h>

#include <vector>

#include "forensics/breadcrumbs.hpp"

namespace repro {
namespace {

TEST(Breadcrumbs, LastFinishedIsTheHighestSlotWithTheRunId) {
    // 3 steps = 6 dispatches; run 7 finished dispatches 1..4, slot 5 and 6 still hold an
    // earlier run's id (or 0).
    const std::vector<uint32_t> slots{0, 7, 7, 7, 7, 6, 0};
    const BreadcrumbReading r = readBreadcrumbs(slots, 6, 7);
    ASSERT_TRUE(r.lastFinished.has_value());
    EXPECT_EQ(*r.lastFinished, 4u);
    EXPECT_EQ(r.finished, 4u);
    EXPECT_EQ(r.firstUnfinished, 5u);
    EXPECT_TRUE(r.inOrder);
    EXPECT_EQ(describeBreadcrumbs(r, 6),
              "breadcrumbs: the GPU finished 4 of 6 dispatches; the last was dispatch 4 (step 2 "
              "slice); the first unfinished is dispatch 5 (step 3 conv-T)");
}

TEST(Breadcrumbs, NoneFinished) {
    const std::vector<uint32_t> slots{0, 0, 0, 0, 0};
    const BreadcrumbReading r = readBreadcrumbs(slots, 4, 1);
    EXPECT_FALSE(r.lastFinished.has_value());
    EXPECT_EQ(r.firstUnfinished, 1u);
    EXPECT_EQ(describeBreadcrumbs(r, 4), "breadcrumbs: the GPU finished none of the 4 dispatches");
}

TEST(Breadcrumbs, AllFinishedHasNoUnfinished) {
    const std::vector<uint32_t> slots{0, 3, 3};
    const BreadcrumbReading r = readBreadcrumbs(slots, 2, 3);
    EXPECT_EQ(r.lastFinished, 2u);
    EXPECT_FALSE(r.firstUnfinished.has_value());
}

TEST(Breadcrumbs, OutOfOrderCompletionIsFlagged) {
    const std::vector<uint32_t> slots{0, 5, 0, 5};
    const BreadcrumbReading r = readBreadcrumbs(slots, 3, 5);
    EXPECT_EQ(r.lastFinished, 3u);
    EXPECT_FALSE(r.inOrder);
    EXPECT_NE(describeBreadcrumbs(r, 3).find("out of order"), std::string::npos);
}

TEST(Breadcrumbs, ShortSlotBufferCountsMissingSlotsAsUnfinished) {
    const std::vector<uint32_t> slots{0, 2};
    const BreadcrumbReading r = readBreadcrumbs(slots, 4, 2);
    EXPECT_EQ(r.finished, 1u);
    EXPECT_EQ(r.firstUnfinished, 2u);
}

TEST(Breadcrumbs, DescribeDispatchNumbers) {
    EXPECT_EQ(describeDispatch(1), "dispatch 1 (step 1 conv-T)");
    EXPECT_EQ(describeDispatch(2), "dispatch 2 (step 1 slice)");
    EXPECT_EQ(describeDispatch(13), "dispatch 13 (step 7 conv-T)");
}

}  // namespace
}  // namespace repro
