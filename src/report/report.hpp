// The run's report as data: what text, Markdown and JSON render (docs/contract.md,
// "Output"). Vulkan-free;
// the Vulkan side fills it in, renderers only read it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "core/shape.hpp"
#include "forensics/system_facts.hpp"
#include "reference/stats.hpp"
#include "report/verdict.hpp"

namespace repro {

// Host-side phase timings in seconds (--timings; always in JSON). `total` ends when the
// verdict is known; `teardown` follows it: destroying the Vulkan objects, the device and
// the instance (the driver unloads), measured after the text report was printed, so it is
// in Markdown and JSON only.
struct PhaseTimings {
    double instanceAndDevice = 0, pipelines = 0, buffersAndUpload = 0, recording = 0, gpuWait = 0, readback = 0,
           verification = 0, total = 0;
    // The host's reference before the modes: the CPU chain (--reference cpu) or a file's CPU
    // model (its expected bytes, and the CPU chain for its chain values, joined when judged).
    double reference = 0;
    // After `total`: all of the teardown, and of it the device's part (the chain's buffers,
    // memory, pipelines and vkDestroyDevice); the rest is the instance's (vkDestroyInstance,
    // where the loader unloads the driver).
    double teardown = 0, teardownDevice = 0;
    double teardownInstance() const { return teardown > teardownDevice ? teardown - teardownDevice : 0.0; }
};

// One mode's outcome as the report shows it.
struct ModeReport {
    ModeResult result;  // classification, reason, stats, submits, wall time
    std::string role;   // "under test", "reference (run after)", ...
    // GPU time from timestamp queries (--timestamps), seconds; empty when not measured.
    std::vector<double> dispatchGpuSeconds;  // in chain order: conv-T 1, slice 1, conv-T 2...
    std::vector<double> submitGpuSeconds;
    std::optional<double> modeGpuSeconds;
    // What repro's canary after the mode got ("VK_SUCCESS", "VK_ERROR_DEVICE_LOST"; engine/stages.hpp
    // checkCanary); nullopt when it did not run (a submit or the readback had failed).
    std::optional<std::string> canary;
};

struct ValidationSummary {
    bool enabled = false;
    uint64_t errors = 0, warnings = 0;
    std::vector<std::string> messages;
};

// The experiment settings of the run (docs/experiments.md): what multipass and single
// recorded and how the buffers and pipelines were made.
struct ExperimentReport {
    std::string barrier = "blade";
    uint32_t submitEvery = 0;  // 0: no --submit-every
    std::optional<double> splitMiB;
    std::optional<double> splitMs;  // --split-ms T, milliseconds
    bool hostWait = true;
    std::string memory = "blade";
    uint32_t dispatchRepeat = 1;
    std::string profile = "default";
    std::optional<std::string> spirvDir;
    std::optional<uint32_t> dropDispatch;  // --drop-dispatch K (a positive control)
    // Every flag that changes blade's stream, as typed (cli/run_changes.hpp): the one list
    // the header, the Markdown and the JSON share.
    std::vector<std::string> changes;
    bool control = false;  // a positive control: --barrier execution-only|none, --drop-dispatch, a file's own
    std::vector<std::string> quirks;  // blade-exact's quirks in force
    // --stress: its parts in force (scenario/stress.hpp stressParts); empty: not stressed
    std::vector<std::string> stress;
};

// --print-stream: one mode's command stream as the tracer printed it (src/vk/trace.hpp).
struct StreamReport {
    std::string title;               // "mode single, N=2: blade's stream (...)"
    std::vector<std::string> calls;  // one Vulkan call per line
};

// --capture-gfxr and --capture-rgp: a capture the run took, or why it took none.
struct CaptureReport {
    std::string tool;                // "gfxreconstruct" or "rgp"
    std::string path;                // the capture file, or the folder the .rgp files go to; "" when none
    std::vector<std::string> files;  // rgp: the .rgp files that appeared in `path` during the capture
    std::string note;                // how it was taken, or why not (one sentence)
};

// The scenario file a run recorded (docs/scenarios.md): where it came from and what repro
// made of it. A run of the built-in chain has none.
struct ScenarioFacts {
    std::string name, source, pattern, expected;  // the file's own keys
    std::string file;                             // the path as given on the command line
    uint64_t fileBytes = 0;                       // its size as read
    std::string fileSha256;                       // of those bytes, 64 hex digits
    std::string fileText;                         // those bytes, so that a reader can rerun the file
    size_t steps = 0;                             // once repeats are expanded
    // What is labelled a control: "a barrier", "a wait", "a buffer without its ownership
    // transfers", joined; "" for none (scenario::Scenario::controlSteps)
    std::string controlSteps;
    // The checked buffers compared with split only (a user kernel's output, a float kernel's
    // outside the chain's values), in file order
    std::vector<std::string> splitOnly;
    // The checked buffers holding a value of the built-in chain, compared with the CPU chain
    // within its tolerance: buffer name -> "small[3]"
    std::vector<std::pair<std::string, std::string>> chainValues;
    // One line per [[queue]]: where it landed, or that it fell back to the main queue
    std::vector<std::string> queues;
    // One line per [[image]], in file order: "img: 64x16 r32ui, optimal tiling, checked"
    std::vector<std::string> images;
    std::vector<std::string> poisoned;  // --poison: the buffers that start as the sentinel
    std::vector<std::pair<std::string, uint32_t>>
        parameters;  // [parameters] as the file writes them (name order); a sweep's values are its points' roles
};

// A mode's runs past the first kListedRuns of --repeat (engine/stages.hpp): counted, not
// listed one by one in RunReport::modes, so a long --repeat keeps a flat memory and report.
struct FoldedRuns {
    Mode mode = Mode::Split;
    std::string point;       // the sweep value's label ("N=5"); empty for one point
    uint32_t firstRun = 0;   // the first folded run's number (1-based)
    uint32_t runs = 0;       // how many runs were folded
    uint32_t wrongRuns = 0;  // of them, wrong (zero, mismatch, non-finite, killed)
    bool identical = true;   // every one's final bytes had the digest of the mode's first run
};

// --mutants: how one mutant's child went (children/mutants.hpp).
struct MutantReport {
    std::string step;       // the file's step number ("5"), or "every" for the chain's barriers
    std::string what;       // "step 5 (compute -> compute)"
    std::string weakening;  // core/variant.hpp name(Weakening): "execution-only"
    std::string rerun;      // the flag that runs it alone: "--mutant 5:execution-only", "--barrier none"
    uint32_t runs = 0;      // runs of multipass and single that completed
    uint32_t wrong = 0;     // of them, wrong (zero, mismatch, nonfinite, unwritten, killed)
    std::string outcome;    // "killed", "survived", "hung" (counted as killed), "not-run"
    std::string reason;     // hung, not-run: why (the child's line); "" otherwise
};
struct MutantsReport {
    std::vector<MutantReport> mutants;
    std::vector<std::string> skipped;  // weakenings left out and why ("step 5 no-src-access: ...")
    uint32_t killed = 0;               // killed or hung
    uint32_t notRun = 0;
    // Why no mutant ran: the run as written did not come out right ("the file as written ended
    // GPU HANG: mode single hung: ..."); "" when they ran.
    std::string withheld;
};

struct RunReport {
    std::string version, gitHash;
    std::vector<std::string> commandLine;
    EnvironmentReport environment;
    LoaderReport loader;
    std::optional<DeviceReport> device;
    std::string preset;
    Shape shape;
    ChainSizes sizes;
    uint32_t chainLength = 0;
    ExperimentReport experiment;
    std::string referenceName;  // "split", "cpu", "none", "split, run after ..."
    std::vector<ModeReport> modes;
    std::vector<FoldedRuns> foldedRuns;  // --repeat past the listed runs, per mode and point
    ValidationSummary validation;
    PhaseTimings timings;
    Verdict verdict;
    std::vector<StreamReport> streams;      // --print-stream only
    std::optional<ScenarioFacts> scenario;  // a file's run only
    std::vector<CaptureReport> captures;    // --capture-gfxr, --capture-rgp
    std::optional<MutantsReport> mutants;   // --mutants only
};

}  // namespace repro
