// Process helper for the end-to-end tests.
#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

extern char** environ;

namespace repro::test {
namespace {

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> mergedEnvironment(const std::vector<std::string>& extra) {
    std::map<std::string, std::string> vars;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry(*e);
        const auto eq = entry.find('=');
        if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    for (const std::string& entry : extra) {
        const auto eq = entry.find('=');
        if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    std::vector<std::string> out;
    for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
    return out;
}

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void execChild(const char* exe, char* const* argv, char* const* envp, const char* out, const char* err) {
    setpgid(0, 0);
    const int in = open("/dev/null", O_RDONLY);
    const int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || o < 0 || e < 0) _exit(127);
    dup2(in, STDIN_FILENO);
    dup2(o, STDOUT_FILENO);
    dup2(e, STDERR_FILENO);
    signal(SIGPIPE, SIG_DFL);
    execvpe(exe, argv, envp);  // a bare name is looked up on PATH
    _exit(127);
}

}  // namespace

ProcessResult runProcess(const std::string& executable, const std::vector<std::string>& args,
                         const std::vector<std::string>& env, double limitSeconds) {
    static int counter = 0;
    const auto dir = std::filesystem::temp_directory_path() /
                     ("repro-e2e-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(dir);
    const std::string outPath = (dir / "out").string(), errPath = (dir / "err").string();
    std::vector<std::string> argStrings{executable};
    argStrings.insert(argStrings.end(), args.begin(), args.end());
    std::vector<std::string> envStrings = mergedEnvironment(env);
    std::vector<char*> argv, envp;
    for (auto& a : argStrings) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : envStrings) envp.push_back(e.data());
    envp.push_back(nullptr);

    ProcessResult r;
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) execChild(executable.c_str(), argv.data(), envp.data(), outPath.c_str(), errPath.c_str());
    if (pid < 0) {
        r.err = std::string("fork: ") + std::strerror(errno);
        return r;
    }
    setpgid(pid, pid);  // also in the parent, so the group exists before any kill
    int wstatus = 0;
    for (;;) {
        struct rusage usage {};
        const pid_t done = wait4(pid, &wstatus, WNOHANG, &usage);
        if (done == pid) {
            r.peakRssKiB = usage.ru_maxrss;
            break;
        }
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!r.timedOut && elapsed > limitSeconds) {
            kill(-pid, SIGKILL);
            r.timedOut = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(-pid, SIGKILL);  // anything the process left behind in its group
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (WIFEXITED(wstatus)) r.status = WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus)) {
        r.signaled = true;
        r.signal = WTERMSIG(wstatus);
    }
    r.out = slurp(outPath);
    r.err = slurp(errPath);
    std::filesystem::remove_all(dir);
    return r;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string line;
    while (std::getline(ss, line)) out.push_back(line);
    return out;
}

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

size_t count(const std::string& haystack, const std::string& needle) {
    size_t n = 0;
    for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
    return n;
}

std::string shown(const ProcessResult& r) {
    return "exit " + std::to_string(r.status) + (r.timedOut ? " (killed at the time limit)" : "") + " after " +
           std::to_string(r.seconds) + " s\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
}

}  // namespace repro::test
