// One run of a plan (scenario/plan.hpp) in the supervised child, whichever form it came in:
// the loader and the instance, the device, the set-up (the built-in chain's Rig, or a file's
// device with its queues), the header, every point's modes, the verdict, the teardown and the
// report (docs/contract.md). Results are printed and streamed to the parent as each mode ends,
// so a hang or a crash later cannot lose them.
#pragma once

#include "cli/options.hpp"
#include "scenario/plan.hpp"
#include "report/report.hpp"

namespace repro {

// What the report holds before anything runs: repro's version and commit, the command line,
// the built-in chain's preset, shape and length, or the file's scenario section.
RunReport startReport(const Options& options, const Plan& plan);

// Runs `plan` and writes its documents: the text as it runs, then the Markdown or JSON
// document and --json. Returns the exit status; every set-up failure is its status and one
// line (a usage error 1, cannot test 125, a hang 3, an interrupt 128 + the signal). The
// plan's chain-input and chain-weight words are made here, on a thread, while the driver
// creates the device.
int runPlan(const Options& options, Plan& plan);

// The Markdown or JSON document on stdout (or in the -o file) and the --json file, after the
// run; a failed write of the report is exit 1 unless a hang or a reproduction says more.
int writeReports(const Options& options, RunReport& report, int status);

}  // namespace repro
