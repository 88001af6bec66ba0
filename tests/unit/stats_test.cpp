// Unit tests for src/core/stats.{hpp,cpp}: buffer statistics, bit-exact comparison and
// classification on synthetic buffers.
#include "reference/stats.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace repro {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kDenormMin = std::numeric_limits<float>::denorm_min();  // 2^-149

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

Classified classifyAgainst(const std::vector<float>& values, const std::vector<float>& reference) {
    return classify(values, computeStats(values), std::span<const float>(reference), "split");
}

Classified classifyAlone(const std::vector<float>& values) {
    return classify(values, computeStats(values), std::nullopt, "split");
}

// ---- computeStats -------------------------------------------------------------------------

TEST(ComputeStats, Empty) {
    const BufferStats s = computeStats({});
    EXPECT_EQ(s.elements, 0u);
    EXPECT_EQ(s.nonZero, 0u);
    EXPECT_EQ(s.nonFinite, 0u);
    EXPECT_EQ(s.denormal, 0u);
    EXPECT_EQ(s.sum, 0.0);
    EXPECT_EQ(s.maxAbs, 0.0f);
}

TEST(ComputeStats, AllZeroIncludingNegativeZero) {
    const std::vector<float> v{0.0f, -0.0f, 0.0f, -0.0f, 0.0f};
    const BufferStats s = computeStats(v);
    EXPECT_EQ(s.elements, 5u);
    EXPECT_EQ(s.nonZero, 0u);  // -0 is zero too
    EXPECT_EQ(s.nonFinite, 0u);
    EXPECT_EQ(s.denormal, 0u);
    EXPECT_EQ(s.sum, 0.0);
    EXPECT_EQ(s.maxAbs, 0.0f);
    EXPECT_FALSE(std::signbit(s.maxAbs));
}

TEST(ComputeStats, Mixed) {
    const std::vector<float> v{1.0f, -2.0f, 0.0f, 0.5f, -0.25f, 0.0f};
    const BufferStats s = computeStats(v);
    EXPECT_EQ(s.elements, 6u);
    EXPECT_EQ(s.nonZero, 4u);
    EXPECT_EQ(s.nonFinite, 0u);
    EXPECT_EQ(s.denormal, 0u);
    EXPECT_EQ(s.sum, -0.75);
    EXPECT_EQ(s.maxAbs, 2.0f);  // |-2|: absolute value, not the maximum
}

TEST(ComputeStats, SumIsAccumulatedInDouble) {
    // 1e8f is exact; in f32, 1e8 + 1 rounds back to 1e8 (spacing 8) and the sum would be 0.
    const std::vector<float> v{1e8f, 1.0f, -1e8f};
    EXPECT_EQ(computeStats(v).sum, 1.0);
    // 0.1f widened is 0.100000001490116119384765625; ten of them in f64 are not 1.0f.
    const std::vector<float> tenths(10, 0.1f);
    EXPECT_DOUBLE_EQ(computeStats(tenths).sum, 10 * static_cast<double>(0.1f));
}

TEST(ComputeStats, NonFiniteCountedAndExcludedFromNonZero) {
    const std::vector<float> v{1.0f, kNaN, kInf, -kInf, 0.0f, -3.0f};
    const BufferStats s = computeStats(v);
    EXPECT_EQ(s.elements, 6u);
    EXPECT_EQ(s.nonFinite, 3u);
    EXPECT_EQ(s.nonZero, 2u);  // 1 and -3 only
    EXPECT_EQ(s.denormal, 0u);
}

TEST(ComputeStats, NaNPropagatesIntoSum) {
    const std::vector<float> v{1.0f, kNaN, 2.0f};
    EXPECT_TRUE(std::isnan(computeStats(v).sum));
    const std::vector<float> inf{1.0f, kInf};
    EXPECT_EQ(computeStats(inf).sum, std::numeric_limits<double>::infinity());
}

TEST(ComputeStats, MaxAbsIgnoresNaN) {
    // NaN first, in the middle and last: it never replaces a number, as Rust's f32::max.
    EXPECT_EQ(computeStats(std::vector<float>{kNaN, 2.0f, -3.0f}).maxAbs, 3.0f);
    EXPECT_EQ(computeStats(std::vector<float>{2.0f, kNaN, -1.0f}).maxAbs, 2.0f);
    EXPECT_EQ(computeStats(std::vector<float>{-3.0f, 2.0f, kNaN}).maxAbs, 3.0f);
    EXPECT_EQ(computeStats(std::vector<float>{kNaN, kNaN}).maxAbs, 0.0f);
    // Infinities are numbers: |-inf| is the maximum.
    EXPECT_EQ(computeStats(std::vector<float>{1.0f, -kInf}).maxAbs, kInf);
}

TEST(ComputeStats, DenormalsCounted) {
    const std::vector<float> v{1e-40f, -kDenormMin, FLT_MIN, -FLT_MIN, 0.0f, 1.0f};
    const BufferStats s = computeStats(v);
    EXPECT_EQ(s.denormal, 2u);  // FLT_MIN is the smallest normal, not a denormal
    EXPECT_EQ(s.nonZero, 5u);   // denormals are non-zero
    EXPECT_EQ(s.nonFinite, 0u);
    EXPECT_EQ(s.maxAbs, 1.0f);
    // The largest denormal, just below FLT_MIN.
    const float largestDenormal = std::nextafter(FLT_MIN, 0.0f);
    EXPECT_EQ(computeStats(std::vector<float>{largestDenormal}).denormal, 1u);
}

// ---- isUnderflowed ---------------------------------------------------------------------

TEST(IsUnderflowed, AllZeroOrDenormalIsUnderflowed) {
    EXPECT_TRUE(isUnderflowed(computeStats(std::vector<float>{0.0f, -0.0f, 0.0f})));
    EXPECT_TRUE(isUnderflowed(computeStats(std::vector<float>{0.0f, 1e-40f, -kDenormMin})));
    EXPECT_TRUE(isUnderflowed(computeStats(std::vector<float>{1e-40f, 1e-41f})));
}

TEST(IsUnderflowed, AnyNormalValueOrNonFiniteIsNot) {
    EXPECT_FALSE(isUnderflowed(computeStats(std::vector<float>{0.0f, 1e-40f, FLT_MIN})));
    EXPECT_FALSE(isUnderflowed(computeStats(std::vector<float>{1.0f, 2.0f})));
    EXPECT_FALSE(isUnderflowed(computeStats(std::vector<float>{0.0f, kNaN})));
    EXPECT_FALSE(isUnderflowed(computeStats(std::vector<float>{0.0f, kInf})));
}

// ---- compareBitExact -------------------------------------------------------------------

TEST(CompareBitExact, IdenticalBuffers) {
    const std::vector<float> a{1.0f, -2.0f, 0.0f, 1e-40f};
    const Difference d = compareBitExact(a, a);
    EXPECT_EQ(d.count, 0u);
    EXPECT_EQ(d.maxAbs, 0.0);
}

TEST(CompareBitExact, PositiveAndNegativeZeroDiffer) {
    const std::vector<float> a{1.0f, 0.0f, 2.0f};
    const std::vector<float> b{1.0f, -0.0f, 2.0f};
    const Difference d = compareBitExact(a, b);
    EXPECT_EQ(d.count, 1u);
    EXPECT_EQ(d.firstIndex, 1u);
    EXPECT_FALSE(std::signbit(d.first));
    EXPECT_TRUE(std::signbit(d.firstReference));
    EXPECT_EQ(d.maxAbs, 0.0);  // they differ in bits, not in value
}

TEST(CompareBitExact, FirstIndexCountAndMaxAbs) {
    const std::vector<float> a{1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
    const std::vector<float> b{1.0f, 2.5f, 3.0f, 1.0f, 5.0f};
    const Difference d = compareBitExact(a, b);
    EXPECT_EQ(d.count, 2u);
    EXPECT_EQ(d.firstIndex, 1u);
    EXPECT_EQ(d.first, 2.0f);
    EXPECT_EQ(d.firstReference, 2.5f);
    EXPECT_EQ(d.maxAbs, 3.0);  // |4 - 1|, not the first difference
}

TEST(CompareBitExact, MaxAbsIsComputedInDouble) {
    // FLT_MAX - (-FLT_MAX) overflows f32 but not f64.
    const std::vector<float> a{FLT_MAX};
    const std::vector<float> b{-FLT_MAX};
    EXPECT_EQ(compareBitExact(a, b).maxAbs, 2.0 * static_cast<double>(FLT_MAX));
    // One ulp at 1.0f is 2^-23: visible in the difference.
    const std::vector<float> c{1.0f};
    const std::vector<float> e{std::nextafter(1.0f, 2.0f)};
    EXPECT_EQ(compareBitExact(c, e).maxAbs, std::ldexp(1.0, -23));
}

TEST(CompareBitExact, NaNsCompareByBitsAndStayOutOfMaxAbs) {
    // The same NaN bits are equal; a different payload differs.
    const float otherNaN = std::bit_cast<float>(std::bit_cast<uint32_t>(kNaN) | 1u);
    ASSERT_TRUE(std::isnan(otherNaN));
    const std::vector<float> a{kNaN, 1.0f};
    EXPECT_EQ(compareBitExact(a, a).count, 0u);
    const std::vector<float> b{otherNaN, 1.0f};
    EXPECT_EQ(compareBitExact(a, b).count, 1u);
    // A NaN against a number counts as a difference but does not poison maxAbs.
    const std::vector<float> c{kNaN, 1.0f, 2.0f};
    const std::vector<float> e{5.0f, 1.0f, 2.5f};
    const Difference d = compareBitExact(c, e);
    EXPECT_EQ(d.count, 2u);
    EXPECT_EQ(d.firstIndex, 0u);
    EXPECT_TRUE(std::isnan(d.first));
    EXPECT_EQ(d.maxAbs, 0.5);
    // Infinities are left out of maxAbs too.
    const std::vector<float> f{kInf, 1.0f};
    const std::vector<float> g{1.0f, 1.0f};
    EXPECT_EQ(compareBitExact(f, g).maxAbs, 0.0);
}

TEST(CompareBitExact, LengthMismatchCountsTheMissingElements) {
    const std::vector<float> a{1.0f, 2.0f, 3.0f, 4.0f};
    const std::vector<float> b{1.0f, 2.0f};
    EXPECT_EQ(compareBitExact(a, b).count, 2u);
    EXPECT_EQ(compareBitExact(b, a).count, 2u);
    const std::vector<float> c{1.0f, 9.0f};
    const Difference d = compareBitExact(a, c);
    EXPECT_EQ(d.count, 3u);  // index 1, plus the two elements c lacks
    EXPECT_EQ(d.firstIndex, 1u);
    // An empty buffer against a non-empty one differs everywhere.
    EXPECT_EQ(compareBitExact({}, a).count, 4u);
}

// Buffers that agree on their common prefix and differ only in length: the first
// difference is the first element only one side has, index min(len) = 2 here.
TEST(CompareBitExact, LengthOnlyMismatchPointsAtTheFirstMissingElement) {
    const std::vector<float> a{1.0f, 2.0f, 3.0f};
    const std::vector<float> b{1.0f, 2.0f};
    const Difference d = compareBitExact(a, b);
    ASSERT_EQ(d.count, 1u);
    EXPECT_EQ(d.firstIndex, 2u) << "firstIndex points at an element that is bit-identical";
}

// ---- classify -------------------------------------------------------------------------

TEST(Classify, NonFiniteWinsOverEverything) {
    // Mostly zero with one NaN, against a non-zero reference: nonfinite, not zero/mismatch.
    const std::vector<float> v{0.0f, kNaN, 0.0f, 0.0f};
    const std::vector<float> ref{1.0f, 2.0f, 3.0f, 4.0f};
    const Classified c = classifyAgainst(v, ref);
    EXPECT_EQ(c.kind, Classification::NonFinite);
    EXPECT_TRUE(contains(c.reason, "1 of 4")) << c.reason;
    EXPECT_EQ(classifyAlone(v).kind, Classification::NonFinite);
    // Even bit-identical to a reference with the same Inf.
    const std::vector<float> inf{1.0f, kInf};
    EXPECT_EQ(classifyAgainst(inf, inf).kind, Classification::NonFinite);
}

TEST(Classify, ZeroWithoutReference) {
    const std::vector<float> v(16, 0.0f);
    const Classified c = classifyAlone(v);
    EXPECT_EQ(c.kind, Classification::Zero);
    EXPECT_TRUE(contains(c.reason, "16")) << c.reason;
    EXPECT_TRUE(contains(c.reason, "no reference")) << c.reason;
}

TEST(Classify, NonZeroWithoutReferenceIsOk) {
    const std::vector<float> v{0.0f, 1.0f, 0.0f};
    const Classified c = classifyAlone(v);
    EXPECT_EQ(c.kind, Classification::Ok);
    EXPECT_TRUE(contains(c.reason, "no reference")) << c.reason;
    // A single denormal is finite and not zero.
    EXPECT_EQ(classifyAlone(std::vector<float>{0.0f, 1e-40f}).kind, Classification::Ok);
}

TEST(Classify, ZeroAgainstANonZeroReference) {
    const std::vector<float> v(8, 0.0f);
    std::vector<float> ref(8, 0.5f);
    const Classified c = classifyAgainst(v, ref);
    EXPECT_EQ(c.kind, Classification::Zero);
    EXPECT_TRUE(contains(c.reason, "split")) << c.reason;  // names the reference
    EXPECT_TRUE(contains(c.reason, "8")) << c.reason;
    // A reference that is non-zero in one element only is enough.
    std::vector<float> sparse(8, 0.0f);
    sparse[7] = 1e-3f;
    EXPECT_EQ(classifyAgainst(v, sparse).kind, Classification::Zero);
}

TEST(Classify, MismatchNamesTheFirstIndex) {
    const std::vector<float> ref{1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
    const std::vector<float> v{1.0f, 2.0f, 3.5f, 4.0f, 0.0f};
    const Classified c = classifyAgainst(v, ref);
    EXPECT_EQ(c.kind, Classification::Mismatch);
    EXPECT_TRUE(contains(c.reason, "index 2")) << c.reason;
    EXPECT_TRUE(contains(c.reason, "2 of 5")) << c.reason;
    EXPECT_TRUE(contains(c.reason, "split")) << c.reason;
    // Values in Rust's format: 3.5 vs 3, and the largest |diff| 5.
    EXPECT_TRUE(contains(c.reason, "3.5000e0 vs 3.0000e0")) << c.reason;
    EXPECT_TRUE(contains(c.reason, "5.0000e0")) << c.reason;
    EXPECT_EQ(c.reason.find('\n'), std::string::npos);
}

TEST(Classify, OneUlpIsAMismatch) {
    const std::vector<float> ref{1.0f, 2.0f};
    const std::vector<float> v{1.0f, std::nextafter(2.0f, 3.0f)};
    EXPECT_EQ(classifyAgainst(v, ref).kind, Classification::Mismatch);
}

TEST(Classify, NegativeZeroAgainstPositiveZeroIsNotOk) {
    // Bit-exact: a buffer of -0 is not identical to a reference of +0 with one non-zero.
    const std::vector<float> ref{0.0f, 1.0f};
    const std::vector<float> v{-0.0f, 1.0f};
    EXPECT_EQ(classifyAgainst(v, ref).kind, Classification::Mismatch);
}

TEST(Classify, OkWhenBitIdentical) {
    const std::vector<float> ref{1.0f, -2.0f, 0.0f, 1e-40f};
    const std::vector<float> v = ref;
    const Classified c = classifyAgainst(v, ref);
    EXPECT_EQ(c.kind, Classification::Ok);
    EXPECT_TRUE(contains(c.reason, "bit-identical")) << c.reason;
    EXPECT_TRUE(contains(c.reason, "split")) << c.reason;
}

TEST(Classify, AllZeroEqualToAnAllZeroReferenceIsOk) {
    // The verdict, not classify, decides that an underflowed reference is inconclusive.
    const std::vector<float> zeros(32, 0.0f);
    EXPECT_EQ(classifyAgainst(zeros, zeros).kind, Classification::Ok);
}

TEST(Classify, ReferenceNameIsUsed) {
    const std::vector<float> ref{1.0f};
    const std::vector<float> v{1.0f};
    const Classified c = classify(v, computeStats(v), std::span<const float>(ref), "the CPU reference");
    EXPECT_TRUE(contains(c.reason, "the CPU reference")) << c.reason;
}

// ---- names ------------------------------------------------------------------------------

TEST(ClassificationNames, NameStrings) {
    EXPECT_EQ(name(Classification::Ok), "ok");
    EXPECT_EQ(name(Classification::Zero), "zero");
    EXPECT_EQ(name(Classification::Mismatch), "mismatch");
    EXPECT_EQ(name(Classification::NonFinite), "nonfinite");
    EXPECT_EQ(name(Classification::Hang), "hang");
    EXPECT_EQ(name(Classification::NotRun), "not run");
    EXPECT_EQ(name(Classification::Inconclusive), "inconclusive");
}

TEST(ClassificationNames, IsWrongOnlyForZeroMismatchNonFinite) {
    EXPECT_TRUE(isWrong(Classification::Zero));
    EXPECT_TRUE(isWrong(Classification::Mismatch));
    EXPECT_TRUE(isWrong(Classification::NonFinite));
    EXPECT_FALSE(isWrong(Classification::Ok));
    EXPECT_FALSE(isWrong(Classification::Hang));  // a hang is exit 3, not "wrong output"
    EXPECT_FALSE(isWrong(Classification::NotRun));
    EXPECT_FALSE(isWrong(Classification::Inconclusive));
}

}  // namespace
}  // namespace repro
