// Shapes of one chain step (conv-T then slice) and every size derived from them.
// Vulkan-free, so unit tests cover it without a GPU.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.hpp"

namespace repro {

// One chain step's shapes, all in elements. conv-T reads `small` [batch, channels,
// height, width] and the weight [channels, channels, kernelH, kernelW] and writes
// `big` [batch, channels, bigHeight, bigWidth]; slice crops big back to small's shape
// starting at (1, 1). Defaults are the original's (blade issue #356, main.rs).
struct Shape {
    uint32_t batch = 1;
    uint32_t channels = 128;
    uint32_t height = 60;
    uint32_t width = 480;
    uint32_t kernelH = 3;
    uint32_t kernelW = 4;
    uint32_t strideH = 1;
    uint32_t strideW = 2;
    uint32_t padH = 0;
    uint32_t padW = 0;

    bool operator==(const Shape&) const = default;
};

// Named shape presets: "spectrostream" (the original's shapes), "small" and "tiny"
// (fast enough for a CPU driver to run the whole suite in seconds).
const std::vector<std::string_view>& presetNames();
// Throws UsageError for an unknown name.
Shape presetShape(std::string_view name);

// Everything derived from a Shape. Element counts are also byte-checked: every
// buffer's byte size fits VkDeviceSize and every element index fits the shaders'
// 32-bit uint arithmetic.
struct ChainSizes {
    uint32_t bigHeight = 0;    // (height-1)*strideH + kernelH - 2*padH
    uint32_t bigWidth = 0;     // (width-1)*strideW + kernelW - 2*padW
    uint64_t smallElems = 0;   // batch*channels*height*width
    uint64_t bigElems = 0;     // batch*channels*bigHeight*bigWidth
    uint64_t weightElems = 0;  // channels*channels*kernelH*kernelW
    uint64_t smallBytes = 0;
    uint64_t bigBytes = 0;
    uint64_t weightBytes = 0;
    // Workgroup counts: conv-T [ceil(bigWidth/16), ceil(bigHeight/16), batch*channels],
    // slice [ceil(smallElems/256), 1, 1] (the original's dispatch arithmetic).
    std::array<uint32_t, 3> convWorkgroups{};
    std::array<uint32_t, 3> sliceWorkgroups{};
};

// Derives the sizes. Throws UsageError with one line naming the offending field when
// a value is zero, the kernel does not fit the 49-float shared weight tile, the
// padding exceeds what the kernel allows, the conv-T output is too small for the
// crop at (1, 1), or a count overflows 32-bit shader indices or 64-bit byte sizes.
ChainSizes computeSizes(const Shape& shape);

// Memory the chain of `chainLength` steps needs, in bytes, by blade memory class:
// Device holds small[1..N) and big[0..N); Shared holds small[0], small[N], the weight
// and both params blocks. Saturates at UINT64_MAX instead of wrapping.
struct ChainMemory {
    uint64_t deviceBytes = 0;
    uint64_t sharedBytes = 0;
};
ChainMemory chainMemory(const ChainSizes& sizes, uint32_t chainLength);

// The uniform blocks the shaders read, in the original's field order (64 and 32 bytes).
struct ConvParams {
    uint32_t batch, inChannels, inH, inW, outChannels, kernelH, kernelW, strideH, paddingH, outH, outW, paddingW,
        strideW, pad0, pad1, pad2;
};
struct SliceParams {
    uint32_t batch, channels, inH, inW, startH, endH, startW, endW;
};
static_assert(sizeof(ConvParams) == 64 && sizeof(SliceParams) == 32);

// conv-T's params: its "in" is big and its "out" is small (it is the gradient of a
// convolution with respect to that convolution's input).
ConvParams convParams(const Shape& shape, const ChainSizes& sizes);
// slice's params: crop big to small's shape, starting at (1, 1).
SliceParams sliceParams(const Shape& shape, const ChainSizes& sizes);

// The host's wait limit in seconds for one submit holding `convTDispatches` conv-T
// dispatches: `fixed` when the user gave --timeout, else auto: 120 s plus a budget per
// conv-T scaled by its shader loop work (bigElems * C * KH * KW) relative to one
// full-size (spectrostream) conv-T. The budget is 1800 s on a CPU driver (lavapipe on
// 2 busy cores measured ~200-450 s per full-size conv-T) and 60 s on a GPU (which takes
// milliseconds; a real hang on Linux usually ends sooner, in device loss from the
// kernel's job watchdog).
double submitTimeoutSeconds(std::optional<double> fixed, const Shape& shape, uint32_t convTDispatches, bool cpuDevice);

// Human-readable "B x C x H x W" text for messages.
std::string describe(const Shape& shape);

}  // namespace repro
