// The modes of one invocation on a device that is already set up: the reference, repeats,
// --check-steps, --sweep, and the verdict, for either form of plan (scenario/plan.hpp). One point
// (a chain length, a file's sweep value) is engine/stages.hpp's pipeline of stages.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "scenario/plan.hpp"
#include "report/report.hpp"

namespace repro {

class Evidence;
class Workload;
namespace vk {
class Instance;
class Device;
}  // namespace vk

// What the modes run on, made once per invocation (for a sweep too).
struct Session {
    const Options& options;
    const Plan& plan;
    vk::Instance& instance;
    vk::Device& device;
    Workload& workload;
    PhaseTimings& timings;  // recording, gpu wait, readback and verification add up here
    // Called with each run of a mode as soon as it has its result (the supervised child
    // streams it to the parent, so a later crash cannot lose it); may be empty.
    std::function<void(const ModeReport&)> modeDone;
    // The job timeout, the kernel log and split's times (evidence.hpp); null: no causes.
    Evidence* evidence = nullptr;
};

// How one point's runs ended.
struct PointOutcome {
    std::vector<ModeReport> modes;   // every run in order (a reference-only split included)
    std::vector<ModeResult> judged;  // one per mode under test, runs aggregated
    std::vector<FoldedRuns> folded;  // --repeat's runs past the listed ones (engine/stages.hpp)
    Verdict verdict;
    std::string referenceName;  // "split", "cpu", "none", "the CPU model", ...
    bool deviceGone = false;    // a hang or loss: nothing more may be submitted
    bool interrupted = false;   // SIGINT/SIGTERM
    bool dumpFailed = false;    // a --dump-dir file could not be written
};

// Runs options.modes at `point` (options.repeat times each, plus split after them as the
// reference when needed), printing results as they finish.
PointOutcome runPoint(Session& session, const PlanPoint& point);

// Runs options.modes at the plan's one point, prints the verdict, fills the report's modes,
// reference and verdict, and returns the exit status.
int runSinglePoint(Session& session, RunReport& report);

// --sweep: every point of the plan (each N of the chain, each value of a file's parameter), a
// table point x mode -> classification, the smallest reproducing point per mode; returns the
// combined exit status.
int runSweep(Session& session, RunReport& report);

// With --validation: the "validation: N messages ..." line.
void printValidation(const Session& session);

// 128 + the signal, after saying so, when the run was interrupted; 0 otherwise.
int interruptedStatus();

}  // namespace repro
