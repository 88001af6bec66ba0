// Output that reads at a glance, and progress on long work (issue 23, items 3 and 4), end to
// end through the simulated driver (tests/README.md): every line of the default text output
// of failing runs within 200 columns and the verdict line within 160, each cause and note
// said once; the progress line on a terminal (recorded through a pseudo-terminal) and none
// in a pipe, with -q or in CI. The simulated clock makes a run last about 3 s whatever the
// machine, so the line has time to appear; no expectation holds a wall-clock figure.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "bounded_process.hpp"
#include "process.hpp"
#include "simulated_env.hpp"
#include "terminal.hpp"

namespace {

using repro::test::BoundedResult;
using repro::test::contains;
using repro::test::describeEnd;
using repro::test::lines;
using repro::test::runBounded;
using repro::test::runOnTerminal;
using repro::test::simulated;
using repro::test::TerminalResult;

// ---- line lengths ---------------------------------------------------------------------------

struct FailingRun {
    const char* name;
    const char* simulate;
    std::vector<std::string> args;
    int status;
};

// The failing runs the simulated driver makes: the seed bug, the job watchdog's soft and hard
// kills, a hang the watchdog ended, a stale cache with --check-steps, a driver crash; each
// with the default header and with -v.
const FailingRun kFailingRuns[] = {
    {"SeedBug", "seed-bug:dispatches=3", {"--preset", "tiny", "-n", "3"}, 2},
    {"SoftWatchdog", "watchdog:timeout=500,ms-per-dispatch=100", {"--preset", "tiny", "-n", "4"}, 2},
    {"HardWatchdog", "watchdog:timeout=500,ms-per-dispatch=100,recovery=hard", {"--preset", "tiny", "-n", "4"}, 3},
    {"HangKilled", "watchdog:timeout=500,ms-per-dispatch=1;hang", {"--preset", "tiny", "-n", "3"}, 2},
    {"Stale", "stale:dispatch=3", {"--preset", "tiny", "-n", "3", "--check-steps"}, 2},
    {"DriverCrash", "crash:vkQueueSubmit:3", {"--preset", "tiny", "-n", "2"}, 3},
};

class LineLengths : public testing::TestWithParam<FailingRun> {};

TEST_P(LineLengths, EveryLineFitsAndTheVerdictIsShortAndNothingIsSaidTwice) {
    const FailingRun& run = GetParam();
    for (const bool verbose : {false, true}) {
        std::vector<std::string> args = run.args;
        if (verbose) args.push_back("-v");
        const BoundedResult r = runBounded(REPRO_EXECUTABLE, args, simulated(run.simulate), 120);
        ASSERT_EQ(r.status, run.status) << shown(r);
        const std::string all = r.out + r.err;
        bool verdictSeen = false;
        std::map<std::string, int> notes;
        for (const std::string& line : lines(all)) {
            EXPECT_LE(line.size(), 200u) << (verbose ? "-v: " : "") << line;
            if (!verdictSeen && line.starts_with("--- ") && !line.starts_with("--- results")) {
                verdictSeen = true;
                EXPECT_LE(line.size(), 160u) << "the verdict line: " << line;
            }
            // A note (the header's "note: ...", a hang's "hang evidence: ...") is said once.
            for (const char* kind : {"hang evidence: ", "note: "}) {
                if (const size_t at = line.find(kind); at != std::string::npos) {
                    ++notes[line.substr(at + std::string(kind).size())];
                    break;
                }
            }
            if (line.starts_with("--- BUG REPRODUCED") || line.starts_with("--- GPU HANG")) {
                // The cause in a few words; its full line and evidence are above, once.
                EXPECT_EQ(line.find("; cause"), std::string::npos) << line;
                EXPECT_EQ(line.find("cause undetermined:"), std::string::npos) << line;
            }
            EXPECT_EQ(line.find("GPU HANG: the driver crashed"), std::string::npos) << line;
        }
        EXPECT_TRUE(verdictSeen) << shown(r);
        for (const auto& [note, times] : notes) EXPECT_EQ(times, 1) << "said " << times << " times: " << note;
        // What is missing is said on its own "missing:" lines, not again in the cause's line.
        EXPECT_EQ(repro::test::count(all, "(missing: "), 0u) << shown(r);
        EXPECT_EQ(repro::test::count(all, "(contradicts: "), 0u) << shown(r);
    }
}

INSTANTIATE_TEST_SUITE_P(Simulated, LineLengths, testing::ValuesIn(kFailingRuns),
                         [](const testing::TestParamInfo<FailingRun>& param) { return std::string(param.param.name); });

// ---- the progress line ----------------------------------------------------------------------

// tiny -n 2 under a clock of 250 ms per dispatch: split's 4 submits, multipass's and
// single's 4 dispatches, about 3 s of simulated GPU time in all.
const char* const kThreeSeconds = "clock:us-per-wg=0,ms-per-dispatch=250";
const std::vector<std::string> kRun = {"--preset", "tiny", "-n", "2"};

// The environment of a terminal session that is not CI.
std::vector<std::string> terminalEnv(std::vector<std::string> extra = {}) {
    std::vector<std::string> env = simulated(kThreeSeconds);
    env.insert(env.end(), {"CI=", "TERM=xterm"});
    env.insert(env.end(), extra.begin(), extra.end());
    return env;
}

// A redrawn progress line: carriage return, "repro <elapsed> s", the mode, clear to the end.
const std::regex kProgress(R"(\rrepro [0-9]+ s \| [^\r\n]*mode (split|multipass|single)[^\r\n]*\x1b\[K)");

TEST(Progress, OnATerminalALongRunRedrawsOneLineWithTheModeAndElapsedSeconds) {
    const TerminalResult r = runOnTerminal(REPRO_EXECUTABLE, kRun, terminalEnv(), 120);
    ASSERT_EQ(r.status, 0) << r.seen;
    EXPECT_TRUE(std::regex_search(r.seen, kProgress)) << r.seen;
    // Every line of the report still starts at column 0 and ends whole: the line each
    // report line replaces was cleared first.
    EXPECT_TRUE(contains(r.seen, "\r\x1b[K--- NOT REPRODUCED")) << r.seen;
    EXPECT_TRUE(contains(r.seen, "mode=single ")) << r.seen;
}

TEST(Progress, NoneInAPipeWithQuietInCiOrOnADumbTerminal) {
    const BoundedResult piped = runBounded(REPRO_EXECUTABLE, kRun, terminalEnv(), 120);
    ASSERT_EQ(piped.status, 0) << shown(piped);
    EXPECT_FALSE(contains(piped.err + piped.out, "\r")) << shown(piped);
    EXPECT_FALSE(contains(piped.err + piped.out, "\x1b[")) << shown(piped);
    for (const auto& [args, env] : std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>{
             {{"-q"}, {}}, {{}, {"CI=true"}}, {{}, {"TERM=dumb"}}}) {
        std::vector<std::string> all = kRun;
        all.insert(all.end(), args.begin(), args.end());
        const TerminalResult r = runOnTerminal(REPRO_EXECUTABLE, all, terminalEnv(env), 120);
        ASSERT_EQ(r.status, 0) << r.seen;
        EXPECT_FALSE(contains(r.seen, "\x1b[")) << (env.empty() ? args.front() : env.front()) << "\n" << r.seen;
    }
}

}  // namespace
