// The chain's buffers (see buffers.hpp).
#include "vk/buffers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "reference/host_read.hpp"
#include "vk/device.hpp"

namespace repro::vk {

ChainBuffers createChainBuffers(const Device& device, const Shape& shape, const ChainSizes& sizes, uint32_t n,
                                std::span<const float> input, std::span<const float> weight,
                                const ChainBufferOptions& options) {
    ChainBuffers b;
    b.allocator.emplace(device, options.profile.gpuAllocLayout);
    Allocator& a = *b.allocator;
    const BufferOptions blade{.deviceAddress = options.profile.deviceAddress && device.features().bufferDeviceAddress};
    BufferOptions chain = blade;
    chain.placement = options.placement;
    const ConvParams conv = convParams(shape, sizes);
    const SliceParams slice = sliceParams(shape, sizes);
    b.convParams = a.create("conv_params", sizeof conv, MemoryClass::Shared, blade);
    copyToMapped(b.convParams.mapped, &conv, sizeof conv);
    b.sliceParams = a.create("slice_params", sizeof slice, MemoryClass::Shared, blade);
    copyToMapped(b.sliceParams.mapped, &slice, sizeof slice);
    b.weight = a.create("weight", sizes.weightBytes, MemoryClass::Shared, blade);
    copyToMapped(b.weight.mapped, weight.data(), weight.size_bytes());
    for (uint32_t i = 0; i <= n; ++i) {
        const MemoryClass cls = (i == 0 || i == n) ? MemoryClass::Shared : MemoryClass::Device;
        b.small.push_back(a.create(fmt::format("small[{}]", i), sizes.smallBytes, cls, chain));
    }
    for (uint32_t i = 0; i < n; ++i) {
        b.big.push_back(a.create(fmt::format("big[{}]", i), sizes.bigBytes, MemoryClass::Device, chain));
    }
    if (options.profile.scratchBuffer) {
        b.scratch = a.create("_scratch", 1 << 20, MemoryClass::Shared, blade);
    }
    if (!b.small[0].mapped) b.upload = a.create("upload", sizes.smallBytes, MemoryClass::Shared, blade);
    copyToMapped((b.upload ? *b.upload : b.small[0]).mapped, input.data(), input.size_bytes());
    if (options.withStaging || !b.small[n].mapped) {
        b.staging = a.create("staging", std::max(sizes.bigBytes, sizes.smallBytes), MemoryClass::Shared, blade);
    }
    return b;
}

}  // namespace repro::vk
