// Signal handlers that record SIGINT/SIGTERM/SIGHUP for the run to notice, the inherited
// dispositions reset, and SIGTSTP forwarded to a child (see interrupt.hpp).
#include "core/interrupt.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace repro {
namespace {

volatile std::sig_atomic_t gSignal = 0;
volatile std::sig_atomic_t gCount = 0;
volatile std::sig_atomic_t gStopChild = 0;  // pid_t is int on Linux
std::atomic<int64_t> gStoppedNanoseconds{0};
static_assert(std::atomic<int64_t>::is_always_lock_free, "read and written in a signal handler");

extern "C" void onInterrupt(int signal) {
    if (gSignal == 0) gSignal = signal == SIGHUP ? SIGTERM : signal;
    gCount = gCount + 1;
}

int64_t monotonicNanoseconds() {
    timespec t{};
    ::clock_gettime(CLOCK_MONOTONIC, &t);
    return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

// Stops the child, then this process (SIGSTOP cannot be caught: the process stops on the
// way out of kill); runs on after SIGCONT and continues the child. Only async-signal-safe
// calls.
extern "C" void onStop(int) {
    const int savedErrno = errno;
    const pid_t child = gStopChild;
    if (child > 0) ::kill(child, SIGTSTP);
    const int64_t before = monotonicNanoseconds();
    ::kill(::getpid(), SIGSTOP);
    gStoppedNanoseconds += monotonicNanoseconds() - before;
    if (child > 0) ::kill(child, SIGCONT);
    errno = savedErrno;
}

void setHandler(int signal, void (*handler)(int), int flags) {
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = flags;
    sigaction(signal, &action, nullptr);
}

bool ignoredOnEntry(int signal) {
    struct sigaction current {};
    return sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN;
}

}  // namespace

void installInterruptHandlers() {
    for (const int s : {SIGINT, SIGHUP}) {
        if (!ignoredOnEntry(s)) setHandler(s, onInterrupt, 0);  // `nohup repro`: a hangup stays ignored
    }
    setHandler(SIGTERM, onInterrupt, 0);
    setHandler(SIGPIPE, SIG_IGN, 0);
    setHandler(SIGCHLD, SIG_DFL, 0);  // `env --ignore-signal=CHLD`: waitpid must see the child end
    forwardStopsTo(0);
    setHandler(SIGTSTP, onStop, SA_RESTART);
    sigset_t answered;
    sigemptyset(&answered);
    for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGTSTP, SIGCONT}) sigaddset(&answered, s);
    sigprocmask(SIG_UNBLOCK, &answered, nullptr);
}

void forwardStopsTo(pid_t child) { gStopChild = child; }

double stoppedSeconds() { return static_cast<double>(gStoppedNanoseconds.load()) / 1e9; }

int interruptSignal() { return gSignal; }

int interruptCount() { return gCount; }

void throwIfInterrupted(const char* where) {
    const int signal = interruptSignal();
    if (signal == 0) return;
    throw Interrupted(signal == SIGTERM ? "SIGTERM" : "SIGINT", std::string("during ") + where);
}

}  // namespace repro
