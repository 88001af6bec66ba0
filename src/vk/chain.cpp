// Buffer set-up and the three recording modes, call for call as blade records them
// (blade-command-stream.md §6-7; blade `vulkan/command.rs` at 72c30c1).
#include "vk/chain.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>

#include "core/breadcrumbs.hpp"
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

Instrumentation* instrumented(Chain& chain, bool Instrumentation::*flag) {
    Instrumentation* i = chain.instrumentation;
    return i && i->*flag ? i : nullptr;
}

void beginLabel(Chain& chain, const std::string& text) {
    if (!instrumented(chain, &Instrumentation::labels)) return;
    const VkDebugUtilsLabelEXT label{.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT,
                                     .pLabelName = text.c_str()};
    vkCmdBeginDebugUtilsLabelEXT(chain.encoder.cmd(), &label);
}

void endLabel(Chain& chain) {
    if (instrumented(chain, &Instrumentation::labels)) vkCmdEndDebugUtilsLabelEXT(chain.encoder.cmd());
}

void writeTimestamp(Chain& chain) {
    Instrumentation* i = instrumented(chain, &Instrumentation::timestamps);
    if (!i || i->queriesUsed >= i->queryCapacity) return;
    vkCmdWriteTimestamp(chain.encoder.cmd(), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                        i->queryPool.get(), i->queriesUsed++);
}

// A chain command buffer's begin: blade's start(), then (opt-in) the query reset and
// the command buffer's first timestamp.
void begin(Chain& chain) {
    chain.encoder.begin();
    if (Instrumentation* i = instrumented(chain, &Instrumentation::timestamps)) {
        vkCmdResetQueryPool(chain.encoder.cmd(), i->queryPool.get(), 0, i->queryCapacity);
        i->queriesUsed = 0;
        writeTimestamp(chain);
    }
}

// The opt-in commands around dispatch `number`: label and timestamps around it, a
// breadcrumb after it.
template <typename Record>
void instrumentedDispatch(Chain& chain, uint32_t number, Record&& record) {
    beginLabel(chain, describeDispatch(number));
    writeTimestamp(chain);
    record();
    writeTimestamp(chain);
    if (Instrumentation* i = instrumented(chain, &Instrumentation::breadcrumbs)) {
        vkCmdWriteBufferMarkerAMD(chain.encoder.cmd(), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                                  i->markers->get(), uint64_t{number} * sizeof(uint32_t), i->runId);
    }
    endLabel(chain);
}

// blade's G and C (barriers.hpp), labelled with --labels.
void barrierG(Chain& chain) {
    beginLabel(chain, "blade barrier G");
    recordBladeGlobalBarrier(chain.encoder.cmd());
    endLabel(chain);
}
void barrierC(Chain& chain) {
    beginLabel(chain, "blade barrier C");
    recordBladeComputeBarrier(chain.encoder.cmd());
    endLabel(chain);
}

// D(conv-T, i): bind pipeline, fresh descriptor set, bind it, dispatch [61, 4, 128]
// at the original's size. Reads small[i] and the weight, writes big[i].
void recordConvT(Chain& chain, uint32_t step) {
    instrumentedDispatch(chain, 2 * step + 1, [&] {
        const auto& b = chain.buffers;
        chain.encoder.bindPipelineAndBuffers(
            chain.convT, {b.small[step].get(), b.weight.get(), b.big[step].get(), b.convParams.get()});
        const auto& g = chain.sizes.convWorkgroups;
        vkCmdDispatch(chain.encoder.cmd(), g[0], g[1], g[2]);
    });
}

// D(slice, i): reads big[i], writes small[i+1]; dispatch [14400, 1, 1] at full size.
void recordSlice(Chain& chain, uint32_t step) {
    instrumentedDispatch(chain, 2 * step + 2, [&] {
        const auto& b = chain.buffers;
        chain.encoder.bindPipelineAndBuffers(
            chain.slice, {b.big[step].get(), b.small[step + 1].get(), b.sliceParams.get()});
        const auto& g = chain.sizes.sliceWorkgroups;
        vkCmdDispatch(chain.encoder.cmd(), g[0], g[1], g[2]);
    });
}

// GPU seconds from this command buffer's timestamps: the submit (first to last) and each
// dispatch (its before/after pair), appended to `run`.
void collectTimestamps(Chain& chain, ModeRun& run) {
    Instrumentation* i = instrumented(chain, &Instrumentation::timestamps);
    if (!i || i->queriesUsed < 3) return;
    std::vector<uint64_t> ticks(i->queriesUsed);
    const VkResult r = vkGetQueryPoolResults(chain.device.get(), i->queryPool.get(), 0,
                                             i->queriesUsed, ticks.size() * sizeof(uint64_t),
                                             ticks.data(), sizeof(uint64_t),
                                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r != VK_SUCCESS) return;
    auto seconds = [&](uint64_t from, uint64_t to) {
        return double((to - from) & i->validMask) * i->nsPerTick * 1e-9;
    };
    run.submitGpuSeconds.push_back(seconds(ticks.front(), ticks.back()));
    for (uint32_t q = 1; q + 1 < i->queriesUsed; q += 2) {
        run.dispatchGpuSeconds.push_back(seconds(ticks[q], ticks[q + 1]));
    }
}

// blade finish(): G, then vkEndCommandBuffer. `hostReads`: the host reads this
// command buffer's results, so the default also records the HOST_READ barrier.
void finish(Chain& chain, bool hostReads) {
    barrierG(chain);
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
    if (out.status == SubmitStatus::Completed) {
        collectTimestamps(chain, run);
        return true;
    }
    run.failure = out;
    run.failedSubmit = fmt::format("submit {} of {} ({})", index, total, what);
    run.failedTimeout = timeout;
    return false;
}

// Fresh state: fill every buffer the chain writes with `pattern`, in its own submit,
// host-waited.
bool clearChainBuffers(Chain& chain, ModeRun& run, uint32_t pattern) {
    chain.encoder.begin();
    if (chain.instrumentation) chain.instrumentation->queriesUsed = 0;
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
        auto start = Clock::now();
        // [begin, G, D(conv-T, i), G, end], submit, wait
        begin(chain);
        barrierG(chain);
        recordConvT(chain, i);
        finish(chain, /*hostReads=*/false);
        run.recordSeconds += std::chrono::duration<double>(Clock::now() - start).count();
        if (!submit(chain, run, fmt::format("step {} conv-T", i + 1), 2 * i + 1, total, 1)) return run;
        start = Clock::now();
        // [begin, G, D(slice, i), G, end], submit, wait
        begin(chain);
        barrierG(chain);
        recordSlice(chain, i);
        finish(chain, /*hostReads=*/last);
        run.recordSeconds += std::chrono::duration<double>(Clock::now() - start).count();
        if (!submit(chain, run, fmt::format("step {} slice", i + 1), 2 * i + 2, total, 0)) return run;
    }
    run.completed = true;
    return run;
}

ModeRun runMultipass(Chain& chain) {
    ModeRun run;
    const auto start = Clock::now();
    begin(chain);
    for (uint32_t i = 0; i < chain.length; ++i) {
        // One compute pass per dispatch: blade's begin_pass emits G first, every time.
        barrierG(chain);
        if (!dropped(chain, 2 * i + 1)) recordConvT(chain, i);
        barrierG(chain);
        if (!dropped(chain, 2 * i + 2)) recordSlice(chain, i);
    }
    finish(chain, /*hostReads=*/true);
    run.recordSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    run.completed = submit(chain, run, fmt::format("all {} steps", chain.length), 1, 1, chain.length);
    return run;
}

ModeRun runSingle(Chain& chain) {
    ModeRun run;
    const auto start = Clock::now();
    begin(chain);
    barrierG(chain);  // the one pass's begin_pass
    for (uint32_t i = 0; i < chain.length; ++i) {
        if (i > 0) barrierC(chain);
        if (!dropped(chain, 2 * i + 1)) recordConvT(chain, i);
        barrierC(chain);
        if (!dropped(chain, 2 * i + 2)) recordSlice(chain, i);
    }
    finish(chain, /*hostReads=*/true);
    run.recordSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    run.completed = submit(chain, run, fmt::format("all {} steps", chain.length), 1, 1, chain.length);
    return run;
}

// After a failed submit: what the breadcrumbs and VK_EXT_device_fault say.
std::string forensics(Chain& chain, const ModeRun& run) {
    std::vector<std::string> lines;
    if (Instrumentation* i = instrumented(chain, &Instrumentation::breadcrumbs)) {
        const auto* slots = static_cast<const uint32_t*>(i->markers->mapped);
        const uint32_t dispatches = 2 * chain.length;
        lines.push_back(describeBreadcrumbs(
            readBreadcrumbs(std::span(slots, dispatches + 1), dispatches, i->runId), dispatches));
    }
    if (run.failure.status == SubmitStatus::DeviceLost &&
        chain.device.extensionEnabled(VK_EXT_DEVICE_FAULT_EXTENSION_NAME)) {
        VkDeviceFaultCountsEXT counts{.sType = VK_STRUCTURE_TYPE_DEVICE_FAULT_COUNTS_EXT};
        VkResult r = vkGetDeviceFaultInfoEXT(chain.device.get(), &counts, nullptr);
        if (r == VK_SUCCESS) {
            std::vector<VkDeviceFaultAddressInfoEXT> addresses(counts.addressInfoCount);
            std::vector<VkDeviceFaultVendorInfoEXT> vendor(counts.vendorInfoCount);
            VkDeviceFaultInfoEXT info{.sType = VK_STRUCTURE_TYPE_DEVICE_FAULT_INFO_EXT,
                                      .pAddressInfos = addresses.data(),
                                      .pVendorInfos = vendor.data()};
            r = vkGetDeviceFaultInfoEXT(chain.device.get(), &counts, &info);
            lines.push_back(fmt::format("VK_EXT_device_fault: {} ({} address records, {} vendor "
                                        "records, {} bytes of vendor binary data)",
                                        info.description, counts.addressInfoCount,
                                        counts.vendorInfoCount, counts.vendorBinarySize));
            for (const auto& a : addresses) {
                lines.push_back(fmt::format("  fault address type {} at 0x{:x} (precision {})",
                                            static_cast<int>(a.addressType), a.reportedAddress,
                                            a.addressPrecision));
            }
            for (const auto& v : vendor) {
                lines.push_back(fmt::format("  vendor fault 0x{:x}/0x{:x}: {}", v.vendorFaultCode,
                                            v.vendorFaultData, v.description));
            }
        } else {
            lines.push_back(fmt::format("VK_EXT_device_fault: vkGetDeviceFaultInfoEXT returned {}",
                                        resultName(r)));
        }
    }
    std::string text;
    for (const auto& l : lines) text += (text.empty() ? "" : "\n") + l;
    return text;
}

Instrumentation createInstrumentation(const Device& device, bool timestamps, bool breadcrumbs,
                                      bool labels, uint32_t maxSteps,
                                      std::vector<std::string>& notes) {
    Instrumentation i;
    const DeviceInfo& info = device.info();
    if (timestamps) {
        const uint32_t bits = info.queueFamilies[device.queueFamily()].timestampValidBits;
        if (bits == 0) {
            notes.push_back("--timestamps: the queue family has timestampValidBits 0; no GPU times");
        } else {
            i.timestamps = true;
            i.queryCapacity = 1 + 4 * maxSteps;
            i.nsPerTick = info.properties.limits.timestampPeriod;
            i.validMask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
            const VkQueryPoolCreateInfo poolInfo{.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                                 .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                                 .queryCount = i.queryCapacity};
            VkQueryPool pool = VK_NULL_HANDLE;
            check(vkCreateQueryPool(device.get(), &poolInfo, nullptr, &pool), "vkCreateQueryPool");
            i.queryPool = Owned<VkQueryPool>(device.life(), pool);
        }
    }
    if (breadcrumbs) {
        if (!device.extensionEnabled(VK_AMD_BUFFER_MARKER_EXTENSION_NAME)) {
            notes.push_back("--breadcrumbs: the device has no VK_AMD_buffer_marker; no markers");
        } else {
            i.breadcrumbs = true;
            i.markers = createBuffer(device, "breadcrumbs", (2 * uint64_t{maxSteps} + 1) * 4,
                                     MemoryClass::Shared);
        }
    }
    if (labels) {
        if (!device.debugUtils()) {
            notes.push_back("--labels: VK_EXT_debug_utils is not available; no labels");
        } else {
            i.labels = true;
        }
    }
    return i;
}

ModeRun runMode(Chain& chain, Mode mode, uint32_t fillPattern) {
    const auto start = Clock::now();
    if (Instrumentation* i = instrumented(chain, &Instrumentation::breadcrumbs)) {
        ++i->runId;
        std::memset(i->markers->mapped, 0, i->markers->size);
    }
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
    if (!run.completed) run.forensics = forensics(chain, run);
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
    if (chain.instrumentation) chain.instrumentation->queriesUsed = 0;
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

}  // namespace repro::vk
