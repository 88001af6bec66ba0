// The scenario model, its parser and its CPU model (core/scenario*.hpp; docs/scenarios.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/spirv_module.hpp"
#include "scenario/scenario.hpp"
#include "scenario/scenario_cpu.hpp"
#include "scenario/scenario_parse.hpp"
#include "core/sha256.hpp"

namespace repro::scenario {
namespace {

// These tests' subject is the parser and the CPU model, which runs the steps in the file's
// order whatever the barriers say; their small files leave out the barriers a GPU would need
// (the race check has its own tests: scenario_races_test.cpp).
Scenario parseModel(std::string_view text, const std::string& file, const ParameterValues& overrides = {}) {
    return parseScenario(text, file, overrides, RaceCheck::Skip);
}

const std::string kHeader = R"(name = "t"
source = "https://example.org/report"
pattern = "a test"
expected = "not reproduced"
check = ["a"]
)";

const std::string kBufferA = R"(
[[buffer]]
name = "a"
bytes = 64
init = "iota"
)";

// The one error line parseScenario gives for `text`, or "" when it parses.
std::string errorOf(const std::string& text) {
    try {
        parseModel(text, "bad.toml");
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

uint32_t word(const std::vector<uint8_t>& bytes, size_t i) {
    uint32_t w = 0;
    std::memcpy(&w, bytes.data() + i * 4, 4);
    return w;
}

TEST(ScenarioParse, AGoodFileGivesEveryField) {
    const Scenario s = parseModel(kHeader + kBufferA + R"(
[[buffer]]
name = "b"
bytes = 128
memory = "host-visible"
init = "pattern"
value = 7

[[step]]
dispatch = "copy"
bindings = ["a", "b"]
count = 10
work = 4

[[step]]
barrier = "buffer"
buffer = "b"
form = "original"
src_stage = ["compute"]
src_access = ["shader-write"]
dst_stage = ["transfer"]
dst_access = ["transfer-read"]

[[step]]
copy = "b"
from = "a"
src_offset = 1
dst_offset = 3
size = 5
)",
                                  "good.toml");
    EXPECT_EQ(s.name, "t");
    EXPECT_EQ(s.source, "https://example.org/report");
    ASSERT_EQ(s.buffers.size(), 2u);
    EXPECT_TRUE(s.buffers[0].checked);
    EXPECT_FALSE(s.buffers[1].checked);
    EXPECT_EQ(s.buffers[1].placement, Placement::HostVisible);
    EXPECT_EQ(s.buffers[1].init, InitKind::Pattern);
    ASSERT_EQ(s.steps.size(), 3u);
    const auto& d = std::get<Dispatch>(s.steps[0].body);
    EXPECT_EQ(d.kernel, Kernel::Copy);
    EXPECT_EQ(d.params.count, 10u);
    EXPECT_EQ(d.params.work, 4u);
    EXPECT_EQ(d.groups[0], 1u);
    const auto& b = std::get<Barrier>(s.steps[1].body);
    EXPECT_EQ(b.kind, BarrierKind::Buffer);
    EXPECT_FALSE(b.sync2);
    EXPECT_EQ(b.srcStage, 0x800u);
    EXPECT_EQ(b.dstAccess, 0x800u);
    EXPECT_FALSE(b.control);
    const auto& c = std::get<Copy>(s.steps[2].body);
    EXPECT_EQ(c.srcOffset, 1u);
    EXPECT_EQ(c.dstOffset, 3u);
    EXPECT_EQ(c.size, 5u);
    EXPECT_EQ(s.steps[2].label, "step 3 copy a -> b");
    EXPECT_EQ(s.steps[2].place.line, 34u);
}

TEST(ScenarioParse, ExecutionOnlyAndNoneAreLabelledControls) {
    const Scenario s = parseModel(kHeader + kBufferA + R"(
[[step]]
barrier = "none"
[[step]]
barrier = "execution-only"
src_stage = ["compute"]
dst_stage = ["compute"]
)",
                                  "c.toml");
    EXPECT_TRUE(std::get<Barrier>(s.steps[0].body).control);
    EXPECT_TRUE(std::get<Barrier>(s.steps[1].body).control);
    EXPECT_TRUE(s.hasControl());
    EXPECT_NE(s.steps[0].label.find("(control)"), std::string::npos);
}

// Each class of bad file: one line, FILE:LINE:COLUMN, what is wrong and what was expected.
TEST(ScenarioParse, SyntaxErrorGivesFileLineColumn) {
    EXPECT_EQ(errorOf(kHeader + "bytes = = 4\n").substr(0, 14), "bad.toml:6:9: ");
    EXPECT_NE(errorOf(kHeader + "bytes = = 4\n").find("TOML syntax"), std::string::npos);
}

TEST(ScenarioParse, UnknownKernel) {
    const std::string e = errorOf(kHeader + kBufferA + "\n[[step]]\ndispatch = \"conv\"\nbindings = [\"a\"]\n");
    EXPECT_EQ(e,
              "bad.toml:13:12: unknown kernel 'conv'; expected increment, copy, noop, compare-swap, "
              "private-array, work, indirect-writer, conv-t, slice, image-increment or image-copy");
}

// blade #356's kernels: their groups come from the file's shape (core/shape.hpp, preset small:
// small 30720 bytes, weight 12288, big 73472; conv-T 6x1x16 workgroups, slice 30x1x1), the
// chain-input/-weight inits are the built-in chain's data, and the CPU model leaves their
// output to split.
const std::string kChainHeader = R"(name = "t"
source = "s"
pattern = "p"
expected = "not reproduced"
shape = "small"
check = ["out"]
[[buffer]]
name = "in"
bytes = 30720
init = "chain-input"
[[buffer]]
name = "w"
bytes = 12288
init = "chain-weight"
[[buffer]]
name = "big"
bytes = 73472
[[buffer]]
name = "out"
bytes = 30720
)";

TEST(ScenarioParse, ConvTAndSliceTakeTheirGroupsAndDataFromTheShape) {
    Scenario s = parseModel(kChainHeader + R"([[step]]
dispatch = "conv-t"
bindings = ["in", "w", "big"]
[[step]]
barrier = "blade-c"
modes = ["single"]
[[step]]
dispatch = "slice"
bindings = ["big", "out"]
)",
                            "chain.toml");
    ASSERT_TRUE(s.shape.has_value());
    EXPECT_EQ(s.shapeName, "small");
    const auto& conv = std::get<Dispatch>(s.steps[0].body);
    EXPECT_EQ(conv.kernel, Kernel::ConvT);
    EXPECT_EQ((std::array<uint32_t, 3>{conv.groups[0], conv.groups[1], conv.groups[2]}),
              (std::array<uint32_t, 3>{6, 1, 16}));
    const auto& slice = std::get<Dispatch>(s.steps[2].body);
    EXPECT_EQ(slice.groups[0], 30u);
    EXPECT_EQ(s.steps[1].modeMask, 4u);
    EXPECT_EQ(s.steps[1].label, "step 2 barrier blade-c (single only)");
    EXPECT_EQ(s.steps[0].modeMask, 7u);
    // the parse leaves the chain's data to fillChainWords (a run makes it while the driver
    // creates the device): reading it before is a logic error, not zeros
    EXPECT_TRUE(s.buffers[0].words.empty());
    EXPECT_THROW((void)initialWords(s.buffers[0]), std::logic_error);
    fillChainWords(std::span<Scenario* const>({&s}));
    // input word 1 is sinf(0.001) + 1 as float bits; weight word 1 cosf(0.01) * 0.05
    const auto in = initialWords(s.buffers[0]);
    float f = 0;
    std::memcpy(&f, &in[1], 4);
    EXPECT_EQ(f, sinf(0.001f) + 1.0f);
    std::memcpy(&f, &initialWords(s.buffers[1])[1], 4);
    EXPECT_EQ(f, cosf(0.01f) * 0.05f);
    EXPECT_EQ(unmodelledBuffers(s), (std::set<std::string>{"big", "out"}));
    // a correct device's model leaves them as they were: split is their reference
    Contents c = initialContents(s);
    for (const auto& step : s.steps) applyStep(step, c);
    EXPECT_EQ(c.at("out"), std::vector<uint8_t>(30720, 0));
}

// A --sweep's variants: each gets its shape's words, made once and copied; a buffer that has
// its words already keeps them.
TEST(ScenarioParse, FillChainWordsGivesEveryScenarioItsShapesWords) {
    Scenario a =
        parseModel(kChainHeader + "[[step]]\ndispatch = \"conv-t\"\nbindings = [\"in\", \"w\", \"big\"]\n", "a.toml");
    Scenario b = a;
    Scenario kept = a;
    kept.buffers[1].words = {7};
    fillChainWords(std::span<Scenario* const>({&a, &b, &kept}));
    EXPECT_EQ(a.buffers[0].words.size(), 30720u / 4);
    EXPECT_EQ(a.buffers[1].words.size(), 12288u / 4);
    EXPECT_EQ(b.buffers[0].words, a.buffers[0].words);
    EXPECT_EQ(b.buffers[1].words, a.buffers[1].words);
    EXPECT_EQ(kept.buffers[0].words, a.buffers[0].words);
    EXPECT_EQ(kept.buffers[1].words, std::vector<uint32_t>{7});
    EXPECT_TRUE(a.buffers[2].words.empty());  // big: init zero, no words
}

// memory = "shared" (blade's Shared class) is mapped: a host point may name it; an unknown
// placement lists the three.
TEST(ScenarioParse, SharedMemoryIsAMappedPlacement) {
    const Scenario s = parseModel(kHeader + kBufferA + R"(
[[buffer]]
name = "s"
bytes = 16
memory = "shared"
[[step]]
host_write = "s"
words = [1]
[[step]]
host_read = "s"
)",
                                  "shared.toml");
    EXPECT_EQ(s.buffers[1].placement, Placement::Shared);
    EXPECT_EQ(name(s.buffers[1].placement), "shared");
    EXPECT_EQ(errorOf(kHeader + kBufferA + "[[buffer]]\nname = \"x\"\nbytes = 4\nmemory = \"bar\"\n"),
              "bad.toml:14:10: unknown memory 'bar'; expected device-local, host-visible or shared");
}

// The matrix's work factor lengthens every dispatch that takes work, at most kMaxWork, but the
// work kernel's (its work is what it writes), the indirect-writer's and conv-t's and slice's; workSteps counts what
// --submit-every cuts (dispatches and transfers, not barriers or host points).
TEST(ScenarioMatrixFactors, MultiplyWorkAndWorkSteps) {
    Scenario s = parseModel(kHeader + kBufferA + R"(
[[buffer]]
name = "h"
bytes = 64
memory = "host-visible"
[[step]]
dispatch = "increment"
bindings = ["a"]
work = 3
[[step]]
barrier = "blade-g"
[[step]]
dispatch = "work"
bindings = ["a"]
work = 5
[[step]]
fill = "a"
value = 1
[[step]]
dispatch = "copy"
bindings = ["a", "h"]
work = 600000
[[step]]
host_read = "h"
[[step]]
dispatch = "indirect-writer"
bindings = ["h"]
)",
                            "w.toml");
    EXPECT_EQ(workSteps(s), 5u);
    const Contents before = runCpuModel(s);
    EXPECT_EQ(multiplyWork(s, 4), 2u);
    EXPECT_EQ(std::get<Dispatch>(s.steps[0].body).params.work, 12u);
    EXPECT_EQ(std::get<Dispatch>(s.steps[2].body).params.work, 5u);  // the work kernel's is its output
    EXPECT_EQ(std::get<Dispatch>(s.steps[4].body).params.work, kMaxWork);
    EXPECT_EQ(runCpuModel(s), before);  // the same bytes written
    EXPECT_EQ(multiplyWork(s, 4), 1u);  // the copy is at kMaxWork already; the writer has no work loop
    EXPECT_EQ(std::get<Dispatch>(s.steps[6].body).params.work, 1u);
}

// --triage's memory experiment moves every buffer but those a host point names (they must stay
// mapped), and says when it moved none.
TEST(ScenarioTriage, ReplacePlacementsLeavesHostPointBuffersAndCountsTheMoves) {
    Scenario s = parseModel(kHeader + kBufferA + R"(
[[buffer]]
name = "h"
bytes = 16
memory = "host-visible"
[[buffer]]
name = "v"
bytes = 16
memory = "host-visible"
[[step]]
host_write = "h"
words = [1]
[[step]]
copy = "v"
from = "h"
)",
                            "t.toml");
    EXPECT_EQ(replacePlacements(s, Placement::DeviceLocal), 1u);  // v; h is a host point's
    EXPECT_EQ(s.buffer("v")->placement, Placement::DeviceLocal);
    EXPECT_EQ(s.buffer("h")->placement, Placement::HostVisible);
    EXPECT_EQ(replacePlacements(s, Placement::DeviceLocal), 0u);
    EXPECT_EQ(replacePlacements(s, Placement::HostVisible), 2u);  // a and v
}

TEST(ScenarioParse, ConvTAndSliceErrorsNameTheirField) {
    EXPECT_EQ(errorOf(kChainHeader + "[[step]]\ndispatch = \"conv-t\"\nbindings = [\"in\", \"w\", \"out\"]\n"),
              "bad.toml:23:24: conv-t's output 'out' has 30720 bytes; shape 'small' needs 73472 (its big tensor)");
    EXPECT_EQ(errorOf(kChainHeader + "[[step]]\ndispatch = \"slice\"\nbindings = [\"big\", \"out\"]\ncount = 3\n"),
              "bad.toml:24:9: unknown key 'count' in a slice dispatch (its parameters and workgroups come from the "
              "file's shape); expected one of: dispatch, bindings");
    EXPECT_EQ(errorOf(kHeader + "shape = \"huge\"\n" + kBufferA + "[[step]]\nfill = \"a\"\n"),
              "bad.toml:6:9: unknown shape 'huge'; expected small, tiny or spectrostream (--preset's names)");
    EXPECT_EQ(errorOf(kHeader + kBufferA + "[[buffer]]\nname = \"x\"\nbytes = 4\ninit = \"chain-input\"\n"),
              "bad.toml:14:8: init = \"chain-input\" takes the file's shape; expected shape = \"small\" (or tiny, "
              "spectrostream) at the top of the file");
    EXPECT_EQ(errorOf(kHeader + kBufferA + "[[step]]\nbarrier = \"blade-c\"\nmodes = [\"all\"]\n"),
              "bad.toml:13:9: unknown mode 'all' in 'modes'; expected split, multipass or single");
}

TEST(ScenarioParse, BindingsThatDoNotMatchTheKernel) {
    const std::string e = errorOf(kHeader + kBufferA + "\n[[step]]\ndispatch = \"copy\"\nbindings = [\"a\"]\n");
    EXPECT_EQ(e, "bad.toml:14:12: kernel copy takes 2 binding(s) (src, dst); got 1");
    const std::string unknown =
        errorOf(kHeader + kBufferA + "\n[[step]]\ndispatch = \"increment\"\nbindings = [\"zz\"]\n");
    EXPECT_EQ(unknown, "bad.toml:14:13: binding 'zz' is no buffer");
}

TEST(ScenarioParse, SizesPastTheLimits) {
    const std::string big = errorOf(kHeader + "[[buffer]]\nname = \"a\"\nbytes = 134217732\n");
    EXPECT_EQ(big, "bad.toml:8:9: 'bytes' = 134217732 is out of range; expected 0..134217728");
    const std::string groups =
        errorOf(kHeader + kBufferA + "\n[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\ngroups = [65536]\n");
    EXPECT_EQ(groups, "bad.toml:15:10: workgroup count 65536 is out of range; expected 1..65535");
    const std::string range = errorOf(kHeader + kBufferA + "\n[[step]]\nfill = \"a\"\noffset = 60\nsize = 8\n");
    EXPECT_EQ(range.substr(0, 14), "bad.toml:12:1:");
    EXPECT_NE(range.find("not inside buffer 'a' (64 bytes)"), std::string::npos) << range;
}

TEST(ScenarioParse, ABufferReadBeforeItIsWritten) {
    const std::string e = errorOf(kHeader + kBufferA + R"(
[[buffer]]
name = "u"
bytes = 64
init = "undefined"

[[step]]
dispatch = "copy"
bindings = ["u", "a"]
)");
    EXPECT_EQ(e,
              "bad.toml:17:1: step 1 dispatch copy reads buffer 'u' before any step writes it (its init is "
              "\"undefined\"); expected a write first or an init");
}

TEST(ScenarioParse, UnknownKeysAndMissingFields) {
    EXPECT_EQ(errorOf(kHeader + kBufferA + "colour = 3\n"),
              "bad.toml:11:10: unknown key 'colour' in a [[buffer]]; expected one of: name, bytes, memory, init, "
              "value, words, sharing, ownership_transfers");
    EXPECT_EQ(errorOf(kHeader + kBufferA).substr(0, 13), "bad.toml:1:1:");
    EXPECT_EQ(errorOf(kHeader + kBufferA + "\n[[step]]\nbarrier = \"memory\"\n"),
              "bad.toml:12:1: a memory barrier needs src_stage and dst_stage; expected e.g. src_stage = "
              "[\"compute\"]");
}

TEST(ScenarioParse, AFileThatCannotBeRead) { EXPECT_THROW(loadScenario("/nonexistent/x.toml"), UsageError); }

TEST(ScenarioParse, EveryShippedScenarioParses) {
    size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(REPRO_SOURCE_DIR "/scenarios")) {
        if (entry.path().extension() != ".toml") continue;
        const Scenario s = loadScenario(entry.path().string());
        EXPECT_FALSE(s.source.empty()) << entry.path();
        EXPECT_EQ(s.expected, "not reproduced") << entry.path();
        ++n;
    }
    EXPECT_GE(n, 2u);
}

TEST(ScenarioInit, EachKindOfInitialContents) {
    BufferSpec b{.name = "x", .bytes = 16};
    b.init = InitKind::Iota;
    b.value = 5;
    EXPECT_EQ(initialWords(b), (std::vector<uint32_t>{5, 6, 7, 8}));
    b.init = InitKind::Pattern;
    EXPECT_EQ(initialWords(b), (std::vector<uint32_t>{5, 5, 5, 5}));
    b.init = InitKind::Host;
    b.words = {1, 2, 3};
    EXPECT_EQ(initialWords(b), (std::vector<uint32_t>{1, 2, 3, 1}));
    b.init = InitKind::Random;
    b.value = 1;
    // xorshift32 from 1: 1 ^ 1<<13 = 8193; ^ >>17 = 8193; ^ <<5 = 270369.
    EXPECT_EQ(initialWords(b)[0], 270369u);
    EXPECT_EQ(randomWords(0, 1), randomWords(1, 1));
}

TEST(ScenarioCpu, IncrementsCopiesAndTransfersExactly) {
    const Scenario s = parseModel(kHeader + kBufferA + R"(
[[buffer]]
name = "b"
bytes = 64
init = "zero"

[[step]]
dispatch = "increment"
bindings = ["a"]
add = 4294967295
count = 8

[[step]]
fill = "b"
offset = 4
size = 8
value = 9

[[step]]
update = "b"
offset = 60
words = [77]

[[step]]
copy = "b"
from = "a"
src_offset = 1
dst_offset = 33
size = 3

[[step]]
dispatch = "copy"
bindings = ["a", "b"]
count = 1
)",
                                  "cpu.toml");
    const Contents c = runCpuModel(s);
    const auto& a = c.at("a");
    EXPECT_EQ(word(a, 0), 0xffffffffu);  // 0 + (2^32 - 1), wrapping
    EXPECT_EQ(word(a, 7), 6u);           // 7 - 1
    EXPECT_EQ(word(a, 8), 8u);           // past count: untouched
    const auto& b = c.at("b");
    EXPECT_EQ(word(b, 0), 0xffffffffu);  // the copy kernel's one word
    EXPECT_EQ(word(b, 1), 9u);
    EXPECT_EQ(word(b, 2), 9u);
    EXPECT_EQ(word(b, 3), 0u);
    EXPECT_EQ(word(b, 15), 77u);
    // bytes 33..35 from a's bytes 1..3: a's word 0 is 0xffffffff after the increment.
    EXPECT_EQ(b[32], 0u);
    EXPECT_EQ(b[33], 0xffu);
    EXPECT_EQ(b[35], 0xffu);
    EXPECT_EQ(b[36], 0u);
}

TEST(ScenarioCpu, TheWorkCountChangesNothingWritten) {
    const std::string steps = "\n[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\nwork = ";
    EXPECT_EQ(runCpuModel(parseModel(kHeader + kBufferA + steps + "1\n", "w.toml")),
              runCpuModel(parseModel(kHeader + kBufferA + steps + "1000\n", "w.toml")));
}

TEST(ScenarioCpu, ADispatchSmallerThanCountCoversOnlyItsInvocations) {
    BufferSpec a{.name = "a", .bytes = 4 * 100, .init = InitKind::Zero, .checked = true};
    Scenario s{.buffers = {a}};
    Dispatch d{.kernel = Kernel::Increment, .bindings = {"a"}, .params = {.count = 100}};
    d.groups[0] = 1;  // 64 invocations
    s.steps.push_back({.body = d});
    const Contents c = runCpuModel(s);
    EXPECT_EQ(word(c.at("a"), 63), 1u);
    EXPECT_EQ(word(c.at("a"), 64), 0u);
}

// The kernels of the second slice: compare-swap, private-array, work (scenario/scenario.hpp).

// One compare-swap step on `words` with `phase`, through the CPU model.
std::vector<uint32_t> compareSwapStep(const std::vector<uint32_t>& words, uint32_t phase) {
    BufferSpec a{.name = "a", .bytes = 4 * words.size(), .init = InitKind::Host, .words = words, .checked = true};
    Scenario s{.buffers = {a}};
    Dispatch d{.kernel = Kernel::CompareSwap, .bindings = {"a"}};
    d.params.count = static_cast<uint32_t>(words.size());
    d.params.add = phase;
    d.groups[0] = 1;
    s.steps.push_back({.body = d});
    const auto bytes = runCpuModel(s).at("a");
    std::vector<uint32_t> out(words.size());
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

TEST(ScenarioCpu, ACompareSwapStepSwapsOnlyTheOutOfOrderPairsOfItsPhase) {
    EXPECT_EQ(compareSwapStep({4, 3, 2, 1, 0}, 0), (std::vector<uint32_t>{3, 4, 1, 2, 0}));  // (0,1), (2,3)
    EXPECT_EQ(compareSwapStep({4, 3, 2, 1, 0}, 1), (std::vector<uint32_t>{4, 2, 3, 0, 1}));  // (1,2), (3,4)
    EXPECT_EQ(compareSwapStep({1, 2, 2, 3}, 0), (std::vector<uint32_t>{1, 2, 2, 3}));        // in order: kept
}

TEST(ScenarioCpu, ACompareSwapNetworkOfNStepsSorts) {
    const uint32_t n = 100;
    BufferSpec a{.name = "a", .bytes = 4 * n, .init = InitKind::Random, .value = 7, .checked = true};
    Scenario s{.buffers = {a}};
    for (uint32_t step = 0; step < n; ++step) {
        Dispatch d{.kernel = Kernel::CompareSwap, .bindings = {"a"}, .params = {.count = n, .add = step % 2}};
        d.groups[0] = 1;
        s.steps.push_back({.body = d});
    }
    const auto bytes = runCpuModel(s).at("a");
    std::vector<uint32_t> got(n);
    std::memcpy(got.data(), bytes.data(), bytes.size());
    auto want = randomWords(7, n);
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
    s.steps.resize(1);  // one step alone does not sort it
    EXPECT_NE(runCpuModel(s).at("a"), bytes);
}

TEST(ScenarioCpu, ThePrivateArrayWordByHand) {
    // One word, input 5: fill x = 5 * 1664525 + 1013904223 = 1022226848, arr[0] = x ^ 0.
    // Mix j = 0: v = 1022226848, k = 0, old = v, arr[0] = v + (v ^ 5) = 2044453701,
    // acc = 5 * 31 + old = 1022227003. Result acc ^ arr[0].
    EXPECT_EQ(privateArrayWord(5, 1), 1022227003u ^ 2044453701u);
    // Two words, input 5: fill arr = {1022226848, 3144284287 ^ 1 = 3144284286}.
    // j = 0: v = 1022226848, k = 0 (even), arr[0] = 2044453701, acc = 1022227003.
    // j = 1: v = 3144284286, k = 0, old = 2044453701, arr[0] = old + (v ^ acc) mod 2^32 = 23063946,
    // acc = 1022227003 * 31 + 2044453701 mod 2^32 = 3668719722. Result acc ^ arr[acc % 2 = 0].
    EXPECT_EQ(privateArrayWord(5, 2), 3668719722u ^ 23063946u);
}

TEST(ScenarioCpu, TheWorkKernelWritesItsHashIterated) {
    EXPECT_EQ(workWord(123, 0), 123u);
    EXPECT_EQ(workWord(0, 1), 1013904223u ^ (1013904223u >> 13));
    EXPECT_EQ(workWord(7, 3), workWord(workWord(7, 2), 1));
    const Scenario s = parseModel(kHeader + kBufferA + R"(
[[step]]
dispatch = "work"
bindings = ["a"]
work = 3
count = 2
)",
                                  "w.toml");
    const Contents c = runCpuModel(s);
    const auto& a = c.at("a");
    EXPECT_EQ(word(a, 1), workWord(1, 3));  // iota from 0: word 1 was 1
    EXPECT_EQ(word(a, 2), 2u);              // past count: untouched
}

// Past 65536 words the work and private-array kernels run in chunks on the thread pool: every
// word, the last chunk's partial one included, equals the word-by-word result, and words past
// `count` stay as they were.
TEST(ScenarioCpu, ManyWordsInChunksEqualTheWordByWordResult) {
    const Scenario s = parseModel(R"(name = "t"
source = "https://example.org/report"
pattern = "a test"
expected = "not reproduced"
check = ["a", "out"]

[[buffer]]
name = "a"
bytes = 800000
init = "iota"

[[buffer]]
name = "out"
bytes = 800000

[[step]]
dispatch = "work"
bindings = ["a"]
work = 5
count = 199999

[[step]]
dispatch = "private-array"
bindings = ["a", "out"]
private_words = 3
)",
                                  "chunks.toml");
    const Contents c = runCpuModel(s);
    const auto& a = c.at("a");
    const auto& out = c.at("out");
    for (uint32_t i = 0; i < 200000; ++i) {
        const uint32_t want = i < 199999 ? workWord(i, 5) : i;
        ASSERT_EQ(word(a, i), want) << i;
        ASSERT_EQ(word(out, i), privateArrayWord(want, 3)) << i;
    }
}

TEST(ScenarioCpu, PrivateArrayWritesEachWordOfDst) {
    const Scenario s = parseModel(kHeader + kBufferA + R"(
[[buffer]]
name = "out"
bytes = 64
init = "undefined"

[[step]]
dispatch = "private-array"
bindings = ["a", "out"]
private_words = 200
)",
                                  "p.toml");
    EXPECT_EQ(std::get<Dispatch>(s.steps[0].body).privateWords, 200u);
    const Contents c = runCpuModel(s);
    const auto& out = c.at("out");
    for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(word(out, i), privateArrayWord(i, 200)) << i;
}

TEST(ScenarioParse, TheNewKernelsBindingsAndWhatTheyReadAndWrite) {
    EXPECT_EQ(kernelBindings(Kernel::CompareSwap), (std::vector<std::string_view>{"data"}));
    EXPECT_EQ(kernelBindings(Kernel::PrivateArray), (std::vector<std::string_view>{"src", "dst"}));
    EXPECT_EQ(kernelBindings(Kernel::Work), (std::vector<std::string_view>{"data"}));
    EXPECT_TRUE(kernelReads(Kernel::CompareSwap, 0) && kernelWrites(Kernel::CompareSwap, 0));
    EXPECT_TRUE(kernelReads(Kernel::Work, 0) && kernelWrites(Kernel::Work, 0));
    EXPECT_TRUE(kernelReads(Kernel::PrivateArray, 0) && !kernelWrites(Kernel::PrivateArray, 0));
    EXPECT_TRUE(!kernelReads(Kernel::PrivateArray, 1) && kernelWrites(Kernel::PrivateArray, 1));
    for (const char* k : {"compare-swap", "private-array", "work"}) EXPECT_EQ(name(*parseKernel(k)), k);
}

const std::string kSwap = "\n[[step]]\ndispatch = \"compare-swap\"\nbindings = [\"a\"]\n";
const std::string kPrivate = "\n[[step]]\ndispatch = \"private-array\"\nbindings = [\"a\", \"a\"]\n";

TEST(ScenarioParse, ABadPhaseIsOneLine) {
    EXPECT_EQ(errorOf(kHeader + kBufferA + kSwap + "phase = 2\n"),
              "bad.toml:15:9: compare-swap's 'phase' must be 0, 1 or \"alternate\" (the repetition's parity)");
    EXPECT_EQ(errorOf(kHeader + kBufferA + kSwap),
              "bad.toml:12:1: a compare-swap dispatch has no 'phase'; expected phase = 0, 1 or \"alternate\"");
    EXPECT_EQ(errorOf(kHeader + kBufferA + "\n[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\nphase = 1\n"),
              "bad.toml:15:9: 'phase' is a compare-swap key; kernel increment takes none");
    EXPECT_EQ(errorOf(kHeader + kBufferA + kSwap + "phase = 0\nadd = 3\n"),
              "bad.toml:16:7: compare-swap takes 'phase', not 'add'");
}

TEST(ScenarioParse, AWrongPrivateWordsIsOneLine) {
    const std::string range =
        "bad.toml:15:17: 'private_words' must be an integer from 1 to 4096 (32-bit words per "
        "invocation)";
    EXPECT_EQ(errorOf(kHeader + kBufferA + kPrivate + "private_words = 0\n"), range);
    EXPECT_EQ(errorOf(kHeader + kBufferA + kPrivate + "private_words = 4097\n"), range);
    EXPECT_EQ(errorOf(kHeader + kBufferA + kPrivate + "private_words = \"big\"\n"), range);
    EXPECT_EQ(errorOf(kHeader + kBufferA + kPrivate),
              "bad.toml:12:1: a private-array dispatch has no 'private_words'; expected e.g. private_words = 256");
    EXPECT_EQ(errorOf(kHeader + kBufferA + kSwap + "phase = 0\nprivate_words = 8\n"),
              "bad.toml:16:17: 'private_words' is a private-array key; kernel compare-swap takes none");
}

// repeat = K on a step, and groups: repeat = K with [[step.steps]] (docs/scenarios.md "Repeats").
const std::string kSortGroup = R"(
[[step]]
repeat = 16

[[step.steps]]
dispatch = "compare-swap"
bindings = ["a"]
phase = "alternate"

[[step.steps]]
barrier = "memory"
src_stage = ["compute"]
src_access = ["shader-storage-write"]
dst_stage = ["compute"]
dst_access = ["shader-storage-read", "shader-storage-write"]
)";

TEST(ScenarioRepeat, AGroupRepeatsItsStepsInOrderWithTheRepetitionInTheLabel) {
    const Scenario s = parseModel(kHeader + kBufferA + kSortGroup, "g.toml");
    ASSERT_EQ(s.steps.size(), 32u);
    for (uint32_t r = 0; r < 16; ++r) {
        const auto& d = std::get<Dispatch>(s.steps[2 * r].body);
        EXPECT_EQ(d.params.add, r % 2) << r;  // the phase alternates 0, 1, 0, ...
        EXPECT_TRUE(std::holds_alternative<Barrier>(s.steps[2 * r + 1].body));
    }
    EXPECT_EQ(s.steps[2].label, "step 3 dispatch compare-swap (repetition 2 of 16)");
    EXPECT_EQ(s.steps[31].label, "step 32 barrier memory (repetition 16 of 16)");
    EXPECT_EQ(s.steps[2].place.line, 15u);  // the [[step.steps]] table's line
}

TEST(ScenarioRepeat, SixteenAlternatingCompareSwapsSortSixteenWords) {
    BufferSpec b{.name = "a", .bytes = 64, .init = InitKind::Random, .value = 3};
    const std::string text =
        kHeader + "\n[[buffer]]\nname = \"a\"\nbytes = 64\ninit = \"random\"\nvalue = 3\n" + kSortGroup;
    const auto bytes = runCpuModel(parseModel(text, "sort.toml")).at("a");
    std::vector<uint32_t> got(16);
    std::memcpy(got.data(), bytes.data(), 64);
    auto want = initialWords(b);
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
}

TEST(ScenarioRepeat, ARepeatOnOneStepCopiesIt) {
    const Scenario s = parseModel(
        kHeader + kBufferA + "\n[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\nrepeat = 3\n", "r.toml");
    ASSERT_EQ(s.steps.size(), 3u);
    EXPECT_EQ(s.steps[0].label, "step 1 dispatch increment (repetition 1 of 3)");
    EXPECT_EQ(word(runCpuModel(s).at("a"), 5), 8u);  // iota 5, three increments
}

TEST(ScenarioRepeat, BadRepeatsAreOneLine) {
    const std::string inc = "\n[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\n";
    EXPECT_EQ(errorOf(kHeader + kBufferA + inc + "repeat = 0\n"), "bad.toml:15:10: 'repeat' must be 1..65536");
    EXPECT_EQ(errorOf(kHeader + kBufferA + inc + "repeat = 65537\n"), "bad.toml:15:10: 'repeat' must be 1..65536");
    EXPECT_EQ(errorOf(kHeader + kBufferA + "\n[[step]]\nrepeat = 40000\n[[step.steps]]" + inc.substr(9) +
                      "[[step.steps]]" + inc.substr(9)),
              "bad.toml:13:10: the steps repeated come to more than 65536 steps; expected fewer");
    EXPECT_EQ(errorOf(kHeader + kBufferA + "\n[[step]]\nrepeat = 2\n[[step.steps]]" + inc.substr(9) + "repeat = 2\n"),
              "bad.toml:17:10: a step inside a group has no 'repeat' or 'steps' of its own; groups do not nest");
    EXPECT_EQ(errorOf(kHeader + kBufferA + "\n[[step]]\n[[step.steps]]" + inc.substr(9)),
              "bad.toml:12:1: a group [[step]] has no 'repeat'; expected repeat = 2 or more");
    EXPECT_EQ(errorOf(kHeader + kBufferA + kSwap + "phase = \"alternate\"\n"),
              "bad.toml:12:1: phase = \"alternate\" needs a repeat; expected repeat = 2 or more, or phase = 0 or 1");
}

// The shipped taichi #3791 file: its 256 compare-swap steps sort its 256 random words.
TEST(ScenarioRepeat, TheShippedOddEvenSortFileSortsItsBuffer) {
    const Scenario s = loadScenario(REPRO_SOURCE_DIR "/scenarios/taichi-3791-odd-even-sort.toml");
    EXPECT_EQ(s.steps.size(), 512u);
    const auto bytes = runCpuModel(s).at("data");
    std::vector<uint32_t> got(bytes.size() / 4);
    std::memcpy(got.data(), bytes.data(), bytes.size());
    auto want = initialWords(*s.buffer("data"));
    EXPECT_NE(got, want);
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
}

// --barrier on a scenario: every barrier step replaced, masks and labels as documented
// (docs/scenarios.md "--barrier and --repeat on a scenario").
TEST(ScenarioBarrierOption, EveryBarrierStepIsReplacedAndLabelled) {
    const std::string text = kHeader + kBufferA + R"(
[[step]]
dispatch = "increment"
bindings = ["a"]
[[step]]
barrier = "memory"
src_stage = ["compute"]
src_access = ["shader-storage-write"]
dst_stage = ["transfer"]
dst_access = ["transfer-read"]
[[step]]
barrier = "blade-g"
)";
    Scenario full = parseModel(text, "b.toml");
    EXPECT_EQ(replaceBarriers(full, repro::BarrierKind::Full), "");
    for (const size_t i : {1u, 2u}) {
        const auto& b = std::get<Barrier>(full.steps[i].body);
        EXPECT_EQ(b.kind, BarrierKind::Memory);
        EXPECT_TRUE(b.sync2);
        EXPECT_EQ(b.srcStage, 0x10000u);  // ALL_COMMANDS
        EXPECT_EQ(b.dstStage, 0x10000u);
        EXPECT_EQ(b.srcAccess, 0x10000u);  // MEMORY_WRITE
        EXPECT_EQ(b.dstAccess, 0x18000u);  // MEMORY_READ | MEMORY_WRITE
        EXPECT_FALSE(b.control);
    }
    EXPECT_EQ(full.steps[1].label, "step 2 barrier memory (--barrier full)");
    EXPECT_EQ(std::get<Dispatch>(full.steps[0].body).kernel, Kernel::Increment);  // other steps stay

    Scenario exec = parseModel(text, "b.toml");
    EXPECT_EQ(replaceBarriers(exec, repro::BarrierKind::ExecutionOnly), "");
    const auto& own = std::get<Barrier>(exec.steps[1].body);
    EXPECT_EQ(own.kind, BarrierKind::ExecutionOnly);
    EXPECT_EQ(own.srcStage, 0x800u);   // the step's own COMPUTE_SHADER
    EXPECT_EQ(own.dstStage, 0x1000u);  // and TRANSFER
    EXPECT_EQ(own.srcAccess | own.dstAccess, 0u);
    EXPECT_EQ(std::get<Barrier>(exec.steps[2].body).srcStage, 0x10000u);  // blade's G: ALL_COMMANDS
    EXPECT_TRUE(exec.hasControl());
    EXPECT_EQ(exec.steps[1].label, "step 2 barrier execution-only (control) (--barrier execution-only)");

    Scenario none = parseModel(text, "b.toml");
    EXPECT_EQ(replaceBarriers(none, repro::BarrierKind::None), "");
    EXPECT_EQ(std::get<Barrier>(none.steps[2].body).kind, BarrierKind::None);
    EXPECT_FALSE(none.usesSync2());

    Scenario refused = parseModel(text, "b.toml");
    EXPECT_EQ(replaceBarriers(refused, repro::BarrierKind::Buffer),
              "--barrier buffer does not apply to a scenario, whose barriers name their own masks; expected blade, "
              "full, execution-only or none");
}

// lastWriter: the step whose write a byte holds last, by the CPU model's ranges.
TEST(ScenarioCpu, LastWriterNamesTheStepThatLastWroteEachByte) {
    const Scenario s = parseModel(kHeader + kBufferA + R"(
[[buffer]]
name = "b"
bytes = 64
init = "zero"

[[step]]
fill = "a"
offset = 4
size = 8
value = 1

[[step]]
barrier = "none"

[[step]]
copy = "a"
from = "b"
src_offset = 0
dst_offset = 9
size = 5

[[step]]
dispatch = "increment"
bindings = ["a"]
count = 2
groups = [1]

[[step]]
dispatch = "copy"
bindings = ["a", "b"]
count = 10
groups = [1]

[[step]]
update = "b"
offset = 60
words = [3]
)",
                                  "w.toml");
    EXPECT_EQ(lastWriter(s, "a", 0), std::optional<size_t>(3));   // the increment's first word
    EXPECT_EQ(lastWriter(s, "a", 7), std::optional<size_t>(3));   // word 1: the increment, over the fill
    EXPECT_EQ(lastWriter(s, "a", 8), std::optional<size_t>(0));   // the fill's second word
    EXPECT_EQ(lastWriter(s, "a", 9), std::optional<size_t>(2));   // the copy's first byte, over the fill
    EXPECT_EQ(lastWriter(s, "a", 13), std::optional<size_t>(2));  // the copy's last byte
    EXPECT_EQ(lastWriter(s, "a", 14), std::nullopt);              // never written: iota
    EXPECT_EQ(lastWriter(s, "b", 39), std::optional<size_t>(4));  // the copy kernel's 10 words
    EXPECT_EQ(lastWriter(s, "b", 40), std::nullopt);
    EXPECT_EQ(lastWriter(s, "b", 60), std::optional<size_t>(5));  // the update
    EXPECT_EQ(lastWriter(s, "nothing", 0), std::nullopt);
    EXPECT_EQ(writtenRanges(s.steps[1], s), std::vector<WrittenRange>{});  // a barrier writes nothing
    EXPECT_EQ(writtenRanges(s.steps[4], s), (std::vector<WrittenRange>{{"b", 0, 40}}));
    EXPECT_EQ(s.steps[2].label, "step 3 copy b -> a");
}

// A noop dispatch and a dispatch with fewer invocations than count write only what they run.
TEST(ScenarioCpu, WrittenRangesFollowTheInvocations) {
    BufferSpec a{.name = "a", .bytes = 4 * 100, .init = InitKind::Zero, .checked = true};
    Scenario s{.buffers = {a}};
    Dispatch inc{.kernel = Kernel::Increment, .bindings = {"a"}, .params = {.count = 100}};
    inc.groups[0] = 1;  // 64 invocations
    Dispatch noop{.kernel = Kernel::Noop, .bindings = {"a"}, .params = {.count = 100}};
    noop.groups[0] = 2;
    s.steps.push_back({.body = inc});
    s.steps.push_back({.body = noop});
    EXPECT_EQ(writtenRanges(s.steps[0], s), (std::vector<WrittenRange>{{"a", 0, 256}}));
    EXPECT_TRUE(writtenRanges(s.steps[1], s).empty());
    EXPECT_EQ(lastWriter(s, "a", 255), std::optional<size_t>(0));
    EXPECT_EQ(lastWriter(s, "a", 256), std::nullopt);
}

// shuffle = SEED: the non-barrier steps change places, the barriers stay, the labels follow.
TEST(ScenarioParse, ShuffleReordersTheWorkStepsAndKeepsTheBarriers) {
    std::string steps;
    for (int i = 1; i <= 6; ++i) {
        steps += "[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\nadd = " + std::to_string(i) + "\n";
        if (i < 6) steps += "[[step]]\nbarrier = \"blade-c\"\n";
    }
    const Scenario plain = parseModel(kHeader + kBufferA + steps, "s.toml");
    const Scenario a = parseModel(kHeader + "shuffle = 25767\n" + kBufferA + steps, "s.toml");
    const Scenario b = parseModel(kHeader + "shuffle = 25767\n" + kBufferA + steps, "s.toml");
    const Scenario c = parseModel(kHeader + "shuffle = 1\n" + kBufferA + steps, "s.toml");
    const auto adds = [](const Scenario& s) {
        std::vector<uint32_t> out;
        for (const auto& step : s.steps) {
            if (const auto* d = std::get_if<Dispatch>(&step.body)) out.push_back(d->params.add);
        }
        return out;
    };
    ASSERT_EQ(a.steps.size(), 11u);
    for (size_t i = 1; i < a.steps.size(); i += 2) EXPECT_TRUE(std::holds_alternative<Barrier>(a.steps[i].body)) << i;
    EXPECT_EQ(adds(plain), (std::vector<uint32_t>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(adds(a), adds(b));  // the same seed, the same order
    EXPECT_NE(adds(a), adds(plain));
    EXPECT_NE(adds(a), adds(c));
    auto sorted = adds(a);
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, adds(plain));  // a permutation
    // The label: its place now, and its place in the file when they differ.
    const uint32_t first = adds(a)[0];
    const std::string fileStep = std::to_string(2 * first - 1);
    EXPECT_EQ(a.steps[0].label,
              first == 1 ? "step 1 dispatch increment" : "step 1 dispatch increment (file step " + fileStep + ")");
    EXPECT_EQ(a.steps[1].label, "step 2 barrier blade-c");
    EXPECT_EQ(errorOf(kHeader + "shuffle = -1\n" + kBufferA + steps),
              "bad.toml:6:11: 'shuffle' = -1 is out of range; expected 0..4294967295");
}

// The read-before-write check follows the shuffled order.
TEST(ScenarioParse, ShuffleIsCheckedInItsOrder) {
    const std::string body = kBufferA + R"(
[[buffer]]
name = "u"
bytes = 64
init = "undefined"

[[step]]
fill = "u"
[[step]]
dispatch = "copy"
bindings = ["u", "a"]
)";
    EXPECT_EQ(errorOf(kHeader + body), "");
    std::string failing;
    for (uint32_t seed = 1; seed < 20 && failing.empty(); ++seed) {
        failing = errorOf(kHeader + "shuffle = " + std::to_string(seed) + "\n" + body);
    }
    EXPECT_NE(failing.find("step 1 dispatch copy (file step 2) reads buffer 'u' before any step writes it"),
              std::string::npos)
        << failing;
}

// The scenario report's file hash (core/sha256.hpp) against the test vectors of FIPS 180-4's
// examples (NIST, "SHA256.pdf"): empty, one block, a message whose padding spills into a
// second block, and a million bytes.
TEST(Sha256, MatchesTheStandardsExamples) {
    EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// loadScenario hashes the very bytes it parsed.
TEST(ScenarioFile, CarriesItsSizeAndHash) {
    const std::string text = kHeader + kBufferA + "\n[[step]]\nfill = \"a\"\nvalue = 3\n";
    const auto path = std::filesystem::temp_directory_path() / "repro-scenario-hash-test.toml";
    {
        std::ofstream out(path, std::ios::binary);
        out << text;
    }
    const Scenario s = loadScenario(path.string());
    std::filesystem::remove(path);
    EXPECT_EQ(s.fileBytes, text.size());
    EXPECT_EQ(s.fileSha256, sha256Hex(text));
}

// Indirect dispatch (docs/scenarios.md "dispatch_indirect"): an indirect-writer writes a
// VkDispatchIndirectCommand, a later dispatch_indirect takes its group counts from there.
const std::string kIndirect = kHeader + R"(
[[buffer]]
name = "a"
bytes = 4096
init = "iota"
value = 10

[[buffer]]
name = "args"
bytes = 32
init = "undefined"

[[step]]
dispatch = "indirect-writer"
bindings = ["args"]
offset = 8
x = X

[[step]]
barrier = "memory"
src_stage = ["compute"]
src_access = ["shader-storage-write"]
dst_stage = ["draw-indirect"]
dst_access = ["indirect-command-read"]

[[step]]
dispatch_indirect = "increment"
bindings = ["a"]
args = "args"
args_offset = 8
add = 3
)";

// `text` with its first `from` replaced by `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

std::string indirectFile(uint32_t x) { return replaced(kIndirect, "x = X", "x = " + std::to_string(x)); }

TEST(ScenarioIndirect, TheWriterAndTheIndirectDispatchParse) {
    const Scenario s = parseModel(indirectFile(4), "i.toml");
    ASSERT_EQ(s.steps.size(), 3u);
    const auto& w = std::get<Dispatch>(s.steps[0].body);
    EXPECT_EQ(w.kernel, Kernel::IndirectWriter);
    EXPECT_EQ(w.writer.offset, 8u);
    EXPECT_EQ(std::vector<uint32_t>(w.writer.groups, w.writer.groups + 3), (std::vector<uint32_t>{4, 1, 1}));
    EXPECT_FALSE(w.indirect);
    const KernelParams pushed = pushConstants(w);  // (word, x, y, z)
    EXPECT_EQ(std::vector<uint32_t>({pushed.count, pushed.add, pushed.work, pushed.zero}),
              (std::vector<uint32_t>{2, 4, 1, 1}));
    const auto& b = std::get<Barrier>(s.steps[1].body);
    EXPECT_EQ(b.dstStage, 0x2u);   // VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT
    EXPECT_EQ(b.dstAccess, 0x1u);  // VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT
    const auto& d = std::get<Dispatch>(s.steps[2].body);
    ASSERT_TRUE(d.indirect);
    EXPECT_EQ(d.indirect->buffer, "args");
    EXPECT_EQ(d.indirect->offset, 8u);
    EXPECT_EQ(std::vector<uint32_t>(d.groups, d.groups + 3), (std::vector<uint32_t>{4, 1, 1}));  // as the model reads
    EXPECT_EQ(pushConstants(d).add, 3u);
    EXPECT_EQ(s.steps[2].label, "step 3 dispatch-indirect increment");
    EXPECT_EQ(kernelBindings(Kernel::IndirectWriter), (std::vector<std::string_view>{"args"}));
    EXPECT_TRUE(kernelWrites(Kernel::IndirectWriter, 0) && !kernelReads(Kernel::IndirectWriter, 0));
}

// The CPU model runs the indirect dispatch with the counts in its args: 4 groups increment the
// first 256 words, 2 groups (a wrong args write) only the first 128, and the result differs.
TEST(ScenarioIndirect, TheModelTakesTheCountsFromTheArgsSoAWrongWriteDiffers) {
    const Contents four = runCpuModel(parseModel(indirectFile(4), "i.toml"));
    const Contents two = runCpuModel(parseModel(indirectFile(2), "i.toml"));
    EXPECT_EQ(word(four.at("args"), 2), 4u);  // the command at byte 8: 4, 1, 1
    EXPECT_EQ(word(four.at("args"), 3), 1u);
    EXPECT_EQ(word(four.at("args"), 4), 1u);
    EXPECT_EQ(word(four.at("args"), 0), 0u);  // around it: untouched (zeroed)
    EXPECT_EQ(word(four.at("a"), 0), 13u);
    EXPECT_EQ(word(four.at("a"), 255), 10u + 255 + 3);  // 4 groups of 64 invocations
    EXPECT_EQ(word(four.at("a"), 256), 10u + 256);
    EXPECT_EQ(word(two.at("a"), 127), 10u + 127 + 3);
    EXPECT_EQ(word(two.at("a"), 128), 10u + 128);  // past 2 groups: not incremented
    EXPECT_NE(four.at("a"), two.at("a"));
    // Counts written by an update instead of the writer are read the same way.
    const Contents one = runCpuModel(
        parseModel(replaced(indirectFile(4), "dispatch = \"indirect-writer\"\nbindings = [\"args\"]\noffset = 8\nx = 4",
                            "update = \"args\"\noffset = 8\nwords = [1, 1, 1]"),
                   "u.toml"));
    EXPECT_EQ(word(one.at("a"), 63), 10u + 63 + 3);
    EXPECT_EQ(word(one.at("a"), 64), 10u + 64);
}

TEST(ScenarioIndirect, WrittenRangesKnowTheWriterAndTheIndirectCounts) {
    const Scenario s = parseModel(indirectFile(2), "i.toml");
    EXPECT_EQ(writtenRanges(s.steps[0], s), (std::vector<WrittenRange>{{"args", 8, 20}}));
    EXPECT_EQ(writtenRanges(s.steps[2], s), (std::vector<WrittenRange>{{"a", 0, 512}}));  // 2 groups of 64 words
    EXPECT_EQ(lastWriter(s, "args", 8), std::optional<size_t>(0));
    EXPECT_EQ(lastWriter(s, "args", 20), std::nullopt);
    EXPECT_EQ(lastWriter(s, "a", 511), std::optional<size_t>(2));
    EXPECT_EQ(lastWriter(s, "a", 512), std::nullopt);
}

TEST(ScenarioIndirect, BadFilesAreOneLine) {
    // The args range past the buffer: 24 + 12 > 32.
    EXPECT_EQ(errorOf(replaced(indirectFile(4), "args_offset = 8", "args_offset = 24")),
              "bad.toml:35:15: the group counts read at byte 24 of 'args' (32 bytes) do not fit; expected "
              "args_offset a multiple of 4 with args_offset + 12 <= 32 (a VkDispatchIndirectCommand is 12 bytes)");
    EXPECT_EQ(errorOf(replaced(indirectFile(4), "args_offset = 8", "args_offset = 6")).substr(0, 48),
              "bad.toml:35:15: the group counts read at byte 6 ");
    // The args never written: the writer made a noop (its init is "undefined").
    EXPECT_EQ(
        errorOf(replaced(indirectFile(4), "dispatch = \"indirect-writer\"\nbindings = [\"args\"]\noffset = 8\nx = 4",
                         "dispatch = \"noop\"\nbindings = [\"args\"]")),
        "bad.toml:29:1: step 3 dispatch-indirect increment reads buffer 'args' before any step writes it (its "
        "init is \"undefined\"); expected a write first or an init");
    // Counts past maxComputeWorkGroupCount's required minimum, as the model has them.
    EXPECT_EQ(errorOf(indirectFile(65536)),
              "bad.toml:31:1: step 3 dispatch-indirect increment reads group counts (65536, 1, 1) from buffer 'args' "
              "at byte 8 (as the CPU model has it there); expected each 0..65535");
    EXPECT_EQ(errorOf(replaced(indirectFile(4), "offset = 8\nx", "offset = 24\nx")),
              "bad.toml:21:10: the command written at byte 24 of 'args' (32 bytes) does not fit; expected a "
              "multiple of 4 with offset + 12 <= 32 (a VkDispatchIndirectCommand is 12 bytes)");
    EXPECT_EQ(errorOf(replaced(indirectFile(4), "add = 3", "groups = [1]")).substr(0, 62),
              "bad.toml:36:10: unknown key 'groups' in a dispatch_indirect st");
    EXPECT_EQ(errorOf(replaced(indirectFile(4), "add = 3", "x = 3")),
              "bad.toml:36:5: 'x' is an indirect-writer key; kernel increment takes none");
    EXPECT_EQ(errorOf(replaced(indirectFile(4), "offset = 8\nx = 4", "count = 3")),
              "bad.toml:21:9: indirect-writer takes offset, x, y and z, not 'count'");
}

// User SPIR-V kernels (docs/scenarios.md "User kernels"): the modules are
// tests/shaders/scenario_user_mix.comp compiled at build time (tests/CMakeLists.txt).
const std::string kUserDir = REPRO_USER_KERNEL_DIR;

// A scenario with buffers src, acc, out (acc's init `accInit`), the [[kernel]] `kernel` and
// `steps`.
std::string userScenario(const std::string& kernel, const std::string& steps, const std::string& accInit = "iota") {
    return R"(name = "u"
source = "https://example.org/report"
pattern = "a test"
expected = "not reproduced"
check = ["acc"]
)" + kernel +
           R"(
[[buffer]]
name = "src"
bytes = 256
init = "iota"

[[buffer]]
name = "acc"
bytes = 256
init = ")" +
           accInit + R"("

[[buffer]]
name = "out"
bytes = 256
)" + steps;
}

std::string userKernel(const std::string& spv, const std::string& extra = "") {
    return "\n[[kernel]]\nname = \"mix\"\nspirv = \"" + kUserDir + "/" + spv + "\"\n" + extra;
}

const std::string kMixStep = R"(
[[step]]
dispatch = "mix"
bindings = ["src", "acc"]
groups = [1]
add = 5
)";

// A user kernel's accesses come from its module in the check of races between queues too: mix
// writes its binding 1 (acc) on the second queue while main copies acc, with no semaphore.
TEST(ScenarioUserKernel, ItsWritesOnASecondQueueAreARaceWithoutASemaphore) {
    const std::string queue = "\n[[queue]]\nname = \"second\"\nfamily = \"same\"\n";
    const std::string steps = kMixStep + "queue = \"second\"\n[[step]]\ncopy = \"out\"\nfrom = \"acc\"\n";
    const std::string error = errorOf(userScenario(userKernel("user_mix.spv") + queue, steps));
    EXPECT_TRUE(
        error.find("step 2 copy acc -> out reads buffer 'acc', which step 1 dispatch mix (user SPIR-V) on queue "
                   "second writes, "
                   "and no semaphore orders them (queues main and second)") != std::string::npos)
        << error;
}

TEST(ScenarioUserKernel, AModuleGivesItsBindingsAndWhatItReadsAndWrites) {
    const Scenario s = parseModel(userScenario(userKernel("user_mix.spv"), kMixStep), "u.toml");
    ASSERT_EQ(s.kernels.size(), 1u);
    const UserKernel& k = s.kernels[0];
    EXPECT_EQ(k.entry, "main");
    EXPECT_EQ(k.localSize, (std::array<uint32_t, 3>{64, 1, 1}));
    EXPECT_EQ(k.writes, (std::vector<bool>{false, true}));  // src readonly: NonWritable
    EXPECT_EQ(k.reads, (std::vector<bool>{true, true}));
    EXPECT_EQ(k.words.at(0), 0x07230203u);
    const auto& d = std::get<Dispatch>(s.steps.at(0).body);
    EXPECT_EQ(d.user, "mix");
    EXPECT_EQ(d.params.count, 64u);  // the smallest bound buffer's words
    EXPECT_EQ(d.params.add, 5u);
    EXPECT_EQ(s.steps[0].label, "step 1 dispatch mix (user SPIR-V)");
}

TEST(ScenarioUserKernel, TheSpirvPathIsRelativeToTheFile) {
    const std::string text = userScenario("\n[[kernel]]\nname = \"mix\"\nspirv = \"user_mix.spv\"\n", kMixStep);
    EXPECT_EQ(parseModel(text, kUserDir + "/u.toml").kernels.at(0).spirv, kUserDir + "/user_mix.spv");
    EXPECT_TRUE(errorOf(text).find("bad.toml:9:9: kernel 'mix': 'user_mix.spv': cannot read: no such file") !=
                std::string::npos)
        << errorOf(text);
}

TEST(ScenarioUserKernel, NonReadableBindingsMayBeUndefinedAndReadableOnesMayNot) {
    EXPECT_EQ(errorOf(userScenario(userKernel("user_writeonly.spv"), kMixStep, "undefined")), "");
    EXPECT_EQ(errorOf(userScenario(userKernel("user_mix.spv"), kMixStep, "undefined")),
              "bad.toml:25:1: step 1 dispatch mix (user SPIR-V) reads buffer 'acc' before any step writes it (its "
              "init is \"undefined\"); expected a write first or an init");
}

TEST(ScenarioUserKernel, TheModelLeavesWhatAUserKernelWritesAndKnowsItCannot) {
    const Scenario s = parseModel(userScenario(userKernel("user_mix.spv"), kMixStep + R"(
[[step]]
dispatch = "copy"
bindings = ["acc", "out"]

[[step]]
dispatch = "increment"
bindings = ["src"]
)"),
                                  "u.toml");
    const Contents c = runCpuModel(s);
    EXPECT_EQ(word(c.at("acc"), 3), 3u);                                     // iota, untouched by the model
    EXPECT_EQ(word(c.at("src"), 3), 4u);                                     // the built-in increment is modelled
    EXPECT_EQ(unmodelledBuffers(s), (std::set<std::string>{"acc", "out"}));  // out: a copy of acc
    EXPECT_EQ(lastWriter(s, "acc", 252), std::optional<size_t>(0));          // a user kernel may write all of it
    EXPECT_EQ(writtenRanges(s.steps[0], s), (std::vector<WrittenRange>{{"acc", 0, 256}}));
    const Scenario plain =
        parseModel(kHeader + kBufferA + "\n[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\n", "p.toml");
    EXPECT_TRUE(unmodelledBuffers(plain).empty());
}

TEST(ScenarioUserKernel, BindingsThatDoNotMatchTheModuleAreOneLine) {
    const std::string one = R"(
[[step]]
dispatch = "mix"
bindings = ["acc"]
groups = [1]
)";
    EXPECT_EQ(errorOf(userScenario(userKernel("user_mix.spv"), one)),
              "bad.toml:27:12: kernel mix takes 2 binding(s) (its module " + kUserDir +
                  "/user_mix.spv declares set 0, bindings 0..1); got 1");
    const std::string noGroups = "\n[[step]]\ndispatch = \"mix\"\nbindings = [\"src\", \"acc\"]\n";
    EXPECT_TRUE(errorOf(userScenario(userKernel("user_mix.spv"), noGroups)).find("has no 'groups'") !=
                std::string::npos);
    const std::string phase = kMixStep + "phase = 1\n";
    EXPECT_TRUE(errorOf(userScenario(userKernel("user_mix.spv"), phase))
                    .find("'phase' is a key of a built-in kernel; user kernel mix takes none") != std::string::npos);
}

TEST(ScenarioUserKernel, ModulesReproCannotBindAreOneLine) {
    const auto error = [](const std::string& spv, const std::string& extra = "") {
        return errorOf(userScenario(userKernel(spv, extra), kMixStep));
    };
    const std::string at = "bad.toml:9:9: kernel 'mix' (" + kUserDir + "/";
    EXPECT_EQ(error("user_set1.spv"),
              at + "user_set1.spv): set 1 binding 0 is in descriptor set 1; repro binds set 0 only");
    EXPECT_EQ(error("user_uniform.spv"),
              at + "user_uniform.spv): binding 0 is a uniform buffer descriptor; repro binds storage buffers and 2D "
                   "storage images only");
    EXPECT_EQ(error("user_big_push.spv"),
              at + "user_big_push.spv): its push-constant block is 32 bytes; repro pushes 16 (count, add, work, zero)");
    EXPECT_EQ(error("user_entry_mix.spv"),
              at + "user_entry_mix.spv): its GLCompute entry point is \"mix\", not \"main\"; expected entry = \"mix\"");
    EXPECT_EQ(error("user_entry_mix.spv", "entry = \"mix\"\n"), "");
}

// tests/shaders/scenario_user_image.comp: binding 0 an r32ui storage image, binding 1 a readonly
// storage buffer. A scenario with image img (format `format`, layout `layout`), buffer words
// and one dispatch of it binding `bindings`.
std::string userImageScenario(const std::string& bindings, const std::string& format = "r32ui",
                              const std::string& layout = "general") {
    return R"(name = "u"
source = "https://example.org/report"
pattern = "a test"
expected = "not reproduced"
check = []

[[kernel]]
name = "texels"
spirv = ")" +
           kUserDir + R"(/user_image.spv"

[[image]]
name = "img"
width = 8
height = 8
format = ")" +
           format + R"("
layout = ")" +
           layout + R"("
check = true

[[buffer]]
name = "words"
bytes = 256

[[step]]
dispatch = "texels"
bindings = )" +
           bindings + R"(
groups = [1, 1]
)";
}

TEST(ScenarioUserKernel, AModuleMayBindAStorageImage) {
    const Scenario s = parseModel(userImageScenario(R"(["img", "words"])"), "u.toml");
    const UserKernel& k = s.kernels.at(0);
    EXPECT_EQ(k.images, (std::vector<std::optional<uint32_t>>{kSpirvImageFormatR32ui, std::nullopt}));
    EXPECT_EQ(k.writes, (std::vector<bool>{true, false}));  // words readonly
    EXPECT_EQ(k.reads, (std::vector<bool>{true, true}));
    EXPECT_EQ(k.localSize, (std::array<uint32_t, 3>{8, 8, 1}));
    EXPECT_EQ(unmodelledBuffers(s), (std::set<std::string>{"img"}));                        // compared with split only
    EXPECT_EQ(writtenRanges(s.steps[0], s), (std::vector<WrittenRange>{{"img", 0, 256}}));  // the whole image
}

TEST(ScenarioUserKernel, AnImageBindingTakesAnImageOfTheModulesFormatInGeneral) {
    EXPECT_EQ(errorOf(userImageScenario(R"(["words", "words"])")),
              "bad.toml:25:13: kernel texels binding 0 is a storage image in its module; 'words' is a buffer; "
              "expected an [[image]]");
    EXPECT_EQ(errorOf(userImageScenario(R"(["img", "img"])")),
              "bad.toml:25:20: kernel texels binding 1 is a storage buffer in its module; 'img' is an image; "
              "expected a [[buffer]]");
    EXPECT_EQ(errorOf(userImageScenario(R"(["img", "words"])", "r32f")),
              "bad.toml:25:13: kernel texels binding 0 is a storage image of format R32ui (its module's "
              "OpTypeImage); image 'img' is r32f; expected an image of that format");
    EXPECT_EQ(errorOf(userImageScenario(R"(["img", "words"])", "r32ui", "transfer-src")),
              "bad.toml:23:1: step 1 dispatch texels (user SPIR-V) uses image 'img' in layout general, but it is "
              "in transfer-src here; expected an image barrier with new_layout = \"general\" before it");
}

TEST(ScenarioUserKernel, FilesThatAreNoModuleAndBadNamesAreOneLine) {
    const auto path = std::filesystem::path(::testing::TempDir()) / "user-kernel-not-spirv.spv";
    std::ofstream(path) << "name = \"not SPIR-V\"\n";
    const std::string notSpirv =
        errorOf(userScenario("\n[[kernel]]\nname = \"mix\"\nspirv = \"" + path.string() + "\"\n", kMixStep));
    EXPECT_TRUE(notSpirv.rfind("bad.toml:9:9: kernel 'mix': ", 0) == 0) << notSpirv;
    EXPECT_TRUE(notSpirv.find("magic number 0x656d616e, not SPIR-V's 0x07230203") != std::string::npos) << notSpirv;
    EXPECT_EQ(errorOf(userScenario("\n[[kernel]]\nname = \"copy\"\nspirv = \"x.spv\"\n", kMixStep)),
              "bad.toml:8:8: kernel 'copy' is a built-in kernel's name; expected a name of its own");
    EXPECT_EQ(errorOf(userScenario(userKernel("user_mix.spv") + userKernel("user_mix.spv"), kMixStep)),
              "bad.toml:12:8: kernel 'mix' is declared twice; expected a name of its own");
}

TEST(ScenarioUserKernel, AnIndirectDispatchOfAUserKernelTakesItsArgs) {
    const std::string steps = R"(
[[step]]
dispatch = "indirect-writer"
bindings = ["out"]
x = 2

[[step]]
dispatch_indirect = "mix"
bindings = ["src", "acc"]
args = "out"
)";
    const Scenario s = parseModel(userScenario(userKernel("user_mix.spv"), steps), "u.toml");
    const auto& d = std::get<Dispatch>(s.steps.at(1).body);
    EXPECT_EQ(d.user, "mix");
    ASSERT_TRUE(d.indirect.has_value());
    EXPECT_EQ(d.indirect->buffer, "out");
    EXPECT_EQ(d.groups[0], 2u);  // from the args, as the CPU model has them
    EXPECT_EQ(s.steps[1].label, "step 2 dispatch-indirect mix (user SPIR-V)");
    EXPECT_TRUE(errorOf(userScenario(userKernel("user_mix.spv"), steps + "groups = [1]\n"))
                    .find("unknown key 'groups' in a dispatch_indirect step") != std::string::npos);
}

TEST(ScenarioUserKernel, AnIndirectDispatchMayNotReadCountsAUserKernelWrote) {
    const std::string steps = kMixStep + R"(
[[step]]
dispatch_indirect = "increment"
bindings = ["out"]
args = "acc"
)";
    EXPECT_TRUE(errorOf(userScenario(userKernel("user_mix.spv"), steps))
                    .find("reads its group counts from buffer 'acc', which a user kernel wrote before") !=
                std::string::npos)
        << errorOf(userScenario(userKernel("user_mix.spv"), steps));
}

// Host points (docs/scenarios.md "Host points").
const std::string kHostPoints = R"(name = "h"
source = "https://example.org/report"
pattern = "a test"
expected = "not reproduced"
check = ["h"]

[[buffer]]
name = "h"
bytes = 256
memory = "host-visible"
init = "iota"

[[buffer]]
name = "d"
bytes = 256

[[step]]
dispatch = "increment"
bindings = ["h"]
add = 10

[[step]]
dispatch = "increment"
bindings = ["h"]
add = 100

[[step]]
host_read = "h"

[[step]]
host_write = "h"
offset = 4
words = [7, 8]

[[step]]
dispatch = "increment"
bindings = ["h"]
)";

TEST(ScenarioHostPoints, TheModelAppliesHostWritesAndKnowsEachHostRead) {
    const Scenario s = parseModel(kHostPoints, "h.toml");
    ASSERT_EQ(s.steps.size(), 5u);
    EXPECT_EQ(s.steps[2].label, "step 3 host-read h");
    EXPECT_EQ(s.steps[3].label, "step 4 host-write h");
    const auto& w = std::get<HostWrite>(s.steps[3].body);
    EXPECT_EQ(w.offset, 4u);
    EXPECT_EQ(w.words, (std::vector<uint32_t>{7, 8}));
    const Contents c = runCpuModel(s);
    EXPECT_EQ(word(c.at("h"), 0), 111u);  // 0 + 10 + 100 + 1
    EXPECT_EQ(word(c.at("h"), 1), 8u);    // the host's 7, then + 1
    EXPECT_EQ(word(c.at("h"), 2), 9u);
    EXPECT_EQ(word(c.at("h"), 3), 114u);
    const auto reads = hostReadContents(s);
    ASSERT_EQ(reads.size(), 1u);
    EXPECT_EQ(word(reads.at(2), 1), 111u);  // at the read: both increments, not the host write
    EXPECT_EQ(lastWriter(s, "h", 4), std::optional<size_t>(4));
    EXPECT_EQ(lastWriter(s, "h", 4, 4), std::optional<size_t>(3));  // the host write
    EXPECT_EQ(lastWriter(s, "h", 4, 2), std::optional<size_t>(1));  // as the host read sees it
    EXPECT_EQ(writtenRanges(s.steps[3], s), (std::vector<WrittenRange>{{"h", 4, 12}}));
}

TEST(ScenarioHostPoints, ShuffleLeavesHostPointsWhereTheyAre) {
    std::string text = kHostPoints;
    text.replace(text.find("check"), 0, "shuffle = 3\n");
    const Scenario s = parseModel(text, "h.toml");
    EXPECT_TRUE(std::holds_alternative<HostRead>(s.steps[2].body));
    EXPECT_TRUE(std::holds_alternative<HostWrite>(s.steps[3].body));
}

TEST(ScenarioHostPoints, BadHostPointsAreOneLine) {
    const std::string head = kHeader + kBufferA + R"(
[[buffer]]
name = "h"
bytes = 64
memory = "host-visible"
init = "undefined"
)";
    EXPECT_EQ(errorOf(head + "\n[[step]]\nhost_write = \"a\"\nwords = [1]\n"),
              "bad.toml:19:14: host_write names buffer 'a', which is device-local; expected a buffer with memory = "
              "\"host-visible\" or \"shared\" (the host reaches only mapped memory)");
    EXPECT_EQ(errorOf(head + "\n[[step]]\nhost_read = \"a\"\n"),
              "bad.toml:19:13: host_read names buffer 'a', which is device-local; expected a buffer with memory = "
              "\"host-visible\" or \"shared\" (the host reaches only mapped memory)");
    EXPECT_EQ(errorOf(head + "\n[[step]]\nhost_write = \"h\"\n"),
              "bad.toml:18:1: a host_write step has no words; expected words = [1, 2, 3]");
    EXPECT_EQ(errorOf(head + "\n[[step]]\nhost_write = \"h\"\noffset = 60\nwords = [1, 2]\n"),
              "bad.toml:18:1: bytes [60, 68) are not inside buffer 'h' (64 bytes); expected a non-empty range in it");
    EXPECT_EQ(errorOf(head + "\n[[step]]\nhost_write = \"h\"\noffset = 2\nwords = [1]\n"),
              "bad.toml:18:1: offset 2 and size 4 in 'h' must be multiples of 4 (Vulkan requires it here)");
    EXPECT_EQ(errorOf(head + "\n[[step]]\nhost_read = \"h\"\n"),
              "bad.toml:18:1: step 1 host-read h reads buffer 'h' before any step writes it (its init is "
              "\"undefined\"); expected a write first or an init");
    EXPECT_EQ(errorOf(head + "\n[[step]]\nhost_read = \"h\"\nsize = 4\n"),
              "bad.toml:20:8: unknown key 'size' in a host_read step; expected one of: host_read");
    // a host write counts as a write: the read after it is fine
    EXPECT_EQ(errorOf(head + "\n[[step]]\nhost_write = \"h\"\nwords = [1]\n\n[[step]]\nhost_read = \"h\"\n"), "");
}

}  // namespace
// A host point in a file with a second queue: one line at the host point (the recorder's
// batches do not end there yet).
TEST(ScenarioParse, HostPointsAndASecondQueueAreRefusedTogether) {
    const std::string file = kHeader + R"(
[[buffer]]
name = "a"
bytes = 64
memory = "host-visible"
init = "iota"

[[queue]]
name = "second"
family = "same"

[[step]]
dispatch = "increment"
bindings = ["a"]

[[step]]
host_read = "a"
)";
    EXPECT_EQ(errorOf(file),
              "bad.toml:21:1: step 2 host-read a in a file with [[queue]] or [[semaphore]] tables: host points and a "
              "second queue do not go together yet; expected one or the other");
}

}  // namespace repro::scenario

namespace repro::scenario {
namespace {

// --poison (docs/scenarios.md "--poison on a scenario"): an undefined buffer and one whose
// first access is a write start as the sentinel; one read first (in place, or by a copy)
// and one no step touches keep their init; the CPU model starts from the sentinel too.
TEST(ScenarioPoison, UndefinedAndWrittenFirstBuffersStartAsTheSentinel) {
    Scenario s = parseModel(kHeader + kBufferA + R"(
[[buffer]]
name = "b"
bytes = 64
init = "undefined"
[[buffer]]
name = "c"
bytes = 64
[[buffer]]
name = "d"
bytes = 64
init = "pattern"
value = 3
[[buffer]]
name = "e"
bytes = 64
[[step]]
dispatch = "increment"
bindings = ["a"]
[[step]]
update = "c"
words = [1]
[[step]]
dispatch = "copy"
bindings = ["d", "b"]
count = 4
[[step]]
dispatch = "increment"
bindings = ["c"]
)",
                            "p.toml");
    EXPECT_EQ(poisonBuffers(s, 0x7fc0dead), (std::vector<std::string>{"b", "c"}));
    EXPECT_TRUE(s.buffer("b")->poisoned);
    EXPECT_FALSE(s.buffer("a")->poisoned);
    EXPECT_FALSE(s.buffer("d")->poisoned);
    EXPECT_FALSE(s.buffer("e")->poisoned);
    const Contents model = runCpuModel(s);
    EXPECT_EQ(word(model.at("b"), 0), 3u);           // copied
    EXPECT_EQ(word(model.at("b"), 4), 0x7fc0deadu);  // past the copy's 4 words: never written
    EXPECT_EQ(word(model.at("c"), 0), 2u);           // the update's 1, incremented
    EXPECT_EQ(word(model.at("c"), 1), 0x7fc0deaeu);  // the sentinel, incremented
    EXPECT_EQ(word(model.at("e"), 0), 0u);
}

}  // namespace
}  // namespace repro::scenario

namespace repro::scenario {
namespace {

const std::string kParameters = R"(
[parameters]
words = 8
add = 5
)";
const std::string kParameterStep = R"(
[[step]]
dispatch = "increment"
bindings = ["a"]
count = "$words"
add = "$add"
)";

// [parameters] (docs/scenarios.md "Parameters"): "$name" is the parameter's value, an
// override (--sweep) replaces it, and the CPU model follows.
TEST(ScenarioParameters, NamesAreTheirValuesAndOverridesReplaceThem) {
    const Scenario s = parseModel(kHeader + kParameters + kBufferA + kParameterStep, "p.toml");
    EXPECT_EQ(s.parameters, (ParameterValues{{"add", 5}, {"words", 8}}));
    Contents model = runCpuModel(s);
    EXPECT_EQ(word(model.at("a"), 0), 5u);  // iota 0, plus 5
    EXPECT_EQ(word(model.at("a"), 7), 12u);
    EXPECT_EQ(word(model.at("a"), 8), 8u);  // past count: untouched
    const Scenario swept = parseModel(kHeader + kParameters + kBufferA + kParameterStep, "p.toml", {{"add", 7}});
    EXPECT_EQ(swept.parameters.at("add"), 7u);
    model = runCpuModel(swept);
    EXPECT_EQ(word(model.at("a"), 0), 7u);
}

TEST(ScenarioParameters, AnUnknownNameIsAnErrorAtItsPlace) {
    std::string step = kParameterStep;
    step.replace(step.find("$add"), 4, "$ad");
    // kHeader is 5 lines, kParameters 3 more after a blank one, kBufferA 5 after a blank one;
    // the step's add is line 20, the string at column 7.
    EXPECT_EQ(errorOf(kHeader + kParameters + kBufferA + step),
              "bad.toml:20:7: unknown parameter '$ad'; expected one of the names in [parameters]");
    try {
        parseModel(kHeader + kParameters + kBufferA + kParameterStep, "p.toml", {{"zz", 1}});
        ADD_FAILURE() << "no error for an override of no parameter";
    } catch (const UsageError& e) {
        EXPECT_STREQ(e.what(), "--sweep: p.toml has no parameter 'zz' (its [parameters]: add, words)");
    }
    EXPECT_EQ(errorOf(kHeader + "[parameters]\nwork = -1\n" + kBufferA + kParameterStep),
              "bad.toml:7:8: 'work' = -1 is out of range; expected 0..4294967295");
}

// ---- issue 35, section 4: hostile files --------------------------------------------------

// The built-in kernels index words with a 32-bit flat index (shaders/scenario_common.h): past
// 2^32 invocations it wraps, and the invocations past the wrap redo words the CPU model has
// them leave alone (R1). The bound is the kernel's: compare-swap's pair index 2i + phase + 1
// wraps at half of it. Exactly at the bound is accepted.
TEST(ScenarioParse, InvocationsPastTheKernelsIndexAreRefusedAtTheBoundary) {
    const auto dispatch = [](const std::string& kernel, const std::string& groups, const std::string& more = "") {
        return kHeader + kBufferA + "[[step]]\ndispatch = \"" + kernel + "\"\nbindings = [\"a\"]\ngroups = " + groups +
               "\n" + more;
    };
    EXPECT_EQ(errorOf(dispatch("increment", "[32768, 2048, 1]")), "") << "2^32 invocations: the last index fits";
    EXPECT_EQ(errorOf(dispatch("increment", "[32768, 2048, 2]")),
              "bad.toml:14:10: groups [32768, 2048, 2] make 8589934592 invocations (64 per workgroup), more than the "
              "4294967296 that kernel increment's 32-bit invocation index numbers without wrapping; expected at most "
              "4294967296 invocations");
    EXPECT_NE(errorOf(dispatch("work", "[65535, 1025]")), "");
    EXPECT_EQ(errorOf(dispatch("compare-swap", "[32768, 1024]", "phase = 0\n")), "") << "2^31 pairs from 0";
    EXPECT_EQ(errorOf(dispatch("compare-swap", "[32768, 1024]", "phase = 1\n")),
              "bad.toml:14:10: groups [32768, 1024, 1] make 2147483648 invocations (64 per workgroup), more than the "
              "2147483647 that kernel compare-swap's 32-bit pair index 2 * i + phase + 1 numbers without wrapping; "
              "expected at most 2147483647 invocations");
    EXPECT_NE(errorOf(kHeader + kBufferA +
                      "[[step]]\nrepeat = 2\n[[step.steps]]\ndispatch = \"compare-swap\"\nbindings = [\"a\"]\n"
                      "groups = [32768, 1024]\nphase = \"alternate\"\n"),
              "")
        << "alternate takes phase 1 too";
    // noop writes nothing and the indirect-writer tests its whole uvec3: no bound.
    EXPECT_EQ(errorOf(dispatch("noop", "[65535, 65535, 65535]")), "");
    Dispatch user{.user = "mix"};
    EXPECT_EQ(maxIndexedInvocations(user), 0u) << "a user kernel's indexing is its own";
    const uint32_t most[3] = {65535, 65535, 65535};
    EXPECT_EQ(invocations(most), uint64_t{64} * 65535 * 65535 * 65535);
}

// Names the output prints must print as themselves (R15): a control character in one is a
// bad file at the name, and the line quotes it escaped, so it stays one line.
TEST(ScenarioParse, NamesWithControlCharactersAreBadFilesOnOneLine) {
    EXPECT_EQ(errorOf("name = \"t\\u001b[2J\"\n" + kHeader.substr(kHeader.find('\n') + 1) + kBufferA +
                      "[[step]]\nfill = \"a\"\n"),
              "bad.toml:1:8: the scenario's name 't\\x1b[2J' holds a control character; expected a name that prints "
              "as itself on one line");
    EXPECT_EQ(errorOf(kHeader + "[[buffer]]\nname = \"b\\r\"\nbytes = 64\n" + kBufferA + "[[step]]\nfill = \"a\"\n"),
              "bad.toml:7:8: buffer name 'b\\r' holds a control character; expected a name that prints as itself on "
              "one line");
    EXPECT_EQ(
        errorOf(kHeader + kBufferA + "[[semaphore]]\nname = \"s\\u0007\"\ntype = \"binary\"\n[[step]]\nfill = \"a\"\n"),
        "bad.toml:12:8: semaphore name 's\\a' holds a control character; expected a name that prints as itself "
        "on one line");
    EXPECT_EQ(
        errorOf(kHeader + kBufferA + "[[queue]]\nname = \"\\u202eq\"\nfamily = \"same\"\n[[step]]\nfill = \"a\"\n"),
        "bad.toml:12:8: queue name '\\u202eq' holds a control character; expected a name that prints as itself "
        "on one line");
    // Any other line that quotes file text is one line too: a binding naming no buffer.
    const std::string unknown =
        errorOf(kHeader + kBufferA + "[[step]]\ndispatch = \"increment\"\nbindings = [\"x\\ny\"]\n");
    EXPECT_EQ(unknown, "bad.toml:13:13: binding 'x\\ny' is no buffer");
    EXPECT_EQ(errorOf(kHeader + kBufferA + "[[step]]\nfill = \"a\"\n"), "") << "printable names pass";
}

// More than kMaxSteps steps once expanded points at a repeat, never at line 0, column 0 (R18).
TEST(ScenarioParse, TooManyStepsPointAtTheRepeatNeverAtLineZero) {
    const std::string big = kHeader + kBufferA + "[[step]]\nrepeat = 65536\nfill = \"a\"\n";
    EXPECT_EQ(errorOf(big + "[[step]]\nfill = \"a\"\n"),
              "bad.toml:12:10: the steps repeated here make 65536 steps, and with the steps after them the file comes "
              "to more than 65536 at step 65537 (line 14); expected fewer");
    EXPECT_EQ(errorOf(big + "[[step]]\nrepeat = 2\nfill = \"a\"\n"),
              "bad.toml:15:10: the steps repeated come to more than 65536 steps; expected fewer");
}

// What --scenario names is read only when it is a regular file, bounded, and every read
// error says why (R9, R18).
TEST(ScenarioLoad, ReadErrorsSayWhyAndNeitherAFifoNorADeviceIsRead) {
    const auto lineOf = [](const std::string& path) {
        try {
            (void)loadScenario(path);
        } catch (const UsageError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(lineOf("/nonexistent/x.toml"),
              "--scenario: cannot read '/nonexistent/x.toml' (No such file or directory)");
    EXPECT_EQ(lineOf("/dev/zero"), "--scenario: cannot read '/dev/zero' (a character device, not a regular file)");
    const auto dir = std::filesystem::temp_directory_path() / ("repro-scenario-load-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string fifo = (dir / "fifo.toml").string(), empty = (dir / "empty.toml").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::ofstream(empty).close();
    EXPECT_EQ(lineOf(fifo), "--scenario: cannot read '" + fifo + "' (a FIFO, not a regular file)");
    EXPECT_EQ(lineOf(dir.string()), "--scenario: cannot read '" + dir.string() + "' (Is a directory)");
    EXPECT_EQ(lineOf(empty), "--scenario: '" + empty + "' is empty (0 bytes); expected a scenario (docs/scenarios.md)");
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace repro::scenario
