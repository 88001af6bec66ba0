// The supervisor's clock for the child's call deadlines (src/children/supervisor.cpp): seconds in
// which the child could have made progress, not wall time. A stretch in which the child
// was stopped (SIGSTOP, SIGTSTP, a debugger's ptrace stop: state T or t in
// /proc/<pid>/stat) does not count, nor a stretch in which the supervisor itself did not
// run (both stopped, a container paused, the machine suspended): it shows as one poll of
// the supervisor taking far longer than its timeout, and counts as at most
// kMaxWatchedStepSeconds. So only a child that was free to run and did not return from a
// call is said to have stalled. Vulkan-free.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string_view>

namespace repro {

// The most one sample of WatchedClock adds, seconds. The supervisor samples every 50 ms;
// a gap longer than this is time the supervisor was not running.
inline constexpr double kMaxWatchedStepSeconds = 0.5;

// Seconds of the child's watched time, from samples of the wall clock.
class WatchedClock {
  public:
    // `wallSeconds`: the supervisor's monotonic clock now; `childStopped`: the child is
    // stopped now. Returns the watched time so far: the first sample is 0; each later one
    // adds the wall time since the previous sample, capped at kMaxWatchedStepSeconds, and
    // adds nothing when the child was stopped at either sample.
    double sample(double wallSeconds, bool childStopped);

  private:
    std::optional<double> lastWall_;
    bool lastStopped_ = false;
    double watched_ = 0;
};

// The state letter of a /proc/<pid>/stat line ("42 (repro) T 1 ..."): the first field after
// the last ')' (the command name may contain spaces and parentheses). nullopt when absent.
std::optional<char> processStateOf(std::string_view statLine);

// Whether process `pid` is stopped now: state T (stopped by a signal) or t (tracing stop).
// False when /proc/<pid>/stat cannot be read (the process has ended).
bool processStopped(pid_t pid);

}  // namespace repro
