// The layer while command buffers are recorded: which dispatches reach the driver
// (seed-bug, flaky, watchdog; recording.hpp decides), where timestamps fall on the
// simulated clock, stale's copies around dispatches D and D+1, the descriptor tracking
// stale needs, which transfer commands reach the driver (drop-transfers; recording.hpp
// TransferDrops decides), and the creation calls that only matter as fault points.
#include <cstring>
#include <functional>

#include "layer_state.hpp"

namespace repro::simdriver::layer {
namespace {

template <typename Handle>
DeviceState* lockedDevice(Handle handle) {
    std::lock_guard lock(globals().mutex);
    return deviceOf(handle);
}

CommandBufferState& commandBufferOf(DeviceState& d, VkCommandBuffer cb) { return d.commandBuffers[cb]; }

VKAPI_ATTR VkResult VKAPI_CALL simAllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo* info,
                                                         VkCommandBuffer* out) {
    DeviceState* d = lockedDevice(device);
    const VkResult r = d->next.AllocateCommandBuffers(device, info, out);
    if (r != VK_SUCCESS) return r;
    std::lock_guard lock(globals().mutex);
    for (uint32_t i = 0; i < info->commandBufferCount; ++i) {
        d->commandBuffers[out[i]] = {.pool = info->commandPool};
    }
    return r;
}

VKAPI_ATTR void VKAPI_CALL simFreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                                 const VkCommandBuffer* cbs) {
    DeviceState* d = lockedDevice(device);
    {
        std::lock_guard lock(globals().mutex);
        for (uint32_t i = 0; i < count; ++i) {
            const auto it = d->commandBuffers.find(cbs[i]);
            if (it == d->commandBuffers.end()) continue;
            releaseOwned(*d, it->second);
            d->commandBuffers.erase(it);
        }
    }
    d->next.FreeCommandBuffers(device, pool, count, cbs);
}

// Drops the layer's state of every command buffer of `pool` (erasing them when `erase`).
void forEachOfPool(DeviceState& d, VkCommandPool pool, bool erase) {
    std::lock_guard lock(globals().mutex);
    for (auto it = d.commandBuffers.begin(); it != d.commandBuffers.end();) {
        if (it->second.pool != pool) {
            ++it;
            continue;
        }
        releaseOwned(d, it->second);
        it = erase ? d.commandBuffers.erase(it) : std::next(it);
    }
}

VKAPI_ATTR VkResult VKAPI_CALL simResetCommandPool(VkDevice device, VkCommandPool pool, VkCommandPoolResetFlags flags) {
    DeviceState* d = lockedDevice(device);
    forEachOfPool(*d, pool, false);
    return d->next.ResetCommandPool(device, pool, flags);
}

VKAPI_ATTR void VKAPI_CALL simDestroyCommandPool(VkDevice device, VkCommandPool pool, const VkAllocationCallbacks* a) {
    DeviceState* d = lockedDevice(device);
    forEachOfPool(*d, pool, true);
    d->next.DestroyCommandPool(device, pool, a);
}

// Back to the initial state: the layer's copies released, nothing recorded.
void restart(DeviceState& d, CommandBufferState& s, bool flakyDrawn) {
    releaseOwned(d, s);
    s.model.begin(d.rules, flakyDrawn);
    s.queryOps.clear();
    s.computeSets.clear();
    s.staleBefore.clear();
    s.tracedSkip = false;
    s.weakPending = false;
    s.transfers.begin();
    s.transitions.begin();
}

VKAPI_ATTR VkResult VKAPI_CALL simBeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo* info) {
    DeviceState* d = lockedDevice(cb);
    {
        std::lock_guard lock(globals().mutex);
        // flaky: one draw per begin, from the device's generator (seeded with S).
        const bool drawn = d->rules.flaky && d->flakyDraws.nextUnit() < d->rules.flaky->probability;
        CommandBufferState& s = commandBufferOf(*d, cb);
        restart(*d, s, drawn);
        if (drawn) {
            trace("flaky: command buffer %p drawn: dispatches past %u will not be forwarded", static_cast<void*>(cb),
                  d->rules.flaky->dispatches);
        }
    }
    return d->next.BeginCommandBuffer(cb, info);
}

VKAPI_ATTR VkResult VKAPI_CALL simResetCommandBuffer(VkCommandBuffer cb, VkCommandBufferResetFlags flags) {
    DeviceState* d = lockedDevice(cb);
    {
        std::lock_guard lock(globals().mutex);
        restart(*d, commandBufferOf(*d, cb), false);
    }
    return d->next.ResetCommandBuffer(cb, flags);
}

// ---- stale ------------------------------------------------------------------------------

// A barrier between the layer's copies and everything around them: every earlier write
// made available and visible to every later access (ALL_COMMANDS -> ALL_COMMANDS,
// MEMORY_WRITE -> MEMORY_READ|MEMORY_WRITE; Vulkan spec, "Memory Barriers").
void fullBarrier(DeviceState& d, VkCommandBuffer cb) {
    const VkMemoryBarrier barrier{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                                  .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
    d.next.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1,
                              &barrier, 0, nullptr, 0, nullptr);
}

void copyWhole(DeviceState& d, VkCommandBuffer cb, VkBuffer from, VkBuffer to, VkDeviceSize size) {
    const VkBufferCopy region{.srcOffset = 0, .dstOffset = 0, .size = size};
    d.next.CmdCopyBuffer(cb, from, to, 1, &region);
}

// A memory type for a copy: device-local first, never protected or lazily allocated.
std::optional<uint32_t> copyMemoryType(const VkPhysicalDeviceMemoryProperties& m, uint32_t typeBits) {
    std::optional<uint32_t> any;
    for (uint32_t i = 0; i < m.memoryTypeCount; ++i) {
        const VkMemoryPropertyFlags f = m.memoryTypes[i].propertyFlags;
        if (!(typeBits & (1u << i)) ||
            (f & (VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT)))
            continue;
        if (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) return i;
        if (!any) any = i;
    }
    return any;
}

// A layer-owned TRANSFER_SRC|TRANSFER_DST buffer of `size` bytes with its own memory;
// nullopt (and one line on stderr) when the driver refuses.
std::optional<OwnedBuffer> makeBuffer(DeviceState& d, VkDeviceSize size) {
    OwnedBuffer b{.size = size};
    const VkBufferCreateInfo info{.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                  .size = size,
                                  .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                  .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = d.next.CreateBuffer(d.handle, &info, nullptr, &b.buffer);
    if (r == VK_SUCCESS) {
        VkMemoryRequirements req{};
        d.next.GetBufferMemoryRequirements(d.handle, b.buffer, &req);
        const auto type = copyMemoryType(d.memory, req.memoryTypeBits);
        const VkMemoryAllocateInfo alloc{.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                         .allocationSize = req.size,
                                         .memoryTypeIndex = type.value_or(0)};
        r = type ? d.next.AllocateMemory(d.handle, &alloc, nullptr, &b.memory) : VK_ERROR_OUT_OF_DEVICE_MEMORY;
        if (r == VK_SUCCESS) r = d.next.BindBufferMemory(d.handle, b.buffer, b.memory, 0);
    }
    if (r == VK_SUCCESS) return b;
    std::fprintf(stderr,
                 "repro-simulate: stale: no memory for a %llu-byte copy (VkResult %d); the dispatch reads "
                 "current contents\n",
                 static_cast<unsigned long long>(size), static_cast<int>(r));
    if (b.memory) d.next.FreeMemory(d.handle, b.memory, nullptr);
    if (b.buffer) d.next.DestroyBuffer(d.handle, b.buffer, nullptr);
    return std::nullopt;
}

// Every storage buffer bound at the compute bind point, once each, with a known size.
std::vector<VkBuffer> boundStorageBuffers(const DeviceState& d, const CommandBufferState& s) {
    std::vector<VkBuffer> out;
    for (const VkDescriptorSet set : s.computeSets) {
        const auto it = d.sets.find(set);
        if (it == d.sets.end()) continue;
        for (const auto& [slot, buffer] : it->second) {
            if (d.bufferSizes.count(buffer) && std::find(out.begin(), out.end(), buffer) == out.end()) {
                out.push_back(buffer);
            }
        }
    }
    return out;
}

// Before dispatch D: a copy of each of its storage buffers.
void snapshotBefore(DeviceState& d, VkCommandBuffer cb, CommandBufferState& s) {
    const std::vector<VkBuffer> buffers = boundStorageBuffers(d, s);
    if (buffers.empty()) return;
    fullBarrier(d, cb);
    for (const VkBuffer b : buffers) {
        const auto copy = makeBuffer(d, d.bufferSizes.at(b));
        if (!copy) continue;
        copyWhole(d, cb, b, copy->buffer, copy->size);
        s.staleBefore.emplace_back(b, *copy);
        s.owned.push_back(*copy);
    }
    fullBarrier(d, cb);
}

// Dispatch D+1 reading what its inputs shared with dispatch D held before D: D's real
// output saved, the old contents put back, D+1 recorded, D's output restored (unless
// `restore` is false: weak-barriers, where D's writes stay lost). Returns whether `forward`
// was called.
bool staleConsumer(DeviceState& d, VkCommandBuffer cb, CommandBufferState& s, const std::function<void()>& forward,
                   bool restore = true) {
    std::vector<std::pair<VkBuffer, OwnedBuffer>> shared;  // (buffer, its pre-D copy)
    for (const VkBuffer b : boundStorageBuffers(d, s)) {
        for (const auto& [before, copy] : s.staleBefore) {
            if (before == b) shared.emplace_back(b, copy);
        }
    }
    if (shared.empty()) return false;
    std::vector<OwnedBuffer> saved;
    for (const auto& [b, before] : shared) {
        const auto copy = makeBuffer(d, before.size);
        if (!copy) return false;
        saved.push_back(*copy);
        s.owned.push_back(*copy);
    }
    fullBarrier(d, cb);
    for (size_t i = 0; i < shared.size(); ++i) {
        copyWhole(d, cb, shared[i].first, saved[i].buffer, saved[i].size);
    }
    fullBarrier(d, cb);
    for (const auto& [b, before] : shared) copyWhole(d, cb, before.buffer, b, before.size);
    fullBarrier(d, cb);
    forward();
    fullBarrier(d, cb);
    for (size_t i = 0; restore && i < shared.size(); ++i) {
        copyWhole(d, cb, saved[i].buffer, shared[i].first, saved[i].size);
    }
    fullBarrier(d, cb);
    if (d.config->stale) {
        trace("stale: command buffer %p: dispatch %u reads the pre-dispatch-%u contents of %zu buffer(s)",
              static_cast<void*>(cb), d.config->stale->dispatch + 1, d.config->stale->dispatch, shared.size());
    } else {
        trace(
            "weak-barriers: command buffer %p: dispatch %u reads the contents of %zu buffer(s) from before the "
            "dispatch before it (no memory dependency between them)",
            static_cast<void*>(cb), s.model.dispatches(), shared.size());
    }
    return true;
}

// ---- weak-barriers ------------------------------------------------------------------------

// Whether one barrier of a dependency orders compute writes before compute reads with a
// memory dependency: compute or all-commands in both stage masks, both access masks non-empty.
bool orders(uint64_t srcStage, uint64_t dstStage, uint64_t srcAccess, uint64_t dstAccess) {
    constexpr uint64_t kCompute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    return (srcStage & kCompute) && (dstStage & kCompute) && srcAccess != 0 && dstAccess != 0;
}

// A pipeline barrier recorded: one with a memory dependency ends the pending weak pair.
void weakBarrier(VkCommandBuffer cb, bool ordered) {
    std::lock_guard lock(globals().mutex);
    DeviceState* d = deviceOf(cb);
    if (d->config->weakBarriers && ordered) commandBufferOf(*d, cb).weakPending = false;
}

// A dispatch under weak-barriers: a copy of its buffers as they are (for the next dispatch),
// and, when no memory dependency followed the dispatch before it, recorded reading what its
// buffers held before that one (staleConsumer).
void weakDispatch(DeviceState& d, VkCommandBuffer cb, CommandBufferState& s, const std::function<void()>& forward) {
    std::vector<std::pair<VkBuffer, OwnedBuffer>> before = std::move(s.staleBefore);
    s.staleBefore.clear();
    snapshotBefore(d, cb, s);
    std::vector<std::pair<VkBuffer, OwnedBuffer>> now = std::move(s.staleBefore);
    const bool weak = s.weakPending && !before.empty();
    s.weakPending = true;
    s.staleBefore = std::move(before);
    // not restored: the dispatch may write what it read (increment), and the earlier writes stay lost
    const bool forwarded = weak && staleConsumer(d, cb, s, forward, false);
    s.staleBefore = std::move(now);
    if (!forwarded) forward();
}

// ---- dispatches -------------------------------------------------------------------------

const char* reasonText(SkipReason r) { return r == SkipReason::Watchdog ? "watchdog kill point" : "seed-bug"; }

// Every vkCmdDispatch* goes through here: the model decides, stale copies around it.
void dispatch(VkCommandBuffer cb, uint64_t workgroups, const std::function<void()>& forward) {
    std::lock_guard lock(globals().mutex);
    DeviceState* d = deviceOf(cb);
    CommandBufferState& s = commandBufferOf(*d, cb);
    s.transfers.dispatch();
    s.transitions.work();
    // weak-barriers:hang: no memory dependency since the dispatch before this one
    const DispatchDecision decision = s.model.dispatch(workgroups, d->config->weakBarriersHang && s.weakPending);
    if (!decision.forward) {
        if (!s.tracedSkip) {
            trace("command buffer %p: dispatch %u and every later one not forwarded (%s)", static_cast<void*>(cb),
                  decision.number, reasonText(decision.reason));
        }
        s.tracedSkip = true;
        return;
    }
    if (d->config->weakBarriers) return weakDispatch(*d, cb, s, forward);
    const uint32_t staleAt = d->config->stale ? d->config->stale->dispatch : 0;
    if (staleAt && decision.number == staleAt) snapshotBefore(*d, cb, s);
    if (staleAt && decision.number == staleAt + 1 && staleConsumer(*d, cb, s, forward)) return;
    forward();
}

uint64_t workgroupsOf(uint32_t x, uint32_t y, uint32_t z) { return uint64_t{x} * y * z; }

VKAPI_ATTR void VKAPI_CALL simCmdDispatch(VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z) {
    DeviceState* d = lockedDevice(cb);
    dispatch(cb, workgroupsOf(x, y, z), [&] { d->next.CmdDispatch(cb, x, y, z); });
}

VKAPI_ATTR void VKAPI_CALL simCmdDispatchBase(VkCommandBuffer cb, uint32_t bx, uint32_t by, uint32_t bz, uint32_t x,
                                              uint32_t y, uint32_t z) {
    DeviceState* d = lockedDevice(cb);
    dispatch(cb, workgroupsOf(x, y, z), [&] { d->next.CmdDispatchBase(cb, bx, by, bz, x, y, z); });
}

VKAPI_ATTR void VKAPI_CALL simCmdDispatchBaseKHR(VkCommandBuffer cb, uint32_t bx, uint32_t by, uint32_t bz, uint32_t x,
                                                 uint32_t y, uint32_t z) {
    DeviceState* d = lockedDevice(cb);
    dispatch(cb, workgroupsOf(x, y, z), [&] { d->next.CmdDispatchBaseKHR(cb, bx, by, bz, x, y, z); });
}

VKAPI_ATTR void VKAPI_CALL simCmdDispatchIndirect(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset) {
    DeviceState* d = lockedDevice(cb);
    faultBefore(FaultCall::CmdDispatchIndirect, d);  // crash, abort or stall (lost is refused: no result)
    dispatch(cb, 0, [&] { d->next.CmdDispatchIndirect(cb, buffer, offset); });
}

// ---- transfers (drop-transfers) -----------------------------------------------------------

// Every transfer command goes through here: forwarded unless TransferDrops says otherwise.
void transfer(VkCommandBuffer cb, const char* what, const std::function<void()>& forward) {
    {
        std::lock_guard lock(globals().mutex);
        DeviceState* d = deviceOf(cb);
        commandBufferOf(*d, cb).transitions.work();
        if (!commandBufferOf(*d, cb).transfers.transfer()) {
            trace("command buffer %p: %s not forwarded (drop-transfers: after other work and a barrier)",
                  static_cast<void*>(cb), what);
            return;
        }
    }
    forward();
}

void barrier(VkCommandBuffer cb) {
    std::lock_guard lock(globals().mutex);
    DeviceState* d = deviceOf(cb);
    if (d->config->dropTransfers) commandBufferOf(*d, cb).transfers.barrier();
}

VKAPI_ATTR void VKAPI_CALL simCmdFillBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                                            uint32_t data) {
    DeviceState* d = lockedDevice(cb);
    transfer(cb, "vkCmdFillBuffer", [&] { d->next.CmdFillBuffer(cb, buffer, offset, size, data); });
}

VKAPI_ATTR void VKAPI_CALL simCmdUpdateBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset,
                                              VkDeviceSize size, const void* data) {
    DeviceState* d = lockedDevice(cb);
    transfer(cb, "vkCmdUpdateBuffer", [&] { d->next.CmdUpdateBuffer(cb, buffer, offset, size, data); });
}

VKAPI_ATTR void VKAPI_CALL simCmdCopyBuffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t count,
                                            const VkBufferCopy* regions) {
    DeviceState* d = lockedDevice(cb);
    transfer(cb, "vkCmdCopyBuffer", [&] { d->next.CmdCopyBuffer(cb, src, dst, count, regions); });
}

VKAPI_ATTR void VKAPI_CALL simCmdCopyBuffer2(VkCommandBuffer cb, const VkCopyBufferInfo2* info) {
    DeviceState* d = lockedDevice(cb);
    transfer(cb, "vkCmdCopyBuffer2", [&] { d->next.CmdCopyBuffer2(cb, info); });
}

VKAPI_ATTR void VKAPI_CALL simCmdCopyBuffer2KHR(VkCommandBuffer cb, const VkCopyBufferInfo2* info) {
    DeviceState* d = lockedDevice(cb);
    transfer(cb, "vkCmdCopyBuffer2KHR", [&] { d->next.CmdCopyBuffer2KHR(cb, info); });
}

// ---- image layout transitions (lost-transitions) ------------------------------------------

// An image transfer: work before a transition, always forwarded.
void imageWork(VkCommandBuffer cb) {
    std::lock_guard lock(globals().mutex);
    commandBufferOf(*deviceOf(cb), cb).transitions.work();
}

// After a barrier reached the driver: each of its image barriers that ImageTransitions says
// loses its contents is followed by a clear of that subresource to 0xdeadbeef (in GENERAL:
// lavapipe, the driver below in tests, ignores layouts), as a driver that lost the
// transition's decompression or copy would leave stale or garbage texels.
template <typename ImageBarrier>
void loseContents(VkCommandBuffer cb, const ImageBarrier* images, uint32_t count) {
    DeviceState* d = lockedDevice(cb);
    if (!d->config->lostTransitions) return;
    std::vector<const ImageBarrier*> lost;
    {
        std::lock_guard lock(globals().mutex);
        ImageTransitions& t = commandBufferOf(*d, cb).transitions;
        for (uint32_t i = 0; i < count; ++i) {
            const ImageBarrier& b = images[i];
            if (t.lose(reinterpret_cast<uint64_t>(b.image), b.oldLayout == VK_IMAGE_LAYOUT_UNDEFINED,
                       b.oldLayout != b.newLayout))
                lost.push_back(&b);
        }
    }
    VkClearColorValue garbage{};
    for (uint32_t& w : garbage.uint32) w = 0xdeadbeefu;
    for (const ImageBarrier* b : lost) {
        trace("command buffer %p: image %p's transition loses its contents (lost-transitions)", static_cast<void*>(cb),
              static_cast<void*>(b->image));
        d->next.CmdClearColorImage(cb, b->image, VK_IMAGE_LAYOUT_GENERAL, &garbage, 1, &b->subresourceRange);
    }
}

VKAPI_ATTR void VKAPI_CALL simCmdCopyBufferToImage(VkCommandBuffer cb, VkBuffer src, VkImage dst, VkImageLayout layout,
                                                   uint32_t count, const VkBufferImageCopy* regions) {
    imageWork(cb);
    lockedDevice(cb)->next.CmdCopyBufferToImage(cb, src, dst, layout, count, regions);
}

VKAPI_ATTR void VKAPI_CALL simCmdCopyImageToBuffer(VkCommandBuffer cb, VkImage src, VkImageLayout layout, VkBuffer dst,
                                                   uint32_t count, const VkBufferImageCopy* regions) {
    imageWork(cb);
    lockedDevice(cb)->next.CmdCopyImageToBuffer(cb, src, layout, dst, count, regions);
}

VKAPI_ATTR void VKAPI_CALL simCmdCopyImage(VkCommandBuffer cb, VkImage src, VkImageLayout srcLayout, VkImage dst,
                                           VkImageLayout dstLayout, uint32_t count, const VkImageCopy* regions) {
    imageWork(cb);
    lockedDevice(cb)->next.CmdCopyImage(cb, src, srcLayout, dst, dstLayout, count, regions);
}

VKAPI_ATTR void VKAPI_CALL simCmdClearColorImage(VkCommandBuffer cb, VkImage image, VkImageLayout layout,
                                                 const VkClearColorValue* color, uint32_t count,
                                                 const VkImageSubresourceRange* ranges) {
    imageWork(cb);
    lockedDevice(cb)->next.CmdClearColorImage(cb, image, layout, color, count, ranges);
}

VKAPI_ATTR void VKAPI_CALL simCmdPipelineBarrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkPipelineStageFlags dst,
                                                 VkDependencyFlags flags, uint32_t memoryCount,
                                                 const VkMemoryBarrier* memory, uint32_t bufferCount,
                                                 const VkBufferMemoryBarrier* buffers, uint32_t imageCount,
                                                 const VkImageMemoryBarrier* images) {
    DeviceState* d = lockedDevice(cb);
    if (d->config->dropTransfers) barrier(cb);
    bool ordered = false;
    for (uint32_t i = 0; i < memoryCount; ++i)
        ordered = ordered || orders(src, dst, memory[i].srcAccessMask, memory[i].dstAccessMask);
    for (uint32_t i = 0; i < bufferCount; ++i)
        ordered = ordered || orders(src, dst, buffers[i].srcAccessMask, buffers[i].dstAccessMask);
    weakBarrier(cb, ordered);
    // second-family: an ownership transfer reaches the driver, which has one family fewer, as
    // a plain buffer or image barrier (both indices VK_QUEUE_FAMILY_IGNORED)
    std::vector<VkBufferMemoryBarrier> down(buffers, buffers + bufferCount);
    std::vector<VkImageMemoryBarrier> downImages(images, images + imageCount);
    const auto plain = [&](auto& b) {
        if (d->config->secondFamily && b.srcQueueFamilyIndex != b.dstQueueFamilyIndex)
            b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    };
    for (VkBufferMemoryBarrier& b : down) plain(b);
    for (VkImageMemoryBarrier& b : downImages) plain(b);
    d->next.CmdPipelineBarrier(cb, src, dst, flags, memoryCount, memory, bufferCount, down.data(), imageCount,
                               downImages.data());
    loseContents(cb, images, imageCount);
}

// second-family: a command pool of the added family is one of the driver's family 0.
VKAPI_ATTR VkResult VKAPI_CALL simCreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo* info,
                                                    const VkAllocationCallbacks* a, VkCommandPool* pool) {
    DeviceState* d = lockedDevice(device);
    VkCommandPoolCreateInfo down = *info;
    if (down.queueFamilyIndex == d->addedFamily) down.queueFamilyIndex = 0;
    return d->next.CreateCommandPool(device, &down, a, pool);
}

// Whether a synchronization2 dependency has a barrier that orders (weak-barriers).
bool ordered2(const VkDependencyInfo* info) {
    bool out = false;
    for (uint32_t i = 0; i < info->memoryBarrierCount; ++i) {
        const VkMemoryBarrier2& b = info->pMemoryBarriers[i];
        out = out || orders(b.srcStageMask, b.dstStageMask, b.srcAccessMask, b.dstAccessMask);
    }
    for (uint32_t i = 0; i < info->bufferMemoryBarrierCount; ++i) {
        const VkBufferMemoryBarrier2& b = info->pBufferMemoryBarriers[i];
        out = out || orders(b.srcStageMask, b.dstStageMask, b.srcAccessMask, b.dstAccessMask);
    }
    return out;
}

VKAPI_ATTR void VKAPI_CALL simCmdPipelineBarrier2(VkCommandBuffer cb, const VkDependencyInfo* info) {
    barrier(cb);
    weakBarrier(cb, ordered2(info));
    lockedDevice(cb)->next.CmdPipelineBarrier2(cb, info);
    loseContents(cb, info->pImageMemoryBarriers, info->imageMemoryBarrierCount);
}

VKAPI_ATTR void VKAPI_CALL simCmdPipelineBarrier2KHR(VkCommandBuffer cb, const VkDependencyInfo* info) {
    barrier(cb);
    weakBarrier(cb, ordered2(info));
    lockedDevice(cb)->next.CmdPipelineBarrier2KHR(cb, info);
    loseContents(cb, info->pImageMemoryBarriers, info->imageMemoryBarrierCount);
}

// ---- timestamps -------------------------------------------------------------------------

void recordQueryOp(VkCommandBuffer cb, QueryOp op) {
    std::lock_guard lock(globals().mutex);
    DeviceState* d = deviceOf(cb);
    CommandBufferState& s = commandBufferOf(*d, cb);
    if (!op.reset) op.timestamp = s.model.timestamp();
    s.queryOps.push_back(op);
}

VKAPI_ATTR void VKAPI_CALL simCmdWriteTimestamp(VkCommandBuffer cb, VkPipelineStageFlagBits stage, VkQueryPool pool,
                                                uint32_t query) {
    recordQueryOp(cb, {.pool = pool, .first = query, .count = 1});
    lockedDevice(cb)->next.CmdWriteTimestamp(cb, stage, pool, query);
}

VKAPI_ATTR void VKAPI_CALL simCmdWriteTimestamp2(VkCommandBuffer cb, VkPipelineStageFlags2 stage, VkQueryPool pool,
                                                 uint32_t query) {
    recordQueryOp(cb, {.pool = pool, .first = query, .count = 1});
    lockedDevice(cb)->next.CmdWriteTimestamp2(cb, stage, pool, query);
}

VKAPI_ATTR void VKAPI_CALL simCmdWriteTimestamp2KHR(VkCommandBuffer cb, VkPipelineStageFlags2 stage, VkQueryPool pool,
                                                    uint32_t query) {
    recordQueryOp(cb, {.pool = pool, .first = query, .count = 1});
    lockedDevice(cb)->next.CmdWriteTimestamp2KHR(cb, stage, pool, query);
}

VKAPI_ATTR void VKAPI_CALL simCmdResetQueryPool(VkCommandBuffer cb, VkQueryPool pool, uint32_t first, uint32_t count) {
    recordQueryOp(cb, {.reset = true, .pool = pool, .first = first, .count = count});
    lockedDevice(cb)->next.CmdResetQueryPool(cb, pool, first, count);
}

// ---- descriptors and buffers (stale) ----------------------------------------------------

// stale copies every storage buffer, so each gets TRANSFER_SRC and TRANSFER_DST as well.
VKAPI_ATTR VkResult VKAPI_CALL simCreateBuffer(VkDevice device, const VkBufferCreateInfo* info,
                                               const VkAllocationCallbacks* a, VkBuffer* buffer) {
    DeviceState* d = lockedDevice(device);
    VkBufferCreateInfo down = *info;
    down.usage |= VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (d->config->secondFamily && down.sharingMode == VK_SHARING_MODE_CONCURRENT) {
        // second-family: the driver has one family fewer; its buffers are exclusive to it
        down.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        down.queueFamilyIndexCount = 0;
        down.pQueueFamilyIndices = nullptr;
    }
    const VkResult r = d->next.CreateBuffer(device, &down, a, buffer);
    if (r == VK_SUCCESS) {
        std::lock_guard lock(globals().mutex);
        d->bufferSizes[*buffer] = info->size;
    }
    return r;
}

// second-family: a concurrent image is exclusive to the driver's one family, as a buffer is.
VKAPI_ATTR VkResult VKAPI_CALL simCreateImage(VkDevice device, const VkImageCreateInfo* info,
                                              const VkAllocationCallbacks* a, VkImage* image) {
    DeviceState* d = lockedDevice(device);
    VkImageCreateInfo down = *info;
    if (down.sharingMode == VK_SHARING_MODE_CONCURRENT) {
        trace(
            "a VK_SHARING_MODE_CONCURRENT image over %u queue families is exclusive to the driver's one "
            "(second-family)",
            down.queueFamilyIndexCount);
        down.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        down.queueFamilyIndexCount = 0;
        down.pQueueFamilyIndices = nullptr;
    }
    return d->next.CreateImage(device, &down, a, image);
}

VKAPI_ATTR void VKAPI_CALL simDestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks* a) {
    DeviceState* d = lockedDevice(device);
    faultBefore(FaultCall::DestroyBuffer, d);  // crash, abort or stall (lost is refused: no result)
    {
        std::lock_guard lock(globals().mutex);
        d->bufferSizes.erase(buffer);
    }
    d->next.DestroyBuffer(device, buffer, a);
}

VKAPI_ATTR VkResult VKAPI_CALL simAllocateDescriptorSets(VkDevice device, const VkDescriptorSetAllocateInfo* info,
                                                         VkDescriptorSet* sets) {
    DeviceState* d = lockedDevice(device);
    const VkResult r = d->next.AllocateDescriptorSets(device, info, sets);
    if (r == VK_SUCCESS) {
        std::lock_guard lock(globals().mutex);
        for (uint32_t i = 0; i < info->descriptorSetCount; ++i) {
            d->sets[sets[i]].clear();  // a new set holds nothing
        }
    }
    return r;
}

bool isStorageBuffer(VkDescriptorType t) {
    return t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
}

VkResult createTemplate(VkDevice device, const VkDescriptorUpdateTemplateCreateInfo* info,
                        const VkAllocationCallbacks* a, VkDescriptorUpdateTemplate* t,
                        PFN_vkCreateDescriptorUpdateTemplate next) {
    const VkResult r = next(device, info, a, t);
    if (r != VK_SUCCESS || info->templateType != VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET) return r;
    std::vector<TemplateEntry> entries;
    for (uint32_t i = 0; i < info->descriptorUpdateEntryCount; ++i) {
        const VkDescriptorUpdateTemplateEntry& e = info->pDescriptorUpdateEntries[i];
        entries.push_back({.binding = e.dstBinding,
                           .arrayElement = e.dstArrayElement,
                           .count = e.descriptorCount,
                           .type = e.descriptorType,
                           .offset = e.offset,
                           .stride = e.stride});
    }
    std::lock_guard lock(globals().mutex);
    deviceOf(device)->templates[*t] = std::move(entries);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL simCreateDescriptorUpdateTemplate(VkDevice device,
                                                                 const VkDescriptorUpdateTemplateCreateInfo* info,
                                                                 const VkAllocationCallbacks* a,
                                                                 VkDescriptorUpdateTemplate* t) {
    return createTemplate(device, info, a, t, lockedDevice(device)->next.CreateDescriptorUpdateTemplate);
}

VKAPI_ATTR VkResult VKAPI_CALL simCreateDescriptorUpdateTemplateKHR(VkDevice device,
                                                                    const VkDescriptorUpdateTemplateCreateInfo* info,
                                                                    const VkAllocationCallbacks* a,
                                                                    VkDescriptorUpdateTemplate* t) {
    return createTemplate(device, info, a, t, lockedDevice(device)->next.CreateDescriptorUpdateTemplateKHR);
}

void forgetTemplate(VkDevice device, VkDescriptorUpdateTemplate t) {
    std::lock_guard lock(globals().mutex);
    deviceOf(device)->templates.erase(t);
}

VKAPI_ATTR void VKAPI_CALL simDestroyDescriptorUpdateTemplate(VkDevice device, VkDescriptorUpdateTemplate t,
                                                              const VkAllocationCallbacks* a) {
    forgetTemplate(device, t);
    lockedDevice(device)->next.DestroyDescriptorUpdateTemplate(device, t, a);
}

VKAPI_ATTR void VKAPI_CALL simDestroyDescriptorUpdateTemplateKHR(VkDevice device, VkDescriptorUpdateTemplate t,
                                                                 const VkAllocationCallbacks* a) {
    forgetTemplate(device, t);
    lockedDevice(device)->next.DestroyDescriptorUpdateTemplateKHR(device, t, a);
}

// The storage buffers a template update writes: for entry e and element j, the
// VkDescriptorBufferInfo at data + e.offset + j * e.stride (Vulkan spec,
// vkUpdateDescriptorSetWithTemplate).
void recordTemplateUpdate(VkDevice device, VkDescriptorSet set, VkDescriptorUpdateTemplate t, const void* data) {
    std::lock_guard lock(globals().mutex);
    DeviceState* d = deviceOf(device);
    const auto it = d->templates.find(t);
    if (it == d->templates.end() || !data) return;
    for (const TemplateEntry& e : it->second) {
        if (!isStorageBuffer(e.type)) continue;
        for (uint32_t j = 0; j < e.count; ++j) {
            VkDescriptorBufferInfo info{};
            std::memcpy(&info, static_cast<const std::byte*>(data) + e.offset + j * e.stride, sizeof info);
            d->sets[set][{e.binding, e.arrayElement + j}] = info.buffer;
        }
    }
}

VKAPI_ATTR void VKAPI_CALL simUpdateDescriptorSetWithTemplate(VkDevice device, VkDescriptorSet set,
                                                              VkDescriptorUpdateTemplate t, const void* data) {
    recordTemplateUpdate(device, set, t, data);
    lockedDevice(device)->next.UpdateDescriptorSetWithTemplate(device, set, t, data);
}

VKAPI_ATTR void VKAPI_CALL simUpdateDescriptorSetWithTemplateKHR(VkDevice device, VkDescriptorSet set,
                                                                 VkDescriptorUpdateTemplate t, const void* data) {
    recordTemplateUpdate(device, set, t, data);
    lockedDevice(device)->next.UpdateDescriptorSetWithTemplateKHR(device, set, t, data);
}

// Writes and copies of storage-buffer descriptors. A write that runs past its binding's
// array into the next binding is recorded under the first binding (the layer does not
// know the layouts); repro writes one descriptor per binding.
VKAPI_ATTR void VKAPI_CALL simUpdateDescriptorSets(VkDevice device, uint32_t writeCount,
                                                   const VkWriteDescriptorSet* writes, uint32_t copyCount,
                                                   const VkCopyDescriptorSet* copies) {
    DeviceState* d = lockedDevice(device);
    {
        std::lock_guard lock(globals().mutex);
        for (uint32_t i = 0; i < writeCount; ++i) {
            const VkWriteDescriptorSet& w = writes[i];
            if (!isStorageBuffer(w.descriptorType) || !w.pBufferInfo) continue;
            for (uint32_t j = 0; j < w.descriptorCount; ++j) {
                d->sets[w.dstSet][{w.dstBinding, w.dstArrayElement + j}] = w.pBufferInfo[j].buffer;
            }
        }
        for (uint32_t i = 0; i < copyCount; ++i) {
            const VkCopyDescriptorSet& c = copies[i];
            for (uint32_t j = 0; j < c.descriptorCount; ++j) {
                const auto from = d->sets[c.srcSet].find({c.srcBinding, c.srcArrayElement + j});
                if (from != d->sets[c.srcSet].end()) {
                    d->sets[c.dstSet][{c.dstBinding, c.dstArrayElement + j}] = from->second;
                }
            }
        }
    }
    d->next.UpdateDescriptorSets(device, writeCount, writes, copyCount, copies);
}

VKAPI_ATTR void VKAPI_CALL simCmdBindDescriptorSets(VkCommandBuffer cb, VkPipelineBindPoint point,
                                                    VkPipelineLayout layout, uint32_t first, uint32_t count,
                                                    const VkDescriptorSet* sets, uint32_t dynamicCount,
                                                    const uint32_t* dynamicOffsets) {
    DeviceState* d = lockedDevice(cb);
    if (point == VK_PIPELINE_BIND_POINT_COMPUTE) {
        std::lock_guard lock(globals().mutex);
        CommandBufferState& s = commandBufferOf(*d, cb);
        if (s.computeSets.size() < first + count) s.computeSets.resize(first + count, VK_NULL_HANDLE);
        for (uint32_t i = 0; i < count; ++i) s.computeSets[first + i] = sets[i];
    }
    d->next.CmdBindDescriptorSets(cb, point, layout, first, count, sets, dynamicCount, dynamicOffsets);
}

// ---- creation calls that are fault points ------------------------------------------------

VKAPI_ATTR VkResult VKAPI_CALL simCreateComputePipelines(VkDevice device, VkPipelineCache cache, uint32_t count,
                                                         const VkComputePipelineCreateInfo* infos,
                                                         const VkAllocationCallbacks* a, VkPipeline* pipelines) {
    DeviceState* d = lockedDevice(device);
    const VkResult fault = faultBefore(FaultCall::CreateComputePipelines, d);
    if (fault != VK_SUCCESS) return fault;
    return d->next.CreateComputePipelines(device, cache, count, infos, a, pipelines);
}

VKAPI_ATTR VkResult VKAPI_CALL simCreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo* info,
                                                     const VkAllocationCallbacks* a, VkShaderModule* module) {
    DeviceState* d = lockedDevice(device);
    const VkResult fault = faultBefore(FaultCall::CreateShaderModule, d);
    if (fault != VK_SUCCESS) return fault;
    return d->next.CreateShaderModule(device, info, a, module);
}

VKAPI_ATTR VkResult VKAPI_CALL simAllocateMemory(VkDevice device, const VkMemoryAllocateInfo* info,
                                                 const VkAllocationCallbacks* a, VkDeviceMemory* memory) {
    DeviceState* d = lockedDevice(device);
    const VkResult fault = faultBefore(FaultCall::AllocateMemory, d);
    if (fault != VK_SUCCESS) return fault;
    return d->next.AllocateMemory(device, info, a, memory);
}

VKAPI_ATTR VkResult VKAPI_CALL simMapMemory(VkDevice device, VkDeviceMemory memory, VkDeviceSize offset,
                                            VkDeviceSize size, VkMemoryMapFlags flags, void** data) {
    DeviceState* d = lockedDevice(device);
    const VkResult fault = faultBefore(FaultCall::MapMemory, d);
    if (fault != VK_SUCCESS) return fault;
    return d->next.MapMemory(device, memory, offset, size, flags, data);
}

const Intercept kCommandIntercepts[] = {
    {"vkAllocateCommandBuffers", interceptFn(simAllocateCommandBuffers), kRecording, std::nullopt},
    {"vkFreeCommandBuffers", interceptFn(simFreeCommandBuffers), kRecording, std::nullopt},
    {"vkResetCommandPool", interceptFn(simResetCommandPool), kRecording, std::nullopt},
    {"vkDestroyCommandPool", interceptFn(simDestroyCommandPool), kRecording, std::nullopt},
    {"vkBeginCommandBuffer", interceptFn(simBeginCommandBuffer), kRecording, std::nullopt},
    {"vkResetCommandBuffer", interceptFn(simResetCommandBuffer), kRecording, std::nullopt},
    {"vkCmdDispatch", interceptFn(simCmdDispatch), kRecording, std::nullopt},
    {"vkCmdDispatchBase", interceptFn(simCmdDispatchBase), kRecording, std::nullopt},
    {"vkCmdDispatchBaseKHR", interceptFn(simCmdDispatchBaseKHR), kRecording, std::nullopt},
    {"vkCmdDispatchIndirect", interceptFn(simCmdDispatchIndirect), kRecording, FaultCall::CmdDispatchIndirect},
    {"vkCmdWriteTimestamp", interceptFn(simCmdWriteTimestamp), kClockGroup, std::nullopt},
    {"vkCmdWriteTimestamp2", interceptFn(simCmdWriteTimestamp2), kClockGroup, std::nullopt},
    {"vkCmdWriteTimestamp2KHR", interceptFn(simCmdWriteTimestamp2KHR), kClockGroup, std::nullopt},
    {"vkCmdResetQueryPool", interceptFn(simCmdResetQueryPool), kClockGroup, std::nullopt},
    {"vkCreateBuffer", interceptFn(simCreateBuffer), kStale | kFamilies, std::nullopt},
    {"vkDestroyBuffer", interceptFn(simDestroyBuffer), kStale, FaultCall::DestroyBuffer},
    {"vkCreateImage", interceptFn(simCreateImage), kFamilies, std::nullopt},
    {"vkAllocateDescriptorSets", interceptFn(simAllocateDescriptorSets), kStale, std::nullopt},
    {"vkCreateDescriptorUpdateTemplate", interceptFn(simCreateDescriptorUpdateTemplate), kStale, std::nullopt},
    {"vkCreateDescriptorUpdateTemplateKHR", interceptFn(simCreateDescriptorUpdateTemplateKHR), kStale, std::nullopt},
    {"vkDestroyDescriptorUpdateTemplate", interceptFn(simDestroyDescriptorUpdateTemplate), kStale, std::nullopt},
    {"vkDestroyDescriptorUpdateTemplateKHR", interceptFn(simDestroyDescriptorUpdateTemplateKHR), kStale, std::nullopt},
    {"vkUpdateDescriptorSetWithTemplate", interceptFn(simUpdateDescriptorSetWithTemplate), kStale, std::nullopt},
    {"vkUpdateDescriptorSetWithTemplateKHR", interceptFn(simUpdateDescriptorSetWithTemplateKHR), kStale, std::nullopt},
    {"vkUpdateDescriptorSets", interceptFn(simUpdateDescriptorSets), kStale, std::nullopt},
    {"vkCmdBindDescriptorSets", interceptFn(simCmdBindDescriptorSets), kStale, std::nullopt},
    {"vkCreateComputePipelines", interceptFn(simCreateComputePipelines), 0, FaultCall::CreateComputePipelines},
    {"vkCreateShaderModule", interceptFn(simCreateShaderModule), 0, FaultCall::CreateShaderModule},
    {"vkAllocateMemory", interceptFn(simAllocateMemory), 0, FaultCall::AllocateMemory},
    {"vkMapMemory", interceptFn(simMapMemory), 0, FaultCall::MapMemory},
    {"vkCmdFillBuffer", interceptFn(simCmdFillBuffer), kTransfers, std::nullopt},
    {"vkCmdUpdateBuffer", interceptFn(simCmdUpdateBuffer), kTransfers, std::nullopt},
    {"vkCmdCopyBuffer", interceptFn(simCmdCopyBuffer), kTransfers, std::nullopt},
    {"vkCmdCopyBuffer2", interceptFn(simCmdCopyBuffer2), kTransfers, std::nullopt},
    {"vkCmdCopyBuffer2KHR", interceptFn(simCmdCopyBuffer2KHR), kTransfers, std::nullopt},
    {"vkCmdPipelineBarrier", interceptFn(simCmdPipelineBarrier), kTransfers | kFamilies | kWeakBarriers, std::nullopt},
    {"vkCreateCommandPool", interceptFn(simCreateCommandPool), kFamilies, std::nullopt},
    {"vkCmdPipelineBarrier2", interceptFn(simCmdPipelineBarrier2), kTransfers | kWeakBarriers, std::nullopt},
    {"vkCmdPipelineBarrier2KHR", interceptFn(simCmdPipelineBarrier2KHR), kTransfers | kWeakBarriers, std::nullopt},
    {"vkCmdCopyBufferToImage", interceptFn(simCmdCopyBufferToImage), kTransfers, std::nullopt},
    {"vkCmdCopyImageToBuffer", interceptFn(simCmdCopyImageToBuffer), kTransfers, std::nullopt},
    {"vkCmdCopyImage", interceptFn(simCmdCopyImage), kTransfers, std::nullopt},
    {"vkCmdClearColorImage", interceptFn(simCmdClearColorImage), kTransfers, std::nullopt},
};

}  // namespace

void releaseOwned(DeviceState& d, CommandBufferState& s) {
    for (const OwnedBuffer& b : s.owned) {
        d.next.DestroyBuffer(d.handle, b.buffer, nullptr);
        d.next.FreeMemory(d.handle, b.memory, nullptr);
    }
    s.owned.clear();
    s.staleBefore.clear();
}

std::span<const Intercept> commandIntercepts() { return kCommandIntercepts; }

}  // namespace repro::simdriver::layer
