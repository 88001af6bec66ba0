// --capture-gfxr and --capture-rgp (issue 37 §2, docs/forensics.md "Captures"): a
// GFXReconstruct capture of a small run on the machine's driver (lavapipe in CI) that
// gfxrecon-info, gfxrecon-convert and gfxrecon-replay read back, the Markdown's Log files naming it; and
// --capture-rgp's answer on lavapipe (not RADV) and through the simulated driver posing as
// RADV (the wrong mode run again in a child with Mesa's trace variables). The GFXReconstruct
// tools come with the test command's set-up (scripts/install-deps): missing, the test fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bounded_process.hpp"

#if !defined(REPRO_EXECUTABLE) || !defined(REPRO_SIMDRIVER_LAYER_DIR)
#error "REPRO_EXECUTABLE and REPRO_SIMDRIVER_LAYER_DIR must be defined"
#endif

namespace {

namespace fs = std::filesystem;
using repro::test::BoundedResult;
using repro::test::describeEnd;
using repro::test::runBounded;

// No simulated driver: repro on the machine's own.
const std::vector<std::string> kPlainEnv{"VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE="};

fs::path freshDir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("repro-capture-" + std::to_string(getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// `tool` on PATH, or "" when it is not installed.
std::string onPath(const std::string& tool) {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const fs::path candidate = fs::path(dir.empty() ? "." : dir) / tool;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    return "";
}

// The lines of `text` that hold `call`.
int linesWith(const std::string& text, const std::string& call) {
    int n = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.find(call) != std::string::npos) ++n;
    }
    return n;
}

// Every mode, so that the capture holds exactly the streams --print-stream prints (with
// --mode single alone, split would run after it as the reference, unprinted).
const std::vector<std::string> kSmallRun{"--preset", "tiny", "-n", "2"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

TEST(CaptureGfxr, TheCaptureHoldsTheRunsDispatchesAndReplaysOnThisDriver) {
    std::vector<std::string> tools;
    for (const char* tool : {"gfxrecon-info", "gfxrecon-convert", "gfxrecon-replay"}) tools.push_back(onPath(tool));
    for (const std::string& tool : tools)
        ASSERT_FALSE(tool.empty()) << "gfxrecon-info, gfxrecon-convert and gfxrecon-replay must be on PATH: install "
                                      "the package gfxreconstruct (scripts/install-deps does)";
    const fs::path dir = freshDir("gfxr");
    const fs::path capture = dir / "run.gfxr";
    const BoundedResult run =
        runBounded(REPRO_EXECUTABLE,
                   with(kSmallRun, {"--capture-gfxr", capture.string(), "--format", "markdown", "-o",
                                    (dir / "r.md").string(), "--json", (dir / "r.json").string()}),
                   kPlainEnv, 300);
    ASSERT_EQ(run.status, 0) << shown(run);
    // Exactly the file asked for: no timestamp added to its name, nothing else beside it.
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"r.json", "r.md", "run.gfxr"}));
    EXPECT_NE(run.out.find("--- capture: the run's GFXReconstruct capture is " + capture.string()), std::string::npos)
        << shown(run);
    EXPECT_EQ(run.err.find("[gfxrecon] INFO"), std::string::npos) << "the layer's own chatter stays out: " << run.err;

    const BoundedResult info = runBounded(tools[0], {capture.string()}, {}, 120);
    ASSERT_EQ(info.status, 0) << shown(info);
    EXPECT_NE(info.out.find("Application name: repro"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("Total compute pipelines: 2"), std::string::npos) << "conv-T and slice\n" << info.out;
    // gfxrecon-info 0.9.18 counts draws and dispatches per frame only, and a compute run has
    // no frame: the calls are counted in gfxrecon-convert's JSON lines instead.
    const BoundedResult stream = runBounded(REPRO_EXECUTABLE, with(kSmallRun, {"--print-stream"}), kPlainEnv, 120);
    ASSERT_EQ(stream.status, 0) << shown(stream);
    const int recorded = linesWith(stream.out, "vkCmdDispatch(");
    ASSERT_EQ(recorded, 12) << "3 modes of 2 conv-T and 2 slice dispatches\n" << stream.out;
    const BoundedResult converted = runBounded(tools[1], {"--output", "stdout", capture.string()}, {}, 120);
    ASSERT_EQ(converted.status, 0) << shown(converted);
    EXPECT_EQ(linesWith(converted.out, "\"name\":\"vkCmdDispatch\""), recorded);

    // Compute only: no window system is needed (and --wsi headless would ask lavapipe for
    // VK_EXT_headless_surface, which it lacks).
    const BoundedResult replayed = runBounded(tools[2], {capture.string()}, {}, 300);
    EXPECT_EQ(replayed.status, 0) << shown(replayed);

    // The reports name it: the JSON as given, the Markdown's Log files by its file name.
    const nlohmann::json report = nlohmann::json::parse(slurp(dir / "r.json"));
    ASSERT_EQ(report["captures"].size(), 1u) << report["captures"];
    EXPECT_EQ(report["captures"][0]["tool"], "gfxreconstruct");
    EXPECT_EQ(report["captures"][0]["path"], capture.string());
    const std::string markdown = slurp(dir / "r.md");
    const size_t logFiles = markdown.find("#### Log files");
    ASSERT_NE(logFiles, std::string::npos) << markdown;
    EXPECT_NE(markdown.find("GFXReconstruct capture (--capture-gfxr): run.gfxr", logFiles), std::string::npos)
        << markdown.substr(logFiles);
    EXPECT_EQ(markdown.find(dir.string()), std::string::npos) << "the Markdown names no path of this machine";
    fs::remove_all(dir);
}

TEST(CaptureRgp, ElsewhereThanRadvOneLineSaysWhyNot) {
    const fs::path dir = freshDir("rgp-plain");
    const BoundedResult run = runBounded(
        REPRO_EXECUTABLE, with(kSmallRun, {"--capture-rgp", "--json", (dir / "r.json").string()}), kPlainEnv, 300);
    ASSERT_EQ(run.status, 0) << shown(run);
    EXPECT_TRUE(
        std::regex_search(run.out, std::regex(R"(--- capture: --capture-rgp: none taken: not RADV \(driver \w+)")))
        << shown(run);
    const nlohmann::json report = nlohmann::json::parse(slurp(dir / "r.json"));
    ASSERT_EQ(report["captures"].size(), 1u);
    EXPECT_EQ(report["captures"][0]["tool"], "rgp");
    EXPECT_TRUE(report["captures"][0]["path"].is_null());
    fs::remove_all(dir);
}

// Under --repeat a mode's role is "under test, run 1/2": its wrong runs are captured too (they
// were passed over, the note saying no mode under test was wrong).
TEST(CaptureRgp, UnderRepeatTheWrongModesAreCapturedToo) {
    const fs::path dir = freshDir("rgp-radv-repeat");
    const std::vector<std::string> env{
        std::string("VK_ADD_LAYER_PATH=") + REPRO_SIMDRIVER_LAYER_DIR, "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate",
        "REPRO_SIMULATE=identity;seed-bug:dispatches=1", "REPRO_SIMULATE_TRACE=", "TMPDIR=" + dir.string()};
    const BoundedResult run = runBounded(
        REPRO_EXECUTABLE,
        {"--preset", "tiny", "-n", "2", "--repeat", "2", "--capture-rgp", "--json", (dir / "r.json").string()}, env,
        600);
    ASSERT_EQ(run.status, 2) << shown(run);
    const std::string note = nlohmann::json::parse(slurp(dir / "r.json"))["captures"][0]["note"];
    for (const char* mode : {"multipass", "single"})
        EXPECT_NE(note.find(std::string("mode ") + mode + " (exit 2; "), std::string::npos) << note;
    fs::remove_all(dir);
}

TEST(CaptureRgp, OnRadvEachWrongModeRunsAgainInAChildUnderTheTrace) {
    const fs::path dir = freshDir("rgp-radv");
    // The simulated driver poses as RADV (identity) and drops every dispatch past the first
    // of a command buffer: multipass and single are wrong, split is right.
    const std::vector<std::string> env{
        std::string("VK_ADD_LAYER_PATH=") + REPRO_SIMDRIVER_LAYER_DIR, "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate",
        "REPRO_SIMULATE=identity;seed-bug:dispatches=1",
        "REPRO_SIMULATE_TRACE=", "TMPDIR=" + dir.string()};  // the children's logs, kept: no file appears
    const BoundedResult run =
        runBounded(REPRO_EXECUTABLE,
                   {"--preset", "tiny", "-n", "2", "--capture-rgp", "--json", (dir / "r.json").string()}, env, 600);
    ASSERT_EQ(run.status, 2) << shown(run);
    const nlohmann::json report = nlohmann::json::parse(slurp(dir / "r.json"));
    ASSERT_EQ(report["captures"].size(), 1u) << report.dump(1);
    const nlohmann::json& rgp = report["captures"][0];
    EXPECT_EQ(rgp["tool"], "rgp");
    EXPECT_EQ(rgp["path"], "/tmp") << "where Mesa writes its traces";
    // Each child's own report records the variables it ran with.
    const std::string note = rgp["note"];
    for (const char* mode : {"multipass", "single"}) {
        EXPECT_NE(note.find(std::string("mode ") + mode +
                            " (exit 2; its environment: MESA_VK_TRACE=rgp MESA_VK_TRACE_PER_SUBMIT=1)"),
                  std::string::npos)
            << note;
    }
    EXPECT_EQ(note.find("mode split"), std::string::npos) << "split was right: " << note;
    EXPECT_NE(run.out.find("--- capture: --capture-rgp: run again in a child with MESA_VK_TRACE=rgp"),
              std::string::npos)
        << shown(run);
    EXPECT_NE(note.find("no .rgp file appeared in /tmp"), std::string::npos) << "lavapipe writes none: " << note;
    EXPECT_NE(run.out.find("logs and reports kept in " + dir.string() + "/repro-rgp-"), std::string::npos)
        << shown(run);
    fs::remove_all(dir);
}

}  // namespace
