// Runs an executable for the end-to-end tests and captures what it says.
#pragma once

#include <string>
#include <vector>

namespace repro::test {

struct ProcessResult {
    int status = -1;        // exit status; -1 if it did not exit normally
    bool signaled = false;  // ended by a signal (the time limit's SIGKILL included)
    int signal = 0;         // that signal
    bool timedOut = false;  // killed after the time limit
    double seconds = 0;     // wall time
    long peakRssKiB = 0;    // the child's peak resident set (wait4's ru_maxrss), KiB
    std::string out, err;
};

// Runs `executable args...` (no shell; a name without a slash is looked up on PATH) with `env` ("NAME=value" entries replace or add
// variables) in its own process group, stdin from /dev/null, stdout and stderr captured
// through temporary files. After `limitSeconds` the whole group gets SIGKILL.
ProcessResult runProcess(const std::string& executable, const std::vector<std::string>& args,
                         const std::vector<std::string>& env = {}, double limitSeconds = 600);

// How it ended (exit status, killed at the limit, wall time), then its stdout and stderr under
// headings: a failed expectation's whole story.
std::string shown(const ProcessResult& r);

// Whether `needle` occurs in `haystack`, and how many times (overlapping occurrences count).
bool contains(const std::string& haystack, const std::string& needle);
size_t count(const std::string& haystack, const std::string& needle);

// Lines of `text` (without their '\n').
std::vector<std::string> lines(const std::string& text);

}  // namespace repro::test
