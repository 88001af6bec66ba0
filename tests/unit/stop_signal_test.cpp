// Job control across repro's two processes (core/interrupt.hpp): a supervisor and its
// multithreaded child in one process group. One Ctrl-Z reaches the child twice, from the
// terminal and passed on by the supervisor; one SIGCONT to the supervisor must leave both
// running, every time. The child never stops itself (its supervisor stops it with
// SIGSTOP): two SIGTSTPs taken by two of its threads once stopped it again after the
// SIGCONT, a run left stopped for good (CI, e2e.JobControl.OnATerminalWithTostop...).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/interrupt.hpp"

namespace {

using SteadyClock = std::chrono::steady_clock;

// A process's state letter from /proc/PID/stat ('R', 'S', 'T', ...; '?' when it is gone).
char processState(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::stringstream text;
    text << in.rdbuf();
    const std::string stat = text.str();
    const size_t close = stat.rfind(')');
    return close == std::string::npos || close + 2 >= stat.size() ? '?' : stat[close + 2];
}

// Whether every one of `pids` is (`want`) or is not (!`want`) in state T within `seconds`.
bool stoppedWithin(const std::vector<pid_t>& pids, bool want, double seconds) {
    const auto end = SteadyClock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
        bool all = true;
        for (const pid_t pid : pids) all = all && (processState(pid) == 'T') == want;
        if (all) return true;
        if (SteadyClock::now() >= end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

// Whether any of `pids` is in state T within `seconds`.
bool anyStoppedWithin(const std::vector<pid_t>& pids, double seconds) {
    const auto end = SteadyClock::now() + std::chrono::duration<double>(seconds);
    while (SteadyClock::now() < end) {
        for (const pid_t pid : pids) {
            if (processState(pid) == 'T') return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
}

// The supervised child: its handlers, then busy threads started after them (as a Vulkan
// driver starts its own), until killed.
[[noreturn]] void supervisedChild() {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    repro::installInterruptHandlers(repro::Stops::ByParent);
    std::atomic<bool> forever{true};
    std::vector<std::thread> threads;
    for (int i = 0; i < 6; ++i) {
        threads.emplace_back([&forever] {
            while (forever.load()) {
            }
        });
    }
    for (;;) ::pause();
}

// The supervisor, leader of a process group of its own (a terminal's foreground job):
// starts the child, passes its pid up `fd` and waits to be killed.
[[noreturn]] void supervisor(int fd) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    repro::installInterruptHandlers(repro::Stops::Itself);
    const pid_t child = ::fork();
    if (child == 0) supervisedChild();
    repro::forwardStopsTo(child, repro::Stops::ByParent);
    if (::write(fd, &child, sizeof child) != static_cast<ssize_t>(sizeof child)) ::_exit(1);
    for (;;) ::pause();
}

class JobControl : public testing::Test {
  protected:
    void SetUp() override {
        int fds[2];
        ASSERT_EQ(::pipe(fds), 0);
        supervisor_ = ::fork();
        ASSERT_GE(supervisor_, 0);
        if (supervisor_ == 0) supervisor(fds[1]);
        ::close(fds[1]);
        ASSERT_EQ(::read(fds[0], &child_, sizeof child_), static_cast<ssize_t>(sizeof child_));
        ::close(fds[0]);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the child's threads run
    }
    void TearDown() override {
        if (child_ > 0) ::kill(child_, SIGKILL);
        if (supervisor_ > 0) {
            ::kill(supervisor_, SIGKILL);
            ::waitpid(supervisor_, nullptr, 0);
        }
    }

    // Rounds of `stop` then SIGCONT to the supervisor alone; the first round (1-based) after
    // which a process was stopped again, 0 if none. Fails the test if a stop or a continue
    // does not take.
    int roundsLeavingOneStopped(const std::function<void()>& stop, int rounds) {
        const std::vector<pid_t> both = {supervisor_, child_};
        for (int round = 1; round <= rounds; ++round) {
            stop();
            if (!stoppedWithin(both, true, 10)) {
                ADD_FAILURE() << "round " << round << ": not both stopped";
                return round;
            }
            ::kill(supervisor_, SIGCONT);
            if (!stoppedWithin(both, false, 10)) {
                ADD_FAILURE() << "round " << round << ": not both continued";
                return round;
            }
            // A stop taken late would land right after the continue.
            if (anyStoppedWithin(both, 0.05)) return round;
        }
        return 0;
    }

    pid_t supervisor_ = -1;
    pid_t child_ = -1;
};

TEST_F(JobControl, CtrlZToTheGroupStopsBothOnceAndSigcontToTheSupervisorResumesBoth) {
    const pid_t group = supervisor_;
    const int round = roundsLeavingOneStopped([group] { ::kill(-group, SIGTSTP); }, 40);
    EXPECT_EQ(round, 0) << "stopped again after SIGCONT in round " << round;
}

TEST_F(JobControl, SigtstpToTheSupervisorAloneStopsBothAndSigcontResumesBoth) {
    const pid_t supervisor = supervisor_;
    const int round = roundsLeavingOneStopped([supervisor] { ::kill(supervisor, SIGTSTP); }, 20);
    EXPECT_EQ(round, 0) << "stopped again after SIGCONT in round " << round;
}

TEST_F(JobControl, SigtstpToTheChildAloneDoesNotStopIt) {
    // Its supervisor stops it; a stop of its own could outlast the supervisor's SIGCONT.
    ::kill(child_, SIGTSTP);
    EXPECT_FALSE(anyStoppedWithin({child_}, 0.3)) << "the child stopped itself";
}

}  // namespace
