// The per-dispatch CPU check from the GPU's own input: each conv-T recomputed on the CPU
// from the small[k-1] the GPU left behind (read back after the mode), so its tolerance is
// one step's and stays sharp however long the chain, and each slice compared bit for bit
// with the crop of the GPU's own big[k-1]. Vulkan-free: buffers are float spans. An
// interrupt (SIGINT/SIGTERM) during a check throws Interrupted (core/interrupt.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reference/judge.hpp"
#include "core/shape.hpp"

namespace repro {

// The float32 error bound of one conv-T step computed from given inputs (the GPU's own
// small[k-1] and the weight): the symbols below and their derivation are docs/tolerance.md
// "One step with the input given (`--check-steps`)".
struct StepBound {
    uint64_t terms = 0;       // K
    double unitRoundoff = 0;  // u
    double gamma = 0;
    double gamma64 = 0;
    double coverage = 9.0;  // lambda
    double weightSum = 0;   // S
    double absolute = 0;    // a + 2^-149

    double worstCase(double magnitude, float cpu) const;
    double probable(double magnitude, float cpu) const;
    double allowed(double magnitude, float cpu) const;
};

// The bound's constants for `shape` and `weight` (sizes.weightElems floats). Errors:
// std::invalid_argument when the weight has the wrong size.
StepBound stepBound(const Shape& shape, const ChainSizes& sizes, std::span<const float> weight);

// One dispatch of the chain checked from the GPU's own input.
struct DispatchStepCheck {
    uint32_t step = 0;              // 1-based
    bool convT = true;              // conv-T k (big[k-1] from small[k-1]) or slice k (small[k] from big[k-1])
    uint64_t checked = 0;           // elements compared
    uint64_t unchecked = 0;         // conv-T: exact value not finite (the GPU's input held NaN/Inf);
                                    // slice: a NaN copied as a NaN (payloads may differ)
    uint64_t exceeded = 0;          // |gpu - cpu| above the bound (slice: any other bit difference),
                                    // non-finite outputs of a finite exact value included
    uint64_t exceededInCrop = 0;    // conv-T: of `exceeded`, inside the crop slice k reads
    uint64_t nonfinite = 0;         // non-finite GPU outputs
    uint64_t probableOnly = 0;      // conv-T: above the probable bound, within the worst case
    uint64_t flushedDenormals = 0;  // slice: a denormal copied as +-0 (Vulkan may flush; allowed)
    size_t worstIndex = 0;          // element of the largest |gpu - cpu| / allowed
    double worstRatio = 0;          // that ratio (> 1: mismatch; inf for NaN or a slice difference);
                                    // without exactBounds, at most 0.5 means "at most this"
    double maxAbsDiff = 0;          // over finite pairs
    double maxAllowed = 0;          // conv-T's largest bound evaluated (slice: 0, exact); a
                                    // lower estimate of the largest true bound unless exactBounds
    double maxAbsValue = 0;         // the largest |cpu|: what maxAllowed is small against
    bool exactBounds = false;       // conv-T: every element's bound from its own T_j
    bool magnitudePass = false;     // conv-T: the full magnitude pass ran
    uint64_t rechecked = 0;         // conv-T: elements checked again with their own T_j
    double seconds = 0;             // wall time of this dispatch's check

    bool ok() const { return exceeded == 0; }
    // Chain order, 1-based: conv-T k is 2k - 1, slice k is 2k.
    uint32_t dispatchNumber() const { return 2 * step - (convT ? 1 : 0); }
    // maxAllowed / maxAbsValue: how sharp the bound is (0 for a slice; meaningful with
    // exactBounds).
    double boundRatio() const { return maxAbsValue > 0 ? maxAllowed / maxAbsValue : 0; }
    // "conv-T 3: max |gpu - cpu| 1.2e-09, allowed up to 3.4e-07 (bound 2.1e-05 of max
    // |value|), worst ratio 0.0035: ok" or "slice 3: 12 elements differ from big[2]'s crop:
    // mismatch".
    std::string line() const;
};

struct StepCheckReport {
    std::vector<DispatchStepCheck> dispatches;  // chain order
    std::optional<size_t> firstWrong;           // index into dispatches
    double seconds = 0;                         // all of it
};

// conv-T k: input = the GPU's small[k-1] (sizes.smallElems floats), gpuBig = its big[k-1]
// (bigElems); the exact conv-T (float64, rounded once) comes from cpuConvT (threads as
// there, 0 = all). The whole big buffer is compared (the dispatch writes all of it; a fault
// outside the crop does not reach the chain but is still the dispatch's), and the part in
// the crop at (1, 1) is counted apart.
// T_j: with exactBounds, from a second cpuConvT pass on (|x|, |w|) for every element.
// Without (the default), each element is first held to the bound with T_j replaced by
// |cpu_j|, which is smaller (T_j = sum |x w| >= |sum x w|), so passing it passes the true
// bound; the elements that come above half of that smaller bound are checked again with
// their own T_j, computed directly when they are few (at most 1% or 4096), else from the
// full magnitude pass. The verdict is the same either way; the reported maxAllowed is a
// lower estimate, and a worst ratio up to 0.5 an upper bound of the true one.
// Errors: std::invalid_argument on a size mismatch.
DispatchStepCheck checkConvTStep(const Shape& shape, const ChainSizes& sizes, const StepBound& bound,
                                 std::span<const float> weight, std::span<const float> input,
                                 std::span<const float> gpuBig, uint32_t step, unsigned threads = 0,
                                 bool exactBounds = false);

// slice k: gpuSmall = the GPU's small[k] against the crop at (1, 1) of its big[k-1].
DispatchStepCheck checkSliceStep(const Shape& shape, const ChainSizes& sizes, std::span<const float> gpuBig,
                                 std::span<const float> gpuSmall, uint32_t step);

// Every dispatch of a run with intermediates (gpu.small: N + 1 buffers, small[0] the
// input as the GPU holds it; gpu.big: N), in chain order; the first that is wrong.
// `weight` is the uploaded weight (makeWeight); exactBounds as for checkConvTStep. Cost at
// full size: one cpuConvT pass per step when the GPU is right, two with exactBounds or
// when many elements need their own T_j (bench/step_check_bench.cpp measures both).
// Errors: std::invalid_argument when a buffer is missing or of the wrong size.
StepCheckReport checkEachDispatch(const Shape& shape, const ChainSizes& sizes, std::span<const float> weight,
                                  const ChainResult& gpu, unsigned threads = 0, bool exactBounds = false);

// checkEachDispatch one step at a time, for a run read back step by step: add() step k
// = 1, 2, ... in order with the GPU's small[k-1] (the conv-T's input), big[k-1] and
// small[k]; report() is then what checkEachDispatch gives for those k steps (seconds: the
// adds' sum). Holds only the summaries, never a buffer. Errors: std::invalid_argument on a
// size mismatch, as checkConvTStep and checkSliceStep.
class DispatchStepChecker {
  public:
    DispatchStepChecker(const Shape& shape, const ChainSizes& sizes, std::vector<float> weight, unsigned threads = 0,
                        bool exactBounds = false);
    void add(std::span<const float> input, std::span<const float> big, std::span<const float> small);
    const StepCheckReport& report() const { return report_; }

  private:
    Shape shape_;
    ChainSizes sizes_;
    std::vector<float> weight_;
    StepBound bound_;
    unsigned threads_;
    bool exactBounds_;
    StepCheckReport report_;
};

// The report's `per_dispatch_check` object (docs/report-schema.md): state "passed" or
// "failed", first_wrong (the dispatch number, 1-based in chain order, or null), seconds,
// and one object per dispatch (dispatch, step, kind "conv_t"/"slice", ok, checked,
// exceeded, exceeded_in_crop, nonfinite, worst_ratio, max_abs_diff, max_allowed,
// max_abs_value, exact_bounds, line). Non-finite numbers are the strings "inf", "-inf",
// "NaN", as elsewhere in the report.
nlohmann::json perDispatchCheckJson(const StepCheckReport& report);

}  // namespace repro
