// SIGINT, SIGTERM and SIGHUP during a run: the handler only records the signal; the run
// stops recording new work at the next submit boundary (or host-loop check), waits a
// bounded time for the queue, prints what it has and exits 128 + signal (130 or 143;
// SIGHUP counts as SIGTERM). SIGPIPE is ignored: a closed pipe is a write error, seen by
// the writes that check (output.hpp).
#pragma once

namespace repro {

// Installs the handlers (sigaction, no SA_RESTART) and ignores SIGPIPE. Call once, early
// in main, and again in a forked child.
void installInterruptHandlers();

// The first signal received, as SIGINT or SIGTERM (SIGHUP reads as SIGTERM), or 0.
// Async-signal-safe to set, cheap to read.
int interruptSignal();

// How many interrupting signals have arrived (a second one ends the supervisor at once).
int interruptCount();

// Seconds the host still waits for the queue after an interrupt before abandoning it.
inline constexpr double kInterruptDrainSeconds = 10.0;

}  // namespace repro
