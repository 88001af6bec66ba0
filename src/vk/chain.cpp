// Buffer set-up and the three recording modes, call for call as blade records them
// (blade-command-stream.md §6-7; blade `vulkan/command.rs` at 72c30c1).
#include "vk/chain.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>

#include "vk/barriers.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"

namespace repro::vk {
namespace {

using Clock = std::chrono::steady_clock;

void writeMapped(const Buffer& buffer, const void* data, size_t bytes) {
    std::memcpy(buffer.mapped, data, bytes);
}

// Dispatch numbers in chain order, 1-based: step i's conv-T is 2i+1, its slice 2i+2.
bool dropped(const Chain& chain, uint32_t dispatch) {
    return chain.dropDispatch && *chain.dropDispatch == dispatch;
}

// D(conv-T, i): bind pipeline, fresh descriptor set, bind it, dispatch [61, 4, 128]
// at the original's size. Reads small[i] and the weight, writes big[i].
void recordConvT(Chain& chain, uint32_t step) {
    const auto& b = chain.buffers;
    chain.encoder.bindPipelineAndBuffers(
        chain.convT, {b.small[step].get(), b.weight.get(), b.big[step].get(), b.convParams.get()});
    const auto& g = chain.sizes.convWorkgroups;
    vkCmdDispatch(chain.encoder.cmd(), g[0], g[1], g[2]);
}

// D(slice, i): reads big[i], writes small[i+1]; dispatch [14400, 1, 1] at full size.
void recordSlice(Chain& chain, uint32_t step) {
    const auto& b = chain.buffers;
    chain.encoder.bindPipelineAndBuffers(
        chain.slice, {b.big[step].get(), b.small[step + 1].get(), b.sliceParams.get()});
    const auto& g = chain.sizes.sliceWorkgroups;
    vkCmdDispatch(chain.encoder.cmd(), g[0], g[1], g[2]);
}

// blade finish(): G, then vkEndCommandBuffer. `hostReads`: the host reads this
// command buffer's results, so the default also records the HOST_READ barrier.
void finish(Chain& chain, bool hostReads) {
    recordBladeGlobalBarrier(chain.encoder.cmd());
    if (hostReads) recordHostReadBarrier(chain.encoder.cmd());
    chain.encoder.end();
}

// Submits, waits and books the outcome into `run`; false when the run must stop.
// `convTDispatches` sizes the automatic timeout.
bool submit(Chain& chain, ModeRun& run, std::string_view what, uint64_t index, uint64_t total,
            uint32_t convTDispatches) {
    const double timeout = submitTimeoutSeconds(
        chain.fixedTimeout, chain.shape, convTDispatches,
        chain.device.info().properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU);
    const SubmitOutcome out = chain.encoder.submitAndWait(timeout);
    ++run.submits;
    run.waitSeconds += out.waitSeconds;
    if (out.status == SubmitStatus::Completed) return true;
    run.failure = out;
    run.failedSubmit = fmt::format("submit {} of {} ({})", index, total, what);
    run.failedTimeout = timeout;
    return false;
}

// Fresh state: fill every buffer the chain writes with `pattern`, in its own submit,
// host-waited.
bool clearChainBuffers(Chain& chain, ModeRun& run, uint32_t pattern) {
    chain.encoder.begin();
    const VkCommandBuffer cmd = chain.encoder.cmd();
    recordBladeGlobalBarrier(cmd);
    for (uint32_t i = 1; i < chain.buffers.small.size(); ++i) {
        vkCmdFillBuffer(cmd, chain.buffers.small[i].get(), 0, VK_WHOLE_SIZE, pattern);
    }
    for (const auto& big : chain.buffers.big) {
        vkCmdFillBuffer(cmd, big.get(), 0, VK_WHOLE_SIZE, pattern);
    }
    finish(chain, /*hostReads=*/false);
    return submit(chain, run, "clearing the chain's buffers", 1, 1, 0);
}

}  // namespace

ChainBuffers createChainBuffers(const Device& device, const Shape& shape, const ChainSizes& sizes,
                                uint32_t n, std::span<const float> input,
                                std::span<const float> weight, bool withStaging) {
    ChainBuffers b;
    const ConvParams conv = convParams(shape, sizes);
    const SliceParams slice = sliceParams(shape, sizes);
    b.convParams = createBuffer(device, "conv_params", sizeof conv, MemoryClass::Shared);
    writeMapped(b.convParams, &conv, sizeof conv);
    b.sliceParams = createBuffer(device, "slice_params", sizeof slice, MemoryClass::Shared);
    writeMapped(b.sliceParams, &slice, sizeof slice);
    b.weight = createBuffer(device, "weight", sizes.weightBytes, MemoryClass::Shared);
    writeMapped(b.weight, weight.data(), weight.size_bytes());
    for (uint32_t i = 0; i <= n; ++i) {
        const MemoryClass cls = (i == 0 || i == n) ? MemoryClass::Shared : MemoryClass::Device;
        b.small.push_back(createBuffer(device, fmt::format("small[{}]", i), sizes.smallBytes, cls));
    }
    for (uint32_t i = 0; i < n; ++i) {
        b.big.push_back(createBuffer(device, fmt::format("big[{}]", i), sizes.bigBytes,
                                     MemoryClass::Device));
    }
    writeMapped(b.small[0], input.data(), input.size_bytes());
    if (withStaging) {
        b.staging = createBuffer(device, "staging", std::max(sizes.bigBytes, sizes.smallBytes),
                                 MemoryClass::Shared);
    }
    return b;
}

ModeRun runSplit(Chain& chain) {
    ModeRun run;
    const uint64_t total = 2 * uint64_t{chain.length};
    for (uint32_t i = 0; i < chain.length; ++i) {
        const bool last = i + 1 == chain.length;
        // [begin, G, D(conv-T, i), G, end], submit, wait
        chain.encoder.begin();
        recordBladeGlobalBarrier(chain.encoder.cmd());
        recordConvT(chain, i);
        finish(chain, /*hostReads=*/false);
        if (!submit(chain, run, fmt::format("step {} conv-T", i + 1), 2 * i + 1, total, 1)) return run;
        // [begin, G, D(slice, i), G, end], submit, wait
        chain.encoder.begin();
        recordBladeGlobalBarrier(chain.encoder.cmd());
        recordSlice(chain, i);
        finish(chain, /*hostReads=*/last);
        if (!submit(chain, run, fmt::format("step {} slice", i + 1), 2 * i + 2, total, 0)) return run;
    }
    run.completed = true;
    return run;
}

ModeRun runMultipass(Chain& chain) {
    ModeRun run;
    chain.encoder.begin();
    const VkCommandBuffer cmd = chain.encoder.cmd();
    for (uint32_t i = 0; i < chain.length; ++i) {
        // One compute pass per dispatch: blade's begin_pass emits G first, every time.
        recordBladeGlobalBarrier(cmd);
        if (!dropped(chain, 2 * i + 1)) recordConvT(chain, i);
        recordBladeGlobalBarrier(cmd);
        if (!dropped(chain, 2 * i + 2)) recordSlice(chain, i);
    }
    finish(chain, /*hostReads=*/true);
    run.completed = submit(chain, run, fmt::format("all {} steps", chain.length), 1, 1, chain.length);
    return run;
}

ModeRun runSingle(Chain& chain) {
    ModeRun run;
    chain.encoder.begin();
    const VkCommandBuffer cmd = chain.encoder.cmd();
    recordBladeGlobalBarrier(cmd);  // the one pass's begin_pass
    for (uint32_t i = 0; i < chain.length; ++i) {
        if (i > 0) recordBladeComputeBarrier(cmd);
        if (!dropped(chain, 2 * i + 1)) recordConvT(chain, i);
        recordBladeComputeBarrier(cmd);
        if (!dropped(chain, 2 * i + 2)) recordSlice(chain, i);
    }
    finish(chain, /*hostReads=*/true);
    run.completed = submit(chain, run, fmt::format("all {} steps", chain.length), 1, 1, chain.length);
    return run;
}

ModeRun runMode(Chain& chain, Mode mode, uint32_t fillPattern) {
    const auto start = Clock::now();
    ModeRun clear;
    if (!clearChainBuffers(chain, clear, fillPattern)) {
        clear.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
        return clear;
    }
    ModeRun run;
    switch (mode) {
        case Mode::Split: run = runSplit(chain); break;
        case Mode::Multipass: run = runMultipass(chain); break;
        case Mode::Single: run = runSingle(chain); break;
    }
    run.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    return run;
}

Readback readBuffer(Chain& chain, const Buffer& buffer) {
    Readback r;
    r.values.resize(buffer.size / sizeof(float));
    if (buffer.mapped) {
        std::memcpy(r.values.data(), buffer.mapped, r.values.size() * sizeof(float));
        return r;
    }
    if (!chain.buffers.staging) throw std::logic_error("readBuffer: no staging buffer");
    const Buffer& staging = *chain.buffers.staging;
    chain.encoder.begin();
    const VkCommandBuffer cmd = chain.encoder.cmd();
    recordBladeGlobalBarrier(cmd);
    const VkBufferCopy region{.srcOffset = 0, .dstOffset = 0, .size = buffer.size};
    vkCmdCopyBuffer(cmd, buffer.get(), staging.get(), 1, &region);
    finish(chain, /*hostReads=*/true);
    ModeRun run;
    if (!submit(chain, run, fmt::format("reading back {}", buffer.name), 1, 1, 0)) {
        r.ok = false;
        r.failure = run.failure;
        r.values.clear();
        return r;
    }
    std::memcpy(r.values.data(), staging.mapped, r.values.size() * sizeof(float));
    return r;
}

Readback readFinal(Chain& chain) { return readBuffer(chain, chain.buffers.small[chain.length]); }

}  // namespace repro::vk
