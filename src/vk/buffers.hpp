// The chain's buffers, created in the original's order and placed as blade places them
// (blade `vulkan/resource.rs`, gpu-alloc 0.6; docs/blade-stream.md "Buffers").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "cli/profile.hpp"
#include "core/shape.hpp"
#include "core/variant.hpp"
#include "vk/memory.hpp"

namespace repro::vk {

class Device;

// Buffers in the original's creation order: conv params, slice params and weight (Shared),
// small[0..N] (Shared for 0 and N, Device otherwise), big[0..N) (Device). --memory moves
// small[] and big[] (params and weight stay Shared).
struct ChainBuffers {
    std::optional<Allocator> allocator;  // first: its shared chunks outlive every buffer
    Buffer convParams;
    Buffer sliceParams;
    Buffer weight;
    std::vector<Buffer> small;  // N + 1
    std::vector<Buffer> big;    // N
    // blade-exact: the 1 MiB Shared "_scratch" buffer blade's create_command_encoder makes
    // (mod.rs:537-553); never bound, but it takes allocator space.
    std::optional<Buffer> scratch;
    // When small[0] is not host-visible (--memory device-local): a Shared copy of the input,
    // copied into small[0] by every mode's clearing submit.
    std::optional<Buffer> upload;
    // Created after the chain's buffers, only when intermediate or device-local results
    // are read back (--check-steps, --sweep, --memory device-local): a Shared buffer of
    // max(big, small) bytes.
    std::optional<Buffer> staging;
};

// How createChainBuffers makes the buffers.
struct ChainBufferOptions {
    BufferMemory placement = BufferMemory::Blade;  // --memory
    ProfileSettings profile;                       // gpu-alloc layout, device-address usage, the scratch buffer
    bool withStaging = false;
};

// Creates the buffers for a chain of `chainLength` steps and writes the params, the weight
// (sizes.weightElems floats) and small[0] (`input`, sizes.smallElems floats) through their
// mappings (the original's memcpy; no flush, the types are HOST_COHERENT), or into
// `upload` when small[0] is not mapped. Throws CannotTest when memory runs out.
ChainBuffers createChainBuffers(const Device& device, const Shape& shape, const ChainSizes& sizes, uint32_t chainLength,
                                std::span<const float> input, std::span<const float> weight,
                                const ChainBufferOptions& options);

}  // namespace repro::vk
