// Ctrl-C (SIGINT) and SIGTERM during a run: the handler only records the signal; the
// run stops recording new work at the next submit boundary, waits a bounded time for
// the queue, prints what it has and exits 128 + signal (130 or 143).
#pragma once

namespace repro {

// Installs the handlers (sigaction, no SA_RESTART). Call once, early in main.
void installInterruptHandlers();

// The signal received (SIGINT or SIGTERM), or 0. Async-signal-safe to set, cheap to read.
int interruptSignal();

// Seconds the host still waits for the queue after an interrupt before abandoning it.
inline constexpr double kInterruptDrainSeconds = 10.0;

}  // namespace repro
