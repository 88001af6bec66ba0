// Runs the real repro executable for the end-to-end tests and captures what it says.
#pragma once

#include <string>
#include <vector>

namespace repro::test {

struct ProcessResult {
    int status = -1;        // exit status; -1 if it did not exit normally
    bool signaled = false;  // ended by a signal
    std::string out, err;
};

// Runs `executable args...` through /bin/sh with `env` ("NAME=value" entries) added to
// the environment; stdout and stderr are captured through temporary files.
ProcessResult runProcess(const std::string& executable, const std::vector<std::string>& args,
                         const std::vector<std::string>& env = {});

// Whether `needle` occurs in `haystack`, and how many times (overlapping occurrences count).
bool contains(const std::string& haystack, const std::string& needle);
size_t count(const std::string& haystack, const std::string& needle);

// Lines of `text` (without their '\n').
std::vector<std::string> lines(const std::string& text);

}  // namespace repro::test
