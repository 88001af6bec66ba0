// The vocabulary the mode recorders are written in: one call per blade operation (start,
// the barriers G and C, a dispatch with its pipeline and descriptor set, finish, submit and
// wait), each recording exactly the Vulkan calls blade records for it (blade
// `vulkan/command.rs` at 72c30c1; docs/blade-stream.md "Recording"), with the opt-in
// instrumentation around them as hooks that do nothing when off. Recording is what the
// built-in chain's recorders and a scenario's step walker share; Recorder is the chain's.
#pragma once

#include <volk.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "core/shape.hpp"
#include "vk/stream_plan.hpp"
#include "vk/buffers.hpp"
#include "vk/encoder.hpp"
#include "vk/instrumentation.hpp"
#include "vk/pipeline.hpp"

namespace repro::vk {

class Device;

// What every mode records with: made once per process (buffers sized for the longest chain).
struct ChainResources {
    const Device& device;
    const ChainBuffers& buffers;
    const ComputePipeline& convT;
    const ComputePipeline& slice;
    ChainSizes sizes;
    Shape shape;
};

// How long the host waits for one submit (--timeout; automatic from the submit's conv-Ts).
struct WaitTimeout {
    std::optional<double> fixed;  // --timeout seconds; nullopt: auto (shape.hpp submitTimeoutSeconds)
    bool cpuDevice = false;
    double seconds(const Shape& shape, uint32_t convTs) const {
        return submitTimeoutSeconds(fixed, shape, convTs, cpuDevice);
    }
};

// One submit of a mode as the host saw it.
struct SubmitRecord {
    std::string what;                              // "step 3 conv-T", "all 7 steps", "dispatches 1..4"
    uint32_t firstDispatch = 0, lastDispatch = 0;  // work numbers recorded in it (0: none)
    bool hostWaited = true;
    double hostSeconds = 0;   // from vkQueueSubmit to the wait's return (waited submits)
    int64_t submittedAt = 0;  // when vkQueueSubmit was called, monotonic ns (report/trace_events.hpp)
};

// How long the host waits for repro's canary, an empty command buffer submitted after a mode
// (engine/stages.hpp checkCanary), when --timeout does not say.
inline constexpr double kCanarySeconds = 10;

// repro's canary (not blade's) on `encoder`'s queue: an empty command buffer [begin, end],
// submitted and waited on for at most `timeoutSeconds`, noted on --trace and --print-stream as
// "mode MODE: WHAT (not blade's): an empty command buffer, submitted and waited on".
SubmitOutcome submitCanary(Encoder& encoder, std::string_view mode, std::string_view what, double timeoutSeconds);

// How a mode's run went.
struct ModeRun {
    bool completed = false;    // every submit completed
    SubmitOutcome failure;     // when not completed: the submit that ended it
    std::string failedSubmit;  // e.g. "submit 5 of 14 (step 3 conv-T)"
    double failedTimeout = 0;  // seconds the host waited for that submit
    uint64_t submits = 0;
    double wallSeconds = 0;                   // clear + record + submit + wait, host time
    double waitSeconds = 0;                   // host time blocked in vkWaitSemaphores
    double recordSeconds = 0;                 // host time recording the chain's command buffers
    std::vector<SubmitRecord> submitRecords;  // the mode's own submits (not the clearing or readback ones)
    GpuTimes gpu;                             // --timestamps
    std::string forensics;                    // --breadcrumbs / device-fault findings after a failure
    // repro's canary after the mode and its readback (engine/stages.hpp checkCanary): what its
    // submit and wait got; nullopt when it did not run (a submit or the readback had failed).
    std::optional<SubmitOutcome> canary;
};

// Whether a submit's outcome completed; else false with `run` ending there (its failure,
// `failedSubmit` naming the submit, "submit 3 (step 3 copy a -> b)", and the timeout waited).
bool noteOutcome(const SubmitOutcome& out, const std::string& failedSubmit, double timeoutSeconds, ModeRun& run);

// One mode's command buffers and submits on one encoder, as the host sees them: what every
// recorder shares (the built-in chain's literal recorders below, the scenario step walker of
// vk/scenario_recorder.hpp). Each command buffer starts with begin() and ends with finish(); each
// submit is noted (what it held, how long the host waited: ModeRun::submitRecords), traced
// (--trace) and, when it fails, ends the run with the failure in ModeRun. Work items (a chain's
// dispatches, a scenario's dispatches and transfers) are numbered from 1 in recording order;
// the instrumentation (--timestamps, --breadcrumbs, --labels) is called around each.
class Recording {
  public:
    // `totalSubmits`: how many submits the mode makes (for "submit 5 of 14").
    Recording(const Device& device, Encoder& encoder, Instrumentation& instrumentation, uint64_t totalSubmits);

    VkCommandBuffer cmd() const { return encoder_.cmd(); }
    Instrumentation& instrumentation() const { return instrumentation_; }
    // blade start(): descriptor pool reset, vkBeginCommandBuffer(ONE_TIME_SUBMIT); then the
    // command buffer's start timestamp (--timestamps).
    void begin();
    // blade's global barrier G (CommandEncoder::barrier, command.rs:369-389).
    void barrierG();
    // blade's compute-pass barrier C (ComputeCommandEncoder::barrier, command.rs:859-876).
    void barrierC();
    // Around work item `number` (1-based): label and timestamp before, timestamp, breadcrumb
    // and label end after. `name`: how --trace names it (empty: not traced); `label`: its
    // --labels text (empty: the chain's, describeDispatch).
    void beforeWork(uint32_t number, std::string name, const std::string& label = {});
    void afterWork(uint32_t number);
    // blade finish(): G, then with `hostRead` the HOST_READ barrier (not blade's:
    // recordHostReadBarrier), then vkEndCommandBuffer.
    void finish(bool hostRead);
    // vkQueueSubmit signalling the timeline semaphore, then the host wait of at most
    // `timeoutSeconds`. False when the run must stop (the failure is in the run).
    bool submitAndWait(const std::string& what, double timeoutSeconds);
    // vkQueueSubmit without a host wait (--no-host-wait). False when the submit failed.
    bool submitNoWait(const std::string& what);
    // Whether --trace names work items (timestamps on and a trace attached).
    bool namesWork() const;

    // The run so far: completed() marks it complete first. Both read the GPU times.
    ModeRun completed();
    ModeRun stopped();
    ModeRun& run() { return run_; }

  protected:
    Encoder& encoder() const { return encoder_; }

  private:
    void noteSubmitted(const std::string& what, bool waited, Clock::time_point start);
    // --trace: the submit just noted, with its wait, as a slice (report/trace_events.hpp).
    void traceSubmit(const std::string& what, const SubmitOutcome& out, double timeout) const;
    bool failed(const SubmitOutcome& out, const std::string& what, double timeout);

    const Device& device_;
    Encoder& encoder_;
    Instrumentation& instrumentation_;
    uint64_t totalSubmits_;
    ModeRun run_;
    uint32_t firstInBuffer_ = 0, lastInBuffer_ = 0;  // work numbers of the open command buffer
    Clock::time_point recordStart_{};
};

// The built-in chain's recording vocabulary: one call per blade operation (start, G, C, a
// dispatch with its pipeline and descriptor set, finish, submit and wait), each recording
// exactly the Vulkan calls blade records for it (blade `vulkan/command.rs` at 72c30c1;
// docs/blade-stream.md "Recording"). Work item k is the chain's dispatch k: conv-T of step s
// is 2s-1, its slice 2s.
class Recorder : public Recording {
  public:
    // `totalSubmits`: how many chain submits the mode makes (for "submit 5 of 14").
    Recorder(const ChainResources& resources, Encoder& encoder, Instrumentation& instrumentation,
             const WaitTimeout& timeout, bool hostReadBarrier, uint64_t totalSubmits);

    // An experiment's barrier (stream_plan.hpp); Buffer covers the output of dispatch `covers`.
    void barrier(PlanBarrier kind, uint32_t covers);
    // D(conv-T, step): bind conv_t, a fresh descriptor set (small[step], weight, big[step],
    // conv_params), bind it, dispatch the conv-T workgroups. `step` 0-based.
    void convT(uint32_t step) { dispatch(2 * step + 1); }
    // D(slice, step): bind slice, a fresh set (big[step], small[step+1], slice_params),
    // bind it, dispatch the slice workgroups.
    void slice(uint32_t step) { dispatch(2 * step + 2); }
    // Either dispatch by its 1-based chain number.
    void dispatch(uint32_t number);
    // blade finish(): G, then vkEndCommandBuffer; with `hostReads` and the default profile,
    // the HOST_READ barrier after G (not blade's).
    void finish(bool hostReads) { Recording::finish(hostReads && hostReadBarrier_); }
    // vkQueueSubmit, then the host wait, its timeout sized by `convTs`, the conv-Ts since the
    // last wait. False when the run must stop.
    bool submitAndWait(const std::string& what, uint32_t convTs);

    uint32_t steps() const { return steps_; }
    void setSteps(uint32_t n) { steps_ = n; }

  private:
    // --trace's name of a dispatch: the pipeline and its set's buffers, as --print-stream
    // shows them; empty without --trace and --timestamps.
    std::string dispatchName(const ComputePipeline& pipeline, const std::vector<const Buffer*>& set) const;

    const ChainResources& res_;
    WaitTimeout timeout_;
    bool hostReadBarrier_;
    uint32_t steps_ = 0;
};

}  // namespace repro::vk
