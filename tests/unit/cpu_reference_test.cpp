// Unit tests for the CPU reference: conv-T, slice and the chain against a brute-force
// direct sum written here from the formula, the input data, and the derived tolerance
// (accepts a float32 sum in the shader's loop order, rejects a dropped channel).
#include "reference/cpu_reference.hpp"

#include <gtest/gtest.h>

#include "cpu_kernel_param.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace repro {
namespace {

// ---- Brute force, written from the formula ----------------------------------------------

// big[n, ci, ih, iw] = sum over co, kh, kw of small[n, co, oh, ow] * weight[co, ci, kh, kw],
// h_off = ih + padH - kh >= 0, h_off % strideH == 0, oh = h_off / strideH < H, same in w.
// T is the accumulator type; float gives the shader's sequential float32 sum in its loop
// order (co outer, kh, kw inner). `skipCo` drops one output channel's contribution.
template <typename T, typename In>
std::vector<T> bruteConvT(const Shape& s, const ChainSizes& z, const std::vector<In>& small,
                          const std::vector<float>& weight, int skipCo = -1, std::vector<double>* sumAbs = nullptr,
                          bool fused = false) {
    const int64_t C = s.channels, H = s.height, W = s.width, KH = s.kernelH, KW = s.kernelW;
    const int64_t SH = s.strideH, SW = s.strideW, PH = s.padH, PW = s.padW;
    const int64_t BH = z.bigHeight, BW = z.bigWidth;
    std::vector<T> big(z.bigElems);
    if (sumAbs) sumAbs->assign(z.bigElems, 0.0);
    for (int64_t n = 0; n < s.batch; ++n) {
        for (int64_t ci = 0; ci < C; ++ci) {
            for (int64_t ih = 0; ih < BH; ++ih) {
                for (int64_t iw = 0; iw < BW; ++iw) {
                    T sum = 0;
                    double abs = 0;
                    for (int64_t co = 0; co < C; ++co) {
                        if (co == skipCo) continue;
                        for (int64_t kh = 0; kh < KH; ++kh) {
                            const int64_t hOff = ih + PH - kh;
                            if (hOff < 0 || hOff % SH != 0 || hOff / SH >= H) continue;
                            const int64_t oh = hOff / SH;
                            for (int64_t kw = 0; kw < KW; ++kw) {
                                const int64_t wOff = iw + PW - kw;
                                if (wOff < 0 || wOff % SW != 0 || wOff / SW >= W) continue;
                                const int64_t ow = wOff / SW;
                                const T x = static_cast<T>(small[((n * C + co) * H + oh) * W + ow]);
                                const T w = static_cast<T>(weight[((co * C + ci) * KH + kh) * KW + kw]);
                                const T term = x * w;
                                sum = fused ? std::fma(x, w, sum) : sum + term;
                                abs += std::fabs(double(term));
                            }
                        }
                    }
                    const size_t idx = ((n * C + ci) * BH + ih) * BW + iw;
                    big[idx] = sum;
                    if (sumAbs) (*sumAbs)[idx] = abs;
                }
            }
        }
    }
    return big;
}

template <typename T>
std::vector<T> bruteSlice(const Shape& s, const ChainSizes& z, const std::vector<T>& big) {
    std::vector<T> small(z.smallElems);
    const size_t planes = size_t{s.batch} * s.channels;
    for (size_t p = 0; p < planes; ++p) {
        for (uint32_t h = 0; h < s.height; ++h) {
            for (uint32_t w = 0; w < s.width; ++w) {
                small[(p * s.height + h) * s.width + w] = big[(p * z.bigHeight + h + 1) * z.bigWidth + w + 1];
            }
        }
    }
    return small;
}

// The chain in T (float: a float32 GPU, `fused` with FMA; double: an independent float64
// reference). dropCoAtStep: step whose conv-T skips output channel dropCo.
template <typename T>
std::vector<T> bruteChain(const Shape& s, uint32_t steps, int dropCoAtStep = -1, bool fused = false, int dropCo = 0) {
    const ChainSizes z = computeSizes(s);
    const std::vector<float> x0 = makeInput(z);
    const std::vector<float> w = makeWeight(z);
    std::vector<T> x(x0.begin(), x0.end());
    for (uint32_t i = 0; i < steps; ++i) {
        x = bruteSlice(s, z, bruteConvT<T>(s, z, x, w, int(i) == dropCoAtStep ? dropCo : -1, nullptr, fused));
    }
    return x;
}

// A random shape that computeSizes accepts: batch 1..3, C 1..6, H 2..9, W 2..11, kernels up
// to 7x7, strides 1..3, padding 0..2.
Shape randomShape(std::mt19937& rng) {
    auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
    for (;;) {
        Shape s;
        s.batch = pick(1, 3);
        s.channels = pick(1, 6);
        s.height = pick(2, 9);
        s.width = pick(2, 11);
        s.kernelH = pick(1, 7);
        s.kernelW = pick(1, 7);
        s.strideH = pick(1, 3);
        s.strideW = pick(1, 3);
        s.padH = pick(0, 2);
        s.padW = pick(0, 2);
        try {
            computeSizes(s);
            return s;
        } catch (const UsageError&) {
        }
    }
}

// Runs the tests once per SIMD path: the automatic choice, and the forced baseline.
class CpuReference : public test::PerCpuKernel {};

INSTANTIATE_TEST_SUITE_P(Kernels, CpuReference, test::cpuKernels(), test::cpuKernelName);

// The float64-accumulated result rounded to float agrees with the brute double sum within
// the float rounding plus float64 summation error.
void expectCloseToDouble(const std::vector<float>& got, const std::vector<double>& want,
                         const std::vector<double>& sumAbs, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double allowed = std::ldexp(std::fabs(want[i]), -24) + 1e-13 * sumAbs[i] + 1e-45;
        if (std::fabs(double(got[i]) - want[i]) > allowed && bad++ < 5) {
            ADD_FAILURE() << what << ": element " << i << " got " << got[i] << " want " << want[i];
        }
    }
    EXPECT_EQ(bad, 0u) << what;
}

// ---- Data ---------------------------------------------------------------------------------

TEST(CpuReferenceData, InputAndWeightValues) {
    const ChainSizes z = computeSizes(Shape{});
    const std::vector<float> x = makeInput(z);
    const std::vector<float> w = makeWeight(z);
    ASSERT_EQ(x.size(), 3686400u);
    ASSERT_EQ(w.size(), 128u * 128u * 3u * 4u);
    EXPECT_EQ(x[0], 1.0f);
    EXPECT_EQ(w[0], 0.05f);
    for (size_t i : {size_t{1}, size_t{1571}, size_t{123456}, x.size() - 1}) {
        EXPECT_EQ(x[i], sinf(float(i) * 0.001f) + 1.0f) << i;
    }
    for (size_t i : {size_t{1}, size_t{157}, size_t{98765}, w.size() - 1}) {
        EXPECT_EQ(w[i], cosf(float(i) * 0.01f) * 0.05f) << i;
    }
    EXPECT_NEAR(x[1571], 2.0f, 1e-6f);  // sin(1.571) ~ 1
    EXPECT_NEAR(w[157], 0.0f, 1e-4f);   // cos(1.57) ~ 0
}

// makeInput fills in chunks on the thread pool: every element, chunk edges included, is the
// element's own formula.
TEST(CpuReferenceData, EveryInputElementIsItsFormula) {
    const std::vector<float> x = makeInput(computeSizes(Shape{}));
    size_t wrong = 0;
    for (size_t i = 0; i < x.size(); ++i) wrong += x[i] != sinf(float(i) * 0.001f) + 1.0f ? 1 : 0;
    EXPECT_EQ(wrong, 0u);
}

TEST(CpuReferenceData, ConvTermCountMatchesBruteForce) {
    std::mt19937 rng(7);
    for (int t = 0; t < 30; ++t) {
        const Shape s = randomShape(rng);
        const ChainSizes z = computeSizes(s);
        uint64_t count = 0;
        for (int64_t ih = 0; ih < z.bigHeight; ++ih) {
            for (int64_t kh = 0; kh < s.kernelH; ++kh) {
                const int64_t h = ih + s.padH - kh;
                if (h < 0 || h % s.strideH != 0 || h / s.strideH >= s.height) continue;
                for (int64_t iw = 0; iw < z.bigWidth; ++iw) {
                    for (int64_t kw = 0; kw < s.kernelW; ++kw) {
                        const int64_t w = iw + s.padW - kw;
                        if (w < 0 || w % s.strideW != 0 || w / s.strideW >= s.width) continue;
                        ++count;
                    }
                }
            }
        }
        EXPECT_EQ(convTermCount(s), count * s.batch * s.channels * s.channels) << describe(s);
    }
    EXPECT_EQ(convTermCount(Shape{}), uint64_t{128} * 128 * 60 * 480 * 12);
}

// ---- conv-T and slice ---------------------------------------------------------------------

TEST_P(CpuReference, ConvTMatchesBruteForceOnRandomShapes) {
    std::mt19937 rng(20240611);
    for (int t = 0; t < 60; ++t) {
        const Shape s = randomShape(rng);
        const ChainSizes z = computeSizes(s);
        std::vector<float> small(z.smallElems);
        std::vector<float> weight(z.weightElems);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        for (float& v : small) v = dist(rng);
        for (float& v : weight) v = dist(rng);
        std::vector<double> sumAbs;
        const std::vector<double> want = bruteConvT<double>(s, z, small, weight, -1, &sumAbs);
        const unsigned threads = 1 + unsigned(t % 3);
        std::vector<float> big(z.bigElems, std::numeric_limits<float>::quiet_NaN());
        cpuConvT(s, z, small, weight, big, threads);
        expectCloseToDouble(big, want, sumAbs, describe(s) + " threads " + std::to_string(threads));
    }
}

TEST_P(CpuReference, ConvTPresetsMatchBruteForce) {
    for (const char* name : {"tiny", "small"}) {
        const Shape s = presetShape(name);
        const ChainSizes z = computeSizes(s);
        const std::vector<float> x = makeInput(z);
        const std::vector<float> w = makeWeight(z);
        std::vector<double> sumAbs;
        const std::vector<double> want = bruteConvT<double>(s, z, x, w, -1, &sumAbs);
        std::vector<float> big(z.bigElems);
        cpuConvT(s, z, x, w, big);
        expectCloseToDouble(big, want, sumAbs, name);
    }
}

TEST(CpuReferenceSlice, MatchesBruteForceExactly) {
    std::mt19937 rng(99);
    for (int t = 0; t < 40; ++t) {
        const Shape s = randomShape(rng);
        const ChainSizes z = computeSizes(s);
        std::vector<float> big(z.bigElems);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        for (float& v : big) v = dist(rng);
        std::vector<float> small(z.smallElems);
        cpuSlice(s, z, big, small);
        EXPECT_EQ(small, bruteSlice(s, z, big)) << describe(s);
    }
}

TEST(CpuReferenceErrors, WrongSpanSizesThrow) {
    const Shape s = presetShape("tiny");
    const ChainSizes z = computeSizes(s);
    std::vector<float> small(z.smallElems), weight(z.weightElems), big(z.bigElems);
    std::vector<float> shortBuf(3);
    EXPECT_THROW(cpuConvT(s, z, shortBuf, weight, big), std::invalid_argument);
    EXPECT_THROW(cpuConvT(s, z, small, shortBuf, big), std::invalid_argument);
    EXPECT_THROW(cpuConvT(s, z, small, weight, shortBuf), std::invalid_argument);
    EXPECT_THROW(cpuSlice(s, z, shortBuf, small), std::invalid_argument);
    EXPECT_THROW(cpuSlice(s, z, big, shortBuf), std::invalid_argument);
    Shape bad = s;
    bad.channels = 0;
    EXPECT_THROW(cpuChain(bad, 1), UsageError);
    const Tolerance tol = cpuTolerance(s, 1);
    EXPECT_THROW(compareWithTolerance(shortBuf, small, tol), std::invalid_argument);
}

// ---- The chain ----------------------------------------------------------------------------

TEST_P(CpuReference, ChainMatchesBruteForceOnRandomShapes) {
    std::mt19937 rng(31337);
    const uint32_t steps = 3;
    for (int t = 0; t < 25; ++t) {
        const Shape s = randomShape(rng);
        const ChainSizes z = computeSizes(s);
        const std::vector<float> w = makeWeight(z);
        const CpuChain chain = cpuChain(s, steps, 1 + unsigned(t % 2));
        ASSERT_EQ(chain.small.size(), steps + 1u);
        ASSERT_EQ(chain.big.size(), steps);
        EXPECT_EQ(chain.small[0], makeInput(z));
        // Brute force in float64 all the way, as the reference carries float64 between steps.
        std::vector<double> x(chain.small[0].begin(), chain.small[0].end());
        for (uint32_t i = 0; i < steps; ++i) {
            std::vector<double> sumAbs;
            const std::vector<double> big = bruteConvT<double>(s, z, x, w, -1, &sumAbs);
            // Earlier steps' float64 rounding is far below the float tolerance used here.
            expectCloseToDouble(chain.big[i], big, sumAbs, describe(s) + " big[" + std::to_string(i) + "]");
            x = bruteSlice(s, z, big);
            expectCloseToDouble(chain.small[i + 1], x, bruteSlice(s, z, sumAbs),
                                describe(s) + " small[" + std::to_string(i + 1) + "]");
            // The slice of the float big is exactly the float small.
            std::vector<float> sliced(z.smallElems);
            cpuSlice(s, z, chain.big[i], sliced);
            EXPECT_EQ(sliced, chain.small[i + 1]) << describe(s);
        }
        // Without intermediates: only small[N], bit-identical.
        const CpuChain lean = cpuChain(s, steps, 2, false);
        ASSERT_EQ(lean.small.size(), steps + 1u);
        for (uint32_t i = 0; i < steps; ++i) {
            EXPECT_TRUE(lean.small[i].empty());
            EXPECT_TRUE(lean.big[i].empty());
        }
        EXPECT_EQ(lean.output(), chain.output()) << describe(s);
        // Intermediates without the bigs (what --check-steps --reference cpu keeps): every
        // small bit-identical, no big held.
        const CpuChain smallsOnly = cpuChain(s, steps, 2, /*keepIntermediates=*/true, /*keepBig=*/false);
        ASSERT_EQ(smallsOnly.small.size(), steps + 1u);
        for (uint32_t i = 0; i < steps; ++i) EXPECT_TRUE(smallsOnly.big[i].empty());
        for (uint32_t i = 0; i <= steps; ++i) EXPECT_EQ(smallsOnly.small[i], chain.small[i]) << describe(s);
        EXPECT_GT(chain.multiplyAdds, 0u);
    }
}

TEST_P(CpuReference, ChainLengthZeroIsTheInput) {
    const Shape s = presetShape("tiny");
    const CpuChain chain = cpuChain(s, 0, 0, false);
    ASSERT_EQ(chain.small.size(), 1u);
    EXPECT_EQ(chain.output(), makeInput(computeSizes(s)));
    const Tolerance tol = cpuTolerance(s, 0);
    EXPECT_TRUE(compareWithTolerance(chain.output(), chain.output(), tol).ok());
}

TEST_P(CpuReference, ChainPresetsMatchBruteForce) {
    for (const char* name : {"tiny", "small"}) {
        const Shape s = presetShape(name);
        const uint32_t steps = 7;
        const std::vector<double> want = bruteChain<double>(s, steps);
        const CpuChain chain = cpuChain(s, steps, 0, false);
        // float64 chains agree to far better than float; compare at float rounding.
        for (size_t i = 0; i < want.size(); ++i) {
            ASSERT_NEAR(chain.output()[i], want[i], std::ldexp(std::fabs(want[i]), -23) + 1e-44)
                << name << " element " << i;
        }
    }
}

// ---- Tolerance ----------------------------------------------------------------------------

TEST(CpuReferenceTolerance, Constants) {
    const Shape s = presetShape("small");
    const Tolerance t = cpuTolerance(s, 3);
    EXPECT_EQ(t.steps, 3u);
    EXPECT_EQ(t.termsPerOutput, 16u * 3u * 2u);  // C * ceil(3/1) * ceil(4/2)
    EXPECT_EQ(t.unitRoundoff, std::ldexp(1.0, -23));
    const double ku = 96 * std::ldexp(1.0, -23);
    EXPECT_DOUBLE_EQ(t.gamma, ku / (1 - ku));
    EXPECT_NEAR(t.relative, std::pow(1 + t.gamma, 3) - 1, 1e-7 * t.relative + 1e-7);
    EXPECT_GT(t.relative, std::pow(1 + t.gamma, 3) - 1);
    EXPECT_GT(t.absolute, 0.0);
    EXPECT_LT(t.absolute, 1e-30);
    EXPECT_EQ(t.coverage, 9.0);
    const ChainSizes z = computeSizes(s);
    ASSERT_EQ(t.magnitude.size(), z.smallElems);
    ASSERT_EQ(t.deviation.size(), z.smallElems);
    // The magnitude chain bounds the reference; the deviation is positive where data is.
    const CpuChain chain = cpuChain(s, 3, 0, false);
    for (size_t i = 0; i < t.magnitude.size(); ++i) {
        ASSERT_GE(t.magnitude[i], std::fabs(chain.output()[i])) << i;
        ASSERT_GT(t.deviation[i], 0.0f) << i;
        ASSERT_LE(t.allowed(i, chain.output()[i]), t.worstCase(i)) << i;
        ASSERT_LE(t.allowed(i, chain.output()[i]), t.probable(i, chain.output()[i])) << i;
    }
    // After one step the local deviation is u sqrt(k + 1) times the sum of |terms|, which is
    // M_1 (the input is positive): deviation = u sqrt(97) M_1 up to float rounding.
    const Tolerance one = cpuTolerance(s, 1);
    for (size_t i = 0; i < one.magnitude.size(); i += 97) {
        EXPECT_NEAR(one.deviation[i], std::ldexp(1.0, -23) * std::sqrt(97.0) * one.magnitude[i],
                    1e-6 * one.deviation[i])
            << i;
    }
    // Stride larger than the kernel: one term per channel.
    Shape wide = s;
    wide.strideW = 5;
    wide.kernelW = 4;
    EXPECT_EQ(cpuTolerance(wide, 1).termsPerOutput, 16u * 3u * 1u);
}

// The float32 chain in the shader's loop order passes (with and without FMA); the same
// with one output channel's contribution dropped in one step does not; neither do zeros
// or NaN.
TEST_P(CpuReference, ToleranceAcceptsFloat32AndRejectsDroppedChannel) {
    for (const char* name : {"tiny", "small"}) {
        const Shape s = presetShape(name);
        for (uint32_t steps : {1u, 2u, 4u, 7u}) {
            const std::string what = std::string(name) + " N=" + std::to_string(steps);
            const CpuChain ref = cpuChain(s, steps, 0, false);
            const Tolerance tol = cpuTolerance(s, steps);
            const size_t n = ref.output().size();

            for (bool fused : {false, true}) {
                const std::vector<float> gpu = bruteChain<float>(s, steps, -1, fused);
                const ToleranceReport pass = compareWithTolerance(gpu, ref.output(), tol);
                EXPECT_TRUE(pass.ok()) << what << (fused ? " fma" : "") << ": " << pass.exceeded
                                       << " exceeded, worst ratio " << pass.worstRatio;
                // Not merely passing: well inside (the bound is not tuned to the data).
                EXPECT_LT(pass.worstRatio, 0.25) << what << (fused ? " fma" : "");
                EXPECT_GT(pass.maxAbsDiff, 0.0) << what << " (float32 and float64 should differ)";
            }

            for (uint32_t dropAt : {0u, steps - 1}) {
                for (int co : {0, int(s.channels) - 1}) {
                    const std::vector<float> dropped = bruteChain<float>(s, steps, int(dropAt), false, co);
                    const ToleranceReport fail = compareWithTolerance(dropped, ref.output(), tol);
                    EXPECT_FALSE(fail.ok()) << what << " dropped co " << co << " at step " << dropAt;
                    EXPECT_GT(fail.exceeded, n * 9 / 10) << what << " dropped co " << co << " at step " << dropAt;
                }
            }

            const std::vector<float> zeros(n, 0.0f);
            EXPECT_GT(compareWithTolerance(zeros, ref.output(), tol).exceeded, n * 9 / 10) << what;
            std::vector<float> nan = ref.output();
            nan[n / 2] = std::numeric_limits<float>::quiet_NaN();
            const ToleranceReport r = compareWithTolerance(nan, ref.output(), tol);
            EXPECT_EQ(r.nonfinite, 1u);
            EXPECT_EQ(r.exceeded, 1u);
            EXPECT_EQ(r.worstIndex, n / 2);
            EXPECT_TRUE(std::isinf(r.worstRatio));
        }
    }
}

TEST_P(CpuReference, ToleranceAcceptsFloat32OnRandomShapes) {
    std::mt19937 rng(4242);
    for (int t = 0; t < 20; ++t) {
        const Shape s = randomShape(rng);
        const uint32_t steps = 1 + uint32_t(t % 3);
        const CpuChain ref = cpuChain(s, steps, 0, false);
        const Tolerance tol = cpuTolerance(s, steps);
        const ToleranceReport r = compareWithTolerance(bruteChain<float>(s, steps), ref.output(), tol);
        EXPECT_TRUE(r.ok()) << describe(s) << " N=" << steps << " worst " << r.worstRatio;
    }
}

}  // namespace
}  // namespace repro
