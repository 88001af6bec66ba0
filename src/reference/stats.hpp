// Statistics of a result buffer and its classification against a reference
// (docs/contract.md, "Verdict and exit status"). Vulkan-free.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/parallel.hpp"

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

// Threads the verification kernels use by default: REPRO_VERIFY_THREADS when it holds an
// integer 1..64 (parseThreadCount in parallel.hpp), else min(availableCpus(), 16) (on the
// H200 host, 16 threads ran computeStats on a full-size small[N] in 0.20 ms, 8 in 0.37 ms,
// 1 in 1.8 ms: bench/RESULTS.md). An input of n elements uses at most ceil(n / kVerifyChunk)
// threads, so one shorter than two chunks is checked on the calling thread.
unsigned verificationThreads();

// Elements per chunk of the verification kernels. Fixed: computeStats's sum is associated
// chunk by chunk, so it must not depend on the thread count.
inline constexpr size_t kVerifyChunk = size_t{1} << 16;

// fn(begin, count) for every kVerifyChunk chunk of [0, elements), one task per chunk on up to
// `threads` threads (0 = verificationThreads(); parallelTasks); the results in chunk order.
template <typename Fn>
auto perVerifyChunk(size_t elements, unsigned threads, Fn&& fn) {
    const size_t chunks = (elements + kVerifyChunk - 1) / kVerifyChunk;
    std::vector<std::invoke_result_t<Fn&, size_t, size_t>> parts(chunks);
    if (threads == 0) threads = verificationThreads();
    parallelTasks(chunks, static_cast<unsigned>(std::min<size_t>(threads, chunks)), [&](size_t c) {
        parts[c] = fn(c * kVerifyChunk, std::min(kVerifyChunk, elements - c * kVerifyChunk));
    });
    return parts;
}

// Statistics of `values` (elements, any length), vectorised (AVX2 where the CPU has it,
// else SSE2; REPRO_CPU_KERNEL=baseline forces SSE2) and spread over `threads` threads
// (0 = verificationThreads()) one kVerifyChunk chunk per task. The counts and maxAbs are
// exact. `sum` is deterministic, the same for any thread count and either SIMD path: each
// chunk adds its elements into 8 float64 lanes (element i into lane i mod 8, in order),
// combines the lanes as ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)) then adds the chunk's last
// n mod 8 elements in order, and the chunk sums are added in chunk order. It differs from a
// strictly sequential float64 sum only by rounding (it is the more accurate of the two).
BufferStats computeStats(std::span<const float> values, unsigned threads = 0);

// Where two buffers of equal length differ bit for bit (+0 and -0 differ too).
struct Difference {
    uint64_t count = 0;       // elements whose bits differ
    uint64_t firstIndex = 0;  // index of the first one (valid when count > 0)
    float first = 0, firstReference = 0;
    double maxAbs = 0;  // max |a - b| over finite pairs
};
// Buffers of unequal length: the elements only one side has count as differing (and are the
// first difference when the common part is equal). Vectorised and threaded as
// computeStats; chunks that memcmp equal are skipped. Every field is exact.
Difference compareBitExact(std::span<const float> values, std::span<const float> reference, unsigned threads = 0);

// Killed: wrong output from a submit the evidence says was cut short (the kernel's job
// timeout; forensics/cause.hpp), named so with its cause.
enum class Classification { Ok, Zero, Mismatch, NonFinite, Unwritten, Hang, NotRun, Inconclusive, Killed };
// "ok", "zero", "mismatch", "nonfinite", "unwritten", "hang", "not run", "inconclusive", "killed"
std::string_view name(Classification c);

// Wrong output (exit 2): zero, mismatch, nonfinite, unwritten or killed.
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
                    std::optional<std::span<const float>> reference, std::string_view referenceName);

// Element-by-element check of a GPU result against a CPU reference within a per-element
// tolerance (cpu_reference.hpp's compareWithTolerance).
struct ToleranceReport {
    uint64_t checked = 0;
    uint64_t exceeded = 0;   // |gpu - cpu| > allowed, NaN and Inf included
    uint64_t nonfinite = 0;  // NaN or Inf in gpu
    size_t worstIndex = 0;   // largest |gpu - cpu| / allowed
    double worstRatio = 0;   // that ratio (> 1 means out of tolerance; inf for NaN/Inf)
    double maxAbsDiff = 0;
    double maxAllowed = 0;
    double maxAbsReference = 0;
    // Elements where allowed >= |cpu|: there even an all-zero result passes, so the check
    // says nothing (the bound is vacuous there). Most elements, on the default shapes at
    // N = 7: decide from other evidence (cross-mode comparison, magnitudes).
    uint64_t uninformative = 0;

    bool ok() const { return exceeded == 0; }
};
// Classifies against the CPU reference: unwritten / nonfinite first, then `zero` when
// every element is 0 and the reference has signal, `mismatch` when any element exceeds
// its tolerance, else `ok`. The reason gives the max error against the tolerance.
Classified classifyWithTolerance(const BufferStats& stats, const ToleranceReport& tolerance);

// True when a buffer carries no usable signal: all zero or denormal, so a correct
// device may legitimately produce it at the end of a long chain (docs/contract.md, "The chain").
bool isUnderflowed(const BufferStats& stats);

}  // namespace repro
