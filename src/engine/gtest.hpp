// The GoogleTest protocol: repro as a GoogleTest binary, so that the harnesses that drive
// such binaries run the scenario files and the built-in chain: deqp-runner's gtest-runner in
// Mesa CI (shards, expectation files, flake retries, JUnit) and CMake's gtest_discover_tests
// (docs/ci.md). One suite per scenario file and one for the built-in chain, one test per
// mode; each test is a child repro of its own (children/child_run.hpp), so a hang or crash
// ends that test only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options.hpp"

namespace repro {

// One test: a scenario file (or the built-in chain) in one mode.
struct GtestCase {
    std::string suite;                // "renderdoc_3899_fill_then_copy", "builtin_chain"
    Mode mode = Mode::Split;          // the test's name is the mode's ("split")
    std::optional<std::string> file;  // the scenario file; nullopt for the built-in chain
    bool expectReproduced = false;    // the file's `expected = "reproduced"`: exit 2 passes
};

// "Suite.test".
std::string gtestName(const GtestCase& c);

// A scenario file's suite name: its stem with every character but an ASCII letter or digit
// made '_' ("blade-356-conv-t" -> "blade_356_conv_t"), as GoogleTest names are identifiers.
std::string gtestSuiteName(std::string_view stem);

// The tests, in list order: each *.toml of `dir` (without one, of the first shipped folder:
// engine/list_scenarios.hpp scenarioFolders) by file name, then "builtin_chain"; each in
// split, multipass and single. Throws UsageError for a folder that cannot be read, a file
// that does not parse (its line names it), or two files of one suite name.
std::vector<GtestCase> gtestCases(const std::optional<std::string>& dir);

// Whether `name` ("Suite.test") passes GoogleTest's filter: ':'-separated patterns, then
// optionally '-' and the ':'-separated patterns that exclude; '*' matches any string, '?'
// any one character; no positive pattern ("-x.*") means "*".
bool gtestFilterMatches(std::string_view filter, std::string_view name);

// --gtest_list_tests: the tests --gtest_filter keeps, in GoogleTest's list format ("Suite."
// lines, then two-space-indented test names; no blank line, which deqp-runner refuses).
// Returns 0, or 1 with one line on stderr (gtestCases' errors).
int listGtests(const Options& options);

// --gtest_filter / --gtest_output: runs each kept test, one after another, as a child repro
// with --mode and (a file) --scenario; the user's other options go to each child, those its
// form refuses left out (option_table.hpp notForFile, notForChain). Prints GoogleTest's lines,
// judges each child's exit and writes the JUnit XML as docs/ci.md "One test" says (between RUN and
// the result only unbracketed lines: docs/ci.md "deqp-runner"). Returns 0 when none failed, 1 when
// one failed or the XML cannot be written, 128 + the signal when interrupted.
int runGtests(const Options& options);

}  // namespace repro
