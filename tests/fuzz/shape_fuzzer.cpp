// libFuzzer target: shape values straight into computeSizes (src/core/shape.hpp), past
// the option parser's range checks. Every shape either throws UsageError or yields sizes
// that keep computeSizes' contract: element counts within the shaders' 32-bit indices,
// byte sizes of exactly 4 bytes per element, workgroups that cover the output; and the
// derived values (memory, params, timeout) are computed without undefined behaviour.
//
// Input: up to 11 little-endian uint32 values, missing bytes zero: batch, channels,
// height, width, kernelH, kernelW, strideH, strideW, padH, padW, chain length.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/shape.hpp"

namespace {

[[noreturn]] void broken() { std::abort(); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    uint32_t v[11] = {};
    std::memcpy(v, data, size < sizeof v ? size : sizeof v);
    const repro::Shape s{.batch = v[0],
                         .channels = v[1],
                         .height = v[2],
                         .width = v[3],
                         .kernelH = v[4],
                         .kernelW = v[5],
                         .strideH = v[6],
                         .strideW = v[7],
                         .padH = v[8],
                         .padW = v[9]};
    const uint32_t chainLength = v[10];
    repro::ChainSizes z;
    try {
        z = repro::computeSizes(s);
    } catch (const repro::UsageError&) {
        return 0;
    }
    constexpr uint64_t kIndex = std::numeric_limits<uint32_t>::max();
    if (z.smallElems > kIndex || z.bigElems > kIndex || z.weightElems > kIndex) broken();
    if (z.smallBytes != 4 * z.smallElems || z.bigBytes != 4 * z.bigElems || z.weightBytes != 4 * z.weightElems) {
        broken();
    }
    if (uint64_t{z.bigHeight} < uint64_t{s.height} + 1 || uint64_t{z.bigWidth} < uint64_t{s.width} + 1) broken();
    if (uint64_t{z.convWorkgroups[0]} * 16 < z.bigWidth || uint64_t{z.convWorkgroups[1]} * 16 < z.bigHeight) broken();
    if (uint64_t{z.sliceWorkgroups[0]} * 256 < z.smallElems) broken();
    const repro::ChainMemory m = repro::chainMemory(z, chainLength);
    // Saturating, never wrapping: one step more never needs fewer bytes.
    if (chainLength > 0 && repro::chainMemory(z, chainLength - 1).deviceBytes > m.deviceBytes) broken();
    const repro::SliceParams slice = repro::sliceParams(s, z);
    if (slice.endH > z.bigHeight || slice.endW > z.bigWidth) broken();
    (void)repro::convParams(s, z);
    const double timeout = repro::submitTimeoutSeconds(std::nullopt, s, chainLength, chainLength & 1);
    if (!std::isfinite(timeout) || timeout < 120.0) broken();
    (void)repro::describe(s);
    return 0;
}
