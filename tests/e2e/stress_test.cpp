// --stress on a scenario file, end to end (docs/scenarios.md "--stress"): it never changes
// what a correct run computes (every shipped file stays NOT REPRODUCED on the machine's driver),
// its commands are in the printed stream and draw no validation message, and it masks no bug:
// the simulated driver that drops a command buffer's dispatches past its first is still caught.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bounded_process.hpp"
#include "process.hpp"

namespace {

using repro::test::BoundedResult;
using repro::test::contains;
using repro::test::count;
using repro::test::describeEnd;
using repro::test::kNoSimulation;
using repro::test::runBounded;

const std::string kScenarios = REPRO_SOURCE_DIR "/scenarios/";

BoundedResult repro(const std::vector<std::string>& args, const std::vector<std::string>& env = kNoSimulation) {
    return runBounded(REPRO_EXECUTABLE, args, env, 120);
}
class StressedScenario : public ::testing::TestWithParam<std::string> {};

// single runs every part (priming and traffic in its submit, shuffled workgroups), split after
// it as the reference, and single is compared with it; a file with queues gets the shuffle alone
// and says so.
TEST_P(StressedScenario, StaysNotReproduced) {
    const BoundedResult r = repro({"--scenario", kScenarios + GetParam(), "--stress", "--mode", "single"});
    ASSERT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED: every mode's checked buffers are ")) << shown(r);
    EXPECT_TRUE(contains(r.out, "  experiment: --stress\n")) << shown(r);
    const bool queues = contains(r.out, " queues\n");
    EXPECT_TRUE(contains(r.out, queues ? "  stress: shuffled workgroups" : "  stress: priming (")) << shown(r);
    // split's line and single's against it, and single's own first where the CPU model checks it
    EXPECT_TRUE(contains(r.out, "\n  mode=single    (classified against split)\n    -> ok: ")) << shown(r);
    EXPECT_EQ(count(r.out, "\n    -> "), count(r.out, "\n    -> ok: ")) << shown(r);
    EXPECT_GE(count(r.out, "\n    -> ok: "), 2u) << shown(r);
}

INSTANTIATE_TEST_SUITE_P(Lavapipe, StressedScenario,
                         ::testing::ValuesIn(repro::test::scenarioFiles(REPRO_SOURCE_DIR "/scenarios")),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                             return repro::test::parameterName(param.param);
                         });

// The printed stream holds each command buffer's priming (a read of each input, an
// execution-only barrier) and traffic, in single and multipass but not in split.
TEST(Stress, PrintStreamShowsThePrimingAndTheTraffic) {
    const BoundedResult r =
        repro({"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--stress", "--print-stream"});
    ASSERT_EQ(r.status, 0) << shown(r);
    const size_t multipass = r.out.find("mode multipass");
    ASSERT_NE(multipass, std::string::npos) << shown(r);
    const std::string split = r.out.substr(0, multipass), others = r.out.substr(multipass);
    EXPECT_FALSE(contains(split, "stress-")) << "split is the reference, unstressed\n" << shown(r);
    EXPECT_EQ(count(others, "stress-prime"), 2u) << shown(r);
    EXPECT_EQ(count(others, "stress-traffic"), 2u) << shown(r);
    EXPECT_TRUE(contains(r.out, "stress scratch")) << shown(r);
}

// Validation (with synchronization validation) finds nothing in the stressed stream: the
// priming reads are ordered after earlier writes and before later ones, the traffic touches
// only its own buffer. One file on one queue with transfers, one with queues.
TEST(Stress, DrawsNoValidationMessage) {
    for (const char* file : {"executorch-17299-staged-dispatches.toml", "compute-copy-on-a-second-queue.toml"}) {
        const BoundedResult r = repro({"--scenario", kScenarios + file, "--stress", "--validation"});
        EXPECT_EQ(r.status, 0) << file << shown(r);
        EXPECT_FALSE(contains(r.out, "VALIDATION")) << file << shown(r);
    }
}

// The simulated driver drops every dispatch of a command buffer past its first: the priming
// dispatch is now the first, so the file's dispatches are all lost in multipass and single,
// and --stress must still report it, with the stress in the JSON report.
TEST(Stress, MasksNoBug) {
    const auto json = std::filesystem::temp_directory_path() / ("repro-stress-" + std::to_string(getpid()) + ".json");
    const BoundedResult r = repro(
        {"--scenario", kScenarios + "kompute-196-increment-chain.toml", "--stress", "--json", json.string()},
        {std::string("VK_ADD_LAYER_PATH=") + REPRO_SIMDRIVER_LAYER_DIR, "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate",
         "REPRO_SIMULATE=seed-bug:dispatches=1", "REPRO_SIMULATE_TRACE="});
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED: mode multipass is mismatch")) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED: mode single is mismatch")) << shown(r);
    std::ifstream in(json);
    const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
    std::filesystem::remove(json);
    ASSERT_TRUE(report.is_object()) << shown(r);
    EXPECT_EQ(report["experiment"]["stress"], nlohmann::json::array({"priming", "traffic", "shuffled-workgroups"}))
        << report["experiment"].dump(1);
}

// The built-in chain keeps blade's stream: --stress on it is one line and exit 1.
TEST(Stress, TheChainRefusesIt) {
    const BoundedResult r = repro({"--preset", "tiny", "-n", "2", "--stress"});
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_TRUE(contains(r.err,
                         "repro: --stress: only with --scenario: the built-in chain records blade's calls "
                         "exactly"))
        << shown(r);
    EXPECT_EQ(count(r.err, "\n"), 1u) << shown(r);
}

}  // namespace
