// Unit tests for src/core/shape.{hpp,cpp}: presets, derived sizes, the uniform blocks
// and every UsageError path of computeSizes, including the 32-bit overflow edges.
#include "core/shape.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace repro {
namespace {

constexpr uint64_t kU32Max = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kI32Max = static_cast<uint32_t>(std::numeric_limits<int32_t>::max());

// The message of the UsageError computeSizes throws for `s`; fails the test when none.
std::string usageErrorOf(const Shape& s) {
    try {
        (void)computeSizes(s);
    } catch (const UsageError& e) {
        return e.what();
    }
    ADD_FAILURE() << "computeSizes did not throw UsageError for " << describe(s);
    return {};
}

// A shape whose big buffer is bigH x bigW with one plane and a 1x1 kernel:
// bigX = (2-1)*strideX + 1 - 0 = strideX + 1, small is 2x2.
Shape bigPlane(uint32_t bigH, uint32_t bigW) {
    return Shape{.batch = 1,
                 .channels = 1,
                 .height = 2,
                 .width = 2,
                 .kernelH = 1,
                 .kernelW = 1,
                 .strideH = bigH - 1,
                 .strideW = bigW - 1,
                 .padH = 0,
                 .padW = 0};
}

// ---- presets -------------------------------------------------------------------------

TEST(ShapePresets, NamesAreTheThreeKnownPresetsInOrder) {
    const auto& names = presetNames();
    ASSERT_EQ(names.size(), 3u);
    EXPECT_EQ(names[0], "spectrostream");
    EXPECT_EQ(names[1], "small");
    EXPECT_EQ(names[2], "tiny");
}

TEST(ShapePresets, SpectrostreamIsTheOriginalsShape) {
    const Shape s = presetShape("spectrostream");
    EXPECT_EQ(s.batch, 1u);
    EXPECT_EQ(s.channels, 128u);
    EXPECT_EQ(s.height, 60u);
    EXPECT_EQ(s.width, 480u);
    EXPECT_EQ(s.kernelH, 3u);
    EXPECT_EQ(s.kernelW, 4u);
    EXPECT_EQ(s.strideH, 1u);
    EXPECT_EQ(s.strideW, 2u);
    EXPECT_EQ(s.padH, 0u);
    EXPECT_EQ(s.padW, 0u);
    EXPECT_EQ(s, Shape{});  // the defaults are the original's too
}

TEST(ShapePresets, SpectrostreamSizesMatchTheOriginalsOutput) {
    // Original: "small=3686400 big=7634432", "conv-T wgs=[61, 4, 128], slice wgs=[14400, 1, 1]".
    const ChainSizes z = computeSizes(presetShape("spectrostream"));
    EXPECT_EQ(z.bigHeight, 62u);  // (60-1)*1 + 3
    EXPECT_EQ(z.bigWidth, 962u);  // (480-1)*2 + 4
    EXPECT_EQ(z.smallElems, 3686400u);
    EXPECT_EQ(z.bigElems, 7634432u);
    EXPECT_EQ(z.weightElems, 196608u);  // 128*128*3*4
    EXPECT_EQ(z.smallBytes, 3686400u * 4);
    EXPECT_EQ(z.bigBytes, 7634432u * 4);
    EXPECT_EQ(z.weightBytes, 196608u * 4);
    EXPECT_EQ(z.bigBytes / 1024 / 1024, 29u);  // "29 MiB"
    EXPECT_EQ(z.convWorkgroups, (std::array<uint32_t, 3>{61, 4, 128}));
    EXPECT_EQ(z.sliceWorkgroups, (std::array<uint32_t, 3>{14400, 1, 1}));
}

TEST(ShapePresets, SpectrostreamConvParamsAreTheOriginals) {
    const Shape s = presetShape("spectrostream");
    const ConvParams p = convParams(s, computeSizes(s));
    EXPECT_EQ(p.batch, 1u);
    EXPECT_EQ(p.inChannels, 128u);
    EXPECT_EQ(p.inH, 62u);  // conv-T's "in" is big
    EXPECT_EQ(p.inW, 962u);
    EXPECT_EQ(p.outChannels, 128u);
    EXPECT_EQ(p.kernelH, 3u);
    EXPECT_EQ(p.kernelW, 4u);
    EXPECT_EQ(p.strideH, 1u);
    EXPECT_EQ(p.paddingH, 0u);
    EXPECT_EQ(p.outH, 60u);  // and its "out" is small
    EXPECT_EQ(p.outW, 480u);
    EXPECT_EQ(p.paddingW, 0u);
    EXPECT_EQ(p.strideW, 2u);
    EXPECT_EQ(p.pad0, 0u);
    EXPECT_EQ(p.pad1, 0u);
    EXPECT_EQ(p.pad2, 0u);
}

TEST(ShapePresets, SpectrostreamSliceParamsAreTheOriginals) {
    // Original: SliceParams { batch, channels: in_c, in_h: out_h, in_w: out_w,
    //                         start_h: 1, end_h: 1, start_w: 1, end_w: 481 }
    const Shape s = presetShape("spectrostream");
    const SliceParams p = sliceParams(s, computeSizes(s));
    EXPECT_EQ(p.batch, 1u);
    EXPECT_EQ(p.channels, 128u);
    EXPECT_EQ(p.inH, 62u);
    EXPECT_EQ(p.inW, 962u);
    EXPECT_EQ(p.startH, 1u);
    EXPECT_EQ(p.endH, 1u);
    EXPECT_EQ(p.startW, 1u);
    EXPECT_EQ(p.endW, 481u);
}

TEST(ShapePresets, EveryPresetIsValidAndSliceCropsBackToSmall) {
    for (const auto name : presetNames()) {
        SCOPED_TRACE(std::string{name});
        const Shape s = presetShape(name);
        const ChainSizes z = computeSizes(s);
        EXPECT_EQ(z.smallElems, uint64_t{s.batch} * s.channels * s.height * s.width);
        EXPECT_EQ(z.bigElems, uint64_t{s.batch} * s.channels * z.bigHeight * z.bigWidth);
        // The slice shader's out_h = in_h - start_h - end_h must be small's height.
        const SliceParams p = sliceParams(s, z);
        EXPECT_EQ(p.inH - p.startH - p.endH, s.height);
        EXPECT_EQ(p.inW - p.startW - p.endW, s.width);
        EXPECT_EQ(uint64_t{p.batch} * p.channels * (p.inH - p.startH - p.endH) * (p.inW - p.startW - p.endW),
                  z.smallElems);
    }
}

TEST(ShapePresets, SmallAndTinyHaveTheirDocumentedSizes) {
    const Shape small = presetShape("small");
    EXPECT_EQ(small, (Shape{.batch = 1,
                            .channels = 16,
                            .height = 12,
                            .width = 40,
                            .kernelH = 3,
                            .kernelW = 4,
                            .strideH = 1,
                            .strideW = 2}));
    const ChainSizes zs = computeSizes(small);
    EXPECT_EQ(zs.bigHeight, 14u);  // 11 + 3
    EXPECT_EQ(zs.bigWidth, 82u);   // 39*2 + 4
    EXPECT_EQ(zs.smallElems, 16u * 12 * 40);
    EXPECT_EQ(zs.convWorkgroups, (std::array<uint32_t, 3>{6, 1, 16}));   // ceil(82/16), ceil(14/16)
    EXPECT_EQ(zs.sliceWorkgroups, (std::array<uint32_t, 3>{30, 1, 1}));  // 7680/256

    const Shape tiny = presetShape("tiny");
    const ChainSizes zt = computeSizes(tiny);
    EXPECT_EQ(zt.bigHeight, 7u);  // 4 + 3
    EXPECT_EQ(zt.bigWidth, 16u);  // 6*2 + 4
    EXPECT_EQ(zt.smallElems, 2u * 4 * 5 * 7);
    EXPECT_EQ(zt.bigElems, 2u * 4 * 7 * 16);
    EXPECT_EQ(zt.convWorkgroups, (std::array<uint32_t, 3>{1, 1, 8}));   // batch*channels
    EXPECT_EQ(zt.sliceWorkgroups, (std::array<uint32_t, 3>{2, 1, 1}));  // ceil(280/256)
}

TEST(ShapePresets, UnknownPresetIsAUsageErrorNamingIt) {
    try {
        (void)presetShape("huge");
        FAIL() << "no UsageError";
    } catch (const UsageError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("--preset"), std::string::npos) << msg;
        EXPECT_NE(msg.find("huge"), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    EXPECT_THROW((void)presetShape(""), UsageError);
    EXPECT_THROW((void)presetShape("Spectrostream"), UsageError);  // names are exact
}

// ---- rejected values -----------------------------------------------------------------

TEST(ShapeValidation, EveryZeroFieldIsRejectedWithItsFlag) {
    struct Case {
        uint32_t Shape::*field;
        const char* flag;
    };
    const Case cases[] = {
        {&Shape::batch, "--batch"},      {&Shape::channels, "--channels"}, {&Shape::height, "--height"},
        {&Shape::width, "--width"},      {&Shape::kernelH, "--kernel-h"},  {&Shape::kernelW, "--kernel-w"},
        {&Shape::strideH, "--stride-h"}, {&Shape::strideW, "--stride-w"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.flag);
        Shape s{};
        s.*c.field = 0;
        const std::string msg = usageErrorOf(s);
        EXPECT_NE(msg.find(c.flag), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
}

TEST(ShapeValidation, ZeroPaddingIsAllowed) {
    Shape s{};
    s.padH = 0;
    s.padW = 0;
    EXPECT_NO_THROW((void)computeSizes(s));
}

TEST(ShapeValidation, KernelOf49WeightsFitsTheTileAndMoreDoesNot) {
    Shape s{};
    s.kernelH = 7;
    s.kernelW = 7;  // 49: exactly the shared tile
    EXPECT_NO_THROW((void)computeSizes(s));
    s.kernelW = 8;  // 56
    std::string msg = usageErrorOf(s);
    EXPECT_NE(msg.find("kernel"), std::string::npos) << msg;
    EXPECT_NE(msg.find("7x8"), std::string::npos) << msg;
    s = Shape{};
    s.kernelH = 50;  // 50x1
    s.kernelW = 1;
    msg = usageErrorOf(s);
    EXPECT_NE(msg.find("kernel"), std::string::npos) << msg;
    // A kernel whose product overflows 32 bits must not wrap into the allowed range:
    // 65536 * 65536 = 2^32 wraps to 0 in uint32 arithmetic.
    s.kernelH = 65536;
    s.kernelW = 65536;
    msg = usageErrorOf(s);
    EXPECT_NE(msg.find("kernel"), std::string::npos) << msg;
}

TEST(ShapeValidation, PaddingThatLeavesNoRoomForTheCropIsRejected) {
    // spectrostream: bigH = 62 - 2*padH must be >= 61, bigW = 962 - 2*padW >= 481.
    Shape s{};
    s.padH = 1;  // bigH 60 < 61
    std::string msg = usageErrorOf(s);
    EXPECT_NE(msg.find("too small"), std::string::npos) << msg;
    EXPECT_NE(msg.find("60x962"), std::string::npos) << msg;  // names the conv-T output

    s = Shape{};
    s.padW = 240;  // bigW 482: still room for the crop
    const ChainSizes z = computeSizes(s);
    EXPECT_EQ(z.bigWidth, 482u);
    EXPECT_EQ(sliceParams(s, z).endW, 1u);
    s.padW = 241;  // bigW 480 < 481
    msg = usageErrorOf(s);
    EXPECT_NE(msg.find("too small"), std::string::npos) << msg;

    // Padding so large that (in-1)*stride + kernel - 2*pad is negative in 64 bits.
    s = Shape{};
    s.padH = 1'000'000;
    msg = usageErrorOf(s);
    EXPECT_NE(msg.find("too small"), std::string::npos) << msg;
}

TEST(ShapeValidation, StrideAndPaddingAboveInt32MaxAreRejected) {
    struct Case {
        uint32_t Shape::*field;
        const char* flag;
    };
    const Case cases[] = {{&Shape::strideH, "--stride-h"},
                          {&Shape::strideW, "--stride-w"},
                          {&Shape::padH, "--pad-h"},
                          {&Shape::padW, "--pad-w"}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.flag);
        Shape s{};
        s.*c.field = kI32Max + 1u;
        const std::string msg = usageErrorOf(s);
        EXPECT_NE(msg.find(c.flag), std::string::npos) << msg;
        EXPECT_NE(msg.find("signed 32-bit"), std::string::npos) << msg;
        s.*c.field = std::numeric_limits<uint32_t>::max();
        EXPECT_THROW((void)computeSizes(s), UsageError);
    }
}

TEST(ShapeValidation, StrideOfExactlyInt32MaxIsNotRejectedAsSigned) {
    // height 2: bigH = 1*strideH + 3 - 0 = INT32_MAX + 3 fits 32 bits; with width 1
    // (bigW = 4) and one plane the big buffer holds (2^31 + 2) * 4 elements > 2^32 - 1,
    // so the only complaint may be the element count, never the signed stride.
    Shape s{.batch = 1,
            .channels = 1,
            .height = 2,
            .width = 1,
            .kernelH = 3,
            .kernelW = 4,
            .strideH = kI32Max,
            .strideW = 1};
    const std::string msg = usageErrorOf(s);
    EXPECT_EQ(msg.find("signed"), std::string::npos) << msg;
    EXPECT_NE(msg.find("big element count"), std::string::npos) << msg;
}

// ---- overflow edges -------------------------------------------------------------------

TEST(ShapeOverflow, BigElementCountOfExactly2To32Minus1IsAccepted) {
    // 2^32 - 1 = 65535 * 65537.
    const Shape s = bigPlane(65537, 65535);
    const ChainSizes z = computeSizes(s);
    EXPECT_EQ(z.bigHeight, 65537u);
    EXPECT_EQ(z.bigWidth, 65535u);
    EXPECT_EQ(z.bigElems, kU32Max);
    EXPECT_EQ(z.bigBytes, kU32Max * 4);  // 64-bit byte size, no 32-bit wrap
    EXPECT_EQ(z.smallElems, 4u);
    EXPECT_EQ(z.convWorkgroups, (std::array<uint32_t, 3>{4096, 4097, 1}));  // ceil(65535/16)
}

TEST(ShapeOverflow, BigElementCountOf2To32IsRejected) {
    const std::string msg = usageErrorOf(bigPlane(65536, 65536));  // exactly 2^32
    EXPECT_NE(msg.find("big element count"), std::string::npos) << msg;
    EXPECT_NE(msg.find("overflows"), std::string::npos) << msg;
}

TEST(ShapeOverflow, BatchTimesBigPlaneOverflowIsRejected) {
    // 65537 * 21845 = (2^32 - 1) / 3, so 3 planes are exactly 2^32 - 1 elements and 4 are over.
    Shape s = bigPlane(65537, 21845);
    s.batch = 3;
    ChainSizes z = computeSizes(s);
    EXPECT_EQ(z.bigElems, kU32Max);
    EXPECT_EQ(z.convWorkgroups[2], 3u);
    s.batch = 4;
    EXPECT_NE(usageErrorOf(s).find("big element count"), std::string::npos);
    // The same through channels (planes = batch * channels).
    s.batch = 1;
    s.channels = 3;
    z = computeSizes(s);
    EXPECT_EQ(z.bigElems, kU32Max);
    s.channels = 4;
    EXPECT_NE(usageErrorOf(s).find("big element count"), std::string::npos);
}

TEST(ShapeOverflow, BatchTimesChannelsOverflowIsRejected) {
    Shape s = presetShape("tiny");
    s.batch = 65536;
    s.channels = 65536;  // 2^32 planes: wraps to 0 in 32 bits
    const std::string msg = usageErrorOf(s);
    EXPECT_NE(msg.find("overflows"), std::string::npos) << msg;
}

TEST(ShapeOverflow, WeightElementCountEdge) {
    // 1x1 kernel with stride 2 so the crop fits: bigX = (2-1)*2 + 1 = 3 >= 2 + 1.
    Shape s{
        .batch = 1, .channels = 65535, .height = 2, .width = 2, .kernelH = 1, .kernelW = 1, .strideH = 2, .strideW = 2};
    ChainSizes z = computeSizes(s);
    EXPECT_EQ(z.weightElems, 65535ull * 65535);  // 4294836225 <= 2^32 - 1
    EXPECT_EQ(z.bigElems, 65535ull * 9);
    s.channels = 65536;  // 2^32 weights
    std::string msg = usageErrorOf(s);
    EXPECT_NE(msg.find("weight element count"), std::string::npos) << msg;
    // channels^2 fits but times the kernel size does not: 32768^2 * 4 = 2^32.
    s.channels = 32768;
    s.kernelW = 4;  // bigW = 2 + 4 = 6
    msg = usageErrorOf(s);
    EXPECT_NE(msg.find("weight element count"), std::string::npos) << msg;
    s.kernelW = 3;  // 32768^2 * 3 = 3 * 2^30 fits
    z = computeSizes(s);
    EXPECT_EQ(z.weightElems, 3ull << 30);
    EXPECT_EQ(z.weightBytes, 3ull << 32);
}

TEST(ShapeOverflow, SmallElementCountIsCheckedBeforeBig) {
    // height*width alone over 2^32 - 1 with a 1x1 kernel and stride 2.
    Shape s{.batch = 1,
            .channels = 1,
            .height = 65536,
            .width = 65536,
            .kernelH = 1,
            .kernelW = 1,
            .strideH = 2,
            .strideW = 2};
    const std::string msg = usageErrorOf(s);
    EXPECT_NE(msg.find("small element count"), std::string::npos) << msg;
}

TEST(ShapeOverflow, ConvOutputBeyond32BitsIsRejected) {
    // bigH = (height-1)*strideH + 3 = 2 * INT32_MAX + 3 > 2^32 - 1.
    Shape s{.batch = 1,
            .channels = 1,
            .height = 3,
            .width = 1,
            .kernelH = 3,
            .kernelW = 4,
            .strideH = kI32Max,
            .strideW = 1};
    const std::string msg = usageErrorOf(s);
    EXPECT_NE(msg.find("overflows"), std::string::npos) << msg;
}

// ---- chainMemory ------------------------------------------------------------------------

TEST(ShapeChainMemory, SpectrostreamArithmetic) {
    const ChainSizes z = computeSizes(presetShape("spectrostream"));
    // Device: small[1..N) and big[0..N); Shared: small[0], small[N], weight, 64 + 32 bytes of params.
    const uint64_t small = 3686400ull * 4, big = 7634432ull * 4, weight = 196608ull * 4;
    EXPECT_EQ(chainMemory(z, 6).deviceBytes, 5 * small + 6 * big);
    EXPECT_EQ(chainMemory(z, 6).sharedBytes, 2 * small + weight + 96);
    EXPECT_EQ(chainMemory(z, 7).deviceBytes, 6 * small + 7 * big);
    EXPECT_EQ(chainMemory(z, 1).deviceBytes, big);
    EXPECT_EQ(chainMemory(z, 1).sharedBytes, 2 * small + weight + 96);
    EXPECT_EQ(chainMemory(z, 0).deviceBytes, 0u);
    EXPECT_EQ(chainMemory(z, 0).sharedBytes, small + weight + 96);
}

TEST(ShapeChainMemory, NoThirtyTwoBitWrapForLongChains) {
    const ChainSizes z = computeSizes(presetShape("spectrostream"));
    const uint64_t n = std::numeric_limits<uint32_t>::max();
    const uint64_t small = 3686400ull * 4, big = 7634432ull * 4;
    // (2^32 - 2) * small + (2^32 - 1) * big ~ 2^57: must be computed in 64 bits.
    EXPECT_EQ(chainMemory(z, static_cast<uint32_t>(n)).deviceBytes, (n - 1) * small + n * big);
}

// For the largest buffers computeSizes accepts (bigElems = 2^32 - 1, 16 GiB each) and the
// largest chain length (-n 4294967295) the true size is about 2^66 bytes: chainMemory must
// saturate, never wrap to a small number that a memory check would accept.
TEST(ShapeChainMemory, LargestAcceptedChainSaturatesInsteadOfWrapping) {
    const ChainSizes z = computeSizes(bigPlane(65537, 65535));
    ASSERT_EQ(z.bigBytes, kU32Max * 4);
    // 2^29 steps: about 2^63 bytes, still representable.
    const uint64_t half = chainMemory(z, 1u << 29).deviceBytes;
    ASSERT_GT(half, uint64_t{1} << 62);
    // More steps can never need fewer bytes.
    EXPECT_EQ(chainMemory(z, std::numeric_limits<uint32_t>::max()).deviceBytes, std::numeric_limits<uint64_t>::max())
        << "chainMemory wrapped around 2^64";
}

// ---- submitTimeoutSeconds ----------------------------------------------------------------

TEST(ShapeSubmitTimeout, FixedTimeoutWins) {
    EXPECT_EQ(submitTimeoutSeconds(5.0, Shape{}, 14, true), 5.0);
    EXPECT_EQ(submitTimeoutSeconds(0.25, presetShape("tiny"), 0, false), 0.25);
}

TEST(ShapeSubmitTimeout, AutoIs120sPlusABudgetPerFullSizeConvT) {
    // spectrostream is the unit of work: 60 s per conv-T on a GPU, 1800 s on a CPU driver.
    EXPECT_DOUBLE_EQ(submitTimeoutSeconds(std::nullopt, Shape{}, 1, false), 180.0);
    EXPECT_DOUBLE_EQ(submitTimeoutSeconds(std::nullopt, Shape{}, 7, false), 540.0);
    EXPECT_DOUBLE_EQ(submitTimeoutSeconds(std::nullopt, Shape{}, 1, true), 1920.0);
    // The single and multipass modes put all N conv-T in one submit: N = 6 on lavapipe.
    EXPECT_DOUBLE_EQ(submitTimeoutSeconds(std::nullopt, Shape{}, 6, true), 10920.0);
    EXPECT_DOUBLE_EQ(submitTimeoutSeconds(std::nullopt, Shape{}, 0, true), 120.0);
}

TEST(ShapeSubmitTimeout, AutoScalesWithTheShadersLoopWork) {
    // Work = bigElems * C * KH * KW. Doubling the batch doubles bigElems and the budget.
    Shape twice{};
    twice.batch = 2;
    EXPECT_DOUBLE_EQ(submitTimeoutSeconds(std::nullopt, twice, 1, false), 240.0);
    // tiny: 896 big elements * 4 * 3 * 4 = 43008 vs 7634432 * 128 * 12 for spectrostream.
    const double ratio = 43008.0 / (7634432.0 * 128 * 12);
    EXPECT_DOUBLE_EQ(submitTimeoutSeconds(std::nullopt, presetShape("tiny"), 12, true), 120.0 + 1800.0 * 12 * ratio);
}

// ---- describe ---------------------------------------------------------------------------

TEST(ShapeDescribe, NamesEveryField) {
    EXPECT_EQ(describe(Shape{}), "batch 1 x channels 128 x 60x480, kernel 3x4, stride 1x2, padding 0x0");
    const Shape s{.batch = 2,
                  .channels = 4,
                  .height = 5,
                  .width = 7,
                  .kernelH = 3,
                  .kernelW = 4,
                  .strideH = 1,
                  .strideW = 2,
                  .padH = 1,
                  .padW = 0};
    EXPECT_EQ(describe(s), "batch 2 x channels 4 x 5x7, kernel 3x4, stride 1x2, padding 1x0");
}

}  // namespace
}  // namespace repro
