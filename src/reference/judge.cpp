// References and per-dispatch checks.
#include "reference/judge.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace repro {
namespace {

// `values` (with `stats`) against the CPU reference `cpu` and its tolerance (compareWithTolerance).
Classified withinTolerance(const BufferStats& stats, std::span<const float> values, std::span<const float> cpu,
                           const Tolerance& tolerance) {
    return classifyWithTolerance(stats, compareWithTolerance(values, cpu, tolerance));
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

Judge Judge::cpu(const Shape& shape, uint32_t n) {
    Judge j;
    j.kind_ = Kind::Cpu;
    j.label_ = "cpu";
    CpuStepper chain(shape);
    for (uint32_t k = 0; k < n; ++k) chain.advance();
    j.cpuFinal_ = chain.small();
    j.finalTolerance_ = chain.tolerance();
    j.referenceStats_ = computeStats(j.cpuFinal_);
    return j;
}

std::span<const float> Judge::referenceFinal() const {
    switch (kind_) {
        case Kind::Run:
            return run_->final();
        case Kind::Cpu:
            return cpuFinal_;
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
        case Kind::Cpu:
            return withinTolerance(stats, values, cpuFinal_, finalTolerance_);
    }
    return {};
}

StepJudging Judge::beginSteps(const Shape& shape, const ChainSizes& sizes) const {
    return StepJudging(*this, shape, sizes);
}

StepReport Judge::checkSteps(const Shape& shape, const ChainSizes& sizes, const ChainResult& gpu) const {
    StepJudging steps = beginSteps(shape, sizes);
    for (size_t i = 0; i < gpu.big.size(); ++i) steps.add(gpu.big[i], gpu.small.at(i + 1));
    return steps.report();
}

StepJudging::StepJudging(const Judge& judge, const Shape& shape, const ChainSizes& sizes)
    : judge_(&judge), shape_(shape), sizes_(sizes) {
    if (judge.kind_ == Judge::Kind::Cpu) cpu_.emplace(shape);
}

void StepJudging::addCheck(uint32_t step, bool convT, std::span<const float> written, Classified verdict) {
    DispatchCheck d{.step = step, .convT = convT, .stats = computeStats(written), .verdict = std::move(verdict)};
    if (!report_.firstWrong && isWrong(d.verdict.kind)) report_.firstWrong = report_.dispatches.size();
    report_.dispatches.push_back(std::move(d));
}

void StepJudging::add(std::span<const float> big, std::span<const float> small) {
    const size_t i = report_.dispatches.size() / 2;
    const auto step = static_cast<uint32_t>(i + 1);
    const Judge& j = *judge_;
    if (j.kind_ == Judge::Kind::Run) {
        const ChainResult& ref = *j.run_;
        if (ref.big.size() <= i || ref.small.size() <= i + 1 || ref.big[i].empty() || ref.small[i + 1].empty()) {
            throw std::logic_error("checkSteps: the reference run has no intermediates");
        }
        addCheck(step, true, big, classify(big, computeStats(big), std::span<const float>(ref.big[i]), j.label_));
        addCheck(step, false, small,
                 classify(small, computeStats(small), std::span<const float>(ref.small[i + 1]), j.label_));
    } else if (cpu_) {
        cpu_->advance();
        const Tolerance t = cpu_->tolerance();
        // conv-T k: the part of big[k-1] that slice k reads.
        std::vector<float> crop(sizes_.smallElems);
        cpuSlice(shape_, sizes_, big, crop);
        addCheck(step, true, big, withinTolerance(computeStats(crop), crop, cpu_->small(), t));
        addCheck(step, false, small, withinTolerance(computeStats(small), small, cpu_->small(), t));
    } else {
        addCheck(step, true, big, classify(big, computeStats(big), std::nullopt, ""));
        addCheck(step, false, small, classify(small, computeStats(small), std::nullopt, ""));
    }
}

}  // namespace repro
