// What a new user sees first, end to end: the README's sample output is what repro prints
// today, the default header is short, -v and -q add and remove what they say, and
// --version names the loader, the compiler and glibc, or "no loader" without failing.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"

#if !defined(REPRO_README) || !defined(REPRO_FAKE_LOADER_DIR)
#error "REPRO_README and REPRO_FAKE_LOADER_DIR must be defined"
#endif

namespace repro::test {
namespace {

// Text with what differs from one machine, build or moment to the next replaced: the git
// commit, version numbers (Mesa, LLVM, Vulkan, the loader) and times in seconds.
std::string normalised(std::string text) {
    text = std::regex_replace(text, std::regex(R"(\(git [^)]*\))"), "(git #)");
    text = std::regex_replace(text, std::regex(R"(\b\d+\.\d+\.\d+(\.\d+)?\b)"), "V");
    text = std::regex_replace(text, std::regex(R"(\b\d+\.\d+ s\b)"), "T s");
    return text;
}

// The block of README.md between the readme-sample markers, without the code fence.
std::string readmeSample() {
    std::ifstream in(REPRO_README);
    std::stringstream all;
    all << in.rdbuf();
    const std::string text = all.str();
    const std::string begin = "<!-- readme-sample: repro --preset tiny -n 2", end = "<!-- readme-sample: end -->";
    const size_t from = text.find("```\n", text.find(begin));
    const size_t to = text.rfind("```\n", text.find(end));
    if (text.find(begin) == std::string::npos || from == std::string::npos || to == std::string::npos || to <= from) {
        return "";
    }
    return text.substr(from + 4, to - from - 4);
}

std::vector<std::string> headerLines(const std::string& out) {
    std::vector<std::string> header;
    for (const std::string& line : lines(out)) {
        if (line == "--- results ---") break;
        header.push_back(line);
    }
    return header;
}

TEST(Readme, SampleIsCurrent) {
    REPRO_REQUIRE_LAVAPIPE();
    const ProcessResult r = runRepro({"--preset", "tiny", "-n", "2"});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const std::string sample = readmeSample();
    ASSERT_FALSE(sample.empty()) << "no readme-sample block in " << REPRO_README;
    EXPECT_EQ(normalised(sample), normalised(r.out))
        << "README.md's sample is stale; paste in the output of build/dev/src/repro --preset tiny -n 2:\n"
        << r.out;
}

// The README's first screen (its first 40 lines) names what a driver developer reaches for
// after the first run: --triage, --print-stream and the merged table of many machines.
TEST(Readme, FirstScreenNamesTriagePrintStreamAndTheMergedTable) {
    std::ifstream in(REPRO_README);
    std::string firstScreen, line;
    for (int i = 0; i < 40 && std::getline(in, line); ++i) firstScreen += line + "\n";
    for (const char* option : {"--triage", "--print-stream", "--merge-reports"}) {
        EXPECT_TRUE(contains(firstScreen, option)) << option << " is not in README.md's first 40 lines";
    }
}

TEST(Header, ShortByDefaultWholeWithVerboseNoneWithQuiet) {
    const ProcessResult plain = runRepro({"--preset", "tiny", "-n", "1", "--mode", "split"});
    ASSERT_EQ(plain.status, 0) << plain.out << plain.err;
    const std::vector<std::string> header = headerLines(plain.out);
    EXPECT_LE(header.size(), 8u) << plain.out;
    EXPECT_TRUE(header.at(0).starts_with("repro ")) << plain.out;
    EXPECT_TRUE(contains(plain.out, "\n  experiment flags: none (blade's stream)\n")) << plain.out;
    for (const char* verboseOnly : {"  extensions: ", "  features: ", "  memory: ", "  host: ", "  kernel driver: ",
                                    "  driver environment: ", "small=", "conv-T wgs="}) {
        EXPECT_FALSE(contains(plain.out, verboseOnly)) << verboseOnly << " in the default header:\n" << plain.out;
    }
    const ProcessResult verbose = runRepro({"-v", "--preset", "tiny", "-n", "1", "--mode", "split"});
    ASSERT_EQ(verbose.status, 0) << verbose.out << verbose.err;
    for (const char* line : {"  extensions: ", "  features: ", "  memory: ", "  host: ", "  kernel driver: ",
                             "  driver environment: ", "small=", "conv-T wgs="}) {
        EXPECT_TRUE(contains(verbose.out, line)) << line << " missing with -v:\n" << verbose.out;
    }
    const ProcessResult quiet = runRepro({"-q", "--preset", "tiny", "-n", "1", "--mode", "split"});
    ASSERT_EQ(quiet.status, 0) << quiet.out << quiet.err;
    EXPECT_TRUE(quiet.out.starts_with("--- results ---\n")) << quiet.out;
    EXPECT_TRUE(contains(quiet.out, "  mode=split ")) << quiet.out;
    EXPECT_TRUE(contains(quiet.out, "--- NOT REPRODUCED")) << quiet.out;
    // With modes that predict (multipass after split), -q still prints no prediction line.
    const ProcessResult all = runRepro({"-q", "--preset", "tiny", "-n", "1"});
    ASSERT_EQ(all.status, 0) << all.out << all.err;
    EXPECT_TRUE(contains(all.out, "  mode=multipass ")) << all.out;
    EXPECT_FALSE(contains(all.out, "prediction:")) << all.out;
}

TEST(Header, KernelCommandLineKeepsOnlyGpuParameters) {
    const ProcessResult r = runRepro({"-v", "--preset", "tiny", "-n", "1", "--mode", "split", "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::ifstream in("/proc/cmdline");
    std::string cmdline;
    std::getline(in, cmdline);
    for (const char* privateWord : {"root=", "BOOT_IMAGE=", "init="}) {
        if (!contains(cmdline, privateWord)) continue;
        EXPECT_FALSE(contains(r.out, privateWord)) << privateWord << " reached the JSON report";
        EXPECT_FALSE(contains(r.err, privateWord)) << privateWord << " reached the text report";
    }
}

// The Markdown report of a real run: the RADV template's sections, and no bare "#N" outside
// code (GitLab would link it to issue N; the kernel version carries "#1 SMP").
TEST(MarkdownReport, PastesIntoAMesaIssueWithoutStrayReferences) {
    const ProcessResult r = runRepro({"--format", "markdown", "--preset", "tiny", "-n", "1", "--mode", "split"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "#### Steps to reproduce\n\n")) << r.out;
    EXPECT_TRUE(contains(r.out, ", PCI ID ")) << r.out;
    EXPECT_TRUE(contains(r.out, "\n#### Regression\n\nLast known good Mesa version or commit: ")) << r.out;
    std::string prose;
    bool fenced = false;
    for (const std::string& line : lines(r.out)) {
        if (line.starts_with("```")) fenced = !fenced;
        if (!fenced && !line.starts_with("```")) {
            prose +=
                std::regex_replace(std::regex_replace(line, std::regex("``.*?``"), ""), std::regex("`[^`]*`"), "") +
                "\n";
        }
    }
    std::smatch m;
    EXPECT_FALSE(std::regex_search(prose, m, std::regex(R"((^|[^&\w])#[0-9])")))
        << "bare reference: " << m.str() << "\n"
        << r.out;
}

TEST(Version, NamesLoaderCompilerAndGlibc) {
    const ProcessResult r = runRepro({"--version"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^repro \d+\.\d+\.\d+ \(git [0-9a-f]{12}(-dirty)?\)\n)")) ||
                contains(r.out, "(git unknown)"))
        << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\nVulkan loader: \d+\.\d+\.\d+\n)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\nbuilt with: (GCC|Clang) \d)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\nglibc: \d+\.\d+ at run time, built against \d+\.\d+\n)")))
        << r.out;
}

TEST(Version, SaysNoLoaderAndSucceedsWithoutOne) {
    const ProcessResult r =
        runRepro({"--version"}, {"LD_LIBRARY_PATH=" + std::string(REPRO_FAKE_LOADER_DIR) + "/unloadable"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "\nVulkan loader: no loader (libvulkan.so.1 could not be loaded)\n")) << r.out;
}

}  // namespace
}  // namespace repro::test
