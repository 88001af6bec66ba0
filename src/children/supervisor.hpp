// Supervised runs: the Vulkan work runs in a child process forked before any Vulkan call, and this
// parent turns whatever the driver does to it (a crash, an abort, a stall) into one line naming the
// call and the stage and a status: 125 before the first submit of the modes under test, 3 during or
// after them (docs/contract.md "Verdict and exit status", with the signals passed on, a SIGABRT from
// another process, job control and the time stopped); the results the child streamed before it died
// are kept in every format. SIGINT/SIGTERM/SIGHUP are passed on to the child, which drains and
// reports; a second one, or a drain that takes too long, kills it.
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
