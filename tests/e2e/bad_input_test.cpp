// Every input repro rejects, end to end: the real executable with each bad flag, value,
// environment or installation, checked for its exit status (1 for a usage error,
// 125 for "cannot test here") and its one exact line on stderr. The table generates
// docs/bad-input.md (BadInputDoc below); rows that only a synthetic device list can reach
// (src/vk/physical_device.cpp chooseDevice) are covered by tests/unit/device_choice_test.cpp.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "process.hpp"

#if !defined(REPRO_EXECUTABLE) || !defined(REPRO_FAKE_LOADER_DIR) || !defined(REPRO_BAD_INPUT_DOC)
#error "REPRO_EXECUTABLE, REPRO_FAKE_LOADER_DIR and REPRO_BAD_INPUT_DOC must be defined"
#endif

namespace {

using repro::test::lines;
using repro::test::ProcessResult;
using repro::test::runProcess;

struct Rejection {
    std::string label;  // test name
    std::string where;  // the source that rejects it
    std::vector<std::string> args;
    std::vector<std::string> env;  // "NAME=value"
    int status = 1;
    // The whole stderr line. "…" stands for text from the device (name, limits, heap
    // sizes); the parts around it must appear in order, the first at the start and the
    // last at the end.
    std::string message;
    std::string alsoCoveredBy;  // other tests of the same input
    std::string knownIssue;     // the src/ defect that DISABLED_ the row (empty: enabled)
    bool endToEnd = true;       // false: unreachable on lavapipe, unit-tested only
    std::string situation;      // for the doc, when no command line can produce it
};

void PrintTo(const Rejection& r, std::ostream* os) { *os << r.label; }

std::string fakeLoader(const std::string& kind) {
    return std::string("LD_LIBRARY_PATH=") + REPRO_FAKE_LOADER_DIR + "/" + kind;
}

const std::string kOptions = "src/cli/options.cpp";
const std::string kSyntax = "src/cli/options.cpp checkSyntax";
const std::string kShape = "src/core/shape.cpp";
const std::string kFits = "src/main.cpp checkDeviceFits";
const std::string kDevice = "src/vk/device.cpp";
const std::string kSpirv = "src/core/spirv_module.cpp";
const std::string kPaths = "src/cli/output_paths.cpp";
const std::string kLoaderLog = "src/forensics/loader_log.cpp driverVariableProblem";

std::vector<Rejection> rejections() {
    const std::string u = "e2e.BadInputs/UsageErrors.ExitOneWithOneClearLine/";
    const std::string e = "unit.OptionsExperiments.";
    const std::string n = "unit.OptionsNew.";
    std::vector<Rejection> t = {
        // ---- command-line syntax: one line whatever else is given, --help and --version too ----
        {"unknown_flag",
         kSyntax,
         {"--frobnicate"},
         {},
         1,
         "repro: unknown option '--frobnicate' (see --help)",
         u + "unknown_flag"},
        {"unknown_flag_with_version",
         kSyntax,
         {"--version", "--frobnicate"},
         {},
         1,
         "repro: unknown option '--frobnicate' (see --help)",
         "unit.OptionsSyntax.UnknownOptionsWinOverVersionAndHelp"},
        {"unknown_flag_with_help",
         kSyntax,
         {"--help", "--frobnicate"},
         {},
         1,
         "repro: unknown option '--frobnicate' (see --help)"},
        {"unknown_short_option", kSyntax, {"-x"}, {}, 1, "repro: unknown option '-x' (see --help)"},
        {"unknown_flag_with_control_bytes",
         kSyntax,
         {"--fr\nob\x1b"},
         {},
         1,
         "repro: unknown option '--fr\\nob\\x1b' (see --help)",
         "unit.OptionsQuoting.UserTextIsQuotedWithEscapes"},
        {"unexpected_argument", kSyntax, {"extra"}, {}, 1, "repro: unexpected argument 'extra' (see --help)"},
        {"argument_after_end_of_options",
         kSyntax,
         {"--", "--mode"},
         {},
         1,
         "repro: unexpected argument '--mode' (see --help)"},
        {"mutant_not_step_kind",
         kOptions,
         {"--scenario", "s.toml", "--mutant", "x"},
         {},
         1,
         "repro: --mutant: 'x' is not STEP:KIND (a step number from 1, e.g. 4:execution-only)",
         "e2e.Mutants.BadValuesAreOneLine"},
        {"mutant_unknown_weakening",
         kOptions,
         {"--scenario", "s.toml", "--mutant", "2:bogus"},
         {},
         1,
         "repro: --mutant 2:bogus: unknown weakening 'bogus'; expected removed, execution-only, no-src-access or "
         "dst-stage-misses",
         "e2e.Mutants.BadValuesAreOneLine"},
        {"mutant_without_a_file",
         kOptions,
         {"--mutant", "2:removed"},
         {},
         1,
         "repro: --mutant: only with --scenario: it weakens a step of a file; the built-in chain's mutants are "
         "--barrier execution-only and --barrier none"},
        {"mutant_with_mutants",
         kOptions,
         {"--scenario", "s.toml", "--mutants", "--mutant", "2:removed"},
         {},
         1,
         "repro: --mutants and --mutant: choose one (--mutants runs every --mutant)"},
        {"mutants_with_barrier",
         kOptions,
         {"--mutants", "--barrier", "none"},
         {},
         1,
         "repro: --mutants: weakens the barriers itself; leave out --barrier"},
        {"driver_env_sweep_with_a_control",
         kOptions,
         {"--driver-env-sweep", "--drop-dispatch", "2"},
         {},
         1,
         "repro: --driver-env-sweep: not with a positive control (--barrier none or execution-only, --drop-dispatch, "
         "--mutant): a setting is judged against the driver's own failure, and a control's wrong output is not the "
         "driver's"},
        {"merge_reports_without_files",
         kOptions,
         {"--merge-reports"},
         {},
         1,
         "repro: --merge-reports: no files given (--merge-reports FILE...)",
         "unit.MergeReportsOption.Rejected"},
        {"merge_reports_with_a_run_option",
         kOptions,
         {"--merge-reports", "-n", "3", "report.json"},
         {},
         1,
         "repro: --merge-reports: not with -n/--chain (it runs nothing; only --format applies)",
         "unit.MergeReportsOption.Rejected"},
        {"merge_reports_missing_file",
         "src/report/merge_reports.cpp",
         {"--merge-reports", "/nonexistent/report.json"},
         {},
         1,
         "repro: --merge-reports: '/nonexistent/report.json': cannot read (No such file or directory)",
         "e2e.MergeReports.GoodAndBadFiles"},
        {"missing_value",
         kSyntax,
         {"-n"},
         {},
         1,
         "repro: -n/--chain: missing value (expected N)",
         "unit.OptionsSyntax.MissingValueAtTheEnd"},
        {"flag_with_value", kSyntax, {"--poison=1"}, {}, 1, "repro: --poison: takes no value (got '--poison=1')"},
        {"empty_value_after_equals",
         kSyntax,
         {"--device="},
         {},
         1,
         "repro: --device: empty value (expected INDEX|NAME)",
         "unit.OptionsSyntax.EveryValueOptionRejectsAnEmptyValue"},
        {"empty_value_after_equals_then_value",
         kSyntax,
         {"--drop-dispatch=", "3"},
         {},
         1,
         "repro: --drop-dispatch: empty value (expected K)"},
        {"option_given_twice",
         kOptions,
         {"-n", "2", "-n", "3"},
         {},
         1,
         "repro: -n/--chain: given 2 times; give it once",
         "unit.OptionsSyntax.EveryValueOptionIsGivenOnce"},
        // ---- values that are not what the option takes ----
        {"unknown_mode",
         kOptions,
         {"--mode", "fast"},
         {},
         1,
         "repro: --mode: 'fast' is not one of split, multipass, single, all",
         u + "unknown_mode"},
        {"unknown_mode_with_escape",
         kOptions,
         {"--mode", "\x1b[31mfast"},
         {},
         1,
         "repro: --mode: '\\x1b[31mfast' is not one of split, multipass, single, all"},
        {"unknown_reference",
         kOptions,
         {"--reference", "bogus"},
         {},
         1,
         "repro: --reference: 'bogus' is not one of auto, split, cpu, none",
         "unit.OptionsQuoting.ChoicesAreNamedInMessages"},
        {"unknown_format",
         kOptions,
         {"--format", "yaml"},
         {},
         1,
         "repro: --format: 'yaml' is not one of text, markdown, json, csv"},
        {"n_not_a_number",
         kOptions,
         {"-n", "seven"},
         {},
         1,
         "repro: -n/--chain: 'seven' is not a whole number (decimal digits only)",
         u + "n_not_a_number"},
        {"n_hexadecimal",
         kOptions,
         {"-n", "0x3"},
         {},
         1,
         "repro: -n/--chain: '0x3' is not a whole number (decimal digits only)",
         "unit.OptionsDecimal.EveryIntegerOptionRejectsNonDecimalText"},
        {"n_plus_sign",
         kOptions,
         {"-n", "+5"},
         {},
         1,
         "repro: -n/--chain: '+5' is not a whole number (decimal digits only)"},
        {"n_leading_space",
         kOptions,
         {"-n", " 7"},
         {},
         1,
         "repro: -n/--chain: ' 7' is not a whole number (decimal digits only)"},
        {"drop_dispatch_hexadecimal",
         kOptions,
         {"--drop-dispatch", "0x3"},
         {},
         1,
         "repro: --drop-dispatch: '0x3' is not a whole number (decimal digits only)"},
        {"shape_not_a_number",
         kOptions,
         {"--channels", "abc"},
         {},
         1,
         "repro: --channels: 'abc' is not a whole number (decimal digits only)"},
        {"timeout_not_a_number",
         kOptions,
         {"--timeout", "abc"},
         {},
         1,
         "repro: --timeout: 'abc' is not a decimal number of seconds",
         "unit.OptionsTimeout.NonDecimalNumbersRejected"},
        {"timeout_hex_float",
         kOptions,
         {"--timeout", "0x1p3"},
         {},
         1,
         "repro: --timeout: '0x1p3' is not a decimal number of seconds"},
        {"timeout_inf",
         kOptions,
         {"--timeout", "inf"},
         {},
         1,
         "repro: --timeout: 'inf' is not a decimal number of seconds"},
        // ---- chain length: -n and the environment variable N ----
        {"n_zero", kOptions, {"-n", "0"}, {}, 1, "repro: -n/--chain: must be at least 1 (got 0)", u + "n_zero"},
        {"n_negative",
         kOptions,
         {"-n", "-3"},
         {},
         1,
         "repro: -n/--chain: must be at least 1 (got -3)",
         u + "n_negative"},
        {"n_too_large",
         kOptions,
         {"-n", "4294967296"},
         {},
         1,
         "repro: -n/--chain: 4294967296 is too large (at most 4294967295)"},
        {"env_n_not_a_number",
         kOptions,
         {},
         {"N=abc"},
         1,
         "repro: environment N='abc': not a chain length (a whole number >= 1)",
         u + "env_n_bad"},
        {"env_n_empty", kOptions, {}, {"N="}, 1, "repro: environment N='': not a chain length (a whole number >= 1)"},
        {"env_n_zero", kOptions, {}, {"N=0"}, 1, "repro: environment N: must be at least 1 (got 0)"},
        {"env_n_negative", kOptions, {}, {"N=-2"}, 1, "repro: environment N: must be at least 1 (got -2)"},
        {"env_n_hexadecimal",
         kOptions,
         {},
         {"N=0x3"},
         1,
         "repro: environment N='0x3': not a chain length (a whole number >= 1)"},
        {"env_n_with_newline",
         kOptions,
         {},
         {"N=3\nx"},
         1,
         "repro: environment N='3\\nx': not a chain length (a whole number >= 1)",
         "unit.OptionsQuoting.UserTextIsQuotedWithEscapes"},
        {"env_n_too_large",
         kOptions,
         {},
         {"N=99999999999"},
         1,
         "repro: environment N: 99999999999 is too large (at most 4294967295)"},
        // ---- shape ----
        {"unknown_preset",
         kOptions,
         {"--preset", "huge"},
         {},
         1,
         "repro: --preset: 'huge' is not one of spectrostream, small, tiny",
         "unit.OptionsShape.UnknownPresetIsRejected"},
    };
    for (const char* field :
         {"--batch", "--channels", "--height", "--width", "--kernel-h", "--kernel-w", "--stride-h", "--stride-w"}) {
        std::string label = std::string(field).substr(2) + "_zero";
        for (char& c : label) c = c == '-' ? '_' : c;
        t.push_back({label,
                     kOptions,
                     {field, "0"},
                     {},
                     1,
                     std::string("repro: ") + field + ": must be at least 1 (got 0)",
                     (label == "channels_zero" ? u + "zero_channels; " : std::string()) +
                         "unit.OptionsShape.NegativeAndZeroShapeValuesAreRejected"});
    }
    // Empty values: none runs as if the option were absent (--drop-dispatch "" would run
    // without its control).
    for (const auto& [option, placeholder] :
         std::vector<std::pair<std::string, std::string>>{{"--drop-dispatch", "K"},
                                                          {"--submit-every", "K"},
                                                          {"--split-mib", "MIB"},
                                                          {"--split-ms", "MS"},
                                                          {"--timeout", "SECONDS"},
                                                          {"--batch", "N"},
                                                          {"--pad-w", "N"},
                                                          {"--output", "FILE"},
                                                          {"--json", "FILE"},
                                                          {"--trace", "FILE"},
                                                          {"--queue", "KIND|INDEX"},
                                                          {"--expect-driver", "NAME"}}) {
        std::string label = option.substr(2) + "_empty";
        for (char& c : label) c = c == '-' ? '_' : c;
        const std::string shown = option == "--output" ? "-o/--output" : option;
        t.push_back({label,
                     kOptions,
                     {option, ""},
                     {},
                     1,
                     "repro: " + shown + ": empty value (expected " + placeholder + ")",
                     label == "drop_dispatch_empty" ? "unit.OptionsSyntax.EveryValueOptionRejectsAnEmptyValue" : ""});
    }
    const std::vector<Rejection> more = {
        {"height_negative",
         kOptions,
         {"--height", "-5"},
         {},
         1,
         "repro: --height: must be at least 1 (got -5)",
         u + "negative_height"},
        {"pad_h_negative", kOptions, {"--pad-h", "-1"}, {}, 1, "repro: --pad-h: must be at least 0 (got -1)"},
        {"pad_w_negative", kOptions, {"--pad-w", "-1"}, {}, 1, "repro: --pad-w: must be at least 0 (got -1)"},
        {"shape_value_too_large",
         kOptions,
         {"--width", "4294967296"},
         {},
         1,
         "repro: --width: 4294967296 is too large (at most 4294967295)"},
        {"stride_over_int32",
         kShape,
         {"--stride-h", "2147483648"},
         {},
         1,
         "repro: --stride-h: 2147483648 does not fit conv-T's signed 32-bit arithmetic"},
        {"pad_over_int32",
         kShape,
         {"--pad-w", "2147483648"},
         {},
         1,
         "repro: --pad-w: 2147483648 does not fit conv-T's signed 32-bit arithmetic"},
        {"kernel_over_weight_tile",
         kShape,
         {"--kernel-h", "8", "--kernel-w", "8"},
         {},
         1,
         "repro: shape: kernel 8x8 has 64 weights, more than conv-T's 49-float shared tile",
         u + "kernel_too_big"},
        {"output_too_small_for_crop",
         kShape,
         {"--pad-w", "300"},
         {},
         1,
         "repro: shape: conv-T output 62x362 is too small for slice to crop 60x480 at (1, 1); reduce padding or "
         "grow the kernel or stride",
         u + "padding_too_big"},
        {"output_over_32bit",
         kShape,
         {"--height", "4294967295", "--stride-h", "2"},
         {},
         1,
         "repro: shape: conv-T output 8589934591x962 overflows 32-bit indices"},
        {"batch_x_channels_overflow",
         kShape,
         {"--batch", "65536", "--channels", "65536"},
         {},
         1,
         "repro: shape: batch x channels overflows (65536 x 65536 > 4294967295)"},
        {"small_elements_overflow",
         kShape,
         {"--channels", "65536", "--height", "65536"},
         {},
         1,
         "repro: shape: small element count overflows (65536 x 65536 > 4294967295)",
         u + "huge_elements"},
        {"big_elements_overflow",
         kShape,
         {"--channels", "1", "--height", "60000", "--width", "60000"},
         {},
         1,
         "repro: shape: big element count overflows (60002 x 120002 > 4294967295)"},
        {"weight_elements_overflow",
         kShape,
         {"--channels", "70000"},
         {},
         1,
         "repro: shape: weight element count overflows (70000 x 70000 > 4294967295)"},
        // ---- other options ----
        {"timeout_zero",
         kOptions,
         {"--timeout", "0"},
         {},
         1,
         "repro: --timeout: must be at least 1 second (got 0): a shorter wait calls a submit that is still running a "
         "GPU hang",
         u + "bad_timeout"},
        {"timeout_under_a_second",
         kOptions,
         {"--timeout", "0.001"},
         {},
         1,
         "repro: --timeout: must be at least 1 second (got 0.001): a shorter wait calls a submit that is still "
         "running a GPU hang",
         "unit.OptionsTimeout.UnderOneSecondIsRejectedWithTheReason"},
        {"timeout_negative",
         kOptions,
         {"--timeout", "-1"},
         {},
         1,
         "repro: --timeout: must be at least 1 second (got -1): a shorter wait calls a submit that is still running a "
         "GPU hang"},
        {"timeout_over_1e9",
         kOptions,
         {"--timeout", "1e10"},
         {},
         1,
         "repro: --timeout: must be at most 1e9 seconds (got 1e10)"},
        {"timeout_nan",
         kOptions,
         {"--timeout", "nan"},
         {},
         1,
         "repro: --timeout: 'nan' is not a decimal number of seconds"},
        {"drop_dispatch_zero",
         kOptions,
         {"--drop-dispatch", "0"},
         {},
         1,
         "repro: --drop-dispatch: 0 is outside 1..12 (2 dispatches per step)"},
        {"drop_dispatch_past_chain",
         kOptions,
         {"-n", "2", "--drop-dispatch", "5"},
         {},
         1,
         "repro: --drop-dispatch: 5 is outside 1..4 (2 dispatches per step)",
         u + "drop_out_of_range"},
        {"drop_dispatch_past_sweep_start",
         kOptions,
         {"--sweep", "1..3", "--drop-dispatch", "5"},
         {},
         1,
         "repro: --drop-dispatch: 5 is outside 1..2 (2 dispatches per step)"},
        {"device_empty", kOptions, {"--device", ""}, {}, 1, "repro: --device: empty value (expected INDEX|NAME)"},
        {"dump_dir_empty", kOptions, {"--dump-dir", ""}, {}, 1, "repro: --dump-dir: empty value (expected DIR)"},
        {"sweep_not_a_range",
         kOptions,
         {"--sweep", "3"},
         {},
         1,
         "repro: --sweep: '3' is not a range A..B of chain lengths"},
        {"sweep_hexadecimal",
         kOptions,
         {"--sweep", "0x1..3"},
         {},
         1,
         "repro: --sweep: '0x1..3' is not a range A..B of chain lengths",
         "unit.OptionsDecimal.SweepEndsAreDecimalToo"},
        {"sweep_end_not_a_number",
         kOptions,
         {"--sweep", "1..x"},
         {},
         1,
         "repro: --sweep: '1..x' is not a range A..B of chain lengths"},
        {"sweep_start_zero", kOptions, {"--sweep", "0..3"}, {}, 1, "repro: --sweep start: must be at least 1 (got 0)"},
        {"sweep_reversed", kOptions, {"--sweep", "5..3"}, {}, 1, "repro: --sweep: start 5 is after end 3"},
        {"repeat_zero", kOptions, {"--repeat", "0"}, {}, 1, "repro: --repeat: must be at least 1 (got 0)"},
        // ---- experiments (docs/experiments.md) ----
        {"barrier_unknown",
         kOptions,
         {"--barrier", "strong"},
         {},
         1,
         "repro: --barrier: 'strong' is not one of blade, sync2, buffer, full, execution-only, none",
         e + "BadValuesAreOneLineUsageErrors"},
        {"memory_unknown",
         kOptions,
         {"--memory", "vram"},
         {},
         1,
         "repro: --memory: 'vram' is not one of blade, device-local, host-visible, host-cached"},
        {"profile_unknown",
         kOptions,
         {"--profile", "blade"},
         {},
         1,
         "repro: --profile: 'blade' is not one of default, blade-exact"},
        {"submit_every_zero",
         kOptions,
         {"--submit-every", "0"},
         {},
         1,
         "repro: --submit-every: must be at least 1 (got 0)",
         e + "BadValuesAreOneLineUsageErrors"},
        {"split_mib_zero",
         kOptions,
         {"--split-mib", "0"},
         {},
         1,
         "repro: --split-mib: must be a number of MiB in (0, 1e9] (got 0)"},
        {"split_mib_nan",
         kOptions,
         {"--split-mib", "nan"},
         {},
         1,
         "repro: --split-mib: 'nan' is not a decimal number of MiB",
         "unit.OptionsDecimal.DecimalNumbersAreStrict"},
        {"split_ms_zero",
         kOptions,
         {"--split-ms", "0"},
         {},
         1,
         "repro: --split-ms: must be a number of milliseconds in (0, 1e9] (got 0)",
         n + "SplitMsRange"},
        {"split_ms_over_1e9",
         kOptions,
         {"--split-ms", "2e9"},
         {},
         1,
         "repro: --split-ms: must be a number of milliseconds in (0, 1e9] (got 2e9)"},
        {"split_ms_not_a_number",
         kOptions,
         {"--split-ms", "5ms"},
         {},
         1,
         "repro: --split-ms: '5ms' is not a decimal number of milliseconds"},
        {"dispatch_repeat_zero",
         kOptions,
         {"--dispatch-repeat", "0"},
         {},
         1,
         "repro: --dispatch-repeat: must be at least 1 (got 0)"},
        {"dispatch_repeat_over_64",
         kOptions,
         {"--dispatch-repeat", "65"},
         {},
         1,
         "repro: --dispatch-repeat: at most 64 (got 65)"},
        {"no_host_wait_with_one_submit",
         kOptions,
         {"--no-host-wait"},
         {},
         1,
         "repro: --no-host-wait: there is only one submit to wait for; add --submit-every K, --split-mib MIB or "
         "--split-ms MS",
         e + "CombinationsThatMeanNothingAreRejected"},
        {"split_mode_with_recording_flag",
         kOptions,
         {"--mode", "split", "--barrier", "sync2"},
         {},
         1,
         "repro: --barrier, --submit-every, --split-mib, --split-ms and --dispatch-repeat change multipass and "
         "single; --mode split is the reference and keeps blade's stream"},
        {"split_mode_with_split_ms",
         kOptions,
         {"--mode", "split", "--split-ms", "5"},
         {},
         1,
         "repro: --barrier, --submit-every, --split-mib, --split-ms and --dispatch-repeat change multipass and "
         "single; --mode split is the reference and keeps blade's stream",
         n + "SplitMsIsACutForMultipassAndSingleOnly"},
        {"split_mode_with_drop_dispatch",
         kOptions,
         {"--mode", "split", "--drop-dispatch", "3"},
         {},
         1,
         "repro: --drop-dispatch: leaves a dispatch out of multipass and single; --mode split is the reference and "
         "runs every dispatch",
         n + "DropDispatchWithSplitOnlyTestsNothing"},
        {"host_wait_and_no_host_wait",
         kOptions,
         {"--submit-every", "2", "--host-wait", "--no-host-wait"},
         {},
         1,
         "repro: --host-wait and --no-host-wait: choose one",
         n + "HostWaitAndNoHostWaitExcludeEachOther"},
        {"spirv_empty", kOptions, {"--spirv", ""}, {}, 1, "repro: --spirv: empty value (expected DIR)"},
        {"all_drivers_without_sweep",
         kOptions,
         {"--all-drivers"},
         {},
         1,
         "repro: --all-drivers: only with --driver-env-sweep"},
        {"matrix_and_driver_env_sweep",
         kOptions,
         {"--matrix", "--driver-env-sweep"},
         {},
         1,
         "repro: --matrix and --driver-env-sweep: choose one"},
        {"matrix_with_a_variant_flag",
         kOptions,
         {"--matrix", "--mode", "single"},
         {},
         1,
         "repro: --matrix: chooses --mode, --barrier, --submit-every, --split-mib, --split-ms, --host-wait, "
         "--no-host-wait, --memory, --dispatch-repeat and --profile itself; leave out --mode",
         n + "MatrixTriageAndWatchdogProbeChooseTheVariantOptions"},
        {"matrix_with_a_default_variant_flag",
         kOptions,
         {"--matrix", "--host-wait"},
         {},
         1,
         "repro: --matrix: chooses --mode, --barrier, --submit-every, --split-mib, --split-ms, --host-wait, "
         "--no-host-wait, --memory, --dispatch-repeat and --profile itself; leave out --host-wait"},
        {"matrix_with_format",
         kOptions,
         {"--matrix", "--format", "json"},
         {},
         1,
         "repro: --matrix: prints a table (text, or --format markdown); --format json and --json are for single "
         "runs, --triage and --watchdog-probe"},
        // ---- new options (parsed here; what they do is src/main.cpp's) ----
        {"print_stream_with_matrix",
         kOptions,
         {"--print-stream", "--matrix"},
         {},
         1,
         "repro: --print-stream: not with --matrix",
         n + "PrintStreamRules"},
        {"print_stream_with_sweep",
         kOptions,
         {"--print-stream", "--sweep", "1..3"},
         {},
         1,
         "repro: --print-stream: not with --sweep"},
        {"print_stream_with_list_devices",
         kOptions,
         {"--print-stream", "--list-devices"},
         {},
         1,
         "repro: --print-stream: not with --list-devices"},
        {"print_stream_with_repeat",
         kOptions,
         {"--print-stream", "--repeat", "3"},
         {},
         1,
         "repro: --print-stream: not with --repeat above 1 (every run records the same stream)"},
        {"triage_and_matrix",
         kOptions,
         {"--triage", "--matrix"},
         {},
         1,
         "repro: --matrix and --triage: choose one",
         n + "TriageRules"},
        {"triage_with_a_variant_flag",
         kOptions,
         {"--triage", "--barrier", "sync2"},
         {},
         1,
         "repro: --triage: chooses --mode, --barrier, --submit-every, --split-mib, --split-ms, --host-wait, "
         "--no-host-wait, --memory, --dispatch-repeat and --profile itself; leave out --barrier"},
        {"triage_with_sweep", kOptions, {"--triage", "--sweep", "1..3"}, {}, 1, "repro: --triage: not with --sweep"},
        {"triage_with_dump_dir",
         kOptions,
         {"--triage", "--dump-dir", "d"},
         {},
         1,
         "repro: --triage: not with --dump-dir"},
        {"watchdog_probe_and_driver_env_sweep",
         kOptions,
         {"--watchdog-probe", "--driver-env-sweep"},
         {},
         1,
         "repro: --watchdog-probe and --driver-env-sweep: choose one",
         n + "WatchdogProbeRules"},
        {"watchdog_probe_with_list_devices",
         kOptions,
         {"--watchdog-probe", "--list-devices"},
         {},
         1,
         "repro: --watchdog-probe: not with --list-devices"},
        {"watchdog_probe_with_a_variant_flag",
         kOptions,
         {"--watchdog-probe", "--mode", "single"},
         {},
         1,
         "repro: --watchdog-probe: chooses --mode, --barrier, --submit-every, --split-mib, --split-ms, --host-wait, "
         "--no-host-wait, --memory, --dispatch-repeat and --profile itself; leave out --mode"},
        {"queue_unknown",
         kOptions,
         {"--queue", "transfer"},
         {},
         1,
         "repro: --queue: 'transfer' is not gfx, compute or a queue family index",
         n + "Queue"},
        {"queue_hexadecimal",
         kOptions,
         {"--queue", "0x1"},
         {},
         1,
         "repro: --queue: '0x1' is not gfx, compute or a queue family index"},
        {"queue_negative", kOptions, {"--queue", "-1"}, {}, 1, "repro: --queue: must be at least 0 (got -1)"},
        {"invert_with_list_devices",
         kOptions,
         {"--invert", "--list-devices"},
         {},
         125,  // 1 would be "not reproduced" under --invert: a usage error never is
         "repro: --invert: not with --list-devices (nothing runs, nothing reproduces)",
         n + "Invert"},
        {"invert_with_print_stream",
         kOptions,
         {"--invert", "--print-stream"},
         {},
         125,  // 1 would be "not reproduced" under --invert: a usage error never is
         "repro: --invert: not with --print-stream (nothing runs, nothing reproduces)"},
        {"keep_logs_without_children",
         kOptions,
         {"--keep-logs"},
         {},
         1,
         "repro: --keep-logs: only with --matrix, --triage, --driver-env-sweep, --watchdog-probe, --mutants or "
         "--gtest_filter",
         n + "KeepLogsOnlyWithChildProcesses"},
        {"gtest_with_mode",
         kOptions,
         {"--gtest_filter=*", "--mode", "single"},
         {},
         1,
         "repro: --mode: not with the GoogleTest protocol (each test is one file or the chain in one mode, "
         "reported in GoogleTest's lines)",
         "e2e.GtestProtocol.OptionsThatCannotGoWithItAreOneLine"},
        {"gtest_output_not_xml",
         kOptions,
         {"--gtest_output=json:x"},
         {},
         1,
         "repro: --gtest_output: 'json:x' is not xml or xml:FILE (repro writes GoogleTest's XML only)",
         "e2e.GtestProtocol.OptionsThatCannotGoWithItAreOneLine"},
        {"verbose_and_quiet",
         kOptions,
         {"-v", "-q"},
         {},
         1,
         "repro: -v/--verbose and -q/--quiet: choose one",
         n + "VerboseAndQuietExcludeEachOther"},
        {"spirv_folder_missing",
         kSpirv,
         {"--preset", "tiny", "--spirv", "/nonexistent-repro-spirv"},
         {},
         1,
         "repro: '/nonexistent-repro-spirv/conv_t.spv': cannot read: no such file",
         "e2e.Spirv.MissingFolderIsOneUsageError"},
        {"spirv_truncated",
         kSpirv,
         {"--spirv", "DIR"},
         {},
         1,
         "repro: 'DIR/conv_t.spv': instruction at word … running past the end of the module (…; truncated?)",
         "e2e.Spirv.TruncatedModuleIsOneUsageErrorNamingTheFile; unit.Spirv*",
         "",
         false,
         "DIR/conv_t.spv is cut short on a word boundary"},
        {"spirv_not_whole_words",
         kSpirv,
         {"--spirv", "DIR"},
         {},
         1,
         "repro: 'DIR/conv_t.spv': … bytes, not a whole number of 32-bit words (truncated?)",
         "e2e.Spirv.TruncatedModuleIsOneUsageErrorNamingTheFile",
         "",
         false,
         "DIR/conv_t.spv is 4n+2 bytes long"},
        {"spirv_wrong_magic",
         kSpirv,
         {"--spirv", "DIR"},
         {},
         1,
         "repro: 'DIR/conv_t.spv': …magic…",
         "e2e.Spirv.WrongMagicIsOneUsageErrorNamingTheValue",
         "",
         false,
         "DIR/conv_t.spv does not start with the SPIR-V magic number"},
        {"spirv_wrong_interface",
         kSpirv,
         {"--spirv", "DIR"},
         {},
         1,
         "repro: --spirv DIR/conv_t.spv: local size …, the host dispatches for 16x16x1",
         "unit.Spirv* (checkComputeInterface)",
         "",
         false,
         "DIR/conv_t.spv declares another workgroup size (or other bindings)"},
        {"sync2_unsupported",
         kDevice,
         {"--barrier", "sync2"},
         {},
         125,
         "repro: cannot test here: --barrier sync2/full need the synchronization2 feature (Vulkan 1.3 or "
         "VK_KHR_synchronization2), which this device lacks",
         "none: lavapipe has synchronization2",
         "",
         false,
         "the device lacks synchronization2"},
        {"blade_exact_family_0_without_compute",
         kDevice,
         {"--profile", "blade-exact"},
         {},
         125,
         "repro: cannot test here: --profile blade-exact: blade records on queue family 0, which has no "
         "compute here (…)",
         "none: lavapipe's family 0 has compute",
         "",
         false,
         "queue family 0 has no compute"},
        // ---- against the device (after the instance is made, before any GPU work) ----
        {"device_name_unmatched",
         kDevice,
         {"--preset", "tiny", "--device", "no-such-gpu-xyz"},
         {},
         125,
         "repro: cannot test here: --device: no device matches 'no-such-gpu-xyz' (devices: 0: …)",
         ""},
        {"device_index_unmatched",
         kDevice,
         {"--preset", "tiny", "--device", "99"},
         {},
         125,
         "repro: cannot test here: --device: no device matches '99' (devices: 0: …)",
         ""},
        {"conv_dispatch_over_device_limit",
         kFits,
         {"--batch", "4000", "--channels", "1000", "--height", "2", "--width", "2"},
         {},
         1,
         "repro: shape: conv-T dispatch [1, 1, 4000000] exceeds the device's maxComputeWorkGroupCount [… in axis 2",
         u + "dispatch_over_device_limit"},
        {"slice_dispatch_over_device_limit",
         kFits,
         {"--batch", "8", "-n", "1"},
         {},
         1,
         "repro: shape: slice dispatch [115200, 1, 1] exceeds the device's maxComputeWorkGroupCount [… in axis 0"},
        {"big_buffer_over_storage_range",
         kFits,
         {"--height", "150", "--stride-h", "2", "-n", "1"},
         {},
         125,
         "repro: cannot test here: a big buffer is 148255744 bytes, over the device's maxStorageBufferRange …"},
        {"too_many_allocations",
         kFits,
         {"--preset", "tiny", "-n", "3000000000"},
         {},
         125,
         "repro: cannot test here: -n 3000000000 needs 6000000004 memory allocations, over the device's "
         "maxMemoryAllocationCount …"},
        {"chain_over_heap",
         kFits,
         {"-n", "100"},
         {},
         125,
         "repro: cannot test here: not enough device memory: the chain needs 4333 MiB in heap …, which holds … MiB "
         "(try a smaller -n or --preset)",
         "e2e.CannotTest.MoreMemoryThanTheHeapsHoldIs125"},
        {"device_name_with_newline",
         kDevice,
         {"--preset", "tiny", "--device", "a\nb"},
         {},
         125,
         "repro: cannot test here: --device: no device matches 'a\\nb' (devices: 0: …)"},
        {"expect_driver_with_escape",
         "src/engine/device_choice.cpp",
         {"--preset", "tiny", "--expect-driver", "\x1b[31mnone"},
         {},
         125,
         "repro: cannot test here: --expect-driver '\\x1b[31mnone': the device that would run is …"},
        {"expect_driver_other_library",
         "src/engine/device_choice.cpp",
         {"--preset", "tiny", "--expect-driver", "/nonexistent-mesa-build/libvulkan_radeon.so"},
         {},
         125,
         "repro: cannot test here: --expect-driver '/nonexistent-mesa-build/libvulkan_radeon.so': the device that "
         "would run is …; devices: 0: …; driver libraries the loader read: …",
         "e2e.ExpectDriver.AnotherLibraryPathIs125WithTheDeviceList"},
        // ---- output paths: checked before any GPU work ----
        {"output_in_missing_folder",
         kPaths,
         {"--preset", "tiny", "--output", "/nonexistent-repro-dir/r.json"},
         {},
         1,
         "repro: -o/--output: cannot write '/nonexistent-repro-dir/r.json' (No such file or directory)",
         "e2e.OutputPaths.UnwritableOutputIsRefusedBeforeAnyWork; unit.OutputPaths.*"},
        {"trace_in_missing_folder",
         kPaths,
         {"--preset", "tiny", "--trace", "/nonexistent-repro-dir/run.trace.json"},
         {},
         1,
         "repro: --trace: cannot write '/nonexistent-repro-dir/run.trace.json' (No such file or directory)",
         "e2e.Trace.AnUnwritablePathIsAUsageErrorBeforeTheRun"},
        {"two_documents_on_one_file",
         kPaths,
         {"--preset", "tiny", "--json", "/nonexistent-repro-dir/r.json", "--trace", "/nonexistent-repro-dir/./r.json"},
         {},
         1,
         "repro: --json '/nonexistent-repro-dir/r.json' and --trace '/nonexistent-repro-dir/./r.json' name the same "
         "file, so one document would replace the other; expected a file of its own for each",
         "e2e.OutputPaths.TwoDocumentsOrADocumentAndAnInputOnOneFileAreRefusedBeforeAnyWork; unit.OutputCollision.*"},
        {"document_on_the_scenario_file",
         kPaths,
         {"--scenario", "/nonexistent-repro-dir/s.toml", "-o", "/nonexistent-repro-dir/s.toml"},
         {},
         1,
         "repro: -o/--output '/nonexistent-repro-dir/s.toml' is the --scenario file '/nonexistent-repro-dir/s.toml', "
         "which the document would replace; expected another path for the document",
         "e2e.HostileFile.AnOutputNamingTheScenarioFileIsRefusedAndTheFileKept; unit.OutputCollision.*"},
        {"dump_dir_not_a_directory",
         kPaths,
         {"--preset", "tiny", "--dump-dir", "/dev/null/x"},
         {},
         1,
         "repro: --dump-dir: cannot use '/dev/null/x' as a directory (Not a directory)"},
        {"dump_dir_under_proc",
         kPaths,
         {"--preset", "tiny", "--dump-dir", "/proc/x"},
         {},
         1,
         "repro: --dump-dir: cannot use '/proc/x' as a directory (No such file or directory)"},
        {"tmpdir_missing_for_matrix",
         kPaths,
         {"--preset", "tiny", "--matrix"},
         {"TMPDIR=/nonexistent-repro-tmp"},
         1,
         "repro: TMPDIR: cannot create the children's log folder in '/nonexistent-repro-tmp' (No such file or "
         "directory)",
         "unit.OutputPaths.TmpdirIsCheckedOnlyForChildProcesses"},
        {"tmpdir_missing_for_triage",
         kPaths,
         {"--preset", "tiny", "--triage"},
         {"TMPDIR=/nonexistent-repro-tmp"},
         1,
         "repro: TMPDIR: cannot create the children's log folder in '/nonexistent-repro-tmp' (No such file or "
         "directory)"},
        // ---- the installation ----
        {"no_loader",
         kDevice,
         {"--preset", "tiny"},
         {fakeLoader("unloadable")},
         125,
         "repro: cannot test here: no Vulkan loader: libvulkan.so.1 could not be loaded (install libvulkan1 "
         "and a driver, e.g. mesa-vulkan-drivers)"},
        {"not_a_loader",
         kDevice,
         {"--preset", "tiny"},
         {fakeLoader("no_entry")},
         125,
         "repro: cannot test here: no Vulkan loader: libvulkan.so.1 could not be loaded (install libvulkan1 "
         "and a driver, e.g. mesa-vulkan-drivers)"},
        {"loader_vulkan_1_0",
         kDevice,
         {"--preset", "tiny"},
         {fakeLoader("api_1_0")},
         125,
         "repro: cannot test here: the Vulkan loader supports only 1.0; the repro needs 1.1"},
        {"no_driver",
         "src/vk/instance.cpp",
         {"--preset", "tiny"},
         {"VK_DRIVER_FILES=/nonexistent.json", "VK_ICD_FILENAMES=/nonexistent.json"},
         125,
         "repro: cannot test here: VK_DRIVER_FILES names '/nonexistent.json', which does not exist: the loader "
         "would load no driver from it (check the path; for a Mesa build tree, the absolute path of its "
         "*_devenv_icd.*.json)",
         "e2e.CannotTest.MissingDriverIs125"},
        {"driver_files_empty",
         kLoaderLog,
         {"--preset", "tiny"},
         {"VK_DRIVER_FILES="},
         125,
         "repro: cannot test here: VK_DRIVER_FILES is set but empty: the loader loads no driver (unset it to use "
         "the installed drivers, or name a driver manifest)",
         "unit.DriverVariables.EmptyDriverFilesNamesTheVariable"},
        {"icd_filenames_empty",
         kLoaderLog,
         {"--preset", "tiny"},
         {"VK_ICD_FILENAMES="},
         125,
         "repro: cannot test here: VK_ICD_FILENAMES is set but empty: the loader loads no driver (unset it to use "
         "the installed drivers, or name a driver manifest)",
         "unit.DriverVariables.IcdFilenamesCountsOnlyWithoutDriverFiles"},
        {"corrupt_driver_manifest",
         "src/vk/instance.cpp loaderSays",
         {"--preset", "tiny"},
         {"VK_DRIVER_FILES=DIR/icd.json"},
         125,
         "repro: cannot test here: vkCreateInstance failed: VK_ERROR_OUT_OF_HOST_MEMORY (driver manifest "
         "'DIR/icd.json' is not valid JSON (parse error at byte …): the loader calls that \"Failed to parse JSON "
         "file\" and returns VK_ERROR_OUT_OF_HOST_MEMORY, though no memory ran out)",
         "e2e.LoaderProblems.CorruptManifestIsExplainedNotOutOfMemoryAlone; unit.UnreadableManifests.*",
         "",
         false,
         "DIR/icd.json is cut short"},
        {"validation_layer_missing",
         kDevice,
         {"--preset", "tiny", "--validation"},
         {"VK_LAYER_PATH=/nonexistent"},
         125,
         "repro: cannot test here: --validation: VK_LAYER_KHRONOS_validation is not installed (package "
         "vulkan-validationlayers)"},
        {"gfxr_layer_missing",
         "src/vk/instance.cpp",
         {"--preset", "tiny", "-n", "1", "--mode", "split", "--capture-gfxr", "capture.gfxr"},
         {"VK_LAYER_PATH=/nonexistent"},
         125,
         "repro: cannot test here: --capture-gfxr: VK_LAYER_LUNARG_gfxreconstruct is not installed (package "
         "gfxreconstruct)"},
        {"capture_gfxr_with_matrix",
         kOptions,
         {"--capture-gfxr", "capture.gfxr", "--matrix"},
         {},
         1,
         "repro: --capture-gfxr: captures one run; not with --matrix, which runs a child per row"},
        {"capture_rgp_with_print_stream",
         kOptions,
         {"--capture-rgp", "--print-stream"},
         {},
         1,
         "repro: --capture-rgp: captures a run; not with --print-stream (nothing runs)"},
        // ---- unreachable on lavapipe: tests/unit/device_choice_test.cpp ----
        {"no_device",
         kDevice,
         {},
         {},
         125,
         "repro: cannot test here: no Vulkan device: the loader found no driver (check VK_DRIVER_FILES / "
         "VK_ICD_FILENAMES and the installed ICDs)",
         "unit.ChooseDevice.NoDeviceCannotTest",
         "",
         false,
         "the loader lists no device"},
        {"no_usable_device",
         kDevice,
         {},
         {},
         125,
         "repro: cannot test here: no usable Vulkan device: … (device 0): …",
         "unit.ChooseDevice.NoUsableDeviceCannotTest",
         "",
         false,
         "no device passes blade's acceptance rule"},
        {"chosen_device_unusable",
         kDevice,
         {"--device", "SELECTOR"},
         {},
         125,
         "repro: cannot test here: device … (…) cannot run the repro: …",
         "unit.ChooseDevice.ChosenUnusableDeviceCannotTest",
         "",
         false,
         "the selected device fails blade's acceptance rule"},
        {"validation_without_debug_utils",
         kDevice,
         {"--validation"},
         {},
         125,
         "repro: cannot test here: --validation: VK_EXT_debug_utils is not available to count messages",
         "none: the Khronos loader itself provides VK_EXT_debug_utils",
         "",
         false,
         "the validation layer is installed but VK_EXT_debug_utils is not offered"},
    };
    t.insert(t.end(), more.begin(), more.end());
    return t;
}

// `line` matches `pattern` with "…" standing for any text (see Rejection::message).
bool matches(const std::string& line, const std::string& pattern) {
    const std::string ellipsis = "…";
    std::vector<std::string> parts;
    size_t from = 0;
    for (size_t at; (at = pattern.find(ellipsis, from)) != std::string::npos; from = at + ellipsis.size()) {
        parts.push_back(pattern.substr(from, at - from));
    }
    parts.push_back(pattern.substr(from));
    if (parts.size() == 1) return line == pattern;
    if (line.rfind(parts.front(), 0) != 0) return false;
    size_t pos = parts.front().size();
    for (size_t i = 1; i + 1 < parts.size(); ++i) {
        pos = line.find(parts[i], pos);
        if (pos == std::string::npos) return false;
        pos += parts[i].size();
    }
    return line.size() >= pos + parts.back().size() &&
           line.compare(line.size() - parts.back().size(), parts.back().size(), parts.back()) == 0;
}

// Rows run end to end: those without a known defect, or only those with one.
std::vector<Rejection> endToEndRows(bool knownIssues) {
    std::vector<Rejection> rows;
    for (auto& r : rejections()) {
        if (r.endToEnd && r.knownIssue.empty() != knownIssues) rows.push_back(r);
    }
    return rows;
}

void checkRow(const Rejection& c) {
    const ProcessResult r = runProcess(REPRO_EXECUTABLE, c.args, c.env);
    ASSERT_FALSE(r.signaled) << r.out << r.err;
    EXPECT_EQ(r.status, c.status) << r.out << r.err;
    const auto errLines = lines(r.err);
    ASSERT_EQ(errLines.size(), 1u) << r.err;
    EXPECT_TRUE(matches(errLines[0], c.message)) << "got:      " << errLines[0] << "\nexpected: " << c.message;
    EXPECT_EQ(r.out.find("--- results ---"), std::string::npos) << r.out;
}

class Rejects : public ::testing::TestWithParam<Rejection> {};
TEST_P(Rejects, WithItsStatusAndExactLine) { checkRow(GetParam()); }
INSTANTIATE_TEST_SUITE_P(BadInput, Rejects, ::testing::ValuesIn(endToEndRows(false)),
                         [](const auto& param) { return param.param.label; });

// Rows that state the specified behaviour where src/ does not have it yet (knownIssue
// says what); DISABLED_ in the test name, so gtest and CTest skip them until fixed.
class RejectsKnownIssue : public ::testing::TestWithParam<Rejection> {};
// Empty while src/ has no known defect among the rejections.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RejectsKnownIssue);
TEST_P(RejectsKnownIssue, DISABLED_WithItsStatusAndExactLine) { checkRow(GetParam()); }
INSTANTIATE_TEST_SUITE_P(BadInput, RejectsKnownIssue, ::testing::ValuesIn(endToEndRows(true)),
                         [](const auto& param) { return param.param.label; });

TEST(BadInputPattern, EllipsisStandsForAnyText) {
    EXPECT_TRUE(matches("a b c", "a b c"));
    EXPECT_TRUE(matches("repro: x --flag y (see --help)", "repro: …--flag… (see --help)"));
    EXPECT_FALSE(matches("repro: x --flag y (see --help) and more", "repro: …--flag… (see --help)"));
    EXPECT_FALSE(matches("prefix repro: --flag (see --help)", "repro: …--flag (see --help)"));
}

// ---- docs/bad-input.md ---------------------------------------------------------------------

// `s` in bash's $'...' form, with C escapes for its control characters.
std::string ansiCQuoted(const std::string& s) {
    std::string out = "$'";
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\\' || c == '\'') {
            out += std::string("\\") + c;
        } else if (u < 0x20 || u == 0x7f) {
            out += "\\x" + std::string{"0123456789abcdef"[u >> 4], "0123456789abcdef"[u & 15]};
        } else {
            out += c;
        }
    }
    return out + "'";
}

// `s` as a shell word: bare when it is safe, '...' otherwise, and $'...' when it holds
// control characters (so that each row stays one line of the table).
std::string shellWord(const std::string& s) {
    if (s.empty()) return "''";
    for (const char c : s) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return ansiCQuoted(s);
    }
    for (char c : s) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || std::string("-_./=:,").find(c) != std::string::npos)) {
            return "'" + s + "'";
        }
    }
    return s;
}

std::string cell(const std::string& s) {
    std::string out;
    for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

std::string badInputMarkdown() {
    std::ostringstream md;
    md << "# Inputs repro rejects\n\n"
          "Generated from the table in `tests/e2e/bad_input_test.cpp`; the test\n"
          "`e2e.BadInputDoc.MatchesTheTestTable` fails when this file and the table differ.\n"
          "Regenerate with `REPRO_UPDATE_BAD_INPUT_DOC=1 build/dev/tests/repro_e2e_tests "
          "--gtest_filter=BadInputDoc.*`.\n\n"
          "Every rejection is one line on stderr and an exit status: 1 for a usage error (the\n"
          "value is wrong whatever the machine), 125 for \"cannot test here\" (this machine or\n"
          "installation cannot run it; `git bisect run` skips). No GPU work starts, so stdout has no\n"
          "`--- results ---`. Each row below is run end to end by `e2e.BadInput/Rejects.*` on\n"
          "lavapipe, which checks the status and the exact line, except the last rows, which no\n"
          "real device here can produce and unit tests cover. In a message, `…` stands for text from\n"
          "the device (its name, limits, heap sizes). Text the user gave is quoted with C escapes\n"
          "(`'3\\nx'`), so every message stays one line. A malformed command line (unknown option,\n"
          "stray argument, missing or empty value) is rejected whatever else it holds, `--help` and\n"
          "`--version` included.\n\n"
          "`fake-loader/KIND` is a stand-in for libvulkan.so.1 built with the tests\n"
          "(`tests/e2e/fake_loader.c`): `unloadable` cannot be loaded, `api_1_0` knows no\n"
          "function, `no_entry` has no `vkGetInstanceProcAddr`.\n\n"
          "| input | status | message (stderr) | rejected in | tests |\n|---|---|---|---|---|\n";
    for (const auto& r : rejections()) {
        std::string input;
        for (const auto& e : r.env) {
            const auto fake = e.find(REPRO_FAKE_LOADER_DIR);
            const size_t eq = e.find('=');
            const std::string value = e.substr(eq + 1);
            input += (fake == std::string::npos ? e.substr(0, eq + 1) + (value.empty() ? "" : shellWord(value))
                                                : "LD_LIBRARY_PATH=fake-loader/" +
                                                      e.substr(fake + std::string(REPRO_FAKE_LOADER_DIR).size() + 1)) +
                     " ";
        }
        if (!r.situation.empty()) input += "(" + r.situation + ") ";
        input += "repro";
        for (const auto& a : r.args) input += " " + shellWord(a);
        std::string tests = !r.endToEnd ? ""
                                        : (r.knownIssue.empty() ? "e2e.BadInput/Rejects.*/"
                                                                : "e2e.BadInput/RejectsKnownIssue.DISABLED_*/") +
                                              r.label;
        if (!r.alsoCoveredBy.empty()) tests += (tests.empty() ? "" : "; ") + r.alsoCoveredBy;
        if (!r.knownIssue.empty()) tests += " (DISABLED_: " + r.knownIssue + ")";
        md << "| `" << cell(input) << "` | " << r.status << " | `" << cell(r.message) << "` | " << r.where << " | "
           << cell(tests) << " |\n";
    }
    return md.str();
}

TEST(BadInputDoc, MatchesTheTestTable) {
    const std::string expected = badInputMarkdown();
    if (std::getenv("REPRO_UPDATE_BAD_INPUT_DOC")) {
        std::ofstream(REPRO_BAD_INPUT_DOC, std::ios::binary | std::ios::trunc) << expected;
    }
    std::ifstream in(REPRO_BAD_INPUT_DOC, std::ios::binary);
    std::stringstream got;
    got << in.rdbuf();
    EXPECT_EQ(got.str(), expected) << REPRO_BAD_INPUT_DOC << " is out of date; regenerate it (see its header)";
}

}  // namespace
