// Child processes for --matrix and --driver-env-sweep: each variant runs in its own
// process, so a hang or a crash in one cannot take the others' results with it.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace repro {

struct ChildResult {
    bool started = false;      // the executable was found and the child forked
    int status = -1;           // exit status when it exited normally
    int signal = 0;            // the signal that ended it, else 0
    bool timedOut = false;     // killed (SIGKILL) after the time limit
    bool interrupted = false;  // the parent got SIGINT/SIGTERM while it ran (forwarded as SIGTERM)
    double seconds = 0;        // wall time
    std::string error;         // why it did not start
};

// Runs `argv` (argv[0] is the executable's path; no shell) with the parent's environment
// plus `env` ("NAME=value" entries replace a variable of that name), stdout and stderr both
// appended to the file `logPath`. The child is killed (SIGKILL) if the thread that started
// it dies (PR_SET_PDEATHSIG), so no child outlives a killed parent; it exits 127 when the
// log cannot be opened or the program cannot be executed. Waits at most `timeoutSeconds` (then SIGKILL). When the
// parent has received SIGINT or SIGTERM (core/interrupt.hpp) the child gets SIGTERM and is
// waited for, so its results are flushed; a second interrupt kills it (SIGKILL) at once, so
// that the caller writes what it has without it. The child runs in a process group of its own (a
// terminal's signals reach it only through this process) and a SIGTSTP to this process is
// passed on to it (core/interrupt.hpp); the time stopped does not count against the
// limit. `started`, when given, is called with the child's pid once it runs and with 0 once it
// ended. Never throws for child failures.
ChildResult runChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                     const std::string& logPath, double timeoutSeconds, const std::function<void(pid_t)>& started = {});

// The path a child runs to be this process's executable: "/proc/self/exe" itself, which the
// kernel resolves to this binary's inode even after the file is deleted or replaced (a
// rebuild during a --matrix run); `fallback` (argv[0]) where /proc is not mounted. Linux
// proc(5), /proc/[pid]/exe.
std::string selfExecutable(const std::string& fallback);

}  // namespace repro
