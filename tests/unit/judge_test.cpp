// Unit tests for src/core/judge.{hpp,cpp} and the CPU reference's stepper: a CpuStepper
// gives cpuChain's small[k] and cpuTolerance's tolerance at every k from one chain; the CPU
// judge's final is cpuChain's; StepJudging, fed one step at a time from reused buffers, says
// what checkSteps says of the whole chain and names the first wrong dispatch; against a run
// it needs the run's intermediates.
#include "reference/judge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <memory>
#include <stdexcept>
#include <vector>

#include "reference/cpu_reference.hpp"

namespace repro {
namespace {

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](float x, float y) {
               return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y);
           });
}

TEST(CpuStepper, EveryStepIsTheChainsAndItsTolerance) {
    const Shape shape = presetShape("tiny");
    const CpuChain chain = cpuChain(shape, 4, 0, true);
    CpuStepper stepper(shape);
    for (uint32_t k = 0; k <= 4; ++k) {
        if (k > 0) stepper.advance();
        EXPECT_EQ(stepper.steps(), k);
        EXPECT_TRUE(sameBits(stepper.small(), chain.small[k])) << "small[" << k << "]";
        const Tolerance fresh = cpuTolerance(shape, k);
        const Tolerance stepped = stepper.tolerance();
        EXPECT_EQ(stepped.steps, k);
        EXPECT_EQ(stepped.relative, fresh.relative) << k;
        EXPECT_EQ(stepped.absolute, fresh.absolute) << k;
        EXPECT_TRUE(sameBits(stepped.magnitude, fresh.magnitude)) << k;
        EXPECT_TRUE(sameBits(stepped.deviation, fresh.deviation)) << k;
    }
    // The magnitude chain grows: step 4's M is not step 0's |x0|.
    EXPECT_FALSE(sameBits(stepper.tolerance().magnitude, cpuTolerance(shape, 0).magnitude));
}

TEST(Judge, CpuFinalIsTheChainsAndJudgesItOk) {
    const Shape shape = presetShape("tiny");
    const CpuChain chain = cpuChain(shape, 3, 0, false);
    const Judge judge = Judge::cpu(shape, 3);
    EXPECT_TRUE(judge.isCpu());
    const std::span<const float> final = judge.referenceFinal();
    EXPECT_TRUE(sameBits(std::vector<float>(final.begin(), final.end()), chain.output()));
    const Classified c = judge.classifyFinal(chain.output(), computeStats(chain.output()));
    EXPECT_EQ(c.kind, Classification::Ok) << c.reason;
}

// Feeds `steps` the chain's big[k-1] and small[k] through two buffers reused from step to
// step, as the readback does.
StepReport streamed(StepJudging steps, const ChainResult& gpu) {
    std::vector<float> big, small;
    for (size_t i = 0; i < gpu.big.size(); ++i) {
        big.assign(gpu.big[i].begin(), gpu.big[i].end());
        small.assign(gpu.small[i + 1].begin(), gpu.small[i + 1].end());
        steps.add(big, small);
    }
    return steps.report();
}

TEST(StepJudging, AgainstTheCpuStepByStepNamesTheFirstWrongDispatch) {
    const Shape shape = presetShape("small");
    const ChainSizes sizes = computeSizes(shape);
    const CpuChain chain = cpuChain(shape, 4, 0, true);
    const Judge judge = Judge::cpu(shape, 4);
    ChainResult gpu{chain.small, chain.big};
    const StepReport good = streamed(judge.beginSteps(shape, sizes), gpu);
    ASSERT_EQ(good.dispatches.size(), 8u);
    EXPECT_FALSE(good.firstWrong);
    for (const DispatchCheck& d : good.dispatches) EXPECT_EQ(d.verdict.kind, Classification::Ok) << d.verdict.reason;
    // Step 3's conv-T output zero where slice 3 reads it: dispatch 5 is the first wrong.
    std::fill(gpu.big[2].begin(), gpu.big[2].end(), 0.0f);
    const StepReport bad = streamed(judge.beginSteps(shape, sizes), gpu);
    ASSERT_TRUE(bad.firstWrong);
    EXPECT_EQ(bad.dispatches[*bad.firstWrong].dispatchNumber(), 5u);
    EXPECT_EQ(bad.dispatches[*bad.firstWrong].verdict.kind, Classification::Zero);
    // The whole-chain form says the same, dispatch by dispatch.
    const StepReport whole = judge.checkSteps(shape, sizes, gpu);
    ASSERT_EQ(whole.dispatches.size(), bad.dispatches.size());
    EXPECT_EQ(whole.firstWrong, bad.firstWrong);
    for (size_t d = 0; d < whole.dispatches.size(); ++d) {
        EXPECT_EQ(whole.dispatches[d].verdict.kind, bad.dispatches[d].verdict.kind) << d;
        EXPECT_EQ(whole.dispatches[d].stats.sum, bad.dispatches[d].stats.sum) << d;
    }
}

TEST(StepJudging, AgainstARunComparesBitForBitAndNeedsItsIntermediates) {
    const Shape shape = presetShape("tiny");
    const ChainSizes sizes = computeSizes(shape);
    const CpuChain chain = cpuChain(shape, 3, 0, true);
    auto reference = std::make_shared<ChainResult>(chain.small, chain.big);
    const Judge judge = Judge::fromRun("split", reference, computeStats(chain.output()));
    ChainResult gpu{chain.small, chain.big};
    gpu.small[2][7] += 1.0f;  // slice 2's output: dispatch 4
    const StepReport report = streamed(judge.beginSteps(shape, sizes), gpu);
    ASSERT_TRUE(report.firstWrong);
    EXPECT_EQ(report.dispatches[*report.firstWrong].dispatchNumber(), 4u);
    EXPECT_EQ(report.dispatches[*report.firstWrong].verdict.kind, Classification::Mismatch);

    auto finalOnly = std::make_shared<ChainResult>();
    finalOnly->small.resize(4);
    finalOnly->small[3] = reference->small[3];
    const Judge lean = Judge::fromRun("split", finalOnly, computeStats(chain.output()));
    StepJudging steps = lean.beginSteps(shape, sizes);
    EXPECT_THROW(steps.add(gpu.big[0], gpu.small[1]), std::logic_error);
}

}  // namespace
}  // namespace repro
