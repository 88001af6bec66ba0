// fork and execve with the output sent to a log file, the child bound to its parent's life
// (PR_SET_PDEATHSIG), a time limit and signal forwarding.
#include "core/subprocess.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include "core/interrupt.hpp"

extern char** environ;

namespace repro {
namespace {

// This process's environment with `env`'s NAME=VALUE entries set over it, as NAME=VALUE
// strings sorted by name (entries without '=' are dropped).
std::vector<std::string> mergedEnvironment(const std::vector<std::string>& env) {
    std::map<std::string, std::string> vars;
    const auto set = [&](const std::string& entry) {
        const auto eq = entry.find('=');
        if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
    };
    for (char** e = environ; e && *e; ++e) set(*e);
    for (const std::string& entry : env) set(entry);
    std::vector<std::string> envStrings;
    for (const auto& [k, v] : vars) envStrings.push_back(k + "=" + v);
    return envStrings;
}

// In the forked child, only async-signal-safe calls: runChild's set-up (subprocess.hpp, man 2
// prctl), stdin from /dev/null; 127 when any of it fails, as a shell reports a command it cannot run.
[[noreturn]] void execChild(pid_t parent, const char* logPath, char* const* argv, char* const* envp) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
    // Its own process group: a terminal's SIGINT reaches it once, forwarded by its parent
    // (it never touches the terminal: its output is the log, its input /dev/null).
    ::setpgid(0, 0);
    const int log = ::open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (log < 0 || null < 0 || ::dup2(log, STDOUT_FILENO) < 0 || ::dup2(log, STDERR_FILENO) < 0 ||
        ::dup2(null, STDIN_FILENO) < 0) {
        ::_exit(127);
    }
    unblockJobControlBeforeExec();
    ::execve(argv[0], argv, envp);
    ::_exit(127);
}

}  // namespace

ChildResult runChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                     const std::string& logPath, double timeoutSeconds, const std::function<void(pid_t)>& started) {
    ChildResult result;
    std::vector<std::string> envStrings = mergedEnvironment(env);
    std::vector<char*> envp, args;
    for (auto& s : envStrings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argvCopy = argv;
    for (auto& s : argvCopy) args.push_back(s.data());
    args.push_back(nullptr);

    if (::access(args[0], X_OK) != 0) {  // what posix_spawn would have said; after fork it is only 127
        result.error = std::strerror(errno);
        return result;
    }
    const pid_t parent = ::getpid();
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid < 0) {
        result.error = std::strerror(errno);
        return result;
    }
    if (pid == 0) execChild(parent, logPath.c_str(), args.data(), envp.data());
    result.started = true;
    forwardStopsTo(pid);  // a repro child stops its own child and itself
    if (started) started(pid);
    const double stoppedBefore = stoppedSeconds();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() -
               (stoppedSeconds() - stoppedBefore);
    };
    bool forwarded = false;
    int wstatus = 0;
    for (;;) {
        const pid_t done = ::waitpid(pid, &wstatus, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) break;
        if (!forwarded && interruptSignal() != 0) {
            ::kill(pid, SIGTERM);
            forwarded = true;
            result.interrupted = true;
        }
        if (forwarded && interruptCount() > 1) ::kill(pid, SIGKILL);  // a second interrupt: the row ends at once
        if (!result.timedOut && elapsed() > timeoutSeconds) {
            ::kill(pid, SIGKILL);
            result.timedOut = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    forwardStopsTo(0);
    if (started) started(0);
    result.seconds = elapsed();
    if (WIFEXITED(wstatus)) result.status = WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus)) result.signal = WTERMSIG(wstatus);
    return result;
}

std::string selfExecutable(const std::string& fallback) {
    std::error_code ec;
    return std::filesystem::is_symlink("/proc/self/exe", ec) ? std::string("/proc/self/exe") : fallback;
}

}  // namespace repro
