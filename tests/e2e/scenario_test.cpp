// repro --scenario and --list-scenarios, end to end (docs/scenarios.md): every shipped
// scenario gives its documented verdict on the machine's driver (lavapipe in CI), a bad file
// gives one FILE:LINE:COLUMN line and runs nothing, and a simulated driver that drops
// dispatches (tests/simdriver, seed-bug) is caught in the one-submit modes and not in split.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

std::string shown(const BoundedResult& r) { return describeEnd(r) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err; }

std::filesystem::path writeFile(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / ("repro-scenario-" + std::to_string(getpid()) + name);
    std::ofstream(path) << text;
    return path;
}

class ShippedScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedScenario, GivesItsDocumentedVerdict) {
    const BoundedResult r = repro({"--scenario", kScenarios + GetParam()});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "expected on a correct driver: not reproduced")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU model "
                         "and to split"))
        << shown(r);
    for (const char* mode : {"mode=split", "mode=multipass", "mode=single"}) EXPECT_TRUE(contains(r.out, mode)) << mode;
}

INSTANTIATE_TEST_SUITE_P(Lavapipe, ShippedScenario,
                         ::testing::Values("kompute-196-increment-chain.toml",
                                           "moltenvk-2805-fill-between-dispatches.toml",
                                           "offload-513-compute-then-copy.toml", "taichi-3791-odd-even-sort.toml",
                                           "cubecl-1336-private-array.toml", "llama-cpp-21724-many-dispatches.toml",
                                           "turboquant-185-one-long-dispatch.toml", "taichi-3544-heavy-kernels.toml"));

// A driver that forwards only the first dispatch of each command buffer: multipass and single
// lose increments 2 and 3, split (one dispatch per submit) does not. Proves the checker fails.
TEST(ScenarioSimulated, DroppedDispatchesAreCaughtInTheOneSubmitModes) {
    const BoundedResult r = repro(
        {"--scenario", kScenarios + "kompute-196-increment-chain.toml"},
        {std::string("VK_ADD_LAYER_PATH=") + REPRO_SIMDRIVER_LAYER_DIR, "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate",
         "REPRO_SIMULATE=seed-bug:dispatches=1", "REPRO_SIMULATE_TRACE="});
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=split     3 submit(s)\n    -> ok: bit-identical to the CPU model\n")) << shown(r);
    // data starts as iota from 1000: word 0 should be 1003, one increment leaves 1001.
    EXPECT_TRUE(contains(r.out,
                         "--- BUG REPRODUCED: mode multipass is wrong: buffer 'data' differs from the CPU model "
                         "at byte 0 (word 0: 0x000003e9, the CPU model 0x000003eb); 16384 of 16384 words differ"))
        << shown(r);
}

// The same driver on the odd-even sort (256 compare-swap dispatches, a repeat): split sorts,
// the one-submit modes keep only the first compare-swap and are caught.
TEST(ScenarioSimulated, DroppedCompareSwapsLeaveTheSortUnsorted) {
    const BoundedResult r = repro(
        {"--scenario", kScenarios + "taichi-3791-odd-even-sort.toml"},
        {std::string("VK_ADD_LAYER_PATH=") + REPRO_SIMDRIVER_LAYER_DIR, "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate",
         "REPRO_SIMULATE=seed-bug:dispatches=1", "REPRO_SIMULATE_TRACE="});
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

// A simulated dispatch that never ends: the one submit times out (--timeout 1), exit 3, the
// device is abandoned and nothing crashes at teardown.
TEST(ScenarioSimulated, AHungSubmitIsAHang) {
    const BoundedResult r = repro(
        {"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--timeout", "1"},
        {std::string("VK_ADD_LAYER_PATH=") + REPRO_SIMDRIVER_LAYER_DIR, "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate",
         "REPRO_SIMULATE=clock:us-per-wg=1;hang:dispatches=1", "REPRO_SIMULATE_TRACE="});
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
                         "compare-swap, private-array or work\n");
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

TEST(ScenarioBadFile, AMissingFileIsAUsageError) {
    const BoundedResult r = repro({"--scenario", "/nonexistent/x.toml"});
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.err, "repro: --scenario: cannot read '/nonexistent/x.toml'\n");
}

TEST(ScenarioOptions, OnlyModeDeviceAndTimeoutGoWithIt) {
    const BoundedResult r = repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--matrix"});
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_TRUE(contains(r.err, "--scenario: not with --matrix")) << shown(r);
    const BoundedResult one =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--mode", "single"});
    EXPECT_EQ(one.status, 0) << shown(one);
    EXPECT_FALSE(contains(one.out, "mode=split")) << shown(one);
    EXPECT_TRUE(contains(one.out,
                         "--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU "
                         "model\n"))
        << shown(one);
}

TEST(ScenarioList, ListsTheShippedScenarios) {
    const BoundedResult r = repro({"--list-scenarios"});
    ASSERT_EQ(r.status, 0) << shown(r);
    for (const char* name :
         {"kompute-196-increment-chain", "moltenvk-2805-fill-between-dispatches", "offload-513-compute-then-copy",
          "taichi-3791-odd-even-sort", "cubecl-1336-private-array", "llama-cpp-21724-many-dispatches",
          "turboquant-185-one-long-dispatch", "taichi-3544-heavy-kernels"}) {
        EXPECT_TRUE(contains(r.out, name)) << shown(r);
    }
    EXPECT_TRUE(contains(r.out, "https://github.com/KomputeProject/kompute/issues/196")) << shown(r);
}

}  // namespace
