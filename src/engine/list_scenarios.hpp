// --list-scenarios: the scenario files shipped with repro (docs/scenarios.md), from the source
// tree's scenarios/ and the installed share/repro/scenarios.
#pragma once

#include <string>
#include <system_error>
#include <vector>

namespace repro {

// The folders --list-scenarios reads, those that exist, each once, in order:
// <binary>/../share/repro/scenarios, the configured <datadir>/repro/scenarios, and the source
// tree's scenarios/ (when this binary was built from one that still exists).
std::vector<std::string> scenarioFolders();

// The *.toml regular files of `folder` (a FIFO so named would block a read for ever), sorted by
// path; `ec` says when the folder could not be read.
std::vector<std::string> scenarioFiles(const std::string& folder, std::error_code& ec);

// Lists each *.toml of scenarioFolders(): name, expected verdict, source, file. Returns 0, or 1
// with one line on stderr for each file that does not parse (the others are still listed).
int listScenarios();

}  // namespace repro
