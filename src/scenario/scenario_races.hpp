// Data races on one queue of a scenario (issue 35 §1; docs/scenarios.md "What is a race on one queue"): two
// steps that touch one buffer, one of them writing, with nothing in the recording that orders
// them. Vulkan-free, pure.
#pragma once

#include "scenario/scenario.hpp"

namespace repro::scenario {

// Checks every pair of steps of `s` on one queue, as `single` records them, by the rule of
// docs/scenarios.md "What is a race on one queue" (the hazards, the barrier scopes that order a
// pair, what else orders one, repeats, images); pairs across batches are the semaphore check's
// (scenario_sync.hpp). A pair with a control barrier between them (control = true,
// "execution-only" or "none") is the file's labelled race and runs as a control. Throws UsageError
// with one line "FILE:LINE:COLUMN: ..." at the later step, naming both steps, the buffer, the
// hazard and a barrier that would order them.
void checkOneQueueRaces(const Scenario& s);

}  // namespace repro::scenario
