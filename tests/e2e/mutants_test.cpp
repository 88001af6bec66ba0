// --mutants and --mutant, end to end (docs/mutants.md): every shipped file and the built-in
// chain give a score line on the machine's driver (lavapipe kills nothing); the simulated
// driver's weak-barriers (tests/simdriver) kills the mutants of the barrier a read depends on
// and not those of a barrier nothing depends on, while the file as written is not reproduced;
// the JSON report carries the section; bad --mutant values are one line and exit 1.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
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
using repro::test::kNoSimulation;
using repro::test::runBounded;
using repro::test::simulated;

const std::string kFixture = REPRO_SOURCE_DIR "/tests/scenarios/mutants-weak-barriers.toml";

BoundedResult repro(const std::vector<std::string>& args, const std::vector<std::string>& env = kNoSimulation) {
    return runBounded(REPRO_EXECUTABLE, args, env, 240);  // --mutants on llama-25767: about 30 s
}

// The JSON document at `path` (a discarded value when it is not JSON), the file removed.
nlohmann::json takeJson(const std::filesystem::path& path) {
    std::ifstream in(path);
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    std::filesystem::remove(path);
    return doc;
}

// Every line of `text` at most `columns` long.
bool fits(const std::string& text, size_t columns) {
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = text.find('\n', start);
        const size_t len = (end == std::string::npos ? text.size() : end) - start;
        if (len > columns) return false;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return true;
}

class ShippedMutants : public ::testing::TestWithParam<std::string> {};

// Every shipped file: its own verdict, one line per mutant and the score line (a barrier a
// `repeat` expands is one mutant: llama-cpp-21724's barrier, expanded 100 times, is 4 mutants); lavapipe
// runs dispatches in order, so no mutant is killed and the exit status stays 0.
TEST_P(ShippedMutants, GiveAScoreLine) {
    const BoundedResult r =
        repro({"--scenario", REPRO_SOURCE_DIR "/scenarios/" + GetParam(), "--mode", "single", "--mutants"});
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- NOT REPRODUCED")) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- mutation score: ")) << shown(r);
    EXPECT_FALSE(contains(r.out, ": killed (")) << shown(r);
    EXPECT_FALSE(contains(r.out, "not run")) << shown(r);
    EXPECT_TRUE(fits(r.out.substr(r.out.find("\n--- mutants")), 100)) << shown(r);
}

INSTANTIATE_TEST_SUITE_P(Lavapipe, ShippedMutants,
                         ::testing::ValuesIn(repro::test::scenarioFiles(REPRO_SOURCE_DIR "/scenarios")),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                             return repro::test::parameterName(param.param);
                         });

// A barrier a repeat expands is one mutant, weakened in every copy: llama-cpp-21724's barrier
// between its dispatches, 100 copies, is 4 mutants ("100 times").
TEST(Mutants, ARepeatedBarrierIsOneMutant) {
    const std::string file = REPRO_SOURCE_DIR "/scenarios/llama-cpp-21724-many-dispatches.toml";
    const BoundedResult r = repro({"--scenario", file, "--mode", "single", "--mutants"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- mutation score: 0 of 4 mutants killed")) << shown(r);
    EXPECT_TRUE(contains(r.out, "mutant 1/4: step 2 (compute -> compute), 100 times: removed: survived")) << shown(r);
}

// The chain's two mutants: every barrier execution-only, and removed; the other two said left out.
TEST(Mutants, TheBuiltInChainHasTwo) {
    const BoundedResult r = repro({"--preset", "tiny", "-n", "2", "--mutants"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  mutant 1/2: every barrier between dispatches (blade's G in multipass, C in single): "
                         "execution-only: survived (0 of 2 wrong)\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, ": removed: survived (0 of 2 wrong)\n")) << shown(r);
    EXPECT_TRUE(contains(r.out, "  left out: no-src-access and dst-stage-misses: ")) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- mutation score: 0 of 2 mutants killed\n")) << shown(r);
}

// A file with one queue and no image: multipass keeps blade's G before every step, so no mutant
// reaches it and its runs are not counted (a killed mutant read "1 of 2 wrong", multipass's
// right run counted against it).
TEST(Mutants, OnAFileWithOneQueueOnlySinglesRunsCount) {
    const BoundedResult r = repro({"--scenario", kFixture, "--mutants", "-q"}, simulated("weak-barriers"));
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "  mutant 6/8: step 4 (compute -> compute): execution-only: killed (1 of 1 wrong)\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out, "  mutant 1/8: step 2 (compute -> compute): removed: survived (0 of 1 wrong)\n"))
        << shown(r);
}

// weak-barriers kills step 4's four mutants (step 5 reads what step 3 wrote) and none of step 2's
// (step 1 wrote nothing step 3 reads); the file as written is correct: exit 0, not reproduced.
TEST(Mutants, TheSimulatedDriverKillsSomeAndTheRunStaysNotReproduced) {
    const auto json = std::filesystem::temp_directory_path() / ("repro-mutants-" + std::to_string(getpid()) + ".json");
    const std::vector<std::string> env = simulated("weak-barriers");
    const BoundedResult r =
        repro({"--scenario", kFixture, "--mode", "single", "--repeat", "2", "--mutants", "--json", json.string()}, env);
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- NOT REPRODUCED")) << shown(r);
    EXPECT_FALSE(contains(r.out, "BUG REPRODUCED")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  mutant 1/8: step 2 (compute -> compute): removed: survived (0 of 2 "
                         "wrong)\n"))
        << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  mutant 6/8: step 4 (compute -> compute): execution-only: killed (2 of 2 "
                         "wrong)\n"))
        << shown(r);
    EXPECT_EQ(count(r.out, ": killed ("), 4u) << shown(r);
    EXPECT_EQ(count(r.out, ": survived ("), 4u) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- mutation score: 4 of 8 mutants killed\n")) << shown(r);

    const nlohmann::json report = takeJson(json);
    ASSERT_TRUE(report.is_object()) << shown(r);
    const nlohmann::json& m = report.at("mutants");
    ASSERT_EQ(m.at("mutants").size(), 8u) << m.dump(2);
    EXPECT_EQ(m.at("killed"), 4) << m.dump(2);
    EXPECT_EQ(m.at("score"), "4 of 8") << m.dump(2);
    const nlohmann::json& sixth = m.at("mutants").at(5);
    EXPECT_EQ(sixth.at("step"), "4");
    EXPECT_EQ(sixth.at("weakening"), "execution-only");
    EXPECT_EQ(sixth.at("rerun"), "--mutant 4:execution-only");
    EXPECT_EQ(sixth.at("runs"), 2);
    EXPECT_EQ(sixth.at("wrong"), 2);
    EXPECT_EQ(sixth.at("outcome"), "killed");
    EXPECT_EQ(m.at("mutants").at(0).at("outcome"), "survived");
    EXPECT_EQ(report.at("verdict").at("exit_status"), 0);
}

// A mutant whose child hangs is counted as killed and said to be hung (docs/mutants.md): the
// simulated driver's weak-barriers:hang hangs the dispatch after a barrier without a memory
// dependency, and only repro's --timeout ends the wait. The file as written has none, so it is
// right (exit 0); each of its 8 mutants takes one barrier's memory dependency away and hangs, in
// a child of its own that the next one outlives.
TEST(Mutants, AHungMutantIsCountedAsKilled) {
    const auto json =
        std::filesystem::temp_directory_path() / ("repro-mutants-hung-" + std::to_string(getpid()) + ".json");
    const std::vector<std::string> env = simulated("clock:us-per-wg=1;weak-barriers:hang");
    const BoundedResult r = repro(
        {"--scenario", kFixture, "--mode", "single", "--mutants", "--timeout", "1", "--json", json.string()}, env);
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- NOT REPRODUCED")) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "  mutant 1/8: step 2 (compute -> compute): removed: hung, counted as killed (GPU HANG: "
                         "mode single (cause: the control or the file itself))\n"))
        << shown(r);
    EXPECT_EQ(count(r.out, ": hung, counted as killed ("), 8u) << shown(r);
    EXPECT_TRUE(contains(r.out, "\n--- mutation score: 8 of 8 mutants killed, 8 of them by a hang\n")) << shown(r);
    const nlohmann::json report = takeJson(json);
    ASSERT_TRUE(report.is_object()) << shown(r);
    const nlohmann::json& m = report.at("mutants");
    EXPECT_EQ(m.at("killed"), 8) << m.dump(2);
    EXPECT_EQ(m.at("score"), "8 of 8") << m.dump(2);
    EXPECT_TRUE(m.at("withheld").is_null()) << m.dump(2);
    EXPECT_EQ(m.at("mutants").at(0).at("outcome"), "hung") << m.dump(2);
}

// Where the file as written is not right, no mutant runs (docs/mutants.md): a hung or wrong
// mutant would be scored killed for the file's own failure. The simulated driver's hang hangs
// every one-submit command buffer after its first dispatch, the file as written included
// (exit 3); stale:dispatch=2 makes step 5 copy `data` as it was before the increment (exit 2).
// One line says why, in text, JSON (withheld, no mutants, score null) and Markdown, and the
// run's exit status is its own.
TEST(Mutants, NoMutantRunsWhereTheFileAsWrittenFails) {
    const auto json =
        std::filesystem::temp_directory_path() / ("repro-mutants-withheld-" + std::to_string(getpid()) + ".json");
    const BoundedResult hung =
        repro({"--scenario", kFixture, "--mode", "single", "--mutants", "--timeout", "1", "--json", json.string()},
              simulated("clock:us-per-wg=1;hang:dispatches=1"));
    EXPECT_EQ(hung.status, 3) << shown(hung);
    EXPECT_TRUE(contains(hung.out, "\n--- GPU HANG: mode single hung")) << shown(hung);
    EXPECT_TRUE(
        contains(hung.out, "\n--- mutants: none run: the file as written ended exit 3: GPU HANG: mode single hung: "))
        << shown(hung);
    EXPECT_TRUE(contains(hung.out, ", and a mutant is told apart only from a run that is right (docs/mutants.md)\n"))
        << shown(hung);
    EXPECT_FALSE(contains(hung.out, "mutant 1/")) << shown(hung);
    EXPECT_FALSE(contains(hung.out, "mutation score")) << shown(hung);
    const nlohmann::json report = takeJson(json);
    ASSERT_TRUE(report.is_object()) << shown(hung);
    const nlohmann::json& m = report.at("mutants");
    EXPECT_TRUE(m.at("withheld").get<std::string>().starts_with("the file as written ended exit 3: GPU HANG: "))
        << m.dump(2);
    EXPECT_TRUE(m.at("mutants").empty()) << m.dump(2);
    EXPECT_TRUE(m.at("score").is_null()) << m.dump(2);
    EXPECT_EQ(report.at("verdict").at("exit_status"), 3);

    const BoundedResult wrong = repro({"--scenario", kFixture, "--mode", "single", "--mutants", "--format", "markdown"},
                                      simulated("stale:dispatch=2"));
    EXPECT_EQ(wrong.status, 2) << shown(wrong);
    EXPECT_TRUE(contains(wrong.out, "No mutant ran: the file as written ended exit 2: BUG REPRODUCED: mode single "))
        << shown(wrong);
    EXPECT_FALSE(contains(wrong.out, "mutation score")) << shown(wrong);
}

// --mutant alone: one mutant as a labelled control, wrong under weak-barriers: CONTROL CAUGHT,
// never BUG REPRODUCED (exit 2, as every control caught: docs/scenarios.md "Controls"), and
// never the line of a control that stayed right. The mutant of the barrier nothing depends on
// (step 2 removed) stays right under the same driver: NOT REPRODUCED, exit 0, and that line.
TEST(Mutants, OneMutantIsALabelledControl) {
    const std::vector<std::string> env = simulated("weak-barriers");
    const BoundedResult r = repro({"--scenario", kFixture, "--mode", "single", "--mutant", "4:no-src-access"}, env);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- CONTROL CAUGHT: mode single is mismatch")) << shown(r);
    EXPECT_TRUE(contains(r.out, "--mutant 4:no-src-access")) << shown(r);
    EXPECT_TRUE(contains(r.out, "mismatch")) << shown(r);
    EXPECT_FALSE(contains(r.out, "BUG REPRODUCED")) << shown(r);
    EXPECT_FALSE(contains(r.out, "the control was not caught")) << shown(r);
    const BoundedResult kept = repro({"--scenario", kFixture, "--mode", "single", "--mutant", "2:removed"}, env);
    EXPECT_EQ(kept.status, 0) << shown(kept);
    EXPECT_TRUE(contains(kept.out, "\n--- NOT REPRODUCED")) << shown(kept);
    EXPECT_TRUE(contains(kept.out,
                         "\n--- the control was not caught (--mutant 2:removed: a mutant, the file's step 2 "
                         "weakened on purpose): every mode stayed right without what it removes"))
        << shown(kept);
}

// Values the file refuses: one line naming the value, exit 1, nothing run.
TEST(Mutants, BadValuesAreOneLine) {
    const struct {
        std::vector<std::string> args;
        std::string message;
    } cases[] = {
        {{"--mutant", "9:removed"}, "repro: --mutant 9:removed: " + kFixture + " has no step 9\n"},
        {{"--mutant", "3:removed"},
         "repro: --mutant 3:removed: step 3 dispatch increment is not a barrier or a wait; expected the number of "
         "one\n"},
        {{"--mutant", "x"}, "repro: --mutant: 'x' is not STEP:KIND (a step number from 1, e.g. 4:execution-only)\n"},
        {{"--mutant", "2:bogus"},
         "repro: --mutant 2:bogus: unknown weakening 'bogus'; expected removed, execution-only, no-src-access or "
         "dst-stage-misses\n"},
    };
    for (const auto& c : cases) {
        std::vector<std::string> args = {"--scenario", kFixture};
        args.insert(args.end(), c.args.begin(), c.args.end());
        const BoundedResult r = repro(args);
        EXPECT_EQ(r.status, 1) << shown(r);
        EXPECT_EQ(r.err, c.message) << shown(r);
        EXPECT_EQ(r.out, "") << shown(r);
    }
}

}  // namespace

namespace {

// An image barrier's mutants keep its layout transition, which the copy after it needs:
// removed leaves one image barrier with no dependency in single's stream, never no barrier.
TEST(Mutants, AnImageBarrierKeepsItsLayoutTransition) {
    const std::string file = REPRO_SOURCE_DIR "/scenarios/offload-513-storage-image-then-copy.toml";
    const BoundedResult r = repro({"--scenario", file, "--mode", "single", "--mutant", "2:removed", "--print-stream"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "step 2 barrier image img (compute -> transfer) (mutant removed, a control)"))
        << shown(r);
    EXPECT_TRUE(
        contains(r.out.substr(r.out.find("## mode single")),
                 "vkCmdPipelineBarrier2(image img TOP_OF_PIPE 0 -> BOTTOM_OF_PIPE 0, GENERAL -> TRANSFER_SRC_OPTIMAL)"))
        << shown(r);
    // and the copy that needs it, with the layout it reads the image in (the printed stream's image transfers)
    EXPECT_TRUE(contains(r.out.substr(r.out.find("## mode single")),
                         "vkCmdCopyImageToBuffer(img TRANSFER_SRC_OPTIMAL -> out, "))
        << shown(r);
}

}  // namespace
