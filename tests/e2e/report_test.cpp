// End-to-end tests of the reports: JSON and Markdown from the real executable, GPU
// timestamps on the machine's driver, --output to an unwritable path.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

using repro::test::contains;
using repro::test::lines;
using repro::test::ProcessResult;
using repro::test::runRepro;
using repro::test::TempDir;

TEST(JsonReport, StdoutIsOneJsonObjectWithEveryMode) {
    const ProcessResult r = runRepro({"--format", "json", "--preset", "tiny", "-n", "2", "--timestamps"});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);  // throws (fails) if stdout is not pure JSON
    EXPECT_EQ(j.at("schema"), "repro-report");
    EXPECT_EQ(j.at("schema_version"), 2);
    EXPECT_EQ(j.at("chain_length"), 2);
    EXPECT_EQ(j.at("verdict").at("exit_status"), 0);
    ASSERT_EQ(j.at("modes").size(), 3u);
    for (const auto& m : j.at("modes")) {
        EXPECT_EQ(m.at("classification"), "ok") << m;
        EXPECT_EQ(m.at("stats").at("non_zero"), 280) << m;
    }
    EXPECT_FALSE(j.at("device").at("device_name").get<std::string>().empty());
    // The teardown after the total, and its two parts: the device's and the instance's.
    const auto& t = j.at("timings");
    EXPECT_GT(t.at("teardown_device").get<double>(), 0) << t;
    EXPECT_GT(t.at("teardown_instance").get<double>(), 0) << t;
    EXPECT_NEAR(t.at("teardown_device").get<double>() + t.at("teardown_instance").get<double>(),
                t.at("teardown").get<double>(), 1e-9)
        << t;
    // Text progress went to stderr.
    EXPECT_TRUE(contains(r.err, "--- results ---")) << r.err;
}

TEST(JsonReport, OutputFileKeepsTextOnStdout) {
    const auto path = std::filesystem::temp_directory_path() / "repro-e2e-report.json";
    std::filesystem::remove(path);
    const ProcessResult r =
        runRepro({"--preset", "tiny", "-n", "2", "--output", path.string(), "--drop-dispatch", "2"});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED")) << r.out;
    std::ifstream in(path);
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j.at("verdict").at("exit_status"), 2);
    bool zeroFound = false;
    for (const auto& m : j.at("modes")) zeroFound |= m.at("classification") == "zero";
    EXPECT_TRUE(zeroFound) << j.dump(2);
    std::filesystem::remove(path);
}

TEST(JsonReport, UnwritableOutputIsExitOneWithResultsPrinted) {
    // /dev/full opens, so the check before the run passes (a path that cannot be opened is
    // refused at once: e2e.OutputPaths.*); the write after the run fails with ENOSPC.
    const ProcessResult r = runRepro({"--preset", "tiny", "-n", "2", "--output", "/dev/full"});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "  mode=single    nz=280/280")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << r.out;
    EXPECT_TRUE(contains(r.err, "--output: cannot write")) << r.err;
}

TEST(MarkdownReport, OneBlockWithAResultsTableAndBalancedDetails) {
    const ProcessResult r = runRepro({"--format", "markdown", "--preset", "tiny", "-n", "2", "--timings"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto out = lines(r.out);
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(out[0].rfind("### repro: ", 0), 0u) << out[0];
    size_t header = out.size();
    for (size_t i = 0; i < out.size(); ++i) {
        if (out[i].rfind("| mode | classification |", 0) == 0) header = i;
    }
    ASSERT_LT(header + 4, out.size()) << r.out;
    EXPECT_EQ(out[header + 1].rfind("|---|", 0), 0u);
    EXPECT_EQ(out[header + 2].rfind("| split | ok |", 0), 0u) << out[header + 2];
    EXPECT_EQ(out[header + 3].rfind("| multipass | ok |", 0), 0u) << out[header + 3];
    EXPECT_EQ(out[header + 4].rfind("| single | ok |", 0), 0u) << out[header + 4];
    size_t open = 0, close = 0;
    for (const auto& l : out) {
        open += l.find("<details>") != std::string::npos;
        close += l.find("</details>") != std::string::npos;
    }
    EXPECT_GT(open, 0u);
    EXPECT_EQ(open, close);
    EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << r.out;
}

TEST(Timestamps, PerDispatchTimesArePositiveAndWithinTheirSubmit) {
    const ProcessResult r = runRepro({"--format", "json", "--preset", "small", "-n", "3", "--timestamps"});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    for (const auto& m : j.at("modes")) {
        const auto& gpu = m.at("gpu");
        ASSERT_FALSE(gpu.is_null()) << m;
        const auto dispatch = gpu.at("dispatch_seconds").get<std::vector<double>>();
        const auto submit = gpu.at("submit_seconds").get<std::vector<double>>();
        ASSERT_EQ(dispatch.size(), 6u) << m;
        for (double t : dispatch) EXPECT_GT(t, 0.0) << m.at("mode");
        double dispatchSum = 0, submitSum = 0;
        for (double t : dispatch) dispatchSum += t;
        for (double t : submit) submitSum += t;
        EXPECT_GE(submitSum, dispatchSum) << m.at("mode");
        EXPECT_EQ(submit.size(), m.at("mode") == "split" ? 6u : 1u);
        EXPECT_NEAR(gpu.at("mode_seconds").get<double>(), submitSum, 1e-9);
    }
}

TEST(Forensics, FlagsOnACleanRunChangeNothingButSayWhatTheyAdd) {
    // -v: the host and driver environment lines are the verbose header's.
    const ProcessResult r =
        runRepro({"-v", "--validation", "--preset", "small", "-n", "2", "--labels", "--breadcrumbs", "--timestamps"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "validation: 0 messages")) << r.out;
    EXPECT_TRUE(contains(r.out, "added to blade's command stream: timestamp queries")) << r.out;
    EXPECT_TRUE(contains(r.out, "host: ")) << r.out;
    EXPECT_TRUE(contains(r.out, "driver environment: ")) << r.out;
}

}  // namespace
