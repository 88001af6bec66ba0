// Shape presets and size arithmetic with overflow checks.
#include "core/shape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "repro_shared.h"

namespace repro {
namespace {

constexpr uint64_t kMaxShaderIndex = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kWeightTile = REPRO_WEIGHT_TILE;
constexpr uint32_t kConvWorkgroupX = REPRO_CONV_WORKGROUP_X;
constexpr uint32_t kConvWorkgroupY = REPRO_CONV_WORKGROUP_Y;
constexpr uint32_t kSliceWorkgroupX = REPRO_SLICE_WORKGROUP_X;

// a*b, or UsageError naming `what` if the product leaves [0, limit].
uint64_t checkedMul(uint64_t a, uint64_t b, uint64_t limit, std::string_view what) {
    if (a != 0 && b > limit / a) {
        throw UsageError(fmt::format("shape: {} overflows ({} x {} > {})", what, a, b, limit));
    }
    return a * b;
}

uint32_t ceilDiv(uint64_t a, uint32_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

uint64_t saturatingMul(uint64_t a, uint64_t b) {
    uint64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}
uint64_t saturatingAdd(uint64_t a, uint64_t b) {
    uint64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

}  // namespace

const std::vector<std::string_view>& presetNames() {
    static const std::vector<std::string_view> names{"spectrostream", "small", "tiny"};
    return names;
}

// small and tiny keep spectrostream's kernel, stride and padding (Shape's defaults).
Shape presetShape(std::string_view name) {
    if (name == "spectrostream") return Shape{};
    if (name == "small") return Shape{.channels = 16, .height = 12, .width = 40};
    if (name == "tiny") return Shape{.batch = 2, .channels = 4, .height = 5, .width = 7};
    throw UsageError(fmt::format("--preset: unknown preset '{}' (known: spectrostream, small, tiny)", name));
}

ChainSizes computeSizes(const Shape& s) {
    const std::pair<uint32_t, std::string_view> positive[] = {
        {s.batch, "--batch"},      {s.channels, "--channels"}, {s.height, "--height"},    {s.width, "--width"},
        {s.kernelH, "--kernel-h"}, {s.kernelW, "--kernel-w"},  {s.strideH, "--stride-h"}, {s.strideW, "--stride-w"},
    };
    for (const auto& [value, name] : positive) {
        if (value == 0) throw UsageError(fmt::format("{}: must be at least 1 (got 0)", name));
    }
    const std::pair<uint32_t, std::string_view> signedInShader[] = {
        {s.strideH, "--stride-h"}, {s.strideW, "--stride-w"}, {s.padH, "--pad-h"}, {s.padW, "--pad-w"}};
    for (const auto& [value, name] : signedInShader) {
        if (value > uint32_t{std::numeric_limits<int32_t>::max()}) {
            throw UsageError(fmt::format("{}: {} does not fit conv-T's signed 32-bit arithmetic", name, value));
        }
    }
    const uint64_t kernelSize = uint64_t{s.kernelH} * s.kernelW;
    if (kernelSize > kWeightTile) {
        throw UsageError(fmt::format("shape: kernel {}x{} has {} weights, more than conv-T's {}-float shared tile",
                                     s.kernelH, s.kernelW, kernelSize, kWeightTile));
    }
    // big = (in-1)*stride + kernel - 2*pad, computed in 64 bits, then bounded.
    const int64_t bigH = (int64_t{s.height} - 1) * s.strideH + s.kernelH - 2 * int64_t{s.padH};
    const int64_t bigW = (int64_t{s.width} - 1) * s.strideW + s.kernelW - 2 * int64_t{s.padW};
    // slice crops [1, 1 + height) x [1, 1 + width), so big must be at least one larger.
    if (bigH < int64_t{s.height} + 1 || bigW < int64_t{s.width} + 1) {
        throw UsageError(
            fmt::format("shape: conv-T output {}x{} is too small for slice to crop {}x{} at (1, 1); "
                        "reduce padding or grow the kernel or stride",
                        bigH, bigW, s.height, s.width));
    }
    if (bigH > int64_t{kMaxShaderIndex} || bigW > int64_t{kMaxShaderIndex}) {
        throw UsageError(fmt::format("shape: conv-T output {}x{} overflows 32-bit indices", bigH, bigW));
    }

    ChainSizes z;
    z.bigHeight = static_cast<uint32_t>(bigH);
    z.bigWidth = static_cast<uint32_t>(bigW);
    const uint64_t lim = kMaxShaderIndex;
    const uint64_t planes = checkedMul(s.batch, s.channels, lim, "batch x channels");
    z.smallElems =
        checkedMul(checkedMul(planes, s.height, lim, "small element count"), s.width, lim, "small element count");
    z.bigElems =
        checkedMul(checkedMul(planes, z.bigHeight, lim, "big element count"), z.bigWidth, lim, "big element count");
    z.weightElems = checkedMul(checkedMul(s.channels, s.channels, lim, "weight element count"), kernelSize, lim,
                               "weight element count");
    // The shader's gather index (n*C + co)*H*W and its weight index must fit too; they are
    // bounded by the element counts checked above.
    z.smallBytes = z.smallElems * sizeof(float);
    z.bigBytes = z.bigElems * sizeof(float);
    z.weightBytes = z.weightElems * sizeof(float);
    z.convWorkgroups = {ceilDiv(z.bigWidth, kConvWorkgroupX), ceilDiv(z.bigHeight, kConvWorkgroupY),
                        static_cast<uint32_t>(planes)};
    z.sliceWorkgroups = {ceilDiv(z.smallElems, kSliceWorkgroupX), 1, 1};
    return z;
}

ChainMemory chainMemory(const ChainSizes& z, uint32_t n) {
    ChainMemory m;
    const uint64_t endpoints = n == 0 ? 1 : 2;  // small[0] and small[N]
    const uint64_t middle = n == 0 ? 0 : uint64_t{n} - 1;
    m.deviceBytes = saturatingAdd(saturatingMul(middle, z.smallBytes), saturatingMul(n, z.bigBytes));
    m.sharedBytes = saturatingAdd(endpoints * z.smallBytes, z.weightBytes + sizeof(ConvParams) + sizeof(SliceParams));
    return m;
}

ConvParams convParams(const Shape& s, const ChainSizes& z) {
    return ConvParams{.batch = s.batch,
                      .inChannels = s.channels,
                      .inH = z.bigHeight,
                      .inW = z.bigWidth,
                      .outChannels = s.channels,
                      .kernelH = s.kernelH,
                      .kernelW = s.kernelW,
                      .strideH = s.strideH,
                      .paddingH = s.padH,
                      .outH = s.height,
                      .outW = s.width,
                      .paddingW = s.padW,
                      .strideW = s.strideW,
                      .pad0 = 0,
                      .pad1 = 0,
                      .pad2 = 0};
}

SliceParams sliceParams(const Shape& s, const ChainSizes& z) {
    return SliceParams{.batch = s.batch,
                       .channels = s.channels,
                       .inH = z.bigHeight,
                       .inW = z.bigWidth,
                       .startH = 1,
                       .endH = z.bigHeight - 1 - s.height,
                       .startW = 1,
                       .endW = z.bigWidth - 1 - s.width};
}

double submitTimeoutSeconds(std::optional<double> fixed, const Shape& shape, uint32_t convTDispatches, bool cpuDevice) {
    if (fixed) return *fixed;
    auto loopWork = [](const Shape& s) {
        const ChainSizes z = computeSizes(s);
        return double(z.bigElems) * s.channels * s.kernelH * s.kernelW;
    };
    static const double kFullSize = loopWork(Shape{});
    const double budget = cpuDevice ? 1800.0 : 60.0;
    return 120.0 + budget * convTDispatches * (loopWork(shape) / kFullSize);
}

std::string describe(const Shape& s) {
    return fmt::format("batch {} x channels {} x {}x{}, kernel {}x{}, stride {}x{}, padding {}x{}", s.batch, s.channels,
                       s.height, s.width, s.kernelH, s.kernelW, s.strideH, s.strideW, s.padH, s.padW);
}

}  // namespace repro
