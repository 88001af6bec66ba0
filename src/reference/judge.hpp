// The reference a run is judged against (--reference) and the per-dispatch check of
// --check-steps. Vulkan-free: it sees buffers as float spans.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reference/cpu_reference.hpp"
#include "reference/host_floats.hpp"
#include "cli/options.hpp"
#include "core/shape.hpp"
#include "reference/stats.hpp"

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

class Judge;

// One run's intermediates against the reference a step at a time, as they are read back:
// add() step k = 1, 2, ... in order with the GPU's big[k-1] and small[k]; report() is then
// what Judge::checkSteps gives for those k steps. Against the CPU it advances a CpuStepper
// of its own alongside, so it holds one step of the reference chain, never all of it (the
// Judge it came from must outlive it). Errors: as Judge::checkSteps.
class StepJudging {
  public:
    void add(std::span<const float> big, std::span<const float> small);
    const StepReport& report() const { return report_; }

  private:
    friend class Judge;
    StepJudging(const Judge& judge, const Shape& shape, const ChainSizes& sizes);
    void addCheck(uint32_t step, bool convT, std::span<const float> written, Classified verdict);
    const Judge* judge_;
    Shape shape_;
    ChainSizes sizes_;
    std::optional<CpuStepper> cpu_;
    StepReport report_;
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
    // The host's chain: small[N] of cpuChain for `chainLength` steps and its derived
    // tolerance (cpuTolerance), from one CpuStepper: one small and its tolerance are kept,
    // the per-step reference of --check-steps is computed again by each StepJudging.
    static Judge cpu(const Shape& shape, uint32_t chainLength);

    const std::string& label() const { return label_; }
    bool hasReference() const { return kind_ != Kind::None; }
    bool isCpu() const { return kind_ == Kind::Cpu; }
    // The reference's final buffer, or empty without a reference.
    std::span<const float> referenceFinal() const;
    // True when the reference is all zero or denormal: it cannot judge zero or mismatch.
    bool underflowed() const;

    // Classifies a final buffer small[N].
    Classified classifyFinal(std::span<const float> values, const BufferStats& stats) const;

    // Starts the step-by-step comparison of one run's intermediates (StepJudging).
    StepJudging beginSteps(const Shape& shape, const ChainSizes& sizes) const;

    // Every dispatch's output of `gpu` (which must carry intermediates) against the
    // reference's; the first that is wrong. Bit-exact against a run; against the CPU,
    // conv-T k's output is checked where slice k reads it (the crop at (1, 1)) within the
    // step-k tolerance, and slice k's output likewise. Throws std::logic_error when the
    // reference run has no intermediates.
    StepReport checkSteps(const Shape& shape, const ChainSizes& sizes, const ChainResult& gpu) const;

  private:
    friend class StepJudging;
    enum class Kind { None, Run, Cpu };
    Kind kind_ = Kind::None;
    std::string label_ = "none";
    std::shared_ptr<const ChainResult> run_;  // Kind::Run
    std::vector<float> cpuFinal_;             // Kind::Cpu: small[N]
    Tolerance finalTolerance_;                // Kind::Cpu: small[N]'s
    BufferStats referenceStats_;
};

}  // namespace repro
