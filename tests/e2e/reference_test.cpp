// End-to-end tests of the verdict's evidence: the CPU reference, --check-steps,
// --poison, --repeat, --sweep and the underflow horizon, on the machine's Vulkan driver.
#include <gtest/gtest.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace {

using repro::test::contains;
using repro::test::count;
using repro::test::ProcessResult;
using repro::test::runRepro;
using repro::test::TempDir;

struct CpuCase {
    std::string preset;
    int n;
};
class CpuReference : public ::testing::TestWithParam<CpuCase> {};

// lavapipe against the host's float64 chain within the derived float32 tolerance: every
// mode, split included, is judged against it.
TEST_P(CpuReference, EveryModeWithinTolerance) {
    const auto& c = GetParam();
    const ProcessResult r = runRepro(
        {"--validation", "--reference", "cpu", "--mode", "all", "--preset", c.preset, "-n", std::to_string(c.n)});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(count(r.out, "-> ok: within tolerance of the CPU reference: max |gpu - cpu|"), 3u) << r.out;
    EXPECT_TRUE(contains(r.out, "within the derived tolerance of the CPU reference")) << r.out;
    EXPECT_TRUE(contains(r.out, "validation: 0 messages")) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Lavapipe, CpuReference,
                         ::testing::Values(CpuCase{"tiny", 1}, CpuCase{"tiny", 4}, CpuCase{"tiny", 8},
                                           CpuCase{"small", 1}, CpuCase{"small", 4}, CpuCase{"small", 8}),
                         [](const auto& param) { return param.param.preset + "_n" + std::to_string(param.param.n); });

TEST(CpuReference, CatchesTheBrokenChainInSplitToo) {
    // With the CPU as the reference, the positive control in multipass is caught while
    // split (not broken) is judged ok against the host.
    const ProcessResult r = runRepro({"--reference", "cpu", "--preset", "tiny", "-n", "3", "--drop-dispatch", "6"});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, "--- CONTROL CAUGHT: mode multipass is zero")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- CONTROL CAUGHT: mode single is zero")) << r.out;
    EXPECT_EQ(count(r.out, "-> ok: within tolerance"), 1u) << r.out;  // split
}

// The host's float64 chain is the report's timings.reference, as a scenario file's CPU model
// is: one report, one meaning (it was 0 for the built-in chain, its time left out of every
// phase). Without a CPU reference the phase is 0.
TEST(CpuReference, ItsTimeIsTheReportsReferencePhase) {
    const auto reference = [](const char* kind) {
        const ProcessResult r =
            runRepro({"--reference", kind, "--preset", "small", "-n", "8", "--mode", "split", "--format", "json"});
        EXPECT_EQ(r.status, 0) << r.out << r.err;
        return nlohmann::json::parse(r.out).at("timings").at("reference").get<double>();
    };
    EXPECT_GT(reference("cpu"), 0.0);
    EXPECT_EQ(reference("split"), 0.0);
}

struct StepCase {
    std::string reference;
    int dropped;
    std::string named;
};
class CheckSteps : public ::testing::TestWithParam<StepCase> {};

// --check-steps names exactly the dispatch the positive control leaves out.
TEST_P(CheckSteps, NamesTheDroppedDispatch) {
    const auto& c = GetParam();
    const ProcessResult r = runRepro({"--check-steps", "--reference", c.reference, "--preset", "tiny", "-n", "3",
                                      "--mode", "multipass", "--drop-dispatch", std::to_string(c.dropped)});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "first wrong dispatch " + std::to_string(c.dropped) + ": " + c.named)) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Lavapipe, CheckSteps,
                         ::testing::Values(StepCase{"split", 1, "step 1 conv-T"}, StepCase{"split", 4, "step 2 slice"},
                                           StepCase{"split", 5, "step 3 conv-T"}, StepCase{"cpu", 3, "step 2 conv-T"},
                                           StepCase{"cpu", 6, "step 3 slice"}),
                         [](const auto& param) {
                             return param.param.reference + "_drop" + std::to_string(param.param.dropped);
                         });

TEST(CheckSteps, CleanChainMatchesEveryDispatch) {
    const ProcessResult r = runRepro({"--check-steps", "--preset", "small", "-n", "3"});
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(count(r.out, "every dispatch's output matches"), 2u) << r.out;  // multipass, single
    EXPECT_EQ(count(r.out, "      dispatch "), 12u) << r.out;                 // 6 each
}

// The JSON report carries the per-dispatch CPU check of each mode that ran it.
TEST(CheckSteps, TheReportCarriesThePerDispatchCheck) {
    const ProcessResult r =
        runRepro({"--check-steps", "--preset", "tiny", "-n", "2", "--mode", "split", "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const nlohmann::json& check = j.at("modes").at(0).at("per_dispatch_check");
    EXPECT_EQ(check.at("state"), "passed") << check;
    EXPECT_TRUE(check.at("first_wrong").is_null()) << check;
    ASSERT_EQ(check.at("dispatches").size(), 4u) << check;
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(check["dispatches"][i]["dispatch"], i + 1);
        EXPECT_EQ(check["dispatches"][i]["kind"], i % 2 == 0 ? "conv_t" : "slice");
        EXPECT_EQ(check["dispatches"][i]["ok"], true);
    }
    // Without --check-steps it is null.
    const ProcessResult plain = runRepro({"--preset", "tiny", "-n", "2", "--mode", "split", "--format", "json"});
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_TRUE(nlohmann::json::parse(plain.out).at("modes").at(0).at("per_dispatch_check").is_null());
}

// REPRO_STEP_CHECK=exact: each conv-T line states its bound beside the measured difference
// (the default fast path only says the worst ratio is at most 0.5).
TEST(CheckSteps, ExactBoundsShowTheBoundOfEveryConvT) {
    const ProcessResult plain = runRepro({"--check-steps", "--preset", "tiny", "-n", "2", "--mode", "split"});
    EXPECT_EQ(plain.status, 0) << plain.out << plain.err;
    EXPECT_EQ(count(plain.out, "allowed up to"), 0u) << plain.out;
    EXPECT_EQ(count(plain.out, "worst ratio at most"), 2u) << plain.out;
    const ProcessResult exact =
        runRepro({"--check-steps", "--preset", "tiny", "-n", "2", "--mode", "split"}, {"REPRO_STEP_CHECK=exact"});
    EXPECT_EQ(exact.status, 0) << exact.out << exact.err;
    EXPECT_EQ(count(exact.out, "allowed up to"), 2u) << exact.out;  // conv-T 1 and 2
    EXPECT_EQ(count(exact.out, "worst ratio at most"), 0u) << exact.out;
}

// --check-steps --reference cpu streams the intermediates: each is read, checked and
// dropped, and the CPU reference keeps one step, so the peak resident set grows with the
// chain only by the chain's own buffers, which lavapipe keeps in host memory (small + big
// per step: 2.7 MiB at this shape). Holding every intermediate, as before, added 5.4 MiB
// a step more (the readback's and the CPU reference's copies: 118 MiB at N = 4, 214 MiB at
// N = 16).
TEST(CheckSteps, MemoryGrowsOnlyByTheChainsOwnBuffers) {
    const std::vector<std::string> shape{"--preset", "small", "--channels", "8", "--height", "60", "--width", "480"};
    auto peakMiB = [&](int n) {
        std::vector<std::string> args = shape;
        args.insert(args.end(), {"--mode", "split", "--check-steps", "--reference", "cpu", "-n", std::to_string(n)});
        const ProcessResult r = runRepro(args);
        EXPECT_EQ(r.status, 0) << r.out << r.err;
        EXPECT_EQ(count(r.out, "      dispatch "), 2u * n) << r.out;
        return static_cast<double>(r.peakRssKiB) / 1024.0;
    };
    const double two = peakMiB(2), eight = peakMiB(8);
    ASSERT_GT(two, 0.0);
    const double chainBuffersMiB = 6 * (230400.0 + 477152.0) * 4 / (1 << 20);  // steps 3..8 on the device
    EXPECT_LE(eight - two, chainBuffersMiB + 8.0)
        << "peak RSS " << two << " MiB at N = 2, " << eight << " MiB at N = 8";
}

TEST(Poison, DroppedDispatchOutputIsUnwritten) {
    const ProcessResult r = runRepro(
        {"--poison", "--check-steps", "--preset", "tiny", "-n", "3", "--mode", "single", "--drop-dispatch", "3"});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, "first wrong dispatch 3: step 2 conv-T is unwritten")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- CONTROL CAUGHT: mode single is unwritten")) << r.out;
    // Without --poison the same chain is `zero`: the two are told apart.
    const ProcessResult plain =
        runRepro({"--check-steps", "--preset", "tiny", "-n", "3", "--mode", "single", "--drop-dispatch", "3"});
    EXPECT_TRUE(contains(plain.out, "first wrong dispatch 3: step 2 conv-T is zero")) << plain.out;
}

TEST(Poison, CleanChainOverwritesEverySentinel) {
    const ProcessResult r = runRepro({"--poison", "--check-steps", "--validation", "--preset", "small", "-n", "4"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_FALSE(contains(r.out, "unwritten")) << r.out;
}

TEST(Repeat, RatesAndBitIdentity) {
    const ProcessResult r = runRepro({"--repeat", "3", "--preset", "tiny", "-n", "2"});
    EXPECT_EQ(r.status, 0) << r.out;
    for (const char* mode : {"split", "multipass", "single"}) {
        EXPECT_TRUE(contains(r.out, std::string("  ") + mode + ": 0/3 runs wrong; results bit-identical across runs"))
            << mode << "\n"
            << r.out;
    }
    EXPECT_TRUE(contains(r.out, "[run 3/3]")) << r.out;
    const ProcessResult broken =
        runRepro({"--repeat", "2", "--preset", "tiny", "-n", "2", "--mode", "multipass", "--drop-dispatch", "2"});
    EXPECT_EQ(broken.status, 2) << broken.out;
    EXPECT_TRUE(contains(broken.out, "multipass: 2/2 runs wrong")) << broken.out;
    EXPECT_TRUE(contains(broken.out, "(2/2 runs wrong)")) << broken.out;
}

// --repeat past the first kListedRuns (20) runs of a mode: the later runs are counted in the
// mode's numbers and folded in the JSON's folded_runs, not kept one by one (hostile-input
// probe R14: every run kept its record and the child re-sent the whole growing report after
// each, about 4 KB a run; bench/repeat-rss.sh shows the peak flat).
TEST(Repeat, RunsPastTheFirstTwentyAreCountedNotListed) {
    const auto doc = std::filesystem::temp_directory_path() / ("repro-fold-" + std::to_string(::getpid()) + ".json");
    const ProcessResult r = runRepro({"--repeat", "30", "--preset", "tiny", "-n", "1", "--mode", "multipass",
                                      "--drop-dispatch", "2", "--json", doc.string()});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out,
                         "multipass: 30/30 runs wrong; results bit-identical across runs (10 runs past the "
                         "first 20 counted here, not listed one by one)"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "[run 30/30]")) << "every run still prints its line\n" << r.out;
    std::ifstream in(doc);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    std::filesystem::remove(doc);
    ASSERT_TRUE(j.is_object()) << "no report";
    size_t listed = 0;
    for (const auto& m : j["modes"]) listed += m["mode"] == "multipass";
    EXPECT_EQ(listed, 20u) << j["modes"].dump();
    ASSERT_EQ(j["folded_runs"].size(), 1u) << j.dump(2);
    const nlohmann::json& f = j["folded_runs"][0];
    EXPECT_EQ(f["mode"], "multipass");
    EXPECT_EQ(f["first_run"], 21);
    EXPECT_EQ(f["runs"], 10);
    EXPECT_EQ(f["wrong_runs"], 10);
    EXPECT_EQ(f["identical_to_first_run"], true);
}

TEST(Sweep, TableAndNoReproductionOnACorrectDriver) {
    const ProcessResult r = runRepro({"--sweep", "1..12", "--preset", "small"});
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(contains(r.out, "--- sweep: classification by chain length ---")) << r.out;
    EXPECT_EQ(count(r.out, "--- results for N="), 12u) << r.out;
    EXPECT_TRUE(contains(r.out, "--- smallest reproducing N: split none, multipass none, single none")) << r.out;
    EXPECT_TRUE(contains(r.out, "Chaining 1..12 conv-T + slice ops (sweep)")) << r.out;
}

TEST(Sweep, SmallestReproducingNPerMode) {
    // Dispatch 2 (step 1's slice) is in every chain of the sweep.
    const ProcessResult r = runRepro({"--sweep", "1..3", "--preset", "tiny", "--drop-dispatch", "2"});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, "--- smallest reproducing N: split none, multipass N=1, single N=1")) << r.out;
}

TEST(Underflow, LongChainOnACorrectDeviceIsNotAReproduction) {
    // small preset: the signal reaches zero in float32 by N = 60 on a correct device.
    for (const char* reference : {"split", "cpu"}) {
        const ProcessResult r =
            runRepro({"--preset", "small", "-n", "60", "--mode", "split", "--reference", reference});
        EXPECT_NE(r.status, 2) << reference << "\n" << r.out;
        EXPECT_EQ(r.status, 125) << reference << "\n" << r.out;
        EXPECT_TRUE(contains(r.out, "--- INCONCLUSIVE")) << r.out;
    }
}

TEST(ReferenceNone, OriginalSemanticsAndTheUnderflowWarning) {
    // tiny: the float64 chain's maximum is 3.5e-39 at N = 80 (below float32's normal range).
    const ProcessResult r = runRepro({"--reference", "none", "--preset", "tiny", "-n", "80", "--mode", "split"});
    EXPECT_TRUE(contains(r.out,
                         "--- warning: --reference none at N = 80: a correct device may give zeros here "
                         "(the float64 CPU chain's max |small[80]| is 3.5376e-39)"))
        << r.out;
    const ProcessResult early = runRepro({"--reference", "none", "--preset", "tiny", "-n", "40", "--mode", "split"});
    EXPECT_FALSE(contains(early.out, "--- warning: --reference none")) << early.out;
    const ProcessResult ok = runRepro({"--reference", "none", "--preset", "tiny", "-n", "3"});
    EXPECT_EQ(ok.status, 0) << ok.out;
    EXPECT_TRUE(contains(ok.out, "reference: none")) << ok.out;
    EXPECT_FALSE(contains(ok.out, "reference (split, run after")) << ok.out;
}

TEST(ReferenceNone, AllZeroBeforeTheUnderflowHorizonReproduces) {
    // The original's own symptom without a reference: multipass all zero at a short chain,
    // where no correct device underflows (dispatch 3 dropped: step 2's input is never written).
    const ProcessResult r =
        runRepro({"--reference", "none", "--preset", "tiny", "-n", "3", "--mode", "multipass", "--drop-dispatch", "3"});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, "--- CONTROL CAUGHT: mode multipass is zero")) << r.out;
    EXPECT_FALSE(contains(r.out, "INCONCLUSIVE")) << r.out;
    EXPECT_FALSE(contains(r.out, "no mode")) << r.out;
    // Past the horizon the same zeros are not judged.
    const ProcessResult late = runRepro(
        {"--reference", "none", "--preset", "tiny", "-n", "80", "--mode", "multipass", "--drop-dispatch", "3"});
    EXPECT_EQ(late.status, 125) << late.out;
    EXPECT_TRUE(contains(late.out, "--- INCONCLUSIVE: every mode is all zero and there is no reference")) << late.out;
}

}  // namespace
