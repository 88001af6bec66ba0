// Buffer statistics, bit-exact comparison and classification.
#include "reference/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "cli/options.hpp"
#include "core/enum_names.hpp"
#include "core/parallel.hpp"
#include "reference/simd_lanes.hpp"
#include "core/rust_format.hpp"

namespace repro {

namespace {

// ---- Vectorised kernels ------------------------------------------------------------------
//
// Written once over GCC vector types and instantiated for two register widths: 256-bit
// (AVX2, in wrappers compiled for it) and 128-bit (the x86-64 baseline, SSE2). Either way
// an iteration takes 8 elements, and element i of a chunk always lands in float64 sum lane
// i mod 8, so both paths compute exactly the same values.

using simd::kLanesOf;
using simd::laneSum;
using simd::loadLanes;
using simd::Narrow;
using simd::Wide;
using simd::widenLanes;

constexpr size_t kStep = 8;  // elements per iteration, and float64 sum lanes

constexpr int32_t kAbsMask = 0x7fffffff;
constexpr int32_t kInfBits = 0x7f800000;        // +inf: every |bits| at or above is non-finite
constexpr int32_t kMinNormalBits = 0x00800000;  // FLT_MIN

// Chunk results, combined by the caller in chunk order.
struct StatsPartial {
    uint64_t nonZero = 0, nonFinite = 0, denormal = 0, poisoned = 0;
    double sum = 0;
    uint32_t maxAbsBits = 0;  // bits of the largest |x| that is not NaN: for such x the
                              // order of the bits is the order of the values
};

// One element, the scalar form of the lane-wise rules below.
[[gnu::always_inline]] inline void statsElement(StatsPartial& p, float v) {
    const uint32_t bits = std::bit_cast<uint32_t>(v);
    const uint32_t a = bits & uint32_t{kAbsMask};
    if (a >= uint32_t{kInfBits}) {
        ++p.nonFinite;
        if (bits == kPoisonPattern) ++p.poisoned;
    } else if (a != 0) {
        ++p.nonZero;
        if (a < uint32_t{kMinNormalBits}) ++p.denormal;
    }
    p.sum += static_cast<double>(v);
    if (a <= uint32_t{kInfBits} && a > p.maxAbsBits) p.maxAbsBits = a;
}

// Masks are -1 where true, so `count -= mask` counts. Counts fit int32 lanes: a chunk has
// at most kVerifyChunk elements.
template <typename S>
[[gnu::always_inline]] inline StatsPartial statsChunk(const float* p, size_t n) {
    using Int = typename S::Int;
    using Double = typename S::Double;
    constexpr size_t kI = kLanesOf<Int>, kD = kLanesOf<Double>;
    Int nonZero{}, nonFinite{}, denormal{}, poisoned{}, maxBits{};
    Double sum[kStep / kD] = {};
    const auto poison = static_cast<int32_t>(kPoisonPattern);
    size_t i = 0;
    for (; i + kStep <= n; i += kStep) {
        for (size_t k = 0; k < kStep / kI; ++k) {
            Int bits;
            loadLanes(bits, p + i + k * kI);
            const Int a = bits & kAbsMask;
            const Int finite = a < kInfBits;
            const Int nonzero = a != 0;
            nonFinite -= ~finite;
            poisoned -= bits == poison;
            nonZero -= finite & nonzero;
            denormal -= nonzero & (a < kMinNormalBits);
            const Int candidate = a & (a <= kInfBits);
            maxBits = candidate > maxBits ? candidate : maxBits;
        }
        for (size_t k = 0; k < kStep / kD; ++k) {
            Double wide;
            widenLanes<S>(wide, p + i + k * kD);
            sum[k] += wide;
        }
    }
    StatsPartial out{.nonZero = laneSum(nonZero),
                     .nonFinite = laneSum(nonFinite),
                     .denormal = laneSum(denormal),
                     .poisoned = laneSum(poisoned)};
    double lane[kStep];
    for (size_t l = 0; l < kStep; ++l) lane[l] = sum[l / kD][l % kD];
    out.sum = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
    for (size_t l = 0; l < kI; ++l) out.maxAbsBits = std::max(out.maxAbsBits, static_cast<uint32_t>(maxBits[l]));
    for (; i < n; ++i) statsElement(out, p[i]);
    return out;
}

// compareBitExact on one chunk that differs: the count and max |a - b| over finite pairs
// (equal finite pairs give 0, which never raises the maximum).
struct DiffPartial {
    uint64_t count = 0;
    double maxAbs = 0;
};

template <typename S>
[[gnu::always_inline]] inline DiffPartial diffChunk(const float* a, const float* b, size_t n) {
    using Int = typename S::Int;
    using Double = typename S::Double;
    constexpr size_t kI = kLanesOf<Int>, kD = kLanesOf<Double>;
    Int count{};
    Double maxAbs{};
    const Double inf = Double{} + std::numeric_limits<double>::infinity();
    size_t i = 0;
    for (; i + kStep <= n; i += kStep) {
        for (size_t k = 0; k < kStep / kI; ++k) {
            Int ab, bb;
            loadLanes(ab, a + i + k * kI);
            loadLanes(bb, b + i + k * kI);
            count -= ab != bb;
        }
        for (size_t k = 0; k < kStep / kD; ++k) {
            Double wa, wb;
            widenLanes<S>(wa, a + i + k * kD);
            widenLanes<S>(wb, b + i + k * kD);
            // Finite minus finite is finite in float64; inf or NaN on either side is not.
            Double diff = wa - wb;
            diff = diff < 0 ? -diff : diff;
            maxAbs = (diff > maxAbs) & (diff < inf) ? diff : maxAbs;  // strict: never -0
        }
    }
    DiffPartial out{.count = laneSum(count)};
    for (size_t l = 0; l < kD; ++l) out.maxAbs = maxAbs[l] > out.maxAbs ? maxAbs[l] : out.maxAbs;
    for (; i < n; ++i) {
        if (std::bit_cast<uint32_t>(a[i]) == std::bit_cast<uint32_t>(b[i])) continue;
        ++out.count;
        if (std::isfinite(a[i]) && std::isfinite(b[i])) {
            out.maxAbs = std::fmax(out.maxAbs, std::fabs(double{a[i]} - double{b[i]}));
        }
    }
    return out;
}

StatsPartial statsChunkBaseline(const float* p, size_t n) { return statsChunk<Narrow>(p, n); }
DiffPartial diffChunkBaseline(const float* a, const float* b, size_t n) { return diffChunk<Narrow>(a, b, n); }

#if REPRO_SIMD_X86_DISPATCH
[[gnu::target("avx2")]] StatsPartial statsChunkAvx2(const float* p, size_t n) { return statsChunk<Wide>(p, n); }
[[gnu::target("avx2")]] DiffPartial diffChunkAvx2(const float* a, const float* b, size_t n) {
    return diffChunk<Wide>(a, b, n);
}
#endif

}  // namespace

unsigned verificationThreads() {
    if (const auto forced = parseThreadCount(std::getenv("REPRO_VERIFY_THREADS"))) return *forced;
    return std::min(availableCpus(), 16u);
}

BufferStats computeStats(std::span<const float> values, unsigned threads) {
    auto* kernel = statsChunkBaseline;
#if REPRO_SIMD_X86_DISPATCH
    if (simd::useAvx2()) kernel = statsChunkAvx2;
#endif
    const auto parts = perVerifyChunk(values.size(), threads,
                                      [&](size_t begin, size_t n) { return kernel(values.data() + begin, n); });
    BufferStats s;
    s.elements = values.size();
    uint32_t maxBits = 0;
    for (const StatsPartial& p : parts) {
        s.nonZero += p.nonZero;
        s.nonFinite += p.nonFinite;
        s.denormal += p.denormal;
        s.poisoned += p.poisoned;
        s.sum += p.sum;
        maxBits = std::max(maxBits, p.maxAbsBits);
    }
    s.maxAbs = std::bit_cast<float>(maxBits);
    return s;
}

Difference compareBitExact(std::span<const float> values, std::span<const float> reference, unsigned threads) {
    Difference d;
    const size_t n = std::min(values.size(), reference.size());
    auto* kernel = diffChunkBaseline;
#if REPRO_SIMD_X86_DISPATCH
    if (simd::useAvx2()) kernel = diffChunkAvx2;
#endif
    const auto parts = perVerifyChunk(n, threads, [&](size_t begin, size_t count) {
        const float* a = values.data() + begin;
        const float* b = reference.data() + begin;
        return std::memcmp(a, b, count * sizeof(float)) != 0 ? kernel(a, b, count) : DiffPartial{};
    });
    for (size_t c = 0; c < parts.size(); ++c) {
        if (parts[c].count == 0) continue;
        if (d.count == 0) {
            size_t i = c * kVerifyChunk;
            while (std::bit_cast<uint32_t>(values[i]) == std::bit_cast<uint32_t>(reference[i])) ++i;
            d.firstIndex = i;
            d.first = values[i];
            d.firstReference = reference[i];
        }
        d.count += parts[c].count;
        d.maxAbs = parts[c].maxAbs > d.maxAbs ? parts[c].maxAbs : d.maxAbs;
    }
    const size_t extra = std::max(values.size(), reference.size()) - n;
    if (d.count == 0 && extra > 0) d.firstIndex = n;  // the first element only one side has
    d.count += extra;
    return d;
}

std::string_view name(Classification c) {
    static constexpr std::string_view kNames[] = {"ok",   "zero",    "mismatch",     "nonfinite", "unwritten",
                                                  "hang", "not run", "inconclusive", "killed"};
    return nameOf(kNames, c);
}

bool isWrong(Classification c) {
    return c == Classification::Zero || c == Classification::Mismatch || c == Classification::NonFinite ||
           c == Classification::Unwritten || c == Classification::Killed;
}

bool isUnderflowed(const BufferStats& s) { return s.nonFinite == 0 && s.nonZero == s.denormal; }

namespace {

// The checks every classification starts with, whatever the reference: elements that
// were never written (the --poison sentinel), then NaN or Inf.
std::optional<Classified> checkWritten(const BufferStats& stats) {
    if (stats.poisoned > 0) {
        return Classified{Classification::Unwritten,
                          fmt::format("{} of {} elements still hold the --poison sentinel: never "
                                      "written, or computed from an input that still held it",
                                      stats.poisoned, stats.elements)};
    }
    if (stats.nonFinite > 0) {
        return Classified{Classification::NonFinite,
                          fmt::format("{} of {} elements are NaN or Inf", stats.nonFinite, stats.elements)};
    }
    return std::nullopt;
}

}  // namespace

Classified classify(std::span<const float> values, const BufferStats& stats,
                    std::optional<std::span<const float>> reference, std::string_view referenceName) {
    if (auto bad = checkWritten(stats)) return *bad;
    if (!reference) {
        if (stats.nonZero == 0) {
            return {Classification::Zero,
                    fmt::format("all {} elements are 0 (no reference in this run)", stats.elements)};
        }
        return {Classification::Ok, "finite and not all zero (no reference in this run)"};
    }
    const Difference d = compareBitExact(values, *reference);
    if (d.count == 0) {
        return {Classification::Ok, fmt::format("bit-identical to {}", referenceName)};
    }
    if (stats.nonZero == 0) {
        return {Classification::Zero,
                fmt::format("all {} elements are 0 while {} is not", stats.elements, referenceName)};
    }
    return {Classification::Mismatch, fmt::format("{} of {} elements differ from {}; first at index {} ({} vs {}), "
                                                  "max |diff| {}",
                                                  d.count, stats.elements, referenceName, d.firstIndex,
                                                  rustExp(d.first), rustExp(d.firstReference), rustExp(d.maxAbs))};
}

Classified classifyWithTolerance(const BufferStats& stats, const ToleranceReport& t) {
    if (auto bad = checkWritten(stats)) return *bad;
    const std::string against = fmt::format(
        "max |gpu - cpu| {} against a tolerance of up to {} (worst ratio {:.3g} at index {}; "
        "max |cpu| {})",
        rustExp(t.maxAbsDiff), rustExp(t.maxAllowed), t.worstRatio, t.worstIndex, rustExp(t.maxAbsReference));
    const std::string vacuous = t.uninformative > 0
                                    ? fmt::format(
                                          "; the derived bound is as large as the value itself at {} of {} "
                                          "elements, so there only zero and NaN are caught",
                                          t.uninformative, stats.elements)
                                    : "";
    if (stats.nonZero == 0 && t.maxAbsReference > 0) {
        return {Classification::Zero, fmt::format("all {} elements are 0 while the CPU reference is not (max |cpu| {})",
                                                  stats.elements, rustExp(t.maxAbsReference))};
    }
    if (t.exceeded > 0) {
        return {Classification::Mismatch,
                fmt::format("{} of {} elements exceed the tolerance: {}", t.exceeded, stats.elements, against)};
    }
    return {Classification::Ok, fmt::format("within tolerance of the CPU reference: {}{}", against, vacuous)};
}

}  // namespace repro
