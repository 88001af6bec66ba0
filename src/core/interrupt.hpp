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
// SIGTSTP, SIGCONT, SIGTTIN and SIGTTOU reach it with the parent. A SIGTSTP is passed on to
// a child (forwardStopsTo). A process that stops itself (Stops::Itself: repro's top process,
// a repro run as a subprocess) does so with SIGSTOP (also where the kernel would drop a
// default SIGTSTP, in an orphaned process group) and continues its child once continued.
// The supervised child (Stops::ByParent) never stops itself: its supervisor stops it with
// SIGSTOP, which the kernel applies at once and which a later SIGCONT undoes whatever the
// order (POSIX: generating SIGCONT discards every pending stop signal; man 7 signal). One
// Ctrl-Z reaches that child twice (the terminal's and the supervisor's), and when it stopped
// itself from a handler, two of its threads could take the two and the second stop came
// after the supervisor's SIGCONT, leaving the run stopped for good (seen once in CI with
// lavapipe's threads). (A thread of its own that took the signals with sigwait fixed that
// too, but LeakSanitizer could not suspend it at exit and reported false leaks.)
#pragma once

#include <sys/types.h>

#include <cstdint>

#include <stdexcept>
#include <string>

namespace repro {

// Who stops a process on SIGTSTP: itself, or its parent (the supervised child).
enum class Stops : std::uint8_t { Itself, ByParent };

// Installs the handlers (sigaction; no SA_RESTART but for SIGTSTP's and SIGCONT's), ignores
// SIGPIPE, resets SIGCHLD and unblocks the answered signals, as above; no child to forward
// stops to. Call once, early in main, and again in a forked child.
void installInterruptHandlers(Stops stops = Stops::Itself);

// The child a SIGTSTP (Ctrl-Z, `kill -TSTP`) is passed on to from now on, and a SIGCONT
// after it; a child that is stopped by its parent (`childStops` ByParent) is sent SIGSTOP
// too. 0: none.
void forwardStopsTo(pid_t child, Stops childStops = Stops::Itself);
// A process the child started in a process group of its own (a --matrix, --triage or probe
// row: a repro that stops itself and its own child), sent SIGTSTP before the child and
// SIGCONT after it, so that a terminal's Ctrl-Z, or a SIGTSTP to repro alone, stops the GPU
// work of a row too. 0: none. The supervisor learns it from the child (vk/watch.hpp
// rowProcess).
void forwardStopsToGrandchild(pid_t grandchild);

// Unblocks SIGTSTP and SIGCONT in a forked child about to exec another program (the signal
// mask is inherited across execve; nothing here blocks them, a caller's mask might).
// Async-signal-safe.
void unblockJobControlBeforeExec();

// Seconds this process has spent stopped: from a SIGTSTP to the SIGCONT after it (the
// supervisor's call deadlines and runChild's time limit leave them out).
double stoppedSeconds();

// The first signal received, as SIGINT or SIGTERM (SIGHUP reads as SIGTERM), or 0.
// Async-signal-safe to set, cheap to read.
int interruptSignal();

// How many interrupting signals have arrived (a second one ends the supervisor at once).
int interruptCount();

// How messages name an interrupt `signal` (interruptSignal()'s value): "SIGTERM" for SIGTERM
// (SIGHUP reads as it), else "SIGINT".
const char* interruptName(int signal = interruptSignal());

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
