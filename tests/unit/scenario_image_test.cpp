// Images in scenario files (docs/scenarios.md "Images"): the parser's [[image]] tables, image
// steps and layout rules, and the CPU model of the image kernels and transfers.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "scenario/scenario.hpp"
#include "scenario/scenario_check.hpp"
#include "scenario/scenario_cpu.hpp"
#include "scenario/scenario_parse.hpp"

namespace repro::scenario {
namespace {

const std::string kHeader = R"(name = "t"
source = "https://example.org/report"
pattern = "a test"
expected = "not reproduced"
check = []
)";

// An r32ui 8x4 image with iota texels, checked, and a 256-byte buffer.
const std::string kImage = R"(
[[image]]
name = "img"
width = 8
height = 4
init = "iota"
check = true

[[buffer]]
name = "buf"
bytes = 256
)";

Scenario parsed(const std::string& text) { return parseScenario(text, "img.toml", {}, RaceCheck::Skip); }

std::string errorOf(const std::string& text) {
    try {
        parsed(text);
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

const std::string kToTransferSrc = R"(
[[step]]
barrier = "image"
image = "img"
src_stage = ["compute"]
src_access = ["shader-write"]
dst_stage = ["transfer"]
dst_access = ["transfer-read"]
old_layout = "general"
new_layout = "transfer-src"
)";

TEST(ScenarioImage, AnImageIsABufferOfItsTexelsUnderItsName) {
    const Scenario s = parsed(kHeader + kImage + "[[step]]\ndispatch = \"image-increment\"\nbindings = [\"img\"]\n");
    const BufferSpec& img = *s.buffer("img");
    ASSERT_TRUE(img.image);
    EXPECT_EQ(img.bytes, 8u * 4 * 4);
    EXPECT_TRUE(img.checked);
    EXPECT_EQ(img.image->layout, ImageLayout::General);
    EXPECT_EQ(img.image->finalLayout, ImageLayout::General);
    const auto& d = std::get<Dispatch>(s.steps[0].body);
    EXPECT_EQ(d.params.count, 32u);  // every texel
    EXPECT_EQ(d.groups[0], 1u);
}

// The parser's one walk of the layouts records, per step, the layout each image it names is in
// when it starts (what the recorders and ownershipTransfers read): a barrier's image before its
// transition, a transfer's image after it; a buffer is named by none.
TEST(ScenarioImage, EachStepRecordsTheLayoutsOfItsImagesWhenItStarts) {
    const Scenario s = parsed(kHeader + kImage + "[[step]]\ndispatch = \"image-increment\"\nbindings = [\"img\"]\n" +
                              kToTransferSrc + "[[step]]\ncopy_image_to_buffer = \"buf\"\nfrom = \"img\"\n");
    ASSERT_EQ(s.steps.size(), 3u);
    const std::map<std::string, ImageLayout> general = {{"img", ImageLayout::General}};
    EXPECT_EQ(s.steps[0].layouts, general);
    EXPECT_EQ(s.steps[1].layouts, general);
    EXPECT_EQ(s.steps[2].layouts, (std::map<std::string, ImageLayout>{{"img", ImageLayout::TransferSrc}}));
    EXPECT_EQ(layoutAt(s.steps[2], "img"), ImageLayout::TransferSrc);
    EXPECT_EQ(layoutAt(s.steps[2], "buf"), ImageLayout::Undefined);
    EXPECT_EQ(s.buffer("img")->image->finalLayout, ImageLayout::TransferSrc);
}

TEST(ScenarioImage, CpuModelOfTheImageKernels) {
    const Scenario s = parsed(kHeader + kImage + R"(
[[image]]
name = "copy"
width = 8
height = 4
init = "pattern"
value = 7

[[step]]
dispatch = "image-increment"
bindings = ["img"]
add = 100
count = 20

[[step]]
dispatch = "image-copy"
bindings = ["img", "copy"]
count = 30
)");
    const Contents c = runCpuModel(s);
    for (size_t i = 0; i < 32; ++i) {
        EXPECT_EQ(word(c.at("img"), i), i + (i < 20 ? 100u : 0u)) << i;
        EXPECT_EQ(word(c.at("copy"), i), i < 30 ? word(c.at("img"), i) : 7u) << i;
    }
}

TEST(ScenarioImage, CpuModelOfTheTransfersRowByRow) {
    const Scenario s = parsed(kHeader + kImage + kToTransferSrc + R"(
[[step]]
copy_image_to_buffer = "buf"
from = "img"
offset = [2, 1]
extent = [3, 2]
buffer_offset = 8
)");
    const Contents c = runCpuModel(s);
    // rows 1 and 2 of the image, texels 2..4, packed from byte 8
    const std::vector<uint32_t> want = {0, 0, 10, 11, 12, 18, 19, 20, 0};
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(word(c.at("buf"), i), want[i]) << i;
    const auto ranges = writtenRanges(s.steps[1], s);
    ASSERT_EQ(ranges.size(), 2u);  // one per row
    EXPECT_EQ(ranges[0], (WrittenRange{"buf", 8, 20}));
    EXPECT_EQ(ranges[1], (WrittenRange{"buf", 20, 32}));
}

TEST(ScenarioImage, ClearAndBufferToImage) {
    const Scenario s = parsed(kHeader + kImage + R"(
[[step]]
clear_image = "img"
value = 5

[[step]]
copy_buffer_to_image = "img"
from = "buf"
offset = [6, 3]
extent = [2, 1]
)");
    const Contents c = runCpuModel(s);
    for (size_t i = 0; i < 32; ++i) EXPECT_EQ(word(c.at("img"), i), i >= 30 ? 0u : 5u) << i;
    EXPECT_EQ(writtenRanges(s.steps[1], s).front(), (WrittenRange{"img", 120, 128}));
}

TEST(ScenarioImage, AStepInTheWrongLayoutIsABadFile) {
    const std::string e = errorOf(kHeader + kImage + kToTransferSrc +
                                  "\n[[step]]\ndispatch = \"image-increment\"\nbindings = [\"img\"]\n");
    EXPECT_EQ(e.rfind("img.toml:", 0), 0u) << e;
    EXPECT_NE(e.find("uses image 'img' in layout general, but it is in transfer-src here"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos);
}

TEST(ScenarioImage, ATransitionFromALayoutTheImageIsNotIn) {
    std::string text = kHeader + kImage + kToTransferSrc;
    text.replace(text.find("old_layout = \"general\""), 22, "old_layout = \"transfer-dst\"");
    EXPECT_NE(errorOf(text).find("transitions image 'img' from transfer-dst, but it is in general here"),
              std::string::npos)
        << errorOf(text);
}

TEST(ScenarioImage, ACopyPastTheExtentIsABadFile) {
    const std::string e = errorOf(kHeader + kImage + kToTransferSrc +
                                  "\n[[step]]\ncopy_image_to_buffer = \"buf\"\nfrom = \"img\"\noffset = [4, 0]\n"
                                  "extent = [5, 1]\n");
    EXPECT_NE(e.find("texels [4, 9) x [0, 1) are not inside image 'img' (8x4)"), std::string::npos) << e;
}

TEST(ScenarioImage, UndefinedDiscardsTheContentsAReadAfterItNeedsAControl) {
    std::string text =
        kHeader + kImage + kToTransferSrc + "\n[[step]]\ncopy_image_to_buffer = \"buf\"\nfrom = \"img\"\n";
    text.replace(text.find("old_layout = \"general\""), 22, "old_layout = \"undefined\"");
    EXPECT_NE(errorOf(text).find("reads image 'img', whose contents step 1 barrier image img undefined -> "
                                 "transfer-src discarded"),
              std::string::npos)
        << errorOf(text);
    text.replace(text.find("old_layout"), 0, "control = true\n");
    EXPECT_EQ(errorOf(text), "");
    EXPECT_TRUE(parsed(text).hasControl());
}

TEST(ScenarioImage, BuffersAndImagesKeepToTheirOwnSteps) {
    EXPECT_NE(errorOf(kHeader + kImage + "[[step]]\nfill = \"img\"\n").find("'fill' names 'img', which is an image"),
              std::string::npos);
    EXPECT_NE(errorOf(kHeader + kImage + "[[step]]\ndispatch = \"image-increment\"\nbindings = [\"buf\"]\n")
                  .find("kernel image-increment binds storage images; 'buf' is a buffer"),
              std::string::npos);
    EXPECT_NE(errorOf(kHeader + kImage + "[[step]]\nclear_image = \"buf\"\n").find("'buf', which is a buffer"),
              std::string::npos);
}

// A mismatch line names an image as one and the first differing word as its texel (x, y),
// row-major; a buffer's keeps its word.
TEST(ScenarioImage, AMismatchLineNamesTheImageAndTheTexel) {
    const Scenario s = parsed(kHeader + kImage + "[[step]]\ndispatch = \"image-increment\"\nbindings = [\"img\"]\n");
    const Contents want = runCpuModel(s);
    std::vector<uint8_t> got = want.at("img");
    got[4 * 21 + 1] ^= 1;  // texel 21 of an 8-wide image: (5, 2)
    EXPECT_EQ(firstDifference(s, "img", got, want.at("img"), "the CPU model"),
              "image 'img' differs from the CPU model at byte 85 (texel (5, 2): 0x00000116, the CPU model "
              "0x00000016), last written by step 1 dispatch image-increment; 1 of 32 texels differ");
    std::vector<uint8_t> buf = want.at("buf");
    buf[8] = 1;
    EXPECT_EQ(firstDifference(s, "buf", buf, want.at("buf"), "split"),
              "buffer 'buf' differs from split at byte 8 (word 2: 0x00000001, split 0x00000000), written by no "
              "step (its initial contents); 1 of 64 words differ");
}

// Where several checked buffers differ, the line names the first in the order the results list
// them (Scenario::buffers: the images, then the buffers, each in the file's order), not in the
// order of their names: buffer 'zeta', declared before 'buf', then the image before both.
TEST(ScenarioImage, AMismatchLineNamesTheFirstDifferingBufferInTheFilesOrder) {
    std::string header = kHeader;
    header.replace(header.find("check = []"), 10, "check = [\"zeta\", \"buf\"]");
    const Scenario s = parsed(header + "\n[[buffer]]\nname = \"zeta\"\nbytes = 64\ninit = \"iota\"\n" + kImage +
                              "[[step]]\ndispatch = \"image-increment\"\nbindings = [\"img\"]\n");
    const Contents want = runCpuModel(s);
    Contents got = want;
    got.at("buf")[0] ^= 1;
    got.at("zeta")[4] ^= 1;
    const auto line = compare(s, got, want, "the CPU model");
    ASSERT_TRUE(line.has_value());
    EXPECT_EQ(line->rfind("buffer 'zeta' differs from the CPU model at byte 4", 0), 0u) << *line;
    got.at("img")[0] ^= 1;
    EXPECT_EQ(compare(s, got, want, "the CPU model")->rfind("image 'img' differs", 0), 0u);
}

}  // namespace
}  // namespace repro::scenario
