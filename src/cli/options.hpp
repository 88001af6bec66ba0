// Command-line options, parsed with CLI11 from the option table (option_table.hpp) and
// validated up front. Vulkan-free: device-dependent limits are checked later, against the
// device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.hpp"
#include "core/variant.hpp"

namespace repro {

// Where the barriers and submits go (docs/modes.md, "The three modes and what they send to Vulkan";
// docs/blade-stream.md, "Per mode").
enum class Mode { Split, Multipass, Single };
std::string_view name(Mode m);  // "split", "multipass", "single"

// What each mode's final buffer is compared with (--reference).
enum class ReferenceKind {
    Auto,   // split's result; split runs after the others when it was not asked for
    Split,  // the same, said explicitly
    Cpu,    // the host computes the chain (float64) and a derived float32 tolerance
    None,   // zero and non-finite checks only (the original's semantics)
};
std::string_view name(ReferenceKind k);  // "auto", "split", "cpu", "none"

// How the report is written on stdout (--format); Csv for --merge-reports only.
enum class Format { Text, Markdown, Json, Csv };
std::string_view name(Format f);  // "text", "markdown", "json", "csv"

// Bit pattern --poison fills every buffer the chain writes with: a quiet NaN that no
// arithmetic of the chain produces, so an element still holding it was never written.
inline constexpr uint32_t kPoisonPattern = 0x7fc0dead;

// --queue: the queue family the chain is submitted to.
struct QueueChoice {
    enum class Kind {
        Default,  // family 0, as blade hard-codes it (blade-graphics src/vulkan/init.rs:297)
        Gfx,      // --queue gfx: the first family with both GRAPHICS and COMPUTE
        Compute,  // --queue compute: the first family with COMPUTE and without GRAPHICS
        Index,    // --queue INDEX: family `index`, whatever its flags (it must have COMPUTE)
    };
    Kind kind = Kind::Default;
    uint32_t index = 0;  // the family index for Kind::Index; 0 otherwise
    bool operator==(const QueueChoice&) const = default;
};

// --sweep NAME=A..B or NAME=V1,V2,... on a file: the values of one of its [parameters]
// (docs/scenarios.md "--sweep on a file"), each run as the whole file.
struct ParameterSweep {
    std::string parameter;         // the name, as in the file's [parameters]
    std::vector<uint32_t> values;  // in the order given, 1..kMaxParameterSweepValues of them
};
inline constexpr size_t kMaxParameterSweepValues = 1024;

struct Options {
    std::vector<Mode> modes{Mode::Split, Mode::Multipass, Mode::Single};  // in this order
    uint32_t chainLength = 6;                                             // N, steps
    std::string preset = "spectrostream";
    Shape shape{};
    std::optional<std::string> device;  // index or case-insensitive name substring
    bool listDevices = false;
    // --timeout: seconds the host waits for one submit; nullopt = auto, scaled with the
    // submit's work (submitTimeoutSeconds in shape.hpp).
    std::optional<double> timeoutSeconds;
    bool validation = false;
    // Positive control: 1-based dispatch index in chain order (conv-T of step s is
    // 2s-1, its slice 2s) left out of the non-split modes.
    std::optional<uint32_t> dropDispatch;
    // Directory to write each mode's final small[N] into, as <mode>.f32: raw
    // little-endian float32, smallElems values (for scripts and the end-to-end tests).
    std::optional<std::string> dumpDir;
    ReferenceKind reference = ReferenceKind::Auto;
    bool checkSteps = false;  // read back every intermediate buffer, find the first bad dispatch
    bool poison = false;      // fill written buffers with kPoisonPattern instead of zeros
    bool stress = false;      // --stress: a file run under stress (docs/scenarios.md "--stress")
    uint32_t repeat = 1;      // runs per mode
    // --sweep A..B (or N=A..B): every chain length in [first, second]; overrides -n. The
    // built-in chain's; a file's is parameterSweep.
    std::optional<std::pair<uint32_t, uint32_t>> sweep;
    Format format = Format::Text;
    // -o/--output FILE: the document --format names (text, markdown or json) goes to FILE in
    // place of stdout, and the text report stays on stdout (as vulkaninfo's -o).
    std::optional<std::string> output;
    std::optional<std::string> json;  // --json FILE: the JSON report (or document) beside any --format
    // --trace FILE: the run's timeline as Trace Event Format JSON (report/trace_events.hpp),
    // written by the supervisor when the run ends, however it ends.
    std::optional<std::string> trace;
    bool timings = false;      // host phase timings in the text report (always in JSON)
    bool timestamps = false;   // GPU timestamp queries around every dispatch (adds commands)
    bool breadcrumbs = false;  // a marker after every dispatch (VK_AMD_buffer_marker)
    bool labels = false;       // debug-utils object names and command labels
    // --capture-gfxr FILE: the run captured by the GFXReconstruct layer, at exactly FILE
    // (vk/instance.hpp); --capture-rgp: on RADV, a wrong mode run again in a child under
    // Mesa's RGP per-submit trace (engine/captures.hpp). Neither with the multi-run commands.
    std::optional<std::string> captureGfxr;
    bool captureRgp = false;
    std::vector<std::string> commandLine;  // argv as given, for the report

    // Workaround and hypothesis experiments (core/variant.hpp). They change how multipass
    // and single are recorded; split stays blade's 2N waited submits, the reference.
    BarrierKind barrier = BarrierKind::Blade;  // --barrier
    // --barrier was given: on a file every barrier step becomes it (scenario.hpp replaceBarriers),
    // --barrier blade included; without it a file's barriers stay as written.
    bool barrierGiven = false;
    SubmitStructure submit;                     // --submit-every, --split-mib, --[no-]host-wait
    BufferMemory memory = BufferMemory::Blade;  // --memory (split too: buffers are shared)
    uint32_t dispatchRepeat = 1;                // --dispatch-repeat: each conv-T recorded R times
    uint32_t workScale = 1;                     // --work-scale: a file's dispatches' work loops times K
    Profile profile = Profile::Default;         // --profile (split too)
    std::optional<std::string> spirvDir;        // --spirv DIR: conv_t.spv and slice.spv
    bool matrix = false;                        // --matrix: the variant set, as child processes
    bool driverEnvSweep = false;                // --driver-env-sweep: the driver settings, as children
    bool allDrivers = false;                    // --all-drivers: every driver's settings
    // --mutants: after the run, each mutant (a weakened barrier) in a child, and the score
    // (children/mutants.hpp); --mutant STEP:KIND: this run's file with that one mutant, a control.
    bool mutants = false;
    std::optional<MutantSpec> mutant;

    // Which of these go together: cli/options.cpp checkMultiRunRules, checkOtherRules (refusals: docs/bad-input.md).
    // --print-stream: print the exact command stream of each selected mode, one call per line, and exit 0
    // without creating a device's work.
    bool printStream = false;
    // --triage: test each hypothesis about the cause in child processes and conclude; chooses the modes and
    // experiment flags itself (none of them is given).
    bool triage = false;
    // --watchdog-probe: a positive control for the kernel's GPU job timeout, in child
    // processes; chooses the modes and experiment flags itself.
    bool watchdogProbe = false;
    QueueChoice queue;  // --queue gfx|compute|INDEX
    // --expect-driver NAME (non-empty): cannot test (125) unless the chosen device's driver
    // matches NAME, a case-insensitive substring of its driverName or of its VkDriverId name.
    std::optional<std::string> expectDriver;
    // --invert: exit 0 when the bug reproduces (2) and 1 when it does not (0); every other
    // status unchanged.
    bool invert = false;
    bool keepLogs = false;  // --keep-logs: keep the folder of the children's logs and reports
    // --merge-reports FILE...: the report files to merge (report/merge_reports.hpp); non-empty
    // only with --merge-reports, which goes with no other option but --format.
    std::vector<std::string> mergeReports;
    bool verbose = false;  // -v: the whole text header (engine/text_report.hpp, HeaderDetail)
    bool quiet = false;    // -q: no header, only the result lines, the verdict and errors (never with -v)
    // --scenario FILE: run that scenario file instead of blade's chain (docs/scenarios.md); an
    // option that cannot mean anything for a file is refused (option_table.hpp notForFile).
    std::optional<std::string> scenario;
    std::optional<ParameterSweep> parameterSweep;  // --scenario with --sweep NAME=...
    bool listScenarios = false;                    // --list-scenarios: list scenarios/ and exit; alone
    // --write-scenario FILE: the built-in chain of -n and the shape written as a scenario file
    // (scenario/builtin_chain.hpp), then exit; nothing runs.
    std::optional<std::string> writeScenario;
    // The GoogleTest protocol (engine/gtest.hpp): set by --gtest_list_tests, --gtest_filter or
    // --gtest_output; never with --scenario, --mode, a multi-run, the output options or --invert.
    struct Gtest {
        bool list = false;                       // --gtest_list_tests: list and exit
        std::string filter = "*";                // --gtest_filter
        std::optional<std::string> xmlFile;      // --gtest_output=xml:FILE (xml:DIR/ -> DIR/repro.xml)
        std::optional<std::string> scenarioDir;  // --scenario-dir DIR; nullopt: the shipped folder
    };
    std::optional<Gtest> gtest;
};

// The result of parsing: either options to run with, or an exit status and the text
// to print (help and version on stdout with status 0; one error line on stderr with
// status 1).
struct ParseOutcome {
    std::optional<Options> options;
    int exitStatus = 0;
    std::string out;       // for stdout
    std::string err;       // for stderr, one line
    bool version = false;  // --version: `out` is versionText() without the loader's line (main adds it)
};

// Parses argv (argv[0] is the program name). `envChain` is the value of the
// environment variable N, honoured as the original repro did; the -n flag wins.
// `helpWidth`: the columns --help is wrapped to; nullopt: the terminal's (help.hpp helpColumns).
//
// Never throws. A malformed command line (an unknown option, a stray argument, a missing
// or empty value, a value given to a flag, an option given twice) is status 1 whatever
// else it holds, --help and --version included. On a well-formed one, --help prints the
// complete help, -h the one screen (help.hpp renderShortHelp), and -V/--version the version on stdout with status 0, without checking the
// other values. Otherwise every value is checked (integers are plain decimal, numbers
// plain decimal without inf or nan), then the rules between options; the first problem
// is status 1 with one line on err, user text in it quoted (text.hpp quote()).
ParseOutcome parseCommandLine(int argc, const char* const* argv, std::optional<std::string_view> envChain,
                              std::optional<int> helpWidth = std::nullopt);

// "split", "multipass", "single" or "all" to the modes it runs; nullopt if unknown.
std::optional<std::vector<Mode>> parseModes(std::string_view text);

// Whether split is among --mode (a mode under test, or the reference run first).
bool splitAsked(const Options& options);
// Whether split runs after the modes under test, only as their reference (split not among
// --mode, and the reference is split's: --reference auto or split).
bool splitRunsAfter(const Options& options);

// The one line --driver-env-sweep is refused with under a positive control; `which` names the
// control, e.g. "--barrier none or execution-only, --drop-dispatch, --mutant" (cli/options.cpp)
// or "the scenario file labels a step a control" (main.cpp, once the file is read).
std::string driverEnvSweepControlRefusal(std::string_view which);

}  // namespace repro
