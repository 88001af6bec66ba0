// Signal handlers that record SIGINT/SIGTERM/SIGHUP for the run to notice.
#include "core/interrupt.hpp"

#include <csignal>
#include <initializer_list>
#include <string>

namespace repro {
namespace {

volatile std::sig_atomic_t gSignal = 0;
volatile std::sig_atomic_t gCount = 0;

extern "C" void onInterrupt(int signal) {
    if (gSignal == 0) gSignal = signal == SIGHUP ? SIGTERM : signal;
    gCount = gCount + 1;
}

}  // namespace

void installInterruptHandlers() {
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &action, nullptr);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, nullptr);
}

int interruptSignal() { return gSignal; }

int interruptCount() { return gCount; }

void throwIfInterrupted(const char* where) {
    const int signal = interruptSignal();
    if (signal == 0) return;
    throw Interrupted(signal == SIGTERM ? "SIGTERM" : "SIGINT", std::string("during ") + where);
}

}  // namespace repro
