// SIGINT, SIGTERM and SIGHUP during a run: the handler only records the signal; the run
// stops recording new work at the next submit boundary (or host-loop check), waits a
// bounded time for the queue, prints what it has and exits 128 + signal (130 or 143;
// SIGHUP counts as SIGTERM). SIGPIPE is ignored: a closed pipe is a write error, seen by
// the writes that check (output.hpp).
//
// Dispositions inherited on entry: a SIGINT or SIGHUP ignored by whoever started repro
// (`nohup`, a non-interactive shell's background job) stays ignored; SIGTERM is always
// handled. SIGCHLD is reset to its default (ignored, the kernel reaps the children and no
// waitpid sees them end), and the signals the run answers are unblocked.
//
// Job control: the supervised child runs in repro's own process group, so a terminal's
// SIGTSTP, SIGCONT, SIGTTIN and SIGTTOU reach it with the parent. SIGTSTP is handled: the
// process stops itself with SIGSTOP (also where the kernel would drop a default SIGTSTP,
// in an orphaned process group) after passing SIGTSTP on to its child (forwardStopsTo),
// and continues that child once it is continued itself.
#pragma once

#include <sys/types.h>

#include <stdexcept>
#include <string>

namespace repro {

// Installs the handlers (sigaction; no SA_RESTART but for SIGTSTP's), ignores SIGPIPE and
// resets SIGCHLD as above; no child to forward stops to. Call once, early in main, and
// again in a forked child.
void installInterruptHandlers();

// The child a SIGTSTP (Ctrl-Z, `kill -TSTP`) is passed on to from now on, before this
// process stops; once continued, this process sends it SIGCONT. 0: none.
void forwardStopsTo(pid_t child);

// Seconds this process has spent stopped by a SIGTSTP its handler answered (the
// supervisor's call deadlines and runChild's time limit leave them out).
double stoppedSeconds();

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
