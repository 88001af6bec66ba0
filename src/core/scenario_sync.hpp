// Queues and semaphores of a scenario (docs/scenarios.md "Queues and semaphores"): the
// batches its steps make on each queue, the checks of its semaphores before anything runs (a
// binary wait with no signal before it, a timeline wait no signal reaches, a cycle, a data
// race between queues), and the order the steps then run in. Vulkan-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/scenario.hpp"

namespace repro::scenario {

// One batch: what one VkSubmitInfo carries in multipass and single (Vulkan spec, "Queue
// Submission"): the waits that open it, its steps (dispatches, transfers and barriers) as one
// command buffer, and the signals that end it. Indices into Scenario::steps, in their order.
struct Batch {
    uint32_t queue = 0;  // index into Scenario::queues
    std::vector<size_t> waits, work, signals;
    size_t first = 0;  // the index of its first step
};

// The batches of `s`, in the order of their first steps. A queue's steps are cut into a new
// batch at a wait that follows work or a signal, and at work that follows a signal; so a
// batch is waits, then work, then signals, each possibly empty. Pure.
std::vector<Batch> batchesOf(const Scenario& s);

// The most batches the checks take (their reachability is a bit matrix of this side).
inline constexpr size_t kMaxBatches = 4096;

// What a step reads and writes, by buffer name (barriers, signals and waits: nothing). Pure.
void stepAccesses(const Step& step, std::vector<std::string>& reads, std::vector<std::string>& writes);

// Checks the semaphores of `s` and orders its steps; a scenario with no [[queue]] and no
// [[semaphore]] is left as it is. Throws UsageError with one line "FILE:LINE:COLUMN: ..." for:
//   - a binary semaphore waited on with no unconsumed signal before the wait in file order, or
//     signalled again before a wait consumed its signal (each binary signal is consumed by
//     exactly one wait: Vulkan spec "Semaphore Waiting");
//   - a timeline signal whose value is not above the semaphore's previous signal, or a timeline
//     wait whose value no signal reaches;
//   - a cycle of batches (a queue's batches in order, plus an arc from each signal's batch to
//     the batch of the wait it satisfies): the line names the waits and signals in it, at the
//     first of its waits in file order;
//   - two steps on different queues that access one buffer, one of them writing, with no path
//     of semaphores and queue order between their batches: a data race in the file;
//   - more than kMaxBatches batches.
// Then s.steps become the batches' steps, batch after batch, in a topological order of that
// graph that takes the batch that comes first in the file whenever several are ready (the
// file's order when it is valid); s.reordered says whether the order changed. Every mode and
// the CPU model run the steps in that order.
void checkAndOrderSemaphores(Scenario& s);

}  // namespace repro::scenario
