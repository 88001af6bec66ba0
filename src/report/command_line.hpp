// A run's command line as its documents show it: in the JSON report without the reporter's
// absolute paths (portableCommandLine), and for a scenario run the command that reruns the
// file on another machine (scenarioRerunArguments, the Markdown report's steps to
// reproduce). Vulkan-free; pure functions of the words and the folders they are given.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/option_table.hpp"

namespace repro {

// Where a command line was given: the user's home directory and the current directory
// (absolute paths; "" when unknown).
struct CommandLineContext {
    std::string home;
    std::string cwd;
};

// This process's $HOME and current directory.
CommandLineContext currentCommandLineContext();

// argv as the JSON report's command_line holds it (docs/report-schema.md "command_line"):
// argv[0] by its base name ("repro"); each absolute path among the other words (a word that
// starts with '/', the VALUE of "--name=VALUE", or of a short option's "-xVALUE") shortened:
// under the current directory relative to it ("out/r.json"; "." for the directory itself),
// else under the home directory as "~/..." ("~" for home itself); any other word as given.
// A folder of "" or "/" shortens nothing. Applying it twice gives the same words.
std::vector<std::string> portableCommandLine(const std::vector<std::string>& argv, const CommandLineContext& context);

// argv without the options that only say where the output went (--format, -o/--output,
// --json, --trace, --dump-dir, --keep-logs, --capture-gfxr, --capture-rgp; each with its
// value, given apart or inline), for the Markdown report's command: everything that shapes
// the run stays, in order and as given. Words after "--" are kept.
std::vector<std::string> rerunArguments(const std::vector<std::string>& commandLine);

// The arguments of `commandLine` after argv[0] without each option `drop` is true for, and
// its value, in any of the forms the command line takes ("--output F", "--output=F", "-oF"); the
// words after "--" as they are.
std::vector<std::string> argsWithout(const std::vector<std::string>& commandLine,
                                     const std::function<bool(const OptionSpec&)>& drop);

// The option of the table that the command-line word `word` names, and whether its value is
// in the word ("--x=v", "-xv"); nullptr when the word is no option (a cluster of short flags,
// "-qv", is kept as one word and is none).
const OptionSpec* optionOf(const std::string& word, bool& inlineValue);

// The name a reader saves a scenario file under: the base name of `file` (the path as
// given), or `name` + ".toml" ("scenario.toml" without a name) when it has none.
std::string scenarioFileName(const std::string& file, const std::string& name);

// The words that rerun a scenario run elsewhere: "repro", "--scenario", the file's base
// name (of `file`, the path as given; `name` + ".toml" when it is empty), then every option
// of `commandLine` (argv, argv[0] first) that shapes what runs and how it is judged, as
// given (a value with its option, "--opt=value" as written). Left out: --scenario itself,
// what rerunArguments leaves out, the device and queue choice (--device, --queue), a bisect
// step's --invert and --expect-driver, and what only changes what is printed (-q/--quiet,
// -v/--verbose, --timings, --print-stream). Words that are no option are kept.
std::vector<std::string> scenarioRerunArguments(const std::vector<std::string>& commandLine, const std::string& file,
                                                const std::string& name);

}  // namespace repro
