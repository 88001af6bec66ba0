// repro --scenario and --list-scenarios, end to end (docs/scenarios.md): every shipped
// scenario gives its documented verdict on the machine's driver (lavapipe in CI), a bad file
// gives one FILE:LINE:COLUMN line and runs nothing, and a simulated driver that drops
// dispatches (tests/simdriver, seed-bug) or transfer commands (drop-transfers) is caught in
// the one-submit modes and not in split.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "bounded_process.hpp"
#include "process.hpp"

namespace {

using repro::test::BoundedResult;
using repro::test::contains;
using repro::test::describeEnd;
using repro::test::runBounded;

const std::string kScenarios = REPRO_SOURCE_DIR "/scenarios/";

// No layer, no simulated driver: the machine's own.
const std::vector<std::string> kPlain = {"VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE="};

BoundedResult repro(const std::vector<std::string>& args, const std::vector<std::string>& env = kPlain) {
    return runBounded(REPRO_EXECUTABLE, args, env, 120);
}

// The environment of a run through the simulated driver (tests/simdriver) with
// REPRO_SIMULATE=`spec`, its trace off.
std::vector<std::string> simulated(const std::string& spec) {
    return {std::string("VK_ADD_LAYER_PATH=") + REPRO_SIMDRIVER_LAYER_DIR, "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate",
            "REPRO_SIMULATE=" + spec, "REPRO_SIMULATE_TRACE="};
}

std::string shown(const BoundedResult& r) { return describeEnd(r) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err; }

std::filesystem::path writeFile(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / ("repro-scenario-" + std::to_string(getpid()) + name);
    std::ofstream(path) << text;
    return path;
}

std::string readText(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class ShippedScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedScenario, GivesItsDocumentedVerdict) {
    const BoundedResult r = repro({"--scenario", kScenarios + GetParam()});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "expected on a correct driver: not reproduced")) << shown(r);
    // blade #356's checked buffer is conv-t's and slice's output, a float result: the CPU
    // model holds it to the chain's float32 tolerance (scenario/scenario_chain.hpp), split bit for
    // bit, and the lines say so with the largest difference measured
    const bool chain = GetParam() == "blade-356-conv-t-slice-chain.toml";
    EXPECT_TRUE(contains(r.out, chain ? "--- NOT REPRODUCED: every mode's checked buffers are within the CPU model's "
                                        "float32 tolerance and bit-identical to split\n"
                                      : "--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the "
                                        "CPU model and to split"))
        << shown(r);
    if (chain) {
        EXPECT_TRUE(contains(r.out,
                             "  chain:    'small[3]' holds the chain's small[3]: compared with the CPU "
                             "model's float64 chain"))
            << shown(r);
        EXPECT_TRUE(contains(r.out,
                             "mode=split     6 submit(s)\n    -> ok: within the CPU model's float32 "
                             "tolerance; 'small[3]': the largest difference "))
            << shown(r);
        EXPECT_FALSE(contains(r.out, "compared with split only")) << shown(r);
    }
    for (const char* mode : {"mode=split", "mode=multipass", "mode=single"}) EXPECT_TRUE(contains(r.out, mode)) << mode;
}

INSTANTIATE_TEST_SUITE_P(Lavapipe, ShippedScenario,
                         ::testing::Values("kompute-196-increment-chain.toml",
                                           "moltenvk-2805-fill-between-dispatches.toml",
                                           "offload-513-compute-then-copy.toml", "sensitivity-stale-read.toml",
                                           "turnip-28469-unaligned-transfers.toml",
                                           "vkd3d-2617-clear-then-consume.toml", "renderdoc-3899-fill-then-copy.toml",
                                           "executorch-17299-staged-dispatches.toml", "llama-25767-many-shapes.toml",
                                           "taichi-3791-odd-even-sort.toml", "cubecl-1336-private-array.toml",
                                           "llama-cpp-21724-many-dispatches.toml",
                                           "turboquant-185-one-long-dispatch.toml", "taichi-3544-heavy-kernels.toml",
                                           "indirect-args-written-by-a-dispatch.toml",
                                           "compute-copy-on-a-second-queue.toml", "blade-356-conv-t-slice-chain.toml"));

// A driver that forwards only the first dispatch of each command buffer: multipass and single
// lose increments 2 and 3, split (one dispatch per submit) does not. Proves the checker fails.
TEST(ScenarioSimulated, DroppedDispatchesAreCaughtInTheOneSubmitModes) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml"}, simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=split     3 submit(s)\n    -> ok: bit-identical to the CPU model\n")) << shown(r);
    // data starts as iota from 1000: word 0 should be 1003, one increment leaves 1001.
    EXPECT_TRUE(contains(r.out,
                         "--- BUG REPRODUCED: mode multipass is wrong: buffer 'data' differs from the CPU model "
                         "at byte 0 (word 0: 0x000003e9, the CPU model 0x000003eb), last written by step 5 "
                         "dispatch increment; 16384 of 16384 words differ"))
        << shown(r);
    // single loses the same two increments (word 0: one increment where three were due).
    EXPECT_TRUE(contains(r.out,
                         "  mode=single    1 submit(s)\n    -> MISMATCH: buffer 'data' differs from the CPU model "
                         "at byte 0 (word 0: 0x000003e9, the CPU model 0x000003eb), last written by step 5 "
                         "dispatch increment; 16384 of 16384 words differ\n"))
        << shown(r);
}

// Exactly the dropped dispatches' words: three increments of different counts (all, 100,
// 10 words) with the driver forwarding only the first. Words 0..99 miss the second (and
// 0..9 the third), words from 100 on are right: 100 of 1024 words differ, word 0 is 2 short.
TEST(ScenarioSimulated, ADroppedDispatchIsCaughtExactlyWordForWord) {
    const auto path = writeFile("-exact.toml",
                                "name = \"e\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\n"
                                "check = [\"a\"]\n[[buffer]]\nname = \"a\"\nbytes = 4096\ninit = \"iota\"\n"
                                "value = 7\n[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\n[[step]]\n"
                                "barrier = \"blade-g\"\n[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\n"
                                "count = 100\n[[step]]\nbarrier = \"blade-g\"\n[[step]]\ndispatch = "
                                "\"increment\"\nbindings = [\"a\"]\ncount = 10\n");
    const BoundedResult r = repro({"--scenario", path.string()}, simulated("seed-bug:dispatches=1"));
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=split     3 submit(s)\n    -> ok: bit-identical to the CPU model\n")) << shown(r);
    // word 0: 7 + 1 forwarded; the model 7 + 3. The last writer of byte 0 is step 5 (count 10).
    for (const char* mode : {"multipass 1", "single    1"}) {
        EXPECT_TRUE(contains(r.out, std::string("  mode=") + mode +
                                        " submit(s)\n    -> MISMATCH: buffer 'a' differs from the CPU model at byte "
                                        "0 (word 0: 0x00000008, the CPU model 0x0000000a), last written by step 5 "
                                        "dispatch increment; 100 of 1024 words differ\n"))
            << mode << shown(r);
    }
}

// A driver that drops transfer commands recorded after other work and a barrier in the same
// command buffer (REPRO_SIMULATE=drop-transfers): for each scenario with such a transfer,
// split (one step per command buffer) stays right, multipass and single are wrong, and the
// mismatch names the step whose write is missing. Split staying right also shows that the
// mode's own upload and readback copies (their own command buffers) are not dropped.
struct DroppedTransfer {
    const char* file;
    const char* multipass;  // the mismatch line's text after "mode multipass is wrong: "
    const char* single;     // the same for single
};

class ScenarioDroppedTransfers : public ::testing::TestWithParam<DroppedTransfer> {};

TEST_P(ScenarioDroppedTransfers, OneSubmitModesWrongSplitRightAndTheStepNamed) {
    const DroppedTransfer& c = GetParam();
    const BoundedResult r = repro({"--scenario", kScenarios + c.file}, simulated("drop-transfers"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, " submit(s)\n    -> ok: bit-identical to the CPU model\n  mode=multipass")) << shown(r);
    EXPECT_TRUE(contains(r.out, std::string("--- BUG REPRODUCED: mode multipass is wrong: ") + c.multipass + "\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, std::string("  mode=single    1 submit(s)\n    -> MISMATCH: ") + c.single + "\n"))
        << shown(r);
}

INSTANTIATE_TEST_SUITE_P(
    Simulated, ScenarioDroppedTransfers,
    ::testing::Values(
        DroppedTransfer{"moltenvk-2805-fill-between-dispatches.toml",
                        "buffer 'readback' differs from the CPU model at byte 0 (word 0: 0x00000000, the CPU model "
                        "0x2a8be121), last written by step 8 copy consumed -> readback; 64 of 64 words differ",
                        "buffer 'readback' differs from the CPU model at byte 0 (word 0: 0x00000000, the CPU model "
                        "0x2a8be121), last written by step 8 copy consumed -> readback; 64 of 64 words differ"},
        DroppedTransfer{"turnip-28469-unaligned-transfers.toml",
                        "buffer 'dst' differs from the CPU model at byte 64 (word 16: 0xa5a5a5a5, the CPU model "
                        "0x22222222), last written by step 3 fill dst; 51 of 256 words differ",
                        "buffer 'dst' differs from the CPU model at byte 64 (word 16: 0xa5a5a5a5, the CPU model "
                        "0x22222222), last written by step 3 fill dst; 51 of 256 words differ"},
        DroppedTransfer{"renderdoc-3899-fill-then-copy.toml",
                        "buffer 'dst' differs from the CPU model at byte 4097 (word 1024: 0x00000000, the CPU model "
                        "0x00001000), last written by step 3 copy src -> dst; 10240 of 16384 words differ",
                        "buffer 'dst' differs from the CPU model at byte 4097 (word 1024: 0x00000000, the CPU model "
                        "0x00001000), last written by step 3 copy src -> dst; 10240 of 16384 words differ"},
        DroppedTransfer{"offload-513-compute-then-copy.toml",
                        "buffer 'data' differs from the CPU model at byte 128 (word 32: 0x0000002a, the CPU model "
                        "0x00000002), last written by step 5 dispatch increment; 8 of 1024 words differ",
                        "buffer 'data' differs from the CPU model at byte 128 (word 32: 0x0000002a, the CPU model "
                        "0x00000002), last written by step 5 dispatch increment; 8 of 1024 words differ"},
        DroppedTransfer{"executorch-17299-staged-dispatches.toml",
                        "buffer 'final' differs from the CPU model at byte 0 (word 0: 0x00000064, the CPU model "
                        "0x0000006b), last written by step 17 dispatch copy; 64 of 64 words differ",
                        "buffer 'final' differs from the CPU model at byte 0 (word 0: 0x00000064, the CPU model "
                        "0x0000006b), last written by step 17 dispatch copy; 64 of 64 words differ"}),
    [](const ::testing::TestParamInfo<DroppedTransfer>& param) {
        std::string name = param.param.file;
        name = name.substr(0, name.find('-'));
        return name;
    });

// The same driver on the odd-even sort (256 compare-swap dispatches, a repeat): split sorts,
// the one-submit modes keep only the first compare-swap and are caught.
TEST(ScenarioSimulated, DroppedCompareSwapsLeaveTheSortUnsorted) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "taichi-3791-odd-even-sort.toml"}, simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=split     256 submit(s)\n    -> ok: bit-identical to the CPU model\n"))
        << shown(r);
    EXPECT_TRUE(
        contains(r.out, "--- BUG REPRODUCED: mode multipass is wrong: buffer 'data' differs from the CPU model"))
        << shown(r);
    // The header names the repetitions and how many steps the repeat made.
    EXPECT_TRUE(contains(r.out, "step 3 dispatch compare-swap (repetition 2 of 256)")) << shown(r);
    EXPECT_TRUE(contains(r.out, "; ... (512 steps in all)\n")) << shown(r);
}

// The same driver on the indirect scenario: the simulated driver counts vkCmdDispatchIndirect
// as a dispatch (tests/simdriver/layer_commands.cpp), so in one command buffer only the first
// indirect-writer runs. Split (one step per submit) is right; multipass and single lose the
// second writer, both indirect dispatches and so the increment and the copy, and the first
// difference is the second writer's command at byte 0 of args.
TEST(ScenarioSimulated, DroppedIndirectDispatchesAreCaughtInTheOneSubmitModes) {
    const BoundedResult r = repro({"--scenario", kScenarios + "indirect-args-written-by-a-dispatch.toml"},
                                  simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=split     4 submit(s)\n    -> ok: bit-identical to the CPU model\n")) << shown(r);
    const std::string missing =
        "buffer 'args' differs from the CPU model at byte 0 (word 0: 0x00000000, the CPU model 0x00000010), last "
        "written by step 4 dispatch indirect-writer; 3 of 16 words differ";
    EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED: mode multipass is wrong: " + missing + "\n")) << shown(r);
    EXPECT_TRUE(contains(r.out, "  mode=single    1 submit(s)\n    -> MISMATCH: " + missing + "\n")) << shown(r);
}

// The simulated driver counts an indirect dispatch as a dispatch: args written by an update
// (no dispatch), then a direct increment and an indirect one. With only the first dispatch
// forwarded, the indirect increment is lost in the one-submit modes (word 0: 7 + 1, the model
// 7 + 2); a driver that did not count it would run it and be right.
TEST(ScenarioSimulated, AnIndirectDispatchCountsAsADispatchOfTheCommandBuffer) {
    const auto path = writeFile("-indirect.toml",
                                "name = \"i\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\n"
                                "check = [\"a\"]\n[[buffer]]\nname = \"a\"\nbytes = 256\ninit = \"iota\"\nvalue = 7\n"
                                "[[buffer]]\nname = \"args\"\nbytes = 12\ninit = \"undefined\"\n[[step]]\nupdate = "
                                "\"args\"\nwords = [1, 1, 1]\n[[step]]\nbarrier = \"blade-g\"\n[[step]]\ndispatch = "
                                "\"increment\"\nbindings = [\"a\"]\n[[step]]\nbarrier = \"blade-g\"\n[[step]]\n"
                                "dispatch_indirect = \"increment\"\nbindings = [\"a\"]\nargs = \"args\"\n");
    const BoundedResult r = repro({"--scenario", path.string()}, simulated("seed-bug:dispatches=1"));
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=split     3 submit(s)\n    -> ok: bit-identical to the CPU model\n")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- BUG REPRODUCED: mode multipass is wrong: buffer 'a' differs from the CPU model at byte 0 "
                         "(word 0: 0x00000008, the CPU model 0x00000009), last written by step 5 dispatch-indirect "
                         "increment; 64 of 64 words differ\n"))
        << shown(r);
}

// A simulated dispatch that never ends: the one submit times out (--timeout 1), exit 3, the
// device is abandoned and nothing crashes at teardown.
TEST(ScenarioSimulated, AHungSubmitIsAHang) {
    const BoundedResult r = repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--timeout", "1"},
                                  simulated("clock:us-per-wg=1;hang:dispatches=1"));
    ASSERT_EQ(r.status, 3) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- GPU HANG: mode multipass: the one submit of all 5 steps (vkWaitSemaphores): "
                         "VK_TIMEOUT (timed out)"))
        << shown(r);
}

TEST(ScenarioBadFile, OneLineWithFileLineColumnAndNothingRun) {
    const auto path = writeFile("-bad.toml",
                                "name = \"x\"\nsource = \"s\"\npattern = \"p\"\nexpected = "
                                "\"not reproduced\"\ncheck = [\"a\"]\n[[buffer]]\nname = \"a\"\nbytes = "
                                "64\n[[step]]\ndispatch = \"conv\"\nbindings = [\"a\"]\n");
    const BoundedResult r = repro({"--scenario", path.string()});
    std::filesystem::remove(path);
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.out, "") << shown(r);
    EXPECT_EQ(r.err, "repro: " + path.string() +
                         ":10:12: unknown kernel 'conv'; expected increment, copy, noop, "
                         "compare-swap, private-array, work, indirect-writer, conv-t or slice\n");
}

// A barrier "none" between two in-place increments: a control, said so before the results.
// Lavapipe runs a command buffer's dispatches one after another, so the control is right there;
// a real GPU may well make it wrong (exit 2), which proves nothing about its driver.
TEST(ScenarioControl, ABarrierNoneIsLabelledAControl) {
    const auto path = writeFile("-control.toml",
                                "name = \"c\"\nsource = \"s\"\npattern = \"p\"\nexpected = "
                                "\"not reproduced\"\ncheck = [\"a\"]\n[[buffer]]\nname = \"a\"\n"
                                "bytes = 256\n[[step]]\ndispatch = \"increment\"\nbindings = "
                                "[\"a\"]\n[[step]]\nbarrier = \"none\"\n[[step]]\ndispatch = "
                                "\"increment\"\nbindings = [\"a\"]\n");
    const BoundedResult r = repro({"--scenario", path.string()});
    std::filesystem::remove(path);
    ASSERT_TRUE(r.status == 0 || r.status == 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "step 2 barrier none (control)")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "note: a barrier is labelled a control (insufficient on purpose): a wrong result "
                         "proves nothing about the driver"))
        << shown(r);
}

// Each class of bad file through the executable: exit 1, its one FILE:LINE:COLUMN line on
// stderr, and nothing on stdout (no device made, no mode run). The lines themselves are
// unit-tested (tests/unit/scenario_test.cpp); this checks that none of them runs anything.
struct BadFile {
    const char* name;
    const char* body;  // after the header and one 64-byte buffer 'a' (lines 1..8)
    const char* line;  // the expected stderr line after "repro: FILE:"
};

class ScenarioBadFiles : public ::testing::TestWithParam<BadFile> {};

TEST_P(ScenarioBadFiles, ExitOneWithOneLineAndNothingRun) {
    const std::string header =
        "name = \"x\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\ncheck = "
        "[\"a\"]\n[[buffer]]\nname = \"a\"\nbytes = 64\n";
    const auto path = writeFile(std::string("-") + GetParam().name + ".toml", header + GetParam().body);
    const BoundedResult r = repro({"--scenario", path.string()});
    std::filesystem::remove(path);
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.out, "") << shown(r);
    EXPECT_EQ(r.err, "repro: " + path.string() + ":" + GetParam().line + "\n") << shown(r);
}

INSTANTIATE_TEST_SUITE_P(
    EachClass, ScenarioBadFiles,
    ::testing::Values(
        BadFile{"syntax", "[[step]]\nfill = = 3\n",
                "10:8: TOML syntax: Error while parsing value: could not determine value type"},
        BadFile{"kernel", "[[step]]\ndispatch = \"conv\"\nbindings = [\"a\"]\n",
                "10:12: unknown kernel 'conv'; expected increment, copy, noop, compare-swap, private-array, work, "
                "indirect-writer, conv-t or slice"},
        BadFile{"noshape", "[[step]]\ndispatch = \"slice\"\nbindings = [\"a\", \"a\"]\n",
                "9:1: a slice dispatch takes the file's shape; expected shape = \"small\" (or tiny, spectrostream) "
                "at the top of the file"},
        BadFile{"modes", "[[step]]\ndispatch = \"noop\"\nbindings = [\"a\"]\nmodes = [\"single\"]\n",
                "12:9: only a barrier step takes 'modes' (every mode must do the same work; a barrier may differ)"},
        BadFile{"bindings", "[[step]]\ndispatch = \"copy\"\nbindings = [\"a\"]\n",
                "11:12: kernel copy takes 2 binding(s) (src, dst); got 1"},
        BadFile{"bigbuffer", "[[buffer]]\nname = \"b\"\nbytes = 134217732\n",
                "11:9: 'bytes' = 134217732 is out of range; expected 0..134217728"},
        BadFile{"range", "[[step]]\nfill = \"a\"\noffset = 60\nsize = 8\n",
                "9:1: bytes [60, 68) are not inside buffer 'a' (64 bytes); expected a non-empty range in it"},
        BadFile{"groups", "[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\ngroups = [65536]\n",
                "12:10: workgroup count 65536 is out of range; expected 1..65535"},
        BadFile{"args",
                "[[step]]\ndispatch = \"indirect-writer\"\nbindings = [\"a\"]\n[[step]]\ndispatch_indirect = "
                "\"noop\"\nbindings = [\"a\"]\nargs = \"a\"\nargs_offset = 56\n",
                "16:15: the group counts read at byte 56 of 'a' (64 bytes) do not fit; expected args_offset a "
                "multiple of 4 with args_offset + 12 <= 64 (a VkDispatchIndirectCommand is 12 bytes)"},
        BadFile{"unwritten",
                "[[buffer]]\nname = \"u\"\nbytes = 64\ninit = \"undefined\"\n[[step]]\ndispatch = "
                "\"copy\"\nbindings = [\"u\", \"a\"]\n",
                "13:1: step 1 dispatch copy reads buffer 'u' before any step writes it (its init is "
                "\"undefined\"); expected a write first or an init"}),
    [](const ::testing::TestParamInfo<BadFile>& param) { return std::string(param.param.name); });

TEST(ScenarioBadFile, AMissingFileIsAUsageError) {
    const BoundedResult r = repro({"--scenario", "/nonexistent/x.toml"});
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.err, "repro: --scenario: cannot read '/nonexistent/x.toml' (No such file or directory)\n");
}

TEST(ScenarioOptions, OnlyModeDeviceAndTimeoutGoWithIt) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--dispatch-repeat", "2"});
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.err,
              "repro: --scenario: not with --dispatch-repeat (scenarios take only --mode, --device, --timeout, "
              "--barrier, --repeat, --validation, --json, --format, -o/--output, --print-stream, --timings, "
              "--timestamps, --check-steps, --poison, --sweep, --invert, --expect-driver, --matrix, --triage, "
              "--submit-every and --reference so far)\n")
        << shown(r);
    const BoundedResult one =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--mode", "single"});
    EXPECT_EQ(one.status, 0) << shown(one);
    EXPECT_FALSE(contains(one.out, "mode=split")) << shown(one);
    EXPECT_TRUE(contains(one.out,
                         "--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU "
                         "model\n"))
        << shown(one);
}

// --barrier and --repeat on a scenario (docs/scenarios.md): a driver that forwards only the
// first dispatch of each command buffer is wrong in every one-submit run, counted per mode;
// split stays right; --barrier none relabels the steps as controls.
TEST(ScenarioOptions, RepeatCountsWrongRunsPerModeAndBarrierRelabelsTheSteps) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--repeat", "3", "--barrier", "none"},
              simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "step 2 barrier none (control) (--barrier none)")) << shown(r);
    EXPECT_TRUE(contains(r.out, "  mode=split     wrong in 0 of 3 runs\n")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  mode=multipass wrong in 3 of 3 runs (first: run 1: buffer 'data' differs from the "
                         "CPU model at byte 0"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED: mode multipass is wrong in 3 of 3 runs; run 1: buffer 'data'"))
        << shown(r);
    const BoundedResult sync2 =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--barrier", "sync2"});
    EXPECT_EQ(sync2.status, 1) << shown(sync2);
    EXPECT_EQ(sync2.err,
              "repro: --barrier sync2 does not apply to a scenario, whose barriers name their own masks; expected "
              "blade, full, execution-only or none\n");
}

// --print-stream on a scenario: every mode's calls, recorded under the swallowing tracer, the
// buffers and pipelines by the file's names; nothing runs (no result lines), exit 0. Single
// records the file's barriers, split leaves them out (its submit boundaries order the steps).
TEST(ScenarioOptions, PrintStreamShowsEachModesCallsAndRunsNothing) {
    const BoundedResult r = repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--print-stream"});
    ASSERT_EQ(r.status, 0) << shown(r);
    const size_t split = r.out.find("## mode split: scenario 'kompute-196-increment-chain'");
    const size_t single = r.out.find("## mode single: scenario 'kompute-196-increment-chain'");
    ASSERT_NE(split, std::string::npos) << shown(r);
    ASSERT_NE(single, std::string::npos) << shown(r);
    const std::string splitCalls = r.out.substr(split, r.out.find("## mode multipass") - split);
    const std::string singleCalls = r.out.substr(single);
    const std::string sync2 =
        "vkCmdPipelineBarrier2(memory COMPUTE_SHADER SHADER_STORAGE_WRITE -> COMPUTE_SHADER "
        "SHADER_STORAGE_READ|SHADER_STORAGE_WRITE)";
    EXPECT_FALSE(contains(splitCalls, sync2)) << splitCalls;
    EXPECT_TRUE(contains(singleCalls, sync2)) << singleCalls;
    EXPECT_TRUE(contains(singleCalls, "vkCmdBindDescriptorSets(COMPUTE, set 0: data)\n  vkCmdDispatch(256, 1, 1)"))
        << singleCalls;
    EXPECT_TRUE(contains(singleCalls, "vkCmdCopyBuffer(data (host twin) -> data, 65536 bytes)")) << singleCalls;
    EXPECT_FALSE(contains(r.out, "submit(s)")) << shown(r);  // no mode ran
    EXPECT_TRUE(contains(r.out, "--- command stream printed; nothing was run (--print-stream)\n")) << shown(r);
}

// The submits of a --print-stream section, each from vkBeginCommandBuffer to its
// vkWaitSemaphores, without the lines repro adds that blade does not record ("(not blade's)").
std::vector<std::string> submitsOf(const std::string& section) {
    std::vector<std::string> out;
    std::istringstream lines(section);
    std::string line, submit;
    while (std::getline(lines, line)) {
        if (line.rfind("vkBeginCommandBuffer", 0) == 0) submit.clear();
        if (!contains(line, "(not blade's)")) submit += line + "\n";
        if (line.rfind("vkWaitSemaphores", 0) == 0) out.push_back(submit);
    }
    return out;
}

// scenarios/blade-356-conv-t-slice-chain.toml records, in every mode, exactly the calls the
// built-in recorders (src/vk/blade_modes.cpp) record for `--preset small -n 3`: the same
// pipelines, descriptor sets (buffers by the built-in's names), dispatches, blade's barriers
// G and C, submits and waits. What differs is repro's own: the built-in's clearing submit and
// the scenario's upload (each the first submit), the scenario's readback submit (its last),
// and the host-read barrier marked "(not blade's)".
class ScenarioBlade356 : public ::testing::TestWithParam<const char*> {};

TEST_P(ScenarioBlade356, RecordsTheBuiltInChainsCallsInItsMode) {
    const std::string mode = GetParam();
    const BoundedResult builtIn = repro({"--preset", "small", "-n", "3", "--mode", mode, "--print-stream"});
    const BoundedResult file =
        repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--mode", mode, "--print-stream"});
    ASSERT_EQ(builtIn.status, 0) << shown(builtIn);
    ASSERT_EQ(file.status, 0) << shown(file);
    const std::vector<std::string> blade = submitsOf(builtIn.out.substr(builtIn.out.find("## mode")));
    const std::vector<std::string> scenario = submitsOf(file.out.substr(file.out.find("## mode")));
    // split: 6 submits; multipass and single: 1; each after one submit of repro's own
    ASSERT_EQ(blade.size(), mode == "split" ? 7u : 2u) << builtIn.out;
    ASSERT_EQ(scenario.size(), blade.size() + 1) << file.out;  // and the readback
    for (size_t i = 1; i < blade.size(); ++i) EXPECT_EQ(scenario[i], blade[i]) << "submit " << i << " of " << mode;
    // repro's upload: the zero-initialised device-local buffers that are not read back are
    // filled with zeros, without host twins; small[3] is host-visible (checked, mapped)
    EXPECT_TRUE(contains(scenario[0], "vkCmdFillBuffer(big[0], offset 0, WHOLE_SIZE, 0x00000000)")) << scenario[0];
    EXPECT_FALSE(contains(scenario[0], "host twin")) << scenario[0];
    EXPECT_TRUE(contains(blade.back(), mode == "single" ? "# C" : "# G")) << blade.back();
}

INSTANTIATE_TEST_SUITE_P(EveryMode, ScenarioBlade356, ::testing::Values("split", "multipass", "single"));

// chain-input at the full shape (3.7 M floats), made in the supervised child on a thread
// while the driver creates the device, on the worker pool, and copied by the GPU: the CPU
// model's copy of it must match, and a word never made is an internal error (initialWords
// throws), not zeros on both sides. It once ran in the parent before the fork, and the
// child, whose pool was then the parent's with threads that did not exist there, crashed
// at exit after its verdict (SIGSEGV, exit 125, first seen on the H200); a forked child
// still gets a pool of its own (core/parallel.cpp pool()).
TEST(ScenarioBlade356, AFullSizeChainInputDoesNotCrashTheChildAtExit) {
    const auto path = writeFile("-full-input.toml",
                                "name = \"i\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\n"
                                "shape = \"spectrostream\"\ncheck = [\"out\"]\n[[buffer]]\nname = \"in\"\nbytes = "
                                "14745600\ninit = \"chain-input\"\n[[buffer]]\nname = \"out\"\nbytes = 14745600\n"
                                "[[step]]\ndispatch = \"copy\"\nbindings = [\"in\", \"out\"]\n");
    const BoundedResult r = repro({"--scenario", path.string(), "--mode", "single"});
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_FALSE(contains(r.out, "CRASHED")) << shown(r);
    EXPECT_TRUE(
        contains(r.out, "--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU model\n"))
        << shown(r);
}

// Without split, the CPU chain alone judges blade #356's checked buffer: single runs on its
// own and is held to the tolerance.
// The report names the buffer's chain value, and nothing is split-only.
TEST(ScenarioBlade356, SingleAloneIsJudgedByTheCpuChain) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--mode", "single", "--format", "json"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_FALSE(contains(r.err, "mode=split")) << shown(r);
    EXPECT_TRUE(contains(r.err,
                         "--- NOT REPRODUCED: every mode's checked buffers are within the CPU model's float32 "
                         "tolerance\n"))
        << shown(r);
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["scenario"]["chain_values"], nlohmann::json({{"small[3]", "small[3]"}})) << r.out;
    EXPECT_EQ(doc["scenario"]["split_only"], nlohmann::json::array()) << r.out;
    EXPECT_EQ(doc["modes"][0]["result"], "ok") << r.out;
}

// A conv-t output that held big[0] until a fill overwrote part of it holds no value of the
// chain: split only, worded as a float kernel's output, never as a user kernel's (the file has
// none).
TEST(ScenarioBlade356, AChainValuePartlyOverwrittenIsSplitOnlyAndNoUserKernelIsBlamed) {
    const auto path =
        writeFile("-partly-filled.toml",
                  "name = \"o\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\nshape = \"tiny\"\n"
                  "check = [\"big\"]\n[[buffer]]\nname = \"in\"\nbytes = 1120\ninit = \"chain-input\"\n[[buffer]]\n"
                  "name = \"w\"\nbytes = 768\ninit = \"chain-weight\"\n[[buffer]]\nname = \"big\"\nbytes = 3584\n"
                  "[[step]]\ndispatch = \"conv-t\"\nbindings = [\"in\", \"w\", \"big\"]\n[[step]]\nfill = \"big\"\n"
                  "size = 16\nvalue = 0\n");
    const BoundedResult r = repro({"--scenario", path.string()});
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  note: the CPU model cannot compute conv-t or slice (float kernels) outside the "
                         "chain's values: checked buffer(s) 'big' are compared with split only\n"))
        << shown(r);
    EXPECT_FALSE(contains(r.out, "user kernel")) << shown(r);
    EXPECT_FALSE(contains(r.out, "  chain:")) << shown(r);
}

// --reference split leaves the CPU chain out (split alone judges the float buffer, and the
// lines say so); --reference none is the built-in's zero check only, refused here.
TEST(ScenarioBlade356, ReferenceSplitLeavesTheCpuChainOutAndNoneIsRefused) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--reference", "split"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  chain:    'small[3]' holds the chain's small[3]; the CPU chain is off (--reference "
                         "split): compared with split only\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- NOT REPRODUCED: every mode's checked buffers are bit-identical to split; "
                         "'small[3]' (written by conv-t or slice (float kernels; the CPU chain is off)): "
                         "compared with split only\n"))
        << shown(r);
    const BoundedResult none =
        repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--reference", "none"});
    EXPECT_EQ(none.status, 1) << shown(none);
    EXPECT_EQ(none.err,
              "repro: --reference none: not on a scenario (the zero and non-finite checks alone are the "
              "built-in chain's); expected auto, split or cpu\n");
}

// At the full shape the CPU chain is 6.8e10 multiply-adds, past --reference auto's bound: the
// header says it is off and why (--print-stream: nothing runs, nothing is computed), and
// --reference cpu turns it on.
TEST(ScenarioBlade356, AutoLeavesAFullSizeCpuChainOutAndSaysSo) {
    std::string text = readText(kScenarios + "blade-356-conv-t-slice-chain.toml");
    for (const auto& [from, to] :
         std::vector<std::pair<std::string, std::string>>{{"shape = \"small\"", "shape = \"spectrostream\""},
                                                          {"bytes = 30720\n", "bytes = 14745600\n"},
                                                          {"bytes = 12288\n", "bytes = 786432\n"},
                                                          {"bytes = 73472\n", "bytes = 30537728\n"}}) {
        for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
            text.replace(at, from.size(), to);
    }
    const auto path = writeFile("-full-chain.toml", text);
    const BoundedResult autoRef = repro({"--scenario", path.string(), "--print-stream"});
    const BoundedResult cpu = repro({"--scenario", path.string(), "--print-stream", "--reference", "cpu"});
    std::filesystem::remove(path);
    ASSERT_EQ(autoRef.status, 0) << shown(autoRef);
    EXPECT_TRUE(contains(autoRef.out,
                         "  chain:    'small[3]' holds the chain's small[3]; the CPU chain is off "
                         "(6.8e+10 multiply-adds, past --reference auto's 4.3e+09; --reference cpu "
                         "computes it): compared with split only\n"))
        << shown(autoRef);
    ASSERT_EQ(cpu.status, 0) << shown(cpu);
    EXPECT_TRUE(contains(cpu.out,
                         "  chain:    'small[3]' holds the chain's small[3]: compared with the CPU model's "
                         "float64 chain"))
        << shown(cpu);
}

// conv-t on data other than the chain's (random words) is a float result the CPU model
// cannot know: without split nothing would judge it, so one line, exit 1, nothing run.
TEST(ScenarioBlade356, ConvTOffTheChainWithoutSplitIsRefusedSinceNothingWouldBeCompared) {
    const auto path =
        writeFile("-off-chain.toml",
                  "name = \"o\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\nshape = \"tiny\"\n"
                  "check = [\"big\"]\n[[buffer]]\nname = \"in\"\nbytes = 1120\ninit = \"random\"\n[[buffer]]\n"
                  "name = \"w\"\nbytes = 768\ninit = \"chain-weight\"\n[[buffer]]\nname = \"big\"\nbytes = 3584\n"
                  "[[step]]\ndispatch = \"conv-t\"\nbindings = [\"in\", \"w\", \"big\"]\n");
    const BoundedResult r = repro({"--scenario", path.string(), "--mode", "single"});
    std::filesystem::remove(path);
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.err, "repro: --mode without split: " + path.string() +
                         "'s checked buffers ('big') are written by conv-t or slice (float kernels) outside the "
                         "chain's values, which the CPU model does not compute, and split is their only "
                         "reference, so nothing would be compared; expected split among the modes\n")
        << shown(r);
    EXPECT_TRUE(r.out.empty()) << shown(r);
}

// The seed's symptom through the simulated driver that forwards only the first dispatch of a
// command buffer: split (one dispatch per submit) is right, the one-submit modes end with the
// all-zero output the RADV report had, outside the CPU chain's tolerance at every element.
TEST(ScenarioBlade356Simulated, DroppedDispatchesGiveAllZeroOutputInTheOneSubmitModes) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml"}, simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "  mode=split     6 submit(s)\n    -> ok: within the CPU model's float32 tolerance"))
        << shown(r);
    for (const char* mode : {"multipass", "single   "}) {
        EXPECT_TRUE(contains(r.out, std::string("  mode=") + mode +
                                        " 1 submit(s)\n    -> MISMATCH: buffer 'small[3]' (the chain's small[3]) is "
                                        "outside the CPU model's float32 tolerance at 7680 of 7680 elements; the "
                                        "worst at byte "))
            << mode << shown(r);
    }
    EXPECT_TRUE(contains(r.out, ": 0 (0x00000000), the CPU model ")) << shown(r);
    EXPECT_TRUE(contains(r.out, "last written by step 11 dispatch slice\n")) << shown(r);
}

// A driver that drops every dispatch, split's included: every mode agrees (all zeros), so
// only the CPU chain can tell, and --check-steps names split's first conv-t, through its crop.
TEST(ScenarioBlade356Simulated, ADriverWrongInEveryModeIsCaughtByTheCpuChain) {
    const BoundedResult r = repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--check-steps"},
                                  simulated("seed-bug:dispatches=0"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- BUG REPRODUCED: mode split is wrong: buffer 'small[3]' (the chain's small[3]) "
                         "is outside the CPU model's float32 tolerance at 7680 of 7680 elements"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "    check-steps: first wrong step: step 1 dispatch conv-t: buffer 'big[0]' (the "
                         "chain's big[0], its crop at (1, 1)) is outside the CPU model's float32 tolerance at "
                         "7680 of 7680 elements"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "; 6 of 6 checked step(s) differ\n")) << shown(r);
}

TEST(ScenarioList, ListsTheShippedScenarios) {
    const BoundedResult r = repro({"--list-scenarios"});
    ASSERT_EQ(r.status, 0) << shown(r);
    for (const char* name :
         {"kompute-196-increment-chain", "moltenvk-2805-fill-between-dispatches", "offload-513-compute-then-copy",
          "turnip-28469-unaligned-transfers", "vkd3d-2617-clear-then-consume", "renderdoc-3899-fill-then-copy",
          "executorch-17299-staged-dispatches", "llama-25767-many-shapes", "sensitivity-stale-read",
          "taichi-3791-odd-even-sort", "cubecl-1336-private-array", "llama-cpp-21724-many-dispatches",
          "turboquant-185-one-long-dispatch", "taichi-3544-heavy-kernels", "indirect-args-written-by-a-dispatch",
          "compute-copy-on-a-second-queue", "blade-356-conv-t-slice-chain"}) {
        EXPECT_TRUE(contains(r.out, name)) << shown(r);
    }
    EXPECT_TRUE(contains(r.out, "https://github.com/KomputeProject/kompute/issues/196")) << shown(r);
}

// The file's SHA-256 as coreutils' sha256sum prints it: computed outside repro.
std::string sha256sum(const std::string& path) {
    const BoundedResult r = runBounded("/usr/bin/sha256sum", {path}, {}, 30);
    EXPECT_EQ(r.status, 0) << shown(r);
    return r.out.substr(0, r.out.find(' '));
}

nlohmann::json readJson(const std::filesystem::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

// Files a failed or finished atomic write could leave beside `path`: ".NAME.XXXXXX".
bool temporaryLeft(const std::filesystem::path& path) {
    for (const auto& entry : std::filesystem::directory_iterator(path.parent_path())) {
        if (entry.path().filename().string().rfind("." + path.filename().string() + ".", 0) == 0) return true;
    }
    return false;
}

// --json FILE (docs/scenarios.md "The JSON report"): the scenario's facts, the file's hash
// (equal to sha256sum's), the device, each mode's submits and result, and the verdict.
TEST(ScenarioReport, JsonFileCarriesTheScenarioItsHashAndEveryMode) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const auto dir = std::filesystem::temp_directory_path() / ("repro-scenario-json-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto path = dir / "report.json";
    const BoundedResult r = repro({"--scenario", file, "--json", path.string()});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << shown(r);  // the text report stays on stdout
    const nlohmann::json j = readJson(path);
    EXPECT_EQ(j.at("schema"), "repro-scenario-report");
    EXPECT_EQ(j.at("schema_version"), 1);
    const auto& sc = j.at("scenario");
    EXPECT_EQ(sc.at("name"), "kompute-196-increment-chain");
    EXPECT_EQ(sc.at("source"), "https://github.com/KomputeProject/kompute/issues/196");
    EXPECT_EQ(sc.at("expected"), "not reproduced");
    EXPECT_FALSE(sc.at("pattern").get<std::string>().empty());
    EXPECT_EQ(sc.at("file"), file);
    EXPECT_EQ(sc.at("file_bytes"), std::filesystem::file_size(file));
    EXPECT_EQ(sc.at("file_sha256"), sha256sum(file));
    EXPECT_EQ(sc.at("barrier"), nullptr);
    EXPECT_EQ(sc.at("split_only"), nlohmann::json::array());
    EXPECT_FALSE(j.at("device").at("name").get<std::string>().empty()) << j.dump(2);
    EXPECT_TRUE(contains(r.out, "  device:   " + j.at("device").at("name").get<std::string>() + " (")) << shown(r);
    ASSERT_EQ(j.at("modes").size(), 3u) << j.dump(2);
    const std::vector<std::pair<std::string, int>> submits = {{"split", 3}, {"multipass", 1}, {"single", 1}};
    for (size_t i = 0; i < 3; ++i) {
        const auto& m = j.at("modes")[i];
        EXPECT_EQ(m.at("mode"), submits[i].first);
        EXPECT_EQ(m.at("submits"), submits[i].second);
        EXPECT_EQ(m.at("result"), "ok");
        EXPECT_EQ(m.at("detail"), nullptr);
        EXPECT_EQ(m.at("wrong_runs"), 0);
        EXPECT_EQ(m.at("validation_messages"), nullptr);
    }
    EXPECT_EQ(j.at("validation").at("enabled"), false);
    EXPECT_EQ(j.at("verdict").at("exit_status"), 0);
    EXPECT_EQ(j.at("verdict").at("line"),
              "--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU model and to split");
    EXPECT_FALSE(temporaryLeft(path));
    std::filesystem::remove_all(dir);
}

// --format markdown (docs/scenarios.md "The Markdown report"): the verdict, one row per mode,
// and the scenario file itself with its hash and the command that reruns it. The file taken
// out of the Markdown, saved under the name the block gives and run with that command, is
// the same file (its SHA-256) and gives the same verdict: the report travels.
TEST(ScenarioReport, MarkdownCarriesTheFileAndTheCommandThatRerunsIt) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult r = repro({"--scenario", file, "--mode", "single", "--format", "markdown"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_EQ(r.out.rfind("### repro scenario `kompute-196-increment-chain`: NOT REPRODUCED\n", 0), 0u) << r.out;
    EXPECT_TRUE(contains(r.err, "--- NOT REPRODUCED")) << shown(r);  // the text report goes to stderr
    EXPECT_TRUE(contains(r.out, "| `single` | 1 | ok | 1 | 0 |")) << r.out;
    EXPECT_FALSE(contains(r.out, "| `split` |")) << r.out;
    const std::string command = "repro --scenario kompute-196-increment-chain.toml --mode single";
    EXPECT_TRUE(contains(r.out, "run `" + command + "`")) << r.out;
    EXPECT_TRUE(contains(r.out, "SHA-256 `" + sha256sum(file) + "`")) << r.out;
    const size_t open = r.out.find("```toml\n");
    ASSERT_NE(open, std::string::npos) << r.out;
    const size_t close = r.out.find("\n```\n", open);
    ASSERT_NE(close, std::string::npos) << r.out;
    const auto dir = std::filesystem::temp_directory_path() / ("repro-scenario-md-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto copy = dir / "kompute-196-increment-chain.toml";
    std::ofstream(copy, std::ios::binary) << r.out.substr(open + 8, close + 1 - (open + 8));
    EXPECT_EQ(sha256sum(copy.string()), sha256sum(file));
    const BoundedResult again = repro({"--scenario", copy.string(), "--mode", "single"});
    EXPECT_EQ(again.status, 0) << shown(again);
    EXPECT_TRUE(contains(again.out, "--- NOT REPRODUCED")) << shown(again);
    std::filesystem::remove_all(dir);
}

// The rerun command keeps every option that shapes what runs and how it is judged, as given
// (--opt=value too), and leaves out where the output went and the device; the facts say how
// the chain's buffer was checked.
TEST(ScenarioReport, MarkdownRerunsWithTheOptionsThatShapeTheRun) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--mode=single", "--reference", "cpu",
               "--submit-every", "1", "--poison", "--device", "0", "--format", "markdown", "--timings"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "and run `repro --scenario blade-356-conv-t-slice-chain.toml --mode=single "
                         "--reference cpu --submit-every 1 --poison`\n"))
        << r.out;
    EXPECT_TRUE(contains(r.out,
                         "| checked buffers | `small[3]` (the chain's small\\[3\\]): within the CPU chain's "
                         "float32 tolerance |\n"))
        << r.out;
}

// The host phase timings (always in the document) and, with --timestamps, each mode's GPU
// time from the timestamp pairs around its submits (docs/scenarios.md "--timings and
// --timestamps"); --timings prints the phases after the verdict.
TEST(ScenarioReport, TimingsAndTimestampsGiveThePhasesAndEachModesGpuTime) {
    const BoundedResult r = repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--repeat", "2",
                                   "--timings", "--timestamps", "--format", "json"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.err, "\ntimings (s): instance and device ")) << shown(r);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const auto& t = j.at("timings");
    double parts = 0;
    for (const char* key : {"instance_and_device", "pipelines", "cpu_model", "buffers_and_upload", "recording",
                            "gpu_wait", "readback", "verification"}) {
        EXPECT_GT(t.at(key).get<double>(), 0.0) << key << "\n" << j.dump(2);
        parts += t.at(key).get<double>();
    }
    EXPECT_LE(parts, t.at("total").get<double>()) << j.dump(2);  // the phases do not overlap
    EXPECT_GT(t.at("teardown").get<double>(), 0.0) << j.dump(2);
    for (const auto& m : j.at("modes")) {
        ASSERT_TRUE(m.at("gpu_seconds").is_number()) << j.dump(2);  // lavapipe has timestamps
        EXPECT_GT(m.at("gpu_seconds").get<double>(), 0.0) << j.dump(2);
        // Within the run, not within the host's waits alone: a CPU driver starts the work at
        // the submit, before the host waits (this once failed in a local ctest -j2, 10 ms of
        // GPU time against 7 ms of waiting).
        EXPECT_LT(m.at("gpu_seconds").get<double>(), t.at("total").get<double>()) << j.dump(2);
    }
    const BoundedResult plain =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--mode", "single", "--format", "json"});
    ASSERT_EQ(plain.status, 0) << shown(plain);
    EXPECT_EQ(nlohmann::json::parse(plain.out).at("modes")[0].at("gpu_seconds"), nullptr);
    EXPECT_FALSE(contains(plain.err, "timings (s):")) << shown(plain);
}

// --timestamps on a file with a second queue: a pair around each of a mode's command buffers
// on every queue (split: 4 steps, multipass and single: 4 batches), the pool reset once in the
// upload submit; with the second queue in a family of its own too (second-family).
TEST(ScenarioQueues, TimestampsGiveEachModesGpuTimeOnEveryQueue) {
    const std::string file = kScenarios + "compute-copy-on-a-second-queue.toml";
    for (const std::string spec : {"", "second-family"}) {
        const BoundedResult r =
            repro({"--scenario", file, "--timestamps", "--format", "json"}, spec.empty() ? kPlain : simulated(spec));
        ASSERT_EQ(r.status, 0) << spec << "\n" << shown(r);
        const nlohmann::json j = nlohmann::json::parse(r.out);
        for (const auto& m : j.at("modes")) {
            ASSERT_TRUE(m.at("gpu_seconds").is_number()) << spec << "\n" << j.dump(2);
            EXPECT_GT(m.at("gpu_seconds").get<double>(), 0.0) << spec << "\n" << j.dump(2);
        }
        EXPECT_TRUE(contains(r.err, "ms (timestamps around each of its submits)")) << shown(r);
    }
    const BoundedResult stream = repro({"--scenario", file, "--print-stream", "--timestamps", "--mode", "single"});
    ASSERT_EQ(stream.status, 0) << shown(stream);
    size_t writes = 0, resets = 0;
    for (size_t p = stream.out.find("vkCmdWriteTimestamp"); p != std::string::npos;
         p = stream.out.find("vkCmdWriteTimestamp", p + 1))
        ++writes;
    for (size_t p = stream.out.find("vkCmdResetQueryPool"); p != std::string::npos;
         p = stream.out.find("vkCmdResetQueryPool", p + 1))
        ++resets;
    EXPECT_EQ(writes, 8u) << shown(stream);  // 4 batches, 2 each
    EXPECT_EQ(resets, 1u) << shown(stream);  // in the upload submit
}

// --format json puts the document on stdout (the text report goes to stderr); with --repeat,
// each mode's wrong runs and the first wrong run's difference; the verdict's exit status.
TEST(ScenarioReport, FormatJsonCountsWrongRunsPerModeUnderASimulatedBug) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--repeat", "2", "--format", "json"},
              simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, "--- BUG REPRODUCED: mode multipass is wrong in 2 of 2 runs")) << shown(r);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("repeat"), 2);
    const auto& modes = j.at("modes");
    ASSERT_EQ(modes.size(), 3u) << j.dump(2);
    EXPECT_EQ(modes[0].at("result"), "ok");
    EXPECT_EQ(modes[0].at("runs"), 2);
    EXPECT_EQ(modes[0].at("wrong_runs"), 0);
    for (size_t i = 1; i < 3; ++i) {
        EXPECT_EQ(modes[i].at("result"), "mismatch");
        EXPECT_EQ(modes[i].at("wrong_runs"), 2);
        EXPECT_EQ(modes[i].at("detail").get<std::string>().rfind("run 1: buffer 'data' differs from the CPU model", 0),
                  0u)
            << j.dump(2);
    }
    EXPECT_EQ(j.at("verdict").at("exit_status"), 2);
    EXPECT_EQ(j.at("verdict").at("line").get<std::string>().rfind("--- BUG REPRODUCED: mode multipass is wrong", 0),
              0u);
}

// A --json path that cannot be opened is refused before anything runs (one line, exit 1, no
// file); one that opens but cannot be written (/dev/full) loses only the document: the
// results are printed, one line says why, exit 1.
// `text` without the sanitizer runtime's own lines ("==PID==..."): under the sanitize
// preset LeakSanitizer says at exit that it could not suspend the thread that waits for
// SIGTSTP in sigwait (core/interrupt.hpp), which is not repro's output.
std::string withoutSanitizerLines(const std::string& text) {
    std::string out;
    size_t begin = 0;
    while (begin < text.size()) {
        size_t end = text.find('\n', begin);
        end = end == std::string::npos ? text.size() : end + 1;
        const std::string line = text.substr(begin, end - begin);
        const size_t close = line.find("==", 2);
        const bool runtime = line.rfind("==", 0) == 0 && close != std::string::npos && close > 2 &&
                             line.find_first_not_of("0123456789", 2) == close;
        if (!runtime) out += line;
        begin = end;
    }
    return out;
}

TEST(ScenarioReport, AnUnwritableJsonPathIsOneLineAndExitOne) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult missing = repro({"--scenario", file, "--json", "/nonexistent-repro-dir/r.json"});
    EXPECT_EQ(missing.status, 1) << shown(missing);
    EXPECT_EQ(withoutSanitizerLines(missing.err),
              "repro: --json: cannot write '/nonexistent-repro-dir/r.json' (No such file or directory)\n");
    EXPECT_EQ(missing.out, "");
    EXPECT_FALSE(std::filesystem::exists("/nonexistent-repro-dir/r.json"));
    const BoundedResult full = repro({"--scenario", file, "--json", "/dev/full"});
    EXPECT_EQ(full.status, 1) << shown(full);
    EXPECT_TRUE(contains(full.out, "--- NOT REPRODUCED: every mode's checked buffers are bit-identical"))
        << shown(full);
    EXPECT_EQ(withoutSanitizerLines(full.err),
              "repro: --json: cannot write the scenario report to '/dev/full' (No space left on device)\n");
}

// --validation (docs/scenarios.md): a scenario whose barriers are valid is validation-clean
// on the machine's driver; with --barrier none a producer read by a consumer (MoltenVK #2805's
// pattern) draws synchronization validation's read-after-write hazard, the VALIDATION verdict
// and exit 4 (docs/contract.md).
TEST(ScenarioValidation, ValidBarriersAreCleanAndNoneDrawsAHazard) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult clean = repro({"--scenario", file, "--validation"});
    ASSERT_EQ(clean.status, 0) << shown(clean);
    EXPECT_TRUE(contains(clean.out, "validation: 0 messages (0 errors, 0 warnings), synchronization validation on\n"))
        << shown(clean);
    EXPECT_TRUE(contains(clean.out, "    validation: 0 messages in this mode\n")) << shown(clean);
    const BoundedResult none = repro({"--scenario", kScenarios + "moltenvk-2805-fill-between-dispatches.toml",
                                      "--validation", "--barrier", "none", "--mode", "single", "--format", "json"});
    ASSERT_EQ(none.status, 4) << shown(none);
    EXPECT_TRUE(contains(none.err, "validation: error SYNC-HAZARD-READ-AFTER-WRITE")) << shown(none);
    EXPECT_TRUE(contains(none.err, "--- VALIDATION: ")) << shown(none);
    const nlohmann::json j = nlohmann::json::parse(none.out);
    EXPECT_EQ(j.at("validation").at("enabled"), true);
    EXPECT_GT(j.at("validation").at("errors").get<int>(), 0);
    EXPECT_GT(j.at("modes")[0].at("validation_messages").get<int>(), 0) << j.dump(2);
    EXPECT_EQ(j.at("scenario").at("barrier"), "none");
    EXPECT_EQ(j.at("verdict").at("exit_status"), 4);
}

// User SPIR-V kernels (docs/scenarios.md "User kernels"): tests/scenarios/user-kernel-mix.toml,
// copied at build time beside its module (tests/shaders/scenario_user_mix.comp compiled to
// user_mix.spv), runs on lavapipe; the user kernel's output is compared with split only, and
// the built-in increment's buffer with the CPU model as well.
const std::string kUserKernels = REPRO_USER_KERNEL_DIR "/";

TEST(ScenarioUserKernel, TheExampleRunsAndItsOutputIsComparedWithSplitOnly) {
    const auto json = writeFile("-user-report.json", "");
    const BoundedResult r = repro({"--scenario", kUserKernels + "user-kernel-mix.toml", "--json", json.string()});
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(json), nullptr, false);
    std::filesystem::remove(json);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_EQ(j.at("scenario").at("split_only"), nlohmann::json::array({"acc", "out"})) << j.dump(2);
    EXPECT_TRUE(contains(r.out, "  kernel:   mix (user SPIR-V " + kUserKernels +
                                    "user_mix.spv, entry main, 2 binding(s), local size 64x1x1)\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  note: the CPU model cannot compute a user kernel: checked buffer(s) 'acc', 'out' are "
                         "compared with split only\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "mode=split     5 submit(s)\n    -> ok: bit-identical to the CPU model; 'acc', 'out' "
                         "(written by a user kernel): split's bytes are the reference\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "mode=single    1 submit(s)\n    -> ok: bit-identical to the CPU model and to split; "
                         "'acc', 'out' (written by a user kernel): compared with split only\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU model and "
                         "to split; 'acc', 'out' (written by a user kernel): compared with split only"))
        << shown(r);
}

// The module is valid Vulkan usage as repro binds it (16 bytes of push constants, set 0).
TEST(ScenarioUserKernel, TheExampleIsValidationClean) {
    const BoundedResult r =
        repro({"--scenario", kUserKernels + "user-kernel-mix.toml", "--mode", "single", "--validation"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "validation: 0 messages (0 errors, 0 warnings)")) << shown(r);
}

std::string userFile(const std::string& kernel, const std::string& steps) {
    return "name = \"u\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\ncheck = [\"acc\"]\n" +
           kernel + "[[buffer]]\nname = \"src\"\nbytes = 256\ninit = \"iota\"\n[[buffer]]\nname = \"acc\"\n" +
           "bytes = 256\ninit = \"iota\"\n" + steps;
}

const std::string kMixKernel = "[[kernel]]\nname = \"mix\"\nspirv = \"" + kUserKernels + "user_mix.spv\"\n";
std::string mixStep(int add) {
    return "[[step]]\ndispatch = \"mix\"\nbindings = [\"src\", \"acc\"]\ngroups = [1]\nadd = " + std::to_string(add) +
           "\n[[step]]\nbarrier = \"blade-g\"\n";
}

// A driver forwarding only the first dispatch of each command buffer: split stays right, and
// the one-submit modes differ from split in the user kernel's output. word 0 (src 0, acc 0):
// 0*3 + (0^1) = 1 after one dispatch, 18 after three (1*3 + 2 = 5, 5*3 + 3 = 18).
TEST(ScenarioUserKernel, DroppedUserDispatchesDifferFromSplit) {
    const auto path = writeFile("-user-dropped.toml", userFile(kMixKernel, mixStep(1) + mixStep(2) + mixStep(3)));
    const BoundedResult r = repro({"--scenario", path.string()}, simulated("seed-bug:dispatches=1"));
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=split     3 submit(s)\n    -> ok: completed; 'acc'")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- BUG REPRODUCED: mode multipass is wrong: buffer 'acc' differs from split at byte 0 "
                         "(word 0: 0x00000001, split 0x00000012), last written by step 5 dispatch mix (user SPIR-V)"))
        << shown(r);
}

// Bad user kernels through the executable: exit 1, one FILE:LINE:COLUMN line, nothing run.
struct BadUserFile {
    const char* name;
    std::string kernel;  // the [[kernel]] table
    std::string steps;
    std::string line;  // the expected stderr line after "repro: FILE:"
};

class ScenarioUserKernelBadFiles : public ::testing::TestWithParam<BadUserFile> {};

TEST_P(ScenarioUserKernelBadFiles, ExitOneWithOneLineAndNothingRun) {
    // TEXT: a text file beside the scenario (20 bytes, "name" its first word), by name in the
    // [[kernel]] and by path in the line; TMP: the scenario's folder.
    const auto replaced = [](std::string text, const std::string& what, const std::string& with) {
        for (size_t at; (at = text.find(what)) != std::string::npos;) text.replace(at, what.size(), with);
        return text;
    };
    const auto textFile = writeFile(std::string("-user-") + GetParam().name + ".txt", "name = \"not SPIR-V\"\n");
    const auto path =
        writeFile(std::string("-user-") + GetParam().name + ".toml",
                  userFile(replaced(GetParam().kernel, "TEXT", textFile.filename().string()), GetParam().steps));
    const BoundedResult r = repro({"--scenario", path.string()});
    const std::string line =
        replaced(replaced(GetParam().line, "TEXT", textFile.string()), "TMP", path.parent_path().string());
    std::filesystem::remove(path);
    std::filesystem::remove(textFile);
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.out, "") << shown(r);
    EXPECT_EQ(r.err, "repro: " + path.string() + ":" + line + "\n") << shown(r);
}

INSTANTIATE_TEST_SUITE_P(
    EachClass, ScenarioUserKernelBadFiles,
    ::testing::Values(BadUserFile{"bindings", kMixKernel,
                                  "[[step]]\ndispatch = \"mix\"\nbindings = [\"acc\"]\ngroups = [1]\n",
                                  "19:12: kernel mix takes 2 binding(s) (its module " + kUserKernels +
                                      "user_mix.spv declares set 0, bindings 0..1); got 1"},
                      // a text file as the module
                      BadUserFile{"notspirv", "[[kernel]]\nname = \"mix\"\nspirv = \"TEXT\"\n", mixStep(1),
                                  "8:9: kernel 'mix': 'TEXT': magic number 0x656d616e, not SPIR-V's 0x07230203"},
                      BadUserFile{"missing", "[[kernel]]\nname = \"mix\"\nspirv = \"no-such-module.spv\"\n", mixStep(1),
                                  "8:9: kernel 'mix': 'TMP/no-such-module.spv': cannot read: no such file"}),
    [](const ::testing::TestParamInfo<BadUserFile>& param) { return std::string(param.param.name); });

// Host points (docs/scenarios.md "Host points"): two increments of a host-visible buffer, a
// host read, a host write of words 1 and 2, one more increment. Split: 2 + the host read's
// own submit + 1; multipass and single: a submit ends at each host point, 3 in all.
const std::string kHostPointsFile =
    "name = \"h\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\ncheck = [\"h\"]\n"
    "[[buffer]]\nname = \"h\"\nbytes = 256\nmemory = \"host-visible\"\ninit = \"iota\"\n"
    "[[step]]\ndispatch = \"increment\"\nbindings = [\"h\"]\nadd = 10\n"
    "[[step]]\nbarrier = \"memory\"\nsrc_stage = [\"compute\"]\nsrc_access = [\"shader-storage-write\"]\n"
    "dst_stage = [\"compute\"]\ndst_access = [\"shader-storage-read\", \"shader-storage-write\"]\n"
    "[[step]]\ndispatch = \"increment\"\nbindings = [\"h\"]\nadd = 100\n"
    "[[step]]\nhost_read = \"h\"\n"
    "[[step]]\nhost_write = \"h\"\noffset = 4\nwords = [7, 8]\n"
    "[[step]]\ndispatch = \"increment\"\nbindings = [\"h\"]\n";

TEST(ScenarioHostPoints, AHostReadAndAHostWriteBetweenStepsAreRightOnLavapipe) {
    const auto path = writeFile("-host.toml", kHostPointsFile);
    const BoundedResult r = repro({"--scenario", path.string()});
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "step 4 host-read h; step 5 host-write h; step 6 dispatch increment")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "mode=split     4 submit(s)\n    -> ok: bit-identical to the CPU model (the checked "
                         "buffers and 1 host read)\n"))
        << shown(r);
    for (const char* mode : {"multipass 3", "single    3"}) {
        EXPECT_TRUE(contains(r.out, std::string("mode=") + mode +
                                        " submit(s)\n    -> ok: bit-identical to the CPU model and to split (the "
                                        "checked buffers and 1 host read)\n"))
            << mode << shown(r);
    }
}

// The host-read barrier and the submit boundaries are valid usage: synchronization validation
// finds no hazard between the device's writes and the host's accesses.
TEST(ScenarioHostPoints, AreValidationClean) {
    const auto path = writeFile("-host-validation.toml", kHostPointsFile);
    const BoundedResult r = repro({"--scenario", path.string(), "--validation"});
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "validation: 0 messages (0 errors, 0 warnings)")) << shown(r);
}

// A driver forwarding only the first dispatch of each command buffer: in multipass and single
// the second increment (add 100) shares the first submit and is lost, which the host read
// shows at once (word 0: 10, the CPU model 110), the step it names being the lost one. The last
// increment is alone in its submit (the host points split it off) and kept.
TEST(ScenarioHostPoints, ADroppedDispatchIsCaughtAtTheHostRead) {
    const auto path = writeFile("-host-dropped.toml", kHostPointsFile);
    const BoundedResult r = repro({"--scenario", path.string()}, simulated("seed-bug:dispatches=1"));
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=split     4 submit(s)\n    -> ok: bit-identical")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- BUG REPRODUCED: mode multipass is wrong: step 4 host-read h: buffer 'h' differs from "
                         "the CPU model at byte 0 (word 0: 0x0000000a, the CPU model 0x0000006e), last written by "
                         "step 3 dispatch increment; 64 of 64 words differ"))
        << shown(r);
}

// A scenario's buffers are made once and reset before each mode (vk::ScenarioBuffers): every
// mode of every run starts from the initial contents. Each buffer is incremented in place, so
// a mode that saw what the mode before it left would be 20 too high: a host-visible buffer
// (written again by the host), a device-local iota one (copied again from its host twin,
// which the readback overwrote) and a device-local zero one that is checked (it has a twin
// for its readback, but the upload fills it with zeros instead of copying the twin).
TEST(ScenarioBuffers, EveryModeOfEveryRunStartsFromTheInitialContents) {
    std::string text =
        "name = \"reset\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\n"
        "check = [\"h\", \"d\", \"z\"]\n"
        "[[buffer]]\nname = \"h\"\nbytes = 256\nmemory = \"host-visible\"\ninit = \"iota\"\n"
        "[[buffer]]\nname = \"d\"\nbytes = 256\nmemory = \"device-local\"\ninit = \"iota\"\nvalue = 1000\n"
        "[[buffer]]\nname = \"z\"\nbytes = 256\nmemory = \"device-local\"\ninit = \"zero\"\n";
    for (const std::string b : {"h", "d", "z"})
        text += "[[step]]\ndispatch = \"increment\"\nbindings = [\"" + b + "\"]\nadd = 20\n";
    const auto path = writeFile("-reset.toml", text);
    const BoundedResult r = repro({"--scenario", path.string(), "--repeat", "2"});
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 0) << shown(r);
    for (const char* mode : {"split    ", "multipass", "single   "})
        EXPECT_TRUE(contains(r.out, std::string("  mode=") + mode + " wrong in 0 of 2 runs\n")) << mode << shown(r);
}

TEST(ScenarioHostPoints, AHostPointOnADeviceLocalBufferIsOneLineAndNothingRuns) {
    std::string text = kHostPointsFile;
    text.replace(text.find("memory = \"host-visible\"\n"), 24, "");
    const auto path = writeFile("-host-bad.toml", text);
    const BoundedResult r = repro({"--scenario", path.string()});
    std::filesystem::remove(path);
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.out, "") << shown(r);
    EXPECT_EQ(r.err, "repro: " + path.string() +
                         ":25:13: host_read names buffer 'h', which is device-local; expected a buffer with memory = "
                         "\"host-visible\" or \"shared\" (the host reaches only mapped memory)\n")
        << shown(r);
}

// A wait whose stage misses the step after it runs when labelled a control: the header and
// the report say a wait is the control, and the Markdown facts too.
TEST(ScenarioQueues, AWaitLabelledAControlRunsAndIsNamed) {
    const auto path = writeFile(
        "-control-wait.toml",
        "name = \"q\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\ncheck = [\"b\"]\n"
        "[[buffer]]\nname = \"a\"\nbytes = 64\ninit = \"iota\"\n[[buffer]]\nname = \"b\"\nbytes = 64\n"
        "[[queue]]\nname = \"second\"\nfamily = \"other\"\n[[semaphore]]\nname = \"s\"\ntype = \"binary\"\n"
        "[[step]]\nfill = \"a\"\nvalue = 7\n[[step]]\nsignal = \"s\"\n[[step]]\nwait = \"s\"\nqueue = \"second\"\n"
        "stage = [\"transfer\"]\ncontrol = true\n[[step]]\ndispatch = \"copy\"\nbindings = [\"a\", \"b\"]\n"
        "queue = \"second\"\n");
    const BoundedResult r = repro({"--scenario", path.string(), "--format", "markdown"});
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.err, "step 3 wait s (control) on queue second;")) << shown(r);
    EXPECT_TRUE(contains(r.err,
                         "  note: a wait is labelled a control (insufficient on purpose): a wrong result "
                         "proves nothing about the driver\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "; a wait is labelled a control (insufficient on purpose) |")) << r.out;
}

// Queues and semaphores (docs/scenarios.md "Queues and semaphores"). A cycle of timeline
// semaphores between two queues: one line at its first wait, exit 1, nothing run.
TEST(ScenarioQueues, ACycleOfSemaphoresIsOneLineAndNothingRuns) {
    const auto path = writeFile("-cycle.toml", R"(name = "x"
source = "s"
pattern = "p"
expected = "not reproduced"
check = ["a"]
[[buffer]]
name = "a"
bytes = 64
[[queue]]
name = "second"
family = "same"
[[semaphore]]
name = "t"
type = "timeline"
[[semaphore]]
name = "u"
type = "timeline"
[[step]]
wait = "t"
value = 1
[[step]]
fill = "a"
[[step]]
signal = "u"
value = 1
[[step]]
wait = "u"
value = 1
queue = "second"
[[step]]
signal = "t"
value = 1
queue = "second"
)");
    const BoundedResult r = repro({"--scenario", path.string()});
    std::filesystem::remove(path);
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.out, "") << shown(r);
    EXPECT_EQ(r.err, "repro: " + path.string() +
                         ":18:1: a cycle of semaphores, so no order can run it: step 1 wait t = 1 waits for step 5 "
                         "signal t = 1 on queue second, which runs after step 4 wait u = 1 on queue second waits for "
                         "step 3 signal u = 1, which runs after step 1 wait t = 1; expected every wait's signal to run "
                         "without that wait\n");
}

// The shipped two-queue file on lavapipe (one family of one queue): the second queue falls
// back to the main one, said in one line of the output and of the report; each mode's submits.
TEST(ScenarioQueues, TheFallbackIsOneLineInTheOutputAndTheReport) {
    const auto dir = std::filesystem::temp_directory_path() / ("repro-scenario-queues-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto path = dir / "report.json";
    const BoundedResult r =
        repro({"--scenario", kScenarios + "compute-copy-on-a-second-queue.toml", "--json", path.string()});
    ASSERT_EQ(r.status, 0) << shown(r);
    const nlohmann::json j = readJson(path);
    std::filesystem::remove_all(dir);
    const auto& queues = j.at("scenario").at("queues");
    ASSERT_EQ(queues.size(), 1u) << j.dump(2);
    const std::string line = queues[0];
    EXPECT_EQ(line.rfind("copier (family \"other\"): falls back to the main queue (", 0), 0u) << line;
    EXPECT_TRUE(contains(r.out, "  queue:    " + line + "\n")) << shown(r);
    const std::vector<std::pair<std::string, int>> submits = {{"split", 4}, {"multipass", 4}, {"single", 4}};
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(j.at("modes")[i].at("mode"), submits[i].first);
        EXPECT_EQ(j.at("modes")[i].at("submits"), submits[i].second) << j.dump(2);
    }
}

// --print-stream: single submits one batch per queue segment with the file's semaphores (and
// the second queue's first batch waits for the main queue's upload); split records none.
TEST(ScenarioQueues, PrintStreamShowsTheSemaphoresPerQueue) {
    const BoundedResult r = repro({"--scenario", kScenarios + "compute-copy-on-a-second-queue.toml", "--print-stream"});
    ASSERT_EQ(r.status, 0) << shown(r);
    const size_t single = r.out.find("## mode single");
    ASSERT_NE(single, std::string::npos) << shown(r);
    const size_t splitAt = r.out.find("## mode split");
    ASSERT_NE(splitAt, std::string::npos) << shown(r);
    const std::string split = r.out.substr(splitAt, r.out.find("## mode multipass") - splitAt);
    const std::string calls = r.out.substr(single);
    EXPECT_FALSE(contains(split, "produced")) << split;
    EXPECT_TRUE(contains(calls, "# submit 1: batch 1 of 4 on queue main\nvkQueueSubmit(")) << calls;
    EXPECT_TRUE(contains(calls, "; wait 0; signal timeline(main) = 2, produced = 1; fence none)")) << calls;
    EXPECT_TRUE(contains(calls, "# submit 2: batch 2 of 4 on queue copier\nvkQueueSubmit(")) << calls;
    EXPECT_TRUE(contains(calls,
                         "; wait produced = 1 at TRANSFER, timeline(main) = 1 at ALL_COMMANDS; signal "
                         "timeline(copier) = 1, copied; fence none)"))
        << calls;
    EXPECT_TRUE(contains(calls, "# submit 4: batch 4 of 4 on queue main\nvkQueueSubmit(")) << calls;
    EXPECT_TRUE(contains(calls, "; wait copied at COMPUTE_SHADER; signal timeline(main) = 4; fence none)")) << calls;
    // one queue family here: nothing to transfer
    EXPECT_FALSE(contains(r.out, "# release")) << shown(r);
    EXPECT_FALSE(contains(r.out, "ownership:")) << shown(r);
    EXPECT_FALSE(contains(r.out, "# acquire")) << shown(r);
}

// With a second queue family (REPRO_SIMULATE=second-family) the copier lands in family 1 and
// each mode records the exclusive buffers' ownership transfers (docs/scenarios.md "Queue family
// ownership"): data and staged go to the copier after the upload and the first increment, come
// back for the main queue's copy (staged) and the readback (data); out and side never leave.
// With sharing = "concurrent" on every buffer, none.
TEST(ScenarioQueues, OwnershipTransfersAreRecordedWhereTheQueuesLandInTwoFamilies) {
    const std::string file = kScenarios + "compute-copy-on-a-second-queue.toml";
    const BoundedResult r = repro({"--scenario", file, "--print-stream"}, simulated("second-family"));
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "  queue:    copier (family \"other\"): family 1 (COMPUTE|TRANSFER), queue 0\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  ownership: 2 exclusive buffer(s) change queue family (data, staged): 4 queue family "
                         "ownership transfer(s), a release and an acquire each, recorded in every mode"))
        << shown(r);
    const size_t single = r.out.find("## mode single");
    ASSERT_NE(single, std::string::npos) << shown(r);
    const std::string calls = r.out.substr(single);
    const std::vector<std::string> inOrder = {
        // the upload submit: staged, first used by the copy, goes at its end
        "# release buffer 'staged': queue main (family 0) -> queue copier (family 1)\n"
        "  vkCmdPipelineBarrier(TRANSFER -> BOTTOM_OF_PIPE, buffer staged TRANSFER_WRITE -> 0, queue family 0 -> 1)",
        // batch 1 on main: after the increment of data
        "# release buffer 'data': queue main (family 0) -> queue copier (family 1)\n"
        "  vkCmdPipelineBarrier(COMPUTE_SHADER|TRANSFER -> BOTTOM_OF_PIPE, buffer data SHADER_WRITE|TRANSFER_WRITE -> "
        "0, queue family 0 -> 1)",
        // batch 2 on the copier: both acquired before the copy, both released after it
        "# acquire buffer 'data': queue main (family 0) -> queue copier (family 1)\n"
        "  vkCmdPipelineBarrier(TRANSFER -> TRANSFER, buffer data 0 -> TRANSFER_READ, queue family 0 -> 1)",
        "# acquire buffer 'staged': queue main (family 0) -> queue copier (family 1)\n"
        "  vkCmdPipelineBarrier(TRANSFER -> TRANSFER, buffer staged 0 -> TRANSFER_WRITE, queue family 0 -> 1)",
        "  vkCmdCopyBuffer(",
        "# release buffer 'staged': queue copier (family 1) -> queue main (family 0)\n"
        "  vkCmdPipelineBarrier(TRANSFER -> BOTTOM_OF_PIPE, buffer staged TRANSFER_WRITE -> 0, queue family 1 -> 0)",
        "# release buffer 'data': queue copier (family 1) -> queue main (family 0)\n"
        "  vkCmdPipelineBarrier(TRANSFER -> BOTTOM_OF_PIPE, buffer data 0 -> 0, queue family 1 -> 0)",
        // batch 4 on main: staged acquired before the copy dispatch that reads it
        "# acquire buffer 'staged': queue copier (family 1) -> queue main (family 0)\n"
        "  vkCmdPipelineBarrier(COMPUTE_SHADER -> COMPUTE_SHADER, buffer staged 0 -> SHADER_READ, queue family 1 -> 0)",
        // the readback: data back on the main queue
        "# acquire buffer 'data': queue copier (family 1) -> queue main (family 0)\n"
        "  vkCmdPipelineBarrier(ALL_COMMANDS -> ALL_COMMANDS, buffer data 0 -> MEMORY_READ|MEMORY_WRITE, queue family "
        "1 -> 0)"};
    size_t at = 0;
    for (const std::string& line : inOrder) {
        const size_t found = calls.find(line, at);
        ASSERT_NE(found, std::string::npos) << "not found after byte " << at << ": " << line << "\n" << calls;
        at = found + line.size();
    }
    EXPECT_FALSE(contains(r.out, "buffer out")) << shown(r);
    EXPECT_FALSE(contains(r.out, "buffer side")) << shown(r);
    // each mode (split included) moves data and staged out and back: 4 releases, 4 acquires
    size_t releases = 0;
    for (size_t p = r.out.find("# release"); p != std::string::npos; p = r.out.find("# release", p + 1)) ++releases;
    EXPECT_EQ(releases, 12u) << shown(r);
    // and the modes, run twice each with the transfers, agree with the CPU model and split
    const BoundedResult run = repro({"--scenario", file, "--repeat", "2"}, simulated("second-family"));
    EXPECT_EQ(run.status, 0) << shown(run);
    EXPECT_TRUE(contains(run.out, "--- NOT REPRODUCED")) << shown(run);

    std::string text;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
        text += line == "[[buffer]]" ? line + "\nsharing = \"concurrent\"\n" : line + "\n";
    const auto concurrent = writeFile("-concurrent.toml", text);
    const BoundedResult c = repro({"--scenario", concurrent.string(), "--print-stream"}, simulated("second-family"));
    std::filesystem::remove(concurrent);
    ASSERT_EQ(c.status, 0) << shown(c);
    EXPECT_FALSE(contains(c.out, "queue family 0 -> 1")) << shown(c);
    EXPECT_FALSE(contains(c.out, "# release")) << shown(c);
    EXPECT_FALSE(contains(c.out, "ownership:")) << shown(c);
}

// ownership_transfers = false on staged: a labelled control that records data's transfers and
// none of staged's, and says so in the header; on a concurrent buffer it is a bad file.
TEST(ScenarioQueues, AControlLeavesOneBuffersOwnershipTransfersOut) {
    std::string text = readText(kScenarios + "compute-copy-on-a-second-queue.toml");
    const std::string staged = "name = \"staged\"\n";
    ASSERT_NE(text.find(staged), std::string::npos);
    text.replace(text.find(staged), staged.size(), staged + "ownership_transfers = false\n");
    const auto path = writeFile("-no-transfers.toml", text);
    const BoundedResult r = repro({"--scenario", path.string(), "--print-stream"}, simulated("second-family"));
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "  note: a buffer without its ownership transfers is labelled a control")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  ownership: 1 exclusive buffer(s) change queue family (data): 2 queue family ownership "
                         "transfer(s)"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  ownership: 1 exclusive buffer(s) change queue family without their ownership "
                         "transfers (staged): ownership_transfers = false, a control\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "# release buffer 'data'")) << shown(r);
    EXPECT_FALSE(contains(r.out, "buffer 'staged'")) << shown(r);
    text.replace(text.find("ownership_transfers = false"), 0, "sharing = \"concurrent\"\n");
    const auto bad = writeFile("-concurrent-no-transfers.toml", text);
    const BoundedResult b = repro({"--scenario", bad.string()});
    std::filesystem::remove(path);
    std::filesystem::remove(bad);
    EXPECT_EQ(b.status, 1) << shown(b);
    EXPECT_TRUE(contains(b.err,
                         "buffer 'staged' is concurrent and has no ownership transfers to leave out; expected "
                         "ownership_transfers = false on an exclusive buffer\n"))
        << shown(b);
}

// A timeline wait before its signal in the file: the copy on the second queue runs after the
// dispatch it waits for, in every mode and in the CPU model, and the header says the order
// changed.
TEST(ScenarioQueues, ATimelineWaitBeforeItsSignalInTheFileRunsAfterIt) {
    const auto path = writeFile("-wait-first.toml", R"(name = "x"
source = "s"
pattern = "p"
expected = "not reproduced"
check = ["b"]
[[buffer]]
name = "a"
bytes = 4096
init = "iota"
[[buffer]]
name = "b"
bytes = 4096
[[queue]]
name = "second"
family = "same"
[[semaphore]]
name = "t"
type = "timeline"
[[step]]
wait = "t"
value = 2
stage = ["transfer"]
queue = "second"
[[step]]
copy = "b"
from = "a"
queue = "second"
[[step]]
dispatch = "increment"
bindings = ["a"]
add = 100
[[step]]
signal = "t"
value = 2
)");
    const BoundedResult r = repro({"--scenario", path.string(), "--validation"});
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  steps:    step 3 dispatch increment; step 4 signal t = 2; step 1 wait t = 2 on "
                         "queue second; step 2 copy a -> b on queue second\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "  note: the steps run in an order the semaphores allow")) << shown(r);
    EXPECT_TRUE(contains(r.out, "validation: 0 messages (0 errors, 0 warnings)")) << shown(r);
    EXPECT_TRUE(contains(r.out, "  mode=single    2 submit(s)\n")) << shown(r);
}

// Synchronization validation is clean on the shipped file in every mode.
TEST(ScenarioQueues, TheShippedFileIsValidationClean) {
    const BoundedResult r = repro({"--scenario", kScenarios + "compute-copy-on-a-second-queue.toml", "--validation"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "validation: 0 messages (0 errors, 0 warnings), synchronization validation on\n"))
        << shown(r);
}

}  // namespace

namespace {

// --check-steps (docs/scenarios.md "--check-steps on a scenario"): split reads back each step's
// written buffers after its submit and compares them with the CPU model after that step.
TEST(ScenarioCheckSteps, EveryStepOfACleanFileMatches) {
    const auto json = writeFile("-check-steps.json", "");
    const BoundedResult r = repro(
        {"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--check-steps", "--json", json.string()});
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(json), nullptr, false);
    std::filesystem::remove(json);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  mode=split     3 submit(s)\n    -> ok: bit-identical to the CPU model\n    check-steps: "
                         "all 3 checked step(s) matched the CPU model after their submit (3 readback submit(s))\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  mode=single    1 submit(s)\n    -> ok: bit-identical to the CPU model and to "
                         "split\n--- NOT REPRODUCED"))
        << shown(r);
    const auto& c = j.at("check_steps");
    EXPECT_EQ(c.at("checked"), 3) << j.dump(2);
    EXPECT_EQ(c.at("wrong"), 0);
    EXPECT_EQ(c.at("first_wrong"), nullptr);
    EXPECT_EQ(c.at("not_checked"), nlohmann::json::array());
    EXPECT_EQ(c.at("readbacks"), 3);
    EXPECT_EQ(c.at("completed"), true);
}

// A driver that drops every dispatch (seed-bug:dispatches=0) makes split itself wrong: the fill
// (a transfer) matches, the first increment is the first wrong step, and the second differs too
// (its input was already wrong).
TEST(ScenarioCheckSteps, TheDroppedDispatchIsTheFirstWrongStep) {
    const auto path = writeFile("-check-dropped.toml",
                                "name = \"c\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\n"
                                "check = [\"a\"]\n[[buffer]]\nname = \"a\"\nbytes = 4096\ninit = \"iota\"\n"
                                "value = 7\n[[step]]\nfill = \"a\"\nvalue = 5\n[[step]]\nbarrier = \"blade-g\"\n"
                                "[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\n[[step]]\n"
                                "barrier = \"blade-g\"\n[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\n"
                                "count = 10\n");
    const auto json = writeFile("-check-dropped.json", "");
    const BoundedResult r =
        repro({"--scenario", path.string(), "--mode", "split", "--check-steps", "--json", json.string()},
              simulated("seed-bug:dispatches=0"));
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(json), nullptr, false);
    std::filesystem::remove(path);
    std::filesystem::remove(json);
    ASSERT_EQ(r.status, 2) << shown(r);
    const std::string first =
        "step 3 dispatch increment: buffer 'a' differs from the CPU model at byte 0 (word 0: 0x00000005, the CPU "
        "model 0x00000006), last written by step 3 dispatch increment; 1024 of 1024 words differ";
    EXPECT_TRUE(contains(r.out, "    check-steps: first wrong step: " + first + "; 2 of 3 checked step(s) differ\n"))
        << shown(r);
    const auto& c = j.at("check_steps");
    EXPECT_EQ(c.at("checked"), 3) << j.dump(2);
    EXPECT_EQ(c.at("wrong"), 2);
    EXPECT_EQ(c.at("first_wrong").at("step"), 3);
    EXPECT_EQ(c.at("first_wrong").at("label"), "step 3 dispatch increment");
    EXPECT_EQ("step 3 dispatch increment: " + c.at("first_wrong").at("detail").get<std::string>(), first);
}

// A user kernel's steps (and the copy of their output) are not checked, and said so; the
// built-in increment of another buffer is.
TEST(ScenarioCheckSteps, AUserKernelsStepsAreNotChecked) {
    const BoundedResult r =
        repro({"--scenario", kUserKernels + "user-kernel-mix.toml", "--mode", "split", "--check-steps"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "    check-steps: all 1 checked step(s) matched the CPU model after their submit (5 "
                         "readback submit(s))\n    check-steps: not checked (the CPU model cannot know what they "
                         "write: a user kernel's output): step 1 dispatch mix (user SPIR-V), step 3 dispatch mix "
                         "(user SPIR-V), step 5 dispatch mix (user SPIR-V), step 7 dispatch copy\n"))
        << shown(r);
}

TEST(ScenarioCheckSteps, NeedsSplit) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult single = repro({"--scenario", file, "--check-steps", "--mode", "single"});
    EXPECT_EQ(single.status, 1) << shown(single);
    EXPECT_EQ(single.err, "repro: --check-steps: on a scenario it reads back split's steps, and --mode has no split\n");
}

// --check-steps on a file with a second queue: each step is read back on its own queue after
// its submit; with the copier in a family of its own, a step's ownership releases follow its
// readback (a family must not touch a buffer it released). A split that loses its dispatches
// names the first increment.
TEST(ScenarioCheckSteps, OnAFileWithASecondQueueEachStepIsReadBackOnItsQueue) {
    const std::string file = kScenarios + "compute-copy-on-a-second-queue.toml";
    for (const std::string spec : {"", "second-family"}) {
        const BoundedResult r = repro({"--scenario", file, "--check-steps"}, spec.empty() ? kPlain : simulated(spec));
        ASSERT_EQ(r.status, 0) << spec << "\n" << shown(r);
        EXPECT_TRUE(contains(r.out,
                             "    check-steps: all 4 checked step(s) matched the CPU model after their submit "
                             "(4 readback submit(s))\n"))
            << spec << "\n"
            << shown(r);
    }
    const BoundedResult stream =
        repro({"--scenario", file, "--check-steps", "--mode", "split", "--print-stream"}, simulated("second-family"));
    ASSERT_EQ(stream.status, 0) << shown(stream);
    const size_t readBack = stream.out.find("  vkCmdCopyBuffer(data -> data (host twin), 65536 bytes)");
    const size_t release = stream.out.find("# release buffer 'data': queue main (family 0) -> queue copier (family 1)");
    ASSERT_NE(readBack, std::string::npos) << shown(stream);
    ASSERT_NE(release, std::string::npos) << shown(stream);
    EXPECT_LT(readBack, release) << shown(stream);
    const BoundedResult wrong =
        repro({"--scenario", file, "--check-steps"}, simulated("seed-bug:dispatches=0;second-family"));
    ASSERT_EQ(wrong.status, 2) << shown(wrong);
    EXPECT_TRUE(contains(wrong.out, "    check-steps: first wrong step: step 1 dispatch increment: buffer 'data'"))
        << shown(wrong);
}

// Under --repeat every run's split is checked: a line for each run with a wrong step, one over
// all runs, and the document's check_steps counting the runs and naming the first wrong one.
TEST(ScenarioCheckSteps, UnderRepeatEveryRunsSplitIsChecked) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const auto json = writeFile("-check-steps-repeat.json", "");
    const BoundedResult clean = repro({"--scenario", file, "--check-steps", "--repeat", "3", "--json", json.string()});
    ASSERT_EQ(clean.status, 0) << shown(clean);
    EXPECT_TRUE(contains(clean.out,
                         "  check-steps: every checked step matched the CPU model after its submit in each of 3 run(s) "
                         "(3 checked step(s) a run)\n"))
        << shown(clean);
    nlohmann::json c = readJson(json).at("check_steps");
    EXPECT_EQ(c.at("runs"), 3) << c.dump(2);
    EXPECT_EQ(c.at("wrong_runs"), 0) << c.dump(2);
    EXPECT_TRUE(c.at("first_wrong").is_null()) << c.dump(2);
    // split loses every dispatch: each run's first increment is the first wrong step
    const BoundedResult wrong = repro({"--scenario", file, "--check-steps", "--repeat", "2", "--json", json.string()},
                                      simulated("seed-bug:dispatches=0"));
    ASSERT_EQ(wrong.status, 2) << shown(wrong);
    for (const char* run : {"  run 1: check-steps: first wrong step: step 1 dispatch increment: buffer 'data'",
                            "  run 2: check-steps: first wrong step: step 1 dispatch increment: buffer 'data'",
                            "  check-steps: split had a wrong step in 2 of 2 run(s); the first in run 1: step 1 "
                            "dispatch increment\n"})
        EXPECT_TRUE(contains(wrong.out, run)) << run << "\n" << shown(wrong);
    c = readJson(json).at("check_steps");
    std::filesystem::remove(json);
    EXPECT_EQ(c.at("runs"), 2) << c.dump(2);
    EXPECT_EQ(c.at("wrong_runs"), 2) << c.dump(2);
    EXPECT_EQ(c.at("first_wrong").at("run"), 1) << c.dump(2);
    EXPECT_EQ(c.at("first_wrong").at("step"), 1) << c.dump(2);
}

}  // namespace

namespace {

// --poison (docs/scenarios.md "--poison on a scenario"): 'b' (init undefined) starts as the
// sentinel in every mode and in the CPU model; a copy into it that the driver drops leaves the
// sentinel, and the mismatch line says it was never written.
const std::string kPoisonFile =
    "name = \"p\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\ncheck = [\"b\"]\n"
    "[[buffer]]\nname = \"a\"\nbytes = 4096\ninit = \"iota\"\nvalue = 7\n[[buffer]]\nname = \"b\"\nbytes = "
    "4096\ninit = \"undefined\"\n[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\n[[step]]\nbarrier = "
    "\"blade-g\"\n[[step]]\ndispatch = \"copy\"\nbindings = [\"a\", \"b\"]\n";

TEST(ScenarioPoison, ADroppedWriteLeavesTheSentinelAndTheLineSaysSo) {
    const auto path = writeFile("-poison.toml", kPoisonFile);
    const BoundedResult r = repro({"--scenario", path.string(), "--poison"}, simulated("seed-bug:dispatches=1"));
    const BoundedResult zeros = repro({"--scenario", path.string()}, simulated("seed-bug:dispatches=1"));
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  poison:   'b' start as 0x7fc0dead words in every mode and in the CPU model (--poison: "
                         "init undefined or written before read)\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=split     2 submit(s)\n    -> ok: bit-identical to the CPU model\n")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- BUG REPRODUCED: mode multipass is wrong: buffer 'b' differs from the CPU model at "
                         "byte 0 (word 0: 0x7fc0dead (still the poison value: never written), the CPU model "
                         "0x00000008), last written by step 3 dispatch copy; 1024 of 1024 words differ"))
        << shown(r);
    // Without --poison the lost copy reads as zeros, and nothing says it was never written.
    ASSERT_EQ(zeros.status, 2) << shown(zeros);
    EXPECT_TRUE(contains(zeros.out, "(word 0: 0x00000000, the CPU model 0x00000008)")) << shown(zeros);
    EXPECT_FALSE(contains(zeros.out, "poison value")) << shown(zeros);
    EXPECT_FALSE(contains(zeros.out, "  poison:")) << shown(zeros);
}

// On a correct driver nothing changes but the header's poison line and the report's list.
TEST(ScenarioPoison, ACleanRunIsUnchanged) {
    const auto path = writeFile("-poison-clean.toml", kPoisonFile);
    const auto json = writeFile("-poison.json", "");
    const BoundedResult r = repro({"--scenario", path.string(), "--poison", "--json", json.string()});
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(json), nullptr, false);
    std::filesystem::remove(path);
    std::filesystem::remove(json);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU model and "
                         "to split\n"))
        << shown(r);
    EXPECT_EQ(j.at("scenario").at("poisoned"), nlohmann::json::array({"b"})) << j.dump(2);
    const BoundedResult kompute =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--poison"});  // read in place first
    ASSERT_EQ(kompute.status, 0) << shown(kompute);
    EXPECT_FALSE(contains(kompute.out, "poison:")) << shown(kompute);
}

}  // namespace

namespace {

// --sweep over a [parameters] value (docs/scenarios.md "--sweep on a scenario"): n increments
// in one command buffer, barriers between.
const std::string kSweepFile =
    "name = \"w\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\ncheck = [\"a\"]\n"
    "[parameters]\nn = 2\n[[buffer]]\nname = \"a\"\nbytes = 256\ninit = \"iota\"\n[[step]]\nrepeat = \"$n\"\n"
    "[[step.steps]]\ndispatch = \"increment\"\nbindings = [\"a\"]\n[[step.steps]]\nbarrier = \"blade-g\"\n";

// A driver that forwards the first 3 dispatches of a command buffer: the one-submit modes are
// wrong from n = 4, split never; the table and the smallest n say so.
TEST(ScenarioSweep, TheSmallestWrongValuePerMode) {
    const auto path = writeFile("-sweep.toml", kSweepFile);
    const auto json = writeFile("-sweep.json", "");
    const BoundedResult r = repro({"--scenario", path.string(), "--sweep", "n=1..5", "--json", json.string()},
                                  simulated("seed-bug:dispatches=3"));
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(json), nullptr, false);
    std::filesystem::remove(path);
    std::filesystem::remove(json);
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "  parameters: n = 2 (--sweep n)\n")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  n             split      multipass  single\n"
                         "  n = 1         ok         ok         ok\n"
                         "  n = 2         ok         ok         ok\n"
                         "  n = 3         ok         ok         ok\n"
                         "  n = 4         ok         mismatch   mismatch\n"
                         "  n = 5         ok         mismatch   mismatch\n"
                         "  smallest n at which each mode is wrong: split none, multipass 4, single 4\n"))
        << shown(r);
    // n = 4: word 0 is 0 + 3 where the model has 4.
    EXPECT_TRUE(contains(r.out,
                         "--- BUG REPRODUCED: mode multipass is wrong at n = 4, the smallest value where it is "
                         "(wrong at 2 of 5 values); there: buffer 'a' differs from the CPU model at byte 0 (word 0: "
                         "0x00000003, the CPU model 0x00000004)"))
        << shown(r);
    const auto& sw = j.at("sweep");
    EXPECT_EQ(sw.at("parameter"), "n") << j.dump(2);
    ASSERT_EQ(sw.at("values").size(), 5u);
    EXPECT_EQ(sw.at("values")[3].at("value"), 4);
    EXPECT_EQ(sw.at("values")[3].at("results").at("single"), "mismatch");
    EXPECT_EQ(sw.at("values")[2].at("results").at("single"), "ok");
    EXPECT_EQ(sw.at("smallest_wrong").at("split"), nullptr);
    EXPECT_EQ(sw.at("smallest_wrong").at("multipass"), 4);
    EXPECT_EQ(j.at("scenario").at("parameters"), nlohmann::json({{"n", 2}}));
}

TEST(ScenarioSweep, AListIsCleanOnLavapipe) {
    const auto path = writeFile("-sweep-clean.toml", kSweepFile);
    const BoundedResult r = repro({"--scenario", path.string(), "--sweep", "n=1,7,3"});
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "  n = 7         ok         ok         ok\n")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- NOT REPRODUCED: at each of the 3 value(s) of n every mode's checked buffers are "
                         "bit-identical to the CPU model and to split\n"))
        << shown(r);
}

// A parameter the file lacks, a value that makes the file bad, a malformed --sweep: one line,
// exit 1, nothing run.
TEST(ScenarioSweep, BadSweepsAreOneLine) {
    const auto path = writeFile("-sweep-bad.toml", kSweepFile);
    const BoundedResult missing = repro({"--scenario", path.string(), "--sweep", "m=1..2"});
    const BoundedResult zero = repro({"--scenario", path.string(), "--sweep", "n=0..2"});
    const BoundedResult malformed = repro({"--scenario", path.string(), "--sweep", "1..2"});
    std::filesystem::remove(path);
    EXPECT_EQ(missing.status, 1) << shown(missing);
    EXPECT_EQ(missing.out, "") << shown(missing);
    EXPECT_EQ(missing.err, "repro: --sweep: " + path.string() + " has no parameter 'm' (its [parameters]: n)\n");
    EXPECT_EQ(zero.status, 1) << shown(zero);
    EXPECT_EQ(zero.out, "") << shown(zero);
    EXPECT_TRUE(contains(zero.err, "repro: " + path.string() + ":13:")) << shown(zero);
    EXPECT_TRUE(contains(zero.err, " (with --sweep n = 0)\n")) << shown(zero);
    EXPECT_EQ(malformed.status, 1) << shown(malformed);
    EXPECT_EQ(malformed.err,
              "repro: --sweep: '1..2' on a scenario is NAME=A..B or NAME=V1,V2,... over one of its [parameters]\n");
}

// A driver forwarding only the first dispatch of each command buffer, on a file with a second
// queue: split (one step a submit) stays right; multipass and single submit the main queue's
// first batch, two increments, as one command buffer, so they lose the second increment, and
// the verdict names the step that last wrote the wrong word.
TEST(ScenarioQueues, ADroppedDispatchInABatchIsCaughtAndSplitStaysRight) {
    const auto path = writeFile("-queue-dropped.toml", R"(name = "q"
source = "s"
pattern = "p"
expected = "not reproduced"
check = ["out"]

[[queue]]
name = "second"
family = "same"

[[semaphore]]
name = "t"
type = "timeline"

[[buffer]]
name = "data"
bytes = 256
init = "iota"

[[buffer]]
name = "out"
bytes = 256

[[step]]
dispatch = "increment"
bindings = ["data"]

[[step]]
barrier = "blade-g"

[[step]]
dispatch = "increment"
bindings = ["data"]

[[step]]
signal = "t"
value = 1

[[step]]
wait = "t"
value = 1
queue = "second"

[[step]]
dispatch = "copy"
bindings = ["data", "out"]
queue = "second"
)");
    const BoundedResult r = repro({"--scenario", path.string()}, simulated("seed-bug:dispatches=1"));
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=split     3 submit(s)\n    -> ok: bit-identical to the CPU model\n")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- BUG REPRODUCED: mode multipass is wrong: buffer 'out' differs from the CPU model at "
                         "byte 0 (word 0: 0x00000001, the CPU model 0x00000002), last written by step 6 dispatch "
                         "copy"))
        << shown(r);
}

// ---- a driver that crashes, aborts or stalls: the supervised child (children/supervisor.hpp) ----

struct DriverFailure {
    const char* name;
    const char* spec;  // REPRO_SIMULATE
    int status;        // the documented exit status
    const char* line;  // the verdict line's start
    const char* call;  // the call it names
    size_t finished;   // the modes that finished before it (ok in the document)
};

class ScenarioDriverFailure : public ::testing::TestWithParam<DriverFailure> {};

TEST_P(ScenarioDriverFailure, IsOneLineNamingTheCallWithItsStatusAndTheDocumentSaysSo) {
    // Unsupervised, a crash in the driver ended repro itself (SIGSEGV, status 139) with no
    // verdict and no document.
    const auto json = writeFile("-driver-failure.json", "");
    const BoundedResult r =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--json", json.string()},
              simulated(GetParam().spec));
    ASSERT_EQ(r.status, GetParam().status) << shown(r);
    EXPECT_TRUE(contains(r.out, GetParam().line)) << shown(r);
    EXPECT_TRUE(contains(r.out, GetParam().call)) << shown(r);
    const nlohmann::json doc = readJson(json);
    EXPECT_EQ(doc["verdict"]["exit_status"], GetParam().status) << doc.dump(2);
    EXPECT_TRUE(contains(doc["verdict"]["line"].get<std::string>(), GetParam().line)) << doc.dump(2);
    EXPECT_EQ(doc["scenario"]["name"], "kompute-196-increment-chain") << doc.dump(2);
    // The modes that finished, as the child published them; the one it ended in, failed; the
    // rest not run. Before the modes, none.
    const nlohmann::json& modes = doc["modes"];
    if (GetParam().status == 125) {
        EXPECT_TRUE(modes.empty()) << modes.dump(2);
    } else {
        ASSERT_EQ(modes.size(), 3u) << modes.dump(2);
        for (size_t i = 0; i < GetParam().finished; ++i) EXPECT_EQ(modes[i]["result"], "ok") << modes.dump(2);
        EXPECT_EQ(modes[GetParam().finished]["result"], "failed") << modes.dump(2);
        EXPECT_EQ(modes[2]["result"], GetParam().finished == 2 ? "failed" : "not run") << modes.dump(2);
        EXPECT_TRUE(doc["device"]["name"].is_string()) << doc.dump(2);
    }
    std::filesystem::remove(json);
}

INSTANTIATE_TEST_SUITE_P(
    Supervised, ScenarioDriverFailure,
    // Split's submits are 1 to 5 (the upload, one a dispatch, the readback), multipass's own
    // the 7th.
    testing::Values(DriverFailure{"CrashInASubmit", "crash:vkQueueSubmit:2", 3, "--- DRIVER CRASH: the driver crashed",
                                  "in vkQueueSubmit during mode split", 0},
                    DriverFailure{"AbortInASubmit", "abort:vkQueueSubmit:3", 3, "--- DRIVER CRASH: the driver aborted",
                                  "in vkQueueSubmit during mode split", 0},
                    DriverFailure{"CrashInALaterMode", "crash:vkQueueSubmit:7", 3,
                                  "--- DRIVER CRASH: the driver crashed", "in vkQueueSubmit during mode multipass", 1},
                    DriverFailure{"CrashInSetUp", "crash:vkCreateDevice", 125,
                                  "--- CANNOT TEST HERE: the driver crashed", "in vkCreateDevice during set-up", 0}),
    [](const testing::TestParamInfo<DriverFailure>& p) { return std::string(p.param.name); });

// Under --repeat, --sweep and --matrix the document keeps the runs, values and rows that
// finished before a driver crash, and marks the mode it ended in, with where
// (docs/scenarios.md "Reports"). kompute-196 submits 11 times a run: split 5 (the upload, its 3
// dispatches, the readback), multipass and single 3 each; the sweep file below 9 at n = 1.
struct EndedLater {
    const char* name;
    const char* spec;                  // REPRO_SIMULATE
    std::vector<std::string> args;     // after --scenario FILE
    bool sweepFile;                    // the --sweep file (kSweepFile), else kompute-196
    std::vector<uint32_t> runs;        // each mode's finished runs, in the document
    size_t endedIn;                    // the mode marked "failed" (3: none)
    const char* detail;                // its detail's start
    const char* rows;                  // "sweep" or "matrix" (their rows), or "" for none
    std::vector<std::string> lastRow;  // the last row's results
};

class ScenarioEndedLater : public ::testing::TestWithParam<EndedLater> {};

TEST_P(ScenarioEndedLater, TheDocumentKeepsWhatFinishedAndMarksWhereItEnded) {
    const EndedLater& p = GetParam();
    const auto file = p.sweepFile ? writeFile("-ended-sweep.toml", kSweepFile) : std::filesystem::path();
    const auto json = writeFile("-ended-later.json", "");
    std::vector<std::string> args = {"--scenario",
                                     p.sweepFile ? file.string() : kScenarios + "kompute-196-increment-chain.toml"};
    args.insert(args.end(), p.args.begin(), p.args.end());
    args.insert(args.end(), {"--json", json.string()});
    const BoundedResult r = repro(args, simulated(p.spec));
    const nlohmann::json doc = readJson(json);
    std::filesystem::remove(json);
    if (p.sweepFile) std::filesystem::remove(file);
    ASSERT_EQ(r.status, 3) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- DRIVER CRASH: the driver crashed")) << shown(r);
    const nlohmann::json& modes = doc["modes"];
    ASSERT_EQ(modes.size(), 3u) << doc.dump(2);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(modes[i]["runs"], p.runs[i]) << modes.dump(2);
        EXPECT_EQ(modes[i]["result"], i == p.endedIn ? "failed" : "ok") << modes.dump(2);
    }
    if (p.endedIn < 3) {
        EXPECT_EQ(modes[p.endedIn]["detail"].get<std::string>().rfind(p.detail, 0), 0u) << modes.dump(2);
    }
    if (std::string(p.rows).empty()) return;
    const nlohmann::json& rows = std::string(p.rows) == "sweep" ? doc["sweep"]["values"] : doc["matrix"]["rows"];
    ASSERT_FALSE(rows.empty()) << doc.dump(2);
    for (size_t k = 0; k + 1 < rows.size(); ++k) {
        for (const char* mode : {"split", "multipass", "single"})
            EXPECT_EQ(rows[k]["results"][mode], "ok") << rows.dump(2);
    }
    const std::vector<std::string> names = {"split", "multipass", "single"};
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(rows.back()["results"][names[i]], p.lastRow[i]) << rows.dump(2);
}

INSTANTIATE_TEST_SUITE_P(
    Supervised, ScenarioEndedLater,
    testing::Values(
        // run 2's multipass submit (the 18th): split finished 2 runs, the others 1
        EndedLater{"RepeatRun2",
                   "crash:vkQueueSubmit:18",
                   {"--repeat", "3"},
                   false,
                   {2, 1, 1},
                   1,
                   "run 2: DRIVER CRASH: the driver crashed (SIGSEGV) in vkQueueSubmit during mode multipass",
                   "",
                   {}},
        // after every run, in vkDestroyDevice: nothing is marked
        EndedLater{"RepeatTeardown", "crash:vkDestroyDevice", {"--repeat", "2"}, false, {2, 2, 2}, 3, "", "", {}},
        // n = 2's multipass (the 15th): the row n = 2 has split ok, multipass failed, single not run
        EndedLater{"SweepValue2",
                   "crash:vkQueueSubmit:15",
                   {"--sweep", "n=1..5"},
                   true,
                   {2, 1, 1},
                   1,
                   "at n = 2: DRIVER CRASH",
                   "sweep",
                   {"ok", "failed", "not run"}},
        // the third row's split (the 26th): two rows ok, then --barrier full's split failed
        EndedLater{"MatrixRow3",
                   "crash:vkQueueSubmit:26",
                   {"--matrix"},
                   false,
                   {2, 2, 2},
                   0,
                   "at --barrier full: DRIVER CRASH",
                   "matrix",
                   {"failed", "not run", "not run"}}),
    [](const testing::TestParamInfo<EndedLater>& p) { return std::string(p.param.name); });

// ---- --merge-reports of scenario runs ----

// A file's run writes the run report (schema version 3, with its `scenario` section) once the
// engine fills RunReport::scenario (issue 34 §1); until then it writes the old
// repro-scenario-report, which --merge-reports names and leaves out (unit.MergeReports.*).
// Enable this when the engine writes the run report.
TEST(ScenarioMergeReports, DISABLED_GroupsTheDriversThatReproduceAndNamesTheScenario) {
    const auto wrong = writeFile("-merge-wrong.json", ""), right = writeFile("-merge-right.json", "");
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult a = repro({"--scenario", file, "--json", wrong.string()}, simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(a.status, 2) << shown(a);
    const BoundedResult b = repro({"--scenario", file, "--json", right.string()});
    ASSERT_EQ(b.status, 0) << shown(b);
    const BoundedResult merged = repro({"--merge-reports", wrong.string(), right.string()});
    ASSERT_EQ(merged.status, 0) << shown(merged);
    const std::string sha = sha256sum(file).substr(0, 8);
    EXPECT_TRUE(contains(merged.out, "kompute-196-increment-chain@" + sha)) << shown(merged);
    EXPECT_TRUE(contains(merged.out, "\nreproduced (1 report): ")) << shown(merged);
    EXPECT_TRUE(contains(merged.out, "\nnot reproduced (1 report): ")) << shown(merged);
    // The wrong run's row first, its multipass named wrong.
    const size_t wrongRow = merged.out.find(wrong.filename().string());
    const size_t rightRow = merged.out.find(right.filename().string());
    EXPECT_LT(wrongRow, rightRow) << shown(merged);
    EXPECT_TRUE(contains(merged.out, "mismatch")) << shown(merged);
    std::filesystem::remove(wrong);
    std::filesystem::remove(right);
}

// ---- --matrix on a scenario ----

// kompute-196's buffer is device-local already: no memory=device-local row, and a note says so.
TEST(ScenarioMatrix, EveryBarrierAndMemoryRowIsRightOnLavapipeAndTheControlsAreMarked) {
    const auto json = writeFile("-matrix.json", "");
    const BoundedResult r =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--matrix", "--json", json.string()});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- NOT REPRODUCED: in each valid row (as written, --barrier blade, --barrier full, "
                         "memory=host-visible, submit-every=2, work x4) every mode's checked buffers are "
                         "bit-identical"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "note: --matrix: row memory=device-local left out: every buffer it could move is "
                         "device-local already\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "--barrier none (control)")) << shown(r);
    const nlohmann::json doc = readJson(json);
    const nlohmann::json& rows = doc["matrix"]["rows"];
    ASSERT_EQ(rows.size(), 8u) << doc["matrix"].dump(2);
    const std::vector<std::pair<std::string, bool>> expected = {{"as written", false},
                                                                {"--barrier blade", false},
                                                                {"--barrier full", false},
                                                                {"memory=host-visible", false},
                                                                {"submit-every=2", false},
                                                                {"work x4", false},
                                                                {"--barrier execution-only", true},
                                                                {"--barrier none", true}};
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(rows[i]["label"], expected[i].first);
        EXPECT_EQ(rows[i]["control"], expected[i].second) << rows[i].dump();
        EXPECT_EQ(rows[i]["memory"], i == 3 ? nlohmann::json("host-visible") : nlohmann::json()) << rows[i].dump();
        EXPECT_EQ(rows[i]["submit_every"], i == 4 ? nlohmann::json(2) : nlohmann::json()) << rows[i].dump();
        EXPECT_EQ(rows[i]["work_factor"], i == 5 ? nlohmann::json(4) : nlohmann::json()) << rows[i].dump();
        for (const char* mode : {"split", "multipass", "single"}) EXPECT_EQ(rows[i]["results"][mode], "ok");
    }
    EXPECT_TRUE(doc["sweep"].is_null());
    std::filesystem::remove(json);
}

TEST(ScenarioMatrix, ADriverThatDropsADispatchIsWrongUnderTheValidBarriersAndTheControlsAreNamed) {
    const BoundedResult r = repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--matrix"},
                                  simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED: under the file's own barriers: mode multipass is wrong: "))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "(caught controls: --barrier execution-only, --barrier none)")) << shown(r);
    EXPECT_TRUE(contains(r.out, "  --barrier full                        ok         mismatch   mismatch")) << shown(r);
    EXPECT_TRUE(contains(r.out, "  memory=host-visible                   ok         mismatch   mismatch")) << shown(r);
    // two dispatches in the first submit: the second dropped there too
    EXPECT_TRUE(contains(r.out, "  submit-every=2                        ok         mismatch   mismatch")) << shown(r);
    EXPECT_TRUE(contains(r.out, "  work x4                               ok         mismatch   mismatch")) << shown(r);
}

// --submit-every K on a scenario: multipass and single end a submit after every K work steps,
// the host waiting; a driver that forwards only a command buffer's first dispatch then loses
// fewer of kompute-196's three increments (one, in the first submit of two), and a file with
// queues is refused.
TEST(ScenarioSubmitEvery, CutsTheOneSubmitModesAfterEveryKWorkSteps) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult r = repro({"--scenario", file, "--submit-every", "2"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  submits:  multipass and single end a submit after every 2 work step(s), the host waiting "
                         "for it (--submit-every 2)\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "  mode=multipass 2 submit(s)\n")) << shown(r);
    EXPECT_TRUE(contains(r.out, "  mode=single    2 submit(s)\n")) << shown(r);
    const BoundedResult stream =
        repro({"--scenario", file, "--submit-every", "1", "--mode", "single", "--print-stream"});
    ASSERT_EQ(stream.status, 0) << shown(stream);
    // the upload, three submits of one increment each, the readback
    size_t submits = 0;
    for (size_t at = stream.out.find("vkQueueSubmit("); at != std::string::npos;
         at = stream.out.find("vkQueueSubmit(", at + 1))
        ++submits;
    EXPECT_EQ(submits, 5u) << shown(stream);
    const BoundedResult dropped =
        repro({"--scenario", file, "--submit-every", "2"}, simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(dropped.status, 2) << shown(dropped);
    EXPECT_TRUE(contains(dropped.out, "--- BUG REPRODUCED: mode multipass is wrong: ")) << shown(dropped);
    const BoundedResult queues =
        repro({"--scenario", kScenarios + "compute-copy-on-a-second-queue.toml", "--submit-every", "2"});
    EXPECT_EQ(queues.status, 1) << shown(queues);
    EXPECT_EQ(queues.err, "repro: --submit-every: " + kScenarios +
                              "compute-copy-on-a-second-queue.toml has queues or semaphores, whose batches set its "
                              "submits; expected a file on one queue\n")
        << shown(queues);
}

// `repro --scenario kompute-196 OPTION EXTRA...` for each EXTRA: exit 1, nothing on stdout, and
// "repro: OPTION: not with EXTRA on a scenario WHY" on stderr.
void expectRefusedWithEach(const std::string& option, const std::vector<std::vector<std::string>>& extras,
                           const std::string& why) {
    for (const std::vector<std::string>& extra : extras) {
        std::vector<std::string> args = {"--scenario", kScenarios + "kompute-196-increment-chain.toml", option};
        args.insert(args.end(), extra.begin(), extra.end());
        const BoundedResult r = repro(args);
        EXPECT_EQ(r.status, 1) << shown(r);
        EXPECT_EQ(r.out, "") << shown(r);
        EXPECT_EQ(r.err, "repro: " + option + ": not with " + extra.front() + " on a scenario " + why + "\n")
            << shown(r);
    }
}

TEST(ScenarioMatrix, GoesWithNoBarrierSweepRepeatOrCheckSteps) {
    expectRefusedWithEach("--matrix",
                          {{"--barrier", "full"},
                           {"--submit-every", "2"},
                           {"--sweep", "n=1,2"},
                           {"--repeat", "2"},
                           {"--check-steps"},
                           {"--triage"}},
                          "(the matrix runs the file under each barrier, every mode once)");
}

TEST(ScenarioMatrix, AFileWithoutABarrierStepHasNoBarrierRowsAndSaysWhy) {
    const BoundedResult r = repro({"--scenario", kScenarios + "cubecl-1336-private-array.toml", "--matrix"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "note: --matrix: the file has no barrier step")) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED: in each valid row (as written, memory=")) << shown(r);
    EXPECT_FALSE(contains(r.out, "--barrier blade")) << shown(r);
}

// ---- --triage on a scenario ----

// --triage on a scenario: on a correct driver the baseline alone runs and nothing is triaged;
// the JSON document carries the conclusion.
TEST(ScenarioTriage, OnACorrectDriverOnlyTheBaselineRuns) {
    const auto json = writeFile("-triage-ok.json", "");
    const BoundedResult r =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--triage", "--json", json.string()});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "  baseline: split ok, multipass ok, single ok\n")) << shown(r);
    EXPECT_FALSE(contains(r.out, "--- triage on mode")) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- conclusion: not reproduced; nothing to triage\n")) << shown(r);
    const nlohmann::json doc = readJson(json);
    std::filesystem::remove(json);
    EXPECT_EQ(doc["triage"]["conclusion"]["kind"], "not_reproduced") << doc.dump(2);
    EXPECT_TRUE(doc["triage"]["experiments"].empty()) << doc.dump(2);
}

// A driver that forwards only the first dispatch of a command buffer: no barrier or memory
// variant makes multipass right and split's steps all match the CPU model, so the triage
// rules out the shader compiler and does not call it a synchronization bug (undetermined);
// the verdict stays the baseline's (exit 2).
TEST(ScenarioTriage, ADroppedDispatchStaysWrongUnderEveryVariantAndIsNotCalledSynchronization) {
    const auto json = writeFile("-triage-drop.json", "");
    const BoundedResult r =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--triage", "--json", json.string()},
              simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  baseline: split ok, multipass mismatch, single mismatch\n--- triage on mode "
                         "multipass ---\n"))
        << shown(r);
    for (const char* line :
         {"  barrier=blade            wrong    multipass mismatch\n",
          "  barrier=full             wrong    multipass mismatch\n",
          "  memory=device-local      no effect: every buffer is device-local already",
          "  memory=host-visible      wrong    multipass mismatch\n",
          "  split check-steps        correct  3 checked step(s) matched the CPU model\n",
          // two increments in the first of two submits: the second still dropped
          "  submit-every=2           wrong    multipass mismatch\n", "  H5 the shader compiler: rules out",
          "--- conclusion: undetermined: no experiment "
          "makes it correct",
          "--- BUG REPRODUCED: mode multipass is wrong: buffer 'data' differs"})
        EXPECT_TRUE(contains(r.out, line)) << line << shown(r);
    const nlohmann::json doc = readJson(json);
    std::filesystem::remove(json);
    EXPECT_EQ(doc["triage"]["failing_mode"], "multipass") << doc.dump(2);
    EXPECT_EQ(doc["triage"]["conclusion"]["kind"], "undetermined") << doc.dump(2);
    EXPECT_EQ(doc["triage"]["experiments"][1]["experiment"], "barrier=full") << doc.dump(2);
    EXPECT_EQ(doc["triage"]["experiments"][1]["result"], "wrong") << doc.dump(2);
    EXPECT_EQ(doc["verdict"]["exit_status"], 2) << doc.dump(2);
}

// blade #356's file: split's step check holds each conv-t and slice to the CPU chain's
// tolerance, so a right split rules the shader compiler out.
TEST(ScenarioTriage, TheBladeFilesStepCheckComparesItsChainWithTheCpuModel) {
    const BoundedResult r = repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--triage"},
                                  simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "  split check-steps        correct  6 checked step(s) matched the CPU model\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "  H5 the shader compiler: rules out")) << shown(r);
}

TEST(ScenarioTriage, ChoosesItsOwnModesBarriersAndChecks) {
    expectRefusedWithEach("--triage",
                          {{"--mode", "single"},
                           {"--barrier", "full"},
                           {"--submit-every", "2"},
                           {"--sweep", "n=1,2"},
                           {"--repeat", "2"},
                           {"--check-steps"},
                           {"--print-stream"}},
                          "(the triage chooses the modes, barriers and checks of its runs)");
}

}  // namespace
