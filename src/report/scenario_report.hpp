// The JSON document of a scenario run (`repro --scenario FILE --json FILE`, or
// `--format json`): schema "repro-scenario-report", version 1, every field documented in
// docs/scenarios.md "The JSON report". Vulkan-free: src/engine/scenario_run.cpp fills it.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
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
    // --timestamps: the GPU time of the mode's own command buffers, seconds, summed over its
    // runs (vk/scenario_recorder.hpp); nullopt without it or where the device gives none.
    std::optional<double> gpuSeconds;
};

// Host phase timings of a scenario run, seconds, summed over modes and --repeat runs (the
// JSON report's "timings"; bench/overhead.sh reads them). `total` ends when the verdict is
// known and before the Vulkan objects are destroyed; `teardown` is that destruction
// (the device, then the instance, where the loader unloads the driver).
struct ScenarioTimings {
    double instanceAndDevice = 0;  // loader, instance, device enumeration and vkCreateDevice
    double pipelines = 0;          // the scenario kernels' pipelines (every run)
    double cpuModel = 0;           // the CPU model (every run)
    double buffersAndUpload = 0;   // each mode's buffers made and written, and its upload submit
    double recording = 0;          // recording and submitting the modes' own command buffers
    double gpuWait = 0;            // the host's waits on the modes' own submits
    double readback = 0;           // the readback submits and the checked bytes copied out
    double verification = 0;       // comparing the checked bytes with the CPU model and split
    double total = 0;              // from the start of the run to the verdict
    double teardown = 0;           // after `total`: destroying the device and the instance
};

// --check-steps on a scenario: split's steps, each compared with the CPU model after its submit
// (docs/scenarios.md "--check-steps on a scenario").
struct ScenarioStepCheckReport {
    uint64_t checked = 0;                  // steps compared
    uint64_t wrong = 0;                    // of them, how many differed
    std::vector<std::string> notChecked;   // the labels of the steps the CPU model cannot know (a user kernel's output)
    std::optional<size_t> firstWrongStep;  // 1-based step number of the first that differed
    std::string firstWrongLabel;           // its label ("step 3 dispatch increment")
    std::string firstWrongDetail;          // its mismatch line (buffer, byte, word, both values, ...)
    uint64_t readbacks = 0;                // the readback submits
    bool completed = true;                 // split ran to its end (false: a failure ended it)
    // With --repeat: the runs whose split was checked, how many of them had a wrong step, and
    // the first of those (1-based), whose steps the fields above describe (else the last run's)
    uint32_t runs = 1, wrongRuns = 0;
    std::optional<uint32_t> firstWrongRun;
};

// --sweep NAME=... on a scenario (docs/scenarios.md "--sweep on a scenario").
struct ScenarioSweepReport {
    std::string parameter;
    struct Row {
        uint32_t value = 0;
        std::vector<std::string> results;  // per mode of `modes`: "ok", "mismatch", "hang", "failed", "not run"
    };
    std::vector<Row> rows;                               // the values run, in order
    std::vector<std::optional<uint32_t>> smallestWrong;  // per mode: the smallest value it was wrong at
};

// --matrix on a scenario: every mode of the file as written and with every barrier step
// replaced by each barrier the matrix applies (blade, full; the controls execution-only and
// none), in the order run.
struct ScenarioMatrixReport {
    struct Row {
        std::string label;                    // "as written", "--barrier full", ...
        std::optional<std::string> barrier;   // the --barrier it applied; nullopt: the file's own
        std::optional<std::string> memory;    // the placement of every buffer it applied; nullopt: the file's own
        std::optional<uint32_t> submitEvery;  // the --submit-every K it applied; nullopt: the file's submits
        std::optional<uint32_t> workFactor;   // the factor every dispatch's work took; nullopt: the file's work
        bool control = false;                 // its barriers are controls: its results do not count
        std::vector<std::string> results;     // per mode of `modes`: "ok", "mismatch", "hang", "failed", "not run"
    };
    std::vector<Row> rows;
};

// --triage on a scenario (docs/scenarios.md "--triage on a scenario"): the experiments run
// on the baseline's failing mode and children/triage.hpp's table, findings and conclusion.
struct ScenarioTriageReport {
    std::string failingMode;  // the baseline's first wrong mode; "" when none was wrong
    struct Experiment {
        std::string hypothesis, label, result, detail;  // "H1", "barrier=full", "correct", one line
    };
    std::vector<Experiment> experiments;
    struct Row {
        std::string hypothesis, experiment, outcome, pointsTo, why;
    };
    std::vector<Row> rows;
    struct Finding {
        std::string hypothesis, description, finding, why;
    };
    std::vector<Finding> hypotheses;
    std::string conclusionKind;  // children/triage.hpp name(ConclusionKind): "synchronization", ...
    std::string conclusionLine;  // "conclusion: ..."
};

struct ScenarioReport {
    std::string version;  // repro's version
    std::string gitHash;  // the commit repro was built from
    std::vector<std::string> commandLine;
    // The scenario file (scenario/scenario.hpp).
    std::string name, source, pattern, expected, file, fileSha256;
    std::string fileText;  // the file's bytes, as parsed (JSON "file_text"; Markdown's rerun block)
    uint64_t fileBytes = 0;
    size_t steps = 0;                    // steps once repeats are expanded
    std::optional<std::string> barrier;  // --barrier B, the barrier every barrier step became
    bool controls = false;               // a barrier or a wait is labelled a control
    std::string controlSteps;  // which: "a barrier", "a wait", "a barrier and a wait" (Scenario::controlSteps)
    // The checked buffers a user kernel's output reaches, compared with split only (file order)
    std::vector<std::string> splitOnly;
    // The checked buffers that hold a value of the built-in chain, compared with the CPU chain
    // within its tolerance (scenario/scenario_chain.hpp): buffer name -> "small[3]", "big[2]"
    std::vector<std::pair<std::string, std::string>> chainValues;
    // One line per [[queue]]: where it landed, or that it fell back to the main queue
    // ("second (family \"other\"): family 1 (TRANSFER), queue 0"); empty without queues.
    std::vector<std::string> queues;
    // --poison: the buffers that start as the sentinel (file order); empty without it
    std::vector<std::string> poisoned;
    std::vector<std::pair<std::string, uint32_t>> parameters;  // [parameters] as in the file (name order)
    std::optional<ScenarioSweepReport> sweep;                  // --sweep; nullopt without it
    std::optional<ScenarioMatrixReport> matrix;                // --matrix; nullopt without it
    std::optional<ScenarioTriageReport> triage;                // --triage; nullopt without it
    uint32_t repeat = 1;                                       // --repeat K
    std::vector<std::string> askedModes;                       // --mode, as names ("split", ...)
    std::optional<std::string> deviceName;                     // nullopt: no device was chosen
    std::optional<std::string> driverName, driverInfo;         // VkPhysicalDeviceDriverProperties; nullopt without them
    uint32_t vendorId = 0, deviceId = 0;
    std::vector<ScenarioModeReport> modes;  // in the order they ran
    ScenarioTimings timings;
    std::optional<ScenarioStepCheckReport> checkSteps;  // --check-steps; nullopt without it (or split did not run)
    bool validation = false;                            // --validation
    uint64_t validationErrors = 0, validationWarnings = 0;
    std::vector<std::string> validationMessages;  // "<severity> <message-id>: <text>"
    std::string verdict;                          // the verdict line as printed ("--- NOT REPRODUCED: ...")
    int exitStatus = 0;                           // the status the verdict gives (before a failed report write)
};

// Reads back from `document` (renderScenarioJson's, as a supervised child published it
// after each mode) the device, the modes that finished and --sweep's and --matrix's rows so
// far (a row's results in the order of report.askedModes, which must be set), into
// `report`; anything else in `document`, or a document of another schema, is ignored. Never
// throws.
void readScenarioProgress(const nlohmann::json& document, ScenarioReport& report);

// The document as JSON text (two-space indent, keys in alphabetical order, a final newline).
// Invalid UTF-8 in a string (a driver's name, a validation message) becomes U+FFFD.
std::string renderScenarioJson(const ScenarioReport& report);

// The report as Markdown for an issue tracker (`--format markdown`; report/markdown.hpp's
// dialect): the verdict, the scenario and its source, the device, one row per mode, the
// validation count and the timings, and the scenario file itself in a collapsed block with
// its SHA-256 and the command that reruns it (rerunCommand), so that the reader of the issue
// can run the same file.
std::string renderScenarioMarkdown(const ScenarioReport& report);

// `repro --scenario NAME.toml` with the options of report.commandLine that shape what runs
// and how it is judged, as given (`--mode`, `--barrier`, `--repeat`, `--validation`,
// `--matrix`, `--triage`, `--reference`, `--submit-every`, `--sweep`, `--poison`,
// `--check-steps`, `--timestamps`, `--timeout`; `--opt=value` kept as written); the file named
// by its base name, as the Markdown report's block gives it to be saved. Left out: where the
// output goes (`--json`, `--format`, `-o`), `--device` (the reader's machine has its own),
// `--invert` and `--expect-driver` (a bisect step's exit statuses), `--print-stream` and
// `--timings` (nothing judged differs).
std::string rerunCommand(const ScenarioReport& report);

}  // namespace repro
