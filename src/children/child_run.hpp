// One child run of --matrix, --triage, --watchdog-probe or --driver-env-sweep: repro itself
// in a process of its own (so a hang or crash in one cannot lose the others), described by
// the parent's typed options and the factors it changes (children/run_factors.hpp), turned
// into argv and environment here and nowhere else, and read back through its JSON report
// (child_outcome.hpp). Vulkan-free.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "children/child_outcome.hpp"
#include "report/command_line.hpp"
#include "cli/options.hpp"
#include "children/run_factors.hpp"

namespace repro {

struct ChildRun {
    Options options;               // the parent's, as its command line filled them (commandLine too)
    RunFactors factors;            // what this child changes
    std::filesystem::path dir;     // its output goes to DIR/TAG.log, its JSON report to DIR/TAG.json
    std::string tag;               // "variant-01", "03-experiment-02"
    double limitSeconds = 600.0;   // killed (SIGKILL) after this long
    std::vector<std::string> env;  // more variables set for it ("NAME=value"), after childEnv's
};

// The flags the factors stand for, in this order: -n, --mode, --barrier, --submit-every,
// --split-mib (splitMibText), --split-ms (splitMsText), --no-host-wait, --memory,
// --dispatch-repeat, --work-scale, --profile, --check-steps, --batch, --mutant. Empty for no factor; the driver setting is
// no flag (childEnv).
std::vector<std::string> factorFlags(const RunFactors& factors);

// The child's argv: the executable (this binary, core/subprocess.hpp selfExecutable, with
// commandLine[0] or "repro" as the fallback); the user's arguments (options.commandLine after the
// program name) without the parent's own flags (kParentOnly in child_run.cpp) and without every
// option a factor sets (the factor wins: the probe's -n 1 replaces the user's -n), each with its
// value in any form argsWithout takes; factorFlags; and "--json DIR/TAG.json" (the child's JSON
// report; its text goes to its log).
std::vector<std::string> childArgv(const ChildRun& run);

// The variables set for the child ("NAME=value"): the driver setting, its value appended
// to this process's own value of the variable after a comma (Mesa's debug lists are
// comma-separated), e.g. "RADV_DEBUG=nocompute,llvm". Empty without one.
std::vector<std::string> childEnv(const RunFactors& factors);

// Runs the child (childArgv, childEnv and run.env) for at most run.limitSeconds, its output in
// DIR/TAG.log after a header naming its environment and argv, then reads DIR/TAG.json
// (readChildReport). Never throws for the child's failures (they are in the outcome).
ChildOutcome runChild(const ChildRun& run);

}  // namespace repro
