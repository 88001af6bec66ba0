// How the plan's modes are recorded and checked: the one thing the built-in chain
// (engine/chain_workload.hpp) and a file (engine/file_workload.hpp) do differently. runPoint
// (engine/length.cpp) calls these in the same order for both; everything around them is shared.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "forensics/cause.hpp"
#include "report/verdict.hpp"

namespace repro {

namespace run {  // engine/stages.hpp
struct Length;
struct PlannedRun;
struct Submitted;
struct RunRecord;
struct Runs;
}  // namespace run

class Workload {
  public:
    virtual ~Workload() = default;

    // Before the modes at a point: its device objects where they differ by point (a file's
    // sweep value), the reference that needs no run (the CPU chain, a file's CPU model),
    // calibration. Prints what it made.
    virtual void beginPoint(const run::Length& length) = 0;
    // The work items at the point, in recording order (the chain's 2N dispatches, a file's
    // dispatches and transfers): what split's submits measure and a prediction sums.
    virtual size_t workItems(const run::Length& length) const = 0;
    // One run from fresh state: recorded, submitted and read back (checking each intermediate
    // as it comes, with --check-steps), with the kernel log around it.
    virtual run::Submitted submit(const run::Length& length, const run::PlannedRun& planned, run::Runs& runs) = 0;
    // A run whose submits and readback completed: its lines and classification, judged against
    // the reference, made the reference (split), or left waiting for it (timed by the caller as
    // the verification phase).
    virtual void judgeCompleted(const run::Length& length, run::Runs& runs, run::RunRecord& record) = 0;
    // A run that waited for the reference split made after it: judged now (by the self-checks
    // alone when the reference never came).
    virtual void judgeWaiting(const run::Length& length, run::RunRecord& record) = 0;
    // What the runs were judged against, for the report ("split", "cpu", "none", ...).
    virtual std::string referenceName() const = 0;
    // The point's verdict from the modes' aggregates and a hang of the reference-only split
    // (report/verdict.hpp decideVerdict and what this form adds to it).
    virtual Verdict decide(const run::Length& length, const run::Runs& runs,
                           const std::vector<ModeResult>& aggregates) const = 0;
    // The facts of this form a cause is decided with (the reference, split's step check, the
    // control left out), added to the run's own.
    virtual void addCauseFacts(const run::Length& length, const run::Runs& runs, const run::RunRecord& record,
                               CauseInput& in) const = 0;

    // --print-stream: `mode` recorded as a run records it (its fresh-state submit, its own
    // submits, and the readback submit a run makes), under the tracer that swallows every
    // submit (vk/trace.hpp installCapture), after beginPoint; and the "## ..." title of its calls.
    virtual void recordForStream(const run::Length& length, Mode mode) = 0;
    virtual std::string streamTitle(const run::Length& length, Mode mode) const = 0;
    // The line under "--- command stream ...": what each mode's stream starts and ends with.
    virtual std::string streamNote() const = 0;
};

}  // namespace repro
