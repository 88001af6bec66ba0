// The CPU model of conv-t and slice in a scenario (scenario/scenario_chain.hpp): which buffers
// hold a value of the built-in chain, and the references they are compared with.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/cpu_reference.hpp"
#include "scenario/scenario_chain.hpp"
#include "scenario/scenario_parse.hpp"

namespace repro::scenario {
namespace {

// These tests' subject is the parser and the CPU model, which runs the steps in the file's
// order whatever the barriers say; their small files leave out the barriers a GPU would need
// (the race check has its own tests: scenario_races_test.cpp).
Scenario parseModel(std::string_view text, const std::string& file, const ParameterValues& overrides = {}) {
    return parseScenario(text, file, overrides, RaceCheck::Skip);
}

// Shape tiny: small 1120 bytes (280 floats), weight 768, big 3584 (896 floats).
const std::string kTinyChain = R"(name = "t"
source = "https://example.org/report"
pattern = "a test"
expected = "not reproduced"
shape = "tiny"
check = ["s2"]
[[buffer]]
name = "s0"
bytes = 1120
init = "chain-input"
[[buffer]]
name = "w"
bytes = 768
init = "chain-weight"
[[buffer]]
name = "b0"
bytes = 3584
[[buffer]]
name = "b1"
bytes = 3584
[[buffer]]
name = "s1"
bytes = 1120
[[buffer]]
name = "s2"
bytes = 1120
[[buffer]]
name = "copy"
bytes = 1120
[[buffer]]
name = "other"
bytes = 1120
init = "random"
[[step]]
dispatch = "conv-t"
bindings = ["s0", "w", "b0"]
[[step]]
dispatch = "slice"
bindings = ["b0", "s1"]
[[step]]
dispatch = "conv-t"
bindings = ["s1", "w", "b1"]
[[step]]
dispatch = "slice"
bindings = ["b1", "s2"]
)";

using Kind = ChainValue::Kind;

TEST(ScenarioChain, ConvTAndSliceFromTheChainsDataHoldItsValues) {
    const Scenario s = parseModel(kTinyChain, "t.toml");
    const ChainValues v = finalChainValues(s);
    EXPECT_EQ(v.at("s0"), (ChainValue{Kind::Small, 0}));
    EXPECT_EQ(v.at("w"), (ChainValue{Kind::Weight, 0}));
    EXPECT_EQ(v.at("b0"), (ChainValue{Kind::Big, 0}));
    EXPECT_EQ(v.at("s1"), (ChainValue{Kind::Small, 1}));
    EXPECT_EQ(v.at("b1"), (ChainValue{Kind::Big, 1}));
    EXPECT_EQ(v.at("s2"), (ChainValue{Kind::Small, 2}));
    EXPECT_FALSE(v.count("other"));  // random data: no value of the chain
    EXPECT_EQ(describe(v.at("s2")), "small[2]");
    EXPECT_EQ(describe(v.at("b1")), "big[1]");
}

TEST(ScenarioChain, AWholeCopyCarriesTheValueAndAnyOtherWriteTakesItAway) {
    const Scenario whole = parseModel(kTinyChain + R"(
[[step]]
copy = "copy"
from = "s2"
[[step]]
fill = "s1"
value = 0
[[step]]
copy = "other"
from = "s0"
size = 1116
)",
                                      "t.toml");
    const ChainValues v = finalChainValues(whole);
    EXPECT_EQ(v.at("copy"), (ChainValue{Kind::Small, 2}));
    EXPECT_FALSE(v.count("s1"));     // filled
    EXPECT_FALSE(v.count("other"));  // a partial copy
    EXPECT_EQ(v.at("s2"), (ChainValue{Kind::Small, 2}));
}

TEST(ScenarioChain, ConvTOnOtherDataOrAnotherWeightHoldsNothing) {
    const Scenario s = parseModel(kTinyChain + R"(
[[buffer]]
name = "w2"
bytes = 768
init = "random"
[[buffer]]
name = "b2"
bytes = 3584
[[buffer]]
name = "b3"
bytes = 3584
[[step]]
dispatch = "conv-t"
bindings = ["other", "w", "b2"]
[[step]]
dispatch = "conv-t"
bindings = ["s2", "w2", "b3"]
[[step]]
dispatch = "slice"
bindings = ["b2", "s0"]
)",
                                  "t.toml");
    const ChainValues v = finalChainValues(s);
    EXPECT_FALSE(v.count("b2"));
    EXPECT_FALSE(v.count("b3"));
    EXPECT_FALSE(v.count("s0"));  // overwritten by a slice of data off the chain
}

TEST(ScenarioChain, ALargerChainInputRepeatsTheDataAndHoldsNoValue) {
    std::string text = kTinyChain;
    text.replace(text.find("bytes = 1120\ninit = \"chain-input\""), 12, "bytes = 2240");
    const Scenario s = parseModel(text, "t.toml");
    const ChainValues v = finalChainValues(s);
    EXPECT_FALSE(v.count("s0"));
    EXPECT_FALSE(v.count("s2"));
}

// The references are CpuStepper's (so cpuChain's and cpuTolerance's) at the value's depth:
// small[k] for small[k], small[k + 1] for big[k].
TEST(ScenarioChain, ReferencesAreTheCpuChainAtEachValuesDepth) {
    const Shape tiny = presetShape("tiny");
    const ChainValues values{{"s2", {Kind::Small, 2}}, {"b0", {Kind::Big, 0}}};
    const auto refs = chainReferences(tiny, values);
    const CpuChain chain = cpuChain(tiny, 2);
    EXPECT_EQ(refs.at("s2").small, chain.small[2]);
    EXPECT_EQ(refs.at("b0").small, chain.small[1]);
    const Tolerance t2 = cpuTolerance(tiny, 2);
    EXPECT_EQ(refs.at("s2").tolerance.magnitude, t2.magnitude);
    EXPECT_EQ(refs.at("s2").tolerance.deviation, t2.deviation);
    EXPECT_EQ(refs.at("s2").tolerance.relative, t2.relative);
    EXPECT_EQ(refs.at("b0").tolerance.steps, 1u);
    EXPECT_THROW(chainReferences(tiny, {{"w", {Kind::Weight, 0}}}), std::invalid_argument);
}

// big[k] is compared through its crop at (1, 1), and a crop index maps back to the big
// element it came from.
TEST(ScenarioChain, ABigValueIsComparedThroughItsCropAndIndexedInTheBuffer) {
    const Shape tiny = presetShape("tiny");
    const ChainSizes sizes = computeSizes(tiny);
    std::vector<float> big(sizes.bigElems);
    for (size_t i = 0; i < big.size(); ++i) big[i] = float(i);
    std::vector<uint8_t> bytes(big.size() * 4 + 8);  // a buffer may be larger than the tensor
    std::memcpy(bytes.data(), big.data(), big.size() * 4);
    const ChainValue v{Kind::Big, 0};
    const std::vector<float> crop = comparedFloats(tiny, v, bytes);
    ASSERT_EQ(crop.size(), sizes.smallElems);
    std::vector<float> want(sizes.smallElems);
    cpuSlice(tiny, sizes, big, want);
    EXPECT_EQ(crop, want);
    for (size_t i = 0; i < crop.size(); ++i) ASSERT_EQ(big[bufferFloatIndex(tiny, v, i)], crop[i]) << i;
    EXPECT_EQ(bufferFloatIndex(tiny, {Kind::Small, 3}, 17), 17u);
    EXPECT_THROW(comparedFloats(tiny, v, std::span<const uint8_t>(bytes.data(), 100)), std::invalid_argument);
}

}  // namespace
}  // namespace repro::scenario
