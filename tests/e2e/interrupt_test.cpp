// SIGINT and SIGTERM during a long run on the machine's Vulkan driver: repro stops
// submitting, waits a bounded time for the queue, prints what it has and exits 128 +
// the signal, never dying by the signal itself.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "process.hpp"

namespace {

using repro::test::contains;
using repro::test::ProcessResult;
using repro::test::runProcess;

// Starts repro with `args` in the background, sends `signal` after `delay` seconds and
// reports how it ended.
ProcessResult interrupted(const std::string& args, const std::string& signal, int delay) {
    // After an interrupt that did not drain, repro leaves the in-use objects undestroyed on
    // purpose; LeakSanitizer (sanitize preset) must not turn that into a failure. A shell
    // starts a background job with SIGINT ignored, and repro keeps an ignored SIGINT
    // ignored: `env --default-signal=INT` gives it the SIGINT of a terminal's foreground job.
    const std::string script = std::string("ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" ") +
                               "env --default-signal=INT \"" + REPRO_EXECUTABLE + "\" " + args + " & pid=$!; sleep " +
                               std::to_string(delay) + "; kill -" + signal + " $pid; wait $pid";
    return runProcess("/bin/sh", {"-c", script});
}

TEST(Interrupt, SigintDuringOneLongSubmitExits130) {
    // One full-size conv-T takes minutes on a CPU driver: the signal lands mid-submit, and
    // the bounded drain gives up after 10 s.
    const ProcessResult r = interrupted("--mode single -n 1", "INT", 3);
    EXPECT_EQ(r.status, 130) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "--- INTERRUPTED by SIGINT")) << r.out;
    EXPECT_TRUE(contains(r.out, "-> not run: interrupted by SIGINT")) << r.out;
}

TEST(Interrupt, SigtermBetweenSubmitsKeepsCompletedResults) {
    // A long sweep of fast chains: SIGTERM lands between submits; the lengths that
    // finished keep their results.
    const ProcessResult r = interrupted("--preset small --sweep 1..2000 --mode split", "TERM", 3);
    EXPECT_EQ(r.status, 143) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "--- results for N=1 ---")) << r.out;
    EXPECT_TRUE(contains(r.out, "  mode=split     nz=7680/7680 (100.0%)")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- INTERRUPTED by SIGTERM")) << r.out;
}

TEST(Interrupt, SigtermDuringMatrixStopsTheChildAndKeepsTheRowsPrinted) {
    // The matrix takes about 10 s here; the signal reaches the parent mid-way and is
    // passed on to the running child, which exits 143 with its results.
    const ProcessResult r = interrupted("--matrix --preset small -n 3", "TERM", 3);
    EXPECT_EQ(r.status, 143) << r.out << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +1  multipass blade \(as recorded by blade\) +ok )")))
        << r.out;
    EXPECT_TRUE(contains(r.out, "--- INTERRUPTED by SIGTERM: the rows above are complete; no verdict")) << r.out;
    EXPECT_FALSE(contains(r.out, "--- matrix verdict")) << r.out;
}

}  // namespace
