// Signal handlers that record SIGINT/SIGTERM/SIGHUP for the run to notice, the inherited
// dispositions reset, and SIGTSTP and SIGCONT passed on to a child (see interrupt.hpp).
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
// a process of the child's (a --matrix row's repro, in a process group of its own), told too
volatile std::sig_atomic_t gStopGrandchild = 0;
volatile std::sig_atomic_t gChildStopsItself = 1;
volatile std::sig_atomic_t gStopsItself = 1;
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

// Unblocks `signals` on the calling thread; async-signal-safe (a forked child calls it).
void unblock(std::initializer_list<int> signals) {
    sigset_t set;
    sigemptyset(&set);
    for (const int s : signals) sigaddset(&set, s);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

volatile std::sig_atomic_t gForwardedTo = 0;  // a process stopped by its parent: the child told, until SIGCONT
std::atomic<int64_t> gStopBegan{0};           // ... and when its stop began

// SIGTSTP, as interrupt.hpp's "Job control" says. Only async-signal-safe calls.
extern "C" void onStop(int) {
    const int savedErrno = errno;
    const pid_t child = gStopChild;
    const pid_t grandchild = gStopGrandchild;
    if (grandchild > 0) ::kill(grandchild, SIGTSTP);  // it stops itself and its own child
    if (child > 0) ::kill(child, SIGTSTP);
    if (child > 0 && gChildStopsItself == 0) ::kill(child, SIGSTOP);
    if (gStopsItself != 0) {
        const int64_t before = monotonicNanoseconds();
        ::kill(::getpid(), SIGSTOP);
        gStoppedNanoseconds += monotonicNanoseconds() - before;
        if (child > 0) ::kill(child, SIGCONT);
        if (grandchild > 0) ::kill(grandchild, SIGCONT);
    } else {
        gForwardedTo = child;
        int64_t none = 0;
        gStopBegan.compare_exchange_strong(none, monotonicNanoseconds());
    }
    errno = savedErrno;
}

// SIGCONT in a process stopped by its parent: continues the child it passed the stop on to,
// and counts the time stopped. Only async-signal-safe calls.
extern "C" void onContinue(int) {
    const int savedErrno = errno;
    const pid_t child = gForwardedTo;
    gForwardedTo = 0;
    if (child > 0) ::kill(child, SIGCONT);
    const int64_t began = gStopBegan.exchange(0);
    if (began > 0) gStoppedNanoseconds += monotonicNanoseconds() - began;
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

void installInterruptHandlers(Stops stops) {
    for (const int s : {SIGINT, SIGHUP}) {
        if (!ignoredOnEntry(s)) setHandler(s, onInterrupt, 0);  // `nohup repro`: a hangup stays ignored
    }
    setHandler(SIGTERM, onInterrupt, 0);
    setHandler(SIGPIPE, SIG_IGN, 0);
    setHandler(SIGCHLD, SIG_DFL, 0);  // `env --ignore-signal=CHLD`: waitpid must see the child end
    forwardStopsTo(0);
    gStopsItself = stops == Stops::Itself ? 1 : 0;
    setHandler(SIGTSTP, onStop, SA_RESTART);
    if (stops == Stops::ByParent) {
        setHandler(SIGCONT, onContinue, SA_RESTART);
    } else {
        setHandler(SIGCONT, SIG_DFL, 0);
    }
    unblock({SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGTSTP, SIGCONT});
}

void forwardStopsTo(pid_t child, Stops childStops) {
    gChildStopsItself = childStops == Stops::Itself ? 1 : 0;
    gStopChild = child;
}

void forwardStopsToGrandchild(pid_t grandchild) { gStopGrandchild = grandchild; }

void unblockJobControlBeforeExec() { unblock({SIGTSTP, SIGCONT}); }

double stoppedSeconds() { return static_cast<double>(gStoppedNanoseconds.load()) / 1e9; }

int interruptSignal() { return gSignal; }

int interruptCount() { return gCount; }

const char* interruptName(int signal) { return signal == SIGTERM ? "SIGTERM" : "SIGINT"; }

void throwIfInterrupted(const char* where) {
    const int signal = interruptSignal();
    if (signal == 0) return;
    throw Interrupted(interruptName(signal), std::string("during ") + where);
}

}  // namespace repro
