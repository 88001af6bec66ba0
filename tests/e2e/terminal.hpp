// Running repro on a pseudo-terminal (forkpty, glibc's <pty.h>), for what it does only when
// its output is a terminal: job control (e2e/signals_test.cpp) and the progress line
// (e2e/output_test.cpp).
#pragma once

#include <string>
#include <vector>

namespace repro::test {

// Reads what the pseudo-terminal's `master` has, for up to `seconds`, appending it to
// `seen`; returns early when the terminal's last writer is gone (EIO).
void drain(int master, std::string& seen, double seconds);

struct TerminalResult {
    int status = -1;   // the exit status, -1 when it did not exit by itself
    std::string seen;  // every byte written to the terminal, stdout and stderr together
};

// Runs `executable args...` as the foreground job of a fresh pseudo-terminal (stdin,
// stdout and stderr all the terminal), with `env` ("NAME=value"; "NAME=" alone unsets
// NAME) applied to this process's environment in the child; killed after `limitSeconds`.
TerminalResult runOnTerminal(const std::string& executable, const std::vector<std::string>& args,
                             const std::vector<std::string>& env, double limitSeconds);

}  // namespace repro::test
