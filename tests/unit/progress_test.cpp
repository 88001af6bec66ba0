// Unit tests for src/children/progress.{hpp,cpp} and the protocol messages the progress line is
// drawn from (children/child_protocol.hpp: 'P' predictions, 'W' rows).
#include "children/progress.hpp"

#include <gtest/gtest.h>

#include <string>

#include "children/child_protocol.hpp"

namespace repro {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Progress, OnlyOnATerminalWithoutQuietCiOrADumbTerminal) {
    EXPECT_TRUE(progressWanted(true, false, nullptr, "xterm-256color"));
    EXPECT_TRUE(progressWanted(true, false, nullptr, nullptr));
    EXPECT_FALSE(progressWanted(false, false, nullptr, "xterm"));  // a pipe or a file
    EXPECT_FALSE(progressWanted(true, true, nullptr, "xterm"));    // -q
    EXPECT_FALSE(progressWanted(true, false, "true", "xterm"));    // CI=true
    EXPECT_FALSE(progressWanted(true, false, "", "xterm"));        // CI set, even empty
    EXPECT_FALSE(progressWanted(true, false, nullptr, "dumb"));
}

TEST(Progress, DurationsReadAsPeopleSayThem) {
    EXPECT_EQ(durationText(0.4), "0 s");
    EXPECT_EQ(durationText(9.6), "10 s");
    EXPECT_EQ(durationText(119), "119 s");
    EXPECT_EQ(durationText(245), "4 min 05 s");
    EXPECT_EQ(durationText(3720), "62 min 00 s");
    EXPECT_EQ(durationText(7380), "2 h 03 min");
    EXPECT_EQ(durationText(-3), "0 s");
}

TEST(Progress, TheLineNamesTheModeTheSubmitElapsedAndPredictedSeconds) {
    ChildProtocol p;
    p.feed("S\tmodes\tmultipass\tmode multipass: the clearing submit\n", 1.0);
    p.feed("P\tmultipass\t31.250\n", 1.5);
    p.feed("D\tsubmit 1 of 1 (all 7 steps)\n", 2.0);
    const std::string line = progressLine(p.state(), 10.0, 200);
    // 81 columns in full: the compact form.
    EXPECT_EQ(line, "repro 10 s | mode multipass, submit 1 of 1 (all 7 steps): 9 s/~31 s");
    // A prediction for another mode is not this one's.
    p.feed("S\tmodes\tsingle\tmode single: the clearing submit\n", 12.0);
    EXPECT_EQ(progressLine(p.state(), 15.0, 200), "repro 15 s | mode single: the clearing submit: 3 s");
}

TEST(Progress, RowsSayHowManyAreLeftAndEstimateTheirTime) {
    ChildProtocol p;
    p.feed("W\t1\t8\tsweep N=1\n", 2.0);
    EXPECT_EQ(progressLine(p.state(), 3.0, 200), "repro 3 s | sweep N=1: row 1 of 8, 8 left | starting");
    p.feed("W\t3\t8\tsweep N=3\n", 12.0);  // two rows took 10 s: 5 s a row
    // 6 rows left at 5 s each, 1 s of this one gone.
    EXPECT_TRUE(contains(progressLine(p.state(), 13.0, 200), "sweep N=3: row 3 of 8, 6 left, ~29 s"))
        << progressLine(p.state(), 13.0, 200);
    // Malformed rows and predictions are ignored.
    p.feed("W\t0\t8\tbad\nW\tx\t8\tbad\nW\t4\t8\nP\tsingle\tsoon\n", 14.0);
    EXPECT_EQ(p.state().row->index, 3u);
    EXPECT_FALSE(p.state().prediction);
}

TEST(Progress, TheLineNeverReachesTheLastColumn) {
    ChildProtocol p;
    p.feed("S\tmodes\tsingle\tmode single: submit 1 of 1 (all 60 steps, and a long description of them)\n", 1.0);
    p.feed("W\t2\t40\tmatrix --barrier sync2 --memory host-cached --profile blade-exact\n", 1.0);
    for (const size_t columns : {1u, 20u, 80u}) {
        EXPECT_LE(progressLine(p.state(), 5.0, columns).size(), columns > 1 ? columns - 1 : 1) << columns;
    }
}

// On any terminal, however wide, the line fits 80 columns: compacted first, then the row's
// label and what the child does cut short; the counts and the times stay whole.
TEST(Progress, TheLineFitsEightyColumnsAndKeepsItsCountsAndTimes) {
    ChildProtocol p;
    p.feed("W\t1\t40\tmatrix --barrier sync2 --memory host-cached --profile blade-exact\n", 1.0);
    p.feed("W\t2\t40\tmatrix --barrier sync2 --memory host-cached --profile blade-exact\n", 11.0);
    p.feed("S\tmodes\tmultipass\tmode multipass: the clearing submit\n", 11.0);
    p.feed("P\tmultipass\t31.250\n", 11.5);
    p.feed("D\tsubmit 1 of 1 (all 60 steps, and a long description of them)\n", 12.0);
    for (const size_t columns : {80u, 120u, 300u}) {
        const std::string line = progressLine(p.state(), 20.0, columns);
        EXPECT_LE(line.size(), 79u) << columns << ": " << line;
        EXPECT_TRUE(line.starts_with("repro 20 s | matrix --barr")) << line;
        EXPECT_TRUE(contains(line, "...: 2/40, ~6 min 21 s | mode multipass")) << line;
        EXPECT_TRUE(line.ends_with("...: 9 s/~31 s")) << line;
    }
    // A line that fits is the verbose one.
    ChildProtocol q;
    q.feed("S\tmodes\tmultipass\tmode multipass: the clearing submit\n", 1.0);
    q.feed("D\tsubmit 1 of 1 (all 7 steps)\n", 2.0);
    EXPECT_EQ(progressLine(q.state(), 10.0, 300), "repro 10 s | mode multipass, submit 1 of 1 (all 7 steps): 9 s");
    // Not cut inside a UTF-8 character.
    ChildProtocol u;
    std::string accents;
    for (int i = 0; i < 60; ++i) accents += "\xc3\xa9";  // 60 e-acute, two bytes each
    u.feed("D\t" + std::string(40, 'x') + accents + "\n", 1.0);
    const std::string cut = progressLine(u.state(), 3.0, 80);
    EXPECT_EQ(cut, "repro 3 s | " + std::string(40, 'x') + accents.substr(0, 2 * 24) + "...");
}

TEST(Progress, ALongRunOnACpuDriverSaysHowLongAndHowToMakeItQuick) {
    Options full;  // the full-size chain, every mode
    full.chainLength = 7;
    EXPECT_NEAR(cpuRunSeconds(full), 3 * 7 * kCpuConvTSeconds, 1e-6);
    const auto note = longCpuRunNote(full, /*cpuDevice=*/true);
    ASSERT_TRUE(note);
    EXPECT_TRUE(contains(*note, "about 52 min 30 s")) << *note;
    EXPECT_TRUE(contains(*note, "--preset small")) << *note;
    EXPECT_FALSE(longCpuRunNote(full, /*cpuDevice=*/false));  // a GPU
    Options small = full;
    small.shape = presetShape("small");
    EXPECT_LT(cpuRunSeconds(small), kLongCpuRunSeconds);
    EXPECT_FALSE(longCpuRunNote(small, true));
    // The split reference that runs after the modes asked for, --repeat and --sweep count.
    Options one = full;
    one.modes = {Mode::Multipass};
    EXPECT_NEAR(cpuRunSeconds(one), 2 * 7 * kCpuConvTSeconds, 1e-6);
    one.repeat = 3;
    EXPECT_NEAR(cpuRunSeconds(one), 4 * 7 * kCpuConvTSeconds, 1e-6);
    one.sweep = std::pair<uint32_t, uint32_t>{1, 3};
    EXPECT_NEAR(cpuRunSeconds(one), 4 * 6 * kCpuConvTSeconds, 1e-6);
}

}  // namespace
}  // namespace repro
