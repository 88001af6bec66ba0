// The scenario model, its parser and its CPU model (core/scenario*.hpp; docs/scenarios.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "core/errors.hpp"
#include "core/scenario.hpp"
#include "core/scenario_cpu.hpp"
#include "core/scenario_parse.hpp"

namespace repro::scenario {
namespace {

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
        parseScenario(text, "bad.toml");
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
    const Scenario s = parseScenario(kHeader + kBufferA + R"(
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
    const Scenario s = parseScenario(kHeader + kBufferA + R"(
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
    EXPECT_EQ(e, "bad.toml:13:12: unknown kernel 'conv'; expected increment, copy or noop");
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
              "value, words");
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
    const Scenario s = parseScenario(kHeader + kBufferA + R"(
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
    EXPECT_EQ(runCpuModel(parseScenario(kHeader + kBufferA + steps + "1\n", "w.toml")),
              runCpuModel(parseScenario(kHeader + kBufferA + steps + "1000\n", "w.toml")));
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
    Scenario full = parseScenario(text, "b.toml");
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

    Scenario exec = parseScenario(text, "b.toml");
    EXPECT_EQ(replaceBarriers(exec, repro::BarrierKind::ExecutionOnly), "");
    const auto& own = std::get<Barrier>(exec.steps[1].body);
    EXPECT_EQ(own.kind, BarrierKind::ExecutionOnly);
    EXPECT_EQ(own.srcStage, 0x800u);   // the step's own COMPUTE_SHADER
    EXPECT_EQ(own.dstStage, 0x1000u);  // and TRANSFER
    EXPECT_EQ(own.srcAccess | own.dstAccess, 0u);
    EXPECT_EQ(std::get<Barrier>(exec.steps[2].body).srcStage, 0x10000u);  // blade's G: ALL_COMMANDS
    EXPECT_TRUE(exec.hasControl());
    EXPECT_EQ(exec.steps[1].label, "step 2 barrier execution-only (control) (--barrier execution-only)");

    Scenario none = parseScenario(text, "b.toml");
    EXPECT_EQ(replaceBarriers(none, repro::BarrierKind::None), "");
    EXPECT_EQ(std::get<Barrier>(none.steps[2].body).kind, BarrierKind::None);
    EXPECT_FALSE(none.usesSync2());

    Scenario refused = parseScenario(text, "b.toml");
    EXPECT_EQ(replaceBarriers(refused, repro::BarrierKind::Buffer),
              "--barrier buffer does not apply to a scenario, whose barriers name their own masks; expected blade, "
              "full, execution-only or none");
// lastWriter: the step whose write a byte holds last, by the CPU model's ranges.
TEST(ScenarioCpu, LastWriterNamesTheStepThatLastWroteEachByte) {
    const Scenario s = parseScenario(kHeader + kBufferA + R"(
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
    const Scenario plain = parseScenario(kHeader + kBufferA + steps, "s.toml");
    const Scenario a = parseScenario(kHeader + "shuffle = 25767\n" + kBufferA + steps, "s.toml");
    const Scenario b = parseScenario(kHeader + "shuffle = 25767\n" + kBufferA + steps, "s.toml");
    const Scenario c = parseScenario(kHeader + "shuffle = 1\n" + kBufferA + steps, "s.toml");
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

}  // namespace
}  // namespace repro::scenario
