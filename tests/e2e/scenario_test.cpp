// repro --scenario and --list-scenarios, end to end (docs/scenarios.md): every shipped
// scenario gives its documented verdict on the machine's driver (lavapipe in CI), a bad file
// gives one FILE:LINE:COLUMN line and runs nothing, and a simulated driver that drops
// dispatches (tests/simdriver, seed-bug) or transfer commands (drop-transfers) is caught in
// the one-submit modes and not in split. A file's run is the built-in chain's engine: its
// output has the built-in's layout (each mode's checked buffers, then its result line) and
// its report is the run report (docs/report-schema.md, schema version 3, with `scenario`).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "bounded_process.hpp"
#include "process.hpp"
#include "simulated_env.hpp"

namespace {

using repro::test::BoundedResult;
using repro::test::contains;
using repro::test::count;
using repro::test::describeEnd;
using repro::test::runBounded;
using repro::test::simulated;

const std::string kScenarios = REPRO_SOURCE_DIR "/scenarios/";

// No layer, no simulated driver: the machine's own.
const std::vector<std::string> kPlain = {"VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE="};

BoundedResult repro(const std::vector<std::string>& args, const std::vector<std::string>& env = kPlain) {
    return runBounded(REPRO_EXECUTABLE, args, env, 120);
}

// `out` with each result line's wall time, the one part of it that changes from run to run,
// written as T: "(3 submits, 0.01 s)" becomes "(3 submits, T s)".
std::string timeless(const std::string& out) {
    static const std::regex wall(R"((\(\d+ submits?), \d+\.\d+ s\))");
    return std::regex_replace(out, wall, "$1, T s)");
}

// The result of the first run of `mode` in the text output: the line after a mode's line
// ("  mode=single    'data' nz=..."), without its "    -> ", its wall time as T; "" when none.
std::string resultOf(const std::string& out, const std::string& mode) {
    const std::string head = "  mode=" + mode + std::string(mode.size() < 9 ? 9 - mode.size() : 0, ' ') + " ";
    std::istringstream in(timeless(out));
    std::string line, next;
    std::getline(in, line);
    while (std::getline(in, next)) {
        if (line.rfind(head, 0) == 0 && next.rfind("    -> ", 0) == 0) return next.substr(7);
        line = next;
    }
    return "";
}

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
                             "  chain: 'small[3]' holds the chain's small[3]: compared with the CPU "
                             "model's float64 chain"))
            << shown(r);
        // the sum and the largest value are the driver's float results: any
        const std::string checked = R"( 'small\[3\]' nz=7680/7680 \(100\.0%\) sum=\S+ max_abs=\S+\n    -> ok: )";
        EXPECT_TRUE(std::regex_search(r.out, std::regex("  mode=split    " + checked +
                                                        "within the CPU model's float32 tolerance; 'small\\[3\\]': "
                                                        "the largest difference ")))
            << shown(r);
        for (const char* mode : {"multipass", "single   "}) {
            EXPECT_TRUE(std::regex_search(r.out, std::regex(std::string("  mode=") + mode + checked +
                                                            "within the CPU model's float32 tolerance and "
                                                            "bit-identical to split; 'small\\[3\\]': the largest "
                                                            "difference ")))
                << mode << shown(r);
        }
        EXPECT_FALSE(contains(r.out, "compared with split only")) << shown(r);
    }
    // each mode ran once and was right
    for (const char* mode : {"  mode=split     '", "  mode=multipass '", "  mode=single    '"})
        EXPECT_EQ(count(r.out, mode), 1u) << mode << shown(r);
    EXPECT_EQ(count(r.out, "\n    -> ok: "), 3u) << shown(r);
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
    const std::string out = timeless(r.out);
    EXPECT_TRUE(contains(out,
                         "  mode=split     'data' nz=16384/16384 (100.0%)\n    -> ok: bit-identical to the CPU model; "
                         "the reference for the other modes (3 submits, T s)\n"))
        << shown(r);
    // data starts as iota from 1000: word 0 should be 1003, one increment leaves 1001; single
    // loses the same two increments.
    for (const char* mode : {"multipass", "single   "}) {
        EXPECT_TRUE(contains(out, std::string("  mode=") + mode +
                                      " 'data' nz=16384/16384 (100.0%)\n    -> mismatch: buffer 'data' differs from "
                                      "the CPU model at byte 0 (word 0: 0x000003e9, the CPU model 0x000003eb), last "
                                      "written by step 5 dispatch increment; 16384 of 16384 words differ (1 submit, "
                                      "T s)\n"))
            << mode << shown(r);
    }
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode multipass is mismatch (cause: ")) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode single is mismatch (cause: ")) << shown(r);
    EXPECT_FALSE(contains(r.out, "mode split is")) << shown(r);
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
    const std::string out = timeless(r.out);
    EXPECT_TRUE(contains(out,
                         "  mode=split     'a' nz=1024/1024 (100.0%)\n    -> ok: bit-identical to the CPU model; the "
                         "reference for the other modes (3 submits, T s)\n"))
        << shown(r);
    // word 0: 7 + 1 forwarded; the model 7 + 3. The last writer of byte 0 is step 5 (count 10).
    for (const char* mode : {"multipass", "single   "}) {
        EXPECT_TRUE(contains(out, std::string("  mode=") + mode +
                                      " 'a' nz=1024/1024 (100.0%)\n    -> mismatch: buffer 'a' differs from the CPU "
                                      "model at byte 0 (word 0: 0x00000008, the CPU model 0x0000000a), last written by "
                                      "step 5 dispatch increment; 100 of 1024 words differ (1 submit, T s)\n"))
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
    const char* kind;       // the one-submit modes' classification: "mismatch", or "zero" when every
                            // checked byte is 0
    const char* multipass;  // multipass's result line after "-> KIND: ", without its submits
    const char* single;     // the same for single
};

class ScenarioDroppedTransfers : public ::testing::TestWithParam<DroppedTransfer> {};

TEST_P(ScenarioDroppedTransfers, OneSubmitModesWrongSplitRightAndTheStepNamed) {
    const DroppedTransfer& c = GetParam();
    const BoundedResult r = repro({"--scenario", kScenarios + c.file}, simulated("drop-transfers"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(std::regex_match(resultOf(r.out, "split"),
                                 std::regex(R"(ok: bit-identical to the CPU model; the reference for the other modes )"
                                            R"(\(\d+ submits, T s\))")))
        << shown(r);
    const std::string kind = c.kind;
    EXPECT_EQ(resultOf(r.out, "multipass"), kind + ": " + c.multipass + " (1 submit, T s)") << shown(r);
    EXPECT_EQ(resultOf(r.out, "single"), kind + ": " + c.single + " (1 submit, T s)") << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode multipass is " + kind + " (cause: ")) << shown(r);
    EXPECT_FALSE(contains(r.out, "mode split is")) << shown(r);
}

INSTANTIATE_TEST_SUITE_P(
    Simulated, ScenarioDroppedTransfers,
    ::testing::Values(
        DroppedTransfer{"moltenvk-2805-fill-between-dispatches.toml", "mismatch",
                        "buffer 'unrelated' differs from the CPU model at byte 64 (word 16: 0x00000000, the CPU model "
                        "0x00002805), last written by step 2 fill unrelated; 128 of 256 words differ",
                        "buffer 'readback' differs from the CPU model at byte 0 (word 0: 0x00000000, the CPU model "
                        "0x2a8be121), last written by step 8 copy consumed -> readback; 64 of 64 words differ"},
        DroppedTransfer{"turnip-28469-unaligned-transfers.toml", "mismatch",
                        "buffer 'dst' differs from the CPU model at byte 64 (word 16: 0xa5a5a5a5, the CPU model "
                        "0x22222222), last written by step 3 fill dst; 51 of 256 words differ",
                        "buffer 'dst' differs from the CPU model at byte 64 (word 16: 0xa5a5a5a5, the CPU model "
                        "0x22222222), last written by step 3 fill dst; 51 of 256 words differ"},
        DroppedTransfer{"renderdoc-3899-fill-then-copy.toml", "zero",
                        "buffer 'dst' differs from the CPU model at byte 4097 (word 1024: 0x00000000, the CPU model "
                        "0x00001000), last written by step 3 copy src -> dst; 10240 of 16384 words differ",
                        "buffer 'dst' differs from the CPU model at byte 4097 (word 1024: 0x00000000, the CPU model "
                        "0x00001000), last written by step 3 copy src -> dst; 10240 of 16384 words differ"},
        DroppedTransfer{"offload-513-compute-then-copy.toml", "mismatch",
                        "buffer 'data' differs from the CPU model at byte 128 (word 32: 0x0000002a, the CPU model "
                        "0x00000002), last written by step 5 dispatch increment; 8 of 1024 words differ",
                        "buffer 'data' differs from the CPU model at byte 128 (word 32: 0x0000002a, the CPU model "
                        "0x00000002), last written by step 5 dispatch increment; 8 of 1024 words differ"},
        DroppedTransfer{"executorch-17299-staged-dispatches.toml", "mismatch",
                        "buffer 'out2' differs from the CPU model at byte 0 (word 0: 0x00000000, the CPU model "
                        "0x0000000a), last written by step 6 dispatch copy; 64 of 64 words differ",
                        "buffer 'out2' differs from the CPU model at byte 0 (word 0: 0x00000000, the CPU model "
                        "0x0000000a), last written by step 6 dispatch copy; 64 of 64 words differ"}),
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
    const std::string out = timeless(r.out);
    EXPECT_TRUE(contains(out,
                         "  mode=split     'data' nz=256/256 (100.0%)\n    -> ok: bit-identical to the CPU model; the "
                         "reference for the other modes (256 submits, T s)\n"))
        << shown(r);
    EXPECT_TRUE(contains(out,
                         "  mode=multipass 'data' nz=256/256 (100.0%)\n    -> mismatch: buffer 'data' differs from the "
                         "CPU model at byte 0 (word 0: "))
        << shown(r);
    // The last writer is named with its repetition.
    EXPECT_TRUE(contains(out,
                         "last written by step 511 dispatch compare-swap (repetition 256 of 256); 256 of 256 words "
                         "differ (1 submit, T s)\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode multipass is mismatch (cause: ")) << shown(r);
    // The header names the repetitions and how many steps the repeat made.
    EXPECT_TRUE(contains(r.out, "step 3 dispatch compare-swap (repetition 2 of 256)")) << shown(r);
    EXPECT_TRUE(contains(r.out, "; ... (512 steps in\n      all)\n")) << shown(r);
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
    const std::string out = timeless(r.out);
    EXPECT_TRUE(contains(out,
                         "  mode=split     'args' nz=6/16 (37.5%), 'data' nz=4096/4096 (100.0%), 'out' nz=4096/4096 "
                         "(100.0%)\n    -> ok: bit-identical to the CPU model; the reference for the other modes (4 "
                         "submits, T s)\n"))
        << shown(r);
    const std::string missing =
        " 'args' nz=3/16 (18.8%), 'data' nz=4096/4096 (100.0%), 'out' nz=4096/4096 (100.0%)\n    -> mismatch: buffer "
        "'args' differs from the CPU model at byte 0 (word 0: 0x00000000, the CPU model 0x00000010), last written by "
        "step 4 dispatch indirect-writer; 3 of 16 words differ (1 submit, T s)\n";
    EXPECT_TRUE(contains(out, "  mode=multipass" + missing)) << shown(r);
    EXPECT_TRUE(contains(out, "  mode=single   " + missing)) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode multipass is mismatch (cause: ")) << shown(r);
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
    const std::string out = timeless(r.out);
    EXPECT_TRUE(contains(out,
                         "  mode=split     'a' nz=64/64 (100.0%)\n    -> ok: bit-identical to the CPU model; the "
                         "reference for the other modes (3 submits, T s)\n"))
        << shown(r);
    EXPECT_TRUE(contains(out,
                         "  mode=multipass 'a' nz=64/64 (100.0%)\n    -> mismatch: buffer 'a' differs from the CPU "
                         "model at byte 0 (word 0: 0x00000008, the CPU model 0x00000009), last written by step 5 "
                         "dispatch-indirect increment; 64 of 64 words differ (1 submit, T s)\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode multipass is mismatch (cause: ")) << shown(r);
}

// A simulated dispatch that never ends: the one submit times out (--timeout 1), exit 3, the
// device is abandoned, the mode after it does not run and nothing crashes at teardown.
TEST(ScenarioSimulated, AHungSubmitIsAHang) {
    const BoundedResult r = repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--timeout", "1"},
                                  simulated("clock:us-per-wg=1;hang:dispatches=1"));
    ASSERT_EQ(r.status, 3) << shown(r);
    const std::string hung =
        "hung: vkWaitSemaphores for submit 1 of 1 (all 5 steps) did not signal within the 1 s timeout (VK_TIMEOUT)";
    EXPECT_TRUE(contains(timeless(r.out), "  mode=multipass HANG\n    -> hang: " + hung + " (1 submit, T s)\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "  mode=single    not run\n    -> not run: an earlier mode lost the device\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- GPU HANG: mode multipass " + hung + " (cause: ")) << shown(r);
    EXPECT_FALSE(contains(r.out + r.err, "CRASH")) << shown(r);
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
                         "compare-swap, private-array, work, indirect-writer, conv-t, slice, image-increment or "
                         "image-copy\n");
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
    // said before the results
    const std::string note =
        "\n  CONTROL: a barrier is labelled a control (insufficient on purpose): a wrong result proves nothing about "
        "the driver\n";
    ASSERT_TRUE(contains(r.out, note)) << shown(r);
    EXPECT_LT(r.out.find(note), r.out.find("--- results ---")) << shown(r);
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
                "indirect-writer, conv-t, slice, image-increment or image-copy"},
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

// --mode single on a file: single is the mode under test, judged by the CPU model, and split
// runs after it as the reference, as for the built-in chain: single is judged by the CPU model
// at once, then compared with split too, so that the verdict's "and to split" is true (single
// was once judged by the CPU model alone, the verdict saying it all the same). A chain-only
// option such as --dispatch-repeat is refused: e2e.OptionsOnAFile.TheChainsOwnAreRefusedWithTheReason.
TEST(ScenarioOptions, ModeSingleIsUnderTestAndSplitRunsAfterItAsTheReference) {
    const BoundedResult one =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--mode", "single"});
    EXPECT_EQ(one.status, 0) << shown(one);
    EXPECT_TRUE(contains(timeless(one.out),
                         "--- results ---\n  mode=single    'data' nz=16384/16384 (100.0%)\n    -> ok: bit-identical "
                         "to the CPU model (1 submit, T s)\n  reference (split, run after the modes under test):\n  "
                         "mode=split     'data' nz=16384/16384 (100.0%)\n    -> ok: "
                         "bit-identical to the CPU model; the reference for the other modes (3 submits, T s)\n  "
                         "mode=single    (classified against split)\n    -> ok: bit-identical to the CPU model and to "
                         "split (1 submit, T s)\n"))
        << shown(one);
    EXPECT_TRUE(contains(one.out,
                         "\n--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU "
                         "model and to split\n"))
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
    EXPECT_TRUE(contains(r.out, "\n  experiment: --barrier none\n")) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n  CONTROL: a barrier is labelled a control")) << shown(r);
    // each run's result, then the counts per mode
    const std::string out = timeless(r.out);
    for (const char* run : {"1/3", "2/3", "3/3"}) {
        EXPECT_TRUE(contains(out, std::string("    -> ok: bit-identical to the CPU model; the reference for the other "
                                              "modes (3 submits, T s) [run ") +
                                      run + "]\n"))
            << run << shown(r);
        EXPECT_TRUE(contains(out, std::string("  mode=multipass 'data' nz=16384/16384 (100.0%)\n    -> mismatch: "
                                              "buffer 'data' differs from the CPU model at byte 0 (word 0: 0x000003e9, "
                                              "the CPU model 0x000003eb), last written by step 5 dispatch increment; "
                                              "16384 of 16384 words differ (1 submit, T s) [run ") +
                                      run + "]\n"))
            << run << shown(r);
    }
    EXPECT_TRUE(contains(r.out, "\n  split: 0/3 runs wrong; results bit-identical across runs\n")) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n  multipass: 3/3 runs wrong; results bit-identical across runs\n")) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n  single: 3/3 runs wrong; results bit-identical across runs\n")) << shown(r);
    // --barrier none does not reach multipass (blade's G before every step): the dropped dispatches
    // there are the driver's; single's are the control caught (ScenarioOptions.ABarrierControl...).
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode multipass is mismatch (3/3 runs wrong) (cause: "))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- CONTROL CAUGHT: mode single is mismatch (3/3 runs wrong) (cause: the control"))
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
    EXPECT_TRUE(contains(singleCalls,
                         "vkCmdBindDescriptorSets(COMPUTE, set 0: data)\n  vkCmdPushConstants(COMPUTE, offset 0, 16 "
                         "bytes: 16384 1 1 0)\n  vkCmdDispatch(256, 1, 1)"))
        << singleCalls;
    EXPECT_TRUE(contains(singleCalls, "vkCmdCopyBuffer(data (host twin) -> data, 65536 bytes)")) << singleCalls;
    EXPECT_FALSE(contains(r.out, "--- results")) << shown(r);  // no mode ran
    EXPECT_FALSE(contains(r.out, "    -> ")) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- command stream printed; nothing was run (--print-stream)\n")) << shown(r);
}

// Every command a file records is in the stream and swallowed with the rest: an indirect
// dispatch, its push constants, an update. (Before, vkCmdDispatchIndirect, vkCmdPushConstants and
// vkCmdUpdateBuffer were missing from the stream and reached the driver in a command buffer whose
// pipeline bind had been swallowed: NVIDIA's driver crashed, bench/h200-round21.)
TEST(ScenarioOptions, PrintStreamShowsIndirectDispatchesPushConstantsAndUpdates) {
    const BoundedResult r = repro(
        {"--scenario", kScenarios + "indirect-args-written-by-a-dispatch.toml", "--print-stream", "--mode", "single"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  vkCmdBindPipeline(COMPUTE, increment)\n  vkCmdBindDescriptorSets(COMPUTE, set 0: data)\n"
                         "  vkCmdPushConstants(COMPUTE, offset 0, 16 bytes: 4096 5 1 0)\n"
                         "  vkCmdDispatchIndirect(args, offset 16)\n"))
        << shown(r);
    const BoundedResult update = repro(
        {"--scenario", kScenarios + "turnip-28469-unaligned-transfers.toml", "--print-stream", "--mode", "single"});
    ASSERT_EQ(update.status, 0) << shown(update);
    EXPECT_TRUE(contains(update.out, "  vkCmdUpdateBuffer(")) << shown(update);
}

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
    EXPECT_TRUE(contains(
        r.out, "--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU model and to split\n"))
        << shown(r);
}

// On a file with one queue and no image, multipass records blade's G before every step, so a
// barrier control does not reach it: a driver that drops every dispatch past a command buffer's
// first is BUG REPRODUCED in multipass and the control caught in single (both were CONTROL
// CAUGHT, the driver's fault in multipass hidden as the control's). --drop-dispatch reaches both.
TEST(ScenarioOptions, ABarrierControlDoesNotReachAFilesMultipass) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult r =
        repro({"--scenario", file, "--barrier", "none", "--format", "json"}, simulated("seed-bug:dispatches=1"));
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, "\n--- BUG REPRODUCED: mode multipass is mismatch")) << shown(r);
    EXPECT_TRUE(contains(r.err, "\n--- CONTROL CAUGHT: mode single is mismatch (cause: the control)")) << shown(r);
    EXPECT_TRUE(contains(r.err, "\n--- the control does not reach multipass (--barrier none: ")) << shown(r);
    EXPECT_FALSE(contains(r.err, "mode=multipass cause: the control")) << shown(r);
    EXPECT_EQ(nlohmann::json::parse(r.out).at("verdict").at("kind"), "reproduced") << r.out;
    // --mode multipass alone: the control reaches no mode that ran, and the last line says so
    const BoundedResult alone = repro({"--scenario", file, "--barrier", "none", "--mode", "multipass"});
    EXPECT_EQ(alone.status, 0) << shown(alone);
    EXPECT_TRUE(contains(alone.out, "\n--- the control does not reach multipass (--barrier none: ")) << shown(alone);
    EXPECT_FALSE(contains(alone.out, "the control was not caught")) << shown(alone);
    const BoundedResult dropped = repro({"--scenario", file, "--drop-dispatch", "2"});
    EXPECT_EQ(dropped.status, 2) << shown(dropped);
    EXPECT_TRUE(contains(dropped.out, "\n--- CONTROL CAUGHT: mode multipass is ")) << shown(dropped);
    EXPECT_FALSE(contains(dropped.out, "does not reach")) << shown(dropped);
}

// Past the first 20 runs a file's --mode single runs fold by what the CPU model judged them,
// as the chain's do: wrong runs whose bytes differ from run 1's were kept, one entry each,
// while they waited for split (a --repeat 1000 of garbage grew the report without bound).
TEST(ScenarioOptions, RepeatFoldsRunsTheCpuModelJudgedWhileSplitRunsAfter) {
    const BoundedResult r = repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--mode", "single",
                                   "--repeat", "30", "--format", "json"},
                                  simulated("flaky:0.5,dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    size_t listed = 0;
    for (const auto& m : doc.at("modes")) listed += m.at("mode") == "single" ? 1 : 0;
    EXPECT_EQ(listed, 20u) << r.out;
    ASSERT_EQ(doc.at("folded_runs").size(), 1u) << r.out;
    EXPECT_EQ(doc.at("folded_runs")[0].at("runs"), 10) << r.out;
    EXPECT_TRUE(contains(r.err, "\n  single: 9/30 runs wrong; results NOT bit-identical across runs (10 runs past "))
        << shown(r);
}

// --mode single: the CPU chain judges blade #356's checked buffer in single, held to its
// tolerance, then split, run after it as the reference, bit for bit. The report names the buffer's chain
// value, and nothing is split-only.
TEST(ScenarioBlade356, SingleIsJudgedByTheCpuChainAndSplitRunsAfterItAsTheReference) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--mode", "single", "--format", "json"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_EQ(resultOf(r.err, "single")
                  .rfind("ok: within the CPU model's float32 tolerance; 'small[3]': the largest "
                         "difference ",
                         0),
              0u)
        << shown(r);
    EXPECT_TRUE(contains(r.err,
                         "\n  mode=single    (classified against split)\n    -> ok: within the CPU model's float32 "
                         "tolerance and bit-identical to split; 'small[3]': the largest difference "))
        << shown(r);
    EXPECT_LT(r.err.find("  mode=single    'small[3]'"),
              r.err.find("  reference (split, run after the modes under test):"))
        << shown(r);
    EXPECT_TRUE(contains(r.err,
                         "\n--- NOT REPRODUCED: every mode's checked buffers are within the CPU model's float32 "
                         "tolerance and bit-identical to split\n"))
        << shown(r);
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["scenario"]["chain_values"],
              nlohmann::json::parse(R"([{"buffer": "small[3]", "value": "small[3]"}])"))
        << r.out;
    EXPECT_EQ(doc["scenario"]["split_only"], nlohmann::json::array()) << r.out;
    ASSERT_EQ(doc["modes"].size(), 2u) << r.out;
    EXPECT_EQ(doc["modes"][0]["mode"], "single") << r.out;
    EXPECT_EQ(doc["modes"][0]["role"], "under test") << r.out;
    EXPECT_EQ(doc["modes"][0]["classification"], "ok") << r.out;
    EXPECT_EQ(doc["modes"][1]["mode"], "split") << r.out;
    EXPECT_EQ(doc["modes"][1]["role"], "reference (run after the modes under test)") << r.out;
    EXPECT_EQ(doc["modes"][1]["classification"], "ok") << r.out;
}

// A conv-t output that held big[0] until a fill overwrote part of it holds no value of the
// chain: split only, worded as a float kernel's output, never as a user kernel's (the file has
// none).
TEST(ScenarioBlade356, AChainValuePartlyOverwrittenIsSplitOnlyAndNoUserKernelIsBlamed) {
    const auto path = writeFile(
        "-partly-filled.toml",
        "name = \"o\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\nshape = \"tiny\"\n"
        "check = [\"big\"]\n[[buffer]]\nname = \"in\"\nbytes = 1120\ninit = \"chain-input\"\n[[buffer]]\n"
        "name = \"w\"\nbytes = 768\ninit = \"chain-weight\"\n[[buffer]]\nname = \"big\"\nbytes = 3584\n"
        "[[step]]\ndispatch = \"conv-t\"\nbindings = [\"in\", \"w\", \"big\"]\n[[step]]\nbarrier = \"blade-g\"\n"
        "[[step]]\nfill = \"big\"\nsize = 16\nvalue = 0\n");
    const BoundedResult r = repro({"--scenario", path.string()});
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 0) << shown(r);
    const std::string why = "'big' (written by conv-t or slice (float kernels) outside the chain's values)";
    EXPECT_EQ(resultOf(r.out, "split"), "ok: completed; " + why +
                                            ": split's bytes are the reference; the reference for the other modes (2 "
                                            "submits, T s)")
        << shown(r);
    EXPECT_EQ(resultOf(r.out, "single"),
              "ok: bit-identical to split; " + why + ": compared with split only (1 submit, T s)")
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- NOT REPRODUCED: every mode's checked buffers are bit-identical to split; " +
                                    why + ": compared with split only\n"))
        << shown(r);
    EXPECT_FALSE(contains(r.out, "user kernel")) << shown(r);
    EXPECT_FALSE(contains(r.out, "  chain:")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n  note: the CPU model cannot compute conv-t or slice (float kernels) outside the "
                         "chain's values: checked buffer(s) 'big' are compared with split only\n"))
        << shown(r);
}

// --reference split leaves the CPU chain out (split alone judges the float buffer, and the
// lines say so); --reference none is the built-in's zero check only, refused here.
TEST(ScenarioBlade356, ReferenceSplitLeavesTheCpuChainOutAndNoneIsRefused) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--reference", "split"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n  chain: 'small[3]' holds the chain's small[3]; the CPU chain is off (--reference "
                         "split): compared with split only\n"))
        << shown(r);
    EXPECT_EQ(resultOf(r.out, "single"),
              "ok: bit-identical to split; 'small[3]' (written by conv-t or slice (float kernels; the CPU chain is "
              "off)): compared with split only (1 submit, T s)")
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- NOT REPRODUCED: every mode's checked buffers are bit-identical to split; "
                         "'small[3]' (written by conv-t or slice (float kernels; the CPU chain is off)): "
                         "compared with split only\n"))
        << shown(r);
    const BoundedResult none =
        repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--reference", "none"});
    EXPECT_EQ(none.status, 1) << shown(none);
    EXPECT_EQ(none.out, "") << shown(none);
    EXPECT_EQ(none.err,
              "repro: --reference none: not with --scenario: the zero and non-finite checks alone are the built-in "
              "chain's; a file is compared with the CPU model and split (expected auto, split or cpu)\n");
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
    ASSERT_EQ(autoRef.status, 0) << shown(autoRef);
    EXPECT_TRUE(contains(autoRef.out,
                         "\n  chain: 'small[3]' holds the chain's small[3]; the CPU chain is off "
                         "(6.8e+10 multiply-adds, past --reference auto's 4.3e+09; --reference cpu "
                         "computes it): compared with split only\n"))
        << shown(autoRef);
    // With --reference cpu, --print-stream still computes nothing (it records and compares
    // nothing): the header says what the run would compare.
    std::filesystem::remove(path);
    const auto again = writeFile("-full-chain.toml", text);
    const BoundedResult cpu = repro({"--scenario", again.string(), "--print-stream", "--reference", "cpu"});
    std::filesystem::remove(again);
    ASSERT_EQ(cpu.status, 0) << shown(cpu);
    EXPECT_TRUE(contains(cpu.out,
                         "\n  chain: 'small[3]' holds the chain's small[3]: compared with the CPU model's "
                         "float64 chain"))
        << shown(cpu);
}

// conv-t on data other than the chain's (random words) is a float result the CPU model
// cannot know: split is its only reference. With --mode single, split runs after it and single
// is compared with split; without any split (--reference cpu) nothing would be compared, so
// one line, exit 1, nothing run.
TEST(ScenarioBlade356, ConvTOffTheChainIsComparedWithSplitAndRefusedWithoutIt) {
    const auto path =
        writeFile("-off-chain.toml",
                  "name = \"o\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\nshape = \"tiny\"\n"
                  "check = [\"big\"]\n[[buffer]]\nname = \"in\"\nbytes = 1120\ninit = \"random\"\n[[buffer]]\n"
                  "name = \"w\"\nbytes = 768\ninit = \"chain-weight\"\n[[buffer]]\nname = \"big\"\nbytes = 3584\n"
                  "[[step]]\ndispatch = \"conv-t\"\nbindings = [\"in\", \"w\", \"big\"]\n");
    const BoundedResult r = repro({"--scenario", path.string(), "--mode", "single"});
    const BoundedResult cpu = repro({"--scenario", path.string(), "--mode", "single", "--reference", "cpu"});
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 0) << shown(r);
    const std::string why = "'big' (written by conv-t or slice (float kernels) outside the chain's values)";
    EXPECT_TRUE(contains(timeless(r.out),
                         "\n  mode=single    (classified against split)\n    -> ok: bit-identical to "
                         "split; " +
                             why + ": compared with split only (1 submit, T s)\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- NOT REPRODUCED: every mode's checked buffers are bit-identical to split; " +
                                    why + ": compared with split only\n"))
        << shown(r);
    EXPECT_EQ(cpu.status, 1) << shown(cpu);
    EXPECT_TRUE(cpu.out.empty()) << shown(cpu);
    EXPECT_EQ(count(cpu.err, "\n"), 1u) << shown(cpu);
    EXPECT_TRUE(contains(cpu.err, "'big'")) << shown(cpu);
    EXPECT_TRUE(contains(cpu.err, "nothing would be compared")) << shown(cpu);
}

// The seed's symptom through the simulated driver that forwards only the first dispatch of a
// command buffer: split (one dispatch per submit) is right, the one-submit modes end with the
// all-zero output the RADV report had, outside the CPU chain's tolerance at every element.
TEST(ScenarioBlade356Simulated, DroppedDispatchesGiveAllZeroOutputInTheOneSubmitModes) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml"}, simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_EQ(resultOf(r.out, "split")
                  .rfind("ok: within the CPU model's float32 tolerance; 'small[3]': the largest "
                         "difference ",
                         0),
              0u)
        << shown(r);
    for (const char* mode : {"multipass", "single"}) {
        const std::string result = resultOf(r.out, mode);
        EXPECT_EQ(result.rfind("zero: buffer 'small[3]' (the chain's small[3]) is outside the CPU model's float32 "
                               "tolerance at 7680 of 7680 elements; the worst at byte ",
                               0),
                  0u)
            << mode << shown(r);
        EXPECT_TRUE(contains(result, ": 0 (0x00000000), the CPU model ")) << mode << shown(r);
        EXPECT_TRUE(contains(result, ", last written by step 11 dispatch slice (1 submit, T s)")) << mode << shown(r);
    }
    EXPECT_TRUE(
        contains(r.out, "  mode=multipass 'small[3]' nz=0/7680 (0.0%) sum=0.0000e0 max_abs=0.0000e0\n    -> zero: "))
        << shown(r);
    // zero, or killed where the host measures the dropped work's missing time (a slower machine,
    // a sanitizer build: a submit predicted above the timing margin that ended far too soon)
    for (const char* mode : {"multipass", "single"}) {
        EXPECT_TRUE(std::regex_search(
            r.out, std::regex(std::string("\n--- BUG REPRODUCED: mode ") + mode + " is (zero|killed) \\(cause: ")))
            << mode << shown(r);
    }
}

// A driver that drops every dispatch, split's included: every mode agrees (all zeros), so
// only the CPU chain can tell, and --check-steps names split's first conv-t, through its crop.
TEST(ScenarioBlade356Simulated, ADriverWrongInEveryModeIsCaughtByTheCpuChain) {
    const BoundedResult r = repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--check-steps"},
                                  simulated("seed-bug:dispatches=0"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_EQ(resultOf(r.out, "split")
                  .rfind("zero: buffer 'small[3]' (the chain's small[3]) is outside the CPU "
                         "model's float32 tolerance at 7680 of 7680 elements; the worst at byte ",
                         0),
              0u)
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode split is zero (cause: ")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n    check-steps: first wrong step: step 1 dispatch conv-t: buffer 'big[0]' (the "
                         "chain's big[0], its crop at (1, 1)) is outside the CPU model's float32 tolerance at "
                         "7680 of 7680 elements"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "; 6 of 6 checked step(s) differ\n")) << shown(r);
}

TEST(ScenarioList, ListsTheShippedScenarios) {
    const BoundedResult r = repro({"--list-scenarios"});
    ASSERT_EQ(r.status, 0) << shown(r);
    for (const char* name : {"kompute-196-increment-chain",
                             "moltenvk-2805-fill-between-dispatches",
                             "offload-513-compute-then-copy",
                             "turnip-28469-unaligned-transfers",
                             "vkd3d-2617-clear-then-consume",
                             "renderdoc-3899-fill-then-copy",
                             "executorch-17299-staged-dispatches",
                             "llama-25767-many-shapes",
                             "sensitivity-stale-read",
                             "taichi-3791-odd-even-sort",
                             "cubecl-1336-private-array",
                             "llama-cpp-21724-many-dispatches",
                             "turboquant-185-one-long-dispatch",
                             "taichi-3544-heavy-kernels",
                             "indirect-args-written-by-a-dispatch",
                             "compute-copy-on-a-second-queue",
                             "blade-356-conv-t-slice-chain",
                             "offload-513-storage-image-then-copy",
                             "executorch-17299-noop-dispatch-transition",
                             "wgpu-8473-texture-to-buffer-copy",
                             "layout-transition-orders-compute-and-copy"}) {
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

// The values the JSON Schema of the run report (docs/report.schema.json) allows for
// experiment.`key`.
nlohmann::json schemaEnum(const std::string& key) {
    std::ifstream in(REPRO_SOURCE_DIR "/docs/report.schema.json");
    return nlohmann::json::parse(in).at("properties").at("experiment").at("properties").at(key).at("enum");
}

// --json FILE (docs/report-schema.md): a file's run writes the run report, with the file's
// facts and the file itself (its hash equal to sha256sum's) under `scenario`, the device, each
// mode's submits and result, and the verdict.
TEST(FileReport, JsonFileCarriesTheScenarioItsHashAndEveryMode) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const auto dir = std::filesystem::temp_directory_path() / ("repro-scenario-json-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto path = dir / "report.json";
    const BoundedResult r = repro({"--scenario", file, "--json", path.string()});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << shown(r);  // the text report stays on stdout
    const nlohmann::json j = readJson(path);
    EXPECT_FALSE(temporaryLeft(path));
    std::filesystem::remove_all(dir);
    EXPECT_EQ(j.at("schema"), "repro-report");
    EXPECT_EQ(j.at("schema_version"), 3);
    EXPECT_EQ(j.at("command_line").at(0), "repro");
    const auto& sc = j.at("scenario");
    EXPECT_EQ(sc.at("name"), "kompute-196-increment-chain");
    EXPECT_EQ(sc.at("source"), "https://github.com/KomputeProject/kompute/issues/196");
    EXPECT_EQ(sc.at("expected"), "not reproduced");
    EXPECT_FALSE(sc.at("pattern").get<std::string>().empty());
    EXPECT_EQ(sc.at("file"), file);
    EXPECT_EQ(sc.at("file_bytes"), std::filesystem::file_size(file));
    EXPECT_EQ(sc.at("file_sha256"), sha256sum(file));
    EXPECT_EQ(sc.at("file_text"), readText(file));
    EXPECT_EQ(sc.at("steps"), 5);
    EXPECT_EQ(sc.at("control_steps"), nullptr);
    EXPECT_EQ(sc.at("split_only"), nlohmann::json::array());
    EXPECT_EQ(sc.at("chain_values"), nlohmann::json::array());
    EXPECT_EQ(sc.at("queues"), nlohmann::json::array());
    EXPECT_EQ(sc.at("poisoned"), nlohmann::json::array());
    EXPECT_EQ(sc.at("parameters"), nlohmann::json::object());
    // no --barrier and no control: the file's own stream
    EXPECT_EQ(j.at("experiment").at("changes"), nlohmann::json::array()) << j.at("experiment");
    EXPECT_EQ(j.at("experiment").at("controls"), nlohmann::json::array()) << j.at("experiment");
    EXPECT_FALSE(j.at("device").at("device_name").get<std::string>().empty()) << j.dump(2);
    EXPECT_TRUE(contains(r.out, "\nDevice: " + j.at("device").at("device_name").get<std::string>() + "\n")) << shown(r);
    EXPECT_EQ(j.at("reference"), "the CPU model and split");
    ASSERT_EQ(j.at("modes").size(), 3u) << j.dump(2);
    const std::vector<std::pair<std::string, int>> submits = {{"split", 3}, {"multipass", 1}, {"single", 1}};
    for (size_t i = 0; i < 3; ++i) {
        const auto& m = j.at("modes")[i];
        EXPECT_EQ(m.at("mode"), submits[i].first);
        EXPECT_EQ(m.at("role"), "under test");
        EXPECT_EQ(m.at("submits"), submits[i].second);
        EXPECT_EQ(m.at("classification"), "ok");
        EXPECT_EQ(m.at("reason"), i == 0 ? "bit-identical to the CPU model; the reference for the other modes"
                                         : "bit-identical to the CPU model and to split");
        EXPECT_EQ(m.at("runs"), 1);
        EXPECT_EQ(m.at("wrong_runs"), 0);
        EXPECT_EQ(m.at("cause"), nullptr);
        EXPECT_EQ(m.at("step_check"), nullptr);
    }
    EXPECT_EQ(j.at("validation").at("enabled"), false);
    EXPECT_EQ(j.at("validation").at("errors"), 0);
    EXPECT_EQ(j.at("verdict").at("exit_status"), 0);
    EXPECT_EQ(j.at("verdict").at("kind"), "not_reproduced");
    EXPECT_EQ(j.at("verdict").at("lines"),
              nlohmann::json::array({"--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU "
                                     "model and to split"}));
    for (const char* key : {"barrier", "memory"}) {
        const nlohmann::json allowed = schemaEnum(key);
        EXPECT_TRUE(std::find(allowed.begin(), allowed.end(), j.at("experiment").at(key)) != allowed.end())
            << key << ": " << j.at("experiment").at(key) << " is not one of " << allowed;
    }
}

// --format markdown (docs/report-schema.md, the end of "Migration to version 3"): RADV's issue
// template with the verdict, one row per mode, and in "Steps to reproduce" the scenario file
// itself with its hash and the command that reruns it, and no path of this machine. The file
// taken out of the Markdown, saved under the name the block gives and run with that command,
// is the same file (its SHA-256) and gives the same verdict: the report travels.
TEST(FileReport, MarkdownCarriesTheFileAndTheCommandThatRerunsIt) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult r = repro({"--scenario", file, "--mode", "single", "--format", "markdown"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_EQ(r.out.rfind("### repro scenario kompute-196-increment-chain: not reproduced (exit 0) on ", 0), 0u)
        << r.out;
    EXPECT_TRUE(contains(r.err, "--- NOT REPRODUCED")) << shown(r);  // the text report goes to stderr
    EXPECT_TRUE(contains(r.out, "\n| single | ok | - | - | - | 1 | ")) << r.out;
    EXPECT_TRUE(contains(r.out, "\n| split, reference (run after the modes under test) | ok | - | - | - | 3 | "))
        << r.out;
    EXPECT_TRUE(contains(
        r.out, "\n--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU model and to split\n"))
        << r.out;
    EXPECT_FALSE(contains(r.out, REPRO_SOURCE_DIR)) << r.out;
    const std::string command = " repro --scenario kompute-196-increment-chain.toml --mode single\n";
    EXPECT_TRUE(contains(r.out, command)) << r.out;
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
TEST(FileReport, MarkdownRerunsWithTheOptionsThatShapeTheRun) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--mode=single", "--reference", "cpu",
               "--submit-every", "1", "--poison", "--device", "0", "--format", "markdown", "--timings"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         " repro --scenario blade-356-conv-t-slice-chain.toml --mode=single --reference cpu "
                         "--submit-every 1 --poison\n"))
        << r.out;
    EXPECT_TRUE(contains(r.out,
                         "\n| checked buffers | small\\[3\\] (the chain's small\\[3\\]): within the CPU chain's "
                         "float32 tolerance |\n"))
        << r.out;
}

// The host phase timings (always in the document) and, with --timestamps, each mode's GPU
// time from the timestamp pairs around its submits; --timings prints the phases after the
// verdict.
TEST(FileReport, TimingsAndTimestampsGiveThePhasesAndEachModesGpuTime) {
    const BoundedResult r = repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--repeat", "2",
                                   "--timings", "--timestamps", "--format", "json"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.err, "\ntimings (host, s): instance+device ")) << shown(r);
    EXPECT_LT(r.err.find("\n--- NOT REPRODUCED"), r.err.find("\ntimings (host, s): ")) << shown(r);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const auto& t = j.at("timings");
    double parts = 0;
    // the reference: the file's CPU model
    for (const char* key : {"instance_and_device", "pipelines", "reference", "buffers_and_upload", "recording",
                            "gpu_wait", "readback", "verification"}) {
        EXPECT_GT(t.at(key).get<double>(), 0.0) << key << "\n" << j.dump(2);
        parts += t.at(key).get<double>();
    }
    EXPECT_LE(parts, t.at("total").get<double>()) << j.dump(2);  // the phases do not overlap
    EXPECT_GT(t.at("teardown").get<double>(), 0.0) << j.dump(2);
    ASSERT_EQ(j.at("modes").size(), 6u) << j.dump(2);  // each run of each mode
    for (const auto& m : j.at("modes")) {
        ASSERT_TRUE(m.at("gpu").at("mode_seconds").is_number()) << j.dump(2);  // lavapipe has timestamps
        EXPECT_GT(m.at("gpu").at("mode_seconds").get<double>(), 0.0) << j.dump(2);
        EXPECT_EQ(m.at("gpu").at("dispatch_seconds").size(), 3u) << j.dump(2);  // each work step
        // Within the run, not within the host's waits alone: a CPU driver starts the work at
        // the submit, before the host waits (this once failed in a local ctest -j2, 10 ms of
        // GPU time against 7 ms of waiting).
        EXPECT_LT(m.at("gpu").at("mode_seconds").get<double>(), t.at("total").get<double>()) << j.dump(2);
    }
    EXPECT_EQ(count(r.err, "\n    gpu: "), 6u) << shown(r);
    const BoundedResult plain =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--mode", "single", "--format", "json"});
    ASSERT_EQ(plain.status, 0) << shown(plain);
    EXPECT_EQ(nlohmann::json::parse(plain.out).at("modes")[0].at("gpu"), nullptr);
    EXPECT_FALSE(contains(plain.err, "timings (host, s):")) << shown(plain);
    EXPECT_FALSE(contains(plain.err, "    gpu: ")) << shown(plain);
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
            ASSERT_TRUE(m.at("gpu").at("mode_seconds").is_number()) << spec << "\n" << j.dump(2);
            EXPECT_GT(m.at("gpu").at("mode_seconds").get<double>(), 0.0) << spec << "\n" << j.dump(2);
            EXPECT_EQ(m.at("gpu").at("submit_seconds").size(), 4u) << spec << "\n" << j.dump(2);
        }
        EXPECT_EQ(count(r.err, " ms in 4 submits\n"), 3u) << shown(r);  // its batches: no work-step timestamps
    }
    const BoundedResult stream = repro({"--scenario", file, "--print-stream", "--timestamps", "--mode", "single"});
    ASSERT_EQ(stream.status, 0) << shown(stream);
    // single alone (split, its reference, is not recorded): a pair around each of its 4 batches,
    // and every query pool reset in the upload (fresh-state) submit
    EXPECT_FALSE(contains(stream.out, "## mode split")) << shown(stream);
    EXPECT_EQ(count(stream.out, "vkCmdWriteTimestamp"), 8u) << shown(stream);
    const size_t steps = stream.out.find("# mode single: the file's steps");
    ASSERT_NE(steps, std::string::npos) << shown(stream);
    EXPECT_GE(count(stream.out.substr(0, steps), "vkCmdResetQueryPool"), 1u) << shown(stream);
    EXPECT_EQ(count(stream.out.substr(steps), "vkCmdResetQueryPool"), 0u) << shown(stream);
    const BoundedResult r = repro({"--scenario", file, "--timestamps"});
    EXPECT_FALSE(contains(r.out, "in its 0 work steps")) << shown(r);
}

// --format json puts the document on stdout (the text report goes to stderr); with --repeat,
// each run of each mode (its role names the run) with its result, and the counts per mode in
// the text; the verdict's exit status.
TEST(FileReport, FormatJsonCountsWrongRunsPerModeUnderASimulatedBug) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--repeat", "2", "--format", "json"},
              simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, "\n  multipass: 2/2 runs wrong; results bit-identical across runs\n")) << shown(r);
    EXPECT_TRUE(contains(r.err, "\n--- BUG REPRODUCED: mode multipass is mismatch (2/2 runs wrong) (cause: "))
        << shown(r);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const auto& modes = j.at("modes");
    ASSERT_EQ(modes.size(), 6u) << j.dump(2);
    const std::vector<std::string> names = {"split", "multipass", "single"};
    for (size_t i = 0; i < 6; ++i) {
        const auto& m = modes[i];
        EXPECT_EQ(m.at("mode"), names[i / 2]) << j.dump(2);
        EXPECT_EQ(m.at("role"), "under test, run " + std::to_string(i % 2 + 1) + "/2") << j.dump(2);
        if (i < 2) {
            EXPECT_EQ(m.at("classification"), "ok") << j.dump(2);
        } else {
            EXPECT_EQ(m.at("classification"), "mismatch") << j.dump(2);
            EXPECT_EQ(m.at("reason").get<std::string>().rfind("buffer 'data' differs from the CPU model", 0), 0u)
                << j.dump(2);
        }
    }
    EXPECT_EQ(j.at("verdict").at("exit_status"), 2);
    EXPECT_EQ(j.at("verdict").at("kind"), "reproduced");
    EXPECT_EQ(j.at("verdict").at("lines").at(0).get<std::string>().rfind(
                  "--- BUG REPRODUCED: mode multipass is mismatch (2/2 runs wrong)", 0),
              0u);
    // Each run's entry counts that run alone: 1 run, 1 wrong when it was.
    for (const auto& m : modes) {
        EXPECT_EQ(m.at("runs"), 1) << m.dump(2);
        EXPECT_EQ(m.at("wrong_runs"), m.at("classification") == "ok" ? 0 : 1) << m.dump(2);
    }
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

TEST(FileReport, AnUnwritableJsonPathIsOneLineAndExitOne) {
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
              "repro: --json: cannot write the JSON report to '/dev/full' (No space left on device)\n");
}

// --validation (docs/scenarios.md): a scenario whose barriers are valid is validation-clean
// on the machine's driver; with --barrier none a producer read by a consumer (MoltenVK #2805's
// pattern) draws synchronization validation's read-after-write hazard, the VALIDATION verdict
// and exit 4 (docs/contract.md).
TEST(ScenarioValidation, ValidBarriersAreCleanAndNoneDrawsAHazard) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult clean = repro({"--scenario", file, "--validation"});
    ASSERT_EQ(clean.status, 0) << shown(clean);
    EXPECT_TRUE(contains(clean.out,
                         "\nvalidation: 0 messages (0 errors, 0 warnings), synchronization validation on\n--- NOT "
                         "REPRODUCED"))
        << shown(clean);
    const BoundedResult none = repro({"--scenario", kScenarios + "moltenvk-2805-fill-between-dispatches.toml",
                                      "--validation", "--barrier", "none", "--mode", "single", "--format", "json"});
    ASSERT_EQ(none.status, 4) << shown(none);
    EXPECT_TRUE(contains(none.err, "\nvalidation: error SYNC-HAZARD-READ-AFTER-WRITE")) << shown(none);
    EXPECT_TRUE(contains(none.err, "\n--- VALIDATION: ")) << shown(none);
    EXPECT_TRUE(contains(none.err,
                         " message(s) (see stderr); a barrier is labelled a control (insufficient on purpose), so its "
                         "hazards are deliberate and the results say nothing about the driver\n"))
        << shown(none);
    const nlohmann::json j = nlohmann::json::parse(none.out);
    EXPECT_EQ(j.at("validation").at("enabled"), true);
    EXPECT_GT(j.at("validation").at("errors").get<int>(), 0);
    ASSERT_FALSE(j.at("validation").at("messages").empty()) << j.dump(2);
    EXPECT_TRUE(contains(j.at("validation").at("messages")[0].get<std::string>(), "SYNC-HAZARD-READ-AFTER-WRITE"))
        << j.dump(2);
    EXPECT_EQ(j.at("experiment").at("barrier"), "none");
    EXPECT_EQ(j.at("verdict").at("exit_status"), 4);
    EXPECT_EQ(j.at("verdict").at("kind"), "validation");
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
    EXPECT_TRUE(contains(r.out, "\n  kernel: mix (user SPIR-V " + kUserKernels +
                                    "user_mix.spv, entry main, 2 binding(s), local size 64x1x1; spirv-val ("))
        << shown(r);
    EXPECT_EQ(resultOf(r.out, "split"),
              "ok: bit-identical to the CPU model; 'acc', 'out' (written by a user kernel): split's bytes are the "
              "reference; the reference for the other modes (5 submits, T s)")
        << shown(r);
    EXPECT_EQ(resultOf(r.out, "single"),
              "ok: bit-identical to the CPU model and to split; 'acc', 'out' (written by a user kernel): compared "
              "with split only (1 submit, T s)")
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n--- NOT REPRODUCED: every mode's checked buffers are bit-identical to the CPU model and "
                         "to split; 'acc', 'out' (written by a user kernel): compared with split only\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n  note: the CPU model cannot compute a user kernel: checked buffer(s) 'acc', 'out' are "
                         "compared with split only\n"))
        << shown(r);
}

// The module is valid Vulkan usage as repro binds it (16 bytes of push constants, set 0).
TEST(ScenarioUserKernel, TheExampleIsValidationClean) {
    const BoundedResult r =
        repro({"--scenario", kUserKernels + "user-kernel-mix.toml", "--mode", "single", "--validation"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "validation: 0 messages (0 errors, 0 warnings)")) << shown(r);
}

// tests/scenarios/user-kernel-image.toml: a user kernel binding an r32ui storage image and a
// storage buffer (tests/shaders/scenario_user_image.comp) runs right in every mode, clean
// under the validation layer (the set layout's STORAGE_IMAGE, the image's STORAGE usage and
// view, GENERAL at the dispatch), the image and its copy compared with split only.
TEST(ScenarioUserKernel, TheImageExampleIsNotReproducedAndValidationCleanInEveryMode) {
    const BoundedResult r = repro({"--scenario", kUserKernels + "user-kernel-image.toml", "--validation"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "validation: 0 messages (0 errors, 0 warnings)")) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n  kernel: texels (user SPIR-V " + kUserKernels +
                                    "user_image.spv, entry main, 2 binding(s), local size 8x8x1; spirv-val ("))
        << shown(r);
    for (const char* mode : {"multipass", "single"}) {
        EXPECT_EQ(resultOf(r.out, mode),
                  "ok: bit-identical to split; 'img', 'out' (written by a user kernel): compared with split only (1 "
                  "submit, T s)")
            << mode << shown(r);
    }
    EXPECT_TRUE(contains(r.out,
                         "\n  note: the CPU model cannot compute a user kernel: checked buffer(s) 'img', 'out' are "
                         "compared with split only\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n--- NOT REPRODUCED: every mode's checked buffers are bit-identical to split; "
                         "'img', 'out' (written by a user kernel): compared with split only\n"))
        << shown(r);
}

// The kernel writes the image through its descriptor: a driver forwarding only the first
// dispatch of each command buffer leaves texel (0, 0) at 0 + w + 1 in the one-submit modes,
// where split has (w + 1) + w + 2 (w = words[0] = 0xc6063).
TEST(ScenarioUserKernel, DroppedImageKernelDispatchesDifferFromSplit) {
    const BoundedResult r =
        repro({"--scenario", kUserKernels + "user-kernel-image.toml"}, simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    for (const char* mode : {"multipass", "single"}) {
        EXPECT_EQ(resultOf(r.out, mode),
                  "mismatch: image 'img' differs from split at byte 0 (texel (0, 0): 0x000c6064, split 0x0018c0c9), "
                  "last written by step 3 dispatch texels (user SPIR-V); 1024 of 1024 texels differ (1 submit, T s)")
            << mode << shown(r);
    }
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
    EXPECT_EQ(resultOf(r.out, "split"),
              "ok: completed; 'acc' (written by a user kernel): split's bytes are the reference; the reference for "
              "the other modes (3 submits, T s)")
        << shown(r);
    for (const char* mode : {"multipass", "single"}) {
        EXPECT_EQ(resultOf(r.out, mode),
                  "mismatch: buffer 'acc' differs from split at byte 0 (word 0: 0x00000001, split 0x00000012), last "
                  "written by step 5 dispatch mix (user SPIR-V); 64 of 64 words differ (1 submit, T s)")
            << mode << shown(r);
    }
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode multipass is mismatch (cause: ")) << shown(r);
}

// tests/shaders/scenario_user_image.comp's module and an 8x8 r32ui image img, and one dispatch of it.
const std::string kImageKernel = "[[kernel]]\nname = \"texels\"\nspirv = \"" + kUserKernels +
                                 "user_image.spv\"\n[[image]]\nname = \"img\"\nwidth = 8\nheight = 8\n";
std::string imageStep(const std::string& bindings) {
    return "[[step]]\ndispatch = \"texels\"\nbindings = " + bindings + "\ngroups = [1, 1]\n";
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
                                  "8:9: kernel 'mix': 'TMP/no-such-module.spv': cannot read: no such file"},
                      // a buffer where the module has a storage image, and an image where it has a buffer
                      BadUserFile{"bufferforimage", kImageKernel, imageStep("[\"src\", \"acc\"]"),
                                  "23:13: kernel texels binding 0 is a storage image in its module; 'src' is a "
                                  "buffer; expected an [[image]]"},
                      BadUserFile{"imageforbuffer", kImageKernel, imageStep("[\"img\", \"img\"]"),
                                  "23:20: kernel texels binding 1 is a storage buffer in its module; 'img' is an "
                                  "image; expected a [[buffer]]"}),
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
    EXPECT_TRUE(contains(timeless(r.out),
                         "\n  mode=split     'h' nz=64/64 (100.0%) (the checked buffers and 1 host read)\n    -> ok: "
                         "bit-identical to the CPU model (the checked buffers and 1 host read); the reference for the "
                         "other modes (4 submits, T s)\n"))
        << shown(r);
    for (const char* mode : {"multipass", "single"}) {
        EXPECT_EQ(resultOf(r.out, mode),
                  "ok: bit-identical to the CPU model and to split (the checked buffers and 1 host read) (3 submits, "
                  "T s)")
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
    EXPECT_EQ(resultOf(r.out, "split"),
              "ok: bit-identical to the CPU model (the checked buffers and 1 host read); the reference for the other "
              "modes (4 submits, T s)")
        << shown(r);
    EXPECT_EQ(resultOf(r.out, "multipass"),
              "mismatch: step 4 host-read h: buffer 'h' differs from the CPU model at byte 0 (word 0: 0x0000000a, the "
              "CPU model 0x0000006e), last written by step 3 dispatch increment; 64 of 64 words differ (3 submits, T "
              "s)")
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode multipass is mismatch (cause: ")) << shown(r);
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
    for (const char* mode : {"split", "multipass", "single"}) {
        EXPECT_TRUE(
            contains(r.out, std::string("\n  ") + mode + ": 0/2 runs wrong; results bit-identical across runs\n"))
            << mode << shown(r);
    }
    EXPECT_EQ(count(r.out, "\n    -> ok: bit-identical to the CPU model"), 6u) << shown(r);
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
                         "\n  CONTROL: a wait is labelled a control (insufficient on purpose): a wrong result "
                         "proves nothing about the driver\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n| labelled controls | a wait |\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "the scenario file labels a wait a control (insufficient on purpose)")) << r.out;
    EXPECT_FALSE(contains(r.out, "--barrier as written")) << r.out;
    EXPECT_FALSE(contains(r.out, "barrier as written (CONTROL")) << r.out;
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
    EXPECT_TRUE(contains(r.out, "\n  queue: " + line + "\n")) << shown(r);
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
    // The main queue's timeline counts on over the modes: U is what single's fresh-state
    // (upload) submit signals.
    std::smatch upload;
    ASSERT_TRUE(
        std::regex_search(calls, upload,
                          std::regex(R"(# the fresh-state submit \(repro's, not the file's\)\n(?:[^\n]*\n)*?)"
                                     R"(vkQueueSubmit\(cb0; wait 0; signal timeline\(main\) = (\d+); fence none\))")))
        << calls;
    const int u = std::stoi(upload[1]);
    const auto main = [u](int k) { return "timeline(main) = " + std::to_string(u + k); };
    EXPECT_TRUE(contains(calls, "# submit 1: batch 1 of 4 on queue main\nvkQueueSubmit(")) << calls;
    EXPECT_TRUE(contains(calls, "; wait 0; signal " + main(1) + ", produced = 1; fence none)")) << calls;
    EXPECT_TRUE(contains(calls, "# submit 2: batch 2 of 4 on queue copier\nvkQueueSubmit(")) << calls;
    EXPECT_TRUE(contains(calls, "; wait produced = 1 at TRANSFER, " + main(0) +
                                    " at ALL_COMMANDS; signal timeline(copier) = 1, copied; fence none)"))
        << calls;
    EXPECT_TRUE(contains(calls, "# submit 4: batch 4 of 4 on queue main\nvkQueueSubmit(")) << calls;
    EXPECT_TRUE(contains(calls, "; wait copied at COMPUTE_SHADER; signal " + main(3) + "; fence none)")) << calls;
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
    EXPECT_TRUE(contains(r.out, "\n  queue: copier (family \"other\"): family 1 (COMPUTE|TRANSFER), queue 0\n"))
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
    EXPECT_TRUE(contains(r.out, "\n  CONTROL: a buffer without its ownership transfers is labelled a control"))
        << shown(r);
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
                         "\n  steps: step 3 dispatch increment; step 4 signal t = 2; step 1 wait t = 2 on "
                         "queue second; step 2 copy a -> b on queue second\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n  note: the steps run in an order the semaphores allow")) << shown(r);
    EXPECT_TRUE(contains(r.out, "validation: 0 messages (0 errors, 0 warnings)")) << shown(r);
    EXPECT_EQ(resultOf(r.out, "single"), "ok: bit-identical to the CPU model and to split (2 submits, T s)")
        << shown(r);
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
// written buffers after its submit and compares them with the CPU model after that step; the
// report keeps it as split's step_check.
TEST(ScenarioCheckSteps, EveryStepOfACleanFileMatches) {
    const auto json = writeFile("-check-steps.json", "");
    const BoundedResult r = repro(
        {"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--check-steps", "--json", json.string()});
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(json), nullptr, false);
    std::filesystem::remove(json);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(
        contains(timeless(r.out),
                 "\n  mode=split     'data' nz=16384/16384 (100.0%)\n    -> ok: bit-identical to the CPU model; "
                 "the reference for the other modes (3 submits, T s)\n    check-steps: all 3 checked step(s) "
                 "matched the CPU model after their submit (3 readback submit(s))\n"))
        << shown(r);
    EXPECT_EQ(count(r.out, "check-steps:"), 1u) << shown(r);  // split's alone
    EXPECT_TRUE(contains(timeless(r.out),
                         "\n  mode=single    'data' nz=16384/16384 (100.0%)\n    -> ok: bit-identical to the CPU model "
                         "and to split (1 submit, T s)\n--- NOT REPRODUCED"))
        << shown(r);
    ASSERT_EQ(j.at("modes").size(), 3u) << j.dump(2);
    const auto& c = j.at("modes")[0].at("step_check");
    EXPECT_EQ(c.at("checked"), 3) << j.dump(2);
    EXPECT_EQ(c.at("wrong"), 0);
    EXPECT_EQ(c.at("first_wrong_step"), nullptr);
    EXPECT_EQ(c.at("first_wrong_label"), nullptr);
    EXPECT_EQ(c.at("not_checked"), nlohmann::json::array());
    EXPECT_EQ(c.at("readbacks"), 3);
    EXPECT_EQ(c.at("completed"), true);
    EXPECT_EQ(j.at("modes")[1].at("step_check"), nullptr) << j.dump(2);
    EXPECT_EQ(j.at("modes")[2].at("step_check"), nullptr) << j.dump(2);
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
    EXPECT_TRUE(contains(r.out, "\n    check-steps: first wrong step: " + first + "; 2 of 3 checked step(s) differ\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode split is mismatch (cause: ")) << shown(r);
    ASSERT_EQ(j.at("modes").size(), 1u) << j.dump(2);
    const auto& c = j.at("modes")[0].at("step_check");
    EXPECT_EQ(c.at("checked"), 3) << j.dump(2);
    EXPECT_EQ(c.at("wrong"), 2);
    EXPECT_EQ(c.at("first_wrong_step"), 3);
    EXPECT_EQ(c.at("first_wrong_label"), "step 3 dispatch increment");
    EXPECT_EQ("step 3 dispatch increment: " + c.at("first_wrong_detail").get<std::string>(), first);
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
    // A cause does not count so partial a check as split passing it (it said "split passes the
    // per-dispatch CPU check" with 1 of 5 steps checked and step 7 the stale one).
    const BoundedResult stale = repro(
        {"--scenario", kUserKernels + "user-kernel-mix.toml", "--check-steps", "--timestamps", "--mode", "multipass"},
        simulated("clock:ms-per-dispatch=30,us-per-wg=0;stale:dispatch=3"));
    EXPECT_EQ(stale.status, 2) << shown(stale);
    EXPECT_TRUE(contains(stale.out, "mode=multipass cause: ")) << shown(stale);
    EXPECT_FALSE(contains(stale.out, "split passes the per-dispatch CPU check")) << shown(stale);
}

// Only split's steps can be read back between them: with --mode single split runs after it as
// the reference, and its steps are checked there; with no split at all (--reference cpu) there
// is nothing to check, so one line, exit 1.
TEST(ScenarioCheckSteps, NeedsSplitAndChecksItWhenItRunsAfterTheModes) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult single = repro({"--scenario", file, "--check-steps", "--mode", "single"});
    EXPECT_EQ(single.status, 0) << shown(single);
    EXPECT_TRUE(
        contains(timeless(single.out),
                 "\n  reference (split, run after the modes under test):\n  mode=split     'data' nz=16384/16384 "
                 "(100.0%)\n    -> ok: bit-identical to the CPU model; the reference for the other modes (3 "
                 "submits, T s)\n    check-steps: all 3 checked step(s) matched the CPU model after their "
                 "submit (3 readback submit(s))\n"))
        << shown(single);
    // Device-local buffers need host copies for the step readbacks, split run after or not (the
    // blade file's split crashed in its first readback: SIGSEGV, exit 125).
    const BoundedResult blade =
        repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--check-steps", "--mode", "single"});
    EXPECT_EQ(blade.status, 0) << shown(blade);
    EXPECT_TRUE(
        contains(blade.out,
                 "\n    check-steps: all 6 checked step(s) matched the CPU model after their submit (6 readback "
                 "submit(s))\n"))
        << shown(blade);
    const BoundedResult none = repro({"--scenario", file, "--check-steps", "--mode", "single", "--reference", "cpu"});
    EXPECT_EQ(none.status, 1) << shown(none);
    EXPECT_EQ(none.out, "") << shown(none);
    EXPECT_EQ(count(none.err, "\n"), 1u) << shown(none);
    EXPECT_TRUE(contains(none.err, "repro: --check-steps: ")) << shown(none);
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

// Under --repeat every run's split is checked: a check-steps line under each run of split,
// and in the report each run's split has its step_check (the first wrong step of each).
TEST(ScenarioCheckSteps, UnderRepeatEveryRunsSplitIsChecked) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const auto json = writeFile("-check-steps-repeat.json", "");
    const BoundedResult clean = repro({"--scenario", file, "--check-steps", "--repeat", "3", "--json", json.string()});
    ASSERT_EQ(clean.status, 0) << shown(clean);
    for (const char* run : {"1/3", "2/3", "3/3"}) {
        EXPECT_TRUE(contains(timeless(clean.out),
                             std::string("    -> ok: bit-identical to the CPU model; the reference for the other modes "
                                         "(3 submits, T s) [run ") +
                                 run +
                                 "]\n    check-steps: all 3 checked step(s) matched the CPU model after their submit "
                                 "(3 readback submit(s))\n"))
            << run << shown(clean);
    }
    EXPECT_EQ(count(clean.out, "check-steps:"), 3u) << shown(clean);
    nlohmann::json modes = readJson(json).at("modes");
    ASSERT_EQ(modes.size(), 9u) << modes.dump(2);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(modes[i].at("role"), "under test, run " + std::to_string(i + 1) + "/3") << modes.dump(2);
        EXPECT_EQ(modes[i].at("step_check").at("checked"), 3) << modes.dump(2);
        EXPECT_EQ(modes[i].at("step_check").at("wrong"), 0) << modes.dump(2);
        EXPECT_TRUE(modes[i].at("step_check").at("first_wrong_step").is_null()) << modes.dump(2);
    }
    // split loses every dispatch: each run's first increment is the first wrong step
    const BoundedResult wrong = repro({"--scenario", file, "--check-steps", "--repeat", "2", "--json", json.string()},
                                      simulated("seed-bug:dispatches=0"));
    ASSERT_EQ(wrong.status, 2) << shown(wrong);
    EXPECT_EQ(count(wrong.out,
                    "\n    check-steps: first wrong step: step 1 dispatch increment: buffer 'data' differs "
                    "from the CPU model at byte 0 (word 0: 0x000003e8, the CPU model 0x000003e9), last "
                    "written by step 1 dispatch increment; 16384 of 16384 words differ; 3 of 3 checked "
                    "step(s) differ\n"),
              2u)
        << shown(wrong);
    EXPECT_TRUE(contains(wrong.out, "\n  split: 2/2 runs wrong; results bit-identical across runs\n")) << shown(wrong);
    modes = readJson(json).at("modes");
    std::filesystem::remove(json);
    ASSERT_EQ(modes.size(), 6u) << modes.dump(2);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(modes[i].at("mode"), "split") << modes.dump(2);
        EXPECT_EQ(modes[i].at("step_check").at("wrong"), 3) << modes.dump(2);
        EXPECT_EQ(modes[i].at("step_check").at("first_wrong_step"), 1) << modes.dump(2);
        EXPECT_EQ(modes[i].at("step_check").at("first_wrong_label"), "step 1 dispatch increment") << modes.dump(2);
    }
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
                         "\n  poison: 'b' start as 0x7fc0dead words in every mode and in the CPU model (--poison: "
                         "init undefined or written before read)\n"))
        << shown(r);
    EXPECT_EQ(resultOf(r.out, "split"),
              "ok: bit-identical to the CPU model; the reference for the other modes (2 submits, T s)")
        << shown(r);
    EXPECT_EQ(resultOf(r.out, "multipass"),
              "mismatch: buffer 'b' differs from the CPU model at byte 0 (word 0: 0x7fc0dead (still the poison value: "
              "never written, or written from words that still held it), the CPU model 0x00000008), last written by "
              "step 3 dispatch copy; 1024 of 1024 words "
              "differ (1 submit, T s)")
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode multipass is mismatch (cause: ")) << shown(r);
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
// wrong from n = 4, split never; each value's results, then the table and the smallest n.
TEST(ScenarioSweep, TheSmallestWrongValuePerMode) {
    const auto path = writeFile("-sweep.toml", kSweepFile);
    const auto json = writeFile("-sweep.json", "");
    const BoundedResult r = repro({"--scenario", path.string(), "--sweep", "n=1..5", "--json", json.string()},
                                  simulated("seed-bug:dispatches=3"));
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(json), nullptr, false);
    std::filesystem::remove(path);
    std::filesystem::remove(json);
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- sweep: classification by n ---\n"
                         "     n  split         multipass     single      \n"
                         "     1  ok            ok            ok          \n"
                         "     2  ok            ok            ok          \n"
                         "     3  ok            ok            ok          \n"
                         "     4  ok            mismatch      mismatch    \n"
                         "     5  ok            mismatch      mismatch    \n"
                         "--- smallest reproducing n: split none, multipass n=4, single n=4\n"
                         "--- sweep verdict: BUG REPRODUCED; smallest reproducing n: split none, multipass n=4, "
                         "single n=4\n"))
        << shown(r);
    // n = 4: word 0 is 0 + 3 where the model has 4.
    const std::string n4 = r.out.substr(r.out.find("--- results for n=4 ---"));
    EXPECT_EQ(resultOf(n4, "multipass"),
              "mismatch: buffer 'a' differs from the CPU model at byte 0 (word 0: 0x00000003, the CPU model "
              "0x00000004), last written by step 7 dispatch increment (repetition 4 of 4); 64 of 64 words differ (1 "
              "submit, T s)")
        << shown(r);
    EXPECT_EQ(resultOf(r.out.substr(r.out.find("--- results for n=3 ---")), "multipass"),
              "ok: bit-identical to the CPU model and to split (1 submit, T s)")
        << shown(r);
    // every mode at each value, the value in its role
    const auto& modes = j.at("modes");
    ASSERT_EQ(modes.size(), 15u) << j.dump(2);
    EXPECT_EQ(modes[10].at("mode"), "multipass") << j.dump(2);
    EXPECT_EQ(modes[10].at("role"), "under test, n=4") << j.dump(2);
    EXPECT_EQ(modes[10].at("classification"), "mismatch") << j.dump(2);
    EXPECT_EQ(modes[8].at("role"), "under test, n=3") << j.dump(2);
    EXPECT_EQ(modes[8].at("classification"), "ok") << j.dump(2);
    EXPECT_EQ(j.at("verdict").at("lines").at(0),
              "--- sweep verdict: BUG REPRODUCED; smallest reproducing n: split none, multipass n=4, single n=4");
    // The header and the report give the file's own value; each point's is in its title.
    EXPECT_TRUE(contains(r.out, "\n  parameters: n = 2 (--sweep n)\n")) << shown(r);
    EXPECT_EQ(j.at("scenario").at("parameters"), nlohmann::json({{"n", 2}}));
}

TEST(ScenarioSweep, AListIsCleanOnLavapipe) {
    const auto path = writeFile("-sweep-clean.toml", kSweepFile);
    const BoundedResult r = repro({"--scenario", path.string(), "--sweep", "n=1,7,3"});
    std::filesystem::remove(path);
    ASSERT_EQ(r.status, 0) << shown(r);
    // in the order given
    EXPECT_LT(r.out.find("--- results for n=1 ---"), r.out.find("--- results for n=7 ---")) << shown(r);
    EXPECT_LT(r.out.find("--- results for n=7 ---"), r.out.find("--- results for n=3 ---")) << shown(r);
    EXPECT_EQ(resultOf(r.out.substr(r.out.find("--- results for n=7 ---")), "split"),
              "ok: bit-identical to the CPU model; the reference for the other modes (7 submits, T s)")
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n     1  ok            ok            ok          \n"
                         "     7  ok            ok            ok          \n"
                         "     3  ok            ok            ok          \n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n--- sweep verdict: NOT REPRODUCED at any n; smallest reproducing n: split none, multipass "
                         "none, single none\n"))
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
    EXPECT_EQ(missing.err, "repro: --sweep: " + path.string() +
                               " has no parameter 'm' (its [parameters]: n) (with --sweep m = 1)\n");
    EXPECT_EQ(zero.status, 1) << shown(zero);
    EXPECT_EQ(zero.out, "") << shown(zero);
    EXPECT_EQ(zero.err, "repro: " + path.string() + ":13:10: 'repeat' must be 1..65536 (with --sweep n = 0)\n")
        << shown(zero);
    EXPECT_EQ(malformed.status, 1) << shown(malformed);
    EXPECT_EQ(malformed.out, "") << shown(malformed);
    EXPECT_EQ(malformed.err,
              "repro: --sweep: '1..2' on a file is NAME=A..B or NAME=V1,V2,... over one of its [parameters]\n");
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
    EXPECT_EQ(resultOf(r.out, "split"),
              "ok: bit-identical to the CPU model; the reference for the other modes (3 submits, T s)")
        << shown(r);
    EXPECT_EQ(resultOf(r.out, "multipass"),
              "mismatch: buffer 'out' differs from the CPU model at byte 0 (word 0: 0x00000001, the CPU model "
              "0x00000002), last written by step 6 dispatch copy on queue second; 64 of 64 words differ (2 submits, "
              "T s)")
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- BUG REPRODUCED: mode multipass is mismatch (cause: ")) << shown(r);
}

// ---- a driver that crashes, aborts or stalls: the supervised child (children/supervisor.hpp) ----

struct DriverFailure {
    const char* name;
    const char* spec;  // REPRO_SIMULATE
    int status;        // the documented exit status
    const char* kind;  // the report's verdict.kind
    const char* line;  // the verdict line's start
    const char* call;  // the call it names, with the stage it was in
    size_t finished;   // the modes that finished before it (ok in the document)
    const char* bug;   // a product bug that keeps `call` from showing (GTEST_SKIP'd), or ""
};

class ScenarioDriverFailure : public ::testing::TestWithParam<DriverFailure> {};

TEST_P(ScenarioDriverFailure, IsOneLineNamingTheCallWithItsStatusAndTheDocumentSaysSo) {
    // Unsupervised, a crash in the driver ended repro itself (SIGSEGV, status 139) with no
    // verdict and no document.
    const DriverFailure& p = GetParam();
    const auto json = writeFile("-driver-failure.json", "");
    const BoundedResult r = repro(
        {"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--json", json.string()}, simulated(p.spec));
    const nlohmann::json doc = readJson(json);
    std::filesystem::remove(json);
    ASSERT_EQ(r.status, p.status) << shown(r);
    EXPECT_TRUE(contains(r.out, std::string("\n") + p.line)) << shown(r);
    EXPECT_EQ(doc["verdict"]["exit_status"], p.status) << doc.dump(2);
    EXPECT_EQ(doc["verdict"]["kind"], p.kind) << doc.dump(2);
    EXPECT_EQ(doc["verdict"]["lines"][0].get<std::string>().rfind(p.line, 0), 0u) << doc.dump(2);
    EXPECT_EQ(doc["scenario"]["name"], "kompute-196-increment-chain") << doc.dump(2);
    // The modes that finished, as the child published them, then the one it ended in, its
    // reason the crash; before the modes, none.
    const nlohmann::json& modes = doc["modes"];
    if (p.status == 125) {
        EXPECT_TRUE(modes.empty()) << modes.dump(2);
    } else {
        ASSERT_EQ(modes.size(), p.finished + 1) << modes.dump(2);
        for (size_t i = 0; i < p.finished; ++i) EXPECT_EQ(modes[i]["classification"], "ok") << modes.dump(2);
        EXPECT_EQ(modes[p.finished]["classification"], "hang") << modes.dump(2);
        EXPECT_TRUE(contains(modes[p.finished]["reason"].get<std::string>(), p.call)) << modes.dump(2);
        EXPECT_TRUE(doc["device"]["device_name"].is_string()) << doc.dump(2);
    }
    if (*p.bug) GTEST_SKIP() << p.bug;
    EXPECT_TRUE(contains(r.out, p.call)) << shown(r);
}

INSTANTIATE_TEST_SUITE_P(
    Supervised, ScenarioDriverFailure,
    // Split's submits are 1 to 6 (the upload, one a dispatch, the readback, repro's canary),
    // multipass's own the 8th.
    testing::Values(DriverFailure{"CrashInASubmit", "crash:vkQueueSubmit:2", 3, "hang",
                                  "--- DRIVER CRASH: the driver crashed (SIGSEGV) in vkQueueSubmit during mode split, "
                                  "submit 1 of 3 (step 1 dispatch increment)",
                                  "in vkQueueSubmit during mode split", 0, ""},
                    DriverFailure{"AbortInASubmit", "abort:vkQueueSubmit:3", 3, "hang",
                                  "--- DRIVER CRASH: the driver aborted (SIGABRT) in vkQueueSubmit during mode split, "
                                  "submit 2 of 3 (step 3 dispatch increment)",
                                  "in vkQueueSubmit during mode split", 0, ""},
                    DriverFailure{"CrashInALaterMode", "crash:vkQueueSubmit:8", 3, "hang",
                                  "--- DRIVER CRASH: the driver crashed (SIGSEGV) in vkQueueSubmit during mode "
                                  "multipass, submit 1 of 1 (all 5 steps)",
                                  "in vkQueueSubmit during mode multipass", 1, ""},
                    // The stage is named as the built-in chain's run of the same crash names it
                    // (it said "during enumerating the physical devices" before).
                    DriverFailure{"CrashInSetUp", "crash:vkCreateDevice", 125, "cannot_test",
                                  "--- CANNOT TEST HERE: the driver crashed (SIGSEGV) in vkCreateDevice during ",
                                  "in vkCreateDevice during creating the device", 0, ""}),
    [](const testing::TestParamInfo<DriverFailure>& p) { return std::string(p.param.name); });

// A crash in a call only a file records is named like any other: vkCmdDispatchIndirect, the
// image copies, push constants and updates are watched too (before: "outside any Vulkan call").
TEST(ScenarioSimulated, ACrashInAnIndirectDispatchNamesTheCall) {
    const BoundedResult r = repro({"--scenario", kScenarios + "indirect-args-written-by-a-dispatch.toml"},
                                  simulated("crash:vkCmdDispatchIndirect"));
    ASSERT_EQ(r.status, 3) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n--- DRIVER CRASH: the driver crashed (SIGSEGV) in vkCmdDispatchIndirect during mode "
                         "split"))
        << shown(r);
}

// Under --repeat and --sweep the document keeps the runs and values that finished before a
// driver crash, then the mode it ended in (docs/scenarios.md "A driver that crashes or
// stalls"). The runs are in mode order (split's K runs first); kompute-196 submits 6 times a
// run of split (the upload, its 3 dispatches, the readback, repro's canary) and 4 a run of
// multipass or single; the sweep file below 12 times at n = 1.
struct EndedLater {
    const char* name;
    const char* spec;                // REPRO_SIMULATE
    std::vector<std::string> args;   // after --scenario FILE
    bool sweepFile;                  // the --sweep file (kSweepFile), else kompute-196
    std::vector<std::string> roles;  // the modes that finished, each "mode: role", all ok
    const char* endedIn;             // the mode the crash ended, "" for none
    const char* where;               // the run or value it ended in ("run 2/3", "n=2")
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
    EXPECT_TRUE(contains(r.out, "\n--- DRIVER CRASH: the driver crashed (SIGSEGV) in ")) << shown(r);
    const nlohmann::json& modes = doc["modes"];
    ASSERT_EQ(modes.size(), p.roles.size() + (*p.endedIn ? 1 : 0)) << doc.dump(2);
    for (size_t i = 0; i < p.roles.size(); ++i) {
        EXPECT_EQ(modes[i]["mode"].get<std::string>() + ": " + modes[i]["role"].get<std::string>(), p.roles[i])
            << modes.dump(2);
        EXPECT_EQ(modes[i]["classification"], "ok") << modes.dump(2);
    }
    if (!*p.endedIn) return;
    const nlohmann::json& ended = modes.back();
    EXPECT_EQ(ended["mode"], p.endedIn) << modes.dump(2);
    EXPECT_EQ(ended["classification"], "hang") << modes.dump(2);
    EXPECT_EQ(ended["reason"].get<std::string>().rfind(
                  "the driver crashed (SIGSEGV) in vkQueueSubmit during mode " + std::string(p.endedIn), 0),
              0u)
        << modes.dump(2);
    // The entry of the mode the crash ended names the run or the value it ended in, as the
    // child's own entries do ("under test, run 2/3", "under test, n=2"); it said "under test".
    EXPECT_TRUE(contains(ended["role"].get<std::string>() + " " + ended["reason"].get<std::string>(), p.where))
        << modes.dump(2);
}

INSTANTIATE_TEST_SUITE_P(Supervised, ScenarioEndedLater,
                         testing::Values(
                             // run 2's multipass submit (the 24th): split finished its 3 runs, multipass 1
                             EndedLater{"RepeatRun2",
                                        "crash:vkQueueSubmit:24",
                                        {"--repeat", "3"},
                                        false,
                                        {"split: under test, run 1/3", "split: under test, run 2/3",
                                         "split: under test, run 3/3", "multipass: under test, run 1/3"},
                                        "multipass",
                                        "run 2/3"},
                             // after every run, in vkDestroyDevice: nothing is marked
                             EndedLater{"RepeatTeardown",
                                        "crash:vkDestroyDevice",
                                        {"--repeat", "2"},
                                        false,
                                        {"split: under test, run 1/2", "split: under test, run 2/2",
                                         "multipass: under test, run 1/2", "multipass: under test, run 2/2",
                                         "single: under test, run 1/2", "single: under test, run 2/2"},
                                        "",
                                        ""},
                             // n = 2's multipass (the 19th): n = 1 done, then n = 2's split
                             EndedLater{"SweepValue2",
                                        "crash:vkQueueSubmit:19",
                                        {"--sweep", "n=1..5"},
                                        true,
                                        {"split: under test, n=1", "multipass: under test, n=1",
                                         "single: under test, n=1", "split: under test, n=2"},
                                        "multipass",
                                        "n=2"}),
                         [](const testing::TestParamInfo<EndedLater>& p) { return std::string(p.param.name); });

// ---- --merge-reports of scenario runs ----

// A file's run writes the run report (schema version 3, with its `scenario` section), which
// --merge-reports groups with the others: the scenario column names the file and its hash.
TEST(ScenarioMergeReports, GroupsTheDriversThatReproduceAndNamesTheScenario) {
    const auto wrong = writeFile("-merge-wrong.json", ""), right = writeFile("-merge-right.json", "");
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult a = repro({"--scenario", file, "--json", wrong.string()}, simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(a.status, 2) << shown(a);
    const BoundedResult b = repro({"--scenario", file, "--json", right.string()});
    ASSERT_EQ(b.status, 0) << shown(b);
    const BoundedResult merged = repro({"--merge-reports", wrong.string(), right.string()});
    const BoundedResult json = repro({"--merge-reports", wrong.string(), right.string(), "--format", "json"});
    const BoundedResult csv = repro({"--merge-reports", wrong.string(), right.string(), "--format", "csv"});
    std::filesystem::remove(wrong);
    std::filesystem::remove(right);
    ASSERT_EQ(merged.status, 0) << shown(merged);
    EXPECT_EQ(merged.err, "") << shown(merged);
    const std::string sha = sha256sum(file).substr(0, 8);
    // The text table cuts cells to fit 160 columns; CSV keeps "what ran" whole.
    EXPECT_EQ(count(merged.out, "  kompute-"), 2u) << shown(merged);
    EXPECT_EQ(count(csv.out, ",kompute-196-increment-chain@" + sha + ","), 2u) << shown(csv);
    EXPECT_TRUE(contains(merged.out, "\nreproduced (1 report): ")) << shown(merged);
    EXPECT_TRUE(contains(merged.out, "\nnot reproduced (1 report): ")) << shown(merged);
    // The wrong run's row first, its multipass named wrong.
    const size_t wrongRow = merged.out.find("rong.json\n");  // the file column keeps a path's end
    const size_t rightRow = merged.out.find("ight.json\n");
    EXPECT_LT(wrongRow, rightRow) << shown(merged);
    EXPECT_TRUE(contains(merged.out, "mismatch")) << shown(merged);
    ASSERT_EQ(json.status, 0) << shown(json);
    const nlohmann::json doc = nlohmann::json::parse(json.out);
    ASSERT_EQ(doc.at("reports").size(), 2u) << json.out;
    for (const auto& report : doc.at("reports")) {
        EXPECT_EQ(report.at("document"), "repro-report") << json.out;
        EXPECT_EQ(report.at("schema_version"), 3) << json.out;
        EXPECT_EQ(report.at("scenario"), "kompute-196-increment-chain@" + sha) << json.out;
    }
    EXPECT_EQ(doc.at("reports")[0].at("outcome"), "reproduced") << json.out;
    EXPECT_EQ(doc.at("reports")[0].at("modes")[1].at("mode"), "multipass") << json.out;
    EXPECT_EQ(doc.at("reports")[0].at("modes")[1].at("classification"), "mismatch") << json.out;
    EXPECT_EQ(doc.at("reports")[1].at("outcome"), "not reproduced") << json.out;
    EXPECT_TRUE(doc.at("problems").empty()) << json.out;
}

// ---- --matrix on a scenario ----

// `text` as a regular expression that matches it literally.
std::string literally(const std::string& text) {
    static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
    return std::regex_replace(text, special, R"(\$&)");
}

// Whether the --matrix table in `out` has row `n`: `variant`, then `result` and the child's
// exit status, then the validation and GPU columns ("-": neither asked for).
bool matrixRow(const std::string& out, int n, const std::string& variant, const std::string& result, int exit) {
    return std::regex_search(out, std::regex("\n +" + std::to_string(n) + "  " + literally(variant) + " +" +
                                             literally(result) + " +" + std::to_string(exit) + "  - +-"));
}

// The rows every file with a barrier step, a device-local buffer and more than two work steps
// gets, in the order run (a row per mode): the file as written, its barriers as blade's G or
// the full barrier, every buffer host-visible, a submit every 2 work steps (the host waiting or
// not), 4 times the work, then the controls (as --barrier execution-only and none).
const std::vector<std::string> kMatrixRows = {"as written",
                                              "barrier=blade",
                                              "barrier=full",
                                              "memory=host-visible",
                                              "submit-every=2 host-wait",
                                              "submit-every=2 no-host-wait",
                                              "work-scale=4",
                                              "barrier=execution-only (control)",
                                              "barrier=none (control)"};

// kompute-196's buffer is device-local already: no memory=device-local row, and a note says so.
// Each row is a child of its own (a mode, and split as its reference); the controls' results
// do not count.
TEST(ScenarioMatrix, EveryBarrierAndMemoryRowIsRightOnLavapipeAndTheControlsAreMarked) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult r = repro({"--scenario", file, "--matrix"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n  note: --matrix: row memory=device-local left out: --memory device-local: every buffer "
                         "of " +
                             file + " it could move is device-local already\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n  18 variants (14 valid, 4 controls), one factor at a time around the file's own "
                         "stream, for multipass and single; each child checks against the file's CPU model and "
                         "split."))
        << shown(r);
    int n = 0;
    for (const char* mode : {"multipass", "single"}) {
        for (const std::string& row : kMatrixRows) {
            const bool control = contains(row, "(control)");
            EXPECT_TRUE(matrixRow(r.out, ++n, std::string(mode) + " " + row, "ok", 0)) << n << " " << row << shown(r);
            if (control) {
                EXPECT_TRUE(std::regex_search(
                    r.out, std::regex("\n +" + std::to_string(n) + "  " + literally(std::string(mode) + " " + row) +
                                      "[^\n]* control: correct anyway\n")))
                    << row << shown(r);
            }
        }
    }
    EXPECT_FALSE(contains(r.out, "memory=device-local  ")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n--- matrix: 18 variants: 14 valid (14 ran, 0 reproduced the bug, 0 hung), 4 controls (0 "
                         "raced, 0 drew hazard messages)\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- matrix verdict: NOT REPRODUCED by any valid variant\n")) << shown(r);
}

// A driver that forwards only a command buffer's first dispatch: every valid row of the file is
// wrong (a submit every 2 work steps still puts two dispatches in the first), the controls
// are named as such, and the verdict is the valid rows'.
TEST(ScenarioMatrix, ADriverThatDropsADispatchIsWrongUnderTheValidBarriersAndTheControlsAreNamed) {
    const BoundedResult r = repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--matrix"},
                                  simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    int n = 0;
    for (const char* mode : {"multipass", "single"}) {
        for (const std::string& row : kMatrixRows) {
            EXPECT_TRUE(matrixRow(r.out, ++n, std::string(mode) + " " + row, "mismatch", 2)) << row << shown(r);
        }
    }
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +1  multipass as written +mismatch +2  - +-  buffer 'data' )"
                                                    R"(differs from the CPU model at byte 0 \(word 0: 0x000003e9, the )"
                                                    R"(CPU model 0x000003eb\), last written by step 5 dispatch )"
                                                    R"(increment;)")))
        << shown(r);
    EXPECT_EQ(count(r.out, "  control: raced (wrong output without a valid barrier)\n"), 4u) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n--- matrix: 18 variants: 14 valid (14 ran, 14 reproduced the bug, 0 hung), 4 controls (4 "
                         "raced, 0 drew hazard messages)\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n--- matrix verdict: BUG REPRODUCED by a valid variant: multipass as written, multipass "
                         "barrier=blade, multipass barrier=full, "))
        << shown(r);
    EXPECT_FALSE(contains(r.out.substr(r.out.find("--- matrix verdict")), "(control)")) << shown(r);
}

// A driver that crashes at its 11th vkQueueSubmit of a process: only the rows whose child makes
// that many submits (a submit every 2 work steps, then split as the reference, each mode
// ending in repro's canary) crash; each row
// is a child, so the crash ends that row alone, the rows after it run, and the Markdown
// document keeps every row.
TEST(ScenarioMatrix, ADriverCrashEndsThatRowAloneAndTheDocumentKeepsEveryRow) {
    const auto md = writeFile("-matrix-crash.md", "");
    const BoundedResult r = repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--matrix",
                                   "--format", "markdown", "-o", md.string()},
                                  simulated("crash:vkQueueSubmit:11"));
    const std::string doc = readText(md.string());
    std::filesystem::remove(md);
    ASSERT_EQ(r.status, 3) << shown(r);
    int n = 0;
    for (const char* mode : {"multipass", "single"}) {
        for (const std::string& row : kMatrixRows) {
            const bool crashes = contains(row, "submit-every=2");
            const std::string variant = std::string(mode) + " " + row;
            EXPECT_TRUE(matrixRow(r.out, ++n, variant, crashes ? "ok, hang" : "ok", crashes ? 3 : 0))
                << variant << shown(r);
            const std::string line = "\n| " + std::to_string(n) + " | " + variant + " | " +
                                     (crashes ? "ok, hang | 3 | - | - | the driver crashed (SIGSEGV) in vkQueueSubmit "
                                                "during mode split: repro's canary submit |"
                                              : "ok | 0 | - | - | ");
            EXPECT_TRUE(contains(doc, line)) << line << "\n" << doc;
        }
    }
    EXPECT_TRUE(contains(r.out,
                         "\n--- matrix verdict: GPU HANG in a valid variant: multipass submit-every=2 host-wait (ok, "
                         "hang), multipass submit-every=2 no-host-wait (ok, hang), single submit-every=2 host-wait "
                         "(ok, hang), single submit-every=2 no-host-wait (ok, hang)\n"))
        << shown(r);
}

// --submit-every K on a scenario: multipass and single end a submit after every K work steps,
// the host waiting; a driver that forwards only a command buffer's first dispatch then loses
// fewer of kompute-196's three increments (one, in the first submit of two), and a file with
// queues is refused.
TEST(ScenarioSubmitEvery, CutsTheOneSubmitModesAfterEveryKWorkSteps) {
    const std::string file = kScenarios + "kompute-196-increment-chain.toml";
    const BoundedResult r = repro({"--scenario", file, "--submit-every", "2"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n  experiment: --submit-every 2 --host-wait\n")) << shown(r);
    EXPECT_EQ(resultOf(r.out, "multipass"), "ok: bit-identical to the CPU model and to split (2 submits, T s)")
        << shown(r);
    EXPECT_EQ(resultOf(r.out, "single"), "ok: bit-identical to the CPU model and to split (2 submits, T s)")
        << shown(r);
    const BoundedResult stream =
        repro({"--scenario", file, "--submit-every", "1", "--mode", "single", "--print-stream"});
    ASSERT_EQ(stream.status, 0) << shown(stream);
    // single: the upload, three submits of one increment each, the readback, repro's canary
    // (then split, the reference, is not recorded: --print-stream records the modes asked for)
    EXPECT_EQ(count(stream.out, "vkQueueSubmit("), 6u) << shown(stream);
    const BoundedResult dropped =
        repro({"--scenario", file, "--submit-every", "2"}, simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(dropped.status, 2) << shown(dropped);
    // word 0: two of the three increments (the first submit's second is lost)
    EXPECT_EQ(resultOf(dropped.out, "multipass"),
              "mismatch: buffer 'data' differs from the CPU model at byte 0 (word 0: 0x000003ea, the CPU model "
              "0x000003eb), last written by step 5 dispatch increment; 16384 of 16384 words differ (2 submits, T s)")
        << shown(dropped);
    EXPECT_TRUE(contains(dropped.out, "\n--- BUG REPRODUCED: mode multipass is mismatch (cause: ")) << shown(dropped);
    const BoundedResult queues =
        repro({"--scenario", kScenarios + "compute-copy-on-a-second-queue.toml", "--submit-every", "2"});
    EXPECT_EQ(queues.status, 1) << shown(queues);
    EXPECT_EQ(queues.err, "repro: --submit-every: " + kScenarios +
                              "compute-copy-on-a-second-queue.toml has queues or semaphores, whose batches set its "
                              "submits; expected a file on one queue\n")
        << shown(queues);
}

// `repro --scenario FILE ARGS...` for each (ARGS, LINE): exit 1, nothing on stdout, and LINE on
// stderr.
void expectRefused(const std::string& file,
                   const std::vector<std::pair<std::vector<std::string>, std::string>>& cases) {
    for (const auto& [extra, line] : cases) {
        std::vector<std::string> args = {"--scenario", file};
        args.insert(args.end(), extra.begin(), extra.end());
        const BoundedResult r = repro(args);
        EXPECT_EQ(r.status, 1) << shown(r);
        EXPECT_EQ(r.out, "") << shown(r);
        EXPECT_EQ(r.err, "repro: " + line + "\n") << shown(r);
    }
}

// What the matrix's rows choose (--mode, --barrier, the submits, the memory) is the built-in
// chain's rule: one line each; so are --triage and --print-stream beside it.
TEST(ScenarioMatrix, ChoosesItsRowsOwnModeBarrierSubmitsAndMemory) {
    const std::string chooses =
        "--matrix: chooses --mode, --barrier, --submit-every, --split-mib, --split-ms, "
        "--host-wait, --no-host-wait, --memory, --dispatch-repeat and --profile itself; leave "
        "out ";
    expectRefused(kScenarios + "kompute-196-increment-chain.toml",
                  {{{"--matrix", "--mode", "single"}, chooses + "--mode"},
                   {{"--matrix", "--barrier", "full"}, chooses + "--barrier"},
                   {{"--matrix", "--submit-every", "2"}, chooses + "--submit-every"},
                   {{"--matrix", "--memory", "host-visible"}, chooses + "--memory"},
                   {{"--matrix", "--triage"}, "--matrix and --triage: choose one"},
                   {{"--matrix", "--print-stream"}, "--print-stream: not with --matrix"},
                   {{"--matrix", "--json", "/dev/null"},
                    "--matrix: prints a table (text, or --format markdown); --format json and --json are for single "
                    "runs, --triage and --watchdog-probe"}});
    const auto sweep = writeFile("-matrix-sweep.toml", kSweepFile);
    const BoundedResult r = repro({"--scenario", sweep.string(), "--matrix", "--sweep", "n=1,2"});
    std::filesystem::remove(sweep);
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.out, "") << shown(r);
    EXPECT_EQ(r.err, "repro: --matrix: not with --sweep\n") << shown(r);
}

TEST(ScenarioMatrix, AFileWithoutABarrierStepHasNoBarrierRowsAndSaysWhy) {
    const BoundedResult r = repro({"--scenario", kScenarios + "cubecl-1336-private-array.toml", "--matrix"});
    ASSERT_EQ(r.status, 0) << shown(r);
    for (const char* row :
         {"barrier=blade", "barrier=full", "barrier=execution-only (control)", "barrier=none (control)"})
        EXPECT_TRUE(contains(r.out, std::string("\n  note: --matrix: row ") + row +
                                        " left out: the file has no barrier step to replace\n"))
            << row << shown(r);
    const std::string table = r.out.substr(r.out.find("--- matrix ---"));
    EXPECT_FALSE(contains(table, "barrier=")) << shown(r);
    EXPECT_TRUE(matrixRow(r.out, 1, "multipass as written", "ok", 0)) << shown(r);
    EXPECT_TRUE(matrixRow(r.out, 2, "multipass memory=host-visible", "ok", 0)) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- matrix verdict: NOT REPRODUCED by any valid variant\n")) << shown(r);
}

// ---- --triage on a scenario ----

// --triage on a scenario: on a correct driver the baseline alone runs and nothing is triaged;
// the triage document (schema repro-triage) carries the conclusion.
TEST(ScenarioTriage, OnACorrectDriverOnlyTheBaselineRuns) {
    const auto json = writeFile("-triage-ok.json", "");
    const BoundedResult r =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--triage", "--json", json.string()});
    const nlohmann::json doc = readJson(json);
    std::filesystem::remove(json);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n  baseline: split ok, multipass ok, single ok (exit 0) in ")) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- conclusion: not reproduced; nothing to triage\n")) << shown(r);
    EXPECT_EQ(doc["schema"], "repro-triage") << doc.dump(2);
    EXPECT_EQ(doc["baseline"]["result"], "correct") << doc.dump(2);
    EXPECT_EQ(doc["conclusion"]["kind"], "not_reproduced") << doc.dump(2);
    EXPECT_EQ(doc["exit_status"], 0) << doc.dump(2);
    EXPECT_TRUE(doc["experiments"].empty()) << doc.dump(2);
    EXPECT_FALSE(contains(r.out, "--- triage ---")) << shown(r);
    EXPECT_FALSE(contains(r.out, "repro defect")) << shown(r);
}

// A driver that forwards only the first dispatch of a command buffer: no barrier or submit
// variant makes multipass right and split's steps all match the CPU model, so the triage
// rules out the shader compiler and does not call it a synchronization bug (undetermined);
// the exit status stays the baseline's (2).
TEST(ScenarioTriage, ADroppedDispatchStaysWrongUnderEveryVariantAndIsNotCalledSynchronization) {
    const auto json = writeFile("-triage-drop.json", "");
    const BoundedResult r =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--triage", "--json", json.string()},
              simulated("seed-bug:dispatches=1"));
    const nlohmann::json doc = readJson(json);
    std::filesystem::remove(json);
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n  baseline: split ok, multipass mismatch, single mismatch (exit 2) in "))
        << shown(r);
    for (const char* row : {R"(\n  H1  barrier=blade +multipass mismatch \(exit 2\) +no evidence  stays wrong)",
                            R"(\n  H1  barrier=full +multipass mismatch \(exit 2\) +no evidence  stays wrong)",
                            R"(\n  H1  memory=device-local +no effect +no evidence  )",
                            // two increments in the first of two submits: the second still dropped
                            R"(\n  H2  submit-every=2 host-wait +multipass mismatch \(exit 2\) +rules out  )",
                            R"(\n  H5  split check-steps +every step as the CPU model has it +rules out  )",
                            R"(\n  H5 the shader compiler: rules out )",
                            R"(\n--- conclusion: undetermined: no experiment makes it correct)"})
        EXPECT_TRUE(std::regex_search(r.out, std::regex(row))) << row << shown(r);
    EXPECT_FALSE(contains(r.out, "conclusion: a synchronization bug")) << shown(r);
    EXPECT_EQ(doc["schema"], "repro-triage") << doc.dump(2);
    EXPECT_EQ(doc["baseline"]["failing_mode"], "multipass") << doc.dump(2);
    EXPECT_EQ(doc["baseline"]["result"], "wrong") << doc.dump(2);
    EXPECT_EQ(doc["conclusion"]["kind"], "undetermined") << doc.dump(2);
    EXPECT_EQ(doc["experiments"][1]["experiment"], "barrier=full") << doc.dump(2);
    EXPECT_EQ(doc["experiments"][1]["result"], "wrong") << doc.dump(2);
    EXPECT_EQ(doc["exit_status"], 2) << doc.dump(2);
}

// blade #356's file: split's step check holds each conv-t and slice to the CPU chain's
// tolerance, so a right split rules the shader compiler out.
TEST(ScenarioTriage, TheBladeFilesStepCheckComparesItsChainWithTheCpuModel) {
    const BoundedResult r = repro({"--scenario", kScenarios + "blade-356-conv-t-slice-chain.toml", "--triage"},
                                  simulated("seed-bug:dispatches=1"));
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(std::regex_search(
        r.out, std::regex(R"(\n  H5  split check-steps +every step as the CPU model has it +rules out +every )"
                          R"(dispatch of split passes the step-by-step check against the file's CPU model\n)")))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "\n  H5 the shader compiler: rules out")) << shown(r);
}

// What the triage's experiments choose is the built-in chain's rule: one line each.
TEST(ScenarioTriage, ChoosesItsOwnModesBarriersAndChecks) {
    const std::string chooses =
        "--triage: chooses --mode, --barrier, --submit-every, --split-mib, --split-ms, "
        "--host-wait, --no-host-wait, --memory, --dispatch-repeat and --profile itself; leave "
        "out ";
    expectRefused(kScenarios + "kompute-196-increment-chain.toml",
                  {{{"--triage", "--mode", "single"}, chooses + "--mode"},
                   {{"--triage", "--barrier", "full"}, chooses + "--barrier"},
                   {{"--triage", "--submit-every", "2"}, chooses + "--submit-every"},
                   {{"--triage", "--print-stream"}, "--print-stream: not with --triage"}});
    const auto sweep = writeFile("-triage-sweep.toml", kSweepFile);
    const BoundedResult r = repro({"--scenario", sweep.string(), "--triage", "--sweep", "n=1,2"});
    std::filesystem::remove(sweep);
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.out, "") << shown(r);
    EXPECT_EQ(r.err, "repro: --triage: not with --sweep\n") << shown(r);
}

}  // namespace

namespace {

// The shipped image scenarios (docs/scenarios.md "Images").
const std::vector<std::string> kImageFiles = {
    "offload-513-storage-image-then-copy", "executorch-17299-noop-dispatch-transition",
    "wgpu-8473-texture-to-buffer-copy", "layout-transition-orders-compute-and-copy"};

// On the machine's driver each image file is not reproduced, and the validation layer (with
// synchronization validation) has nothing to say about repro's image calls.
TEST(ScenarioImages, ShippedFilesAreNotReproducedAndValidationClean) {
    for (const std::string& f : kImageFiles) {
        const auto r = repro({"--scenario", kScenarios + f + ".toml", "--validation"});
        EXPECT_EQ(r.status, 0) << f << "\n" << shown(r);
        EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << f << "\n" << shown(r);
        EXPECT_TRUE(contains(r.out + r.err, "validation: 0 messages")) << f << "\n" << shown(r);
    }
}

// lost-transitions (tests/simdriver): a layout transition after other work in a command buffer
// loses the image's contents; each image file is then caught in multipass and single, and
// split, whose transitions come before its step in each submit, stays right.
TEST(ScenarioImages, LostTransitionsAreCaughtInTheOneSubmitModes) {
    for (const std::string& f : kImageFiles) {
        const auto r = repro({"--scenario", kScenarios + f + ".toml", "-q"}, simulated("lost-transitions"));
        EXPECT_EQ(r.status, 2) << f << "\n" << shown(r);
        EXPECT_EQ(resultOf(r.out, "split").rfind("ok: bit-identical to the CPU model", 0), 0u) << f << "\n" << shown(r);
        // the first checked buffer or image (in name order) that differs: an image names its texel
        const std::regex wrong(
            R"(mismatch: (image '\S+' differs [^(]+\(texel \(\d+, \d+\)|buffer '\S+' differs [^(]+\(word \d+):.*)");
        EXPECT_TRUE(std::regex_match(resultOf(r.out, "multipass"), wrong)) << f << "\n" << shown(r);
        EXPECT_TRUE(std::regex_match(resultOf(r.out, "single"), wrong)) << f << "\n" << shown(r);
        EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED: mode multipass is mismatch")) << f << "\n" << shown(r);
    }
}

// The labelled control of offload-test-suite #513: the barrier's wrong source stage runs, and
// lost-transitions' wrong result is the control's (CONTROL CAUGHT), never a driver bug.
TEST(ScenarioImages, TheWrongStageControlIsNeverABug) {
    const std::string file = REPRO_SOURCE_DIR "/tests/scenarios/offload-513-image-wrong-stage.toml";
    const auto plain = repro({"--scenario", file, "-q"});
    EXPECT_EQ(plain.status, 0) << shown(plain);
    const auto r = repro({"--scenario", file, "-q"}, simulated("lost-transitions"));
    EXPECT_FALSE(contains(r.out, "BUG REPRODUCED")) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- CONTROL CAUGHT: mode multipass is mismatch (cause: the control)")) << shown(r);
}

const std::string kImageHeader = R"(name = "bad-image"
source = "https://example.org"
pattern = "a bad image file"
expected = "not reproduced"
check = []

[[image]]
name = "img"
width = 8
height = 4
init = "iota"
check = true

[[buffer]]
name = "buf"
bytes = 128
)";

// A bad image file: one FILE:LINE:COLUMN line on stderr, exit 1, nothing run.
void expectBadImageFile(const std::string& steps, const std::string& line) {
    const auto path = writeFile("image.toml", kImageHeader + steps);
    const auto r = repro({"--scenario", path.string()});
    std::filesystem::remove(path);
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.out, "") << shown(r);
    EXPECT_EQ(r.err, "repro: " + path.string() + ":" + line + "\n") << shown(r);
}

TEST(ScenarioImages, AStepInTheWrongLayoutIsABadFile) {
    expectBadImageFile(
        "\n[[step]]\nbarrier = \"image\"\nimage = \"img\"\nsrc_stage = [\"compute\"]\n"
        "dst_stage = [\"transfer\"]\nold_layout = \"general\"\nnew_layout = \"transfer-src\"\n"
        "\n[[step]]\ndispatch = \"image-increment\"\nbindings = [\"img\"]\n",
        "26:1: step 2 dispatch image-increment uses image 'img' in layout general, but it is in "
        "transfer-src here; expected an image barrier with new_layout = \"general\" before it");
}

// tests/scenarios/image-then-copy-on-a-second-queue.toml: an image written on the main queue,
// transitioned and copied out on a second queue after a semaphore.
const std::string kImageQueues = REPRO_SOURCE_DIR "/tests/scenarios/image-then-copy-on-a-second-queue.toml";

// The file with `sharing = "concurrent"` on its image, in a file of its own (removed by the caller).
std::filesystem::path concurrentImageFile() {
    std::string text = readText(kImageQueues);
    text.replace(text.find("check = true\n"), 13, "check = true\nsharing = \"concurrent\"\n");
    return writeFile("-image-concurrent.toml", text);
}

// The file without its copy, checking `img` itself: the last work step writes the image and
// the copier's transition to transfer-src follows it (in a file of its own, removed by the caller).
std::filesystem::path transitionLastFile() {
    std::string text = readText(kImageQueues);
    text.erase(text.find("\n[[step]]\ncopy_image_to_buffer"));
    text.replace(text.find("check = [\"out\"]"), 15, "check = [\"img\"]");
    return writeFile("-image-transition-last.toml", text);
}

// Exclusive and concurrent, on lavapipe (one family: the copier falls back to the main queue)
// and with the copier in a family of its own (second-family: the exclusive image's ownership
// transfers recorded), every mode is bit-identical to the CPU model and the validation layer,
// synchronization validation included, has nothing to say. So with the transition last: split's
// --check-steps reads the image back in general, the layout it is in then (the transition is a
// submit of its own, after the readback); it once took the image's final layout (transfer-src).
TEST(ScenarioImages, AnImageOnASecondQueueIsNotReproducedAndValidationClean) {
    const auto concurrent = concurrentImageFile();
    const auto transitionLast = transitionLastFile();
    for (const std::string& file : {kImageQueues, concurrent.string(), transitionLast.string()}) {
        for (const std::string spec : {"", "second-family"}) {
            // --check-steps reads the image back after the increment, before its release to the
            // copier, which must still find it in general
            const auto r =
                repro({"--scenario", file, "--validation", "--check-steps"}, spec.empty() ? kPlain : simulated(spec));
            const std::string what = file + " " + spec + "\n" + shown(r);
            EXPECT_EQ(r.status, 0) << what;
            EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << what;
            EXPECT_TRUE(
                contains(r.out, "validation: 0 messages (0 errors, 0 warnings), synchronization validation on\n"))
                << what;
            for (const std::string mode : {"split", "multipass", "single"})
                EXPECT_EQ(resultOf(r.out, mode).rfind("ok: bit-identical to the CPU model", 0), 0u) << mode << what;
        }
    }
    std::filesystem::remove(concurrent);
    std::filesystem::remove(transitionLast);
}

// With the copier in family 1 (second-family) each mode records the exclusive image's ownership
// transfers as image barriers that keep its layout: to the copier after the increment, in
// general, before the copier's own transition; back to the main queue for the readback in
// transfer-src. Split too (the transition in a submit of its own). Concurrent: none, and the
// image is made VK_SHARING_MODE_CONCURRENT over both families.
TEST(ScenarioImages, AnImagesOwnershipTransfersKeepItsLayout) {
    const BoundedResult r = repro({"--scenario", kImageQueues, "--print-stream"}, simulated("second-family"));
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  ownership: 1 exclusive buffer(s) and 1 exclusive image(s) change queue family (out, img): "
                         "4 queue family ownership transfer(s)"))
        << shown(r);
    const size_t single = r.out.find("## mode single");
    ASSERT_NE(single, std::string::npos) << shown(r);
    const std::vector<std::string> inOrder = {
        "# release image 'img': queue main (family 0) -> queue copier (family 1)\n"
        "  vkCmdPipelineBarrier(COMPUTE_SHADER|TRANSFER -> BOTTOM_OF_PIPE, image img SHADER_WRITE|TRANSFER_WRITE -> "
        "0, GENERAL -> GENERAL, queue family 0 -> 1)",
        "# acquire image 'img': queue main (family 0) -> queue copier (family 1)\n"
        "  vkCmdPipelineBarrier(TRANSFER -> TRANSFER, image img 0 -> 0, GENERAL -> GENERAL, queue family 0 -> 1)",
        "  vkCmdPipelineBarrier2(image img TRANSFER 0 -> TRANSFER TRANSFER_READ, GENERAL -> TRANSFER_SRC_OPTIMAL)",
        "  vkCmdCopyImageToBuffer(",
        "# release image 'img': queue copier (family 1) -> queue main (family 0)\n"
        "  vkCmdPipelineBarrier(TRANSFER -> BOTTOM_OF_PIPE, image img 0 -> 0, TRANSFER_SRC_OPTIMAL -> "
        "TRANSFER_SRC_OPTIMAL, queue family 1 -> 0)",
        "# acquire image 'img': queue copier (family 1) -> queue main (family 0)\n"
        "  vkCmdPipelineBarrier(ALL_COMMANDS -> ALL_COMMANDS, image img 0 -> MEMORY_READ|MEMORY_WRITE, "
        "TRANSFER_SRC_OPTIMAL -> TRANSFER_SRC_OPTIMAL, queue family 1 -> 0)"};
    size_t at = single;
    for (const std::string& line : inOrder) {
        const size_t found = r.out.find(line, at);
        ASSERT_NE(found, std::string::npos) << "not found after byte " << at << ": " << line << "\n" << shown(r);
        at = found + line.size();
    }
    EXPECT_EQ(count(r.out, "# release image 'img'"), 6u) << shown(r);  // out and back in each mode
    // the simulator traces the concurrent image it makes exclusive for lavapipe: none here
    const std::string madeConcurrent = "a VK_SHARING_MODE_CONCURRENT image over 2 queue families";
    std::vector<std::string> traced = simulated("second-family");
    traced.back() = "REPRO_SIMULATE_TRACE=stderr";
    const BoundedResult e = repro({"--scenario", kImageQueues, "-q"}, traced);
    EXPECT_EQ(e.status, 0) << shown(e);
    EXPECT_FALSE(contains(e.err, madeConcurrent)) << shown(e);
    const auto concurrent = concurrentImageFile();
    const BoundedResult c = repro({"--scenario", concurrent.string(), "--print-stream"}, traced);
    std::filesystem::remove(concurrent);
    ASSERT_EQ(c.status, 0) << shown(c);
    EXPECT_TRUE(contains(c.err, madeConcurrent)) << shown(c);
    EXPECT_FALSE(contains(c.out, "image 'img'")) << shown(c);
    EXPECT_TRUE(contains(c.out, "# release buffer 'out'")) << shown(c);
}

// --print-stream names a bound storage image as its other lines do, by the file's name, beside
// the buffers bound with it (once every image was "buffer#1": its descriptor read as a buffer's).
TEST(ScenarioImages, ThePrintedStreamNamesABoundImageByItsName) {
    for (const auto& [file, set] :
         {std::pair{kScenarios + "offload-513-storage-image-then-copy.toml", "set 0: img)"},
          std::pair{kScenarios + "executorch-17299-noop-dispatch-transition.toml", "set 0: produced, consumed)"},
          std::pair{kUserKernels + "user-kernel-image.toml", "set 0: img, words)"}}) {
        const BoundedResult r = repro({"--scenario", file, "--print-stream", "--mode", "single"});
        ASSERT_EQ(r.status, 0) << file << shown(r);
        EXPECT_TRUE(contains(r.out, std::string("  vkCmdBindDescriptorSets(COMPUTE, ") + set)) << file << shown(r);
        EXPECT_FALSE(contains(r.out, "buffer#")) << file << shown(r);
    }
}

// The image read on the copier with no semaphore after the increment that wrote it: one line
// and exit 1, as for a buffer (the first pair found is the increment's read and the copy's,
// which the exclusive image's ownership transfers need ordered).
TEST(ScenarioImages, AnImageOnTwoQueuesWithNoSemaphoreIsABadFile) {
    std::string text = readText(kImageQueues);
    const size_t signal = text.find("[[step]]\nsignal");
    const size_t copy = text.find("[[step]]\ncopy_image_to_buffer");
    ASSERT_NE(signal, std::string::npos);
    ASSERT_NE(copy, std::string::npos);
    text.erase(signal, copy - signal);  // no signal, wait or barrier: the copy reads img in general
    const auto path = writeFile("-image-race.toml", text);
    const auto r = repro({"--scenario", path.string()});
    std::filesystem::remove(path);
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.out, "") << shown(r);
    EXPECT_EQ(r.err, "repro: " + path.string() +
                         ":48:1: step 2 copy_image_to_buffer img -> out on queue copier reads buffer 'img', which "
                         "step 1 dispatch image-increment reads, and no semaphore orders them (queues copier and "
                         "main); buffer 'img' is exclusive and used on a queue of family \"other\", so its queue "
                         "family ownership transfers need every use on one queue ordered with every use on another; "
                         "expected a signal after one and a wait before the other, or sharing = \"concurrent\" on "
                         "buffer 'img'\n")
        << shown(r);
}

TEST(ScenarioImages, ACopyPastTheExtentIsABadFile) {
    expectBadImageFile("\n[[step]]\ncopy_image_to_buffer = \"buf\"\nfrom = \"img\"\noffset = [0, 2]\nextent = [8, 3]\n",
                       "22:10: texels [0, 8) x [2, 5) are not inside image 'img' (8x4); expected a non-empty region "
                       "in its extent");
}

}  // namespace

namespace {

// A device without storage-image support for the file's format (simdriver no-storage-images):
// binding that image to a dispatch is a bad file on it, one line at the image's table.
TEST(ScenarioImages, AFormatWithoutStorageSupportIsABadFile) {
    const std::string file = kScenarios + "offload-513-storage-image-then-copy.toml";
    const auto r = repro({"--scenario", file, "-q"}, simulated("no-storage-images"));
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.err, "repro: " + file +
                         ":14:1: image 'img' (r32ui, optimal tiling) is bound by a dispatch, but the device cannot use "
                         "that format and tiling as a storage image (vkGetPhysicalDeviceFormatProperties: no "
                         "STORAGE_IMAGE_BIT); expected another format or tiling\n")
        << shown(r);
}

}  // namespace

namespace {

// An image written by step 1 whose transition general -> transfer-src follows split's last
// step: split records it in that step's submit, after the dispatch, where lost-transitions
// (tests/simdriver) loses the image's contents.
const std::string kTrailingTransition = kImageHeader + R"(
[[step]]
dispatch = "image-increment"
bindings = ["img"]
add = 3

[[step]]
barrier = "image"
image = "img"
src_stage = ["compute"]
src_access = ["shader-storage-write"]
dst_stage = ["transfer"]
dst_access = ["transfer-read"]
old_layout = "general"
new_layout = "transfer-src"
)";

// --check-steps reads each image a step writes back from the layout split left it in (to
// TRANSFER_SRC and back), so every image file's split matches its CPU model step by step;
// lost-transitions, which split's transitions before a step escape, leaves that check passing
// (the one-submit modes' wrong result is then no shader compiler's); a transition lost in
// split's last submit is named at its step and texel.
TEST(ScenarioImages, CheckStepsReadsEachWrittenImageBackAndNamesTheFirstWrongStep) {
    for (const std::string& f : kImageFiles) {
        const auto r = repro({"--scenario", kScenarios + f + ".toml", "--check-steps", "-q"});
        EXPECT_EQ(r.status, 0) << f << "\n" << shown(r);
        EXPECT_TRUE(std::regex_search(
            r.out,
            std::regex(R"(\n    check-steps: all \d+ checked step\(s\) matched the CPU model after their submit)")))
            << f << "\n"
            << shown(r);
    }
    const auto lost =
        repro({"--scenario", kScenarios + kImageFiles[0] + ".toml", "--check-steps"}, simulated("lost-transitions"));
    EXPECT_EQ(lost.status, 2) << shown(lost);
    EXPECT_TRUE(contains(lost.out, "\n    check-steps: all 2 checked step(s) matched the CPU model after their submit"))
        << shown(lost);
    EXPECT_FALSE(contains(lost.out, "the shader compiler")) << shown(lost);
    const auto path = writeFile("-trailing.toml", kTrailingTransition);
    const auto r =
        repro({"--scenario", path.string(), "--mode", "split", "--check-steps", "-q"}, simulated("lost-transitions"));
    std::filesystem::remove(path);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "\n    check-steps: first wrong step: step 1 dispatch image-increment: image 'img' differs "
                         "from the CPU model at byte 0 (texel (0, 0): 0xdeadbeef, the CPU model 0x00000003), last "
                         "written by step 1 dispatch image-increment; 32 of 32 texels differ; 1 of 1 checked "
                         "step(s) differ\n"))
        << shown(r);
}

// --poison starts an image that a step writes before anything reads it as the sentinel texels,
// in every mode and in the CPU model, as it does a buffer: every image file stays NOT
// REPRODUCED with the images named in the header, and an image write the driver drops
// (seed-bug) leaves the sentinel, which the mismatch line names at its texel.
TEST(ScenarioImages, PoisonStartsWrittenImagesAsTheSentinel) {
    const std::vector<std::string> poisoned = {"'out'", "'consumed'", "'texture', 'whole', 'part'", "'b', 'c'"};
    for (size_t i = 0; i < kImageFiles.size(); ++i) {
        const auto r = repro({"--scenario", kScenarios + kImageFiles[i] + ".toml", "--poison"});
        EXPECT_EQ(r.status, 0) << kImageFiles[i] << "\n" << shown(r);
        EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << kImageFiles[i] << "\n" << shown(r);
        EXPECT_TRUE(contains(r.out, "\n  poison: " + poisoned[i] + " start as 0x7fc0dead words")) << shown(r);
    }
    const auto r = repro({"--scenario", kScenarios + kImageFiles[1] + ".toml", "--poison", "-q"},
                         simulated("seed-bug:dispatches=2"));
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_EQ(resultOf(r.out, "multipass"),
              "mismatch: image 'consumed' differs from the CPU model at byte 0 (texel (0, 0): 0x7fc0dead (still the "
              "poison value: never written, or written from words that still held it), the CPU model 0x00000064), last "
              "written by step 5 dispatch image-copy; "
              "1024 of 1024 texels differ (1 submit, T s)")
        << shown(r);
}

// --matrix and --triage on an image file, each row in a child: under lost-transitions every
// valid row but the submit boundaries reproduces (a transition first in its command buffer
// keeps the image), and the triage reads that as H2, ruling the shader compiler out by
// split's step check.
TEST(ScenarioImages, MatrixAndTriageOfAnImageFileConcludeASubmitBoundary) {
    const std::string file = kScenarios + "wgpu-8473-texture-to-buffer-copy.toml";
    const auto m = repro({"--scenario", file, "--matrix"}, simulated("lost-transitions"));
    EXPECT_EQ(m.status, 2) << shown(m);
    int n = 0;
    for (const char* mode : {"multipass", "single"}) {
        for (const char* row :
             {"as written", "barrier=blade", "barrier=full", "memory=device-local", "memory=host-visible"})
            EXPECT_TRUE(matrixRow(m.out, ++n, std::string(mode) + " " + row, "mismatch", 2)) << row << shown(m);
        for (const char* row : {"submit-every=2 host-wait", "submit-every=2 no-host-wait"})
            EXPECT_TRUE(matrixRow(m.out, ++n, std::string(mode) + " " + row, "ok", 0)) << row << shown(m);
        n += 2;  // the controls
    }
    EXPECT_TRUE(contains(m.out, "\n--- matrix: 18 variants: 14 valid (14 ran, 10 reproduced the bug, 0 hung)"))
        << shown(m);
    const auto t = repro({"--scenario", file, "--triage"}, simulated("lost-transitions"));
    EXPECT_EQ(t.status, 2) << shown(t);
    EXPECT_TRUE(
        std::regex_search(t.out, std::regex(R"(\n  H2  submit-every=2 host-wait +multipass ok \(exit 0\) +supports )")))
        << shown(t);
    EXPECT_TRUE(std::regex_search(
        t.out, std::regex(R"(\n  H5  split check-steps +every step as the CPU model has it +rules out )")))
        << shown(t);
    EXPECT_TRUE(contains(t.out, "\n--- conclusion: undetermined: a submit boundary makes it correct (H2)")) << shown(t);
}

// The Markdown and JSON reports of an image file name its images (extent, format, tiling,
// checked) and a mismatch at its texel; a stressed run's Markdown says it was and how.
TEST(ScenarioImages, ReportsDescribeTheImagesAndAStressedRun) {
    const auto json = std::filesystem::temp_directory_path() / ("repro-images-" + std::to_string(getpid()) + ".json");
    const auto r =
        repro({"--scenario", kScenarios + kImageFiles[1] + ".toml", "--format", "markdown", "--json", json.string()},
              simulated("lost-transitions"));
    EXPECT_EQ(r.status, 2) << shown(r);
    const std::string mismatch =
        "image 'produced' differs from the CPU model at byte 0 (texel (0, 0): 0xdeadbeef, the CPU model "
        "0x00000064), last written by step 1 dispatch image-increment; 1024 of 1024 texels differ";
    const std::string images =
        "produced: 32x32 r32ui, optimal tiling, checked; consumed: 32x32 r32ui, optimal tiling, checked";
    EXPECT_TRUE(contains(r.out, "each checked buffer and image compared with the CPU model and split.")) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n| images | " + images + " |\n")) << shown(r);
    EXPECT_TRUE(contains(r.out, "- **multipass**, under test: mismatch: " + mismatch + "\n")) << shown(r);
    const nlohmann::json doc = readJson(json);
    std::filesystem::remove(json);
    EXPECT_EQ(doc["scenario"]["images"], nlohmann::json({"produced: 32x32 r32ui, optimal tiling, checked",
                                                         "consumed: 32x32 r32ui, optimal tiling, checked"}))
        << doc["scenario"].dump(2);
    EXPECT_EQ(doc["modes"][1]["mode"], "multipass") << doc["modes"].dump(2);
    EXPECT_EQ(doc["modes"][1]["reason"], mismatch) << doc["modes"].dump(2);
    const auto s = repro({"--scenario", kScenarios + kImageFiles[0] + ".toml", "--stress", "--format", "markdown"});
    EXPECT_EQ(s.status, 0) << shown(s);
    EXPECT_TRUE(contains(s.out,
                         " It ran under --stress: cache priming (multipass and single), memory traffic (multipass "
                         "and single), shuffled workgroups (every mode). Result: "))
        << shown(s);
    EXPECT_TRUE(contains(s.out, ", --stress (priming, traffic, shuffled-workgroups) |\n")) << shown(s);
}

// The validation layer, synchronization validation on, has nothing to say about any image
// file in every mode under the options that read, fill or stress it (--check-steps'
// readbacks and their layout transitions, --poison's sentinel upload, --stress), nor about a
// file whose last split submit is a host read after an image's transition (recorded there).
TEST(ScenarioImages, EveryOptionOnEveryImageFileIsValidationClean) {
    for (const std::string& f : kImageFiles) {
        const auto r = repro(
            {"--scenario", kScenarios + f + ".toml", "--validation", "--check-steps", "--poison", "--stress", "-q"});
        EXPECT_EQ(r.status, 0) << f << "\n" << shown(r);
        EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << f << "\n" << shown(r);
        EXPECT_TRUE(contains(r.out + r.err, "validation: 0 messages")) << f << "\n" << shown(r);
    }
    const auto path = writeFile("-host-read.toml", kTrailingTransition +
                                                       "\n[[buffer]]\nname = \"h\"\nbytes = 64\nmemory = "
                                                       "\"host-visible\"\n\n[[step]]\nhost_read = \"h\"\n");
    const auto r = repro({"--scenario", path.string(), "--validation", "--check-steps", "-q"});
    std::filesystem::remove(path);
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out + r.err, "validation: 0 messages")) << shown(r);
}

}  // namespace
