// Running one mode of the chain: the fresh-state clearing submit, then the mode's own
// recording, submits and waits. Without experiment flags a mode records exactly blade
// 72c30c1's stream through the literal recorders below (blade_modes.cpp, one function per
// mode, read top to bottom as its Vulkan call sequence); with them, the experiment recorder
// plays the plan of vk/stream_plan.hpp (experiment_recorder.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "cli/options.hpp"
#include "vk/stream_plan.hpp"
#include "vk/recorder.hpp"

namespace repro::vk {

// split: for each step i, [begin, G, D(conv-T, i), G, end] submit, wait, then
// [begin, G, D(slice, i), G, end] submit, wait: 2N submits.
ModeRun recordSplit(Recorder& r);
// multipass: begin; for each step: G, D(conv-T), G, D(slice) (each dispatch its own compute
// pass, whose start is G); G, end; one submit, wait.
ModeRun recordMultipass(Recorder& r);
// single: begin, G; for each step: (after the first: C), D(conv-T), C, D(slice); G, end;
// one submit, wait (one compute pass; C is pass.barrier()).
ModeRun recordSingle(Recorder& r);
// The experiment recorder: the plan's steps in order (multipass and single only).
ModeRun recordPlan(Recorder& r, std::span<const PlanStep> plan);

// How a mode is run beyond the resources.
struct ModeSettings {
    uint32_t steps = 0;          // N of this run; buffers may be sized for a longer chain
    RecordingOptions recording;  // experiments (multipass and single)
    WaitTimeout timeout;
    bool hostReadBarrier = true;  // ProfileSettings::hostReadBarrier
    uint32_t fillPattern = 0;     // 0, or kPoisonPattern (--poison)
    // --split-ms: predicted GPU seconds per chain dispatch (0-based), else empty.
    std::span<const double> predictedSeconds;
    // --trace: the run's name on the timeline, carried by its GPU dispatches' args
    // ("mode multipass, N=2, run 1 of 1"); empty: "mode MODE".
    std::string traceTitle;
};

// Runs `mode` from fresh state: first a separate submit fills small[1..N] and every big[i]
// with settings.fillPattern (copying the upload buffer into small[0] where small[0] is not
// mapped) and waits, so no data from an earlier mode survives; then the mode. Failures of
// submits and waits are outcomes in the returned ModeRun (with forensics); set-up calls
// throw VulkanError.
ModeRun runMode(const ChainResources& resources, Encoder& encoder, Instrumentation& instrumentation,
                const ModeSettings& settings, Mode mode);

}  // namespace repro::vk
