// --trace on the machine's driver (lavapipe in CI): the file is the Trace Event Format that
// Perfetto and chrome://tracing read (docs/trace.md), each mode's host phases nest in its
// slice, and with --timestamps every dispatch of the stream --print-stream prints is on the
// GPU track exactly once per mode, under the name --print-stream gives its bind.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

using repro::test::ProcessResult;
using repro::test::readText;
using repro::test::runRepro;
using repro::test::shown;
using repro::test::TempDir;

// Per mode ("split"), the names of its dispatches as --print-stream shows them: the
// pipeline of each vkCmdBindPipeline and the set of the vkCmdBindDescriptorSets before a
// vkCmdDispatch, "conv_t(small[0], weight, big[0], conv_params)".
std::map<std::string, std::vector<std::string>> printedDispatches(const std::vector<std::string>& args) {
    std::vector<std::string> all = args;
    all.push_back("--print-stream");
    const ProcessResult r = runRepro(all, {}, 300);
    EXPECT_EQ(r.status, 0) << shown(r);
    std::map<std::string, std::vector<std::string>> out;
    std::istringstream in(r.out);
    std::string line, mode, pipeline, set;
    const auto between = [](const std::string& text, const std::string& open, char close) {
        const size_t from = text.find(open);
        if (from == std::string::npos) return std::string();
        const size_t start = from + open.size();
        return text.substr(start, text.rfind(close) - start);
    };
    while (std::getline(in, line)) {
        if (line.starts_with("## mode ")) mode = line.substr(8, line.find(',') - 8);
        if (line.find("vkCmdBindPipeline(COMPUTE, ") != std::string::npos)
            pipeline = between(line, "vkCmdBindPipeline(COMPUTE, ", ')');
        if (line.find("vkCmdBindDescriptorSets(COMPUTE, set 0: ") != std::string::npos)
            set = between(line, "vkCmdBindDescriptorSets(COMPUTE, set 0: ", ')');
        if (line.find("vkCmdDispatch(") != std::string::npos) out[mode].push_back(pipeline + "(" + set + ")");
    }
    return out;
}

nlohmann::json readTrace(const std::filesystem::path& path) {
    return nlohmann::json::parse(readText(path), nullptr, /*allow_exceptions=*/false);
}

// The schema every event must have, and the tracks' names from the metadata events.
std::map<int, std::string> checkSchema(const nlohmann::json& j) {
    std::map<int, std::string> tracks;
    EXPECT_TRUE(j.is_object());
    EXPECT_TRUE(j["traceEvents"].is_array());
    EXPECT_EQ(j.value("displayTimeUnit", ""), "ms");
    for (const auto& e : j["traceEvents"]) {
        for (const char* key : {"name", "ph", "ts", "pid", "tid"}) EXPECT_TRUE(e.contains(key)) << key << e.dump();
        EXPECT_TRUE(e["ts"].is_number()) << e.dump();
        const std::string ph = e.value("ph", "");
        EXPECT_TRUE(ph == "X" || ph == "i" || ph == "M") << e.dump();
        if (ph == "X") {
            EXPECT_GE(e.value("dur", -1.0), 0.0) << e.dump();
        }
        if (ph == "M" && e["name"] == "thread_name") tracks[e["tid"].get<int>()] = e["args"]["name"];
    }
    return tracks;
}

double end(const nlohmann::json& e) { return e["ts"].get<double>() + e["dur"].get<double>(); }

bool within(const nlohmann::json& inner, const nlohmann::json& outer) {
    return inner["ts"].get<double>() >= outer["ts"].get<double>() && end(inner) <= end(outer);
}

TEST(Trace, EveryDispatchOfTheStreamIsOnTheGpuTrackOncePerMode) {
    TempDir dir("trace");
    const auto file = dir / "run.trace.json";
    const std::vector<std::string> args{"--preset", "tiny", "-n", "2"};
    std::vector<std::string> run = args;
    run.insert(run.end(), {"--timestamps", "--trace", file.string()});
    const ProcessResult r = runRepro(run, {}, 300);
    ASSERT_EQ(r.status, 0) << shown(r);
    const nlohmann::json j = readTrace(file);
    ASSERT_TRUE(j.is_object()) << "no JSON at " << file << "\n" << readText(file);
    const std::map<int, std::string> tracks = checkSchema(j);
    ASSERT_TRUE(tracks.contains(1) && tracks.contains(2)) << j.dump(1);
    EXPECT_TRUE(tracks.at(1).starts_with("host")) << tracks.at(1);
    EXPECT_TRUE(tracks.at(2).starts_with("GPU: ")) << tracks.at(2);

    std::map<std::string, std::vector<std::string>> onGpu;
    std::map<std::string, nlohmann::json> modeSlices;
    for (const auto& e : j["traceEvents"]) {
        if (e["ph"] == "X" && e["tid"] == 2 && e.value("cat", "") == "dispatch")
            onGpu[e["args"]["mode"].get<std::string>()].push_back(e["name"]);
        if (e["ph"] == "X" && e.value("cat", "") == "mode") modeSlices[e["args"].value("mode", "")] = e;
    }
    // Two steps, a conv-T and a slice each: 4 dispatches per mode, each once.
    const auto expected = printedDispatches(args);
    ASSERT_EQ(expected.size(), 3u);
    for (const auto& [mode, names] : expected) {
        EXPECT_EQ(names.size(), 4u) << mode;
        std::vector<std::string> got = onGpu[mode], want = names;
        std::sort(got.begin(), got.end()), std::sort(want.begin(), want.end());
        EXPECT_EQ(got, want) << "mode " << mode;
    }
    // Each mode's phases nest in its slice; with calibrated clocks, so do its dispatches.
    const bool calibrated = j["otherData"].value("gpu_clock_alignment", "").starts_with("calibrated");
    for (const auto& [mode, slice] : modeSlices) {
        std::map<std::string, int> phases;
        for (const auto& e : j["traceEvents"]) {
            if (e["ph"] != "X" || e["tid"] != 1 || !within(e, slice)) continue;
            phases[e["name"].get<std::string>().substr(0, e["name"].get<std::string>().find(' '))] += 1;
        }
        EXPECT_EQ(phases["clearing"], 1) << mode;
        EXPECT_GE(phases["recording"], 1) << mode;
        EXPECT_EQ(phases["submit"], mode == "split" ? 4 : 1) << mode;
        EXPECT_EQ(phases["readback"], 1) << mode;
        EXPECT_EQ(phases["verification"], 1) << mode;
        for (const auto& e : j["traceEvents"]) {
            if (calibrated && e["tid"] == 2 && e["ph"] == "X" && e["args"]["mode"] == mode) {
                EXPECT_TRUE(within(e, slice)) << e.dump() << " outside " << slice.dump();
            }
        }
    }
    bool setUp = false;
    for (const auto& e : j["traceEvents"]) setUp = setUp || (e["name"] == "set-up" && e["tid"] == 1);
    EXPECT_TRUE(setUp);
}

// Without --timestamps there is no GPU track, and the metadata says how to get one.
TEST(Trace, WithoutTimestampsOnlyTheHostTrackAndANote) {
    TempDir dir("trace");
    const auto file = dir / "run.trace.json";
    const ProcessResult r =
        runRepro({"--preset", "tiny", "-n", "1", "--mode", "split", "--trace", file.string()}, {}, 300);
    ASSERT_EQ(r.status, 0) << shown(r);
    const nlohmann::json j = readTrace(file);
    const std::map<int, std::string> tracks = checkSchema(j);
    EXPECT_FALSE(tracks.contains(2)) << j.dump(1);
    EXPECT_TRUE(j["otherData"].value("gpu_track", "").find("--timestamps") != std::string::npos) << j.dump(1);
}

// An unwritable --trace is a usage error before any GPU work: one line, exit 1.
TEST(Trace, AnUnwritablePathIsAUsageErrorBeforeTheRun) {
    TempDir dir("trace");
    const auto file = dir / "missing-folder" / "run.trace.json";
    const ProcessResult r = runRepro({"--preset", "tiny", "-n", "1", "--trace", file.string()}, {}, 120);
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_TRUE(r.err.starts_with("repro: --trace: cannot write '")) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace
