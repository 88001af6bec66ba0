// Process helper for the end-to-end tests.
#include "process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace repro::test {
namespace {

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

ProcessResult runProcess(const std::string& executable, const std::vector<std::string>& args,
                         const std::vector<std::string>& env) {
    static int counter = 0;
    const auto dir = std::filesystem::temp_directory_path() /
                     ("repro-e2e-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(dir);
    std::string command = "env";
    for (const auto& e : env) command += " " + quote(e);
    command += " " + quote(executable);
    for (const auto& a : args) command += " " + quote(a);
    command += " >" + quote((dir / "out").string()) + " 2>" + quote((dir / "err").string()) +
               " </dev/null";
    const int raw = std::system(command.c_str());
    ProcessResult r;
    if (raw != -1 && WIFEXITED(raw)) {
        r.status = WEXITSTATUS(raw);
        // sh reports a child killed by signal N as 128+N; repro's own statuses are below 128.
        r.signaled = r.status >= 128;
    } else {
        r.signaled = true;
    }
    r.out = slurp(dir / "out");
    r.err = slurp(dir / "err");
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

}  // namespace repro::test
