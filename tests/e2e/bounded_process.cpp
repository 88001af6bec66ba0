// Bounded process runner for the end-to-end tests (bounded_process.hpp).
#include "bounded_process.hpp"

#include <algorithm>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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

std::string nameOf(const std::string& entry) { return entry.substr(0, entry.find('=')); }

// This process's environment with `overrides` replacing or adding variables; of two
// overrides of one variable the later wins.
std::vector<std::string> environmentWith(const std::vector<std::string>& overrides) {
    std::vector<std::string> all;
    for (char** e = environ; *e; ++e) all.emplace_back(*e);
    for (const auto& o : overrides) {
        std::erase_if(all, [&](const std::string& entry) { return nameOf(entry) == nameOf(o); });
        all.push_back(o);
    }
    return all;
}

// In the child: its own process group, stdio redirected, then exec. Never returns.
[[noreturn]] void execChild(const std::string& executable, const std::vector<std::string>& args,
                            const std::vector<std::string>& env, const std::string& out, const std::string& err) {
    setpgid(0, 0);
    const int in = open("/dev/null", O_RDONLY);
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(127);
    std::vector<char*> argv{const_cast<char*>(executable.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (const auto& v : env) envp.push_back(const_cast<char*>(v.c_str()));
    envp.push_back(nullptr);
    execve(executable.c_str(), argv.data(), envp.data());
    _exit(127);
}

}  // namespace

BoundedResult runBounded(const std::string& executable, const std::vector<std::string>& args,
                         const std::vector<std::string>& env, double limitSeconds) {
    static int counter = 0;
    const auto dir = std::filesystem::temp_directory_path() /
                     ("repro-bounded-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(dir);
    const std::vector<std::string> environment = environmentWith(env);
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) execChild(executable, args, environment, (dir / "out").string(), (dir / "err").string());
    setpgid(pid, pid);  // also here, so that a kill at once still reaches the group
    BoundedResult r;
    int raw = 0;
    for (;;) {
        const pid_t done = waitpid(pid, &raw, WNOHANG);
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (done == pid || done < 0) break;
        if (r.seconds > limitSeconds) {
            r.timedOut = true;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &raw, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
    if (WIFSIGNALED(raw)) r.signal = WTERMSIG(raw);
    r.out = slurp(dir / "out");
    r.err = slurp(dir / "err");
    std::filesystem::remove_all(dir);
    return r;
}

std::string describeEnd(const BoundedResult& r) {
    if (r.timedOut) {
        return "killed after " + std::to_string(static_cast<int>(r.seconds)) + " s (still running)";
    }
    if (r.signal) return "signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) + ")";
    return "exit " + std::to_string(r.status);
}

std::string shown(const BoundedResult& r) { return describeEnd(r) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err; }

std::vector<std::string> scenarioFiles(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (e.path().extension() == ".toml") out.push_back(e.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string parameterName(const std::string& file) {
    std::string name = file.substr(0, file.find('.'));
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

}  // namespace repro::test
