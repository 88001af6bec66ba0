// repro as a GoogleTest binary (engine/gtest.hpp, docs/ci.md), end to end: the list in
// GoogleTest's format (one suite per shipped file and the built-in chain, one test per mode),
// the filter's '*', '?', ':' and '-', a filtered run's lines and exit status, its JUnit XML
// read back with pugixml, a wrong mode through the simulated driver failing its test (and
// only its test), a hang ending its test only, a cannot-test run skipped, and the usage
// errors. CMake's own consumer of the protocol (gtest_discover_tests) runs the whole list
// in tests/CMakeLists.txt ("gtest." tests).
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "bounded_process.hpp"
#include "process.hpp"
#include "simulated_env.hpp"

namespace {

using repro::test::BoundedResult;
using repro::test::contains;
using repro::test::describeEnd;
using repro::test::runBounded;
using repro::test::simulated;

const std::vector<std::string> kPlain = {"VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE="};

BoundedResult repro(const std::vector<std::string>& args, const std::vector<std::string>& env = kPlain) {
    return runBounded(REPRO_EXECUTABLE, args, env, 180);
}

// The lines of `out` with every "(N ms)" and "(N ms total)" as "(T ms...)".
std::string timeless(const std::string& out) {
    static const std::regex ms(R"(\(\d+ ms)");
    return std::regex_replace(out, ms, "(T ms");
}

std::filesystem::path tempPath(const std::string& name) {
    return std::filesystem::temp_directory_path() / ("repro-gtest-" + std::to_string(getpid()) + "-" + name);
}

// The shipped files' suites, by file name, as the list must give them.
std::vector<std::string> shippedSuites() {
    std::vector<std::string> stems;
    for (const auto& e : std::filesystem::directory_iterator(REPRO_SOURCE_DIR "/scenarios")) {
        if (e.path().extension() == ".toml") stems.push_back(e.path().filename().string());
    }
    std::sort(stems.begin(), stems.end());
    for (std::string& s : stems) {
        s = s.substr(0, s.size() - 5);
        std::replace(s.begin(), s.end(), '-', '_');
    }
    return stems;
}

TEST(GtestProtocol, TheListHasOneSuitePerShippedFileThenTheBuiltInChainAndOneTestPerMode) {
    const BoundedResult r = repro({"--gtest_list_tests"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_EQ(r.err, "");
    std::string expected;
    std::vector<std::string> suites = shippedSuites();
    suites.push_back("builtin_chain");
    for (const std::string& s : suites) expected += s + ".\n  split\n  multipass\n  single\n";
    EXPECT_EQ(r.out, expected);
    // GoogleTest's names: letters, digits and '_' only; deqp-runner refuses a blank line.
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
        EXPECT_TRUE(std::regex_match(line, std::regex(R"([A-Za-z0-9_]+\.|  [A-Za-z0-9_]+)"))) << line;
    }
}

// ci/expectations/*-fails.txt (deqp-runner's baseline, docs/ci.md) names tests that exist:
// a renamed file breaks this test, not a farm's baseline.
TEST(GtestProtocol, TheExpectationFilesNameListedTests) {
    const BoundedResult r = repro({"--gtest_list_tests"});
    ASSERT_EQ(r.status, 0) << shown(r);
    std::vector<std::string> listed;
    std::string suite;
    std::istringstream list(r.out);
    for (std::string line; std::getline(list, line);) {
        if (line.rfind("  ", 0) == 0)
            listed.push_back(suite + line.substr(2));
        else
            suite = line;
    }
    size_t named = 0;
    for (const auto& e : std::filesystem::directory_iterator(REPRO_SOURCE_DIR "/ci/expectations")) {
        if (!e.path().string().ends_with("-fails.txt")) continue;
        std::ifstream in(e.path());
        for (std::string line; std::getline(in, line);) {
            if (line.empty() || line[0] == '#') continue;
            const std::string test = line.substr(0, line.find(','));
            EXPECT_NE(std::find(listed.begin(), listed.end(), test), listed.end()) << e.path() << ": " << line;
            EXPECT_TRUE(std::regex_match(line, std::regex(R"([A-Za-z0-9_]+\.[a-z]+,(Fail|Crash|Timeout))"))) << line;
            ++named;
        }
    }
    EXPECT_GT(named, 0u);
}

TEST(GtestProtocol, TheFilterKeepsMatchesOfAnyPatternAndDropsTheExcluded) {
    const BoundedResult r =
        repro({"--gtest_list_tests", "--gtest_filter=?enderdoc_*:builtin_chain.*:kompute*.single-*.split:*.multipass"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_EQ(r.out,
              "kompute_196_increment_chain.\n  single\nrenderdoc_3899_fill_then_copy.\n  single\n"
              "builtin_chain.\n  single\n");
    const BoundedResult none = repro({"--gtest_list_tests", "--gtest_filter=-*"});
    EXPECT_EQ(none.status, 0) << shown(none);
    EXPECT_EQ(none.out, "");
    // '[' and '\\' are plain characters to GoogleTest, not a bracket expression or an escape
    for (const char* literal : {"--gtest_filter=builtin_chain.[s]plit", "--gtest_filter=builtin_chain.\\split"}) {
        const BoundedResult bracket = repro({"--gtest_list_tests", literal});
        EXPECT_EQ(bracket.status, 0) << shown(bracket);
        EXPECT_EQ(bracket.out, "") << literal;
    }
}

TEST(GtestProtocol, AFilteredRunPrintsGoogleTestsLinesAndItsXml) {
    const auto xml = tempPath("run.xml");
    const BoundedResult r =
        repro({"--gtest_filter=renderdoc_3899_fill_then_copy.*:builtin_chain.single", "--gtest_also_run_disabled_tests",
               "--preset", "tiny", "-n", "2", "--gtest_output=xml:" + xml.string()});
    ASSERT_EQ(r.status, 0) << shown(r);
    const std::string suite = "renderdoc_3899_fill_then_copy";
    EXPECT_EQ(timeless(r.out),
              "[==========] Running 4 tests from 2 test suites.\n"
              "[----------] Global test environment set-up.\n"
              "[----------] 3 tests from " +
                  suite +
                  "\n"
                  "[ RUN      ] " +
                  suite + ".split\n[       OK ] " + suite +
                  ".split (T ms)\n"
                  "[ RUN      ] " +
                  suite + ".multipass\n[       OK ] " + suite +
                  ".multipass (T ms)\n"
                  "[ RUN      ] " +
                  suite + ".single\n[       OK ] " + suite +
                  ".single (T ms)\n"
                  "[----------] 3 tests from " +
                  suite +
                  " (T ms total)\n\n"
                  "[----------] 1 test from builtin_chain\n"
                  "[ RUN      ] builtin_chain.single\n[       OK ] builtin_chain.single (T ms)\n"
                  "[----------] 1 test from builtin_chain (T ms total)\n\n"
                  "[----------] Global test environment tear-down\n"
                  "[==========] 4 tests from 2 test suites ran. (T ms total)\n"
                  "[  PASSED  ] 4 tests.\n");
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file(xml.c_str())) << xml;
    std::filesystem::remove(xml);
    const pugi::xml_node all = doc.child("testsuites");
    EXPECT_EQ(all.attribute("tests").as_int(), 4);
    EXPECT_EQ(all.attribute("failures").as_int(), 0);
    const pugi::xml_node first = all.child("testsuite");
    EXPECT_EQ(std::string(first.attribute("name").value()), suite);
    EXPECT_EQ(first.attribute("tests").as_int(), 3);
    std::vector<std::string> names;
    for (const pugi::xml_node t : first.children("testcase")) {
        names.emplace_back(t.attribute("name").value());
        EXPECT_EQ(std::string(t.attribute("classname").value()), suite);
        EXPECT_EQ(std::string(t.attribute("result").value()), "completed");
        EXPECT_FALSE(t.child("failure"));
    }
    EXPECT_EQ(names, (std::vector<std::string>{"split", "multipass", "single"}));
    EXPECT_EQ(std::string(first.next_sibling("testsuite").attribute("name").value()), "builtin_chain");
}

// The simulated driver drops a dispatch of each command buffer: the one-submit modes are
// wrong, split is right. Each mode is a test of its own, so split passes beside them.
TEST(GtestProtocol, AWrongModeFailsItsTestAndTheRunExitsOne) {
    const auto xml = tempPath("wrong.xml");
    const BoundedResult r =
        repro({"--gtest_filter=kompute_196_increment_chain.*", "--gtest_output=xml:" + xml.string()},
              simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 1) << shown(r);
    const std::string out = timeless(r.out);
    EXPECT_TRUE(contains(out, "[       OK ] kompute_196_increment_chain.split (T ms)\n")) << shown(r);
    for (const std::string mode : {"multipass", "single"}) {
        const std::string test = "kompute_196_increment_chain." + mode;
        EXPECT_TRUE(contains(out, "[ RUN      ] " + test + "\n  exit 2: BUG REPRODUCED: mode " + mode + " is mismatch"))
            << shown(r);
        EXPECT_TRUE(contains(out, "[  FAILED  ] " + test + " (T ms)\n")) << shown(r);
    }
    EXPECT_TRUE(contains(out,
                         "[  PASSED  ] 1 test.\n[  FAILED  ] 2 tests, listed below:\n"
                         "[  FAILED  ] kompute_196_increment_chain.multipass\n"
                         "[  FAILED  ] kompute_196_increment_chain.single\n\n 2 FAILED TESTS\n"))
        << shown(r);
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file(xml.c_str())) << xml;
    std::filesystem::remove(xml);
    EXPECT_EQ(doc.child("testsuites").attribute("failures").as_int(), 2);
    const pugi::xml_node failure = doc.child("testsuites")
                                       .child("testsuite")
                                       .find_child_by_attribute("testcase", "name", "single")
                                       .child("failure");
    ASSERT_TRUE(failure);
    EXPECT_TRUE(contains(failure.attribute("message").value(), "BUG REPRODUCED: mode single is mismatch"));
    // The failed tests' logs are kept and named (the message's "; log FILE").
    EXPECT_TRUE(contains(r.out, "logs and reports kept in ")) << shown(r);
}

// A hang is a failed test, and only that test: the next mode runs in a fresh child.
TEST(GtestProtocol, AHangFailsItsTestAndTheNextTestStillRuns) {
    const BoundedResult r =
        repro({"--gtest_filter=kompute_196_increment_chain.multipass:kompute*.single", "--timeout", "1"},
              simulated("clock:us-per-wg=1;hang:dispatches=1"));
    ASSERT_EQ(r.status, 1) << shown(r);
    for (const std::string mode : {"multipass", "single"}) {
        EXPECT_TRUE(contains(r.out, "  exit 3: GPU HANG: mode " + mode)) << shown(r);
        EXPECT_TRUE(contains(timeless(r.out), "[  FAILED  ] kompute_196_increment_chain." + mode + " (T ms)\n"))
            << shown(r);
    }
}

TEST(GtestProtocol, ARunThatCannotTestIsSkippedAndPasses) {
    const BoundedResult r = repro(
        {"--gtest_filter=builtin_chain.split", "--preset", "tiny", "-n", "1", "--expect-driver", "no-such-driver"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "  exit 125: ")) << shown(r);
    EXPECT_TRUE(contains(timeless(r.out), "[  SKIPPED ] builtin_chain.split (T ms)\n")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "[  PASSED  ] 0 tests.\n[  SKIPPED ] 1 test, listed below:\n"
                         "[  SKIPPED ] builtin_chain.split\n"))
        << shown(r);
}

TEST(GtestProtocol, ABadFolderOrAClashOfSuiteNamesIsOneLine) {
    const auto dir = tempPath("dir");
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(REPRO_SOURCE_DIR "/scenarios/kompute-196-increment-chain.toml", dir / "a-b.toml");
    std::filesystem::copy_file(REPRO_SOURCE_DIR "/scenarios/kompute-196-increment-chain.toml", dir / "a_b.toml");
    const BoundedResult clash = repro({"--gtest_list_tests", "--scenario-dir", dir.string()});
    EXPECT_EQ(clash.status, 1) << shown(clash);
    EXPECT_EQ(clash.out, "");
    EXPECT_TRUE(contains(clash.err, "make one GoogleTest suite name, a_b; rename one\n")) << shown(clash);
    std::filesystem::remove(dir / "a_b.toml");
    std::ofstream(dir / "bad.toml") << "name = 1\n";
    const BoundedResult bad = repro({"--gtest_list_tests", "--scenario-dir", dir.string()});
    EXPECT_EQ(bad.status, 1) << shown(bad);
    EXPECT_TRUE(contains(bad.err, "bad.toml:1:")) << shown(bad);
    std::filesystem::remove_all(dir);
}

TEST(GtestProtocol, OptionsThatCannotGoWithItAreOneLine) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--gtest_filter=*", "--mode", "single"},
         "repro: --mode: not with the GoogleTest protocol (each test is one file or the chain in one mode, reported "
         "in GoogleTest's lines)\n"},
        {{"--gtest_list_tests", "--scenario", "x.toml"}, "repro: --scenario: not with the GoogleTest protocol"},
        {{"--gtest_output=json:x"}, "repro: --gtest_output: 'json:x' is not xml or xml:FILE"},
        {{"--scenario-dir", "."}, "repro: --scenario-dir: only with --gtest_list_tests, --gtest_filter or"},
        {{"--gtest_list_tests", "--gtest_output=xml:x"}, "repro: --gtest_output: not with --gtest_list_tests"},
        {{"--gtest_filter=*", "--capture-gfxr", "x.gfxr"}, "repro: --capture-gfxr: not with the GoogleTest protocol"},
    };
    for (const auto& [args, line] : cases) {
        const BoundedResult r = repro(args);
        EXPECT_EQ(r.status, 1) << shown(r);
        EXPECT_EQ(r.out, "") << shown(r);
        EXPECT_EQ(r.err.rfind(line, 0), 0u) << shown(r);
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << shown(r);
    }
}

}  // namespace
