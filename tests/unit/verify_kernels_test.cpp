// Unit tests for the vectorised, threaded verification kernels: computeStats and
// compareBitExact (src/reference/stats.cpp) and compareWithTolerance (src/reference/cpu_reference.cpp)
// against the element-by-element loops they replace (restated here), on sizes around the
// chunk and vector boundaries, with NaN, Inf, the poison sentinel, denormals and -0 placed
// at and across those boundaries, for several thread counts and both SIMD paths.
#include "reference/cpu_reference.hpp"
#include "cli/options.hpp"
#include "core/rust_format.hpp"
#include "reference/stats.hpp"

#include <gtest/gtest.h>

#include "cpu_kernel_param.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace repro {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
const float kPoison = std::bit_cast<float>(kPoisonPattern);
constexpr size_t kC = kVerifyChunk;

// ---- The sequential loops, as they were before vectorisation ------------------------------

BufferStats sequentialStats(std::span<const float> values) {
    BufferStats s;
    s.elements = values.size();
    for (const float v : values) {
        if (!std::isfinite(v)) {
            ++s.nonFinite;
            if (std::bit_cast<uint32_t>(v) == kPoisonPattern) ++s.poisoned;
        } else if (v != 0.0f) {
            ++s.nonZero;
            if (std::fabs(v) < FLT_MIN) ++s.denormal;
        }
        s.sum += static_cast<double>(v);
        s.maxAbs = std::fmax(s.maxAbs, std::fabs(v));
    }
    return s;
}

Difference sequentialDiff(std::span<const float> values, std::span<const float> reference) {
    Difference d;
    const size_t n = std::min(values.size(), reference.size());
    for (size_t i = 0; i < n; ++i) {
        if (std::bit_cast<uint32_t>(values[i]) == std::bit_cast<uint32_t>(reference[i])) continue;
        if (d.count++ == 0) {
            d.firstIndex = i;
            d.first = values[i];
            d.firstReference = reference[i];
        }
        if (std::isfinite(values[i]) && std::isfinite(reference[i])) {
            d.maxAbs = std::fmax(d.maxAbs, std::fabs(double{values[i]} - double{reference[i]}));
        }
    }
    const size_t extra = std::max(values.size(), reference.size()) - n;
    if (d.count == 0 && extra > 0) d.firstIndex = n;
    d.count += extra;
    return d;
}

ToleranceReport sequentialTolerance(std::span<const float> gpu, std::span<const float> cpu, const Tolerance& tol) {
    ToleranceReport r;
    r.checked = cpu.size();
    for (size_t j = 0; j < cpu.size(); ++j) {
        const double allowed = tol.allowed(j, cpu[j]);
        r.maxAllowed = std::max(r.maxAllowed, allowed);
        r.maxAbsReference = std::max(r.maxAbsReference, std::fabs(double(cpu[j])));
        double ratio;
        if (!std::isfinite(gpu[j])) {
            ++r.nonfinite;
            ratio = std::numeric_limits<double>::infinity();
        } else {
            const double diff = std::fabs(double(gpu[j]) - double(cpu[j]));
            r.maxAbsDiff = std::max(r.maxAbsDiff, diff);
            ratio = diff / allowed;
        }
        if (!(ratio <= 1.0)) ++r.exceeded;
        if (allowed >= std::fabs(double(cpu[j]))) ++r.uninformative;
        if (ratio > r.worstRatio) {
            r.worstRatio = ratio;
            r.worstIndex = j;
        }
    }
    return r;
}

// ---- Data -------------------------------------------------------------------------------

// Mixed signs, magnitudes from 1e-14 to 3e-2 (wide enough that float64 sums round, so a
// change of association shows), plus exact zeros.
std::vector<float> randomValues(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
    std::uniform_int_distribution<int> exponent(-45, -5);
    std::vector<float> v(n);
    for (float& x : v) {
        x = (rng() % 17 == 0) ? 0.0f : std::ldexp(mantissa(rng), exponent(rng));
    }
    return v;
}

// Indices at and beside every boundary the kernels have: the vector step (8), the chunk,
// and the ends.
std::vector<size_t> boundaryIndices(size_t n) {
    std::vector<size_t> at;
    for (const size_t base : {size_t{0}, size_t{8}, kC, 2 * kC, 3 * kC, n}) {
        for (const int delta : {-9, -8, -1, 0, 1, 7}) {
            const auto i = static_cast<int64_t>(base) + delta;
            if (i >= 0 && static_cast<size_t>(i) < n) at.push_back(static_cast<size_t>(i));
        }
    }
    return at;
}

// Sizes around the vector step and the chunk; the full-size small[N].
const std::vector<size_t> kSizes = {0,      1,      7,          8,      9,          63,         kC - 1, kC,
                                    kC + 1, kC + 9, 2 * kC - 1, 2 * kC, 2 * kC + 7, 3 * kC + 5, 3686400};

const std::vector<unsigned> kThreads = {1, 2, 3, 8, 64, 0};

// Runs a test body once per SIMD path: the automatic choice and the forced baseline.
class VerifyKernels : public test::PerCpuKernel {};

INSTANTIATE_TEST_SUITE_P(Kernels, VerifyKernels, test::cpuKernels(), test::cpuKernelName);

// Counts and maxAbs exactly; the sum to the last digit repro prints and within 1e-12 of the
// sequential sum relative to the sum of |x| (both are rounded sums of the same terms).
void expectStatsMatch(const BufferStats& got, const BufferStats& want, std::span<const float> v,
                      const std::string& what) {
    EXPECT_EQ(got.elements, want.elements) << what;
    EXPECT_EQ(got.nonZero, want.nonZero) << what;
    EXPECT_EQ(got.nonFinite, want.nonFinite) << what;
    EXPECT_EQ(got.denormal, want.denormal) << what;
    EXPECT_EQ(got.poisoned, want.poisoned) << what;
    EXPECT_EQ(std::bit_cast<uint32_t>(got.maxAbs), std::bit_cast<uint32_t>(want.maxAbs)) << what;
    EXPECT_EQ(rustExp(got.sum), rustExp(want.sum)) << what;
    if (std::isfinite(want.sum)) {
        double sumAbs = 0;
        for (const float x : v) sumAbs += std::fabs(double(x));
        EXPECT_LE(std::fabs(got.sum - want.sum), 1e-12 * sumAbs) << what;
    } else {
        EXPECT_EQ(std::isnan(got.sum), std::isnan(want.sum)) << what;
        if (!std::isnan(want.sum)) {
            EXPECT_EQ(got.sum, want.sum) << what;
        }
    }
}

// ---- computeStats -------------------------------------------------------------------------

TEST_P(VerifyKernels, StatsMatchTheSequentialLoopOnEverySize) {
    for (const size_t n : kSizes) {
        const std::vector<float> v = randomValues(n, static_cast<uint32_t>(n) + 1);
        const BufferStats want = sequentialStats(v);
        const BufferStats first = computeStats(v, 1);
        expectStatsMatch(first, want, v, "n " + std::to_string(n));
        for (const unsigned t : kThreads) {
            const BufferStats s = computeStats(v, t);
            // Not only close: the same bits for every thread count.
            EXPECT_EQ(std::bit_cast<uint64_t>(s.sum), std::bit_cast<uint64_t>(first.sum)) << n << " threads " << t;
            EXPECT_EQ(s.nonZero, first.nonZero);
        }
    }
}

TEST_P(VerifyKernels, SpecialValuesAtEveryBoundary) {
    const std::vector<float> specials = {kNaN,
                                         -kNaN,
                                         kInf,
                                         -kInf,
                                         kPoison,
                                         1e-40f,
                                         -std::numeric_limits<float>::denorm_min(),
                                         std::nextafter(FLT_MIN, 0.0f),
                                         FLT_MIN,
                                         -0.0f,
                                         std::numeric_limits<float>::max()};
    for (const size_t n : {size_t{9}, kC + 9, 3 * kC + 5}) {
        for (const float special : specials) {
            std::vector<float> v = randomValues(n, 7);
            for (const size_t i : boundaryIndices(n)) v[i] = special;
            const std::string what =
                "n " + std::to_string(n) + " special bits " + std::to_string(std::bit_cast<uint32_t>(special));
            const BufferStats want = sequentialStats(v);
            for (const unsigned t : kThreads) expectStatsMatch(computeStats(v, t), want, v, what);
        }
    }
}

TEST_P(VerifyKernels, MaxAbsOfInfinityAndAllNaN) {
    std::vector<float> v(3 * kC, kNaN);
    EXPECT_EQ(computeStats(v, 4).maxAbs, 0.0f);
    EXPECT_FALSE(std::signbit(computeStats(v, 4).maxAbs));
    v[2 * kC + 3] = -kInf;
    EXPECT_EQ(computeStats(v, 4).maxAbs, kInf);
    std::vector<float> zeros(3 * kC, -0.0f);
    const BufferStats z = computeStats(zeros, 4);
    EXPECT_EQ(z.nonZero, 0u);
    EXPECT_FALSE(std::signbit(z.sum));  // +0, as 0.0 + -0.0 is
    EXPECT_FALSE(std::signbit(z.maxAbs));
}

TEST_P(VerifyKernels, NaNInAnyChunkMakesTheSumNaN) {
    for (const size_t at : {size_t{0}, kC - 1, kC, 2 * kC + 1, 3 * kC - 1}) {
        std::vector<float> v = randomValues(3 * kC, 3);
        v[at] = kNaN;
        EXPECT_TRUE(std::isnan(computeStats(v, 3).sum)) << at;
    }
    std::vector<float> v = randomValues(3 * kC, 3);
    v[5] = kInf;
    EXPECT_EQ(computeStats(v, 3).sum, std::numeric_limits<double>::infinity());
    v[2 * kC + 5] = -kInf;  // inf + -inf in different chunks: NaN, as in one sequential sum
    EXPECT_TRUE(std::isnan(computeStats(v, 3).sum));
}

// The data the tool sums: the chain's input at full size and a CPU chain's output.
TEST_P(VerifyKernels, SumPrintsTheSameAsTheSequentialSumOnChainData) {
    const std::vector<float> input = makeInput(computeSizes(Shape{}));
    expectStatsMatch(computeStats(input), sequentialStats(input), input, "full-size small[0]");
    for (const char* preset : {"tiny", "small"}) {
        const CpuChain chain = cpuChain(presetShape(preset), 3, 0, false);
        expectStatsMatch(computeStats(chain.output()), sequentialStats(chain.output()), chain.output(), preset);
    }
}

// Both SIMD paths give the same bits (the sum included).
TEST(VerifyKernelsPaths, BaselineAndAutoAgreeBitForBit) {
    const std::vector<float> v = randomValues(3 * kC + 5, 11);
    std::optional<std::string> saved;
    if (const char* old = std::getenv("REPRO_CPU_KERNEL")) saved = old;
    unsetenv("REPRO_CPU_KERNEL");
    const BufferStats automatic = computeStats(v, 2);
    setenv("REPRO_CPU_KERNEL", "baseline", 1);
    const BufferStats baseline = computeStats(v, 2);
    if (saved) {
        setenv("REPRO_CPU_KERNEL", saved->c_str(), 1);
    } else {
        unsetenv("REPRO_CPU_KERNEL");
    }
    EXPECT_EQ(std::bit_cast<uint64_t>(automatic.sum), std::bit_cast<uint64_t>(baseline.sum));
    EXPECT_EQ(automatic.nonZero, baseline.nonZero);
    EXPECT_EQ(automatic.maxAbs, baseline.maxAbs);
}

// ---- compareBitExact ----------------------------------------------------------------------

void expectDiffMatch(const Difference& got, const Difference& want, const std::string& what) {
    EXPECT_EQ(got.count, want.count) << what;
    EXPECT_EQ(got.firstIndex, want.firstIndex) << what;
    EXPECT_EQ(std::bit_cast<uint32_t>(got.first), std::bit_cast<uint32_t>(want.first)) << what;
    EXPECT_EQ(std::bit_cast<uint32_t>(got.firstReference), std::bit_cast<uint32_t>(want.firstReference)) << what;
    EXPECT_EQ(std::bit_cast<uint64_t>(got.maxAbs), std::bit_cast<uint64_t>(want.maxAbs)) << what;
}

TEST_P(VerifyKernels, BitExactMatchesTheSequentialLoop) {
    for (const size_t n : kSizes) {
        const std::vector<float> a = randomValues(n, 5);
        std::vector<float> b = a;
        for (const unsigned t : kThreads) expectDiffMatch(compareBitExact(a, b, t), Difference{}, "equal");
        // Differences at the boundaries only, then everywhere.
        for (const size_t i : boundaryIndices(n)) b[i] = std::nextafter(b[i], 1.0f);
        for (const unsigned t : kThreads) {
            expectDiffMatch(compareBitExact(a, b, t), sequentialDiff(a, b), "boundaries, n " + std::to_string(n));
        }
        const std::vector<float> other = randomValues(n, 6);
        for (const unsigned t : kThreads) {
            expectDiffMatch(compareBitExact(a, other, t), sequentialDiff(a, other), "all, n " + std::to_string(n));
        }
    }
}

TEST_P(VerifyKernels, BitExactSpecialPairs) {
    const size_t n = 3 * kC + 5;
    const std::vector<float> a = randomValues(n, 9);
    // (value, reference) pairs placed in chunk 2: -0 vs +0, NaN payloads, Inf vs finite.
    const std::vector<std::pair<float, float>> pairs = {
        {0.0f, -0.0f},
        {kNaN, -kNaN},
        {kNaN, 1.0f},
        {kInf, 1.0f},
        {kInf, -kInf},
        {kPoison, 0.0f},
        {std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()},
        {1e-40f, -1e-40f}};
    for (const auto& [x, y] : pairs) {
        std::vector<float> va = a, vb = a;
        va[2 * kC + 1] = x;
        vb[2 * kC + 1] = y;
        va[n - 1] = 1.0f;  // and a finite difference in the tail
        for (const unsigned t : kThreads) {
            expectDiffMatch(compareBitExact(va, vb, t), sequentialDiff(va, vb),
                            "pair " + std::to_string(std::bit_cast<uint32_t>(x)));
        }
    }
}

TEST_P(VerifyKernels, BitExactUnequalLengths) {
    const std::vector<float> a = randomValues(2 * kC + 3, 4);
    std::vector<float> shorter(a.begin(), a.begin() + kC + 1);
    expectDiffMatch(compareBitExact(a, shorter, 4), sequentialDiff(a, shorter), "longer values");
    expectDiffMatch(compareBitExact(shorter, a, 4), sequentialDiff(shorter, a), "longer reference");
    shorter[kC] = -shorter[kC];
    expectDiffMatch(compareBitExact(a, shorter, 4), sequentialDiff(a, shorter), "and a difference");
}

// ---- compareWithTolerance -----------------------------------------------------------------

void expectToleranceMatch(const ToleranceReport& got, const ToleranceReport& want, const std::string& what) {
    EXPECT_EQ(got.checked, want.checked) << what;
    EXPECT_EQ(got.exceeded, want.exceeded) << what;
    EXPECT_EQ(got.nonfinite, want.nonfinite) << what;
    EXPECT_EQ(got.uninformative, want.uninformative) << what;
    EXPECT_EQ(got.worstIndex, want.worstIndex) << what;
    EXPECT_EQ(std::bit_cast<uint64_t>(got.worstRatio), std::bit_cast<uint64_t>(want.worstRatio)) << what;
    EXPECT_EQ(std::bit_cast<uint64_t>(got.maxAbsDiff), std::bit_cast<uint64_t>(want.maxAbsDiff)) << what;
    EXPECT_EQ(std::bit_cast<uint64_t>(got.maxAllowed), std::bit_cast<uint64_t>(want.maxAllowed)) << what;
    EXPECT_EQ(std::bit_cast<uint64_t>(got.maxAbsReference), std::bit_cast<uint64_t>(want.maxAbsReference)) << what;
}

// A tolerance of the shape cpuTolerance gives, with values chosen so that some elements
// pass, some exceed and some are uninformative.
Tolerance syntheticTolerance(std::span<const float> cpu, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> scale(0.0f, 2.0f);
    Tolerance t;
    t.relative = 3e-6;
    t.absolute = 1e-38;
    t.coverage = 9;
    t.magnitude.resize(cpu.size());
    t.deviation.resize(cpu.size());
    for (size_t i = 0; i < cpu.size(); ++i) {
        t.magnitude[i] = std::fabs(cpu[i]) * scale(rng) * 1e5f;
        t.deviation[i] = std::fabs(cpu[i]) * scale(rng) * 1e-7f;
    }
    return t;
}

std::vector<float> perturbed(std::span<const float> cpu, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> rel(-3e-6f, 3e-6f);
    std::vector<float> gpu(cpu.begin(), cpu.end());
    for (float& x : gpu) x += x * rel(rng);
    return gpu;
}

TEST_P(VerifyKernels, ToleranceMatchesTheSequentialLoop) {
    for (const size_t n : kSizes) {
        const std::vector<float> cpu = randomValues(n, 21);
        const Tolerance tol = syntheticTolerance(cpu, 22);
        const std::vector<float> gpu = perturbed(cpu, 23);
        const ToleranceReport want = sequentialTolerance(gpu, cpu, tol);
        if (n > 1000) {
            ASSERT_GT(want.exceeded, 0u);  // the data exercise both outcomes
            ASSERT_LT(want.exceeded, n);
            ASSERT_GT(want.uninformative, 0u);
        }
        for (const unsigned t : kThreads) {
            expectToleranceMatch(compareWithTolerance(gpu, cpu, tol, t), want, "n " + std::to_string(n));
        }
    }
}

TEST_P(VerifyKernels, ToleranceSpecialValuesAndTies) {
    const size_t n = 3 * kC + 5;
    const std::vector<float> cpu = randomValues(n, 31);
    const std::vector<float> base = perturbed(cpu, 32);
    const Tolerance tol = syntheticTolerance(cpu, 33);
    for (const float special : {kNaN, kInf, -kInf, kPoison, -0.0f, 1e-40f}) {
        std::vector<float> gpu = base;
        for (const size_t i : boundaryIndices(n)) gpu[i] = special;
        for (const unsigned t : kThreads) {
            expectToleranceMatch(compareWithTolerance(gpu, cpu, tol, t), sequentialTolerance(gpu, cpu, tol),
                                 "special " + std::to_string(std::bit_cast<uint32_t>(special)));
        }
    }
    // The same worst ratio in several lanes and chunks: the first index wins.
    std::vector<float> same(n, 1.0f), ref(n, 1.0f);
    Tolerance flat;
    flat.relative = 1.0;
    flat.absolute = 0.0;
    flat.coverage = 1.0;
    flat.magnitude.assign(n, 1.0f);
    flat.deviation.assign(n, 0.5f);
    for (const size_t i : {size_t{2 * kC + 3}, size_t{kC + 6}, size_t{kC + 5}, size_t{n - 1}}) same[i] = 2.0f;
    for (const unsigned t : kThreads) {
        const ToleranceReport r = compareWithTolerance(same, ref, flat, t);
        expectToleranceMatch(r, sequentialTolerance(same, ref, flat), "ties");
        EXPECT_EQ(r.worstIndex, kC + 5);
    }
    // Everything equal: worst ratio 0 at index 0.
    expectToleranceMatch(compareWithTolerance(ref, ref, flat, 4), sequentialTolerance(ref, ref, flat), "equal");
    // NaN in the tolerance itself: std::min and std::max skip it as the loop does.
    Tolerance broken = tol;
    broken.deviation[kC + 2] = kNaN;
    broken.magnitude[2 * kC + 2] = kNaN;
    expectToleranceMatch(compareWithTolerance(base, cpu, broken, 4), sequentialTolerance(base, cpu, broken),
                         "NaN in the tolerance");
}

}  // namespace
}  // namespace repro
