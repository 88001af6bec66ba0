// The parts of a Markdown document that follow RADV's issue template (Mesa's GitLab issue
// template for RADV bugs: Description, System information, Steps to reproduce, "Does
// RADV_DEBUG=llvm fix it?", Regression, Log files), shared by the run report
// (report_markdown.hpp) and the --triage, --watchdog-probe, --matrix and
// --driver-env-sweep documents. A reader on another machine reruns from it: the steps say
// where repro's source is, how to build it and the command with `repro` for the binary,
// and no absolute path of the reporter's machine is shown (its home directory is `~`, any
// other path outside the system's own folders only by its file name), except the
// --dump-dir the user gave. Vulkan-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/report.hpp"

namespace repro {

// Where a document is written: repro's source URL (the environment's REPRO_SOURCE_URL when
// set, else the build's, cmake/Version.cmake; "" when neither has one), the reporter's home
// directory ($HOME; "" or "/" shows nothing as `~`) and current directory (where the run
// was started; "" or "/": none).
struct IssueContext {
    std::string sourceUrl;
    std::string home;
    std::string cwd;
};

// The source URL ($REPRO_SOURCE_URL, else this build's), this process's $HOME and its
// current directory.
IssueContext currentIssueContext();

// A file the reader saves before running the command (a scenario file), shown whole in
// Steps to reproduce, collapsed.
struct IssueFile {
    std::string what;      // "the scenario file"
    std::string saveAs;    // the name to save it as, a base name ("kompute-196.toml")
    uint64_t bytes = 0;    // its size
    std::string sha256;    // of its bytes, 64 hex digits
    std::string text;      // its bytes
    std::string language;  // the code block's info string ("toml")
};

// What a document fills the template with. Plain text throughout: the renderer escapes it.
struct IssueFacts {
    std::string title;        // the heading after "### " ("repro: BUG REPRODUCED (exit 2) on ...")
    std::string description;  // one paragraph: what ran, what went wrong, the cause line
    // Facts listed under the description, "- label: value" each (a scenario's name, pattern,
    // source, expected verdict); empty for none.
    std::vector<std::pair<std::string, std::string>> descriptionFacts;
    // "System information": (label, value) in order: GPU, driver, Mesa version, distro, kernel...
    std::vector<std::pair<std::string, std::string>> system;
    std::string version, gitHash;          // repro's version and commit
    std::vector<std::string> commandLine;  // argv as given (argv[0] becomes `repro`)
    // The command the reader runs when it is not commandLine's (argv, argv[0] first: a
    // scenario run's rerun command); empty: rerunArguments(commandLine), command_line.hpp.
    std::vector<std::string> runArguments;
    std::optional<IssueFile> file;                                 // saved before the command runs; nullopt: none
    std::vector<std::pair<std::string, std::string>> environment;  // driver variables set (NAME, value)
    // The RADV_DEBUG=llvm answer from a triage experiment ("yes: ...", "no: ...", "not
    // tested: ..."); nullopt: how to find it out is said instead.
    std::optional<std::string> llvmAnswer;
    // Log files: the GPU driver's kernel log lines repro read during the run; when it
    // could not read the log, `kernelLogProblem` says why and the commands to get them are
    // given. `hangNote`: where a hang leaves evidence, said once ("" when nothing hung).
    std::vector<std::string> kernelLog;
    bool kernelLogRead = false;
    std::string kernelLogProblem;  // why no lines are shown, a clause ("repro could not read ...")
    std::vector<std::string> hangNotes;
    std::vector<std::string> captures;  // --capture-gfxr, --capture-rgp: one line each, under Log files
};

// The host's rows of System information: Distro, Kernel, CPU (each "not captured" when the
// host facts lack it) and the driver variables set (paths through portablePathList).
std::vector<std::pair<std::string, std::string>> hostSystemInformation(const EnvironmentReport& environment,
                                                                       std::string_view home);

// The Mesa version in a driverInfo or driver text ("Mesa 24.0.5 (git-1a2b3c)"), or what it is
// instead ("not a Mesa driver (...)").
std::string mesaVersion(std::string_view driverInfo);

// "### TITLE", then Description (the paragraph, then descriptionFacts as a list), System
// information and Steps to reproduce (get the source and check out the commit, unless the
// build was "-dirty"; build it, save `file` when there is one, run runArguments or else
// commandLine without its output options), each a "#### " heading. Ends with a blank line.
std::string issueHead(const IssueFacts& facts, const IssueContext& context);

// "#### Does RADV_DEBUG=llvm fix it?", "#### Regression" and "#### Log files". Ends with a
// blank line.
std::string issueTail(const IssueFacts& facts, const IssueContext& context);

// `path` as a reader may see it: under `home` as "~/..." ("~" for home itself); an absolute
// path in the system's own folders (/usr, /etc, /lib*, /opt, /sys, /proc, /dev, /run, /var)
// as it is; any other absolute path by its file name; a relative path as it is.
std::string portablePath(std::string_view path, std::string_view home);

// A path list value (VK_ICD_FILENAMES=a.json:b.json, VK_LAYER_PATH): each absolute element
// through portablePath, the rest unchanged.
std::string portablePathList(std::string_view value, std::string_view home);

// `text` with every occurrence of `home` followed by '/' (or ending the text, or followed
// by a character that cannot be in a path word) turned into "~": the last guard that no
// home directory is left in a document. Unchanged when `home` is "" or "/".
std::string withoutHome(std::string text, std::string_view home);

// `text` with every path in `folder` made relative to it: "FOLDER/x" becomes "x" and FOLDER
// alone "." (where it ends a path word, as withoutHome reads it). Unchanged when `folder`
// is "", "/" or relative.
std::string withoutFolder(std::string text, std::string_view folder);

// The command a reader types: the driver variables (NAME=value, shell-quoted; not
// REPRO_SOURCE_URL, which only names the source in the steps), then
// `repro` and argv[1..], each option's path value through portablePath (the --dump-dir
// value only with its home made "~": the user asked for that folder), shell-quoted.
std::string readerCommand(const std::vector<std::string>& commandLine,
                          const std::vector<std::pair<std::string, std::string>>& environment, std::string_view home);

}  // namespace repro
