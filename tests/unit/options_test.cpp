// Unit tests for src/core/options.{hpp,cpp}: parseCommandLine on argv vectors and
// parseModes. Every rejection must be exit status 1 with one printable line on `err`.
#include "cli/options.hpp"

#include <gtest/gtest.h>

#include "cli/help.hpp"
#include "cli/option_table.hpp"

#include <cctype>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace repro {
namespace {

// Parses {"repro", args...} with the environment variable N set to `env` (or unset);
// --help is wrapped to 80 columns.
ParseOutcome parse(std::initializer_list<const char*> args, std::optional<std::string_view> env = std::nullopt) {
    std::vector<const char*> argv{"repro"};
    argv.insert(argv.end(), args.begin(), args.end());
    return parseCommandLine(static_cast<int>(argv.size()), argv.data(), env, 80);
}

// The same for arguments that are not string literals (built from the option table).
ParseOutcome parseArgs(const std::vector<std::string>& args, std::optional<std::string_view> env = std::nullopt) {
    std::vector<const char*> argv{"repro"};
    for (const std::string& a : args) argv.push_back(a.c_str());
    return parseCommandLine(static_cast<int>(argv.size()), argv.data(), env, 80);
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// The outcome is a usage error: status 1, no options, one non-empty line on err naming
// `mention`, nothing on out.
void expectUsageError(const ParseOutcome& o, std::string_view mention) {
    EXPECT_EQ(o.exitStatus, 1);
    EXPECT_FALSE(o.options.has_value());
    EXPECT_FALSE(o.err.empty());
    EXPECT_EQ(o.err.find('\n'), std::string::npos) << "err is not one line: " << o.err;
    for (const char c : o.err) {
        const auto byte = static_cast<unsigned char>(c);
        EXPECT_TRUE(byte >= 0x20 && byte != 0x7f) << "control byte " << int{byte} << " in " << o.err;
    }
    EXPECT_TRUE(o.err.starts_with("repro: ")) << o.err;
    EXPECT_TRUE(contains(o.err, mention)) << "err does not mention '" << mention << "': " << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
}

// The outcome is options to run with. Returned by value: callers bind the result of
// expectOptions(parse(...)) to a reference, which must outlive the parsed temporary.
Options expectOptions(const ParseOutcome& o) {
    EXPECT_EQ(o.exitStatus, 0) << o.err;
    EXPECT_TRUE(o.err.empty()) << o.err;
    if (!o.options) {
        ADD_FAILURE() << "no options; err: " << o.err;
        return Options{};
    }
    return *o.options;
}

// ---- defaults ----------------------------------------------------------------------------

TEST(OptionsDefaults, NoArgumentsGiveTheOriginalsRun) {
    const ParseOutcome o = parse({});
    const Options& opt = expectOptions(o);
    EXPECT_EQ(opt.modes, (std::vector<Mode>{Mode::Split, Mode::Multipass, Mode::Single}));
    EXPECT_EQ(opt.chainLength, 6u);
    EXPECT_EQ(opt.preset, "spectrostream");
    EXPECT_EQ(opt.shape, presetShape("spectrostream"));
    // No --timeout: automatic, scaled with each submit's work (submitTimeoutSeconds).
    EXPECT_FALSE(opt.timeoutSeconds.has_value());
    EXPECT_FALSE(opt.dumpDir.has_value());
    EXPECT_FALSE(opt.device.has_value());
    EXPECT_FALSE(opt.listDevices);
    EXPECT_FALSE(opt.validation);
    EXPECT_FALSE(opt.dropDispatch.has_value());
    EXPECT_TRUE(o.out.empty());
}

TEST(OptionsDefaults, CommandLineIsKeptVerbatim) {
    const ParseOutcome o = parse({"--mode", "split", "-n", "7"});
    const Options& opt = expectOptions(o);
    EXPECT_EQ(opt.commandLine, (std::vector<std::string>{"repro", "--mode", "split", "-n", "7"}));
}

// ---- --mode ------------------------------------------------------------------------------

TEST(OptionsMode, EachValueSelectsItsModes) {
    EXPECT_EQ(expectOptions(parse({"--mode", "split"})).modes, std::vector<Mode>{Mode::Split});
    EXPECT_EQ(expectOptions(parse({"--mode", "multipass"})).modes, std::vector<Mode>{Mode::Multipass});
    EXPECT_EQ(expectOptions(parse({"--mode", "single"})).modes, std::vector<Mode>{Mode::Single});
    EXPECT_EQ(expectOptions(parse({"--mode=single"})).modes, std::vector<Mode>{Mode::Single});
    EXPECT_EQ(expectOptions(parse({"--mode", "all"})).modes,
              (std::vector<Mode>{Mode::Split, Mode::Multipass, Mode::Single}));
}

TEST(OptionsMode, UnknownModeIsAOneLineUsageError) {
    expectUsageError(parse({"--mode", "bogus"}), "--mode");
    expectUsageError(parse({"--mode", "bogus"}), "bogus");
    expectUsageError(parse({"--mode", "Split"}), "--mode");  // values are exact
    expectUsageError(parse({"--mode", ""}), "--mode");
}

TEST(OptionsMode, ModeNames) {
    EXPECT_EQ(name(Mode::Split), "split");
    EXPECT_EQ(name(Mode::Multipass), "multipass");
    EXPECT_EQ(name(Mode::Single), "single");
}

TEST(OptionsMode, ParseModes) {
    EXPECT_EQ(parseModes("split"), std::optional(std::vector<Mode>{Mode::Split}));
    EXPECT_EQ(parseModes("multipass"), std::optional(std::vector<Mode>{Mode::Multipass}));
    EXPECT_EQ(parseModes("single"), std::optional(std::vector<Mode>{Mode::Single}));
    // `all` runs single last: it is the one most likely to hang the GPU.
    EXPECT_EQ(parseModes("all"), std::optional(std::vector<Mode>{Mode::Split, Mode::Multipass, Mode::Single}));
    EXPECT_EQ(parseModes(""), std::nullopt);
    EXPECT_EQ(parseModes("ALL"), std::nullopt);
    EXPECT_EQ(parseModes("split,single"), std::nullopt);
    EXPECT_EQ(parseModes("singl"), std::nullopt);
}

// ---- chain length: -n, --chain and the environment variable N ----------------------------

TEST(OptionsChain, ShortAndLongFlag) {
    EXPECT_EQ(expectOptions(parse({"-n", "7"})).chainLength, 7u);
    EXPECT_EQ(expectOptions(parse({"--chain", "7"})).chainLength, 7u);
    EXPECT_EQ(expectOptions(parse({"--chain=9"})).chainLength, 9u);
    EXPECT_EQ(expectOptions(parse({"-n", "1"})).chainLength, 1u);
}

TEST(OptionsChain, EnvironmentNIsHonouredWhenTheFlagIsAbsent) {
    EXPECT_EQ(expectOptions(parse({}, "7")).chainLength, 7u);
    EXPECT_EQ(expectOptions(parse({}, "60")).chainLength, 60u);
}

TEST(OptionsChain, FlagWinsOverEnvironment) {
    EXPECT_EQ(expectOptions(parse({"-n", "7"}, "3")).chainLength, 7u);
    EXPECT_EQ(expectOptions(parse({"--chain", "2"}, "9")).chainLength, 2u);
    // Even a bad N in the environment does not matter when the flag is given.
    EXPECT_EQ(expectOptions(parse({"-n", "7"}, "abc")).chainLength, 7u);
    // An explicit -n 6 (the default value) still wins over the environment.
    EXPECT_EQ(expectOptions(parse({"-n", "6"}, "9")).chainLength, 6u);
}

TEST(OptionsChain, BadEnvironmentNIsAUsageErrorNamingIt) {
    for (const char* bad : {"abc", "0", "-2", "", "7x", " 7", "1.5"}) {
        SCOPED_TRACE(bad);
        expectUsageError(parse({}, bad), "environment N");
    }
}

TEST(OptionsChain, ZeroAndNegativeFlagValuesAreRejected) {
    const ParseOutcome zero = parse({"-n", "0"});
    expectUsageError(zero, "-n");
    EXPECT_TRUE(contains(zero.err, "at least 1")) << zero.err;
    // "-3" must be read as the (negative) value, not as an unknown option "-3", and the
    // message must say what is wrong with it.
    const ParseOutcome negative = parse({"-n", "-3"});
    expectUsageError(negative, "-n");
    EXPECT_TRUE(contains(negative.err, "-3")) << negative.err;
    EXPECT_TRUE(contains(negative.err, "at least 1")) << negative.err;
    expectUsageError(parse({"--chain=-3"}), "at least 1");
}

TEST(OptionsChain, NonNumericAndHugeValuesAreRejected) {
    expectUsageError(parse({"-n", "x"}), "--chain");
    const ParseOutcome huge = parse({"-n", "4294967296"});
    expectUsageError(huge, "-n");
    EXPECT_TRUE(contains(huge.err, "too large")) << huge.err;
    EXPECT_EQ(expectOptions(parse({"-n", "4294967295"})).chainLength, 4294967295u);
    expectUsageError(parse({}, "4294967296"), "environment N");
    expectUsageError(parse({"-n"}), "--chain");  // value missing
}

// ---- presets and shape overrides --------------------------------------------------------

TEST(OptionsShape, PresetsSelectTheirShapes) {
    for (const char* preset : {"spectrostream", "small", "tiny"}) {
        SCOPED_TRACE(preset);
        const Options& opt = expectOptions(parse({"--preset", preset}));
        EXPECT_EQ(opt.preset, preset);
        EXPECT_EQ(opt.shape, presetShape(preset));
    }
}

TEST(OptionsShape, UnknownPresetIsRejected) {
    expectUsageError(parse({"--preset", "huge"}), "--preset");
    expectUsageError(parse({"--preset", "huge"}), "huge");
}

TEST(OptionsShape, OverridesApplyOnTopOfThePreset) {
    const Options& opt = expectOptions(
        parse({"--preset", "tiny", "--channels", "8", "--pad-h", "1", "--kernel-h", "5", "--batch", "3"}));
    Shape expected = presetShape("tiny");
    expected.channels = 8;
    expected.padH = 1;
    expected.kernelH = 5;
    expected.batch = 3;
    EXPECT_EQ(opt.shape, expected);
    EXPECT_EQ(opt.preset, "tiny");

    // Every shape flag reaches its own field.
    const Options& all = expectOptions(
        parse({"--batch",    "2", "--channels", "3", "--height",   "4", "--width", "5", "--kernel-h", "2",
               "--kernel-w", "6", "--stride-h", "3", "--stride-w", "4", "--pad-h", "1", "--pad-w",    "2"}));
    EXPECT_EQ(all.shape, (Shape{.batch = 2,
                                .channels = 3,
                                .height = 4,
                                .width = 5,
                                .kernelH = 2,
                                .kernelW = 6,
                                .strideH = 3,
                                .strideW = 4,
                                .padH = 1,
                                .padW = 2}));
}

TEST(OptionsShape, NegativeAndZeroShapeValuesAreRejected) {
    const ParseOutcome negative = parse({"--batch", "-1"});
    expectUsageError(negative, "--batch");
    EXPECT_TRUE(contains(negative.err, "-1")) << negative.err;
    expectUsageError(parse({"--width", "-480"}), "--width");
    expectUsageError(parse({"--pad-h", "-1"}), "--pad-h");  // padding may be 0, not negative
    expectUsageError(parse({"--channels", "0"}), "--channels");
    expectUsageError(parse({"--stride-w", "0"}), "--stride-w");
    expectUsageError(parse({"--height", "4294967296"}), "--height");
    EXPECT_EQ(expectOptions(parse({"--pad-w", "0"})).shape.padW, 0u);
}

TEST(OptionsShape, ShapeIsValidatedUpFront) {
    // A kernel over the 49-float tile and a padding that leaves no room for the crop are
    // usage errors at parse time, not later on the device.
    expectUsageError(parse({"--kernel-h", "7", "--kernel-w", "8"}), "kernel");
    expectUsageError(parse({"--pad-h", "1"}), "too small");
    expectUsageError(parse({"--stride-h", "2147483648"}), "--stride-h");
}

// ---- --timeout ---------------------------------------------------------------------------

TEST(OptionsTimeout, SecondsFromOneTo1e9Accepted) {
    EXPECT_EQ(expectOptions(parse({"--timeout", "5"})).timeoutSeconds, std::optional(5.0));
    EXPECT_EQ(expectOptions(parse({"--timeout", "1"})).timeoutSeconds, std::optional(1.0));
    EXPECT_EQ(expectOptions(parse({"--timeout", "2.5"})).timeoutSeconds, std::optional(2.5));
    EXPECT_EQ(expectOptions(parse({"--timeout", "1e9"})).timeoutSeconds, std::optional(1e9));
}

TEST(OptionsTimeout, UnderOneSecondIsRejectedWithTheReason) {
    // A wait of milliseconds calls a submit that is merely still running a GPU hang.
    for (const char* tooShort : {"0.001", "0.999", "0", "-1", "1e-999"}) {
        SCOPED_TRACE(tooShort);
        const ParseOutcome o = parse({"--timeout", tooShort});
        expectUsageError(o, "--timeout: must be at least 1 second");
        EXPECT_TRUE(contains(o.err, "GPU hang")) << o.err;
    }
    expectUsageError(parse({"--timeout", "2e9"}), "--timeout: must be at most 1e9 seconds (got 2e9)");
    expectUsageError(parse({"--timeout", "1e999"}), "--timeout: must be at most 1e9 seconds");
}

TEST(OptionsTimeout, NonDecimalNumbersRejected) {
    for (const char* bad : {"nan", "inf", "soon", "0x1p3", "5s", "+5", " 5", "1,5"}) {
        SCOPED_TRACE(bad);
        expectUsageError(parse({"--timeout", bad}), "is not a decimal number of seconds");
    }
}

// ---- --drop-dispatch ---------------------------------------------------------------------

TEST(OptionsDropDispatch, BoundsAreOneTo2N) {
    // N = 6: dispatches 1..12.
    expectUsageError(parse({"--drop-dispatch", "0"}), "--drop-dispatch");
    EXPECT_EQ(expectOptions(parse({"--drop-dispatch", "1"})).dropDispatch, std::optional(1u));
    EXPECT_EQ(expectOptions(parse({"--drop-dispatch", "12"})).dropDispatch, std::optional(12u));
    expectUsageError(parse({"--drop-dispatch", "13"}), "--drop-dispatch");
    expectUsageError(parse({"--drop-dispatch", "-1"}), "--drop-dispatch");
}

TEST(OptionsDropDispatch, BoundFollowsTheChainLengthFromFlagOrEnvironment) {
    EXPECT_EQ(expectOptions(parse({"-n", "7", "--drop-dispatch", "14"})).dropDispatch, std::optional(14u));
    expectUsageError(parse({"-n", "7", "--drop-dispatch", "15"}), "--drop-dispatch");
    EXPECT_EQ(expectOptions(parse({"--drop-dispatch", "4"}, "2")).dropDispatch, std::optional(4u));
    expectUsageError(parse({"--drop-dispatch", "5"}, "2"), "--drop-dispatch");
    // The order of the flags does not matter.
    EXPECT_EQ(expectOptions(parse({"--drop-dispatch", "14", "-n", "7"})).dropDispatch, std::optional(14u));
}

// ---- --device and the flags -------------------------------------------------------------

TEST(OptionsDevice, IndexOrNameIsKept) {
    EXPECT_EQ(expectOptions(parse({"--device", "1"})).device, std::optional<std::string>("1"));
    EXPECT_EQ(expectOptions(parse({"--device", "llvmpipe"})).device, std::optional<std::string>("llvmpipe"));
}

TEST(OptionsDevice, EmptyDeviceIsRejected) { expectUsageError(parse({"--device", ""}), "--device"); }

TEST(OptionsFlags, DumpDir) {
    EXPECT_FALSE(expectOptions(parse({})).dumpDir.has_value());
    EXPECT_EQ(expectOptions(parse({"--dump-dir", "/tmp/out"})).dumpDir, std::optional<std::string>("/tmp/out"));
    expectUsageError(parse({"--dump-dir", ""}), "--dump-dir: empty value (expected DIR)");
}

TEST(OptionsFlags, ListDevicesAndValidation) {
    const Options& opt = expectOptions(parse({"--list-devices", "--validation"}));
    EXPECT_TRUE(opt.listDevices);
    EXPECT_TRUE(opt.validation);
}

TEST(OptionsFlags, UnknownOptionIsAOneLineUsageError) {
    expectUsageError(parse({"--frobnicate"}), "--frobnicate");
    expectUsageError(parse({"split"}), "split");  // the original's positional mode is gone
}

// ---- --help and --version ----------------------------------------------------------------

TEST(OptionsHelp, HelpListsEveryOptionAndTheExitTable) {
    const ParseOutcome o = parse({"--help"});
    EXPECT_EQ(o.exitStatus, 0);
    EXPECT_FALSE(o.options.has_value());
    EXPECT_TRUE(o.err.empty()) << o.err;
    for (const char* option :
         {"--help",       "--mode",          "-n",         "--chain",    "--preset",       "--batch",
          "--channels",   "--height",        "--width",    "--kernel-h", "--kernel-w",     "--stride-h",
          "--stride-w",   "--pad-h",         "--pad-w",    "--device",   "--list-devices", "--timeout",
          "--validation", "--drop-dispatch", "--dump-dir", "--version"}) {
        EXPECT_TRUE(contains(o.out, option)) << "help lacks " << option << ":\n" << o.out;
    }
    // Defaults are shown in words.
    EXPECT_TRUE(contains(o.out, "(default: 6)")) << o.out;              // -n
    EXPECT_TRUE(contains(o.out, "(default: spectrostream)")) << o.out;  // --preset
    EXPECT_TRUE(contains(o.out, "(default: all)")) << o.out;            // --mode
    // The exit-status table.
    for (const char* status : {"0 ", "1 ", "2 ", "3 ", "4 ", "125"}) {
        EXPECT_TRUE(contains(o.out, std::string{"\n  "} + status)) << "no row " << status;
    }
    EXPECT_TRUE(contains(o.out, "git bisect")) << o.out;
}

TEST(OptionsHelp, ShortHelpToo) {
    const ParseOutcome o = parse({"-h"});
    EXPECT_EQ(o.exitStatus, 0);
    EXPECT_TRUE(contains(o.out, "125"));
    // -h is the one screen; --help anywhere (before "--") is the complete text.
    EXPECT_NE(o.out, parse({"--help"}).out);
    EXPECT_EQ(parse({"-h", "--help"}).out, parse({"--help"}).out);
    EXPECT_EQ(parse({"-vh"}).out, o.out);
}

TEST(OptionsHelp, Version) {
    const ParseOutcome o = parse({"--version"});
    EXPECT_EQ(o.exitStatus, 0);
    EXPECT_FALSE(o.options.has_value());
    EXPECT_TRUE(o.err.empty()) << o.err;
    EXPECT_TRUE(o.out.starts_with("repro ")) << o.out;
    EXPECT_TRUE(contains(o.out, "0.")) << o.out;  // a version number follows
}

}  // namespace
}  // namespace repro

namespace repro {
namespace {

TEST(OptionsExperiments, DefaultsAreBladesOwnStream) {
    const Options o = expectOptions(parse({}));
    EXPECT_EQ(o.barrier, BarrierKind::Blade);
    EXPECT_FALSE(o.submit.cuts());
    EXPECT_TRUE(o.submit.hostWait);
    EXPECT_EQ(o.memory, BufferMemory::Blade);
    EXPECT_EQ(o.dispatchRepeat, 1u);
    EXPECT_EQ(o.profile, Profile::Default);
    EXPECT_FALSE(o.spirvDir);
    EXPECT_FALSE(o.matrix);
    EXPECT_FALSE(o.driverEnvSweep);
}

TEST(OptionsExperiments, EveryFlagIsParsed) {
    const Options o = expectOptions(
        parse({"--barrier", "execution-only", "--submit-every", "3", "--split-mib", "12.5", "--no-host-wait",
               "--memory", "host-cached", "--dispatch-repeat", "4", "--profile", "blade-exact", "--spirv", "dir"}));
    EXPECT_EQ(o.barrier, BarrierKind::ExecutionOnly);
    EXPECT_EQ(o.submit.every, 3u);
    EXPECT_EQ(o.submit.splitMiB, 12.5);
    EXPECT_FALSE(o.submit.hostWait);
    EXPECT_EQ(o.memory, BufferMemory::HostCached);
    EXPECT_EQ(o.dispatchRepeat, 4u);
    EXPECT_EQ(o.profile, Profile::BladeExact);
    EXPECT_EQ(o.spirvDir, "dir");
    EXPECT_TRUE(expectOptions(parse({"--submit-every", "2", "--host-wait"})).submit.hostWait);
}

TEST(OptionsExperiments, BadValuesAreOneLineUsageErrors) {
    expectUsageError(parse({"--barrier", "strong"}), "--barrier");
    expectUsageError(parse({"--memory", "vram"}), "--memory");
    expectUsageError(parse({"--profile", "blade"}), "--profile");
    expectUsageError(parse({"--submit-every", "0"}), "--submit-every: must be at least 1");
    expectUsageError(parse({"--submit-every", "-2"}), "--submit-every: must be at least 1");
    expectUsageError(parse({"--split-mib", "0"}), "--split-mib: must be a number of MiB in (0, 1e9]");
    expectUsageError(parse({"--split-mib", "-1"}), "--split-mib");
    expectUsageError(parse({"--split-mib", "nan"}), "--split-mib");
    expectUsageError(parse({"--split-mib", "1e10"}), "--split-mib");
    expectUsageError(parse({"--dispatch-repeat", "0"}), "--dispatch-repeat: must be at least 1");
    expectUsageError(parse({"--dispatch-repeat", "65"}), "--dispatch-repeat: at most 64");
    expectUsageError(parse({"--spirv", ""}), "--spirv: empty value (expected DIR)");
}

TEST(OptionsExperiments, CombinationsThatMeanNothingAreRejected) {
    expectUsageError(parse({"--no-host-wait"}), "--no-host-wait: there is only one submit");
    expectUsageError(parse({"--mode", "split", "--barrier", "sync2"}), "split is the reference");
    expectUsageError(parse({"--mode", "split", "--submit-every", "2"}), "split is the reference");
    expectUsageError(parse({"--mode", "split", "--dispatch-repeat", "2"}), "split is the reference");
    // split with a placement or profile is fine: those change the buffers, not the stream.
    expectOptions(parse({"--mode", "split", "--memory", "device-local", "--profile", "blade-exact"}));
    expectUsageError(parse({"--all-drivers"}), "--all-drivers: only with --driver-env-sweep");
    expectUsageError(parse({"--matrix", "--driver-env-sweep"}), "choose one");
    expectUsageError(parse({"--matrix", "--sweep", "1..3"}), "--matrix: not with --sweep");
    expectUsageError(parse({"--matrix", "--format", "json"}), "--matrix: prints a table (text, or --format markdown)");
    expectUsageError(parse({"--driver-env-sweep", "--json", "x.json"}), "--driver-env-sweep: prints a table");
    // -o writes the table's document (text or Markdown) to a file: allowed.
    EXPECT_EQ(expectOptions(parse({"--matrix", "--format", "markdown", "-o", "m.md"})).output, "m.md");
    EXPECT_EQ(expectOptions(parse({"--matrix", "--format", "markdown"})).format, Format::Markdown);
    expectUsageError(parse({"--matrix", "--dump-dir", "d"}), "--matrix: not with --dump-dir");
    expectUsageError(parse({"--matrix", "--mode", "single"}), "--matrix: chooses --mode");
    expectUsageError(parse({"--matrix", "--mode", "single"}), "leave out --mode");
    expectUsageError(parse({"--matrix", "--barrier", "sync2"}), "--matrix: chooses");
    expectUsageError(parse({"--matrix", "--profile", "blade-exact"}), "--matrix: chooses");
    // The sweep passes the experiment flags on to its children.
    const Options o = expectOptions(parse({"--driver-env-sweep", "--all-drivers", "--barrier", "sync2"}));
    EXPECT_TRUE(o.driverEnvSweep);
    EXPECT_TRUE(o.allDrivers);
    EXPECT_EQ(o.barrier, BarrierKind::Sync2);
}

TEST(OptionsExperiments, HelpListsTheExperimentFlags) {
    const ParseOutcome o = parse({"--help"});
    for (const char* flag :
         {"--barrier", "--submit-every", "--split-mib", "--no-host-wait", "--memory", "--dispatch-repeat", "--profile",
          "--spirv", "--matrix", "--driver-env-sweep", "--all-drivers"}) {
        EXPECT_TRUE(contains(o.out, flag)) << flag;
    }
}

}  // namespace
}  // namespace repro

namespace repro {
namespace {

// Every option of the table that takes a value, with a value it accepts on its own.
std::vector<std::pair<std::string, std::string>> valueOptionsWithAGoodValue() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const OptionSection& section : optionTable()) {
        for (const OptionSpec& spec : section.options) {
            if (spec.value == nullptr) continue;
            std::string good = spec.choices.empty() ? "1" : std::string(spec.choices.front());
            if (spec.longName == "--sweep") good = "1..2";
            if (spec.placeholder == "FILE" || spec.placeholder == "DIR") good = "somewhere";
            if (spec.longName == "--device" || spec.longName == "--expect-driver") good = "llvmpipe";
            if (spec.longName == "--kernel-h") good = "3";  // 1 leaves no room for the crop
            if (spec.longName.starts_with("--pad")) good = "0";
            if (spec.longName == "--gtest_output") good = "xml:somewhere";
            if (spec.longName == "--mutant") good = "1:removed";
            out.emplace_back(spec.longName, good);
        }
    }
    return out;
}

// ---- syntax: unknown options, stray arguments, missing and empty values ----------------

TEST(OptionsSyntax, UnknownOptionsWinOverVersionAndHelp) {
    // GNU convention: an unknown option is an error whatever else the command line holds.
    expectUsageError(parse({"--version", "--frobnicate"}), "unknown option '--frobnicate'");
    expectUsageError(parse({"--frobnicate", "--version"}), "unknown option '--frobnicate'");
    expectUsageError(parse({"--help", "--frobnicate"}), "unknown option '--frobnicate'");
    expectUsageError(parse({"-V", "-x"}), "unknown option '-x'");
    expectUsageError(parse({"--version", "extra"}), "unexpected argument 'extra'");
    expectUsageError(parse({"--help", "-n"}), "-n/--chain: missing value (expected N)");
}

TEST(OptionsSyntax, HelpAndVersionDoNotCheckTheOtherValues) {
    const ParseOutcome help = parse({"--help", "-n", "0"});
    EXPECT_EQ(help.exitStatus, 0);
    EXPECT_TRUE(help.out.starts_with("Usage: repro")) << help.out;
    const ParseOutcome version = parse({"--version", "--mode", "fast"});
    EXPECT_EQ(version.exitStatus, 0);
    EXPECT_TRUE(version.out.starts_with("repro ")) << version.out;
    // Help wins over version when both are given.
    EXPECT_TRUE(parse({"-V", "-h"}).out.starts_with("Usage: repro"));
}

TEST(OptionsSyntax, ShortForms) {
    EXPECT_TRUE(parse({"-V"}).out.starts_with("repro "));
    EXPECT_EQ(parse({"-V"}).out, parse({"--version"}).out);
    EXPECT_TRUE(parse({"-h"}).out.starts_with("Usage: repro"));
    EXPECT_EQ(expectOptions(parse({"-o", "r.json"})).output, std::optional<std::string>("r.json"));
    EXPECT_EQ(expectOptions(parse({"-or.json"})).output, std::optional<std::string>("r.json"));
    EXPECT_TRUE(expectOptions(parse({"-v"})).verbose);
    EXPECT_TRUE(expectOptions(parse({"-q"})).quiet);
    // A cluster of short flags, and a short option with its value attached.
    const Options o = expectOptions(parse({"-vn7"}));
    EXPECT_TRUE(o.verbose);
    EXPECT_EQ(o.chainLength, 7u);
    // Only these short forms exist.
    for (char c = 'A'; c <= 'z'; ++c) {
        if (!std::isalpha(static_cast<unsigned char>(c))) continue;
        const bool known = std::string_view("nohVvq").find(c) != std::string_view::npos;
        EXPECT_EQ(findShortOption(c) != nullptr, known) << c;
    }
}

TEST(OptionsSyntax, StrayArgumentsAndTheEndOfOptions) {
    expectUsageError(parse({"-n", "7", "8"}), "unexpected argument '8' (see --help)");
    expectUsageError(parse({""}), "unexpected argument '' (see --help)");
    expectUsageError(parse({"-"}), "unexpected argument '-' (see --help)");
    expectUsageError(parse({"-3"}), "unexpected argument '-3' (see --help)");
    expectUsageError(parse({"--", "--mode"}), "unexpected argument '--mode' (see --help)");
    EXPECT_EQ(expectOptions(parse({"-n", "2", "--"})).chainLength, 2u);  // "--" alone ends nothing
    expectUsageError(parse({"---mode"}), "unexpected argument '---mode'");
    expectUsageError(parse({"--frob=3"}), "unknown option '--frob=3' (see --help)");
    expectUsageError(parse({"--=3"}), "unknown option '--=3' (see --help)");
}

TEST(OptionsSyntax, AValueIsTheNextArgumentWhateverItLooksLike) {
    EXPECT_EQ(expectOptions(parse({"--device", "--list-devices"})).device,
              std::optional<std::string>("--list-devices"));
    EXPECT_FALSE(expectOptions(parse({"--device", "--list-devices"})).listDevices);
    EXPECT_EQ(expectOptions(parse({"--device=-x"})).device, std::optional<std::string>("-x"));
}

TEST(OptionsSyntax, MissingValueAtTheEnd) {
    for (const auto& [option, good] : valueOptionsWithAGoodValue()) {
        SCOPED_TRACE(option);
        const OptionSpec* spec = findLongOption(option);
        ASSERT_NE(spec, nullptr);
        expectUsageError(parseArgs({option}),
                         optionLabel(*spec) + ": missing value (expected " + std::string(spec->placeholder) + ")");
    }
    expectUsageError(parse({"-o"}), "-o/--output: missing value (expected FILE)");
}

TEST(OptionsSyntax, EveryValueOptionRejectsAnEmptyValue) {
    // Separate ("--opt ''") and attached ("--opt="); CLI11 alone would take the argument
    // after "--opt=" as the value, and run --drop-dispatch "" without the control.
    for (const auto& [option, good] : valueOptionsWithAGoodValue()) {
        SCOPED_TRACE(option);
        const OptionSpec* spec = findLongOption(option);
        const std::string expected =
            optionLabel(*spec) + ": empty value (expected " + std::string(spec->placeholder) + ")";
        expectUsageError(parseArgs({option, ""}), expected);
        expectUsageError(parseArgs({option + "="}), expected);
        expectUsageError(parseArgs({option + "=", good}), expected);
        if (spec->shortName != 0) {
            expectUsageError(parseArgs({std::string{'-', spec->shortName}, ""}), expected);
        }
    }
}

TEST(OptionsSyntax, EveryValueOptionAcceptsItsGoodValue) {
    // The values the syntax tests use are accepted on their own (so the errors above are the
    // empty or missing value, nothing else).
    for (const auto& [option, good] : valueOptionsWithAGoodValue()) {
        SCOPED_TRACE(option + " " + good);
        // an option of a file's alone goes with --scenario (the file is read later, by the plan)
        const bool fileOnly = !findLongOption(option)->notForChain.empty();
        // --scenario-dir names the GoogleTest protocol's folder
        const std::vector<std::string> with = fileOnly ? std::vector<std::string>{"--scenario", "f.toml"}
                                              : option == "--scenario-dir"
                                                  ? std::vector<std::string>{"--gtest_list_tests"}
                                                  : std::vector<std::string>{};
        std::vector<std::string> args = {option, good};
        args.insert(args.end(), with.begin(), with.end());
        const ParseOutcome o = parseArgs(args);
        EXPECT_EQ(o.exitStatus, 0) << o.err;
        args = {option + "=" + good};
        args.insert(args.end(), with.begin(), with.end());
        EXPECT_EQ(parseArgs(args).exitStatus, 0);
    }
}

TEST(OptionsSyntax, EveryValueOptionIsGivenOnce) {
    for (const auto& [option, good] : valueOptionsWithAGoodValue()) {
        SCOPED_TRACE(option);
        const OptionSpec* spec = findLongOption(option);
        expectUsageError(parseArgs({option, good, option, good}), optionLabel(*spec) + ": given 2 times; give it once");
    }
    expectUsageError(parse({"-n", "2", "--chain", "3"}), "-n/--chain: given 2 times");
    // A flag may be repeated.
    EXPECT_TRUE(expectOptions(parse({"--poison", "--poison"})).poison);
}

TEST(OptionsSyntax, FlagsTakeNoValue) {
    expectUsageError(parse({"--poison=1"}), "--poison: takes no value (got '--poison=1')");
    expectUsageError(parse({"--validation=false"}), "--validation: takes no value");
    expectUsageError(parse({"--help="}), "--help: takes no value");
}

// ---- decimal integers --------------------------------------------------------------------

TEST(OptionsDecimal, LeadingZerosAreDecimalAsInEnvironmentN) {
    EXPECT_EQ(expectOptions(parse({"-n", "010"})).chainLength, 10u);  // not octal 8
    EXPECT_EQ(expectOptions(parse({"-n", "08"})).chainLength, 8u);    // not a bad octal
    EXPECT_EQ(expectOptions(parse({}, "010")).chainLength, 10u);
    EXPECT_EQ(expectOptions(parse({"--repeat", "02"})).repeat, 2u);
    EXPECT_EQ(expectOptions(parse({"--drop-dispatch", "010"})).dropDispatch, std::optional(10u));
    EXPECT_EQ(expectOptions(parse({"--sweep", "01..03"})).sweep, std::optional(std::pair(1u, 3u)));
    EXPECT_EQ(expectOptions(parse({"--queue", "01"})).queue,
              (QueueChoice{.kind = QueueChoice::Kind::Index, .index = 1}));
}

TEST(OptionsDecimal, EveryIntegerOptionRejectsNonDecimalText) {
    const std::vector<std::string> integers = {"--chain",         "--batch",        "--channels",       "--height",
                                               "--width",         "--kernel-h",     "--kernel-w",       "--stride-h",
                                               "--stride-w",      "--pad-h",        "--pad-w",          "--repeat",
                                               "--drop-dispatch", "--submit-every", "--dispatch-repeat"};
    for (const std::string& option : integers) {
        const std::string label = optionLabel(*findLongOption(option));
        for (const char* bad : {"0x3", "+5", " 7", "7 ", "1_0", "1,0", "0b1", "1e1", "1.0", "3\n", "seven"}) {
            SCOPED_TRACE(option + " '" + bad + "'");
            expectUsageError(parseArgs({option, bad}), label + ": '");
            expectUsageError(parseArgs({option, bad}), "is not a whole number (decimal digits only)");
        }
    }
    for (const char* bad : {"0x3", "+5", " 7", "seven"}) {
        SCOPED_TRACE(bad);
        expectUsageError(parse({}, bad), "environment N=");
    }
}

TEST(OptionsDecimal, NegativeValuesAreReportedAsBelowTheMinimum) {
    expectUsageError(parse({"--repeat", "-1"}), "--repeat: must be at least 1 (got -1)");
    expectUsageError(parse({"--submit-every", "-2"}), "--submit-every: must be at least 1 (got -2)");
    expectUsageError(parse({"--pad-w", "-1"}), "--pad-w: must be at least 0 (got -1)");
    expectUsageError(parse({"--queue", "-1"}), "--queue: must be at least 0 (got -1)");
    expectUsageError(parse({"-n", "-99999999999999999999"}),
                     "-n/--chain: must be at least 1 (got -99999999999999999999)");
    expectUsageError(parse({"-n", "99999999999999999999"}), "-n/--chain: 99999999999999999999 is too large");
}

TEST(OptionsDecimal, SweepEndsAreDecimalToo) {
    expectUsageError(parse({"--sweep", "0x1..3"}), "--sweep: '0x1..3' is not a range A..B");
    expectUsageError(parse({"--sweep", "1..+3"}), "--sweep: '1..+3' is not a range A..B");
    expectUsageError(parse({"--sweep", "1.. 3"}), "is not a range");
    expectUsageError(parse({"--sweep", "..3"}), "is not a range");
    expectUsageError(parse({"--sweep", "-1..3"}), "--sweep start: must be at least 1 (got -1)");
}

TEST(OptionsDecimal, DecimalNumbersAreStrict) {
    EXPECT_EQ(expectOptions(parse({"--split-mib", ".5"})).submit.splitMiB, std::optional(0.5));
    EXPECT_EQ(expectOptions(parse({"--split-mib", "1e1"})).submit.splitMiB, std::optional(10.0));
    EXPECT_EQ(expectOptions(parse({"--split-ms", "2.5"})).submit.splitMs, std::optional(2.5));
    for (const char* option : {"--split-mib", "--split-ms"}) {
        for (const char* bad : {"nan", "inf", "0x10", "0x1p3", "+1", " 1", "1MiB", "1e"}) {
            SCOPED_TRACE(std::string(option) + " " + bad);
            expectUsageError(parse({option, bad}), std::string(option) + ": '");
            expectUsageError(parse({option, bad}), "is not a decimal number of");
        }
    }
}

// ---- user text in messages ---------------------------------------------------------------

TEST(OptionsQuoting, UserTextIsQuotedWithEscapes) {
    EXPECT_EQ(parse({}, "3\nx").err, "repro: environment N='3\\nx': not a chain length (a whole number >= 1)");
    EXPECT_EQ(parse({"--mode", "fa\nst"}).err, "repro: --mode: 'fa\\nst' is not one of split, multipass, single, all");
    EXPECT_EQ(parse({"--preset", "\x1b[2Jhuge"}).err,
              "repro: --preset: '\\x1b[2Jhuge' is not one of spectrostream, small, tiny");
    EXPECT_EQ(parse({"--fr\nob"}).err, "repro: unknown option '--fr\\nob' (see --help)");
    EXPECT_EQ(parse({"-n", "7\r"}).err, "repro: -n/--chain: '7\\r' is not a whole number (decimal digits only)");
    EXPECT_EQ(parse({"--queue", "\xff"}).err, "repro: --queue: '\\xff' is not gfx, compute or a queue family index");
    EXPECT_EQ(parse({"--sweep", "1..\t3"}).err, "repro: --sweep: '1..\\t3' is not a range A..B of chain lengths");
    EXPECT_EQ(parse({"--timeout", "it's"}).err, "repro: --timeout: 'it\\'s' is not a decimal number of seconds");
    EXPECT_EQ(parse({"ex\ntra"}).err, "repro: unexpected argument 'ex\\ntra' (see --help)");
    EXPECT_EQ(parse({"--poison=\n"}).err, "repro: --poison: takes no value (got '--poison=\\n')");
}

TEST(OptionsQuoting, ChoicesAreNamedInMessages) {
    EXPECT_EQ(parse({"--reference", "bogus"}).err, "repro: --reference: 'bogus' is not one of auto, split, cpu, none");
    EXPECT_EQ(parse({"--format", "yaml"}).err, "repro: --format: 'yaml' is not one of text, markdown, json, csv");
    EXPECT_EQ(parse({"--barrier", "strong"}).err,
              "repro: --barrier: 'strong' is not one of blade, sync2, buffer, full, execution-only, none");
    EXPECT_EQ(parse({"--memory", "vram"}).err,
              "repro: --memory: 'vram' is not one of blade, device-local, host-visible, host-cached");
    EXPECT_EQ(parse({"--profile", "blade"}).err, "repro: --profile: 'blade' is not one of default, blade-exact");
}

// ---- the new options ---------------------------------------------------------------------

TEST(OptionsNew, DefaultsAreOff) {
    const Options o = expectOptions(parse({}));
    EXPECT_FALSE(o.printStream);
    EXPECT_FALSE(o.triage);
    EXPECT_FALSE(o.watchdogProbe);
    EXPECT_FALSE(o.submit.splitMs);
    EXPECT_EQ(o.queue, QueueChoice{});
    EXPECT_EQ(o.queue.kind, QueueChoice::Kind::Default);
    EXPECT_FALSE(o.expectDriver);
    EXPECT_FALSE(o.invert);
    EXPECT_FALSE(o.keepLogs);
    EXPECT_FALSE(o.verbose);
    EXPECT_FALSE(o.quiet);
}

TEST(OptionsNew, EachIsParsed) {
    EXPECT_TRUE(expectOptions(parse({"--print-stream", "--mode", "single", "-n", "2"})).printStream);
    EXPECT_TRUE(expectOptions(parse({"--triage", "-n", "7"})).triage);
    EXPECT_TRUE(expectOptions(parse({"--watchdog-probe"})).watchdogProbe);
    EXPECT_EQ(expectOptions(parse({"--split-ms", "50"})).submit.splitMs, std::optional(50.0));
    EXPECT_EQ(expectOptions(parse({"--expect-driver", "radv"})).expectDriver, std::optional<std::string>("radv"));
    EXPECT_TRUE(expectOptions(parse({"--invert"})).invert);
    EXPECT_TRUE(expectOptions(parse({"--matrix", "--keep-logs"})).keepLogs);
    EXPECT_TRUE(expectOptions(parse({"--verbose"})).verbose);
    EXPECT_TRUE(expectOptions(parse({"--quiet"})).quiet);
}

TEST(OptionsNew, Queue) {
    EXPECT_EQ(expectOptions(parse({"--queue", "gfx"})).queue.kind, QueueChoice::Kind::Gfx);
    EXPECT_EQ(expectOptions(parse({"--queue", "compute"})).queue.kind, QueueChoice::Kind::Compute);
    EXPECT_EQ(expectOptions(parse({"--queue", "0"})).queue,
              (QueueChoice{.kind = QueueChoice::Kind::Index, .index = 0}));
    EXPECT_EQ(expectOptions(parse({"--queue=3"})).queue, (QueueChoice{.kind = QueueChoice::Kind::Index, .index = 3}));
    for (const char* bad : {"graphics", "GFX", "Compute", "0x1", "+1", "1 ", "transfer"}) {
        SCOPED_TRACE(bad);
        expectUsageError(parse({"--queue", bad}), "is not gfx, compute or a queue family index");
    }
    expectUsageError(parse({"--queue", "4294967296"}), "--queue: 4294967296 is too large");
    expectUsageError(parse({"--queue", ""}), "--queue: empty value (expected KIND|INDEX)");
}

TEST(OptionsNew, SplitMsRange) {
    EXPECT_EQ(expectOptions(parse({"--split-ms", "1e9"})).submit.splitMs, std::optional(1e9));
    EXPECT_EQ(expectOptions(parse({"--split-ms", "0.01"})).submit.splitMs, std::optional(0.01));
    for (const char* bad : {"0", "-1", "1e10", "1e999"}) {
        SCOPED_TRACE(bad);
        expectUsageError(parse({"--split-ms", bad}), "--split-ms: must be a number of milliseconds in (0, 1e9]");
    }
}

TEST(OptionsNew, SplitMsIsACutForMultipassAndSingleOnly) {
    const Options o = expectOptions(parse({"--split-ms", "5", "--no-host-wait"}));
    EXPECT_TRUE(o.submit.cuts());
    EXPECT_FALSE(o.submit.hostWait);
    expectUsageError(parse({"--mode", "split", "--split-ms", "5"}), "split is the reference");
    expectUsageError(parse({"--no-host-wait"}), "add --submit-every K, --split-mib MIB or --split-ms MS");
    EXPECT_EQ(expectOptions(parse({"--mode", "single", "--split-ms", "5"})).submit.splitMs, std::optional(5.0));
}

TEST(OptionsNew, PrintStreamRules) {
    for (const char* other : {"--matrix", "--triage", "--watchdog-probe", "--driver-env-sweep", "--list-devices"}) {
        SCOPED_TRACE(other);
        expectUsageError(parse({"--print-stream", other}), std::string("--print-stream: not with ") + other);
    }
    expectUsageError(parse({"--print-stream", "--sweep", "1..3"}), "--print-stream: not with --sweep");
    expectUsageError(parse({"--print-stream", "--repeat", "2"}), "--print-stream: not with --repeat above 1");
    EXPECT_TRUE(expectOptions(parse({"--print-stream", "--repeat", "1"})).printStream);
    // What it prints is the stream as the other flags shape it.
    const Options o = expectOptions(parse({"--print-stream", "--barrier", "sync2", "--timestamps"}));
    EXPECT_EQ(o.barrier, BarrierKind::Sync2);
    EXPECT_TRUE(o.timestamps);
}

TEST(OptionsNew, TriageRules) {
    for (const char* other : {"--matrix", "--driver-env-sweep", "--watchdog-probe"}) {
        SCOPED_TRACE(other);
        expectUsageError(parse({"--triage", other}), "choose one");
    }
    expectUsageError(parse({"--triage", "--sweep", "1..3"}), "--triage: not with --sweep");
    expectUsageError(parse({"--triage", "--list-devices"}), "--triage: not with --list-devices");
    expectUsageError(parse({"--triage", "--dump-dir", "d"}), "--triage: not with --dump-dir");
    expectUsageError(parse({"--triage", "--print-stream"}), "--print-stream: not with --triage");
    // Unlike --matrix, it has a JSON report.
    const Options o = expectOptions(parse({"--triage", "--format", "json", "-o", "t.json"}));
    EXPECT_EQ(o.format, Format::Json);
    EXPECT_EQ(o.output, std::optional<std::string>("t.json"));
}

TEST(OptionsNew, WatchdogProbeRules) {
    for (const char* other : {"--matrix", "--triage", "--driver-env-sweep"}) {
        SCOPED_TRACE(other);
        expectUsageError(parse({"--watchdog-probe", other}), "choose one");
    }
    expectUsageError(parse({"--watchdog-probe", "--sweep", "1..3"}), "--watchdog-probe: not with --sweep");
    expectUsageError(parse({"--watchdog-probe", "--list-devices"}), "--watchdog-probe: not with --list-devices");
    expectUsageError(parse({"--watchdog-probe", "--print-stream"}), "--print-stream: not with --watchdog-probe");
}

TEST(OptionsNew, MatrixTriageAndWatchdogProbeChooseTheVariantOptions) {
    const std::vector<std::vector<std::string>> variantArgs = {
        {"--mode", "all"},          {"--barrier", "blade"},  {"--submit-every", "2"}, {"--split-mib", "1"},
        {"--split-ms", "1"},        {"--host-wait"},         {"--no-host-wait"},      {"--memory", "blade"},
        {"--dispatch-repeat", "1"}, {"--profile", "default"}};
    for (const char* run : {"--matrix", "--triage", "--watchdog-probe"}) {
        for (std::vector<std::string> args : variantArgs) {
            // Given explicitly, even at its default: the children add their own, and an
            // option given twice is a usage error in them.
            SCOPED_TRACE(std::string(run) + " " + args[0]);
            const std::string first = args[0];
            args.insert(args.begin(), run);
            expectUsageError(parseArgs(args), std::string(run) + ": chooses --mode, --barrier");
            expectUsageError(parseArgs(args), "leave out " + first);
        }
    }
    // --driver-env-sweep passes them on to its children.
    EXPECT_EQ(expectOptions(parse({"--driver-env-sweep", "--mode", "single"})).modes, std::vector<Mode>{Mode::Single});
}

TEST(OptionsNew, Invert) {
    expectUsageError(parse({"--invert", "--list-devices"}), "--invert: not with --list-devices");
    expectUsageError(parse({"--invert", "--print-stream"}), "--invert: not with --print-stream");
    EXPECT_TRUE(expectOptions(parse({"--invert", "--matrix"})).invert);
    EXPECT_TRUE(expectOptions(parse({"--invert", "--mode", "multipass", "-n", "7"})).invert);
}

TEST(OptionsNew, KeepLogsOnlyWithChildProcesses) {
    expectUsageError(
        parse({"--keep-logs"}),
        "--keep-logs: only with --matrix, --triage, --driver-env-sweep, --watchdog-probe, --mutants or --gtest_filter");
    expectUsageError(parse({"--keep-logs", "--sweep", "1..2"}), "--keep-logs: only with");
    for (const char* run : {"--matrix", "--triage", "--driver-env-sweep", "--watchdog-probe"}) {
        SCOPED_TRACE(run);
        EXPECT_TRUE(expectOptions(parse({run, "--keep-logs"})).keepLogs);
    }
}

TEST(OptionsNew, VerboseAndQuietExcludeEachOther) {
    expectUsageError(parse({"-v", "-q"}), "-v/--verbose and -q/--quiet: choose one");
    expectUsageError(parse({"--quiet", "--verbose"}), "choose one");
    expectUsageError(parse({"-qv"}), "choose one");
}

TEST(OptionsNew, ExpectDriver) {
    expectUsageError(parse({"--expect-driver", ""}), "--expect-driver: empty value (expected NAME)");
    EXPECT_EQ(expectOptions(parse({"--expect-driver=MESA_RADV"})).expectDriver,
              std::optional<std::string>("MESA_RADV"));
}

TEST(OptionsNew, DropDispatchWithSplitOnlyTestsNothing) {
    expectUsageError(parse({"--mode", "split", "--drop-dispatch", "3"}),
                     "--drop-dispatch: leaves a dispatch out of multipass and single; --mode split is the "
                     "reference and runs every dispatch");
    EXPECT_EQ(expectOptions(parse({"--mode", "multipass", "--drop-dispatch", "3"})).dropDispatch, std::optional(3u));
}

TEST(OptionsNew, ListDevicesWithJsonAndOutputIsAllowed) {
    const Options o = expectOptions(parse({"--list-devices", "--format", "json", "--output", "devices.json"}));
    EXPECT_TRUE(o.listDevices);
    EXPECT_EQ(o.format, Format::Json);
    EXPECT_EQ(o.output, std::optional<std::string>("devices.json"));
    EXPECT_TRUE(expectOptions(parse({"--list-devices", "--format", "markdown"})).listDevices);
    EXPECT_EQ(expectOptions(parse({"--list-devices", "--json", "d.json"})).json, std::optional<std::string>("d.json"));
}

TEST(OptionsNew, HostWaitAndNoHostWaitExcludeEachOther) {
    expectUsageError(parse({"--submit-every", "2", "--host-wait", "--no-host-wait"}),
                     "--host-wait and --no-host-wait: choose one");
    EXPECT_TRUE(expectOptions(parse({"--host-wait"})).submit.hostWait);
}

// ---- help and the bash completion --------------------------------------------------------

TEST(OptionsHelpText, ParseRendersHelpAtTheWidthGiven) {
    const char* argv[] = {"repro", "--help"};
    EXPECT_EQ(parseCommandLine(2, argv, std::nullopt, 80).out, renderHelp(80));
    EXPECT_EQ(parseCommandLine(2, argv, std::nullopt, 120).out, renderHelp(120));
    EXPECT_NE(renderHelp(80), renderHelp(120));
}

TEST(OptionsHelpText, BashCompletionIsAHiddenOption) {
    const ParseOutcome o = parse({"--bash-completion"});
    EXPECT_EQ(o.exitStatus, 0);
    EXPECT_EQ(o.out, renderBashCompletion());
    EXPECT_FALSE(contains(parse({"--help"}).out, "--bash-completion"));
    expectUsageError(parse({"--bash-completion", "--frobnicate"}), "--frobnicate");
}

TEST(OptionsHelpText, ATooShortArgumentVectorIsNoProblem) {
    const char* argv[] = {"repro"};
    EXPECT_TRUE(parseCommandLine(0, argv, std::nullopt, 80).options.has_value());
    EXPECT_TRUE(parseCommandLine(1, argv, std::nullopt, 80).options.has_value());
}

}  // namespace
}  // namespace repro
