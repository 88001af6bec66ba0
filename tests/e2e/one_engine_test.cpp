// One engine (issue 34): the built-in chain is one scenario, and every option of a run applies
// to a file. The step walker records the literal recorders' stream for the chain written as a
// file (N = 1..7, every mode), the shipped blade #356 file records the built-in's, and every
// option the built-in chain takes goes with the blade file and with a file on two queues, each
// to a verdict or one line that says why it cannot. End to end on the machine's driver
// (lavapipe in CI).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <optional>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

using repro::test::contains;
using repro::test::ProcessResult;
using repro::test::readText;
using repro::test::runRepro;
using repro::test::shown;
using repro::test::TempDir;

const std::string kBladeFile = std::string(REPRO_SOURCE_DIR) + "/scenarios/blade-356-conv-t-slice-chain.toml";
const std::string kQueueFile = std::string(REPRO_SOURCE_DIR) + "/scenarios/compute-copy-on-a-second-queue.toml";

// The Vulkan calls of a --print-stream, one per line: the lines that are calls (no "#" or
// "##" comment, no header or verdict), each mode's after its "## " title.
std::vector<std::string> calls(const std::string& out) {
    std::vector<std::string> lines;
    std::istringstream in(out);
    bool inStream = false;
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("## ")) inStream = true;
        if (!inStream || line.starts_with("#") || line.starts_with("---")) continue;
        lines.push_back(line);
    }
    return lines;
}

// The built-in chain of `n` steps at preset small as a file (--write-scenario) records, by the
// step walker, the very calls the literal recorders record from the chain: fresh state,
// every mode's own submits and the readback rule.
TEST(BuiltInAsAFile, TheStepWalkerRecordsTheLiteralRecordersStreamForNOneToSeven) {
    TempDir dir("one-engine-stream");
    for (int n = 1; n <= 7; ++n) {
        SCOPED_TRACE("N=" + std::to_string(n));
        const std::string file = (dir / ("chain" + std::to_string(n) + ".toml")).string();
        const ProcessResult written =
            runRepro({"--preset", "small", "-n", std::to_string(n), "--write-scenario", file});
        ASSERT_EQ(written.status, 0) << shown(written);
        const ProcessResult chain = runRepro({"--preset", "small", "-n", std::to_string(n), "--print-stream"});
        const ProcessResult walked = runRepro({"--scenario", file, "--print-stream"});
        ASSERT_EQ(chain.status, 0) << shown(chain);
        ASSERT_EQ(walked.status, 0) << shown(walked);
        const std::vector<std::string> a = calls(chain.out), b = calls(walked.out);
        EXPECT_GT(a.size(), 20u);
        EXPECT_EQ(a, b);
    }
}

TEST(BuiltInAsAFile, TheShippedBladeFileRecordsTheBuiltInsStream) {
    const ProcessResult chain = runRepro({"--preset", "small", "-n", "3", "--print-stream"});
    const ProcessResult file = runRepro({"--scenario", kBladeFile, "--print-stream"});
    ASSERT_EQ(chain.status, 0) << shown(chain);
    ASSERT_EQ(file.status, 0) << shown(file);
    EXPECT_EQ(calls(chain.out), calls(file.out));
}

TEST(BuiltInAsAFile, WriteScenarioIsOnlyForTheChain) {
    const ProcessResult r = runRepro({"--scenario", kBladeFile, "--write-scenario", "x.toml"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "--write-scenario: not with --scenario: it writes the built-in chain as a file"))
        << r.err;
}

// One option (and its values) with what its run must show.
struct FileOption {
    std::string name;                // for the test's name
    std::vector<std::string> args;   // after --scenario FILE
    std::vector<std::string> shows;  // in stdout or stderr; "" for none
    bool queueFileRefuses = false;   // the file on two queues refuses it with a reason
    std::optional<int> status;       // the exit status it must give; unset: a verdict's (0, 2 or 125)
};

// The status `option` must end with: its own, or that of a verdict on lavapipe.
void expectStatus(const ProcessResult& r, const FileOption& option) {
    if (option.status)
        EXPECT_EQ(r.status, *option.status) << shown(r);
    else
        EXPECT_TRUE(r.status == 0 || r.status == 2 || r.status == 125) << shown(r);
}

std::string testName(const testing::TestParamInfo<FileOption>& info) { return info.param.name; }

// Runs `option` on `file` in a fresh folder (its files named there); a run ends with a
// documented status and a verdict line, or is refused with one line naming the option.
ProcessResult runOption(const std::string& file, const FileOption& option, const TempDir& dir) {
    std::vector<std::string> args{"--scenario", file};
    for (std::string a : option.args) {
        if (a.starts_with("DIR/")) a = (dir / a.substr(4)).string();
        args.push_back(a);
    }
    return runRepro(args, {"TMPDIR=" + dir.path().string()}, 600);
}

void expectShows(const ProcessResult& r, const FileOption& option) {
    for (const std::string& text : option.shows) EXPECT_TRUE(contains(r.out + r.err, text)) << text << "\n" << shown(r);
}

class OptionOnTheBladeFile : public testing::TestWithParam<FileOption> {};
class OptionOnAFileOnTwoQueues : public testing::TestWithParam<FileOption> {};

TEST_P(OptionOnTheBladeFile, EndsInAVerdictOrOneLineWithTheReason) {
    const FileOption& option = GetParam();
    TempDir dir("one-engine-blade");
    const ProcessResult r = runOption(kBladeFile, option, dir);
    ASSERT_FALSE(r.timedOut) << shown(r);
    expectStatus(r, option);
    expectShows(r, option);
}

TEST_P(OptionOnAFileOnTwoQueues, EndsInAVerdictOrOneLineWithTheReason) {
    const FileOption& option = GetParam();
    TempDir dir("one-engine-queues");
    const ProcessResult r = runOption(kQueueFile, option, dir);
    ASSERT_FALSE(r.timedOut) << shown(r);
    if (option.queueFileRefuses) {
        EXPECT_EQ(r.status, 1) << shown(r);
        EXPECT_TRUE(contains(r.err, "has queues or semaphores, whose batches set its submits")) << shown(r);
        return;
    }
    expectStatus(r, option);
    expectShows(r, option);
}

const std::vector<FileOption> kOptions = {
    {"quiet", {"-q"}, {"--- NOT REPRODUCED"}},
    {"verbose", {"-v"}, {"kernel driver", "Scenario '"}},
    {"trace", {"--trace", "DIR/t.json"}, {"--- NOT REPRODUCED"}},
    {"breadcrumbs", {"--breadcrumbs"}, {"--- NOT REPRODUCED"}},
    {"labels", {"--labels"}, {"--- NOT REPRODUCED"}},
    {"dump_dir", {"--dump-dir", "DIR/dumps"}, {"--- NOT REPRODUCED"}},
    {"timings", {"--timings"}, {"timings (host, s)"}},
    {"timestamps", {"--timestamps"}, {"--- NOT REPRODUCED"}},
    {"check_steps", {"--check-steps"}, {"check-steps:"}},
    {"poison", {"--poison"}, {"--- NOT REPRODUCED"}},
    {"repeat", {"--repeat", "2"}, {"[run 2/2]", "0/2 runs wrong"}},
    {"split_ms", {"--split-ms", "0.001"}, {"--- NOT REPRODUCED"}, true},
    {"split_mib", {"--split-mib", "0.01"}, {"--- NOT REPRODUCED"}, true},
    {"submit_every", {"--submit-every", "1"}, {"--- NOT REPRODUCED"}, true},
    {"no_host_wait", {"--submit-every", "1", "--no-host-wait"}, {"--- NOT REPRODUCED"}, true},
    {"memory", {"--memory", "host-visible"}, {"--- NOT REPRODUCED"}},
    {"drop_dispatch", {"--drop-dispatch", "1"}, {"POSITIVE CONTROL"}},
    {"format_json", {"--format", "json"}, {"\"schema\""}},
    {"format_markdown", {"--format", "markdown"}, {"### "}},
    {"json_file", {"--json", "DIR/r.json"}, {"--- NOT REPRODUCED"}},
    {"output_file", {"-o", "DIR/r.txt"}, {"--- NOT REPRODUCED"}},
    {"expect_driver", {"--expect-driver", "llvmpipe"}, {"--- NOT REPRODUCED"}},
    {"invert", {"--invert"}, {"--- --invert: exit 1 for exit 0"}, false, 1},
};

INSTANTIATE_TEST_SUITE_P(Lavapipe, OptionOnTheBladeFile, testing::ValuesIn(kOptions), testName);
INSTANTIATE_TEST_SUITE_P(Lavapipe, OptionOnAFileOnTwoQueues, testing::ValuesIn(kOptions), testName);

// The multi-run options, each a child per row as for the chain.
TEST(MultiRunOnAFile, MatrixRunsEveryRowThatAppliesAsAChild) {
    TempDir dir("one-engine-matrix");
    const ProcessResult r =
        runRepro({"--scenario", kBladeFile, "--matrix", "--keep-logs"}, {"TMPDIR=" + dir.path().string()});
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "multipass as written")) << r.out;
    EXPECT_TRUE(contains(r.out, "single barrier=full")) << r.out;
    EXPECT_TRUE(contains(r.out, "logs and reports kept")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- matrix verdict: NOT REPRODUCED by any valid variant")) << r.out;
}

TEST(MultiRunOnAFile, TriageOnACorrectDriverRunsTheBaselineAlone) {
    TempDir dir("one-engine-triage");
    const ProcessResult r = runRepro({"--scenario", kQueueFile, "--triage"}, {"TMPDIR=" + dir.path().string()});
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "baseline: split ok, multipass ok, single ok")) << r.out;
}

TEST(MultiRunOnAFile, DriverEnvSweepRunsTheFileUnderEachSetting) {
    TempDir dir("one-engine-env");
    const ProcessResult r =
        runRepro({"--scenario", kBladeFile, "--driver-env-sweep", "--all-drivers"}, {"TMPDIR=" + dir.path().string()});
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- driver-env-sweep: the run without a setting does not reproduce")) << r.out;
}

TEST(MultiRunOnAFile, TheWatchdogProbeLengthensTheWorkOrSaysWhyItCannot) {
    TempDir dir("one-engine-probe");
    // The blade file's conv-t and slice have no work loop: the probe's ladder cannot lengthen it.
    const ProcessResult blade =
        runRepro({"--scenario", kBladeFile, "--watchdog-probe"}, {"TMPDIR=" + dir.path().string()});
    EXPECT_EQ(blade.status, 125) << shown(blade);
    EXPECT_TRUE(contains(blade.out, "watchdog probe: no result")) << blade.out;
    // The queue file's increment has one: the ladder runs with --work-scale.
    const ProcessResult queues = runRepro({"--scenario", kQueueFile, "--watchdog-probe", "--timeout", "2"},
                                          {"TMPDIR=" + dir.path().string()}, 900);
    EXPECT_EQ(queues.status, 0) << shown(queues);
    EXPECT_TRUE(contains(queues.out, "single, one submit (--work-scale R)")) << queues.out;
}

// --sweep over a file's parameter, the same table and verdict as over N.
TEST(SweepOnAFile, OneRowPerValueAndTheSmallestReproducingValue) {
    TempDir dir("one-engine-sweep");
    const auto file = dir / "p.toml";
    std::ofstream(file) << "name = \"p\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\n"
                           "check = [\"a\"]\n[parameters]\nw = 1\n[[buffer]]\nname = \"a\"\nbytes = 4096\ninit = "
                           "\"iota\"\n[[step]]\ndispatch = \"work\"\nbindings = [\"a\"]\nwork = \"$w\"\n";
    const ProcessResult r = runRepro({"--scenario", file.string(), "--sweep", "w=1,2,3"});
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- sweep: classification by w ---")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- sweep verdict: NOT REPRODUCED at any w")) << r.out;
    const ProcessResult chain = runRepro({"--scenario", file.string(), "--sweep", "1..3"});
    EXPECT_EQ(chain.status, 1) << shown(chain);
}

// Options of the built-in chain alone are refused on a file, from the option table.
TEST(OptionsOnAFile, TheChainsOwnAreRefusedWithTheReason) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"-n", "3"}, "-n/--chain: not with --scenario: the built-in chain's length"},
        {{"--preset", "small"}, "--preset: not with --scenario: the built-in chain's shape"},
        {{"--channels", "8"}, "--channels: not with --scenario: the built-in chain's shape"},
        {{"--dispatch-repeat", "2"}, "--dispatch-repeat: not with --scenario"},
        {{"--profile", "blade-exact"}, "--profile: not with --scenario: blade-exact is blade's own set-up"},
        {{"--spirv", "x"}, "--spirv: not with --scenario"},
    };
    for (const auto& [args, line] : cases) {
        std::vector<std::string> all{"--scenario", kBladeFile};
        all.insert(all.end(), args.begin(), args.end());
        const ProcessResult r = runRepro(all);
        EXPECT_EQ(r.status, 1) << shown(r);
        EXPECT_TRUE(contains(r.err, line)) << line << "\n" << r.err;
    }
    const ProcessResult scale = runRepro({"--preset", "tiny", "--work-scale", "2"});
    EXPECT_EQ(scale.status, 1);
    EXPECT_TRUE(contains(scale.err, "--work-scale: only with --scenario")) << scale.err;
}

// A file that is a control of its own (a barrier "none" between two increments): in its matrix
// the rows that keep that barrier are controls, whose results do not count; the rows that
// replace it (--barrier blade, full) are valid.
TEST(MultiRunOnAFile, RowsThatKeepTheFilesOwnControlAreControls) {
    TempDir dir("one-engine-own-control");
    const std::string file = (dir / "own-control.toml").string();
    std::ofstream(file) << "name = \"own-control\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not "
                           "reproduced\"\ncheck = [\"a\"]\n[[buffer]]\nname = \"a\"\nbytes = 64\ninit = "
                           "\"iota\"\n[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\n[[step]]\nbarrier = "
                           "\"none\"\n[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\n";
    const ProcessResult r = runRepro({"--scenario", file, "--matrix"}, {"TMPDIR=" + dir.path().string()});
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "multipass as written (control)")) << r.out;
    EXPECT_TRUE(contains(r.out, "single memory=host-visible (control)")) << r.out;
    EXPECT_TRUE(contains(r.out, "multipass barrier=blade  ")) << r.out;
    EXPECT_FALSE(contains(r.out, "multipass barrier=blade (control)")) << r.out;
}

// --labels on a file: each work step's debug label is the file's own step, never the chain's
// "dispatch N (step S conv-T)".
TEST(OptionOnAFile, LabelsNameTheFilesSteps) {
    const ProcessResult r =
        runRepro({"--scenario", std::string(REPRO_SOURCE_DIR) + "/scenarios/kompute-196-increment-chain.toml",
                  "--labels", "--print-stream", "--mode", "multipass"});
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "vkCmdBeginDebugUtilsLabelEXT(\"step 1 dispatch increment\")")) << r.out;
    EXPECT_FALSE(contains(r.out, "conv-T")) << r.out;
}

// A race in the file (issue 35 §1): refused before anything runs, one line naming both steps;
// the same race labelled a control runs.
TEST(OneQueueRace, ARaceInTheFileIsRefusedAndItsLabelledControlRuns) {
    const std::string dir = std::string(REPRO_SOURCE_DIR) + "/tests/scenarios/";
    const ProcessResult race = runRepro({"--scenario", dir + "race-repeated-increments.toml"});
    EXPECT_EQ(race.status, 1) << shown(race);
    EXPECT_EQ(race.out, "") << shown(race);
    EXPECT_TRUE(contains(race.err,
                         "race-repeated-increments.toml:18:1: step 1 dispatch increment (repetition 1 of 8) "
                         "and step 2 dispatch increment (repetition 2 of 8) race on buffer 'data' "
                         "(write-after-write)"))
        << race.err;
    const ProcessResult control = runRepro({"--scenario", dir + "race-labelled-control.toml"});
    EXPECT_EQ(control.status, 0) << shown(control);  // lavapipe runs the increments in order
    EXPECT_TRUE(contains(control.out, "CONTROL")) << control.out;
    EXPECT_TRUE(contains(control.out, "--- the control was not caught (the file labels")) << control.out;
    // --driver-env-sweep judges a setting by the failure it removes: not a control's (was "the bug
    // reproduces without a setting" for a control caught)
    const ProcessResult sweep = runRepro({"--scenario", dir + "race-labelled-control.toml", "--driver-env-sweep"});
    EXPECT_EQ(sweep.status, 1) << shown(sweep);
    EXPECT_EQ(sweep.err,
              "repro: --driver-env-sweep: not with a positive control (the scenario file labels a step a control): a "
              "setting is judged against the driver's own failure, and a control's wrong output is not the "
              "driver's\n")
        << shown(sweep);
}

// A control that every mode survives (lavapipe runs dispatches in order, so --barrier none
// stays right there): NOT REPRODUCED, exit 0, and a line in text, JSON and Markdown says the
// run could not have caught what the control removes; without a control no such line.
TEST(Controls, AControlEveryModeSurvivesSaysTheRunCouldNotCatchIt) {
    TempDir dir("controls");
    const std::string json = (dir / "r.json").string();
    const std::string file = std::string(REPRO_SOURCE_DIR) + "/scenarios/blade-356-conv-t-slice-chain.toml";
    const ProcessResult r = runRepro({"--scenario", file, "--barrier", "none", "--json", json});
    EXPECT_EQ(r.status, 0) << shown(r);
    constexpr const char* kLine =
        "--- the control was not caught (--barrier none: no barrier between the dispatches of multipass and "
        "single): every mode stayed right without what it removes, so on this device this run cannot tell a "
        "driver that drops it from one that keeps it";
    EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << r.out;
    EXPECT_TRUE(contains(r.out, kLine)) << r.out;
    const std::string doc = readText(json);
    EXPECT_TRUE(contains(doc, "\"kind\": \"not_reproduced\"")) << doc;
    EXPECT_TRUE(contains(doc, "the control was not caught (--barrier none")) << doc;
    const ProcessResult md = runRepro({"--scenario", file, "--barrier", "none", "--format", "markdown"});
    EXPECT_TRUE(contains(md.out, kLine)) << md.out;
    const ProcessResult plain = runRepro({"--scenario", file});
    EXPECT_EQ(plain.status, 0) << shown(plain);
    EXPECT_FALSE(contains(plain.out, "the control was not caught")) << plain.out;
}

// A positive control that is caught (issue 35 §2): the control, in every place it reports,
// with the exit status of wrong output.
TEST(Controls, ADroppedDispatchIsTheControlCaughtInTextJsonAndMarkdown) {
    TempDir dir("controls");
    const std::string json = (dir / "r.json").string();
    const ProcessResult r = runRepro({"--preset", "small", "-n", "3", "--drop-dispatch", "3", "--json", json});
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "mode=multipass cause: the control (dispatch 3 left out of multipass and single by "
                         "repro (--drop-dispatch 3)): the control was caught, not the driver"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "--- CONTROL CAUGHT: mode multipass is zero")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- the control was caught (dispatch 3 left out")) << r.out;
    EXPECT_FALSE(contains(r.out, "BUG REPRODUCED")) << r.out;
    EXPECT_FALSE(contains(r.out, "cause: synchronization")) << r.out;
    const std::string doc = readText(json);
    EXPECT_TRUE(contains(doc, "\"kind\": \"control_caught\"")) << doc;
    EXPECT_TRUE(contains(doc, "\"control\": true")) << doc;
    const ProcessResult md = runRepro({"--preset", "small", "-n", "3", "--drop-dispatch", "3", "--format", "markdown"});
    EXPECT_TRUE(contains(md.out, "### repro: CONTROL CAUGHT (exit 2)")) << md.out;
}

}  // namespace
