// The run's report as JSON: the documented, versioned object of docs/report-schema.md and
// docs/report.schema.json (docs/contract.md "Output"), written and read back by one table
// of its fields (report_json.cpp). Vulkan-free: it only reads and fills a RunReport.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

#include "report/command_line.hpp"
#include "report/report.hpp"

namespace repro {

// "schema_version" of renderJson's object. Additive changes (a new field) keep it;
// a removed, renamed or retyped field, or a changed meaning or unit, bumps it.
// Version 2 added modes[].cause and the "killed" classification (additive; bumped so
// consumers that switch on classification see the new value announced). Version 3 is the
// one report of both input forms (docs/report-schema.md, "Migration to version 3"): a file's
// run adds `scenario` and modes[].step_check; verdict.kind and experiment.controls; the
// environment's dotted fact names nested; durations rounded to what was measured; no
// absolute path of the reporter's in command_line.
inline constexpr int kReportSchemaVersion = 3;

// The report as one JSON object, schema "repro-report", version kReportSchemaVersion;
// every field is documented in docs/report-schema.md. Times are seconds (host times to the
// microsecond, GPU times to the device's timestamp period), sizes bytes, counts elements.
// JSON has no NaN or infinity: such floats are the strings "NaN", "inf" and "-inf"; every
// other float is a JSON number. command_line is portableCommandLine(report.commandLine,
// `context`) (command_line.hpp).
nlohmann::json renderJson(const RunReport& report, const CommandLineContext& context = currentCommandLineContext());

// renderJson's object as one line of text (no newline), for the supervision pipe.
std::string renderJsonLine(const RunReport& report, const CommandLineContext& context = currentCommandLineContext());

// renderJson's object as text: 2-space indented, keys sorted, ending in a newline.
// Invalid UTF-8 in report strings is replaced by U+FFFD instead of throwing.
std::string renderJsonText(const RunReport& report, const CommandLineContext& context = currentCommandLineContext());

// The inverse of renderJson, and the one reader of a report's JSON: a report read back
// from its object (the supervised child streams its report to the parent this way,
// src/children/supervisor.cpp). Every field renderJson writes is read, by the same table. Fields
// the object lacks or holds with another type keep the RunReport's defaults; never throws.
// Derived fields (schema, schema_version, environment.job_watchdog and hang_evidence,
// experiment.controls, timings.teardown_instance, warnings, verdict.kind) are not read: the
// renderers derive them again; each mode's cause line and kind are taken from its cause
// object. What the writer rounded or shortened reads back as written, so
// renderJson(parseReport(renderJson(r))) == renderJson(r). Version 1 and 2 objects read too
// (their environment facts are flat objects of dotted names).
RunReport parseReport(const nlohmann::json& object);

}  // namespace repro
