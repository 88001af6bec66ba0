// CPU reference for the conv-T + slice chain (docs/contract.md, "The chain"): float64
// results, and the derived per-element error bound that a float32 GPU result of the same
// chain must meet.
// Vulkan-free; everything is row-major NCHW, sizes in elements. Every conv-T here (so
// cpuConvT, cpuChain and cpuTolerance) stops within one small unit of work when SIGINT or
// SIGTERM arrives and throws Interrupted (core/interrupt.hpp).
#pragma once

#include "core/parallel.hpp"
#include "core/shape.hpp"
#include "reference/stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace repro {

// ---- Data -----------------------------------------------------------------------------

// small[0]: sizes.smallElems floats, element i = sinf(float(i) * 0.001f) + 1.0f, computed on
// up to `threads` threads of the pool (core/parallel.hpp; the values do not depend on them).
std::vector<float> makeInput(const ChainSizes& sizes, unsigned threads = availableCpus());
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
// correlation, computed as a register-tiled product over (4 ci) x (8 or 4 columns) with the
// (co, kh, kw) terms as the inner dimension, on a zero-margined float64 copy of `small`,
// then scattered into the strided output. Work is split over (n, group of up to 64 ci)
// units handed to std::jthreads. SIMD: AVX2+FMA where the CPU has it (GCC target
// attribute, chosen at run time), else baseline SSE2; REPRO_CPU_KERNEL=baseline forces the
// latter. The two paths agree to float64 rounding (FMA), not bit for bit.
void cpuConvT(const Shape& shape, const ChainSizes& sizes, std::span<const float> small, std::span<const float> weight,
              std::span<float> big, unsigned threads = 0);

// slice: small[n, c, h, w] = big[n, c, h + 1, w + 1] for h < H, w < W (an exact copy).
void cpuSlice(const Shape& shape, const ChainSizes& sizes, std::span<const float> big, std::span<float> small);

// ---- The chain ------------------------------------------------------------------------

struct CpuChain {
    // small[0..N] (N + 1 entries) and big[0..N) (N entries), each smallElems / bigElems
    // floats. Without keepIntermediates every entry but small[N] is an empty vector.
    // Between steps the chain carries float64 values; these float copies are rounded from
    // them, so small[i + 1] is the exact crop of big[i] but NOT exactly
    // cpuSlice(cpuConvT(small[i])) computed from the float small[i].
    std::vector<std::vector<float>> small;
    std::vector<std::vector<float>> big;
    unsigned threads = 0;       // worker threads used
    uint64_t multiplyAdds = 0;  // executed, including zero-margin and tile-tail work
    std::string_view kernel;    // SIMD path that ran: "avx2+fma" or "baseline"

    const std::vector<float>& output() const { return small.back(); }
};

// Runs the chain from makeInput/makeWeight for `chainLength` steps (0 is allowed: small[0]
// only). Memory: with keepIntermediates, (N + 1) small + N big floats (big only with
// keepBig: at full size, N = 20, the bigs are 580 MiB of the 870); without, one small plus
// two float64 working copies of small (with margins). Throws UsageError from computeSizes
// for an invalid shape.
CpuChain cpuChain(const Shape& shape, uint32_t chainLength, unsigned threads = 0, bool keepIntermediates = true,
                  bool keepBig = true);

// The exact number of multiply-adds one conv-T step needs (terms whose oh, ow and ih, iw
// are all in range): batch * C * C * (sum over kh of valid rows) * (sum over kw of valid cols).
uint64_t convTermCount(const Shape& shape);

// ---- Tolerance ------------------------------------------------------------------------
//
// The allowed |gpu - cpu| per element of small[N], for a GPU that runs the chain in float32
// (the shader's sequential sum of x * w), compared with cpuChain(...).output(). Derived, not
// tuned: the smaller of a worst-case bound (any rounding, FMA or not, denormals flushed or
// not) and a probable one (Higham & Mary's model with Hoeffding's inequality). docs/tolerance.md
// gives both derivations, the symbols below, and where each bound becomes vacuous.
struct Tolerance {
    uint32_t steps = 0;
    uint64_t termsPerOutput = 0;  // k
    double unitRoundoff = 0;      // u
    double gamma = 0;             // gamma_k
    double weightSum = 0;         // S
    double relative = 0;
    double absolute = 0;
    double coverage = 0;           // lambda
    std::vector<float> magnitude;  // M_N, smallElems floats, rounded up from float64
    std::vector<float> deviation;  // sqrt(V_N) (1 + 2^-29), smallElems floats, rounded up

    double worstCase(size_t j) const { return relative * double(magnitude[j]) + absolute; }
    double probable(size_t j, float cpu) const {
        return coverage * double(deviation[j]) + std::ldexp(std::fabs(double(cpu)), -24) + absolute;
    }
    // Allowed |gpu - cpu| at element j of small[N], cpu = the reference's value there.
    double allowed(size_t j, float cpu) const { return std::min(worstCase(j), probable(j, cpu)); }
};

// Runs the chains above (about four cpuChain runs without intermediates: x, M, T and V) and
// derives the constants: a CpuStepper advanced chainLength steps. Memory: five float64
// copies of small with margins. Throws UsageError from computeSizes for an invalid shape.
Tolerance cpuTolerance(const Shape& shape, uint32_t chainLength, unsigned threads = 0);

// The chain and its tolerance one step at a time, holding only what the next step needs
// (five float64 copies of small with margins and one float small, whatever the length):
// what --check-steps compares each intermediate with as it is read back. After k calls of
// advance(), small() is cpuChain(shape, k).small[k] and tolerance() is cpuTolerance(shape,
// k), bit for bit. Throws UsageError from computeSizes for an invalid shape; advance() throws
// Interrupted as cpuConvT does.
class CpuStepper {
  public:
    explicit CpuStepper(const Shape& shape, unsigned threads = 0);
    ~CpuStepper();
    CpuStepper(CpuStepper&&) noexcept;
    CpuStepper& operator=(CpuStepper&&) noexcept;

    void advance();                           // one conv-T + slice step (four conv-T passes)
    uint32_t steps() const;                   // k, the steps taken
    const std::vector<float>& small() const;  // small[k] (small[0]: makeInput), smallElems floats
    Tolerance tolerance() const;              // the tolerance of small[k]

  private:
    struct State;
    std::unique_ptr<State> state_;
};

// Errors: std::invalid_argument when gpu, cpu, tol.magnitude and tol.deviation differ in size.
// Vectorised (AVX2 where the CPU has it, else SSE2; REPRO_CPU_KERNEL=baseline forces SSE2)
// and spread over `threads` threads (0 = verificationThreads() of stats.hpp), one
// kVerifyChunk chunk per task; the result is exactly the element-by-element loop's
// (Tolerance::allowed, std::max/std::min, the first index of the worst ratio) for any
// thread count.
ToleranceReport compareWithTolerance(std::span<const float> gpu, std::span<const float> cpu, const Tolerance& tol,
                                     unsigned threads = 0);

}  // namespace repro
