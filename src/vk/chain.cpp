// Buffer set-up and the three recording modes, call for call as blade records them
// (blade-command-stream.md §6-7; blade `vulkan/command.rs` at 72c30c1).
#include "vk/chain.hpp"

#include <fmt/format.h>

#include <algorithm>
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

// A chain command buffer's begin: blade's start(), then (opt-in) the command buffer's
// first timestamp.
void begin(Chain& chain) {
    chain.encoder.begin();
    if (Instrumentation* i = instrumented(chain, &Instrumentation::timestamps)) {
        i->commandBufferFirstQuery.push_back(i->queriesUsed);
        writeTimestamp(chain);
    }
}

// The opt-in commands around dispatch `number`: label and timestamps around it, a
// breadcrumb after it.
template <typename Record>
void instrumentedDispatch(Chain& chain, uint32_t number, Record&& record) {
    beginLabel(chain, describeDispatch(number));
    Instrumentation* t = instrumented(chain, &Instrumentation::timestamps);
    if (t && t->queriesUsed + 2 <= t->queryCapacity) {
        t->dispatches.push_back({.before = t->queriesUsed, .convT = number % 2 == 1});
    }
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

// The barrier between two dispatches of one command buffer (--barrier): blade's own is G
// in multipass and C in single. `written`: the buffer the dispatch before wrote.
void barrierBetween(Chain& chain, Mode mode, VkBuffer written) {
    const VkCommandBuffer cmd = chain.encoder.cmd();
    switch (chain.barrier) {
        case BarrierKind::Blade:
            mode == Mode::Single ? barrierC(chain) : barrierG(chain);
            return;
        case BarrierKind::None: return;
        default: break;
    }
    beginLabel(chain, fmt::format("--barrier {}", name(chain.barrier)));
    switch (chain.barrier) {
        case BarrierKind::Sync2: recordSync2StorageBarrier(cmd); break;
        case BarrierKind::Buffer: recordBufferBarrier(cmd, written); break;
        case BarrierKind::Full: recordSync2FullBarrier(cmd); break;
        case BarrierKind::ExecutionOnly: recordExecutionOnlyBarrier(cmd); break;
        case BarrierKind::Blade:
        case BarrierKind::None: break;
    }
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

// GPU seconds from the mode's timestamps, once every command buffer has completed: each
// submit (its first to its last query) and each dispatch (its before/after pair).
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
    const auto& firsts = i->commandBufferFirstQuery;
    for (size_t c = 0; c < firsts.size(); ++c) {
        const uint32_t last = (c + 1 < firsts.size() ? firsts[c + 1] : i->queriesUsed) - 1;
        if (last > firsts[c]) run.submitGpuSeconds.push_back(seconds(ticks[firsts[c]], ticks[last]));
    }
    for (const auto& d : i->dispatches) {
        run.dispatchGpuSeconds.push_back(seconds(ticks[d.before], ticks[d.before + 1]));
        run.dispatchIsConvT.push_back(d.convT);
    }
}

// blade finish(): G, then vkEndCommandBuffer. `hostReads`: the host reads this
// command buffer's results, so the default also records the HOST_READ barrier.
void finish(Chain& chain, bool hostReads) {
    barrierG(chain);
    if (hostReads && chain.hostReadBarrier) recordHostReadBarrier(chain.encoder.cmd());
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
    if (Instrumentation* i = instrumented(chain, &Instrumentation::timestamps)) {
        vkCmdResetQueryPool(cmd, i->queryPool.get(), 0, i->queryCapacity);
        i->queriesUsed = 0;
        i->commandBufferFirstQuery.clear();
        i->dispatches.clear();
    }
    recordBladeGlobalBarrier(cmd);
    if (chain.buffers.upload) {
        const VkBufferCopy region{.size = chain.buffers.upload->size};
        vkCmdCopyBuffer(cmd, chain.buffers.upload->get(), chain.buffers.small[0].get(), 1, &region);
    }
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
                                std::span<const float> weight, const ChainBufferOptions& options) {
    ChainBuffers b;
    b.allocator.emplace(device, options.bladeExact);
    Allocator& a = *b.allocator;
    const BufferOptions blade{.deviceAddress = options.bladeExact &&
                                               device.featureEnabled("bufferDeviceAddress")};
    BufferOptions chain = blade;
    chain.placement = options.placement;
    const ConvParams conv = convParams(shape, sizes);
    const SliceParams slice = sliceParams(shape, sizes);
    b.convParams = a.create("conv_params", sizeof conv, MemoryClass::Shared, blade);
    writeMapped(b.convParams, &conv, sizeof conv);
    b.sliceParams = a.create("slice_params", sizeof slice, MemoryClass::Shared, blade);
    writeMapped(b.sliceParams, &slice, sizeof slice);
    b.weight = a.create("weight", sizes.weightBytes, MemoryClass::Shared, blade);
    writeMapped(b.weight, weight.data(), weight.size_bytes());
    for (uint32_t i = 0; i <= n; ++i) {
        const MemoryClass cls = (i == 0 || i == n) ? MemoryClass::Shared : MemoryClass::Device;
        b.small.push_back(a.create(fmt::format("small[{}]", i), sizes.smallBytes, cls, chain));
    }
    for (uint32_t i = 0; i < n; ++i) {
        b.big.push_back(a.create(fmt::format("big[{}]", i), sizes.bigBytes, MemoryClass::Device, chain));
    }
    if (options.bladeExact) {
        b.scratch = a.create("_scratch", 1 << 20, MemoryClass::Shared, blade);
    }
    if (b.small[0].mapped) {
        writeMapped(b.small[0], input.data(), input.size_bytes());
    } else {
        b.upload = a.create("upload", sizes.smallBytes, MemoryClass::Shared, blade);
        writeMapped(*b.upload, input.data(), input.size_bytes());
    }
    if (options.withStaging || !b.small[n].mapped) {
        b.staging = a.create("staging", std::max(sizes.bigBytes, sizes.smallBytes),
                             MemoryClass::Shared, blade);
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
    collectTimestamps(chain, run);
    return run;
}

namespace {

// One chain dispatch as multipass and single record it.
struct PlannedDispatch {
    uint32_t number = 0;  // 1-based, chain order
    uint32_t step = 0;    // 0-based
    bool convT = false;
};

// Records one dispatch of the chain (a conv-T `repeat` times, the barrier in between).
void recordPlanned(Chain& chain, Mode mode, const PlannedDispatch& d) {
    if (!d.convT) {
        recordSlice(chain, d.step);
        return;
    }
    for (uint32_t r = 0; r < chain.dispatchRepeat; ++r) {
        if (r > 0) barrierBetween(chain, mode, chain.buffers.big[d.step].get());
        recordConvT(chain, d.step);
    }
}

VkBuffer writtenBy(const Chain& chain, const PlannedDispatch& d) {
    return d.convT ? chain.buffers.big[d.step].get() : chain.buffers.small[d.step + 1].get();
}

// multipass and single: the chain's dispatches (dropped one left out), cut into command
// buffers by chain.submit, each submitted and, with host waits, waited before the next.
ModeRun runOneQueue(Chain& chain, Mode mode) {
    ModeRun run;
    std::vector<PlannedDispatch> plan;
    std::vector<uint64_t> written;
    for (uint32_t i = 0; i < chain.length; ++i) {
        for (const bool convT : {true, false}) {
            const uint32_t number = 2 * i + (convT ? 1 : 2);
            if (dropped(chain, number)) continue;
            plan.push_back({.number = number, .step = i, .convT = convT});
            written.push_back(convT ? chain.sizes.bigBytes : chain.sizes.smallBytes);
        }
    }
    if (plan.empty()) {  // not reached: N >= 1 gives 2 dispatches, --drop-dispatch removes 1
        run.completed = true;
        return run;
    }
    const std::vector<size_t> ends = commandBufferEnds(written, chain.submit);
    const bool bladeMultipass = mode == Mode::Multipass && chain.barrier == BarrierKind::Blade;
    size_t first = 0;
    uint32_t convTsSinceWait = 0;
    for (size_t c = 0; c < ends.size(); ++c) {
        const bool lastBuffer = c + 1 == ends.size();
        const auto start = Clock::now();
        begin(chain);
        // multipass with blade's barrier: each dispatch's own pass-start G comes first;
        // otherwise the command buffer's (single's one pass) G.
        if (!bladeMultipass) barrierG(chain);
        uint32_t convTs = 0;
        for (size_t d = first; d <= ends[c]; ++d) {
            if (bladeMultipass) {
                barrierG(chain);
            } else if (d > first) {
                barrierBetween(chain, mode, writtenBy(chain, plan[d - 1]));
            }
            recordPlanned(chain, mode, plan[d]);
            convTs += plan[d].convT ? chain.dispatchRepeat : 0;
        }
        finish(chain, /*hostReads=*/lastBuffer);
        run.recordSeconds += std::chrono::duration<double>(Clock::now() - start).count();
        convTsSinceWait += convTs;
        const std::string what =
            ends.size() == 1 ? fmt::format("all {} steps", chain.length)
                             : fmt::format("dispatches {}..{}", plan[first].number, plan[ends[c]].number);
        if (chain.submit.hostWait || lastBuffer) {
            if (!submit(chain, run, what, c + 1, ends.size(), convTsSinceWait)) return run;
            convTsSinceWait = 0;
        } else {
            const SubmitOutcome out = chain.encoder.submitNoWait();
            ++run.submits;
            if (out.status != SubmitStatus::Completed) {
                run.failure = out;
                run.failedSubmit = fmt::format("submit {} of {} ({})", c + 1, ends.size(), what);
                return run;
            }
        }
        first = ends[c] + 1;
    }
    run.completed = true;
    collectTimestamps(chain, run);
    return run;
}

}  // namespace

ModeRun runMultipass(Chain& chain) { return runOneQueue(chain, Mode::Multipass); }

ModeRun runSingle(Chain& chain) { return runOneQueue(chain, Mode::Single); }

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
                                      bool labels, uint32_t maxSteps, uint32_t dispatchRepeat,
                                      std::vector<std::string>& notes) {
    Instrumentation i;
    const DeviceInfo& info = device.info();
    if (timestamps) {
        const uint32_t bits = info.queueFamilies[device.queueFamily()].timestampValidBits;
        if (bits == 0) {
            notes.push_back("--timestamps: the queue family has timestampValidBits 0; no GPU times");
        } else {
            i.timestamps = true;
            // Per mode: at most one command buffer per dispatch (split: 2N), each with a
            // start query, and two queries per recorded dispatch (N conv-Ts R times, N slices).
            const uint64_t capacity = 2 * uint64_t{maxSteps} +
                                      2 * (uint64_t{maxSteps} * dispatchRepeat + maxSteps);
            i.queryCapacity = static_cast<uint32_t>(std::min<uint64_t>(capacity, 1u << 20));
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
    const VkCommandBuffer cmd = chain.encoder.cmd();
    recordBladeGlobalBarrier(cmd);
    const VkBufferCopy region{.srcOffset = 0, .dstOffset = 0, .size = buffer.size};
    vkCmdCopyBuffer(cmd, buffer.get(), staging.get(), 1, &region);
    // Not blade's stream: the readback always makes the copy visible to the host.
    recordBladeGlobalBarrier(cmd);
    recordHostReadBarrier(cmd);
    chain.encoder.end();
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
