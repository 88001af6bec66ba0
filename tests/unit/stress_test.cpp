// --stress's shuffled workgroups (scenario/stress.hpp shuffledGroup, the host's copy of
// shaders/scenario_common.h shuffledGroup): every workgroup count gets a bijection, so each
// word is still processed exactly once; and the buffers the priming kernel reads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenario/scenario_parse.hpp"
#include "scenario/stress.hpp"

namespace repro {
namespace {

// Whether shuffledGroup moves 0..count-1 onto 0..count-1, each once; the count of groups it
// left in place goes to `fixed`.
bool bijective(uint32_t count, uint32_t multiplier, uint32_t offset, uint32_t& fixed) {
    std::vector<bool> seen(count);
    fixed = 0;
    for (uint32_t w = 0; w < count; ++w) {
        const uint32_t to = scenario::shuffledGroup(w, count, multiplier, offset);
        if (to >= count || seen[to]) return false;
        seen[to] = true;
        fixed += to == w;
    }
    return true;
}

TEST(StressShuffle, EveryCountFrom1To1000GetsABijectionThatMovesGroups) {
    for (uint32_t count = 1; count <= 1000; ++count) {
        uint32_t fixed = 0;
        ASSERT_TRUE(bijective(count, scenario::kShuffleMultiplier, scenario::kShuffleOffset, fixed)) << count;
        // the shuffle is not the identity: past a handful of groups most move
        if (count >= 8) {
            EXPECT_LT(fixed, count / 2) << count;
        }
    }
}

TEST(StressShuffle, OtherSeedsAndLargeCountsStayBijections) {
    uint32_t fixed = 0;
    for (uint32_t count : {1024u, 4096u, 65535u, 65536u, 65537u, 100000u, 1u << 20}) {
        EXPECT_TRUE(bijective(count, scenario::kShuffleMultiplier, scenario::kShuffleOffset, fixed)) << count;
        EXPECT_LT(fixed, count) << count;
    }
    for (uint32_t seed = 1; seed <= 64; ++seed) {
        for (uint32_t count = 1; count <= 300; ++count)
            ASSERT_TRUE(bijective(count, seed * 97, seed, fixed)) << count << " seed " << seed;
    }
}

TEST(StressPriming, PrimesWhatTheStepsReadOnTheDeviceOnce) {
    const std::string text =
        "name = \"p\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\ncheck = [\"c\"]\n"
        "[[buffer]]\nname = \"a\"\nbytes = 1024\ninit = \"iota\"\n"
        "[[buffer]]\nname = \"b\"\nbytes = 1024\n"
        "[[buffer]]\nname = \"c\"\nbytes = 1024\n"
        "[[buffer]]\nname = \"unused\"\nbytes = 1024\n"
        "[[step]]\ndispatch = \"copy\"\nbindings = [\"a\", \"b\"]\n"
        "[[step]]\nbarrier = \"blade-g\"\n"
        "[[step]]\ncopy = \"c\"\nfrom = \"b\"\n"
        "[[step]]\nbarrier = \"blade-g\"\n"
        "[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\n";
    const scenario::Scenario s = scenario::parseScenario(text, "p.toml");
    EXPECT_EQ(scenario::primedBuffers(s), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(scenario::stressParts(s), (std::vector<std::string>{"priming", "traffic", "shuffled-workgroups"}));
}

}  // namespace
}  // namespace repro
