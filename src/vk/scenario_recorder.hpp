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
#include "vk/scenario_settings.hpp"

namespace repro::vk {

class Device;
class Encoder;
class Instrumentation;

// Gives `buffers` (made for `s`) their initial contents again (ScenarioBuffers::restore, then
// the fresh-state submit: scenario_steps.hpp recordFreshState), records the steps as `mode`
// records them, submits and waits, then reads every checked buffer back: docs/scenarios.md
// "Modes" gives each mode's submits, with G and H; "Host points" how a host point splits a submit.
// In split a host read is a submit of its own [begin, G, H, end] and the last submit ends G, H; the
// readback submit is [begin, G, copies, G, H, end]. With queues, vk/scenario_queues.hpp records the modes.
// Instrumentation (--timestamps, --breadcrumbs, --labels) is called around every work step of
// the main queue. Submit failures (a timeout, a lost device, an interrupt) are outcomes in the
// returned run, never exceptions; after a timeout the device is abandoned before the mode's
// objects go, since the GPU may still use them. Throws CannotTest when memory runs out and
// VulkanError for a failed set-up call.
// `encoder` records on the main queue (the workload's, kept from mode to mode).
ScenarioModeRun runScenarioMode(Device& device, Encoder& encoder, const ScenarioPipelines& pipelines,
                                ScenarioBuffers& buffers, Instrumentation& instrumentation, const scenario::Scenario& s,
                                Mode mode, const ScenarioRunSettings& settings);

}  // namespace repro::vk
