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

// The same, but the signal goes once repro's stdout holds `marker` (a fixed string), at most
// `limit` seconds after the start: on a loaded machine a fixed delay can come before the
// work it is meant to interrupt (CI with another job beside it).
ProcessResult interruptedAfter(const std::string& args, const std::string& signal, const std::string& marker,
                               int limit = 300) {
    const std::string script =
        std::string("out=$(mktemp) || exit 99; ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" ") +
        "env --default-signal=INT \"" + REPRO_EXECUTABLE + "\" " + args + " >\"$out\" & pid=$!; i=0; " +
        "until grep -qF -- '" + marker + "' \"$out\" || [ $i -ge " + std::to_string(limit * 10) +
        " ]; do sleep 0.1; i=$((i+1)); done; kill -" + signal + " $pid; wait $pid; status=$?; cat \"$out\"; " +
        "rm -f \"$out\"; exit $status";
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
    const ProcessResult r =
        interruptedAfter("--preset small --sweep 1..2000 --mode split", "TERM", "  mode=split     nz=7680/7680");
    EXPECT_EQ(r.status, 143) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "--- results for N=1 ---")) << r.out;
    EXPECT_TRUE(contains(r.out, "  mode=split     nz=7680/7680 (100.0%)")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- INTERRUPTED by SIGTERM")) << r.out;
}

TEST(Interrupt, SigtermDuringMatrixStopsTheChildAndKeepsTheRowsPrinted) {
    // The matrix takes about 10 s on a quiet machine; the signal reaches the parent once
    // its first row is printed and is passed on to the running child, which exits 143
    // with its results.
    const ProcessResult r = interruptedAfter("--matrix --preset small -n 3", "TERM", "multipass blade (as recorded");
    EXPECT_EQ(r.status, 143) << r.out << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +1  multipass blade \(as recorded by blade\) +ok )")))
        << r.out;
    EXPECT_TRUE(contains(r.out, "--- INTERRUPTED by SIGTERM: the rows above are complete; no verdict")) << r.out;
    EXPECT_FALSE(contains(r.out, "--- matrix verdict")) << r.out;
}

}  // namespace
