// One mode from fresh state (see modes.hpp).
#include <fmt/format.h>

#include <stdexcept>

#include "core/clock.hpp"
#include "vk/barriers.hpp"
#include "report/trace_events.hpp"
#include "vk/device.hpp"
#include "vk/gpu_trace.hpp"
#include "vk/modes.hpp"
#include "vk/trace.hpp"
#include "vk/watch.hpp"

namespace repro::vk {
namespace {

// Fresh state: fill every buffer the chain writes with `pattern`, in its own submit,
// host-waited. Not blade's stream: the original makes new buffers for each run instead.
bool clearChainBuffers(const ChainResources& res, Encoder& encoder, Instrumentation& instrumentation,
                       const ModeSettings& settings, ModeRun& run) {
    encoder.begin();
    const VkCommandBuffer cmd = encoder.cmd();
    instrumentation.startMode(cmd);
    recordBladeGlobalBarrier(cmd);
    const ChainBuffers& b = res.buffers;
    if (b.upload) copyWhole(cmd, *b.upload, b.small[0]);
    for (size_t i = 1; i < b.small.size(); ++i)
        vkCmdFillBuffer(cmd, b.small[i].get(), 0, VK_WHOLE_SIZE, settings.fillPattern);
    for (const auto& big : b.big) vkCmdFillBuffer(cmd, big.get(), 0, VK_WHOLE_SIZE, settings.fillPattern);
    recordBladeGlobalBarrier(cmd);
    encoder.end();
    const double timeout = settings.timeout.seconds(res.shape, 0);
    const SubmitOutcome out = encoder.submitAndWait(timeout);
    run.waitSeconds += out.waitSeconds;
    if (out.status != SubmitStatus::Completed) run.submits = 1;
    return noteOutcome(out, "submit 1 of 1 (clearing the chain's buffers)", timeout, run);
}

uint64_t submitCount(Mode mode, uint32_t steps, std::span<const PlanStep> plan) {
    if (mode == Mode::Split) return 2 * uint64_t{steps};
    if (plan.empty()) return 1;
    uint64_t submits = 0;
    for (const PlanStep& s : plan) submits += s.kind == PlanStep::Kind::Submit;
    return submits;
}

}  // namespace

ModeRun runMode(const ChainResources& res, Encoder& encoder, Instrumentation& instrumentation,
                const ModeSettings& settings, Mode mode) {
    const auto start = Clock::now();
    ModeRun run;
    watch::stage(watch::Stage::Modes, fmt::format("mode {}: the clearing submit", name(mode)), name(mode));
    trace::note(fmt::format("mode {}: repro's clearing submit (not blade's)", name(mode)));
    bool cleared = false;
    {
        trace_events::Span span("clearing submit (repro's, not blade's)", "phase");
        cleared = clearChainBuffers(res, encoder, instrumentation, settings, run);
    }
    if (!cleared) {
        run.wallSeconds = secondsSince(start);
        return run;
    }
    const bool blade = mode == Mode::Split || isBladeStream(settings.recording);
    const std::vector<PlanStep> plan =
        blade ? std::vector<PlanStep>{}
              : planExperiment(mode, settings.steps, settings.recording, res.sizes, settings.predictedSeconds);
    Recorder recorder(res, encoder, instrumentation, settings.timeout, settings.hostReadBarrier,
                      submitCount(mode, settings.steps, plan));
    recorder.setSteps(settings.steps);
    trace::note(fmt::format("mode {}: {}", name(mode), blade ? "blade's stream" : "the experiment plan"));
    if (!blade) {
        run = recordPlan(recorder, plan);
    } else if (mode == Mode::Split) {
        run = recordSplit(recorder);
    } else {
        run = mode == Mode::Multipass ? recordMultipass(recorder) : recordSingle(recorder);
    }
    // The device-fault report of a lost device is added where every failure is judged
    // (engine/stages.cpp recordFailure).
    if (!run.completed) run.forensics = instrumentation.breadcrumbReport(2 * settings.steps);
    run.wallSeconds = secondsSince(start);
    traceGpuDispatches(res.device, run,
                       settings.traceTitle.empty() ? fmt::format("mode {}", name(mode)) : settings.traceTitle, mode);
    return run;
}

}  // namespace repro::vk
