// The modes of one invocation on a device that is already set up: the reference, repeats,
// --check-steps, --sweep, and the verdict. The Vulkan calls of each mode live in src/vk
// (modes.hpp); this file decides what runs, in which order, and what it means. One chain
// length is a pipeline of named stages (src/engine/stages.hpp), read in order in runLength.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "report/report.hpp"
#include "core/shape.hpp"
#include "engine/rig.hpp"

namespace repro {

class Evidence;

// What the modes run on, made once per invocation (for a sweep too).
struct Session {
    const Options& options;
    ChainSizes sizes;
    vk::Instance& instance;
    Rig& rig;
    PhaseTimings& timings;  // recording, gpu wait, readback and verification add up here
    // Called with each run of a mode as soon as it has its result (the supervised child
    // streams it to the parent, so a later crash cannot lose it); may be empty.
    std::function<void(const ModeReport&)> modeDone;
    // The job timeout, the kernel log and split's times (engine/evidence.hpp); null: no causes.
    Evidence* evidence = nullptr;
};

// How one chain length's runs ended.
struct LengthOutcome {
    std::vector<ModeReport> modes;   // every run in order (a reference-only split included)
    std::vector<ModeResult> judged;  // one per mode under test, runs aggregated
    Verdict verdict;
    std::string referenceName;  // "split", "cpu", "none", ...
    bool deviceGone = false;    // a hang or loss: nothing more may be submitted
    bool interrupted = false;   // SIGINT/SIGTERM
    bool dumpFailed = false;    // a --dump-dir file could not be written
};

// Runs options.modes at chain length `n` (options.repeat times each, plus split after them
// as the reference when needed), printing results as they finish.
LengthOutcome runLength(Session& session, uint32_t n);

// Runs options.modes at options.chainLength, prints the verdict, fills the report's modes,
// reference and verdict, and returns the exit status.
int runChainLength(Session& session, RunReport& report);

// --sweep A..B: every N in the range, a table N x mode -> classification, the smallest
// reproducing N per mode; returns the combined exit status.
int runSweep(Session& session, RunReport& report);

// With --validation: the "validation: N messages ..." line.
void printValidation(const Session& session);

// 128 + the signal, after saying so, when the run was interrupted; 0 otherwise.
int interruptedStatus();

}  // namespace repro
