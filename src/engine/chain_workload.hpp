// The built-in chain's workload (engine/workload.hpp): its modes recorded by the literal
// recorders (vk/blade_modes.cpp) or, with experiment flags, the experiment recorder
// (vk/experiment_recorder.cpp) on the chain's Rig; small[N] read back (every intermediate with
// --check-steps, each checked as it comes); each run judged by the chain's Judge
// (reference/judge.hpp): split's result bit for bit, the CPU chain within its derived float32
// tolerance, or the zero and non-finite checks alone (--reference).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "engine/rig.hpp"
#include "engine/stages.hpp"
#include "engine/workload.hpp"
#include "reference/judge.hpp"

namespace repro {

class ChainWorkload final : public Workload {
  public:
    // `rig` must outlive the workload; `sizes` are the shape's (core/shape.hpp computeSizes).
    ChainWorkload(Rig& rig, const ChainSizes& sizes) : rig_(rig), sizes_(sizes) {}

    // --reference cpu: the host's chain (printed with its time); none: Judge::none(); split and
    // auto: nothing yet, split's run becomes the reference. Then, before a one-submit mode
    // that runs ahead of split, one step recorded as split measures what its dispatches take.
    void beginPoint(const run::Length& length) override;
    size_t workItems(const run::Length& length) const override { return 2 * size_t{length.n}; }
    run::Submitted submit(const run::Length& length, const run::PlannedRun& planned, run::Runs& runs) override;
    void judgeCompleted(const run::Length& length, run::Runs& runs, run::RunRecord& record) override;
    void judgeWaiting(const run::Length& length, run::RunRecord& record) override;
    std::string referenceName() const override { return judge_ ? judge_->label() : "none"; }
    Verdict decide(const run::Length& length, const run::Runs& runs,
                   const std::vector<ModeResult>& aggregates) const override;
    void addCauseFacts(const run::Length& length, const run::Runs& runs, const run::RunRecord& record,
                       CauseInput& in) const override;
    void recordForStream(const run::Length& length, Mode mode) override;
    std::string streamTitle(const run::Length& length, Mode mode) const override;
    std::string streamNote() const override;

  private:
    void calibrate(const run::Length& length);
    vk::ModeSettings settings(const run::Length& length, const run::Runs& runs) const;
    void readBack(const run::Length& length, const run::PlannedRun& planned, ChainResult into,
                  run::Submitted& out) const;
    void becomeTheReference(const run::Length& length, run::Runs& runs, run::RunRecord& record);
    void replaceKilledReference(const run::Length& length);
    void printStepReport(const run::Length& length, const run::RunRecord& record) const;

    Rig& rig_;
    ChainSizes sizes_;
    std::optional<Judge> judge_;  // made before the modes (cpu, none) or by split's run, per point
};

}  // namespace repro
