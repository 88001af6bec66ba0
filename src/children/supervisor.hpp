// Supervised runs: the Vulkan work runs in a child process forked before any Vulkan call,
// and this parent guarantees the contract whatever the driver does (docs/contract.md,
// "Verdict and exit status"): a driver crash, abort or stall in the child becomes one line
// naming the call and the stage, and status 125 before the first submit of the modes
// under test (this revision cannot be tested) or 3 during or after them (the chain hung or
// crashed the driver); the results the child streamed before it died are kept in every
// format. repro itself never ends by a signal: SIGINT/SIGTERM/SIGHUP are passed on to the
// child, which drains and reports; a second one, or a drain that takes too long, kills it. A
// SIGABRT another process sends to repro (`timeout -s ABRT`) is passed on to the child too,
// whose end is then "CRASHED ... no verdict on the driver" (125), never the driver's abort.
// The child stays in repro's process group, so job control acts on both (a terminal's
// Ctrl-Z, `stty tostop`, fg/bg), and a SIGTSTP sent to the parent alone stops the child
// with it; the time stopped does not count against the call deadlines.
#pragma once

#include <functional>

#include "cli/options.hpp"
#include "report/report.hpp"

namespace repro {

// Runs `work` in a forked child (its exit status is the child's) and supervises it. When
// the child ends by itself, its status is returned: it has printed and written everything.
// When it crashed, stalled or had to be killed after an interrupt, the parent prints the
// verdict line, rebuilds the report from what the child sent, and calls `writeReports`
// (the Markdown or JSON document and --output) with it and the status it decided; the
// result of that is returned.
int superviseRun(const Options& options, const std::function<int()>& work,
                 const std::function<int(RunReport&, int)>& writeReports);

}  // namespace repro
