// A file's submit timeout is derived from its work (scenario/submit_budget.hpp): issue 34's
// defect was a fixed 60 s per submit, which called a correct 85 s dispatch a GPU HANG.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "scenario/scenario_parse.hpp"
#include "scenario/submit_budget.hpp"
#include "vk/scenario_settings.hpp"

namespace repro {
namespace {

// One `work` dispatch over `groups` workgroups of 64 invocations, `work` iterations each,
// then a fill of the whole 4 MiB buffer.
scenario::Scenario workFile(uint32_t groups, uint32_t work) {
    const std::string text =
        "name = \"w\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\n"
        "check = [\"a\"]\n[[buffer]]\nname = \"a\"\nbytes = 4194304\ninit = \"iota\"\n"
        "[[step]]\ndispatch = \"work\"\nbindings = [\"a\"]\ngroups = [" +
        std::to_string(groups) + ", 1, 1]\nwork = " + std::to_string(work) +
        "\n[[step]]\nbarrier = \"blade-g\"\n[[step]]\nfill = \"a\"\nvalue = 7\n";
    return scenario::parseScenario(text, "w.toml");
}

double total(const std::vector<double>& budgets) { return std::accumulate(budgets.begin(), budgets.end(), 0.0); }

TEST(SubmitBudget, ADispatchsBudgetIsItsIterationsAtTheDevicesRate) {
    const auto budgets = submitBudgets(workFile(1024, 1000), /*cpuDevice=*/false);
    ASSERT_EQ(budgets.size(), 3u);
    EXPECT_DOUBLE_EQ(budgets[0], 1024.0 * 64 * 1000 * kGpuSecondsPerIteration);
    EXPECT_EQ(budgets[1], 0.0) << "a barrier holds no work";
    EXPECT_DOUBLE_EQ(budgets[2], 4194304.0 * kGpuSecondsPerByte);
    const auto cpu = submitBudgets(workFile(1024, 1000), /*cpuDevice=*/true);
    EXPECT_DOUBLE_EQ(cpu[0], 1024.0 * 64 * 1000 * kCpuSecondsPerIteration);
}

TEST(SubmitBudget, TwiceTheWorkIsTwiceTheBudget) {
    const double once = submitBudgets(workFile(4096, 20000), false)[0];
    const double twice = submitBudgets(workFile(4096, 40000), false)[0];
    EXPECT_DOUBLE_EQ(twice, 2 * once);
    EXPECT_DOUBLE_EQ(submitBudgets(workFile(8192, 20000), false)[0], 2 * once);
}

// The host's wait for a submit is the base (120 s) plus its budget: the largest work dispatch a
// file can declare (65535 groups of 64, 65535 iterations: 2.7e11 iterations, 27 s at the GPU
// rate) is waited for 147 s, past the 85 s dispatch the old fixed 60 s called a hang;
// --timeout still overrides it.
TEST(SubmitBudget, ALongDispatchIsWaitedForLongerThanTheOldFixedMinute) {
    const auto budgets = submitBudgets(workFile(65535, 65535), false);
    vk::ScenarioRunSettings settings{.stepSeconds = budgets};
    const double wait = vk::submitTimeout(settings, total(budgets));
    EXPECT_GT(wait, 145.0);
    EXPECT_DOUBLE_EQ(wait, settings.baseSeconds + total(budgets));
    settings.fixed = 1.5;
    EXPECT_EQ(vk::submitTimeout(settings, total(budgets)), 1.5);
}

}  // namespace
}  // namespace repro
