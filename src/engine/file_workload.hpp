// A scenario file's workload (engine/workload.hpp): its modes recorded by the step walker
// (vk/scenario_recorder.hpp) on buffers and pipelines made for each point (a --sweep value is
// another file), its checked buffers read back, each run judged against the CPU model's bytes,
// the CPU chain's values within their tolerance and split's bytes (scenario/scenario_check.hpp).
// Each submit is waited for as long as its work needs (submitBudgets), never a fixed time.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/variant.hpp"
#include "engine/stages.hpp"
#include "engine/workload.hpp"
#include "scenario/submit_budget.hpp"
#include "scenario/scenario_check.hpp"
#include "vk/scenario_recorder.hpp"
#include "vk/scenario_resources.hpp"

namespace repro {

namespace vk {
class Device;
class Encoder;
class Instrumentation;
}  // namespace vk

class FileWorkload final : public Workload {
  public:
    // `device` and `instrumentation` (main queue: --timestamps, --breadcrumbs, --labels) must
    // outlive the workload.
    FileWorkload(vk::Device& device, vk::Instrumentation& instrumentation);
    ~FileWorkload() override;

    // The point's file: its pipelines, its buffers and the CPU model's references (the CPU
    // chain on a thread of its own), timed into the report's phases.
    void beginPoint(const run::Length& length) override;
    size_t workItems(const run::Length& length) const override;
    run::Submitted submit(const run::Length& length, const run::PlannedRun& planned, run::Runs& runs) override;
    void judgeCompleted(const run::Length& length, run::Runs& runs, run::RunRecord& record) override;
    void judgeWaiting(const run::Length& length, run::RunRecord& record) override;
    std::string referenceName() const override;
    Verdict decide(const run::Length& length, const run::Runs& runs,
                   const std::vector<ModeResult>& aggregates) const override;
    void addCauseFacts(const run::Length& length, const run::Runs& runs, const run::RunRecord& record,
                       CauseInput& in) const override;
    void recordForStream(const run::Length& length, Mode mode) override;
    std::string streamTitle(const run::Length& length, Mode mode) const override;
    std::string streamNote() const override;

  private:
    struct Point;
    void calibrate(const run::Length& length);
    vk::ScenarioRunSettings settings(const run::Length& length, const run::PlannedRun& planned,
                                     const run::Runs& runs) const;
    void judge(const run::Length& length, run::RunRecord& record, const scenario::ModeBytes* split);

    vk::Device& device_;
    vk::Instrumentation& instrumentation_;
    std::unique_ptr<vk::Encoder> encoder_;  // the main queue's, kept from mode to mode as the chain's
    std::unique_ptr<Point> point_;          // the set-up of the point being run
};

}  // namespace repro
