// End-to-end tests of the reports: JSON and Markdown from the real executable, GPU
// timestamps on the machine's driver, --output to an unwritable path.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harness.hpp"
#include "process.hpp"

namespace {

using repro::test::contains;
using repro::test::lines;
using repro::test::ProcessResult;
using repro::test::readText;
using repro::test::runProcess;
using repro::test::runRepro;
using repro::test::TempDir;

TEST(JsonReport, StdoutIsOneJsonObjectWithEveryMode) {
    const ProcessResult r = runRepro({"--format", "json", "--preset", "tiny", "-n", "2", "--timestamps"});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);  // throws (fails) if stdout is not pure JSON
    EXPECT_EQ(j.at("schema"), "repro-report");
    EXPECT_EQ(j.at("schema_version"), 3);
    EXPECT_EQ(j.at("verdict").at("kind"), "not_reproduced");
    EXPECT_TRUE(j.at("scenario").is_null());
    // The environment's dotted fact names are nested; command_line names the program only.
    EXPECT_FALSE(j.at("environment").at("host").at("kernel").at("release").get<std::string>().empty());
    EXPECT_EQ(j.at("command_line").at(0), "repro");
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
    const ProcessResult r = runRepro({"--preset", "tiny", "-n", "2", "--json", path.string(), "--drop-dispatch", "2"});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "--- CONTROL CAUGHT")) << r.out;
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

// -o FILE writes the document --format names, in place of stdout; the text report stays on
// stdout (issue 23, item 2).
TEST(OutputFile, FollowsTheFormat) {
    TempDir dir("output-format");
    const std::vector<std::string> run{"--preset", "tiny", "-n", "1", "--mode", "split"};
    const auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = run;
        args.insert(args.end(), extra.begin(), extra.end());
        return runRepro(args, {}, 120);
    };
    const ProcessResult text = with({"-o", (dir / "r.txt").string()});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_TRUE(contains(text.out, "  mode=split")) << "the text report stays on stdout: " << text.out;
    EXPECT_EQ(readText(dir / "r.txt"), text.out) << "the file holds the same text report";
    const ProcessResult md = with({"--format", "markdown", "-o", (dir / "r.md").string()});
    ASSERT_EQ(md.status, 0) << md.err;
    EXPECT_TRUE(readText(dir / "r.md").starts_with("### repro: not reproduced (exit 0) on ")) << readText(dir / "r.md");
    EXPECT_TRUE(contains(md.out, "  mode=split")) << md.out;
    EXPECT_FALSE(contains(md.out, "### repro")) << "the document is in the file, not on stdout: " << md.out;
    const ProcessResult js = with({"--format", "json", "--output", (dir / "r.json").string()});
    ASSERT_EQ(js.status, 0) << js.err;
    const nlohmann::json j = nlohmann::json::parse(readText(dir / "r.json"), nullptr, false);
    ASSERT_TRUE(j.is_object()) << readText(dir / "r.json");
    EXPECT_EQ(j["verdict"]["exit_status"], 0);
    EXPECT_TRUE(contains(js.out, "  mode=split")) << js.out;
    // --json beside markdown: the Markdown on stdout, the JSON report in the file.
    const ProcessResult both = with({"--format", "markdown", "--json", (dir / "both.json").string()});
    ASSERT_EQ(both.status, 0) << both.err;
    EXPECT_TRUE(both.out.starts_with("### repro: not reproduced (exit 0) on ")) << both.out;
    const nlohmann::json b = nlohmann::json::parse(readText(dir / "both.json"), nullptr, false);
    ASSERT_TRUE(b.is_object()) << readText(dir / "both.json");
    EXPECT_EQ(b["modes"].size(), 1u);
}

// The Markdown report names no absolute path of the reporter's machine (issue 23, item
// 1): repro is copied into a home folder ($HOME) and run from there with -o and --json
// pointing into it; the report never names that folder, and it has every heading of RADV's
// issue template in order.
TEST(MarkdownReport, NamesNoPathOfTheReportersHome) {
    TempDir home("reporter-home");
    std::filesystem::create_directories(home / "bin");
    const auto binary = home / "bin" / "repro";
    std::filesystem::copy_file(REPRO_EXECUTABLE, binary);
    std::filesystem::permissions(binary, std::filesystem::perms::owner_all);
    const std::string report = (home / "report.md").string();
    const ProcessResult r = runProcess(binary.string(),
                                       {"--preset", "tiny", "-n", "1", "--mode", "split", "--format", "markdown", "-o",
                                        report, "--json", (home / "r.json").string()},
                                       {"HOME=" + home.path().string()}, 120);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const std::string md = readText(report);
    ASSERT_FALSE(md.empty());
    EXPECT_FALSE(contains(md, home.path().string())) << md;
    // The command to rerun leaves out where the output went.
    EXPECT_TRUE(contains(md, "\nrepro --preset tiny -n 1 --mode split\n")) << md;
    size_t at = 0;
    for (const char* heading :
         {"### repro: ", "\n#### Description\n\nrepro ran ", "\n#### System information\n\n- GPU: ", "\n- Driver: ",
          "\n- Mesa version: ", "\n- Distro: ", "\n- Kernel: ", "\n#### Steps to reproduce\n\n",
          "cmake --preset release && cmake --build --preset release", "\n#### Results\n\n",
          "\n#### Does RADV_DEBUG=llvm fix it?\n\n", "\n#### Regression\n\n", "\n#### Log files\n\n"}) {
        const size_t found = md.find(heading, at);
        EXPECT_NE(found, std::string::npos) << "missing, or out of order: " << heading;
        if (found != std::string::npos) at = found;
    }
}

}  // namespace
