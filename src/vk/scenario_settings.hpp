// What one mode's run of a scenario by the step walker (vk/scenario_recorder.hpp) is given
// besides the file's steps, and what it gives back.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenario/scenario_cpu.hpp"
#include "vk/recorder.hpp"

namespace repro::vk {

struct StressKit;

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
    // (scenario/submit_budget.hpp submitBudgets).
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
    // --stress: multipass and single on one queue record its priming and traffic at the start
    // of each command buffer (vk/stress.hpp recordStress); null: none. Split never does.
    const StressKit* stress = nullptr;
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

// The host's wait for a submit holding `budget` seconds of work steps (ScenarioRunSettings).
inline double submitTimeout(const ScenarioRunSettings& settings, double budget) {
    return settings.fixed ? *settings.fixed : settings.baseSeconds + budget;
}

}  // namespace repro::vk
