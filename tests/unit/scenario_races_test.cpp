// The one-queue race check (scenario/scenario_races.hpp; issue 35 §1): two steps on one queue
// that touch one buffer, one writing, need a barrier of single's between them that orders
// them, or a control barrier; each case through the parser, as a file reaches it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/errors.hpp"
#include "scenario/scenario_parse.hpp"

namespace repro::scenario {
namespace {

const std::string kHead = R"(name = "r"
source = "https://example.org/race"
pattern = "p"
expected = "not reproduced"
check = ["a"]
[[buffer]]
name = "a"
bytes = 256
init = "iota"
[[buffer]]
name = "b"
bytes = 256
init = "zero"
)";

const std::string kIncrement = "[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\n";

// The line parseScenario gives for `steps` after the header, or "" when it parses.
std::string raceOf(const std::string& steps) {
    try {
        (void)parseScenario(kHead + steps, "race.toml");
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

TEST(OneQueueRace, TwoIncrementsWithNoBarrierAreRefusedAtTheSecondNamingBoth) {
    const std::string line = raceOf(kIncrement + kIncrement);
    EXPECT_EQ(line.rfind("race.toml:17:1: step 1 dispatch increment and step 2 dispatch increment race on buffer 'a' "
                         "(write-after-write): no barrier that single records between them orders them",
                         0),
              0u)
        << line;
    EXPECT_NE(line.find("expected barrier = \"blade-c\" between them, or a barrier marked control = true"),
              std::string::npos)
        << line;
}

TEST(OneQueueRace, ARepeatedStepRacesWithItself) {
    const std::string line = raceOf("[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\nrepeat = 4\n");
    EXPECT_NE(
        line.find("step 1 dispatch increment (repetition 1 of 4) and step 2 dispatch increment (repetition 2 of 4) "
                  "race on buffer 'a'"),
        std::string::npos)
        << line;
}

TEST(OneQueueRace, BladesBarriersAndAFullMemoryBarrierOrderThem) {
    for (const char* barrier :
         {"barrier = \"blade-c\"\n", "barrier = \"blade-g\"\n",
          "barrier = \"memory\"\nsrc_stage = [\"compute\"]\ndst_stage = [\"compute\"]\n"
          "src_access = [\"shader-write\"]\ndst_access = [\"shader-read\", \"shader-write\"]\n"}) {
        EXPECT_EQ(raceOf(kIncrement + "[[step]]\n" + barrier + kIncrement), "") << barrier;
    }
}

TEST(OneQueueRace, ABarrierWithoutTheWriteOrOnAnotherBufferDoesNotOrderThem) {
    // no src_access: the write is not made available
    EXPECT_NE(raceOf(kIncrement +
                     "[[step]]\nbarrier = \"memory\"\nsrc_stage = [\"compute\"]\ndst_stage = "
                     "[\"compute\"]\ndst_access = [\"shader-read\"]\n" +
                     kIncrement),
              "");
    EXPECT_NE(raceOf(kIncrement +
                     "[[step]]\nbarrier = \"buffer\"\nbuffer = \"b\"\nsrc_stage = [\"compute\"]\n"
                     "dst_stage = [\"compute\"]\nsrc_access = [\"shader-write\"]\ndst_access = "
                     "[\"shader-read\", \"shader-write\"]\n" +
                     kIncrement),
              "");
    // a barrier single leaves out (modes = ["multipass"]) orders nothing there
    EXPECT_NE(raceOf(kIncrement + "[[step]]\nbarrier = \"blade-c\"\nmodes = [\"multipass\"]\n" + kIncrement), "");
}

TEST(OneQueueRace, AWriteAfterReadNeedsTheExecutionDependencyOnly) {
    const std::string copyAtoB = "[[step]]\ncopy = \"b\"\nfrom = \"a\"\n";
    const std::string fillA = "[[step]]\nfill = \"a\"\nvalue = 7\n";
    EXPECT_EQ(raceOf(copyAtoB +
                     "[[step]]\nbarrier = \"memory\"\nsrc_stage = [\"transfer\"]\ndst_stage = "
                     "[\"transfer\"]\n" +
                     fillA),
              "");
    EXPECT_NE(raceOf(copyAtoB + fillA).find("(write-after-read)"), std::string::npos);
}

TEST(OneQueueRace, AControlBarrierLabelsTheRaceAndItRuns) {
    EXPECT_EQ(raceOf(kIncrement + "[[step]]\nbarrier = \"none\"\n" + kIncrement), "");
    EXPECT_EQ(raceOf(kIncrement + "[[step]]\nbarrier = \"blade-c\"\ncontrol = true\n" + kIncrement), "");
}

TEST(OneQueueRace, DisjointBytesAndAHostPointAreNoRace) {
    const std::string fills =
        "[[step]]\nfill = \"b\"\noffset = 0\nsize = 128\nvalue = 1\n"
        "[[step]]\nfill = \"b\"\noffset = 128\nsize = 128\nvalue = 2\n";
    EXPECT_EQ(raceOf(fills), "");
}

// A layout transition is a write of the whole image by its barrier (Vulkan spec, "Image
// Layout Transitions"): the barrier's first scope must hold the image's earlier uses, its
// second scope (or a barrier chained after it) the later ones.
const std::string kImageHead = R"(name = "r"
source = "https://example.org/race"
pattern = "p"
expected = "not reproduced"
check = ["b"]
[[image]]
name = "img"
width = 8
height = 4
init = "iota"
[[buffer]]
name = "b"
bytes = 128
init = "zero"
[[step]]
dispatch = "image-increment"
bindings = ["img"]
)";

// The line parseScenario gives for the image file with `transition`'s stages and accesses in
// its general -> transfer-src barrier, then `between`, then a copy of the image to b.
std::string imageRaceOf(const std::string& transition, const std::string& between = "") {
    try {
        (void)parseScenario(kImageHead + "[[step]]\nbarrier = \"image\"\nimage = \"img\"\nold_layout = \"general\"\n" +
                                "new_layout = \"transfer-src\"\n" + transition + between +
                                "[[step]]\ncopy_image_to_buffer = \"b\"\nfrom = \"img\"\n",
                            "race.toml");
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

TEST(OneQueueRace, ALayoutTransitionWhoseScopesHoldBothSidesIsNoRace) {
    EXPECT_EQ(imageRaceOf("src_stage = [\"compute\"]\nsrc_access = [\"shader-storage-write\"]\n"
                          "dst_stage = [\"transfer\"]\ndst_access = [\"transfer-read\"]\n"),
              "");
}

TEST(OneQueueRace, ALayoutTransitionWhoseFirstScopeMissesTheWriterRacesWithIt) {
    for (const char* scopes : {"src_stage = [\"transfer\"]\nsrc_access = [\"transfer-write\"]\n",  // other stage
                               "src_stage = [\"compute\"]\n"}) {  // the write not made available
        const std::string line =
            imageRaceOf(std::string(scopes) + "dst_stage = [\"transfer\"]\ndst_access = [\"transfer-read\"]\n");
        EXPECT_NE(line.find("step 1 dispatch image-increment and the layout transition of step 2 barrier image"),
                  std::string::npos)
            << line;
        EXPECT_NE(line.find("race on image 'img' (write-after-write)"), std::string::npos) << line;
        EXPECT_NE(line.find("expected the image barrier's src_stage to include [\"compute\"] and its src_access"),
                  std::string::npos)
            << line;
    }
}

TEST(OneQueueRace, AReaderOutsideALayoutTransitionsSecondScopeRacesWithIt) {
    const std::string line = imageRaceOf(
        "src_stage = [\"compute\"]\nsrc_access = [\"shader-storage-write\"]\n"
        "dst_stage = [\"compute\"]\ndst_access = [\"shader-storage-read\"]\n");
    EXPECT_NE(line.find("the layout transition of step 2 barrier image"), std::string::npos) << line;
    EXPECT_NE(line.find("step 3 copy_image_to_buffer"), std::string::npos) << line;
    EXPECT_NE(line.find("race on image 'img' (read-after-write)"), std::string::npos) << line;
    EXPECT_NE(
        line.find("expected the image barrier's dst_stage to include [\"transfer\"] and its dst_access the reads"),
        std::string::npos)
        << line;
    // a barrier chained to the transition's second scope orders the reader after it
    EXPECT_EQ(imageRaceOf("src_stage = [\"compute\"]\nsrc_access = [\"shader-storage-write\"]\n"
                          "dst_stage = [\"compute\"]\n",
                          "[[step]]\nbarrier = \"memory\"\nsrc_stage = [\"compute\"]\ndst_stage = [\"transfer\"]\n"
                          "dst_access = [\"transfer-read\"]\n"),
              "");
}

TEST(OneQueueRace, EveryShippedFileAndTestFileButTheRaceParses) {
    for (const char* dir : {REPRO_SOURCE_DIR "/scenarios", REPRO_SOURCE_DIR "/tests/scenarios"}) {
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            if (entry.path().extension() != ".toml") continue;
            const std::string name = entry.path().filename().string();
            // the user-kernel files' modules are built beside their copies (tests/CMakeLists.txt)
            const bool user = name.rfind("user-kernel-", 0) == 0 && std::string(dir).ends_with("/tests/scenarios");
            try {
                (void)loadScenario(user ? REPRO_USER_KERNEL_DIR "/" + name : entry.path().string());
                EXPECT_NE(name, "race-repeated-increments.toml") << "the race file parsed";
            } catch (const UsageError& e) {
                EXPECT_EQ(name, "race-repeated-increments.toml") << e.what();
            }
        }
    }
}

}  // namespace
}  // namespace repro::scenario
