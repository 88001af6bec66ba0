// The run's report as Markdown: a block to paste into a Mesa GitLab issue (docs/contract.md
// "Output"). Vulkan-free: it only reads a RunReport.
#pragma once

#include <string>

#include "report/issue_markdown.hpp"
#include "report/report.hpp"

namespace repro {

// One Markdown block ready to paste into a GitLab issue, laid out as RADV's issue template (issue_markdown.hpp)
// with the sections docs/contract.md "Output" names for --format markdown (a scenario run's: docs/scenarios.md
// "Reports"): a heading (verdict, device, driver); System information (GPU and PCI ID, driver, Mesa version,
// distro, kernel, kernel driver and job watchdog, CPU, driver variables); Results (the table: mode |
// classification | nz | sum | max_abs | submits | wall s, plus GPU s when any mode was timed; each mode's
// reason, the verdict lines in a code block, watchdog warnings); then collapsed <details> blocks (device facts,
// extensions, features, memory placements, the chain's shape and sizes or the scenario's facts, timings,
// environment variables, host, kernel driver, validation messages, notes). A positive control's reproduction
// (reportVerdictKind ControlCaught) is headed "CONTROL CAUGHT". No absolute path of the reporter's machine:
// `context`'s home is `~`, paths under its current directory are relative to it, other private paths are file
// names (issue_markdown.hpp). Numbers use the text output's Rust formats (rust_format.hpp). Every value is
// escaped: table cells never hold an unescaped '|', and report text never opens HTML tags. Ends with a newline;
// never throws for any report content.
std::string renderMarkdown(const RunReport& report, const IssueContext& context = currentIssueContext());

}  // namespace repro
