// References and per-dispatch checks.
#include "core/judge.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace repro {
namespace {

ToleranceOutcome toOutcome(const ToleranceReport& r) {
    return ToleranceOutcome{.exceeded = r.exceeded,
                            .uninformative = r.uninformative,
                            .worstIndex = r.worstIndex,
                            .worstRatio = r.worstRatio,
                            .maxAbsDiff = r.maxAbsDiff,
                            .maxAllowed = r.maxAllowed,
                            .maxAbsReference = r.maxAbsReference};
}

}  // namespace

Judge Judge::none() { return Judge{}; }

Judge Judge::fromRun(std::string label, std::shared_ptr<const ChainResult> reference, const BufferStats& finalStats) {
    if (!reference) throw std::invalid_argument("Judge::fromRun: no reference buffers");
    Judge j;
    j.kind_ = Kind::Run;
    j.label_ = std::move(label);
    j.referenceStats_ = finalStats;
    j.run_ = std::move(reference);
    return j;
}

Judge Judge::cpu(const Shape& shape, uint32_t n, bool perStep) {
    Judge j;
    j.kind_ = Kind::Cpu;
    j.label_ = "cpu";
    // checkSteps compares with the CPU's small[k] only (a conv-T through the crop slice k
    // reads), so the CPU's big[] are not kept: 580 MiB at full size, N = 20.
    j.cpu_ = cpuChain(shape, n, 0, /*keepIntermediates=*/perStep, /*keepBig=*/false);
    j.tolerances_.resize(n + 1);
    if (perStep) {
        for (uint32_t k = 1; k <= n; ++k) j.tolerances_[k] = cpuTolerance(shape, k);
    } else if (n > 0) {
        j.tolerances_[n] = cpuTolerance(shape, n);
    }
    j.referenceStats_ = computeStats(j.cpu_.output());
    return j;
}

std::span<const float> Judge::referenceFinal() const {
    switch (kind_) {
        case Kind::Run:
            return run_->final();
        case Kind::Cpu:
            return cpu_.output();
        case Kind::None:
            break;
    }
    return {};
}

bool Judge::underflowed() const { return hasReference() && isUnderflowed(referenceStats_); }

Classified Judge::classifyFinal(std::span<const float> values, const BufferStats& stats) const {
    switch (kind_) {
        case Kind::None:
            return classify(values, stats, std::nullopt, "");
        case Kind::Run:
            return classify(values, stats, referenceFinal(), label_);
        case Kind::Cpu: {
            const Tolerance& t = tolerances_.back();
            return classifyWithTolerance(stats, toOutcome(compareWithTolerance(values, cpu_.output(), t)));
        }
    }
    return {};
}

StepReport Judge::checkSteps(const Shape& shape, const ChainSizes& sizes, const ChainResult& gpu) const {
    const size_t n = gpu.big.size();
    StepReport report;
    auto addCheck = [&](uint32_t step, bool convT, std::span<const float> written, Classified verdict) {
        DispatchCheck d{.step = step, .convT = convT, .stats = computeStats(written), .verdict = std::move(verdict)};
        if (!report.firstWrong && isWrong(d.verdict.kind)) report.firstWrong = report.dispatches.size();
        report.dispatches.push_back(std::move(d));
    };
    for (size_t i = 0; i < n; ++i) {
        const uint32_t step = static_cast<uint32_t>(i + 1);
        const auto& big = gpu.big[i];
        const auto& small = gpu.small[i + 1];
        if (kind_ == Kind::Run) {
            if (run_->big.size() != n || run_->small.size() != n + 1) {
                throw std::logic_error("checkSteps: the reference run has no intermediates");
            }
            const auto bigStats = computeStats(big);
            addCheck(step, true, big, classify(big, bigStats, std::span<const float>(run_->big[i]), label_));
            const auto smallStats = computeStats(small);
            addCheck(step, false, small,
                     classify(small, smallStats, std::span<const float>(run_->small[i + 1]), label_));
        } else if (kind_ == Kind::Cpu) {
            if (cpu_.small.size() != n + 1 || cpu_.small[i + 1].empty()) {
                throw std::logic_error("checkSteps: the CPU reference has no intermediates");
            }
            const Tolerance& t = tolerances_[step];
            // conv-T k: the part of big[k-1] that slice k reads.
            std::vector<float> crop(sizes.smallElems);
            cpuSlice(shape, sizes, big, crop);
            const auto cropStats = computeStats(crop);
            addCheck(step, true, big,
                     classifyWithTolerance(cropStats, toOutcome(compareWithTolerance(crop, cpu_.small[i + 1], t))));
            const auto smallStats = computeStats(small);
            addCheck(step, false, small,
                     classifyWithTolerance(smallStats, toOutcome(compareWithTolerance(small, cpu_.small[i + 1], t))));
        } else {
            addCheck(step, true, big, classify(big, computeStats(big), std::nullopt, ""));
            addCheck(step, false, small, classify(small, computeStats(small), std::nullopt, ""));
        }
    }
    return report;
}

}  // namespace repro
