// The option table, one function per --help section. Help texts are written for the
// renderer in help.cpp: plain ASCII sentences that it wraps to the terminal's width.
#include "cli/option_table.hpp"

#include <algorithm>

#include "core/shape.hpp"

// Tables of designated initializers, laid out by hand, not by clang-format.
// clang-format off
namespace repro {
namespace {

using R = RawArgs;
constexpr auto kChoices = ValueCompletion::Choices;

// The ten shape fields: each replaces one field of --preset.
constexpr ShapeOption kShapeOptions[] = {
    {"--batch", "batch size (spectrostream: 1)", &R::batch, &Shape::batch},
    {"--channels", "channels C, in and out of every conv-T (spectrostream: 128)", &R::channels, &Shape::channels},
    {"--height", "height H of small[] (spectrostream: 60)", &R::height, &Shape::height},
    {"--width", "width W of small[] (spectrostream: 480)", &R::width, &Shape::width},
    {"--kernel-h", "conv-T kernel height (spectrostream: 3)", &R::kernelH, &Shape::kernelH},
    {"--kernel-w", "conv-T kernel width (spectrostream: 4)", &R::kernelW, &Shape::kernelW},
    {"--stride-h", "conv-T stride in height (spectrostream: 1)", &R::strideH, &Shape::strideH},
    {"--stride-w", "conv-T stride in width (spectrostream: 2)", &R::strideW, &Shape::strideW},
    {"--pad-h", "conv-T padding in height (spectrostream: 0)", &R::padH, &Shape::padH},
    {"--pad-w", "conv-T padding in width (spectrostream: 0)", &R::padW, &Shape::padW},
};

void addShapeOptions(std::vector<OptionSpec>& out) {
    for (const ShapeOption& f : kShapeOptions) {
        out.push_back({.longName = f.longName,
                       .placeholder = "N",
                       .help = f.help,
                       .value = f.value,
                       .notForFile = "the built-in chain's shape (a file names its own: shape = ...)"});
    }
}

OptionSection chainAndShapeSection() {
    OptionSection s{.title = "Chain and shape", .note = {}, .options = {}};
    s.options = {
        {.longName = "--mode", .placeholder = "MODE",
         .help = "split (2N submits, each waited for), multipass (one submit, blade's pass barrier "
                 "before every dispatch), single (one submit, one pass), or all: split, multipass, "
                 "then single, the mode most likely to hang the GPU",
         .defaultText = "all", .choices = {"split", "multipass", "single", "all"},
         .completion = kChoices, .value = &R::mode},
        {.longName = "--chain", .shortName = 'n', .placeholder = "N",
         .help = "chain length in conv-T + slice steps; the environment variable N is read as "
                 "well, and the option wins",
         .defaultText = "6", .value = &R::chain,
         .notForFile = "the built-in chain's length (a file's steps are its own; --sweep NAME=... sweeps a "
                       "parameter of the file)"},
        {.longName = "--preset", .placeholder = "PRESET",
         .help = "the shapes: spectrostream (the original's: 14 MiB small and 29 MiB big buffers), "
                 "small or tiny (well under a second on a CPU driver); each option below replaces "
                 "one of its fields",
         .defaultText = "spectrostream", .choices = presetNames(), .completion = kChoices,
         .value = &R::preset, .notForFile = "the built-in chain's shape (a file names its own: shape = ...)"},
    };
    addShapeOptions(s.options);
    return s;
}

OptionSection deviceSection() {
    return {.title = "Device", .note = {}, .options = {
        {.longName = "--device", .placeholder = "INDEX|NAME",
         .help = "an index from --list-devices, or a case-insensitive part of the device's name",
         .defaultText = "the first device that can run the repro, blade's rule",
         .value = &R::device},
        {.longName = "--list-devices",
         .help = "list every Vulkan device and whether it can run the repro, then exit",
         .flag = &R::listDevices},
        {.longName = "--queue", .placeholder = "KIND|INDEX",
         .help = "the queue family to submit to: gfx (the first with graphics and compute), "
                 "compute (the first with compute and no graphics) or a family index",
         .defaultText = "family 0, which blade hard-codes", .choices = {"gfx", "compute"},
         .onlyChoices = false, .completion = kChoices, .value = &R::queue},
        {.longName = "--expect-driver", .placeholder = "NAME",
         .help = "cannot test (125) unless the device's driver matches NAME, a case-insensitive "
                 "part of its driverName or VkDriverId name (radv, MESA_RADV), so that a bisect "
                 "never tests the wrong driver",
         .value = &R::expectDriver},
        {.longName = "--validation",
         .help = "the Khronos validation layer with synchronization validation; every message "
                 "is printed on stderr and counted",
         .flag = &R::validation},
    }};
}

OptionSection runSection() {
    return {.title = "Run and reference", .note = {}, .options = {
        {.longName = "--reference", .placeholder = "REF",
         .help = "what each mode is compared with: auto or split (split's result, bit for bit; "
                 "split runs after the modes under test when --mode leaves it out), cpu (the "
                 "chain in float64 on the host, with a derived float32 tolerance) or none (only "
                 "the zero and non-finite checks, the original's); on a scenario it says how "
                 "conv-T and slice outputs are checked besides split: auto (the CPU chain up to "
                 "2^32 multiply-adds), cpu (always), split (never; none is refused)",
         .defaultText = "auto", .choices = {"auto", "split", "cpu", "none"},
         .completion = kChoices, .value = &R::reference},
        {.longName = "--check-steps",
         .help = "after each mode, read back every intermediate buffer in separate submits and "
                 "name the first dispatch (a file's: step) whose output differs from the reference",
         .flag = &R::checkSteps},
        {.longName = "--poison",
         .help = "fill every buffer the chain (or file) writes with a NaN sentinel (0x7fc0dead) before "
                 "each mode, so output that was never written is reported unwritten, not zero",
         .flag = &R::poison},
        {.longName = "--repeat", .placeholder = "R",
         .help = "run each mode R times: the reproduction rate, and whether the runs are "
                 "bit-identical; past a mode's first 20 runs the report counts runs rather "
                 "than listing each",
         .defaultText = "1", .value = &R::repeat},
        {.longName = "--sweep", .placeholder = "A..B|NAME=...",
         .help = "every chain length from A to B (or N=A..B), in place of -n; with --scenario "
                 "NAME=A..B or NAME=V1,V2,... over one of the file's [parameters]: a table point x "
                 "mode and the smallest point that reproduces in each mode",
         .value = &R::sweep},
        {.longName = "--timeout", .placeholder = "SECONDS",
         .help = "how long the host waits for one submit before calling it a GPU hang, 1 to 1e9",
         .defaultText = "120 s plus, per full-size conv-T in the submit, 60 s on a GPU or "
                        "1800 s on a CPU driver (a file: plus each work step's budget)",
         .value = &R::timeout},
        {.longName = "--drop-dispatch", .placeholder = "K",
         .help = "positive control: leave dispatch K out of multipass and single (step s's conv-T "
                 "is 2s-1, its slice 2s; in a file, its K-th dispatch step), so that the checker must "
                 "call them wrong",
         .value = &R::dropDispatch},
        {.longName = "--dump-dir", .placeholder = "DIR",
         .help = "write each mode's final small[N] to DIR/MODE.f32 (with --sweep DIR/MODE-nN.f32), "
                 "raw little-endian float32; a file's checked buffers to DIR/MODE-BUFFER.bin (DIR is "
                 "created if missing)",
         .completion = ValueCompletion::Directory, .value = &R::dumpDir},
        {.longName = "--print-stream",
         .help = "print the exact command stream of each selected mode, one call per line, and "
                 "exit without running it",
         .flag = &R::printStream},
        {.longName = "--invert",
         .help = "exit 0 when the bug reproduces and 1 when it does not, every other status "
                 "unchanged: for bisecting the fix",
         .flag = &R::invert},
    }};
}

OptionSection reportSection() {
    return {.title = "Report", .note = {}, .options = {
        {.longName = "--format", .placeholder = "FORMAT",
         .help = "text, markdown (one block to paste into a Mesa issue) or json (the report of "
                 "docs/report-schema.md); with markdown or json and no -o, stdout holds only that "
                 "document and the text goes to stderr; csv: --merge-reports's table only",
         .defaultText = "text", .choices = {"text", "markdown", "json", "csv"}, .completion = kChoices,
         .value = &R::format},
        {.longName = "--output", .shortName = 'o', .placeholder = "FILE",
         .help = "write the document --format names (text, markdown or json) to FILE in place of "
                 "stdout; the text report stays on stdout",
         .completion = ValueCompletion::File,
         .value = &R::output},
        {.longName = "--json", .placeholder = "FILE",
         .help = "also write the JSON report to FILE, beside any --format (--triage and "
                 "--watchdog-probe: their own documents)",
         .completion = ValueCompletion::File,
         .value = &R::json},
        {.longName = "--merge-reports",
         .help = "followed by FILE...: run nothing, read those JSON run reports (of the chain or "
                 "a file) and triage documents (from many machines) and print one table of them in --format (csv too), grouped by "
                 "outcome; a file that cannot be merged gets one line on stderr and exit 1, the "
                 "others are printed",
         .completion = ValueCompletion::File, .flag = &R::mergeReports},
        {.longName = "--timings",
         .help = "host phase timings in the text report (the JSON report always has them)",
         .flag = &R::timings},
        {.longName = "--timestamps",
         .help = "GPU time per dispatch, submit and mode from timestamp queries (adds query "
                 "commands to the stream)",
         .flag = &R::timestamps},
        {.longName = "--trace", .placeholder = "FILE",
         .help = "write a timeline of the run to FILE as Trace Event Format JSON, for "
                 "ui.perfetto.dev or chrome://tracing: the host phases of each mode, each submit "
                 "and its wait, and with --timestamps every dispatch on a GPU track "
                 "(docs/trace.md)",
         .completion = ValueCompletion::File, .value = &R::trace},
        {.longName = "--breadcrumbs",
         .help = "a VK_AMD_buffer_marker write after every dispatch: on a hang, the last dispatch "
                 "the GPU finished",
         .flag = &R::breadcrumbs},
        {.longName = "--labels",
         .help = "debug-utils names on every object and labels around every dispatch and "
                 "barrier, for captures and hang dumps",
         .flag = &R::labels},
        {.longName = "--verbose", .shortName = 'v',
         .help = "the whole header: the ids, extensions, features and memory types of the "
                 "device, the host, the kernel driver's parameters, the driver environment, the "
                 "notes and the original repro's size and workgroup lines (the Markdown and JSON "
                 "reports always have them)",
         .flag = &R::verbose},
        {.longName = "--quiet", .shortName = 'q',
         .help = "no header: only the result lines, the verdict and errors", .flag = &R::quiet},
    }};
}

// The experiments that change how every mode is set up (memory, work, shaders), after those
// that change how multipass and single are recorded.
void addSetUpOptions(std::vector<OptionSpec>& out) {
    const std::vector<OptionSpec> setUp = {
        {.longName = "--memory", .placeholder = "PLACE",
         .help = "where small[] and big[] live: blade (its Shared and Device classes), "
                 "device-local, host-visible (write-combined where offered) or host-cached",
         .defaultText = "blade",
         .choices = {"blade", "device-local", "host-visible", "host-cached"},
         .completion = kChoices, .value = &R::memory},
        {.longName = "--dispatch-repeat", .placeholder = "R",
         .help = "record each conv-T R times, 1 to 64: more GPU time per submit, the same output "
                 "and bytes written",
         .defaultText = "1", .value = &R::dispatchRepeat,
         .notForFile = "it records the built-in chain's conv-T R times; --work-scale K lengthens a "
                       "file's dispatches"},
        {.longName = "--work-scale", .placeholder = "K",
         .help = "with --scenario: every dispatch's work loop K times as long, 1 to 4096: more GPU "
                 "time per submit, the same bytes written",
         .defaultText = "1", .value = &R::workScale,
         .notForChain = "it multiplies a file's work loops; --dispatch-repeat lengthens the built-in chain"},
        {.longName = "--stress",
         .help = "with --scenario: run under stress (MC Mutants): multipass and single prime the "
                 "caches with the file's inputs and stream memory traffic beside its work, and the "
                 "kernel set's workgroups run shuffled; what a correct driver computes is unchanged",
         .flag = &R::stress,
         .notForChain = "the built-in chain records blade's calls exactly; a file's stream takes the "
                        "stressing kernels (repro --write-scenario writes the chain as a file)"},
        {.longName = "--profile", .placeholder = "PROFILE",
         .help = "default: valid Vulkan, the default; blade-exact: blade 72c30c1's set-up with "
                 "its quirks, listed when it runs (not validation-clean)",
         .choices = {"default", "blade-exact"}, .completion = kChoices,
         .value = &R::profile,
         .notForFile = "blade-exact is blade's own set-up of the built-in chain"},
        {.longName = "--spirv", .placeholder = "DIR",
         .help = "DIR/conv_t.spv and DIR/slice.spv (naga's output, for example) in place of the "
                 "built-in SPIR-V; both are checked before use",
         .completion = ValueCompletion::Directory, .value = &R::spirv,
         .notForFile = "it replaces the built-in chain's two modules; a file names its own kernels "
                       "([[kernel]] spirv = ...)"},
    };
    out.insert(out.end(), setUp.begin(), setUp.end());
}

OptionSection experimentsSection() {
    OptionSection s{.title = "Experiments",
            .note = "They change how multipass and single are recorded; split keeps blade's "
                    "stream, as the reference. --memory, --profile and --spirv apply to every mode.",
            .options = {
        {.longName = "--barrier", .placeholder = "KIND",
         .help = "what orders each dispatch after the one before: blade (its pass barrier in "
                 "multipass, its compute barrier in single), sync2 (vkCmdPipelineBarrier2, shader "
                 "storage write to read and write), buffer (a VkBufferMemoryBarrier on the buffer "
                 "just written), full (ALL_COMMANDS, MEMORY_WRITE to MEMORY_READ|MEMORY_WRITE), or "
                 "the controls that are invalid on purpose, execution-only and none",
         .defaultText = "blade",
         .choices = {"blade", "sync2", "buffer", "full", "execution-only", "none"},
         .completion = kChoices, .value = &R::barrier},
        {.longName = "--mutant", .placeholder = "STEP:KIND",
         .help = "a file's step STEP (a barrier, or a wait) weakened one way, run as a labelled control: "
                 "removed, execution-only, no-src-access or dst-stage-misses (docs/mutants.md)",
         .value = &R::mutant,
         .notForChain = "it weakens a step of a file; the built-in chain's mutants are --barrier execution-only "
                        "and --barrier none"},
        {.longName = "--submit-every", .placeholder = "K",
         .help = "close and submit the command buffer after every K dispatches",
         .value = &R::submitEvery},
        {.longName = "--split-mib", .placeholder = "MIB",
         .help = "close and submit once the bytes written since the last submit pass MIB MiB",
         .value = &R::splitMib},
        {.longName = "--split-ms", .placeholder = "MS",
         .help = "close and submit once the predicted GPU time of the dispatches since the last "
                 "submit passes MS milliseconds",
         .value = &R::splitMs},
        {.longName = "--host-wait",
         .help = "between the submits of --submit-every, --split-mib or --split-ms, the host "
                 "waits for each one (the default)",
         .flag = &R::hostWait},
        {.longName = "--no-host-wait",
         .help = "between those submits, the host waits only for the last one",
         .flag = &R::noHostWait},
    }};
    addSetUpOptions(s.options);
    return s;
}

// What a driver developer asks for beside the report (docs/forensics.md "Captures").
OptionSection captureSection() {
    return {.title = "Captures", .note = {}, .options = {
        {.longName = "--capture-gfxr", .placeholder = "FILE",
         .help = "capture the modes that run with the GFXReconstruct layer (package gfxreconstruct) "
                 "to exactly FILE, for gfxrecon-replay and gfxrecon-info; the whole run, set-up "
                 "included (docs/forensics.md)",
         .completion = ValueCompletion::File, .value = &R::captureGfxr},
        {.longName = "--capture-rgp",
         .help = "on RADV, run each wrong mode again in a child with Mesa's Radeon GPU Profiler "
                 "trace per submit (MESA_VK_TRACE=rgp MESA_VK_TRACE_PER_SUBMIT=1) and say where "
                 "the .rgp files went; elsewhere one line says why not",
         .flag = &R::captureRgp},
    }};
}

OptionSection multiRunSection() {
    return {.title = "Multi-run",
            .note = "Each runs repro again in child processes, at -n N, and prints a table.",
            .options = {
        {.longName = "--matrix",
         .help = "the documented variant set (28 rows: mode x barrier x submit structure x memory "
                 "x profile); only the valid variants decide the exit status; with --scenario, the "
                 "file's own set (barriers, memory, submit structure, work)",
         .flag = &R::matrix},
        {.longName = "--triage",
         .help = "test each hypothesis about the cause and conclude with what the evidence "
                 "supports; with --scenario, the experiments a file allows",
         .flag = &R::triage},
        {.longName = "--watchdog-probe",
         .help = "a positive control for the kernel's GPU job timeout: what a submit that runs "
                 "past it looks like on this machine",
         .flag = &R::watchdogProbe},
        {.longName = "--driver-env-sweep",
         .help = "re-run under each driver setting documented to change synchronization for "
                 "this device's driver, and say which make the bug disappear",
         .flag = &R::driverEnvSweep},
        {.longName = "--all-drivers",
         .help = "with --driver-env-sweep: every driver's settings, not only this device's",
         .flag = &R::allDrivers},
        {.longName = "--mutants",
         .help = "after a run that comes out right, each weakening of each barrier (a file's barrier steps "
                 "and waits; the chain's barriers) as a control in a child of its own, and the mutation score",
         .flag = &R::mutants},
        {.longName = "--keep-logs",
         .help = "keep the folder of the children's logs and reports after the run",
         .flag = &R::keepLogs},
    }};
}

OptionSection generalSection() {
    return {.title = "General", .note = {}, .options = {
        {.longName = "--help", .shortName = 'h', .help = "print this help and exit (-h: one screen of the most used options)",
         .flag = &R::help},
        {.longName = "--version", .shortName = 'V', .help = "print the version and exit",
         .flag = &R::version},
        {.longName = "--bash-completion",
         .help = "print a bash completion script generated from this table, and exit",
         .flag = &R::bashCompletion, .hidden = true},
    }};
}

OptionSection gtestSection() {
    return {.title = "GoogleTest protocol",
            .note = "For harnesses that run GoogleTest binaries (deqp-runner's gtest-runner, CMake's "
                    "gtest_discover_tests): one suite per scenario file and the built-in chain, one test "
                    "per mode, each run as a child repro (docs/ci.md).",
            .options = {
        {.longName = "--gtest_list_tests",
         .help = "list the tests in GoogleTest's format and exit",
         .flag = &R::gtestListTests},
        {.longName = "--gtest_filter", .placeholder = "FILTER",
         .help = "run the tests whose Suite.test name matches PATTERN (GoogleTest's: '*', '?', "
                 "':' between patterns, '-' before the excluded ones); exit 1 if one failed",
         .value = &R::gtestFilter},
        {.longName = "--gtest_output", .placeholder = "SPEC",
         .help = "SPEC is xml:FILE: also write GoogleTest's JUnit XML to FILE (xml:DIR/ writes "
                 "DIR/repro.xml, xml alone test_detail.xml)",
         .completion = ValueCompletion::File, .value = &R::gtestOutput},
        {.longName = "--gtest_also_run_disabled_tests",
         .help = "accepted as GoogleTest binaries accept it (CTest passes it); repro has no disabled tests",
         .flag = &R::gtestAlsoRunDisabled, .hidden = true},
        {.longName = "--scenario-dir", .placeholder = "DIR",
         .help = "the scenario files of the GoogleTest suites: DIR/*.toml instead of the shipped scenarios/",
         .completion = ValueCompletion::Directory, .value = &R::scenarioDir},
    }};
}

OptionSection scenarioSection() {
    return {.title = "Scenarios", .note = {}, .options = {
        {.longName = "--scenario", .placeholder = "FILE",
         .help = "run the scenario file FILE (docs/scenarios.md) instead of blade's chain: its steps "
                 "in each mode, every checked buffer compared with the CPU model and split; every "
                 "option applies to it but the built-in chain's own (-n, the shape, --dispatch-repeat, "
                 "--profile, --spirv), which are refused with the reason",
         .completion = ValueCompletion::File, .value = &R::scenario},
        {.longName = "--list-scenarios",
         .help = "list the scenario files shipped in scenarios/ (the source tree's and the "
                 "installed ones), then exit",
         .flag = &R::listScenarios},
        {.longName = "--write-scenario", .placeholder = "FILE",
         .help = "write the built-in chain of -n and the shape as a scenario file to FILE (blade's "
                 "stream, to edit and run with --scenario), then exit",
         .completion = ValueCompletion::File, .value = &R::writeScenario,
         .notForFile = "it writes the built-in chain as a file"},
    }};
}

}  // namespace

const std::vector<OptionSection>& optionTable() {
    static const std::vector<OptionSection> table = {
        chainAndShapeSection(), deviceSection(),   runSection(),      reportSection(), captureSection(),
        experimentsSection(),   multiRunSection(), scenarioSection(), gtestSection(),  generalSection(),
    };
    return table;
}

std::span<const ShapeOption> shapeOptions() { return kShapeOptions; }

const std::vector<const OptionSpec*>& allOptions() {
    static const std::vector<const OptionSpec*> all = [] {
        std::vector<const OptionSpec*> out;
        for (const OptionSection& section : optionTable()) {
            for (const OptionSpec& spec : section.options) out.push_back(&spec);
        }
        return out;
    }();
    return all;
}

const OptionSpec* findLongOption(std::string_view longName) {
    const auto found = std::ranges::find(allOptions(), longName, &OptionSpec::longName);
    return found == allOptions().end() ? nullptr : *found;
}

const OptionSpec* findShortOption(char shortName) {
    const auto found = std::ranges::find(allOptions(), shortName, &OptionSpec::shortName);
    return shortName == 0 || found == allOptions().end() ? nullptr : *found;
}

std::string optionLabel(const OptionSpec& spec) {
    if (spec.shortName != 0 && spec.value != nullptr) {
        return std::string{'-', spec.shortName} + "/" + std::string(spec.longName);
    }
    return std::string(spec.longName);
}

}  // namespace repro
// clang-format on
