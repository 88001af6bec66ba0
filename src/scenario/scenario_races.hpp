// Data races on one queue of a scenario (issue 35 §1; docs/scenarios.md "What is a race"): two
// steps that touch one buffer, one of them writing, with nothing in the recording that orders
// them. Vulkan-free, pure.
#pragma once

#include "scenario/scenario.hpp"

namespace repro::scenario {

// Checks every pair of steps of `s` on one queue, as `single` records them (the strictest of
// the three modes: one command buffer and only the file's barriers between its steps; split
// waits after each step, and multipass puts blade's G, ALL_COMMANDS -> ALL_COMMANDS with every
// write made available and visible, before each work step, so neither can race). For each
// pair x before y that touch one buffer in overlapping bytes, at least one writing (a
// read-after-write, write-after-write or write-after-read hazard), some barrier step between
// them that single records must have x's stages in its first scope and y's in its second, and
// for a write of x the write in its first access scope and y's reads in its second (Vulkan
// spec, "Execution and Memory Dependencies": the write made available, and visible to what
// reads it; a write-after-read needs the execution dependency only). A host point, which ends the submit and waits for it, orders everything before it;
// so does a wait or signal between two steps of a file with queues, whose pairs across batches
// the semaphore check (scenario_sync.hpp) covers. A pair with a control barrier between them
// (control = true, "execution-only" or "none") is the file's labelled race and runs as a
// control. Repetitions of a `repeat` step are pairs like any other. An image's layout
// transition is a write of the whole image by its barrier step, which its barrier's own first
// and second scopes order (Vulkan spec, "Image Layout Transitions"). Throws UsageError with one
// line "FILE:LINE:COLUMN: ..." at the later step, naming both steps, the buffer, the hazard
// and a barrier that would order them.
void checkOneQueueRaces(const Scenario& s);

}  // namespace repro::scenario
