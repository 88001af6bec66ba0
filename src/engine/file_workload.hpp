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
#include "engine/workload.hpp"
#include "scenario/scenario_check.hpp"
#include "vk/scenario_recorder.hpp"
#include "vk/scenario_resources.hpp"

namespace repro {

namespace vk {
class Device;
class Encoder;
class Instrumentation;
}  // namespace vk

// Seconds of host wait each step of `s` may need, by step index (0 for barriers, host points,
// signals and waits), so that a submit's timeout is a base plus the sum over its work steps
// (vk::ScenarioRunSettings): a dispatch its invocations times its work loop's iterations
// (at least one; a private-array's words; a user kernel counted as kUserKernelIterations,
// since its work is unknown) at a generous rate per iteration, conv-t and slice as the
// built-in chain's per-conv-T budget (core/shape.hpp submitTimeoutSeconds), a transfer its
// bytes. The rates are 20 to 100 times slower than lavapipe on two cores and a GPU
// (docs/scenarios.md "Timeouts"), so a slow device that is still working is never called hung.
std::vector<double> submitBudgets(const scenario::Scenario& s, bool cpuDevice);
inline constexpr double kCpuSecondsPerIteration = 6e-9;
inline constexpr double kGpuSecondsPerIteration = 1e-10;
inline constexpr double kCpuSecondsPerByte = 1e-8;
inline constexpr double kGpuSecondsPerByte = 1e-10;
inline constexpr double kUserKernelIterations = 1000;

// multipass and single's cuts for --submit-every, --split-mib and --split-ms (core/variant.hpp
// commandBufferEnds over the file's work steps: the bytes each writes and its predicted time),
// by step index; empty without them. `predicted` is per work step (empty: no prediction,
// when --split-ms then cuts nothing).
std::vector<bool> fileCuts(const scenario::Scenario& s, const SubmitStructure& submit,
                           const std::vector<double>& predicted);

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
    vk::ScenarioRunSettings settings(const run::Length& length, const run::PlannedRun& planned,
                                     const run::Runs& runs) const;
    void judge(const run::Length& length, run::RunRecord& record, const scenario::ModeBytes* split);

    vk::Device& device_;
    vk::Instrumentation& instrumentation_;
    std::unique_ptr<vk::Encoder> encoder_;  // the main queue's, kept from mode to mode as the chain's
    std::unique_ptr<Point> point_;  // the set-up of the point being run
};

}  // namespace repro
