// Facts the report's documents derive from a RunReport rather than store: the job
// watchdog of the device's kernel driver, where a hang leaves evidence, the warnings for
// submits near the watchdog, the positive controls in force and the verdict's kind. Both the JSON (report_json.hpp) and the Markdown
// (report_markdown.hpp) show them; parseReport does not read them back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "forensics/environment.hpp"
#include "report/report.hpp"

namespace repro {

// Whether the mode has any GPU time from timestamp queries (--timestamps).
bool hasGpuTimes(const ModeReport& mode);

// The job watchdog of the report's device's kernel driver (jobWatchdogSeconds in
// forensics/environment.hpp); nullopt when no driver with one is known.
std::optional<JobWatchdog> reportJobWatchdog(const RunReport& report);

// The driver whose hang evidence the report lists (hangEvidenceNotes): the device's
// driverName, else the kernel driver of its DRM card, else of the first card with one;
// "" when none is known.
std::string hangEvidenceDriver(const RunReport& report);

// Warnings for submits whose GPU time (or, for a mode that hung without timestamps,
// its wall time) reached half of the kernel's job watchdog (reportJobWatchdog):
// there a "hang" may be the watchdog ending a long submit, not the bug. One line each,
// without a trailing newline; empty when nothing is near or no watchdog is known.
std::vector<std::string> watchdogWarnings(const RunReport& report);

// What makes the run a positive control, one phrase each, in this order: a --barrier that
// leaves a dependency out (experiment.control: "--barrier none: ..."), --drop-dispatch K
// ("--drop-dispatch 3: dispatch 3 left out of multipass and single"), the steps a scenario
// file labels a control (scenario->controlSteps: "the scenario file labels a wait a
// control ..."). Empty when the run is no control.
std::vector<std::string> reportControls(const RunReport& report);

// verdictKind(report.verdict.exitStatus, whether reportControls is not empty and no verdict line
// still says BUG REPRODUCED: a wrong split, a mode the job timeout cut short under a control, a
// mode the control does not reach, or a --sweep's verdict that says it).
VerdictKind reportVerdictKind(const RunReport& report);

}  // namespace repro
