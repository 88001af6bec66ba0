// The supervisor's watched clock (src/children/child_clock.hpp): a stopped child, or a stopped
// supervisor, does not bring a call nearer its deadline.
#include "children/child_clock.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <thread>

#include "children/child_protocol.hpp"

namespace repro {
namespace {

TEST(WatchedClock, CountsRunningTimeOnly) {
    WatchedClock c;
    EXPECT_DOUBLE_EQ(c.sample(100.0, false), 0.0);
    EXPECT_NEAR(c.sample(100.05, false), 0.05, 1e-9);
    EXPECT_NEAR(c.sample(100.10, true), 0.05, 1e-9) << "stopped now";
    EXPECT_NEAR(c.sample(112.10, true), 0.05, 1e-9) << "12 s stopped (SIGSTOP, a debugger)";
    EXPECT_NEAR(c.sample(112.15, false), 0.05, 1e-9) << "resumed between the samples";
    EXPECT_NEAR(c.sample(112.20, false), 0.10, 1e-9);
    EXPECT_NEAR(c.sample(124.20, false), 0.10 + kMaxWatchedStepSeconds, 1e-9) << "the supervisor itself was stopped";
    EXPECT_NEAR(c.sample(124.00, false), 0.10 + kMaxWatchedStepSeconds, 1e-9) << "a clock going back adds nothing";
}

TEST(WatchedClock, AStallIsStillAStallAndAStopIsNot) {
    // A call with a 10 s limit, the child running (asleep in the driver) for 11 s: overdue.
    ChildProtocol running;
    WatchedClock a;
    double t = a.sample(0, false);
    running.feed("E\t10\tvkWaitSemaphores\n", t);
    for (int i = 1; i <= 220; ++i) t = a.sample(i * 0.05, false);
    EXPECT_TRUE(running.state().overdue(t));
    // The same 11 s with the child stopped for 10 of them: not overdue.
    ChildProtocol stopped;
    WatchedClock b;
    t = b.sample(0, false);
    stopped.feed("E\t10\tvkWaitSemaphores\n", t);
    for (int i = 1; i <= 220; ++i) t = b.sample(i * 0.05, i > 10 && i < 210);
    EXPECT_FALSE(stopped.state().overdue(t));
}

TEST(WatchedClock, ReadsTheStateLetter) {
    EXPECT_EQ(processStateOf("42 (repro) T 1 42 42 0"), 'T');
    EXPECT_EQ(processStateOf("42 (a) b (c)) t 1"), 't');
    EXPECT_EQ(processStateOf("42 (repro) R"), 'R');
    EXPECT_FALSE(processStateOf("42 (repro"));
    EXPECT_FALSE(processStateOf("42 (repro)  "));
}

TEST(WatchedClock, SeesAStoppedProcess) {
    const pid_t child = ::fork();
    if (child == 0) {
        for (;;) ::pause();
    }
    ASSERT_GT(child, 0);
    EXPECT_FALSE(processStopped(child));
    ::kill(child, SIGSTOP);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, WUNTRACED), child);
    EXPECT_TRUE(processStopped(child));
    ::kill(child, SIGCONT);
    for (int i = 0; i < 100 && processStopped(child); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(processStopped(child));
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    EXPECT_FALSE(processStopped(child)) << "reaped: no /proc entry";
}

}  // namespace
}  // namespace repro
