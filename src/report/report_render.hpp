// The run's report as Markdown (a block to paste into a Mesa GitLab issue) and as JSON
// (the documented, versioned object of docs/report-schema.md and docs/report.schema.json;
// docs/contract.md "Output"). One include for all of it:
// - report_json.hpp: renderJson, renderJsonLine, renderJsonText, parseReport, kReportSchemaVersion;
// - report_markdown.hpp: renderMarkdown;
// - markdown.hpp: markdownTable, markdownText and the Markdown pieces;
// - report_facts.hpp: watchdogWarnings and the other facts both documents derive.
#pragma once

#include "report/markdown.hpp"
#include "report/report_facts.hpp"
#include "report/report_json.hpp"
#include "report/report_markdown.hpp"
