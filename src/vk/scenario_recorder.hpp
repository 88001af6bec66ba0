// The step walker: a scenario (scenario/scenario.hpp) recorded and run in one of the three
// modes with the vocabulary the built-in chain's recorders use (vk/recorder.hpp Recording: the
// same command buffers, submits, waits, failures and instrumentation), then its checked buffers
// read back (docs/scenarios.md "Modes"). The built-in chain keeps its literal recorders
// (vk/blade_modes.cpp); e2e.BuiltInAsAFile.* shows that this walker records the very same
// stream for the chain written as a scenario.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "scenario/scenario.hpp"
#include "scenario/scenario_cpu.hpp"
#include "vk/recorder.hpp"
#include "vk/scenario_resources.hpp"

namespace repro::vk {

class Device;
class Encoder;
class Instrumentation;

// --check-steps (docs/scenarios.md "--check-steps on a scenario"): in split, after each step's
// submit, one more submit [begin, G, a copy of each device-local buffer the step writes to its
// host twin, host-read barrier, end] and the host reads the buffers the step writes
// (scenario_cpu.hpp writtenRanges; host-visible ones from their mapped memory); `onStep` gets
// the step's index into s.steps and those buffers' whole bytes, in step order. Steps that write
// nothing (barriers, noop, host points) get no readback. Other modes ignore it.
struct StepReadback {
    std::function<void(size_t index, const scenario::Contents& written)> onStep;
};

// How one mode's run of a scenario is recorded, beyond the file's own steps.
struct ScenarioRunSettings {
    // The host's wait for each submit: `fixed` (--timeout), or `baseSeconds` plus the budget of
    // every work step since the last host wait (`stepSeconds`, by step index: 0 for barriers
    // and host points), so that a submit of long dispatches is waited for longer
    // (engine/file_workload.cpp submitBudgets).
    std::optional<double> fixed;
    double baseSeconds = 120;
    std::vector<double> stepSeconds;
    // multipass and single: the submit also ends after each step whose index is set here
    // (--submit-every, --split-mib, --split-ms; empty: only at host points and the end), the
    // host waiting for each unless !hostWait (--no-host-wait: only the last is waited for).
    std::vector<bool> cutAfter;
    bool hostWait = true;
    // --drop-dispatch K: this step index (a dispatch) is left out of multipass and single.
    std::optional<size_t> droppedStep;
    StepReadback readback;
};

// How one mode's run of a scenario went.
struct ScenarioModeRun {
    // The mode's own submits as the host saw them (not the fresh-state, readback and
    // --check-steps submits), numbered by work step (scenario_steps.hpp workNumbers); completed
    // once the readback completed too.
    ModeRun run;
    uint64_t stepReadbacks = 0;  // --check-steps: the readback submits after split's steps
    scenario::Contents checked;  // the checked buffers' final bytes, when completed
    // Each host read's bytes (the whole buffer), by the host read's index into s.steps
    std::map<size_t, std::vector<uint8_t>> hostReads;
    // Host phases, seconds (the report's "timings"; bench/overhead.sh):
    double buffersAndUpload = 0;  // the buffers' initial words written again, the fresh-state submit
    double readback = 0;          // the readback submit waited for, the checked bytes copied out
};

// Gives `buffers` (made for `s`) their initial contents again (ScenarioBuffers::restore, then
// the fresh-state submit: scenario_steps.hpp recordFreshState), records the steps as `mode`
// records them, submits and waits, then reads every checked buffer back. Modes, with G
// blade's global barrier and H the host-read barrier ALL_COMMANDS/MEMORY_WRITE ->
// HOST/HOST_READ (vk/barriers.hpp), as the built-in chain's recorders end a mode:
//   split:     for each work step: [begin, G, step, G, end] submit, wait; the last ends G, H
//   multipass: [begin, for each step: (G, step) or the barrier as written, G, H, end] submit, wait
//   single:    [begin, G, every step with the barriers as written, G, H, end] submit, wait
// A host point (HostWrite, HostRead) ends the open submit in multipass and single ([..., G,
// and before a read H, end] submit, wait), the host writes or reads the mapped memory, and a
// new submit continues ([begin, G in single, ...]); in split a host write comes between two
// submits and a host read after a submit of its own [begin, G, H, end]. Checked buffers that
// are device-local are then copied to their host twins by a readback submit [begin, G,
// copies, G, H, end], as the built-in chain reads a device-local small[N] (vk/readback.hpp).
// With queues, vk/scenario_queues.hpp records the modes.
// Instrumentation (--timestamps, --breadcrumbs, --labels) is called around every work step of
// the main queue. Submit failures (a timeout, a lost device, an interrupt) are outcomes in the
// returned run, never exceptions; after a timeout the device is abandoned before the mode's
// objects go, since the GPU may still use them. Throws CannotTest when memory runs out and
// VulkanError for a failed set-up call.
// `encoder` records on the main queue (the workload's, kept from mode to mode).
ScenarioModeRun runScenarioMode(Device& device, Encoder& encoder, const ScenarioPipelines& pipelines,
                                ScenarioBuffers& buffers, Instrumentation& instrumentation, const scenario::Scenario& s,
                                Mode mode, const ScenarioRunSettings& settings);

// The host's wait for a submit holding `budget` seconds of work steps (ScenarioRunSettings).
double submitTimeout(const ScenarioRunSettings& settings, double budget);

}  // namespace repro::vk
