// The reference a run is judged against (--reference) and the per-dispatch check of
// --check-steps. Vulkan-free: it sees buffers as float spans.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/cpu_reference.hpp"
#include "core/host_floats.hpp"
#include "core/options.hpp"
#include "core/shape.hpp"
#include "core/stats.hpp"

namespace repro {

// The buffers one completed chain run left behind, read back to the host.
// small[0..N] (small[0] is the input) and big[0..N); intermediates only with
// --check-steps, otherwise small holds just small[N] at index N and the rest is empty.
struct ChainResult {
    std::vector<HostFloats> small;
    std::vector<HostFloats> big;
    const HostFloats& final() const { return small.back(); }

    ChainResult() = default;
    // A copy of host-computed buffers (a CpuChain's small and big), for tests and benches.
    ChainResult(const std::vector<std::vector<float>>& smallIn, const std::vector<std::vector<float>>& bigIn)
        : small(copyAll(smallIn)), big(copyAll(bigIn)) {}

  private:
    static std::vector<HostFloats> copyAll(const std::vector<std::vector<float>>& in) {
        std::vector<HostFloats> out;
        out.reserve(in.size());
        for (const auto& v : in) out.emplace_back(v.begin(), v.end());
        return out;
    }
};

// One dispatch's output checked against the reference.
struct DispatchCheck {
    uint32_t step = 0;  // 1-based
    bool convT = true;  // conv-T (writes big[step-1]) or slice (writes small[step])
    BufferStats stats;
    Classified verdict;  // ok / zero / mismatch / nonfinite / unwritten
    uint32_t dispatchNumber() const { return 2 * step - (convT ? 1 : 0); }
};

struct StepReport {
    std::vector<DispatchCheck> dispatches;  // chain order
    std::optional<size_t> firstWrong;       // index into dispatches
};

class Judge {
  public:
    // No reference: zero and non-finite checks only.
    static Judge none();
    // A mode's result of this run (split), compared bit for bit. `label` names it;
    // `finalStats` are computeStats(reference->final()), which the caller has already. The
    // buffers are shared, not copied: a copy of small[N] at full size (14 MiB into fresh
    // pages) took 11 ms on the H200 host (bench/RESULTS.md). Throws std::invalid_argument on
    // a null `reference`.
    static Judge fromRun(std::string label, std::shared_ptr<const ChainResult> reference,
                         const BufferStats& finalStats);
    // The host's chain: cpuChain for `chainLength` steps and the derived tolerance of
    // cpuTolerance for the final buffer and, with `perStep`, for every step (cost: one
    // cpuTolerance per step; seconds each at full size).
    static Judge cpu(const Shape& shape, uint32_t chainLength, bool perStep);

    const std::string& label() const { return label_; }
    bool hasReference() const { return kind_ != Kind::None; }
    bool isCpu() const { return kind_ == Kind::Cpu; }
    // The reference's final buffer, or empty without a reference.
    std::span<const float> referenceFinal() const;
    // True when the reference is all zero or denormal: it cannot judge zero or mismatch.
    bool underflowed() const;

    // Classifies a final buffer small[N].
    Classified classifyFinal(std::span<const float> values, const BufferStats& stats) const;

    // Every dispatch's output of `gpu` (which must carry intermediates) against the
    // reference's; the first that is wrong. Bit-exact against a run; against the CPU,
    // conv-T k's output is checked where slice k reads it (the crop at (1, 1)) within the
    // step-k tolerance, and slice k's output likewise. Throws std::logic_error when the
    // reference has no intermediates.
    StepReport checkSteps(const Shape& shape, const ChainSizes& sizes, const ChainResult& gpu) const;

  private:
    enum class Kind { None, Run, Cpu };
    Kind kind_ = Kind::None;
    std::string label_ = "none";
    std::shared_ptr<const ChainResult> run_;  // Kind::Run
    CpuChain cpu_;                            // Kind::Cpu
    std::vector<Tolerance> tolerances_;       // Kind::Cpu: [k] for small[k], k = 1..N (0 unused)
    BufferStats referenceStats_;
};

}  // namespace repro
