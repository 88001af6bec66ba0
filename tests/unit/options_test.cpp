// Unit tests for src/core/options.{hpp,cpp}: parseCommandLine on argv vectors and
// parseModes. Every rejection must be exit status 1 with one line on `err`.
#include "core/options.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace repro {
namespace {

// Parses {"repro", args...} with the environment variable N set to `env` (or unset).
ParseOutcome parse(std::initializer_list<const char*> args,
                   std::optional<std::string_view> env = std::nullopt) {
    std::vector<const char*> argv{"repro"};
    argv.insert(argv.end(), args.begin(), args.end());
    return parseCommandLine(static_cast<int>(argv.size()), argv.data(), env);
}

bool contains(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

// The outcome is a usage error: status 1, no options, one non-empty line on err naming
// `mention`, nothing on out.
void expectUsageError(const ParseOutcome& o, std::string_view mention) {
    EXPECT_EQ(o.exitStatus, 1);
    EXPECT_FALSE(o.options.has_value());
    EXPECT_FALSE(o.err.empty());
    EXPECT_EQ(o.err.find('\n'), std::string::npos) << "err is not one line: " << o.err;
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
    EXPECT_EQ(opt.commandLine,
              (std::vector<std::string>{"repro", "--mode", "split", "-n", "7"}));
}

// ---- --mode ------------------------------------------------------------------------------

TEST(OptionsMode, EachValueSelectsItsModes) {
    EXPECT_EQ(expectOptions(parse({"--mode", "split"})).modes, std::vector<Mode>{Mode::Split});
    EXPECT_EQ(expectOptions(parse({"--mode", "multipass"})).modes,
              std::vector<Mode>{Mode::Multipass});
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
    EXPECT_EQ(parseModes("all"),
              std::optional(std::vector<Mode>{Mode::Split, Mode::Multipass, Mode::Single}));
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
    const Options& opt =
        expectOptions(parse({"--preset", "tiny", "--channels", "8", "--pad-h", "1", "--kernel-h",
                             "5", "--batch", "3"}));
    Shape expected = presetShape("tiny");
    expected.channels = 8;
    expected.padH = 1;
    expected.kernelH = 5;
    expected.batch = 3;
    EXPECT_EQ(opt.shape, expected);
    EXPECT_EQ(opt.preset, "tiny");

    // Every shape flag reaches its own field.
    const Options& all = expectOptions(parse(
        {"--batch", "2", "--channels", "3", "--height", "4", "--width", "5", "--kernel-h", "2",
         "--kernel-w", "6", "--stride-h", "3", "--stride-w", "4", "--pad-h", "1", "--pad-w", "2"}));
    EXPECT_EQ(all.shape, (Shape{.batch = 2, .channels = 3, .height = 4, .width = 5, .kernelH = 2,
                                .kernelW = 6, .strideH = 3, .strideW = 4, .padH = 1, .padW = 2}));
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

TEST(OptionsTimeout, PositiveSecondsAccepted) {
    EXPECT_EQ(expectOptions(parse({"--timeout", "5"})).timeoutSeconds, std::optional(5.0));
    EXPECT_EQ(expectOptions(parse({"--timeout", "0.5"})).timeoutSeconds, std::optional(0.5));
    EXPECT_EQ(expectOptions(parse({"--timeout", "1e9"})).timeoutSeconds, std::optional(1e9));
}

TEST(OptionsTimeout, ZeroNegativeAndNonNumbersRejected) {
    expectUsageError(parse({"--timeout", "0"}), "--timeout");
    expectUsageError(parse({"--timeout", "-1"}), "--timeout");
    expectUsageError(parse({"--timeout", "nan"}), "--timeout");
    expectUsageError(parse({"--timeout", "inf"}), "--timeout");
    expectUsageError(parse({"--timeout", "2e9"}), "--timeout");
    expectUsageError(parse({"--timeout", "soon"}), "--timeout");
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
    EXPECT_EQ(expectOptions(parse({"-n", "7", "--drop-dispatch", "14"})).dropDispatch,
              std::optional(14u));
    expectUsageError(parse({"-n", "7", "--drop-dispatch", "15"}), "--drop-dispatch");
    EXPECT_EQ(expectOptions(parse({"--drop-dispatch", "4"}, "2")).dropDispatch,
              std::optional(4u));
    expectUsageError(parse({"--drop-dispatch", "5"}, "2"), "--drop-dispatch");
    // The order of the flags does not matter.
    EXPECT_EQ(expectOptions(parse({"--drop-dispatch", "14", "-n", "7"})).dropDispatch,
              std::optional(14u));
}

// ---- --device and the flags -------------------------------------------------------------

TEST(OptionsDevice, IndexOrNameIsKept) {
    EXPECT_EQ(expectOptions(parse({"--device", "1"})).device, std::optional<std::string>("1"));
    EXPECT_EQ(expectOptions(parse({"--device", "llvmpipe"})).device,
              std::optional<std::string>("llvmpipe"));
}

TEST(OptionsDevice, EmptyDeviceIsRejected) {
    expectUsageError(parse({"--device", ""}), "--device");
}

TEST(OptionsFlags, DumpDir) {
    EXPECT_FALSE(expectOptions(parse({})).dumpDir.has_value());
    EXPECT_EQ(expectOptions(parse({"--dump-dir", "/tmp/out"})).dumpDir,
              std::optional<std::string>("/tmp/out"));
    expectUsageError(parse({"--dump-dir", ""}), "--dump-dir");
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
         {"--help", "--mode", "-n", "--chain", "--preset", "--batch", "--channels", "--height",
          "--width", "--kernel-h", "--kernel-w", "--stride-h", "--stride-w", "--pad-h", "--pad-w",
          "--device", "--list-devices", "--timeout", "--validation", "--drop-dispatch",
          "--dump-dir", "--version"}) {
        EXPECT_TRUE(contains(o.out, option)) << "help lacks " << option << ":\n" << o.out;
    }
    // Defaults are shown.
    EXPECT_TRUE(contains(o.out, "=6")) << o.out;              // -n
    EXPECT_TRUE(contains(o.out, "=spectrostream")) << o.out;  // --preset
    EXPECT_TRUE(contains(o.out, "=all")) << o.out;            // --mode
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
    const Options o = expectOptions(parse({"--barrier", "execution-only", "--submit-every", "3",
                                           "--split-mib", "12.5", "--no-host-wait", "--memory",
                                           "host-cached", "--dispatch-repeat", "4", "--profile",
                                           "blade-exact", "--spirv", "dir"}));
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
    expectUsageError(parse({"--spirv", ""}), "--spirv: empty path");
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
    expectUsageError(parse({"--driver-env-sweep", "--output", "x.json"}), "--driver-env-sweep: prints a table");
    EXPECT_EQ(expectOptions(parse({"--matrix", "--format", "markdown"})).format, Format::Markdown);
    expectUsageError(parse({"--matrix", "--dump-dir", "d"}), "--matrix: not with --dump-dir");
    expectUsageError(parse({"--matrix", "--mode", "single"}), "--matrix: chooses --mode");
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
    for (const char* flag : {"--barrier", "--submit-every", "--split-mib", "--no-host-wait", "--memory",
                             "--dispatch-repeat", "--profile", "--spirv", "--matrix",
                             "--driver-env-sweep", "--all-drivers"}) {
        EXPECT_TRUE(contains(o.out, flag)) << flag;
    }
}

}  // namespace
}  // namespace repro
