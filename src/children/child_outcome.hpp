// How one child run of --matrix, --triage, --watchdog-probe or --driver-env-sweep went:
// its exit and its JSON report (docs/report-schema.md), read once, by parseReport
// (report/report_render.hpp), into a RunReport; everything the parents ask of a child is
// read from that RunReport. Vulkan-free.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "forensics/environment.hpp"
#include "report/report.hpp"
#include "core/subprocess.hpp"
#include "children/triage.hpp"

namespace repro {

// One child's exit and report, with the facts the tables show read from the report.
struct ChildOutcome {
    ChildResult process;
    int status = -1;                  // the child's exit status, -1 if it did not exit
    std::optional<RunReport> report;  // its JSON report, when one was read (an object)
    std::string log;                  // path of the child's output
    // Read from `report` by readChildReport (empty or zero without one):
    std::vector<std::string> classifications;  // "multipass zero", per mode under test
    bool anyWrong = false;                     // a mode under test was wrong or hung
    std::string wrongMode;                     // the first wrong mode under test ("multipass")
    std::string reason;                        // of the first wrong mode, or the verdict's first line
    uint64_t validationMessages = 0;           // errors and warnings
    uint64_t hazards = 0;                      // messages naming a SYNC-HAZARD
    std::optional<double> gpuSeconds;          // modes under test, --timestamps
    std::string memory;                        // small[0] and big[0] memory types
    std::string verdictLine;                   // the report's first verdict line, without "--- "
};

// Reads the JSON report at `path` into out.report (parseReport) and the facts above from
// it; leaves `out` without a report when the file is missing, not JSON or not an object.
// Never throws.
void readChildReport(const std::filesystem::path& path, ChildOutcome& out);

// The first entry of the report's modes for the mode named `mode` ("single"), or nullptr
// (no report, no such entry).
const ModeReport* modeEntry(const ChildOutcome& c, std::string_view mode);

// The queue's job watchdog the child's report names (environment.job_watchdog: derived
// from its environment and device by jobWatchdogSeconds, forensics/environment.hpp, with
// where its timeout comes from); nullopt when none is known there (lavapipe, nvidia,
// nouveau, no DRM card) or there is no report.
std::optional<JobWatchdog> reportedJobWatchdog(const ChildOutcome& c);
// Its timeout, seconds; nullopt also when it is disabled.
std::optional<double> reportedJobTimeout(const ChildOutcome& c);

// What a mode's cause object (ModeResult::causeJson, report schema 2 modes[].cause) says
// beyond its kind and verdict, which parseReport reads as text only.
struct CauseFacts {
    std::vector<std::string> missing;             // cause.missing
    std::optional<double> decisiveSubmitSeconds;  // cause.decisive_submit.measured_seconds
    std::optional<bool> decisiveSubmitRanInFull;  // cause.decisive_submit.ran_in_full
    std::optional<double> timeoutSeconds;         // cause.timeout.ms / 1000 when its kind is "limit"
};
CauseFacts causeFacts(const ModeResult& mode);

// --check-steps: the state of a mode's per-dispatch CPU check (ModeResult::perDispatchCheckJson,
// modes[].per_dispatch_check.state: "passed", "failed", ...); "" when it did not run.
std::string perDispatchCheckState(const ModeResult& mode);
// --check-steps on a file: its split steps against the CPU model (ModeResult::stepCheckJson):
// "failed" when a step differed, "passed" when every checked step matched and one was, "" when
// it did not run or checked nothing.
std::string fileStepCheckState(const ModeResult& mode);

// The result cell: what the modes under test were ("zero"; with `withModes` "multipass
// zero, single ok"), or why there is nothing ("crashed (signal 11)", "cannot test").
std::string resultText(const ChildOutcome& c, bool withModes = false);

// A child's result: Wrong (exit 2 with a wrong mode), Correct (0, or 4 with every mode
// right), Hang (3, or killed at its time limit), else NotRun (a child dead of a signal
// crashed: no result).
RunResult childRunResult(const ChildOutcome& child);

// resultText with the modes, and " (exit S)" when the child exited and the text does not
// name its exit already ("no report (exit 2)").
std::string outcomeText(const ChildOutcome& c);

// The child's last non-empty line of output (its log after the header: its one-line
// usage error, or why it cannot test), without a trailing newline; "" when the log is
// missing, unreadable or holds no output. Never throws.
std::string lastOutputLine(const ChildOutcome& c);

// The baseline's result, its first wrong mode and that mode's cause (report schema 2)
// into `in` (baseline, baselineDetail, failingMode, causeKind, causeVerdict, causeMissing,
// baselineSubmitSeconds, baselineRanInFull).
void readTriageBaseline(const ChildOutcome& baseline, TriageInput& in);

}  // namespace repro
