// --profile as one typed object: every way blade-exact's set-up differs from the default,
// decided once from the option and passed to the code each decision belongs to (device
// creation, buffers, pipelines, SPIR-V choice, recording). Vulkan-free.
// The quirks are blade-graphics 72c30c1's (docs/blade-stream.md lists each with its
// blade source line); the default takes the nearest valid Vulkan instead.
#pragma once

#include <string_view>

#include "core/variant.hpp"

namespace repro {

struct ProfileSettings {
    Profile profile = Profile::Default;
    // Queue family 0 whatever its flags (blade init.rs:297); the default takes the first
    // family with COMPUTE when family 0 has none.
    bool queueFamilyZeroAlways = false;
    // blade's descriptor-indexing features for its binding arrays (init.rs:1026-1035).
    bool bindingArrayFeatures = false;
    // VK_KHR_cooperative_matrix with cooperativeMatrix and vulkanMemoryModel, and with an
    // f16 tile the two 16-bit storage features, where blade finds a tile (init.rs:474-538,
    // 986-991, 1062-1094).
    bool cooperativeMatrix = false;
    // gpu-alloc 0.6's sub-allocation layout (vk/gpu_alloc.hpp) instead of one
    // vkAllocateMemory per buffer.
    bool gpuAllocLayout = false;
    // SHADER_DEVICE_ADDRESS usage on every buffer and the DEVICE_ADDRESS allocation flag,
    // where bufferDeviceAddress is enabled (blade resource.rs:363-426).
    bool deviceAddress = false;
    // blade's 1 MiB Shared "_scratch" buffer after the chain's (mod.rs:537-553).
    bool scratchBuffer = false;
    // CAPTURE_STATISTICS pipelines and vkGetShaderInfoAMD where the extensions are enabled
    // (blade pipeline.rs:384-443).
    bool pipelineStatistics = false;
    // The built-in SPIR-V declares `params` as a Uniform block and names the entry points
    // conv_t and slice, as naga emits them; every binding is written through a
    // STORAGE_BUFFER descriptor whatever the SPIR-V declares (blade pipeline.rs:224-229).
    bool nagaInterface = false;
    // The default records a barrier to HOST_READ before the host reads small[N]; blade has
    // none (its closing barrier's ALL_COMMANDS scope does not include HOST).
    bool hostReadBarrier = true;

    bool bladeExact() const { return profile == Profile::BladeExact; }
};

// The settings of `profile`: the default is valid Vulkan; blade-exact turns on every
// field above (and hostReadBarrier off).
constexpr ProfileSettings profileSettings(Profile profile) {
    if (profile == Profile::Default) return ProfileSettings{};
    return ProfileSettings{.profile = Profile::BladeExact,
                           .queueFamilyZeroAlways = true,
                           .bindingArrayFeatures = true,
                           .cooperativeMatrix = true,
                           .gpuAllocLayout = true,
                           .deviceAddress = true,
                           .scratchBuffer = true,
                           .pipelineStatistics = true,
                           .nagaInterface = true,
                           .hostReadBarrier = false};
}

}  // namespace repro
