// The chain's buffers and the three ways of recording it (SPEC §2). Each mode is one
// function that reads top to bottom as the exact Vulkan call sequence it produces.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/options.hpp"
#include "core/shape.hpp"
#include "vk/encoder.hpp"
#include "vk/memory.hpp"
#include "vk/pipeline.hpp"

namespace repro::vk {

class Device;

// Buffers in the original's creation order (blade-command-stream.md §3): conv params,
// slice params and weight (Shared), small[0..N] (Shared for 0 and N, Device otherwise),
// big[0..N) (Device). --memory moves small[] and big[] (params and weight stay Shared).
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
    bool bladeExact = false;     // gpu-alloc layout, device-address usage, the scratch buffer
    bool withStaging = false;
};

// Creates the buffers and writes the params, the weight and small[0] through their
// mappings (the original's memcpy; no flush, the types are HOST_COHERENT), or into
// `upload` when small[0] is not mapped. Throws CannotTest when memory runs out.
ChainBuffers createChainBuffers(const Device& device, const Shape& shape, const ChainSizes& sizes,
                                uint32_t chainLength, std::span<const float> input,
                                std::span<const float> weight, const ChainBufferOptions& options);

// Opt-in additions to the command stream; without them the stream is exactly blade's.
struct Instrumentation {
    bool timestamps = false;   // vkCmdWriteTimestamp(BOTTOM_OF_PIPE) at each command-buffer
                               // start and before and after every dispatch
    bool breadcrumbs = false;  // vkCmdWriteBufferMarkerAMD(BOTTOM_OF_PIPE) after every dispatch
    bool labels = false;       // vkCmdBegin/EndDebugUtilsLabelEXT around dispatches and barriers
    Owned<VkQueryPool> queryPool;
    uint32_t queryCapacity = 0;
    double nsPerTick = 1;      // VkPhysicalDeviceLimits::timestampPeriod
    uint64_t validMask = ~0ull;
    std::optional<Buffer> markers;  // one uint32 slot per dispatch number (breadcrumbs.hpp)
    uint32_t runId = 0;
    // Queries of the mode being run: the pool is reset in the mode's clearing submit and
    // filled in order across all its command buffers, read once the mode has completed.
    uint32_t queriesUsed = 0;
    std::vector<uint32_t> commandBufferFirstQuery;  // per chain command buffer
    struct DispatchQueries {
        uint32_t before = 0;  // query index; `after` is before + 1
        bool convT = false;
    };
    std::vector<DispatchQueries> dispatches;  // per recorded dispatch, repeats included
};

// Creates what the requested instrumentation needs for chains of up to `maxSteps` with
// each conv-T recorded `dispatchRepeat` times.
// Timestamps need a queue family with timestampValidBits > 0 and breadcrumbs need
// VK_AMD_buffer_marker: without them the flag is turned off and `notes` says why.
Instrumentation createInstrumentation(const Device& device, bool timestamps, bool breadcrumbs,
                                      bool labels, uint32_t maxSteps, uint32_t dispatchRepeat,
                                      std::vector<std::string>& notes);

// Everything a mode needs to record and run the chain.
struct Chain {
    const Device& device;
    Encoder& encoder;
    const ChainBuffers& buffers;
    const ComputePipeline& convT;
    const ComputePipeline& slice;
    ChainSizes sizes;
    uint32_t length = 0;           // N of this run; buffers may be sized for a longer chain
    const Shape& shape;
    std::optional<double> fixedTimeout;    // --timeout; nullopt = auto per submit
    std::optional<uint32_t> dropDispatch;  // positive control, non-split modes only
    Instrumentation* instrumentation = nullptr;
    // Experiments (core/variant.hpp), for multipass and single only.
    BarrierKind barrier = BarrierKind::Blade;
    SubmitStructure submit;
    uint32_t dispatchRepeat = 1;
    // Record the HOST_READ barrier before the host reads results (blade-exact leaves it
    // out, as blade does).
    bool hostReadBarrier = true;
};

// How a mode's run went.
struct ModeRun {
    bool completed = false;      // every submit completed
    SubmitOutcome failure;       // when not completed: the submit that ended it
    std::string failedSubmit;    // e.g. "submit 5 of 14 (step 3 conv-T)"
    double failedTimeout = 0;    // seconds the host waited for that submit
    uint64_t submits = 0;
    double wallSeconds = 0;      // record + submit + wait, host time
    double waitSeconds = 0;      // host time blocked in vkWaitSemaphores
    double recordSeconds = 0;    // host time recording the chain's command buffers
    // --timestamps: GPU seconds per dispatch (chain order, dropped ones left out) and per
    // submit of the chain (the clearing submit not included).
    std::vector<double> dispatchGpuSeconds;
    std::vector<bool> dispatchIsConvT;  // parallel to dispatchGpuSeconds
    std::vector<double> submitGpuSeconds;
    std::string forensics;       // --breadcrumbs / device-fault findings after a hang
};

// Runs one mode from fresh state: first a separate submit fills small[1..N] and every
// big[i] with `fillPattern` (0, or kPoisonPattern for --poison) and waits, so no data
// from an earlier mode survives.
ModeRun runMode(Chain& chain, Mode mode, uint32_t fillPattern);

// split: 2N submits, each waited on by the host before the next.
ModeRun runSplit(Chain& chain);
// multipass: one submit; blade's G before every dispatch (one compute pass each).
// single: one submit, one pass: G once, then blade's C between every two dispatches.
// With chain.barrier other than Blade, every command buffer starts with G and the chosen
// barrier goes between every two dispatches (so multipass and single record the same
// stream); chain.submit cuts the chain into several submits, each ending with G;
// chain.dispatchRepeat records each conv-T that many times with the barrier in between.
ModeRun runMultipass(Chain& chain);
ModeRun runSingle(Chain& chain);

// A buffer's contents on the host, or the submit that failed while copying it.
struct Readback {
    bool ok = true;
    SubmitOutcome failure;
    std::vector<float> values;  // elements
};

// Reads `buffer` (elements = size / 4): a host-visible buffer straight from its mapping,
// a device-local one through the staging buffer in its own command buffer (G,
// vkCmdCopyBuffer, HOST_READ barrier), submitted and waited; the chain's own command
// stream is unchanged.
Readback readBuffer(Chain& chain, const Buffer& buffer);


}  // namespace repro::vk
