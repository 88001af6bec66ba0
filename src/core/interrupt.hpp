// SIGINT, SIGTERM and SIGHUP during a run: the handler only records the signal; the run
// stops recording new work at the next submit boundary (or host-loop check), waits a
// bounded time for the queue, prints what it has and exits 128 + signal (130 or 143;
// SIGHUP counts as SIGTERM). SIGPIPE is ignored: a closed pipe is a write error, seen by
// the writes that check (output.hpp).
#pragma once

#include <stdexcept>
#include <string>

namespace repro {

// Installs the handlers (sigaction, no SA_RESTART) and ignores SIGPIPE. Call once, early
// in main, and again in a forked child.
void installInterruptHandlers();

// The first signal received, as SIGINT or SIGTERM (SIGHUP reads as SIGTERM), or 0.
// Async-signal-safe to set, cheap to read.
int interruptSignal();

// How many interrupting signals have arrived (a second one ends the supervisor at once).
int interruptCount();

// Thrown by the long host loops (the float64 CPU reference, the per-dispatch check, the
// underflow estimate) when an interrupt has arrived, so that SIGINT/SIGTERM is answered
// within a fraction of a second there as it is at submit boundaries. what(): "SIGTERM
// during WHERE"; where(): "during WHERE". The run ends with 128 + the signal.
class Interrupted : public std::runtime_error {
  public:
    Interrupted(const std::string& signalName, const std::string& where)
        : std::runtime_error(signalName + " " + where), where_(where) {}
    const std::string& where() const { return where_; }

  private:
    std::string where_;
};

// Throws Interrupted naming `where` when an interrupt has arrived; nothing otherwise.
void throwIfInterrupted(const char* where);

// Seconds the host still waits for the queue after an interrupt before abandoning it.
inline constexpr double kInterruptDrainSeconds = 10.0;

}  // namespace repro
