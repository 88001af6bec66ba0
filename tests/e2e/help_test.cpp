// The real executable's --help, --version and --bash-completion: what a user sees with
// stdout a file (not a terminal: 80 columns), and the completion script run by bash.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "process.hpp"

#ifndef REPRO_EXECUTABLE
#error "REPRO_EXECUTABLE must be defined"
#endif

namespace {

using repro::test::contains;
using repro::test::lines;
using repro::test::ProcessResult;
using repro::test::runProcess;

TEST(HelpOutput, FitsEightyColumnsWhenStdoutIsNotATerminal) {
    const ProcessResult r = runProcess(REPRO_EXECUTABLE, {"--help"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    size_t longest = 0;
    for (const std::string& line : lines(r.out)) {
        EXPECT_LE(line.size(), 80u) << line;
        longest = std::max(longest, line.size());
    }
    EXPECT_GT(longest, 70u);  // wrapped to 80, not to the 60-column minimum
    // CLI11's type names and annotations (SIGINT may stay).
    for (const char* artefact : {R"(\bTEXT\b)", R"(\bINT\b)", R"(\bFLOAT\b)", R"(\{false\})", "Excludes:", "Needs:"}) {
        EXPECT_FALSE(std::regex_search(r.out, std::regex(artefact))) << artefact;
    }
}

// -h is one screen: usage, the most used options, the exit statuses, two examples, the
// bisect one in its safe form; --help stays complete.
TEST(HelpOutput, ShortHelpIsOneScreen) {
    const ProcessResult r = runProcess(REPRO_EXECUTABLE, {"-h"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> shown = lines(r.out);
    EXPECT_LE(shown.size(), 24u) << r.out;
    for (const std::string& line : shown) EXPECT_LE(line.size(), 80u) << line;
    EXPECT_TRUE(r.out.starts_with("Usage: repro")) << r.out;
    for (const char* word : {"--chain", "--mode", "--triage", "--print-stream", "--merge-reports", "125", "130",
                             "scripts/mesa-bisect-step --", "--expect-driver radv"}) {
        EXPECT_TRUE(contains(r.out, word)) << word << "\n" << r.out;
    }
    const ProcessResult full = runProcess(REPRO_EXECUTABLE, {"--help"});
    EXPECT_GT(lines(full.out).size(), 3 * shown.size());
    EXPECT_FALSE(contains(full.out, "git bisect run sh -c")) << "the unsafe bisect form";
    EXPECT_TRUE(contains(full.out, "scripts/mesa-bisect-step --")) << full.out;
}

TEST(HelpOutput, VersionAndUnknownOptions) {
    const ProcessResult version = runProcess(REPRO_EXECUTABLE, {"-V"});
    EXPECT_EQ(version.status, 0);
    EXPECT_TRUE(version.out.starts_with("repro ")) << version.out;
    const ProcessResult both = runProcess(REPRO_EXECUTABLE, {"--version", "--frobnicate"});
    EXPECT_EQ(both.status, 1);
    EXPECT_TRUE(both.out.empty()) << both.out;
    EXPECT_EQ(both.err, "repro: unknown option '--frobnicate' (see --help)\n");
}

// Runs `script` with bash after sourcing the completion script repro prints.
ProcessResult withCompletion(const std::string& script) {
    const auto file = std::filesystem::temp_directory_path() / ("repro-completion-" + std::to_string(::getpid()));
    const ProcessResult generated = runProcess(REPRO_EXECUTABLE, {"--bash-completion"});
    std::ofstream(file) << generated.out;
    ProcessResult r = runProcess("bash", {"-c", "source \"$0\" && " + script, file.string()});
    std::filesystem::remove(file);
    return r;
}

TEST(BashCompletion, ScriptIsValidBash) {
    const ProcessResult generated = runProcess(REPRO_EXECUTABLE, {"--bash-completion"});
    ASSERT_EQ(generated.status, 0) << generated.err;
    const auto file = std::filesystem::temp_directory_path() / ("repro-completion-n-" + std::to_string(::getpid()));
    std::ofstream(file) << generated.out;
    const ProcessResult check = runProcess("bash", {"-n", file.string()});
    std::filesystem::remove(file);
    EXPECT_EQ(check.status, 0) << check.err;
    EXPECT_TRUE(check.err.empty()) << check.err;
}

TEST(BashCompletion, CompletesOptionsChoicesAndFolders) {
    // Each line: the words on the command line, then what _repro offers for the last.
    const ProcessResult r = withCompletion(
        "complete -p repro && "
        "offer() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(( $# - 1 )); _repro; echo \"${COMPREPLY[*]}\"; } && "
        "offer repro --mo && offer repro --mode s && offer repro --format = j && offer repro -n '' && "
        "offer repro --queue c && offer repro --barrier execution && offer repro --dump-dir /de && "
        "offer repro --preset t");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> got = lines(r.out);
    ASSERT_EQ(got.size(), 9u) << r.out;
    EXPECT_EQ(got[0], "complete -F _repro repro");
    EXPECT_EQ(got[1], "--mode");
    EXPECT_EQ(got[2], "split single");
    EXPECT_EQ(got[3], "json");
    EXPECT_EQ(got[4], "");  // -n takes a number: nothing to offer
    EXPECT_EQ(got[5], "compute");
    EXPECT_EQ(got[6], "execution-only");
    EXPECT_EQ(got[7], "/dev");
    EXPECT_EQ(got[8], "tiny");
}

}  // namespace
