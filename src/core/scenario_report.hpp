// The JSON document of a scenario run (`repro --scenario FILE --json FILE`, or
// `--format json`): schema "repro-scenario-report", version 1, every field documented in
// docs/scenarios.md "The JSON report". Vulkan-free: src/scenario_run.cpp fills it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace repro {

inline constexpr int kScenarioReportSchemaVersion = 1;

// One mode of a scenario run; with --repeat, over all its runs.
struct ScenarioModeReport {
    std::string mode;      // "split", "multipass" or "single"
    uint64_t submits = 0;  // submits of one run of the mode
    // "ok", "mismatch", "hang", "failed" (a submit or readback failed), or "not run" (an
    // earlier mode hung); with --repeat, "mismatch" when any run was wrong.
    std::string result;
    std::optional<std::string>
        detail;              // the mismatch line (the first wrong run's), or why it hung / failed / did not run
    uint32_t runs = 1;       // runs of the mode that completed (--repeat K: K unless the runs ended early)
    uint32_t wrongRuns = 0;  // of them, how many were wrong
    std::optional<uint64_t>
        validationMessages;  // messages while the mode ran (all its runs); nullopt without --validation
};

struct ScenarioReport {
    std::string version;  // repro's version
    std::string gitHash;  // the commit repro was built from
    std::vector<std::string> commandLine;
    // The scenario file (core/scenario.hpp).
    std::string name, source, pattern, expected, file, fileSha256;
    uint64_t fileBytes = 0;
    size_t steps = 0;                    // steps once repeats are expanded
    std::optional<std::string> barrier;  // --barrier B, the barrier every barrier step became
    bool controls = false;               // a barrier is labelled a control
    // One line per [[queue]]: where it landed, or that it fell back to the main queue
    // ("second (family \"other\"): family 1 (TRANSFER), queue 0"); empty without queues.
    std::vector<std::string> queues;
    uint32_t repeat = 1;                                // --repeat K
    std::optional<std::string> deviceName;              // nullopt: no device was chosen
    std::optional<std::string> driverName, driverInfo;  // VkPhysicalDeviceDriverProperties; nullopt without them
    uint32_t vendorId = 0, deviceId = 0;
    std::vector<ScenarioModeReport> modes;  // in the order they ran
    bool validation = false;                // --validation
    uint64_t validationErrors = 0, validationWarnings = 0;
    std::vector<std::string> validationMessages;  // "<severity> <message-id>: <text>"
    std::string verdict;                          // the verdict line as printed ("--- NOT REPRODUCED: ...")
    int exitStatus = 0;                           // the status the verdict gives (before a failed report write)
};

// The document as JSON text (two-space indent, keys in alphabetical order, a final newline).
// Invalid UTF-8 in a string (a driver's name, a validation message) becomes U+FFFD.
std::string renderScenarioJson(const ScenarioReport& report);

}  // namespace repro
