// Verdicts that used to say the wrong thing, each run on the machine's driver (lavapipe):
// blade-exact without split, the matrix's reference sentence, a control's deliberate
// hazards, and experiments that change nothing on this device or at this N.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace {

using repro::test::contains;
using repro::test::runRepro;

// blade-exact's params descriptor is undefined behaviour; without split nothing tells that
// from a driver bug, so the run cannot test (125), whatever the reference.
TEST(VerdictDefects, BladeExactWithoutSplitCannotTestRatherThanReproduce) {
    REPRO_REQUIRE_LAVAPIPE();
    const auto r = runRepro(
        {"--preset", "tiny", "-n", "3", "--profile", "blade-exact", "--mode", "multipass", "--reference", "cpu"});
    EXPECT_EQ(r.status, 125) << r.out << r.err;
    EXPECT_TRUE(
        contains(r.out, "--- CANNOT TEST WITH --profile blade-exact here: a mode is wrong, but split did not run"))
        << r.out;
    EXPECT_FALSE(contains(r.out, "BUG REPRODUCED")) << r.out;
}

#if !defined(REPRO_WRONG_SPIRV_DIR)
#error "REPRO_WRONG_SPIRV_DIR must be defined"
#endif

// Issue 21, item 6e: a --spirv conv-T that is the user's, valid to spirv-val and wrong
// (tests/shaders/conv_t_wrong.comp). Split fails its per-dispatch CPU check; the cause names
// the shaders before the compiler, with spirv-val's answer, and does not blame the compiler.
TEST(VerdictDefects, TheUsersWrongModuleIsNotBlamedOnTheShaderCompiler) {
    // --timestamps: the predictions come from the GPU's own times, not from split's host
    // waits, which a loaded machine stretches (a prediction far above a one-submit mode's
    // time reads as a submit cut short).
    const auto r = runRepro({"--preset", "tiny", "-n", "2", "--reference", "cpu", "--check-steps", "--timestamps",
                             "--spirv", REPRO_WRONG_SPIRV_DIR});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_TRUE(contains(r.out,
                         "the SPIR-V modules are the user's (--spirv): spirv-val (vulkan1.3): conv_t.spv valid, "
                         "slice.spv valid"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "cause: the shaders or the shader compiler: split, one dispatch per submit, fails "))
        << r.out;
    EXPECT_FALSE(contains(r.out, "cause: the shader compiler (or the device's arithmetic)")) << r.out;
}

// Issue 21, item 6d: --split-ms and --drop-dispatch change the stream, and the header and
// the JSON report say so from one list (cli/run_changes.hpp).
TEST(VerdictDefects, SplitMsAndDropDispatchAreNamedInTheHeaderAndTheJsonReport) {
    const auto ms = runRepro({"--preset", "tiny", "-n", "2", "--split-ms", "1"});
    EXPECT_EQ(ms.status, 0) << ms.out << ms.err;
    EXPECT_TRUE(contains(ms.out, "  experiment: --split-ms 1 --host-wait (multipass and single;")) << ms.out;
    const auto drop = runRepro({"--preset", "tiny", "-n", "2", "--drop-dispatch", "3", "--format", "json"});
    EXPECT_EQ(drop.status, 2) << drop.out << drop.err;
    const auto report = nlohmann::json::parse(drop.out, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << drop.out;
    EXPECT_EQ(report["experiment"]["drop_dispatch"], 3) << report["experiment"].dump();
    EXPECT_EQ(report["experiment"]["changes"], nlohmann::json::array({"--drop-dispatch 3"}))
        << report["experiment"].dump();
    const auto text = runRepro({"--preset", "tiny", "-n", "2", "--drop-dispatch", "3"});
    EXPECT_FALSE(contains(text.out, "experiment flags: none")) << text.out;
    EXPECT_TRUE(contains(text.out, "  experiment: --drop-dispatch 3 (multipass and single;")) << text.out;
}

TEST(VerdictDefects, AControlsValidationMessagesAreCalledDeliberate) {
    const auto r = runRepro({"--preset", "tiny", "-n", "3", "--barrier", "none", "--validation"});
    EXPECT_EQ(r.status, 4) << r.out << r.err;
    EXPECT_TRUE(contains(r.out,
                         "the ones --barrier none is for: a control leaves out the barrier's memory dependency "
                         "on purpose, so its hazards are deliberate"))
        << r.out;
    EXPECT_FALSE(contains(r.out, "not trustworthy until they are fixed")) << r.out;
}

TEST(VerdictDefects, SubmitEveryAtLeastTheDispatchCountSaysItChangesNothing) {
    const auto r = runRepro({"--preset", "tiny", "-n", "3", "--submit-every", "6"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out,
                         "--- note: --submit-every 6 changes nothing at N = 3: multipass and single have 6 "
                         "dispatches, one submit each, as without it"))
        << r.out;
    const auto cut = runRepro({"--preset", "tiny", "-n", "3", "--submit-every", "5"});
    EXPECT_FALSE(contains(cut.out, "changes nothing")) << cut.out;
}

// --reference cpu: the children run no split, and the matrix must not say they do; at
// N = 1 submit-every 2 is one submit, and lavapipe has one memory type: said per row.
TEST(VerdictDefects, MatrixSaysWhatItsChildrenRunAndWhatChangesNothing) {
    REPRO_REQUIRE_LAVAPIPE();
    const auto r = runRepro({"--matrix", "--preset", "tiny", "-n", "1", "--reference", "cpu"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "each child checks against the CPU reference (--reference cpu) and runs no split"))
        << r.out;
    EXPECT_FALSE(contains(r.out, "each child also runs split")) << r.out;
    EXPECT_TRUE(contains(r.out, "changes nothing here: 2 dispatches fit in one submit of 2")) << r.out;
    EXPECT_TRUE(contains(r.out, "changes nothing here: the device has one memory type")) << r.out;
}

}  // namespace
