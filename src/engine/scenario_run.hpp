// `repro --scenario FILE` and `repro --list-scenarios` (docs/scenarios.md): a scenario
// file's steps recorded in the selected modes on the chosen device, each mode's checked
// buffers compared bit for bit with split's and with the CPU model's, one verdict line and
// the built-in's exit statuses (docs/contract.md).
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"

namespace repro {

// Runs `options.scenario`, the Vulkan work in a supervised child (children/supervisor.hpp): the file
// is parsed first, in this process. Returns 0 (every mode equals split and the CPU model), 2
// (one differs), 3 (a submit timed out, the device was lost, or the driver crashed, aborted
// or stalled during the modes: one line naming the call), 4 (with --validation: the layer
// printed messages and nothing above applies), 1 (a bad scenario file: one line
// FILE:LINE:COLUMN, nothing run; an unwritable --json or -o path: before the run, or after
// it unless 2, 3 or 125 says more), 125 (cannot test here; a driver failure in set-up). Writes the JSON document
// (report/scenario_report.hpp) to --json FILE and, with --format json, to stdout or -o FILE;
// with --format markdown, the Markdown report (report/scenario_report.hpp) there instead.
int runScenarioCommand(const Options& options);

// The folders --list-scenarios reads, those that exist, each once, in order:
// <binary>/../share/repro/scenarios, the configured <datadir>/repro/scenarios, and the source
// tree's scenarios/ (when this binary was built from one that still exists).
std::vector<std::string> scenarioFolders();

// Lists each *.toml of scenarioFolders(): name, expected verdict, source, file. Returns 0,
// or 1 with one line on stderr for a file that does not parse.
int listScenarios();

}  // namespace repro
