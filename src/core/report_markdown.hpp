// The run's report as Markdown: a block to paste into a Mesa GitLab issue (docs/contract.md
// "Output"). Vulkan-free: it only reads a RunReport.
#pragma once

#include <string>

#include "core/report.hpp"

namespace repro {

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

}  // namespace repro
