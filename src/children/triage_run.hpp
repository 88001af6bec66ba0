// --triage and --watchdog-probe: runs of repro itself in child processes (as --matrix
// runs them) that test each hypothesis about the cause of a failing run, and a positive
// control for the kernel's job watchdog. The reasoning is children/triage.hpp's.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"
#include "scenario/plan.hpp"
#include "children/triage.hpp"

namespace repro {

// Runs the user's command as the baseline (every mode), then, when it reproduces, one
// child per experiment of children/triage.hpp on the failing mode (and the watchdog probe when
// the queue has a known job timeout), printing a table hypothesis -> experiment -> outcome
// -> points to and one conclusion line; --format markdown adds a block on stdout,
// --format json / --output a "repro-triage" document (docs/report-schema.md). Exit status:
// 2 when the baseline reproduced, 0 when not, 3 when it hung, 125 when it could not run,
// 130/143 when interrupted, 1 for an unwritable --output.
int runTriage(const Options& options, const Plan& plan);

// One step (-n 1) as single with its conv-T recorded R times (--dispatch-repeat R), R
// doubling from 1 until the submit passes 1.5 times the queue's job timeout (2 s when no
// timeout is known), at most 4096 conv-Ts (past R = 64, --dispatch-repeat's limit, the
// steps double instead, 64 conv-Ts each); says what a kill looks like here:
// zeros with no error (soft), device loss (hard), or no kill. Exit status: 0 when the
// ladder ran (whatever it found), 125 when no rung could run, 130/143 when interrupted.
int runWatchdogProbe(const Options& options, const Plan& plan);

}  // namespace repro
