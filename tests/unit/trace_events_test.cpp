// The --trace writer (src/report/trace_events.hpp): the document's schema as Perfetto and
// chrome://tracing read it, times as microseconds that give the recorded nanoseconds back,
// the recorder's lines through the supervisor's collector, the job-timeout markers, and the
// mapping of GPU ticks onto the host clock.
#include "report/trace_events.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace repro::trace_events {
namespace {

// The recorder's lines while alive (the recorder is process-wide: detached again after).
struct Captured {
    std::vector<std::string> lines;
    Captured() {
        attach([this](const std::string& line) { lines.push_back(line); });
    }
    ~Captured() { attach(nullptr); }
};

// The document's events, its "M" metadata left out.
size_t eventCount(const TraceDocument& doc) {
    const nlohmann::json j = doc.render();
    return static_cast<size_t>(std::count_if(j["traceEvents"].begin(), j["traceEvents"].end(),
                                             [](const nlohmann::json& e) { return e["ph"] != "M"; }));
}

const nlohmann::json* findEvent(const nlohmann::json& doc, const std::string& name) {
    for (const auto& e : doc["traceEvents"])
        if (e["name"] == name) return &e;
    return nullptr;
}

TEST(TraceEvents, TheDocumentHasTheFormatsKeysAndNamesEveryTrackUsed) {
    TraceDocument doc(/*origin=*/1'000'000, /*pid=*/42, "repro 0.1.0");
    doc.add({.name = "set-up", .category = "phase", .start = 1'000'000, .duration = 2'500'000});
    doc.add({.name = "conv_t(small[0], weight, big[0], conv_params)",
             .category = "dispatch",
             .start = 2'000'000,
             .duration = 1'234,
             .track = Track::Gpu});
    doc.add({.name = "job timeout", .category = "marker", .phase = 'i', .start = 3'000'000});
    doc.setFact("gpu_clock_alignment", "approximate");
    EXPECT_TRUE(doc.addLine(R"({"track_name": 2, "value": "GPU: llvmpipe"})"));
    const nlohmann::json j = nlohmann::json::parse(doc.renderText());
    ASSERT_TRUE(j["traceEvents"].is_array());
    EXPECT_EQ(j["displayTimeUnit"], "ms");
    EXPECT_EQ(j["otherData"]["gpu_clock_alignment"], "approximate");
    std::vector<std::string> threads;
    for (const auto& e : j["traceEvents"]) {
        for (const char* key : {"name", "ph", "ts", "pid", "tid"}) EXPECT_TRUE(e.contains(key)) << key << e.dump();
        EXPECT_EQ(e["pid"], 42);
        if (e["ph"] == "M" && e["name"] == "thread_name") threads.push_back(e["args"]["name"]);
        if (e["ph"] == "M" && e["name"] == "process_name") {
            EXPECT_EQ(e["args"]["name"], "repro 0.1.0");
        }
        if (e["ph"] == "X") {
            EXPECT_GE(e["dur"].get<double>(), 0.0);
        }
        if (e["ph"] == "i") {
            EXPECT_EQ(e["s"], "t");
        }
    }
    // Host (always) and the GPU track an event used; no children's track without a child.
    EXPECT_EQ(threads, (std::vector<std::string>{"host: repro's phases", "GPU: llvmpipe"}));
    const nlohmann::json* setUp = findEvent(j, "set-up");
    ASSERT_NE(setUp, nullptr);
    EXPECT_EQ((*setUp)["ts"], 0.0);
    EXPECT_EQ((*setUp)["dur"], 2500.0);
    EXPECT_EQ((*setUp)["tid"], 1);
    const nlohmann::json* dispatch = findEvent(j, "conv_t(small[0], weight, big[0], conv_params)");
    ASSERT_NE(dispatch, nullptr);
    EXPECT_EQ((*dispatch)["tid"], 2);
    EXPECT_EQ((*dispatch)["ts"], 1000.0);
    EXPECT_EQ((*dispatch)["dur"], 1.234);
}

// A reader that multiplies ts and dur by 1000 must get the nanoseconds back exactly, or a
// slice that ends where its parent ends would poke out of it by a nanosecond.
TEST(TraceEvents, MicrosecondsGiveTheNanosecondsBackExactly) {
    for (const Nanos start : {Nanos{1}, Nanos{999}, Nanos{1'234'567'891}, Nanos{86'400'000'000'123}}) {
        TraceDocument doc(0, 1, "repro");
        doc.add({.name = "x", .category = "phase", .start = start, .duration = start / 3 + 7});
        const nlohmann::json j = nlohmann::json::parse(doc.renderText());
        const nlohmann::json* x = findEvent(j, "x");
        ASSERT_NE(x, nullptr);
        EXPECT_EQ(static_cast<Nanos>((*x)["ts"].get<double>() * 1000.0), start);
        EXPECT_EQ(static_cast<Nanos>((*x)["dur"].get<double>() * 1000.0), start / 3 + 7);
    }
}

TEST(TraceEvents, TheRecordersLinesReachTheDocumentAndJunkDoesNot) {
    Captured c;
    slice("mode split, N=2, run 1 of 1", "mode", Track::Host, 100, 400, {{"mode", "split"}});
    instant("marker", "marker", Track::Host, 250);
    fact("device", "llvmpipe");
    nameTrack(Track::Gpu, "GPU: llvmpipe, queue family 0 (--timestamps)");
    ASSERT_EQ(c.lines.size(), 4u);
    TraceDocument doc(0, 7, "repro");
    for (const auto& line : c.lines) EXPECT_TRUE(doc.addLine(line)) << line;
    EXPECT_FALSE(doc.addLine("not json"));
    EXPECT_FALSE(doc.addLine(R"({"name":"x","ph":"B","t":1,"d":0,"cat":"c","track":1})"));  // no B/E pairs
    EXPECT_FALSE(doc.addLine(R"({"name":"x","ph":"X","t":1,"d":0,"cat":"c","track":9})"));  // no such track
    EXPECT_EQ(eventCount(doc), 2u);
    const nlohmann::json j = doc.render();
    EXPECT_EQ(j["otherData"]["device"], "llvmpipe");
    const nlohmann::json* mode = findEvent(j, "mode split, N=2, run 1 of 1");
    ASSERT_NE(mode, nullptr);
    EXPECT_EQ((*mode)["dur"], 0.3);
    EXPECT_EQ((*mode)["args"]["mode"], "split");
}

TEST(TraceEvents, NothingIsSentWithoutASink) {
    attach(nullptr);
    EXPECT_FALSE(attached());
    { Span span("readback", "phase"); }  // must not crash or send
    Captured c;
    { Span span("readback", "phase"); }
    ASSERT_EQ(c.lines.size(), 1u);
    EXPECT_NE(c.lines[0].find("\"readback\""), std::string::npos);
}

// A known 500 ms job timeout: a 200 ms submit (at least a quarter of it) gets a marker at
// its start plus 500 ms; a 100 ms one does not; without a known timeout none does.
TEST(TraceEvents, LongSubmitsGetTheJobTimeoutMarker) {
    Captured c;
    setJobTimeout(0.5, "lockup_timeout");
    submitSlice("submit 1 of 1 (all 2 steps)", 1'000'000'000, 1'200'000'000, nlohmann::json::object());
    submitSlice("submit 1 of 2 (step 1 conv-T)", 2'000'000'000, 2'100'000'000, nlohmann::json::object());
    setJobTimeout(std::nullopt, "not known");
    submitSlice("submit 1 of 1 (all 9 steps)", 3'000'000'000, 9'000'000'000, nlohmann::json::object());
    TraceDocument doc(0, 1, "repro");
    for (const auto& line : c.lines) doc.addLine(line);
    const nlohmann::json j = doc.render();
    std::vector<double> markers;
    for (const auto& e : j["traceEvents"])
        if (e["ph"] == "i") markers.push_back(e["ts"].get<double>());
    EXPECT_EQ(markers, (std::vector<double>{1'500'000.0}));
    EXPECT_EQ(eventCount(doc), 4u);  // three submits, one marker
}

TEST(TraceEvents, GpuTicksMapOntoTheHostClockWithThePeriodAndTheValidBits) {
    const GpuClockPair pair{.ticks = 1000, .host = 5'000'000, .nsPerTick = 1.5};
    EXPECT_EQ(pair.toHost(1000), 5'000'000);
    EXPECT_EQ(pair.toHost(3000), 5'003'000);
    EXPECT_EQ(pair.toHost(0), 4'998'500);  // before the pair
    // A 36-bit counter that wrapped between the pair and the timestamp.
    const uint64_t mask = (uint64_t{1} << 36) - 1;
    const GpuClockPair wrapped{.ticks = mask - 9, .host = 1'000'000, .nsPerTick = 1.0, .validMask = mask};
    EXPECT_EQ(wrapped.toHost(5), 1'000'015);
    EXPECT_EQ(wrapped.toHost(mask - 19), 999'990);
}

}  // namespace
}  // namespace repro::trace_events
