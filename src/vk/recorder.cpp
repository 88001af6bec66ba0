// The recording vocabulary (see recorder.hpp).
#include "vk/recorder.hpp"

#include <fmt/format.h>

#include "forensics/breadcrumbs.hpp"
#include "report/trace_events.hpp"
#include "vk/barriers.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/trace.hpp"
#include "vk/watch.hpp"

namespace repro::vk {

bool noteOutcome(const SubmitOutcome& out, const std::string& failedSubmit, double timeoutSeconds, ModeRun& run) {
    if (out.status == SubmitStatus::Completed) return true;
    run.failure = out;
    run.failedSubmit = failedSubmit;
    run.failedTimeout = timeoutSeconds;
    return false;
}

Recording::Recording(const Device& device, Encoder& encoder, Instrumentation& instrumentation, uint64_t totalSubmits)
    : device_(device), encoder_(encoder), instrumentation_(instrumentation), totalSubmits_(totalSubmits) {}

void Recording::begin() {
    recordStart_ = Clock::now();
    firstInBuffer_ = lastInBuffer_ = 0;
    encoder_.begin();
    instrumentation_.commandBufferStarted(encoder_.cmd());
}

void Recording::barrierG() {
    instrumentation_.beginLabel(encoder_.cmd(), "blade barrier G");
    recordBladeGlobalBarrier(encoder_.cmd());
    instrumentation_.endLabel(encoder_.cmd());
}

void Recording::barrierC() {
    instrumentation_.beginLabel(encoder_.cmd(), "blade barrier C");
    recordBladeComputeBarrier(encoder_.cmd());
    instrumentation_.endLabel(encoder_.cmd());
}

Recorder::Recorder(const ChainResources& resources, Encoder& encoder, Instrumentation& instrumentation,
                   const WaitTimeout& timeout, bool hostReadBarrier, uint64_t totalSubmits)
    : Recording(resources.device, encoder, instrumentation, totalSubmits),
      res_(resources),
      timeout_(timeout),
      hostReadBarrier_(hostReadBarrier) {}

void Recorder::barrier(PlanBarrier kind, uint32_t covers) {
    if (kind == PlanBarrier::BladeGlobal) return barrierG();
    if (kind == PlanBarrier::BladeCompute) return barrierC();
    const VkCommandBuffer cmd = this->cmd();
    instrumentation().beginLabel(
        cmd, describe(PlanStep{.kind = PlanStep::Kind::Barrier, .barrier = kind, .dispatch = covers}));
    switch (kind) {
        case PlanBarrier::Sync2Storage:
            recordSync2StorageBarrier(cmd);
            break;
        case PlanBarrier::Buffer: {
            // The buffer dispatch `covers` wrote: conv-T k writes big[k], slice k small[k+1].
            const uint32_t step = (covers - 1) / 2;
            const bool convT = covers % 2 == 1;
            recordBufferBarrier(cmd, convT ? res_.buffers.big[step].get() : res_.buffers.small[step + 1].get());
            break;
        }
        case PlanBarrier::Sync2Full:
            recordSync2FullBarrier(cmd);
            break;
        case PlanBarrier::ExecutionOnly:
            recordExecutionOnlyBarrier(cmd);
            break;
        case PlanBarrier::BladeGlobal:  // recorded above
        case PlanBarrier::BladeCompute:
            break;
    }
    instrumentation().endLabel(cmd);
}

bool Recording::namesWork() const { return instrumentation_.timestamps() && trace_events::attached(); }

std::string Recorder::dispatchName(const ComputePipeline& pipeline, const std::vector<const Buffer*>& set) const {
    if (!namesWork()) return {};
    std::string name = pipeline.name + "(";
    for (const Buffer* b : set) name += (name.back() == '(' ? "" : ", ") + b->name;
    return name + ")";
}

void Recording::beforeWork(uint32_t number, std::string name, const std::string& label) {
    instrumentation_.beforeDispatch(encoder_.cmd(), number, std::move(name), label);
}

void Recording::afterWork(uint32_t number) {
    instrumentation_.afterDispatch(encoder_.cmd(), number);
    if (firstInBuffer_ == 0) firstInBuffer_ = number;
    lastInBuffer_ = number;
}

void Recorder::dispatch(uint32_t number) {
    const bool conv = number % 2 == 1;
    const uint32_t step = (number - 1) / 2;
    const ChainBuffers& b = res_.buffers;
    const ComputePipeline& p = conv ? res_.convT : res_.slice;
    const std::vector<const Buffer*> set =
        conv ? std::vector<const Buffer*>{&b.small[step], &b.weight, &b.big[step], &b.convParams}
             : std::vector<const Buffer*>{&b.big[step], &b.small[step + 1], &b.sliceParams};
    beforeWork(number, dispatchName(p, set));
    std::vector<VkBuffer> handles;
    for (const Buffer* buffer : set) handles.push_back(buffer->get());
    encoder().bindPipelineAndBuffers(p, handles);
    const auto& g = conv ? res_.sizes.convWorkgroups : res_.sizes.sliceWorkgroups;
    vkCmdDispatch(cmd(), g[0], g[1], g[2]);
    afterWork(number);
}

void Recording::finish(bool hostRead) {
    barrierG();
    if (hostRead) recordHostReadBarrier(encoder_.cmd());
    encoder_.end();
    run_.recordSeconds += secondsSince(recordStart_);
    trace_events::slice(
        "recording", "phase", trace_events::Track::Host, trace_events::nanos(recordStart_), trace_events::now(),
        {{"dispatches", fmt::format("{}..{}", firstInBuffer_, lastInBuffer_)}, {"host_read_barrier", hostRead}});
}

void Recording::noteSubmitted(const std::string& what, bool waited, Clock::time_point start) {
    ++run_.submits;
    run_.submitRecords.push_back({.what = what,
                                  .firstDispatch = firstInBuffer_,
                                  .lastDispatch = lastInBuffer_,
                                  .hostWaited = waited,
                                  .hostSeconds = waited ? secondsSince(start) : 0,
                                  .submittedAt = trace_events::nanos(start)});
}

void Recording::traceSubmit(const std::string& what, const SubmitOutcome& out, double timeout) const {
    if (!trace_events::attached()) return;
    const SubmitRecord& r = run_.submitRecords.back();
    nlohmann::json args{{"dispatches", fmt::format("{}..{}", r.firstDispatch, r.lastDispatch)},
                        {"host_waited", r.hostWaited},
                        {"result", resultName(out.result)},
                        {"timeline_value", out.timelineValue}};
    if (r.hostWaited) args["host_wait_limit_s"] = timeout;
    trace_events::submitSlice(fmt::format("submit {} of {} ({})", run_.submits, totalSubmits_, what), r.submittedAt,
                              trace_events::now(), std::move(args));
}

bool Recording::failed(const SubmitOutcome& out, const std::string& what, double timeout) {
    return noteOutcome(out, fmt::format("submit {} of {} ({})", run_.submits, totalSubmits_, what), timeout, run_);
}

bool Recorder::submitAndWait(const std::string& what, uint32_t convTs) {
    return Recording::submitAndWait(what, timeout_.seconds(res_.shape, convTs));
}

bool Recording::submitAndWait(const std::string& what, double timeout) {
    watch::detail(fmt::format("submit {} of {} ({})", run_.submits + 1, totalSubmits_, what));
    const auto start = Clock::now();
    const SubmitOutcome out = encoder_.submitAndWait(timeout);
    noteSubmitted(what, /*waited=*/true, start);
    traceSubmit(what, out, timeout);
    run_.waitSeconds += out.waitSeconds;
    return out.status == SubmitStatus::Completed || failed(out, what, timeout);
}

bool Recording::submitNoWait(const std::string& what) {
    watch::detail(fmt::format("submit {} of {} ({}), no host wait", run_.submits + 1, totalSubmits_, what));
    const auto start = Clock::now();
    const SubmitOutcome out = encoder_.submitNoWait();
    noteSubmitted(what, /*waited=*/false, start);
    traceSubmit(what, out, 0);
    return out.status == SubmitStatus::Completed || failed(out, what, 0);
}

SubmitOutcome submitCanary(Encoder& encoder, std::string_view mode, std::string_view what, double timeoutSeconds) {
    trace::note(fmt::format("mode {}: {} (not blade's): an empty command buffer, submitted and waited on", mode, what));
    encoder.begin();
    encoder.end();
    return encoder.submitAndWait(timeoutSeconds);
}

ModeRun Recording::completed() {
    run_.completed = true;
    return stopped();
}

ModeRun Recording::stopped() {
    run_.gpu = instrumentation_.readTimes(device_);
    return std::move(run_);
}

}  // namespace repro::vk
