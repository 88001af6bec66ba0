// Timestamps, breadcrumbs, labels and device-fault queries (see instrumentation.hpp).
#include "vk/instrumentation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <span>

#include "forensics/breadcrumbs.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"

namespace repro::vk {

Instrumentation::Instrumentation(const Device& device, const Request& request, uint32_t maxSteps,
                                 uint32_t dispatchRepeat, std::vector<std::string>& notes) {
    const DeviceInfo& info = device.info();
    if (request.timestamps) {
        const uint32_t bits = info.queueFamilies[device.queueFamily()].timestampValidBits;
        if (bits == 0) {
            notes.push_back("--timestamps: the queue family has timestampValidBits 0; no GPU times");
        } else {
            timestamps_ = true;
            // Per mode: at most one command buffer per dispatch (split: 2N), each with a
            // start query, and two queries per recorded dispatch (N conv-Ts R times, N slices).
            const uint64_t capacity = 2 * uint64_t{maxSteps} + 2 * (uint64_t{maxSteps} * dispatchRepeat + maxSteps);
            queryCapacity_ = static_cast<uint32_t>(std::min<uint64_t>(capacity, 1u << 20));
            nsPerTick_ = info.properties.limits.timestampPeriod;
            validMask_ = bits >= 64 ? ~0ull : (1ull << bits) - 1;
            const VkQueryPoolCreateInfo poolInfo{.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                                 .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                                 .queryCount = queryCapacity_};
            queryPool_ = device.create(vkCreateQueryPool, poolInfo, "vkCreateQueryPool");
        }
    }
    breadcrumbs_ = request.breadcrumbs && device.extensions().amdBufferMarker;
    if (breadcrumbs_)
        markers_ = createBuffer(device, "breadcrumbs", (2 * uint64_t{maxSteps} + 1) * 4, MemoryClass::Shared);
    if (request.breadcrumbs && !breadcrumbs_)
        notes.push_back("--breadcrumbs: the device has no VK_AMD_buffer_marker; no markers");
    labels_ = request.labels && device.debugUtils();
    if (request.labels && !labels_) notes.push_back("--labels: VK_EXT_debug_utils is not available; no labels");
}

void Instrumentation::startMode(VkCommandBuffer cmd) {
    if (breadcrumbs_) {
        ++runId_;
        std::memset(markers_->mapped, 0, markers_->size);
    }
    if (timestamps_) {
        vkCmdResetQueryPool(cmd, queryPool_.get(), 0, queryCapacity_);
        queriesUsed_ = 0;
        commandBufferFirstQuery_.clear();
        dispatchQueries_.clear();
    }
}

void Instrumentation::writeTimestamp(VkCommandBuffer cmd) {
    if (!timestamps_ || queriesUsed_ >= queryCapacity_) return;
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queryPool_.get(), queriesUsed_++);
}

void Instrumentation::commandBufferStarted(VkCommandBuffer cmd) {
    if (!timestamps_) return;
    commandBufferFirstQuery_.push_back(queriesUsed_);
    writeTimestamp(cmd);
}

void Instrumentation::beforeDispatch(VkCommandBuffer cmd, uint32_t number, std::string name, const std::string& label) {
    beginLabel(cmd, label.empty() ? describeDispatch(number) : label);
    if (timestamps_ && queriesUsed_ + 2 <= queryCapacity_ && !commandBufferFirstQuery_.empty()) {
        dispatchQueries_.push_back({.before = queriesUsed_,
                                    .number = number,
                                    .commandBuffer = static_cast<uint32_t>(commandBufferFirstQuery_.size() - 1),
                                    .name = std::move(name)});
    }
    writeTimestamp(cmd);
}

void Instrumentation::afterDispatch(VkCommandBuffer cmd, uint32_t number) {
    writeTimestamp(cmd);
    if (breadcrumbs_) {
        vkCmdWriteBufferMarkerAMD(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, markers_->get(),
                                  uint64_t{number} * sizeof(uint32_t), runId_);
    }
    endLabel(cmd);
}

void Instrumentation::beginLabel(VkCommandBuffer cmd, const std::string& text) const {
    if (!labels_) return;
    const VkDebugUtilsLabelEXT label{.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = text.c_str()};
    vkCmdBeginDebugUtilsLabelEXT(cmd, &label);
}

void Instrumentation::endLabel(VkCommandBuffer cmd) const {
    if (labels_) vkCmdEndDebugUtilsLabelEXT(cmd);
}

GpuTimes Instrumentation::readTimes(const Device& device) const {
    GpuTimes t;
    if (!timestamps_ || queriesUsed_ == 0) return t;
    // (value, availability) pairs; no WAIT_BIT: a query a killed submit never wrote stays
    // unavailable, and waiting for it would never end.
    std::vector<uint64_t> raw(2 * size_t{queriesUsed_});
    const VkResult r = vkGetQueryPoolResults(device.get(), queryPool_.get(), 0, queriesUsed_,
                                             raw.size() * sizeof(uint64_t), raw.data(), 2 * sizeof(uint64_t),
                                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
    if (r != VK_SUCCESS && r != VK_NOT_READY) return t;
    auto available = [&](uint32_t q) { return raw[2 * size_t{q} + 1] != 0; };
    auto seconds = [&](uint32_t from, uint32_t to) {
        return double((raw[2 * size_t{to}] - raw[2 * size_t{from}]) & validMask_) * nsPerTick_ * 1e-9;
    };
    const auto& firsts = commandBufferFirstQuery_;
    t.nsPerTick = nsPerTick_;
    t.validMask = validMask_;
    for (const uint32_t first : firsts) {
        t.commandBufferStarts.push_back(available(first) ? std::optional<uint64_t>(raw[2 * size_t{first}] & validMask_)
                                                         : std::nullopt);
    }
    for (size_t c = 0; c < firsts.size(); ++c) {
        const uint32_t last = (c + 1 < firsts.size() ? firsts[c + 1] : queriesUsed_) - 1;
        bool all = true;
        for (uint32_t q = firsts[c]; q <= last; ++q) all = all && available(q);
        if (all && last > firsts[c]) t.submitSeconds.push_back(seconds(firsts[c], last));
    }
    for (const auto& d : dispatchQueries_) {
        DispatchTime time{
            .number = d.number, .convT = d.number % 2 == 1, .commandBuffer = d.commandBuffer, .name = d.name};
        const uint32_t start = firsts[d.commandBuffer];
        time.finished = available(d.before) && available(d.before + 1) && available(start);
        if (time.finished) {
            time.seconds = seconds(d.before, d.before + 1);
            time.endSinceStart = seconds(start, d.before + 1);
            time.beginTicks = raw[2 * size_t{d.before}] & validMask_;
            time.endTicks = raw[2 * size_t{d.before + 1}] & validMask_;
            t.lastFinished = time;
        }
        t.dispatches.push_back(time);
    }
    return t;
}

std::string Instrumentation::breadcrumbReport(uint32_t dispatches) const {
    if (!breadcrumbs_) return "";
    const auto* slots = static_cast<const uint32_t*>(markers_->mapped);
    return describeBreadcrumbs(readBreadcrumbs(std::span(slots, dispatches + 1), dispatches, runId_), dispatches);
}

std::string deviceFaultReport(const Device& device) {
    if (!device.extensions().deviceFault) return "";
    const auto failed = [](VkResult r) {
        return fmt::format("VK_EXT_device_fault: vkGetDeviceFaultInfoEXT returned {}", resultName(r));
    };
    VkDeviceFaultCountsEXT counts{.sType = VK_STRUCTURE_TYPE_DEVICE_FAULT_COUNTS_EXT};
    VkResult r = vkGetDeviceFaultInfoEXT(device.get(), &counts, nullptr);
    if (r != VK_SUCCESS) return failed(r);
    std::vector<VkDeviceFaultAddressInfoEXT> addresses(counts.addressInfoCount);
    std::vector<VkDeviceFaultVendorInfoEXT> vendor(counts.vendorInfoCount);
    // The vendor's binary dump is not asked for (deviceFaultVendorBinary is not enabled): its
    // size is reported, its bytes are not read.
    const VkDeviceSize vendorBinary = counts.vendorBinarySize;
    counts.vendorBinarySize = 0;
    VkDeviceFaultInfoEXT info{.sType = VK_STRUCTURE_TYPE_DEVICE_FAULT_INFO_EXT,
                              .pAddressInfos = addresses.data(),
                              .pVendorInfos = vendor.data()};
    r = vkGetDeviceFaultInfoEXT(device.get(), &counts, &info);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) return failed(r);
    std::string text = fmt::format(
        "VK_EXT_device_fault: {} ({} address records, {} vendor records, {} bytes of vendor "
        "binary data)",
        info.description, counts.addressInfoCount, counts.vendorInfoCount, vendorBinary);
    for (const auto& a : addresses) {
        text += fmt::format("\n  fault address type {} at 0x{:x} (precision {})", static_cast<int>(a.addressType),
                            a.reportedAddress, a.addressPrecision);
    }
    for (const auto& v : vendor) {
        text += fmt::format("\n  vendor fault 0x{:x}/0x{:x}: {}", v.vendorFaultCode, v.vendorFaultData, v.description);
    }
    return text;
}

}  // namespace repro::vk
