// The underflow estimate (src/reference/underflow.hpp): the float64 CPU chain's own maximum where
// it is cheap (tiny, small), the empirical bound 2 * 20^-N where it is not (the original's
// shapes), "possible" exactly below 2^-116 on either basis, and the measurement behind
// the bound: on tiny and small the maximum shrinks by far less than 20x per step.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "reference/cpu_reference.hpp"
#include "reference/underflow.hpp"

namespace repro {
namespace {

const double kLimit = std::ldexp(1.0, -116);

double maxAbs(const std::vector<float>& values) {
    double m = 0;
    for (const float v : values) m = std::fmax(m, std::fabs(double(v)));
    return m;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Underflow, ThePresetsUseTheFloat64ChainsOwnMaximum) {
    for (const char* preset : {"tiny", "small"}) {
        const Shape shape = presetShape(preset);
        for (const uint32_t steps : {1u, 7u, 30u}) {
            const UnderflowEstimate e = underflowEstimate(shape, steps);
            EXPECT_TRUE(e.exact) << preset << " " << steps;
            EXPECT_EQ(e.expectedMaxAbs, maxAbs(cpuChain(shape, steps, 0, false).output())) << preset << " " << steps;
            EXPECT_FALSE(e.possible) << preset << " " << steps;
            EXPECT_TRUE(contains(e.basis, "the float64 CPU chain's max |small[" + std::to_string(steps) + "]|"))
                << e.basis;
        }
    }
}

TEST(Underflow, ALongPresetChainIsPossibleExactlyBelowTwoToTheMinus116) {
    // tiny at N = 80: 3.5e-39, below float32's normal range (docs/options.md, reference_test.cpp).
    const UnderflowEstimate far = underflowEstimate(presetShape("tiny"), 80);
    EXPECT_TRUE(far.exact);
    EXPECT_TRUE(far.possible);
    EXPECT_LT(far.expectedMaxAbs, 4e-39);
    EXPECT_GT(far.expectedMaxAbs, 3e-39);
    // Every N up to 80: possible is the expected maximum below 2^-116, nothing else.
    for (uint32_t steps = 1; steps <= 80; ++steps) {
        const UnderflowEstimate e = underflowEstimate(presetShape("tiny"), steps);
        EXPECT_EQ(e.possible, e.expectedMaxAbs < kLimit) << steps << ": " << e.basis;
    }
}

TEST(Underflow, TheOriginalsShapesUseTheBoundTwoTimesTwentyToTheMinusN) {
    const Shape original;
    ASSERT_GT(double(convTermCount(original)), kExactBudget);  // not one exact step
    for (uint32_t steps = 1; steps <= 40; ++steps) {
        const UnderflowEstimate e = underflowEstimate(original, steps);
        EXPECT_FALSE(e.exact) << steps;
        EXPECT_DOUBLE_EQ(e.expectedMaxAbs, 2.0 * std::pow(20.0, -double(steps))) << steps;
        EXPECT_EQ(e.possible, e.expectedMaxAbs < kLimit) << steps << ": " << e.basis;
        EXPECT_EQ(e.possible, steps >= kUnderflowBoundSteps) << steps;
        EXPECT_TRUE(contains(e.basis, "2 * 20^-" + std::to_string(steps))) << e.basis;
    }
    EXPECT_EQ(kUnderflowBoundSteps, 28u);
}

// The measurement the bound rests on: over 40 steps of tiny and small the maximum shrinks
// by at most 8x per step (tiny 1.4x to 3.2x, small 3.3x to 7.6x), so 20x per step leaves a
// margin of 2.5, and the bound stays below the chain's maximum at every step.
TEST(Underflow, OnThePresetsTheMaximumShrinksByLessThanTheBoundsTwentyPerStep) {
    for (const char* preset : {"tiny", "small"}) {
        const CpuChain chain = cpuChain(presetShape(preset), 40, 0, /*keepIntermediates=*/true, /*keepBig=*/false);
        ASSERT_EQ(chain.small.size(), 41u);
        EXPECT_LE(maxAbs(chain.small[0]), 2.0) << preset;
        for (size_t n = 1; n < chain.small.size(); ++n) {
            const double before = maxAbs(chain.small[n - 1]);
            const double after = maxAbs(chain.small[n]);
            ASSERT_GT(after, 0) << preset << " step " << n;
            EXPECT_LT(before / after, 8.0) << preset << " step " << n;
            EXPECT_GT(after, 2.0 * std::pow(20.0, -double(n))) << preset << " step " << n;
        }
    }
}

}  // namespace
}  // namespace repro
