// The run's report as Markdown: a block to paste into a Mesa GitLab issue (docs/contract.md
// "Output"). Vulkan-free: it only reads a RunReport.
#pragma once

#include <string>

#include "report/issue_markdown.hpp"
#include "report/report.hpp"

namespace repro {

// One Markdown block ready to paste into a GitLab issue, following RADV's issue template
// (issue_markdown.hpp): a heading (verdict, device, driver); Description (one paragraph:
// what ran, what went wrong, the cause line); System information (GPU and PCI ID, driver,
// Mesa version, distro, kernel, kernel driver and job watchdog, CPU, driver variables);
// Steps to reproduce (where the source is, the build, the command with `repro`); Results:
// the results table (mode |
// classification | nz | sum | max_abs | submits | wall s, plus GPU s when any mode was
// timed), each mode's reason, the verdict lines in a code block, watchdog warnings; "Does
// RADV_DEBUG=llvm fix it?" (how to find out), Regression, Log files (the kernel log lines
// the run read, or how to get them; a hang's evidence once); and the details in collapsed
// <details> blocks (device facts, extensions, features,
// memory placements, shape and sizes, timings, environment variables, host, kernel
// driver, validation messages, notes). A scenario run's report (report.scenario) says so in
// its heading, lists the file's name, pattern, source and expected verdict under the
// description, gives the file itself (collapsed, with its size and SHA-256) and the command
// that reruns it (scenarioRerunArguments, command_line.hpp) in Steps to reproduce, and its
// facts in place of the chain's shape and sizes. A positive control's reproduction
// (reportVerdictKind ControlCaught) is headed "CONTROL CAUGHT". No absolute path of the
// reporter's machine: `context`'s home is `~`, paths under its current directory are
// relative to it, other private paths are file names (issue_markdown.hpp). Numbers use the text output's
// Rust formats (rust_format.hpp). Every value is escaped: table cells never hold an
// unescaped '|', and report text never opens HTML tags. Ends with a newline; never throws
// for any report content.
std::string renderMarkdown(const RunReport& report, const IssueContext& context = currentIssueContext());

}  // namespace repro
