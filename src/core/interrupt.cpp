// Signal handlers that record SIGINT/SIGTERM for the run to notice.
#include "core/interrupt.hpp"

#include <csignal>

namespace repro {
namespace {

volatile std::sig_atomic_t gSignal = 0;

extern "C" void onInterrupt(int signal) { gSignal = signal; }

}  // namespace

void installInterruptHandlers() {
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

int interruptSignal() { return gSignal; }

}  // namespace repro
