// Running on a pseudo-terminal (see terminal.hpp).
#include "terminal.hpp"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

namespace repro::test {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void drain(int master, std::string& seen, double seconds) {
    const auto start = std::chrono::steady_clock::now();
    while (secondsSince(start) < seconds) {
        pollfd p{.fd = master, .events = POLLIN};
        if (::poll(&p, 1, 20) <= 0) continue;
        char buffer[4096];
        const ssize_t n = ::read(master, buffer, sizeof buffer);
        if (n <= 0) return;  // EIO: the terminal's last writer is gone
        seen.append(buffer, static_cast<size_t>(n));
    }
}

TerminalResult runOnTerminal(const std::string& executable, const std::vector<std::string>& args,
                             const std::vector<std::string>& env, double limitSeconds) {
    std::vector<char*> argv{const_cast<char*>(executable.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    winsize size{.ws_row = 24, .ws_col = 120, .ws_xpixel = 0, .ws_ypixel = 0};
    int master = -1;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, &size);
    if (pid < 0) return {};
    if (pid == 0) {
        for (const std::string& e : env) {
            const size_t eq = e.find('=');
            if (eq == std::string::npos) continue;
            if (eq + 1 == e.size()) {
                ::unsetenv(e.substr(0, eq).c_str());
            } else {
                ::setenv(e.substr(0, eq).c_str(), e.c_str() + eq + 1, 1);
            }
        }
        ::execv(executable.c_str(), argv.data());
        ::_exit(127);
    }
    TerminalResult r;
    const auto start = std::chrono::steady_clock::now();
    int raw = 0;
    while (::waitpid(pid, &raw, WNOHANG) == 0) {
        if (secondsSince(start) > limitSeconds) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &raw, 0);
            break;
        }
        drain(master, r.seen, 0.1);
    }
    drain(master, r.seen, 0.5);
    ::close(master);
    if (WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
    return r;
}

}  // namespace repro::test
