// Runs a process for the end-to-end tests with a wall-clock limit: a test of a stalled
// driver must end, and say that it was killed, instead of hanging the suite.
#pragma once

#include <string>
#include <vector>

namespace repro::test {

struct BoundedResult {
    int status = -1;        // exit status when it exited, else -1
    int signal = 0;         // the signal that ended it, else 0 (SIGKILL after the limit too)
    bool timedOut = false;  // still running at the limit: killed with SIGKILL
    double seconds = 0;     // wall time from start to end
    std::string out, err;
};

// Runs `executable args...` directly (no shell) with `env` ("NAME=value", replacing a
// variable of that name; the later of two for one name wins) added to this process's environment, stdin from
// /dev/null, stdout and stderr captured. After `limitSeconds` the process and everything it started (its own
// process group) get SIGKILL.
BoundedResult runBounded(const std::string& executable, const std::vector<std::string>& args,
                         const std::vector<std::string>& env, double limitSeconds);

// "exit 2", "signal 11 (Segmentation fault)", "killed after 30 s": how it ended, for messages.
std::string describeEnd(const BoundedResult& r);

// How it ended, then its stdout and stderr under headings: a failed expectation's whole story.
std::string shown(const BoundedResult& r);

// No layer and no simulated driver: the environment of a run on the machine's own driver.
inline const std::vector<std::string> kNoSimulation = {
    "VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE="};

// The file names of the scenario files in `dir` (the shipped ones: scenarios/*.toml), sorted; and one
// as a GoogleTest parameter name ("kompute-196-increment-chain.toml" -> "kompute_196_increment_chain").
std::vector<std::string> scenarioFiles(const std::string& dir);
std::string parameterName(const std::string& file);

}  // namespace repro::test
