// CPU reference for the conv-T + slice chain (SPEC §1): float64 results, and the derived
// per-element error bound that a float32 GPU result of the same chain must meet.
// Vulkan-free; everything is row-major NCHW, sizes in elements.
#pragma once

#include "core/shape.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace repro {

// ---- Data -----------------------------------------------------------------------------

// small[0]: sizes.smallElems floats, element i = sinf(float(i) * 0.001f) + 1.0f.
std::vector<float> makeInput(const ChainSizes& sizes);
// The weight [C, C, KH, KW]: sizes.weightElems floats, element i = cosf(float(i) * 0.01f) * 0.05f.
std::vector<float> makeWeight(const ChainSizes& sizes);

// ---- One step -------------------------------------------------------------------------
//
// Errors (both functions): std::invalid_argument when a span's size differs from the one
// `sizes` gives (small: smallElems, weight: weightElems, big: bigElems). `sizes` must be
// computeSizes(shape).

// conv-T: big[n, ci, ih, iw] = sum over co, kh, kw of small[n, co, oh, ow] * weight[co, ci, kh, kw]
// where ih + padH - kh = oh * strideH with 0 <= oh < H, and likewise in w; accumulated in
// float64 and rounded once to float. `threads` 0 = std::thread::hardware_concurrency().
//
// Formulation (not the shader's gather loop): the output is split into strideH x strideW
// phases; in a phase the contributing (kh, kw) are fixed, so each phase is a plain
// correlation, computed as a register-tiled product over (4 ci) x (a run of columns) with the
// (co, kh, kw) terms as the inner dimension, on a zero-margined float64 copy of `small`.
// Work is split over (n, 4-ci block) units across std::threads.
void cpuConvT(const Shape& shape, const ChainSizes& sizes, std::span<const float> small,
              std::span<const float> weight, std::span<float> big, unsigned threads = 0);

// slice: small[n, c, h, w] = big[n, c, h + 1, w + 1] for h < H, w < W (an exact copy).
void cpuSlice(const Shape& shape, const ChainSizes& sizes, std::span<const float> big,
              std::span<float> small);

// ---- The chain ------------------------------------------------------------------------

struct CpuChain {
    // small[0..N] (N + 1 entries) and big[0..N) (N entries), each smallElems / bigElems
    // floats. Without keepIntermediates every entry but small[N] is an empty vector.
    // Between steps the chain carries float64 values; these float copies are rounded from
    // them, so small[i + 1] is NOT exactly cpuSlice(cpuConvT(small[i])) in float.
    std::vector<std::vector<float>> small;
    std::vector<std::vector<float>> big;
    unsigned threads = 0;            // worker threads used
    uint64_t multiplyAdds = 0;       // executed, including zero-margin and tile-tail work
    std::string_view kernel;         // SIMD path that ran: "avx2+fma" or "baseline"

    const std::vector<float>& output() const { return small.back(); }
};

// Runs the chain from makeInput/makeWeight for `chainLength` steps (0 is allowed: small[0]
// only). Memory: with keepIntermediates, (N + 1) small + N big floats; without, one small
// plus two float64 working copies of small (with margins). Throws UsageError from
// computeSizes for an invalid shape.
CpuChain cpuChain(const Shape& shape, uint32_t chainLength, unsigned threads = 0,
                  bool keepIntermediates = true);

// The exact number of multiply-adds one conv-T step needs (terms whose oh, ow and ih, iw
// are all in range): batch * C * C * (sum over kh of valid rows) * (sum over kw of valid cols).
uint64_t convTermCount(const Shape& shape);

// ---- Tolerance ------------------------------------------------------------------------
//
// The allowed |gpu - cpu| per element of small[N], for a GPU that runs the chain in
// float32 (the shader: sum = 0; for co, kh, kw: sum += x * w, sequential) compared with
// cpuChain(...).output(). Derived, not tuned:
//
//   k    = C * ceil(KH/SH) * ceil(KW/SW)   most terms one output sums
//   u    = 2^-23   float32 unit roundoff, taken for round-toward-zero because Vulkan leaves
//                  the default rounding mode to the implementation (2^-24 if RTE only)
//   g    = gamma_k = k u / (1 - k u)        (recursive-summation / dot-product bound, holds
//                                            with or without fused multiply-add)
//   M_i  = the "magnitude chain": the same chain run on |small[0]| and |weight|; then
//          |exact small[i]| <= M_i and the sum of |terms| of step i is <= M_{i+1}.
//   E_i  = bound on |gpu small[i] - exact small[i]|: E_0 = 0,
//          E_{i+1} = g * (M_{i+1} + |W| E_i) + |W| E_i    (|W| = conv-T+slice with |weight|)
//          which solves to E_N = ((1 + g)^N - 1) * M_N.
//
//   allowed[j] = relative * M_N[j] + absolute, where
//   relative   = ((1+g)^N - 1  +  (1+g64)^N - 1  +  2^-24 (1+g64)^N) * (1+g64)^N
//                (GPU rounding; the reference's own float64 rounding, g64 = gamma_k at
//                 u = 2^-53; rounding the reference to float; M_N's own float64 rounding)
//   absolute   = A_N + 2^-150:  A_0 = 0, A_{i+1} = (1+g) S A_i + a, where S = max over
//                outputs of the sum of |w| that output uses, and a = (1+g) 2^-126 (2k + 1 + S)
//                + 2k 2^-1074 is the most that flushing denormal products, partial sums,
//                inputs and the slice copy to zero can add per step (Vulkan may flush
//                denormals; the weights are never denormal), plus float64 underflow; 2^-150
//                covers rounding a float-denormal reference.
//
// This is a worst-case bound: |W| compounds per step while the signed data shrinks, so the
// bound grows relative to |small[N]| with N and C (M_N / |small[N]| is reported by
// compareWithTolerance). On the tiny and small presets it stays far below the effect of a
// wrong result such as one dropped channel.
struct Tolerance {
    uint32_t steps = 0;
    uint64_t termsPerOutput = 0;  // k
    double unitRoundoff = 0;      // u
    double gamma = 0;             // gamma_k
    double weightSum = 0;         // S
    double relative = 0;
    double absolute = 0;
    std::vector<float> magnitude; // M_N, smallElems floats, rounded up from float64

    // Allowed |gpu - cpu| at element j of small[N].
    double allowed(size_t j) const { return relative * double(magnitude[j]) + absolute; }
};

// Runs the magnitude chain (costs one cpuChain without intermediates) and derives the
// constants above. Throws UsageError from computeSizes for an invalid shape.
Tolerance cpuTolerance(const Shape& shape, uint32_t chainLength, unsigned threads = 0);

// Element-by-element check of a GPU result against the reference.
struct ToleranceReport {
    uint64_t checked = 0;
    uint64_t exceeded = 0;     // |gpu - cpu| > allowed, NaN and Inf included
    uint64_t nonfinite = 0;    // NaN or Inf in gpu
    size_t worstIndex = 0;     // largest |gpu - cpu| / allowed
    double worstRatio = 0;     // that ratio (> 1 means out of tolerance; inf for NaN/Inf)
    double maxAbsDiff = 0;
    double maxAllowed = 0;
    double maxAbsReference = 0;

    bool ok() const { return exceeded == 0; }
};

// Errors: std::invalid_argument when gpu, cpu and tol.magnitude differ in size.
ToleranceReport compareWithTolerance(std::span<const float> gpu, std::span<const float> cpu,
                                     const Tolerance& tol);

}  // namespace repro
