// Statistics of a result buffer and its classification against a reference
// (SPEC §5). Vulkan-free.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace repro {

// The original's per-mode figures plus what classification needs.
struct BufferStats {
    uint64_t elements = 0;
    uint64_t nonZero = 0;    // finite and != 0 (the original's `nz`)
    uint64_t nonFinite = 0;  // NaN or +-Inf
    uint64_t denormal = 0;   // finite, non-zero, below FLT_MIN in magnitude
    uint64_t poisoned = 0;   // bit-equal to kPoisonPattern (counted in nonFinite too)
    double sum = 0.0;        // f64 sum of every element, NaN included (the original's `sum`)
    float maxAbs = 0.0f;     // max |x|, ignoring NaN as Rust's f32::max does
};

// One pass over `values` (elements, any length).
BufferStats computeStats(std::span<const float> values);

// Where two buffers of equal length differ bit for bit (+0 and -0 differ too).
struct Difference {
    uint64_t count = 0;        // elements whose bits differ
    uint64_t firstIndex = 0;   // index of the first one (valid when count > 0)
    float first = 0, firstReference = 0;
    double maxAbs = 0;         // max |a - b| over finite pairs
};
Difference compareBitExact(std::span<const float> values, std::span<const float> reference);

enum class Classification { Ok, Zero, Mismatch, NonFinite, Unwritten, Hang, NotRun, Inconclusive };
// "ok", "zero", "mismatch", "nonfinite", "unwritten", "hang", "not run", "inconclusive"
std::string_view name(Classification c);

// Wrong output (exit 2): zero, mismatch, nonfinite or unwritten.
bool isWrong(Classification c);

struct Classified {
    Classification kind = Classification::Ok;
    std::string reason;  // one line: why
};

// Classifies a completed mode's final buffer. `reference`, when given, is another
// mode's final buffer of the same run (bit-exact comparison); `referenceName` names it.
// Without a reference an all-zero buffer is `zero` (the verdict later decides whether
// that is a reproduction or an underflowed chain). Elements still holding the --poison
// sentinel make it `unwritten`, ahead of every other class.
Classified classify(std::span<const float> values, const BufferStats& stats,
                    std::optional<std::span<const float>> reference,
                    std::string_view referenceName);

// A comparison with a CPU reference within a per-element tolerance, already made
// (cpu_reference.hpp's compareWithTolerance): how many elements exceeded it, the worst
// ratio |gpu - cpu| / allowed, and whether the reference itself is all zero or denormal.
struct ToleranceOutcome {
    uint64_t exceeded = 0;
    uint64_t uninformative = 0;  // elements where the bound is as large as |cpu| itself
    uint64_t worstIndex = 0;
    double worstRatio = 0, maxAbsDiff = 0, maxAllowed = 0, maxAbsReference = 0;
};
// Classifies against the CPU reference: unwritten / nonfinite first, then `zero` when
// every element is 0 and the reference has signal, `mismatch` when any element exceeds
// its tolerance, else `ok`. The reason gives the max error against the tolerance.
Classified classifyWithTolerance(const BufferStats& stats, const ToleranceOutcome& tolerance);

// Whether the bits of `value` are the --poison sentinel.
bool isPoison(float value);

// True when a buffer carries no usable signal: all zero or denormal, so a correct
// device may legitimately produce it at the end of a long chain (SPEC §1 note).
bool isUnderflowed(const BufferStats& stats);

}  // namespace repro
