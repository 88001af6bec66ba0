// Signal handlers that record SIGINT/SIGTERM/SIGHUP for the run to notice, the inherited
// dispositions reset, and SIGTSTP and SIGCONT taken by a thread of its own and passed on to
// a child (see interrupt.hpp).
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
#include <system_error>
#include <thread>

namespace repro {
namespace {

volatile std::sig_atomic_t gSignal = 0;
volatile std::sig_atomic_t gCount = 0;
volatile std::sig_atomic_t gStopChild = 0;  // pid_t is int on Linux
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

// Stops the child, then this process (SIGSTOP cannot be caught: the process stops on the
// way out of kill); runs on after SIGCONT and continues the child. The fallback where no
// thread can be started: a handler, in whichever thread the kernel picks. Only
// async-signal-safe calls.
extern "C" void onStop(int) {
    const int savedErrno = errno;
    const pid_t child = gStopChild;
    if (child > 0) ::kill(child, SIGTSTP);
    if (child > 0 && gChildStopsItself == 0) ::kill(child, SIGSTOP);
    const int64_t before = monotonicNanoseconds();
    ::kill(::getpid(), SIGSTOP);
    gStoppedNanoseconds += monotonicNanoseconds() - before;
    if (child > 0) ::kill(child, SIGCONT);
    errno = savedErrno;
}

sigset_t jobControlSignals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTSTP);
    sigaddset(&set, SIGCONT);
    return set;
}

// Whether a SIGCONT has arrived and waits to be taken.
bool continuePending() {
    sigset_t pending;
    sigemptyset(&pending);
    return sigpending(&pending) == 0 && sigismember(&pending, SIGCONT) == 1;
}

// The thread that takes SIGTSTP and SIGCONT, blocked in every other thread (see
// interrupt.hpp for why). Stops and continues are passed on to the child once each, however
// many SIGTSTPs one Ctrl-Z delivers; the time from the first SIGTSTP to the SIGCONT counts
// as stopped.
void takeJobControl(std::atomic<bool>* running) {
    const sigset_t wanted = jobControlSignals();
    pid_t forwardedTo = 0;
    int64_t stoppedAt = 0;
    running->store(true);
    running->notify_one();
    for (;;) {
        int signal = 0;
        if (sigwait(&wanted, &signal) != 0) continue;
        if (signal == SIGCONT) {
            if (forwardedTo > 0) ::kill(forwardedTo, SIGCONT);
            forwardedTo = 0;
            if (stoppedAt > 0) gStoppedNanoseconds += monotonicNanoseconds() - stoppedAt;
            stoppedAt = 0;
            continue;
        }
        const pid_t child = gStopChild;
        if (child > 0 && forwardedTo == 0) {
            ::kill(child, SIGTSTP);
            if (gChildStopsItself == 0) ::kill(child, SIGSTOP);
            forwardedTo = child;
        }
        if (stoppedAt == 0) stoppedAt = monotonicNanoseconds();
        // A SIGCONT generated after the SIGTSTP was taken must not be answered by a stop
        // (nothing would continue it); one generated before discarded the SIGTSTP.
        if (gStopsItself != 0 && !continuePending()) ::kill(::getpid(), SIGSTOP);
    }
}

// Blocks SIGTSTP and SIGCONT in the calling thread (and so in every thread it starts from
// now on) and starts the thread that takes them, once a process (a forked child has only
// the thread that forked it: it starts its own). Returns once that thread runs its loop: a
// fork while it was still starting could copy a lock it held into the child, locked for
// good (AddressSanitizer's allocator lock, taken by its thread start-up: GCC 12's runtime has
// no fork handler for it; seen as a hung child in the sanitize build). In its loop it waits
// in sigwait and calls only kill. False when no thread could be started.
bool startJobControlThread() {
    static pid_t startedIn = 0;
    static std::atomic<bool> running{false};
    if (startedIn == ::getpid()) return true;
    const sigset_t set = jobControlSignals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    running.store(false);
    try {
        std::thread(takeJobControl, &running).detach();
    } catch (const std::system_error&) {
        pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
        return false;
    }
    running.wait(false);
    startedIn = ::getpid();
    return true;
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
    setHandler(SIGTSTP, SIG_DFL, 0);
    forwardStopsTo(0);
    gStopsItself = stops == Stops::Itself ? 1 : 0;
    sigset_t answered;
    sigemptyset(&answered);
    for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&answered, s);
    if (!startJobControlThread()) {
        setHandler(SIGTSTP, onStop, SA_RESTART);
        sigaddset(&answered, SIGTSTP);
        sigaddset(&answered, SIGCONT);
    }
    pthread_sigmask(SIG_UNBLOCK, &answered, nullptr);
}

void forwardStopsTo(pid_t child, Stops childStops) {
    gChildStopsItself = childStops == Stops::Itself ? 1 : 0;
    gStopChild = child;
}

void unblockJobControlBeforeExec() {
    const sigset_t set = jobControlSignals();
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

double stoppedSeconds() { return static_cast<double>(gStoppedNanoseconds.load()) / 1e9; }

int interruptSignal() { return gSignal; }

int interruptCount() { return gCount; }

void throwIfInterrupted(const char* where) {
    const int signal = interruptSignal();
    if (signal == 0) return;
    throw Interrupted(signal == SIGTERM ? "SIGTERM" : "SIGINT", std::string("during ") + where);
}

}  // namespace repro
