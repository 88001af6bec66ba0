// The run's report as Markdown (a block to paste into a Mesa GitLab issue) and as JSON
// (the documented, versioned object of docs/report-schema.md and
// docs/report.schema.json; docs/contract.md "Output"). Vulkan-free: both only read a RunReport.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "core/report.hpp"

namespace repro {

// "schema_version" of renderJson's object. Additive changes (a new field) keep it;
// a removed, renamed or retyped field, or a changed meaning or unit, bumps it.
// Version 2 added modes[].cause and the "killed" classification (additive; bumped so
// consumers that switch on classification see the new value announced).
inline constexpr int kReportSchemaVersion = 2;

// One Markdown block ready to paste into a GitLab issue: a heading (verdict, device,
// driver), the command line in a code block, an environment table (OS, kernel, CPU,
// GPU, driver, Vulkan, kernel driver and job watchdog), the results table (mode |
// classification | nz | sum | max_abs | submits | wall s, plus GPU s when any mode was
// timed), each mode's reason, the verdict lines in a code block, watchdog warnings, and
// the details in collapsed <details> blocks (device facts, extensions, features,
// memory placements, shape and sizes, timings, environment variables, host, kernel
// driver, validation messages, hang evidence, notes). Numbers use the text output's
// Rust formats (rust_format.hpp). Every value is escaped: table cells never hold an
// unescaped '|', and report text never opens HTML tags. Ends with a newline; never throws
// for any report content.
std::string renderMarkdown(const RunReport& report);

// A Markdown table: `header` cells, then one row per entry of `rows` (each as many cells as
// the header). Cells are plain text, escaped for Markdown and HTML; newlines become spaces.
std::string markdownTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
// Plain text escaped for a Markdown paragraph or list item (as in table cells).
std::string markdownText(std::string_view text);

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

// The inverse of renderJson: a report read back from its JSON object (the supervised
// child streams its report to the parent this way, src/supervisor.cpp). Fields the object
// lacks or holds with another type keep their defaults; never throws. Derived fields
// (environment.job_watchdog, hang_evidence, warnings) are not read: the renderers derive
// them again. renderJson(parseReport(renderJson(r))) == renderJson(r).
RunReport parseReport(const nlohmann::json& object);

// Warnings for submits whose GPU time (or, for a mode that hung without timestamps,
// its wall time) reached half of the kernel's job watchdog (jobWatchdogSeconds):
// there a "hang" may be the watchdog ending a long submit, not the bug. One line each,
// without a trailing newline; empty when nothing is near or no watchdog is known.
std::vector<std::string> watchdogWarnings(const RunReport& report);

}  // namespace repro
