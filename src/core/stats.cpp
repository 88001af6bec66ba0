// Buffer statistics, bit-exact comparison and classification.
#include "core/stats.hpp"

#include <fmt/format.h>

#include <bit>
#include <cfloat>
#include <cmath>

#include "core/options.hpp"
#include "core/rust_format.hpp"

namespace repro {

bool isPoison(float value) { return std::bit_cast<uint32_t>(value) == kPoisonPattern; }

BufferStats computeStats(std::span<const float> values) {
    BufferStats s;
    s.elements = values.size();
    for (const float v : values) {
        if (!std::isfinite(v)) {
            ++s.nonFinite;
            if (isPoison(v)) ++s.poisoned;
        } else if (v != 0.0f) {
            ++s.nonZero;
            if (std::fabs(v) < FLT_MIN) ++s.denormal;
        }
        s.sum += static_cast<double>(v);
        s.maxAbs = std::fmax(s.maxAbs, std::fabs(v));
    }
    return s;
}

Difference compareBitExact(std::span<const float> values, std::span<const float> reference) {
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
    if (d.count == 0 && extra > 0) d.firstIndex = n;  // the first element only one side has
    d.count += extra;
    return d;
}

std::string_view name(Classification c) {
    switch (c) {
        case Classification::Ok: return "ok";
        case Classification::Zero: return "zero";
        case Classification::Mismatch: return "mismatch";
        case Classification::NonFinite: return "nonfinite";
        case Classification::Unwritten: return "unwritten";
        case Classification::Hang: return "hang";
        case Classification::NotRun: return "not run";
        case Classification::Inconclusive: return "inconclusive";
    }
    return "?";
}

bool isWrong(Classification c) {
    return c == Classification::Zero || c == Classification::Mismatch ||
           c == Classification::NonFinite || c == Classification::Unwritten;
}

bool isUnderflowed(const BufferStats& s) {
    return s.nonFinite == 0 && s.nonZero == s.denormal;
}

namespace {

// The checks every classification starts with, whatever the reference: elements that
// were never written (the --poison sentinel), then NaN or Inf.
std::optional<Classified> checkWritten(const BufferStats& stats) {
    if (stats.poisoned > 0) {
        return Classified{Classification::Unwritten,
                          fmt::format("{} of {} elements still hold the --poison sentinel: never "
                                      "written",
                                      stats.poisoned, stats.elements)};
    }
    if (stats.nonFinite > 0) {
        return Classified{Classification::NonFinite, fmt::format("{} of {} elements are NaN or Inf",
                                                                 stats.nonFinite, stats.elements)};
    }
    return std::nullopt;
}

}  // namespace

Classified classify(std::span<const float> values, const BufferStats& stats,
                    std::optional<std::span<const float>> reference,
                    std::string_view referenceName) {
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
    return {Classification::Mismatch,
            fmt::format("{} of {} elements differ from {}; first at index {} ({} vs {}), "
                        "max |diff| {}",
                        d.count, stats.elements, referenceName, d.firstIndex, rustExp(d.first),
                        rustExp(d.firstReference), rustExp(d.maxAbs))};
}

Classified classifyWithTolerance(const BufferStats& stats, const ToleranceOutcome& t) {
    if (auto bad = checkWritten(stats)) return *bad;
    const std::string against = fmt::format(
        "max |gpu - cpu| {} against a tolerance of up to {} (worst ratio {:.3g} at index {}; "
        "max |cpu| {})",
        rustExp(t.maxAbsDiff), rustExp(t.maxAllowed), t.worstRatio, t.worstIndex,
        rustExp(t.maxAbsReference));
    const std::string vacuous =
        t.uninformative > 0
            ? fmt::format("; the derived bound is as large as the value itself at {} of {} "
                          "elements, so there only zero and NaN are caught",
                          t.uninformative, stats.elements)
            : "";
    if (stats.nonZero == 0 && t.maxAbsReference > 0) {
        return {Classification::Zero,
                fmt::format("all {} elements are 0 while the CPU reference is not (max |cpu| {})",
                            stats.elements, rustExp(t.maxAbsReference))};
    }
    if (t.exceeded > 0) {
        return {Classification::Mismatch,
                fmt::format("{} of {} elements exceed the tolerance: {}", t.exceeded,
                            stats.elements, against)};
    }
    return {Classification::Ok, fmt::format("within tolerance of the CPU reference: {}{}", against, vacuous)};
}

}  // namespace repro
