// The run's report as JSON: the documented, versioned object of docs/report-schema.md and
// docs/report.schema.json (docs/contract.md "Output"), written and read back by one table
// of its fields (report_json.cpp). Vulkan-free: it only reads and fills a RunReport.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

#include "report/report.hpp"

namespace repro {

// "schema_version" of renderJson's object. Additive changes (a new field) keep it;
// a removed, renamed or retyped field, or a changed meaning or unit, bumps it.
// Version 2 added modes[].cause and the "killed" classification (additive; bumped so
// consumers that switch on classification see the new value announced).
inline constexpr int kReportSchemaVersion = 2;

// The report as one JSON object, schema "repro-report", version kReportSchemaVersion;
// every field is documented in docs/report-schema.md. Times are seconds, sizes bytes,
// counts elements. JSON has no NaN or infinity: such floats are the strings "NaN",
// "inf" and "-inf"; every other float is a JSON number.
nlohmann::json renderJson(const RunReport& report);

// renderJson's object as one line of text (no newline), for the supervision pipe.
std::string renderJsonLine(const RunReport& report);

// renderJson's object as text: 2-space indented, keys sorted, ending in a newline.
// Invalid UTF-8 in report strings is replaced by U+FFFD instead of throwing.
std::string renderJsonText(const RunReport& report);

// The inverse of renderJson, and the one reader of a report's JSON: a report read back
// from its object (the supervised child streams its report to the parent this way,
// src/children/supervisor.cpp). Every field renderJson writes is read, by the same table. Fields
// the object lacks or holds with another type keep the RunReport's defaults; never throws.
// Derived fields (schema, schema_version, environment.job_watchdog and hang_evidence,
// timings.teardown_instance, warnings) are not read: the renderers derive them again;
// each mode's cause line and kind are taken from its cause object.
// renderJson(parseReport(renderJson(r))) == renderJson(r).
RunReport parseReport(const nlohmann::json& object);

}  // namespace repro
