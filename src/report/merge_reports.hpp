// --merge-reports FILE...: the JSON reports of many machines (run reports of the built-in
// chain and of scenario files alike, and triage documents; docs/report-schema.md) as one
// table, grouped by outcome so that the GPUs and drivers that reproduce the bug are seen at
// once (docs/options.md, "--merge-reports"). Vulkan-free: it only reads JSON files, and
// only regular ones.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"

namespace repro {

// "schema_version" of the merged table's JSON document (schema "repro-merged-reports",
// docs/report-schema.md "The merged table"). Bumped on a breaking change only.
inline constexpr int kMergedReportsSchemaVersion = 1;

// The newest "repro-triage" schema_version this repro reads (children/triage.hpp triageDocument).
inline constexpr int kNewestTriageSchemaRead = 1;

// One mode of one report: its classification ("ok", "zero", "killed", ... as
// reference/stats.hpp names them) and its cause's kind ("job_timeout", ...; empty when none).
struct MergedMode {
    std::string mode;  // "split", "multipass", "single"
    std::string classification;
    std::string causeKind;
};

// One report file as a row of the table. Empty strings are facts the document does not
// hold (a triage document names no kernel; a run that found no device names no driver).
struct MergedRow {
    std::string file;      // the path as given
    std::string document;  // "repro-report" or "repro-triage"
    int schemaVersion = 0;
    int exitStatus = 0;  // verdict.exit_status of a run, exit_status of a triage
    // A run's verdict.kind ("control_caught", ...; schema_version 3 on); empty otherwise.
    std::string verdictKind;
    // outcomeName(exitStatus), or "control caught" for a positive control's reproduction
    // (verdictKind "control_caught"): "reproduced", "hang", "not reproduced", ...
    std::string outcome;
    // What ran, so that rows are compared like with like: the built-in chain's preset (or its
    // shape, "chain 1 x 8 x 64 x 64"), N and the flags that change blade's stream ("chain
    // tiny N=2 --barrier sync2"), or a scenario file's name@hash and N; a triage document's
    // "triage chain N=7".
    std::string whatRan;
    // A positive control (--drop-dispatch, --barrier none or execution-only, a file's
    // control step): the report's experiment.control.
    bool control = false;
    std::string device;         // deviceName
    std::string deviceIds;      // "1002:73bf": vendorID:deviceID in hex; empty for a triage document
    std::string driver;         // "llvmpipe Mesa 22.3.6 (LLVM 15.0.6)": driverName and driverInfo
    std::string driverVersion;  // driverVersion decoded ("22.3.6"); empty for a triage document
    std::string driverId;       // "DRIVER_ID_MESA_LLVMPIPE" (a triage document's is without DRIVER_ID_)
    std::string kernel;         // uname's release ("6.1.0-18-amd64"); empty for a triage document
    // The queue's job timeout: seconds when there is a limit, and the table's words for it
    // ("2 s", "none known", "unknown").
    std::optional<double> jobTimeoutSeconds;
    std::string jobTimeout;
    uint32_t chainLength = 0;
    std::vector<MergedMode> modes;       // in the order they ran
    std::string conclusionKind;          // triage: conclusion.kind ("job_timeout"); empty for a run
    std::string conclusionLine;          // triage: conclusion.line
    std::string reproVersion, reproGit;  // the repro that wrote the document
    // A scenario run's file: its scenario name and the first 8 hex digits of the file's
    // SHA-256 ("kompute-196-increment-chain@52b49c9f"); empty for the built-in chain.
    std::string scenario;
};

// A file that could not be merged, and why in one phrase ("not JSON (...)").
struct MergeProblem {
    std::string file;
    std::string problem;
};

// A file given again (the same file: the same device and inode, whatever the path), merged
// once, under the path given first.
struct MergeDuplicate {
    std::string file;
    std::string sameAs;
};

// Every file's row, sorted and grouped (sortMergedRows), the files that were not merged and
// the files given again, each in the order given.
struct MergedReports {
    std::vector<MergedRow> rows;
    std::vector<MergeProblem> problems;
    std::vector<MergeDuplicate> duplicates;
};

// What an exit status says, for the table's outcome column: 2 "reproduced", 3 "hang",
// 0 "not reproduced", 4 "validation", 125 "cannot test", 1 "usage error", 130/143
// "interrupted", anything else "exit N".
std::string outcomeName(int exitStatus);

// The row of one parsed document: a "repro-report" of schema_version 1 to
// kReportSchemaVersion (read with parseReport; a scenario run's names its file), or a
// "repro-triage" of schema_version 1 to kNewestTriageSchemaRead, that holds every field the
// table reads with the type docs/report.schema.json gives it. nullopt, with `problem` set to
// one phrase, for anything else: JSON that is not an object or has no known "schema" ("not a
// repro report (...)"), a newer schema_version ("... newer than this repro reads"), a
// scenario document of the old schema ("not merged: a repro-scenario-report (an old scenario
// document; rerun with this version)"), or a field missing or of another type ("not merged:
// an invalid repro-report (verdict.exit_status: missing)"). Never throws.
std::optional<MergedRow> mergedRow(const nlohmann::json& document, const std::string& file, std::string& problem);

// The JSON value of `text`, or nullopt with `problem` set: "not JSON (a syntax error at byte
// N)", "not JSON (a number out of range at byte N)" (beyond a double's range, 1e400), "not
// JSON for a report (nested deeper than 512 levels)". Never throws, whatever the bytes.
std::optional<nlohmann::json> parseMergedJson(const std::string& text, std::string& problem);

// Reads and parses each file and makes its row. A file that is not a regular file (a FIFO
// or a device is never opened for blocking reads), is larger than 64 MiB, cannot be read,
// is not JSON or is not a report this repro reads becomes a problem; a file given again is a
// duplicate, merged once. Never throws, never blocks on a file.
MergedReports mergeReportFiles(const std::vector<std::string>& files);

// Sorts the rows by group (reproduced, hang, not reproduced, validation, cannot test,
// control caught, the rest), then device, driver, driver version, kernel and file.
void sortMergedRows(std::vector<MergedRow>& rows);

// The table as text (aligned columns, every line at most kMergedTextColumns: the widest
// cells are cut with "..." when the table would be wider), Markdown (markdownTable), CSV
// (RFC 4180: a header record, one record per row, CRLF line ends, a field quoted when it
// holds a comma, a quote, CR or LF) or the "repro-merged-reports" JSON document (2-space
// indented, keys sorted), each ending in a newline. Text and Markdown end with one line per
// outcome naming its devices and drivers ("reproduced (2 reports): ...").
inline constexpr size_t kMergedTextColumns = 160;
std::string renderMerged(const MergedReports& merged, Format format);

// --merge-reports: reads `files`, prints one line on stderr per file that was not merged
// ("repro: --merge-reports: 'FILE': not JSON (...)") and per file given again ("repro:
// --merge-reports: 'FILE': the same file as 'FIRST', merged once"), and the table on stdout
// in `format`. Returns 0 when every file merged (a file given again included), 1 (kExitUsage)
// when some file did not or a write failed; the table of the others is printed either way.
int runMergeReports(const std::vector<std::string>& files, Format format);

}  // namespace repro
