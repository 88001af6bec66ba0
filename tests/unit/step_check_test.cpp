// Unit tests for src/core/step_check.{hpp,cpp}: a float32 emulation of the conv-T shader
// (its loop order, with and without FMA) passes the one-step bound from its own input;
// a dropped channel, zeros, a NaN and one element just above the bound fail; the default
// (estimated, then rechecked) path and the exact-bounds path agree; slices are bit-exact;
// the bound stays sharp at N = 7, where the chained tolerance does not.
#include "reference/step_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "reference/cpu_reference.hpp"

namespace repro {
namespace {

// conv_t.comp's arithmetic in float32: sum = 0; for co, kh, kw: sum += x * w (or fma).
// `dropCo` leaves one input channel out, as a missed dependency on one producer might.
std::vector<float> shaderConvT(const Shape& s, const ChainSizes& z, const std::vector<float>& x,
                               const std::vector<float>& w, bool fma, int dropCo = -1) {
    std::vector<float> big(z.bigElems);
    for (uint32_t n = 0; n < s.batch; ++n) {
        for (uint32_t ci = 0; ci < s.channels; ++ci) {
            for (uint32_t ih = 0; ih < z.bigHeight; ++ih) {
                for (uint32_t iw = 0; iw < z.bigWidth; ++iw) {
                    float sum = 0.0f;
                    for (uint32_t co = 0; co < s.channels; ++co) {
                        if (static_cast<int>(co) == dropCo) continue;
                        for (uint32_t kh = 0; kh < s.kernelH; ++kh) {
                            const int h = int(ih) + int(s.padH) - int(kh);
                            if (h < 0 || h % int(s.strideH) != 0 || h / int(s.strideH) >= int(s.height)) continue;
                            for (uint32_t kw = 0; kw < s.kernelW; ++kw) {
                                const int ww = int(iw) + int(s.padW) - int(kw);
                                if (ww < 0 || ww % int(s.strideW) != 0 || ww / int(s.strideW) >= int(s.width)) continue;
                                const float xv =
                                    x[((size_t{n} * s.channels + co) * s.height + size_t(h / int(s.strideH))) *
                                          s.width +
                                      size_t(ww / int(s.strideW))];
                                const float wv = w[((size_t{co} * s.channels + ci) * s.kernelH + kh) * s.kernelW + kw];
                                if (fma) {
                                    sum = std::fmaf(xv, wv, sum);
                                } else {
                                    const volatile float product = xv * wv;  // rounded on its own
                                    sum = sum + product;
                                }
                            }
                        }
                    }
                    big[((size_t{n} * s.channels + ci) * z.bigHeight + ih) * z.bigWidth + iw] = sum;
                }
            }
        }
    }
    return big;
}

struct Step {
    Shape shape;
    ChainSizes sizes;
    std::vector<float> input, weight;
    StepBound bound;
};

// Step `k` (1-based) of the preset's chain: its input is the CPU chain's small[k-1].
Step step(const char* preset, uint32_t k) {
    Step s;
    s.shape = presetShape(preset);
    s.sizes = computeSizes(s.shape);
    s.weight = makeWeight(s.sizes);
    s.input = k == 1 ? makeInput(s.sizes) : cpuChain(s.shape, k - 1, 0, true).small[k - 1];
    s.bound = stepBound(s.shape, s.sizes, s.weight);
    return s;
}

DispatchStepCheck check(const Step& s, const std::vector<float>& gpu, bool exact) {
    return checkConvTStep(s.shape, s.sizes, s.bound, s.weight, s.input, gpu, 1, 0, exact);
}

// The report's object: the state and first wrong dispatch follow firstWrong, every dispatch
// is there with its number in chain order, and a non-finite ratio becomes a string.
TEST(StepCheck, ReportJsonNamesTheFirstWrongDispatch) {
    StepCheckReport report;
    report.dispatches.push_back({.step = 1, .convT = true, .checked = 10, .worstRatio = 0.01});
    report.dispatches.push_back({.step = 1,
                                 .convT = false,
                                 .checked = 5,
                                 .exceeded = 5,
                                 .worstRatio = std::numeric_limits<double>::infinity()});
    report.seconds = 0.25;
    EXPECT_EQ(perDispatchCheckJson(report)["state"], "passed");
    EXPECT_TRUE(perDispatchCheckJson(report)["first_wrong"].is_null());
    report.firstWrong = 1;
    const nlohmann::json j = perDispatchCheckJson(report);
    EXPECT_EQ(j["state"], "failed");
    EXPECT_EQ(j["first_wrong"], 2);
    EXPECT_EQ(j["seconds"], 0.25);
    ASSERT_EQ(j["dispatches"].size(), 2u);
    EXPECT_EQ(j["dispatches"][0]["dispatch"], 1);
    EXPECT_EQ(j["dispatches"][0]["kind"], "conv_t");
    EXPECT_EQ(j["dispatches"][0]["ok"], true);
    EXPECT_EQ(j["dispatches"][1]["dispatch"], 2);
    EXPECT_EQ(j["dispatches"][1]["kind"], "slice");
    EXPECT_EQ(j["dispatches"][1]["ok"], false);
    EXPECT_EQ(j["dispatches"][1]["worst_ratio"], "inf");
    EXPECT_EQ(j["dispatches"][1]["line"], report.dispatches[1].line());
}

TEST(StepCheck, ShaderArithmeticPassesItsOwnStepBound) {
    for (const char* preset : {"tiny", "small"}) {
        for (const uint32_t k : {1u, 4u}) {
            const Step s = step(preset, k);
            for (const bool fma : {false, true}) {
                const auto gpu = shaderConvT(s.shape, s.sizes, s.input, s.weight, fma);
                for (const bool exact : {false, true}) {
                    const DispatchStepCheck r = check(s, gpu, exact);
                    EXPECT_TRUE(r.ok()) << preset << " step " << k << " fma " << fma << ": " << r.line();
                    EXPECT_LE(r.worstRatio, 0.5) << preset << " step " << k << ": " << r.line();
                    EXPECT_GT(r.maxAbsDiff, 0.0) << "float32 rounding must show";
                    EXPECT_EQ(r.checked, s.sizes.bigElems);
                    EXPECT_EQ(r.nonfinite, 0u);
                }
            }
        }
    }
}

TEST(StepCheck, ADroppedChannelFailsEvenAtStepSeven) {
    const Step s = step("small", 7);
    const DispatchStepCheck r = check(s, shaderConvT(s.shape, s.sizes, s.input, s.weight, false, 5), false);
    EXPECT_FALSE(r.ok());
    EXPECT_GT(r.exceeded, s.sizes.bigElems / 2);
    EXPECT_GT(r.exceededInCrop, 0u);
    EXPECT_GT(r.worstRatio, 100.0) << r.line();
    EXPECT_TRUE(r.line().ends_with("inside the crop slice 1 reads)")) << r.line();
}

TEST(StepCheck, ZerosFail) {
    const Step s = step("small", 2);
    const std::vector<float> zeros(s.sizes.bigElems, 0.0f);
    const DispatchStepCheck r = check(s, zeros, false);
    EXPECT_FALSE(r.ok());
    EXPECT_GT(r.exceeded, s.sizes.bigElems * 9 / 10);
}

TEST(StepCheck, ANanFailsWhereItIs) {
    const Step s = step("tiny", 1);
    auto gpu = shaderConvT(s.shape, s.sizes, s.input, s.weight, false);
    gpu[17] = std::numeric_limits<float>::quiet_NaN();
    const DispatchStepCheck r = check(s, gpu, false);
    EXPECT_EQ(r.exceeded, 1u);
    EXPECT_EQ(r.nonfinite, 1u);
    EXPECT_EQ(r.worstIndex, 17u);
    EXPECT_TRUE(std::isinf(r.worstRatio));
}

// The exact value and bound of element j, from cpuConvT's two passes.
struct Exact {
    std::vector<float> value, magnitude;
};
Exact exactOf(const Step& s) {
    Exact e{std::vector<float>(s.sizes.bigElems), std::vector<float>(s.sizes.bigElems)};
    cpuConvT(s.shape, s.sizes, s.input, s.weight, e.value);
    std::vector<float> ax(s.input.size()), aw(s.weight.size());
    for (size_t i = 0; i < ax.size(); ++i) ax[i] = std::fabs(s.input[i]);
    for (size_t i = 0; i < aw.size(); ++i) aw[i] = std::fabs(s.weight[i]);
    cpuConvT(s.shape, s.sizes, ax, aw, e.magnitude);
    return e;
}

TEST(StepCheck, OneElementJustAboveTheBoundFailsJustBelowPasses) {
    const Step s = step("small", 3);
    const Exact e = exactOf(s);
    for (const size_t j : {size_t{0}, size_t{1234}, s.sizes.bigElems - 1}) {
        const float cpu = e.value[j];
        const double allowed = s.bound.allowed(e.magnitude[j], cpu);
        float above = cpu, below = cpu;
        while (double(above) - double(cpu) <= allowed) above = std::nextafter(above, INFINITY);
        while (double(std::nextafter(below, INFINITY)) - double(cpu) <= allowed)
            below = std::nextafter(below, INFINITY);
        for (const bool exact : {false, true}) {
            auto gpu = e.value;
            gpu[j] = above;
            const DispatchStepCheck over = check(s, gpu, exact);
            EXPECT_EQ(over.exceeded, 1u) << j << " exact " << exact;
            EXPECT_EQ(over.worstIndex, j);
            EXPECT_GT(over.worstRatio, 1.0);
            gpu[j] = below;
            const DispatchStepCheck under = check(s, gpu, exact);
            EXPECT_TRUE(under.ok()) << j << " exact " << exact << ": " << under.line();
            EXPECT_LE(under.worstRatio, 1.0);
        }
    }
}

TEST(StepCheck, EstimatedAndExactPathsAgreeWhenManyElementsNeedTheirOwnBound) {
    const Step s = step("small", 2);
    const Exact e = exactOf(s);
    // Every element at 90% of its bound (the estimate is too small for most: the full
    // magnitude pass runs), and 0.3% of them at 110% (few: each checked directly).
    for (const double factor : {0.9, 1.1}) {
        auto gpu = e.value;
        size_t perturbed = 0;
        for (size_t j = 0; j < gpu.size(); ++j) {
            if (factor > 1.0 && j % 300 != 0) continue;
            gpu[j] = static_cast<float>(double(e.value[j]) + factor * s.bound.allowed(e.magnitude[j], e.value[j]));
            ++perturbed;
        }
        const DispatchStepCheck quick = check(s, gpu, false), exact = check(s, gpu, true);
        EXPECT_EQ(quick.exceeded, exact.exceeded) << factor;
        EXPECT_EQ(quick.ok(), exact.ok()) << factor;
        EXPECT_EQ(quick.checked, exact.checked);
        EXPECT_GT(quick.rechecked, 0u);
        if (factor > 1.0) {
            EXPECT_FALSE(quick.magnitudePass);  // few: checked one by one
            EXPECT_GT(exact.exceeded, perturbed / 2) << "float rounding of the perturbation keeps most above";
        } else {
            EXPECT_TRUE(quick.magnitudePass);
            EXPECT_TRUE(exact.ok()) << exact.line();
        }
    }
}

TEST(StepCheck, NonFiniteInputsAreNotCheckable) {
    Step s = step("tiny", 1);
    s.input[3] = std::numeric_limits<float>::quiet_NaN();
    const auto gpu = shaderConvT(s.shape, s.sizes, s.input, s.weight, false);
    const DispatchStepCheck r = check(s, gpu, false);
    EXPECT_GT(r.unchecked, 0u);
    EXPECT_TRUE(r.ok()) << r.line();
    EXPECT_EQ(r.checked + r.unchecked, s.sizes.bigElems);
}

TEST(StepCheck, TheBoundIsSharpAtStepSevenUnlikeTheChainedOne) {
    const Shape shape = presetShape("small");
    const ChainSizes sizes = computeSizes(shape);
    const CpuChain chain = cpuChain(shape, 7, 0, true);
    ChainResult gpu{chain.small, chain.big};
    const StepCheckReport report = checkEachDispatch(shape, sizes, makeWeight(sizes), gpu, 0, true);
    ASSERT_EQ(report.dispatches.size(), 14u);
    for (const auto& d : report.dispatches) {
        EXPECT_TRUE(d.ok()) << d.line();
        if (d.convT) {
            EXPECT_LT(d.boundRatio(), 5e-3) << d.line();
        }
    }
    // The chained tolerance of small[7] (its probable bound is the sharper) against the
    // signal: the per-step bound of step 7 is far smaller.
    const Tolerance tol = cpuTolerance(shape, 7);
    double chained = 0, signal = 0;
    for (size_t j = 0; j < chain.output().size(); ++j) {
        chained = std::max(chained, tol.allowed(j, chain.output()[j]));
        signal = std::max(signal, double(std::fabs(chain.output()[j])));
    }
    EXPECT_GT(chained / signal, 10 * report.dispatches[12].boundRatio());
}

TEST(StepCheck, SlicesAreBitExactAllowingFlushedDenormals) {
    const Shape shape = presetShape("tiny");
    const ChainSizes sizes = computeSizes(shape);
    std::vector<float> big(sizes.bigElems);
    for (size_t i = 0; i < big.size(); ++i) big[i] = float(i) * 0.25f - 3.0f;
    std::vector<float> small(sizes.smallElems);
    cpuSlice(shape, sizes, big, small);
    EXPECT_TRUE(checkSliceStep(shape, sizes, big, small, 2).ok());

    auto flipped = small;
    flipped[5] = std::nextafter(flipped[5], INFINITY);
    const DispatchStepCheck bad = checkSliceStep(shape, sizes, big, flipped, 2);
    EXPECT_EQ(bad.exceeded, 1u);
    EXPECT_EQ(bad.worstIndex, 5u);
    EXPECT_EQ(bad.line(), "slice 2: 1 of " + std::to_string(sizes.smallElems) +
                              " elements differ from big[1]'s crop (first at 5): mismatch");

    // big[n, c, 1, 1] is small[0]: a denormal there copied as 0 is allowed and counted; a
    // NaN copied as a NaN is not checkable.
    const size_t at = size_t{1} * sizes.bigWidth + 1;
    big[at] = std::numeric_limits<float>::denorm_min();
    big[at + 1] = std::numeric_limits<float>::quiet_NaN();
    cpuSlice(shape, sizes, big, small);
    small[0] = 0.0f;
    const DispatchStepCheck flushed = checkSliceStep(shape, sizes, big, small, 1);
    EXPECT_TRUE(flushed.ok()) << flushed.line();
    EXPECT_EQ(flushed.flushedDenormals, 1u);
    EXPECT_EQ(flushed.unchecked, 1u);
}

TEST(StepCheck, EveryDispatchOfAChainAndTheFirstWrongOne) {
    const Shape shape = presetShape("small");
    const ChainSizes sizes = computeSizes(shape);
    const CpuChain chain = cpuChain(shape, 4, 0, true);
    ChainResult gpu{chain.small, chain.big};
    const std::vector<float> weight = makeWeight(sizes);
    const StepCheckReport good = checkEachDispatch(shape, sizes, weight, gpu);
    ASSERT_EQ(good.dispatches.size(), 8u);
    EXPECT_FALSE(good.firstWrong);
    EXPECT_EQ(good.dispatches[2].dispatchNumber(), 3u);
    EXPECT_TRUE(good.dispatches[0].line().starts_with("conv-T 1: max |gpu - cpu| ")) << good.dispatches[0].line();
    EXPECT_EQ(good.dispatches[1].line(), "slice 1: an exact copy of big[0]'s crop: ok");

    std::fill(gpu.big[1].begin(), gpu.big[1].end(), 0.0f);  // conv-T 2 wrote nothing
    const StepCheckReport bad = checkEachDispatch(shape, sizes, weight, gpu);
    ASSERT_TRUE(bad.firstWrong);
    EXPECT_EQ(*bad.firstWrong, 2u);
    EXPECT_FALSE(bad.dispatches[3].ok());  // slice 2 then disagrees with that big[1] too

    ChainResult missing{chain.small, {}};
    EXPECT_THROW(checkEachDispatch(shape, sizes, weight, missing), std::invalid_argument);
    ChainResult shortBuffer{chain.small, chain.big};
    shortBuffer.big[0].pop_back();
    EXPECT_THROW(checkEachDispatch(shape, sizes, weight, shortBuffer), std::invalid_argument);
    EXPECT_THROW(stepBound(shape, sizes, std::vector<float>(3)), std::invalid_argument);
}

TEST(StepCheck, BoundConstants) {
    const Shape shape{};
    const ChainSizes sizes = computeSizes(shape);
    const StepBound b = stepBound(shape, sizes, makeWeight(sizes));
    EXPECT_EQ(b.terms, 128u * 3u * 2u);
    EXPECT_NEAR(b.gamma, 768.0 * std::ldexp(1.0, -23), 1e-8);
    EXPECT_GT(b.weightSum, 0.0);
    // With K = 768 the probable bound is the smaller, by about K / (9 sqrt(K + 1)) = 3.
    EXPECT_LT(b.probable(1.0, 0.5f), b.worstCase(1.0, 0.5f) / 2.5);
    EXPECT_DOUBLE_EQ(b.allowed(1.0, 0.5f), b.probable(1.0, 0.5f));
}

}  // namespace
}  // namespace repro
