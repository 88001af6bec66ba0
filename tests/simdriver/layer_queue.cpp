// The layer after recording: submits placed on the simulated clock (clock.hpp), waits
// that do not report completion before the simulated completion, a lost device, the
// rewritten timestamp results, the kernel log lines of watchdog kills, and the faults
// (crash, abort, stall, lost) of faults.hpp acted out.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>

#include "layer_state.hpp"

namespace repro::simdriver::layer {
namespace {

template <typename Handle>
DeviceState* lockedDevice(Handle handle) {
    std::lock_guard lock(globals().mutex);
    return deviceOf(handle);
}

void markLost(DeviceState& d, Nanoseconds at) { d.lostAt = std::min(d.lostAt, at); }

// ---- faults -----------------------------------------------------------------------------

[[noreturn]] void crash() {
    // A real invalid write: a page mapped with no access at all.
    void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page != MAP_FAILED) *static_cast<volatile int*>(page) = 1;
    std::raise(SIGSEGV);
    std::abort();
}

// Acts out a fault that does not return. The stall sleeps for ever in pause(): a signal
// handler the application installed runs and the stall goes on; a signal whose action is
// the default (SIGKILL always, SIGTERM and SIGINT without a handler) ends the process.
[[noreturn]] void actOut(FaultKind kind, FaultCall call, uint64_t k) {
    trace("%.*s in call %llu of %.*s", static_cast<int>(faultName(kind).size()), faultName(kind).data(),
          static_cast<unsigned long long>(k), static_cast<int>(callName(call).size()), callName(call).data());
    if (kind == FaultKind::Crash) crash();
    if (kind == FaultKind::Abort) std::abort();
    for (;;) pause();
}

VkResult fault(FaultCall call, DeviceState* device, bool counts, VkResult otherwise) {
    std::optional<FaultKind> due;
    uint64_t k = 0;
    {
        std::lock_guard lock(globals().mutex);
        if (!globals().faults) return otherwise;
        due = globals().faults->onCall(call, counts);
        k = globals().faults->calls(call);
        // With REPRO_SIMULATE_TRACE, each counted call of a fault's entry point: how a
        // test finds the k it wants.
        if (counts && globals().faults->targets(call)) {
            trace("%.*s: call %llu", static_cast<int>(callName(call).size()), callName(call).data(),
                  static_cast<unsigned long long>(k));
        }
        if (due == FaultKind::Lost && device) markLost(*device, monotonicNow());
    }
    if (!due) return otherwise;
    if (*due != FaultKind::Lost) actOut(*due, call, k);
    trace("lost in call %llu of %.*s", static_cast<unsigned long long>(k), static_cast<int>(callName(call).size()),
          callName(call).data());
    return VK_ERROR_DEVICE_LOST;
}

}  // namespace

VkResult faultBefore(FaultCall call, DeviceState* device) { return fault(call, device, true, VK_SUCCESS); }

VkResult faultAfterWait(FaultCall call, DeviceState* device, VkResult result) {
    return fault(call, device, result == VK_SUCCESS, result);
}

// ---- kernel log -------------------------------------------------------------------------

namespace {

std::string readLine(const char* path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

uint64_t linesIn(const std::string& path) {
    std::ifstream in(path);
    uint64_t n = 0;
    std::string line;
    while (std::getline(in, line)) ++n;
    return n;
}

}  // namespace

void flushKills(DeviceState& d, Nanoseconds upTo) {
    const auto due =
        std::stable_partition(d.kills.begin(), d.kills.end(), [&](const PendingKill& k) { return k.at > upTo; });
    const bool toFile = d.config->watchdog && d.config->watchdog->kmsgPath;
    if (due != d.kills.end() && toFile) {
        const std::string& path = *d.config->watchdog->kmsgPath;
        auto [seq, fresh] = globals().kmsgSequence.try_emplace(path, 0);
        if (fresh) seq->second = linesIn(path);  // SEQ carries on after what the file holds
        if (FILE* out = std::fopen(path.c_str(), "a")) {
            for (auto k = due; k != d.kills.end(); ++k) {
                for (const KmsgLine& line : kmsgLines(k->report)) {
                    std::fprintf(out, "%s\n",
                                 kmsgRecord(line.level, seq->second++, k->at / 1000, line.message).c_str());
                }
            }
            std::fclose(out);
        } else {
            std::fprintf(stderr, "repro-simulate: watchdog: cannot append to kmsg file '%s'\n", path.c_str());
        }
    }
    d.kills.erase(due, d.kills.end());
}

namespace {

// ---- submits ----------------------------------------------------------------------------

// One VkSubmitInfo or VkSubmitInfo2, reduced to what the clock needs.
struct Batch {
    std::vector<VkCommandBuffer> commandBuffers;
    std::vector<std::pair<VkSemaphore, uint64_t>> waits;
    std::vector<std::pair<VkSemaphore, uint64_t>> signals;
};

QueueState& queueOf(DeviceState& d, VkQueue queue) { return d.queues[queue]; }

Nanoseconds completionOf(const DeviceState& d, VkSemaphore s, uint64_t value) {
    if (const auto t = d.timelines.find(s); t != d.timelines.end()) return t->second.completionOf(value);
    if (const auto b = d.binarySignals.find(s); b != d.binarySignals.end()) return b->second;
    return 0;
}

void applyQueryOps(DeviceState& d, const CommandBufferState& s, Nanoseconds start, uint32_t family) {
    for (const QueryOp& op : s.queryOps) {
        std::vector<QuerySlot>& slots = d.queries[op.pool];
        if (slots.size() < uint64_t{op.first} + op.count) slots.resize(uint64_t{op.first} + op.count);
        for (uint32_t q = op.first; q < op.first + op.count; ++q) {
            slots[q] =
                op.reset
                    ? QuerySlot{}
                    : QuerySlot{.tracked = true, .never = !op.timestamp.available, .at = start + op.timestamp.offset};
        }
        d.queryFamilies[op.pool] = family;
    }
}

void recordKill(DeviceState& d, const QueueState& q, const JobTiming& job, VkCommandBuffer cb) {
    const Watchdog& w = *d.config->watchdog;
    const bool hard = w.recovery == Recovery::Hard;
    if (hard) {
        ++d.gpuResets;
        markLost(d, job.end);
    }
    if (w.recovery == Recovery::SoftNextSubmit) d.lostAtNextSubmit = std::min(d.lostAtNextSubmit, job.end);
    static const std::string process = readLine("/proc/self/comm");
    d.kills.push_back({.at = job.end,
                       .report = {.pciAddress = d.pciAddress,
                                  .ring = ringName(q.family),
                                  .signaledSeq = job.sequence - 1,
                                  .emittedSeq = job.sequence,
                                  .recovery = w.recovery,
                                  .resetCount = d.gpuResets,
                                  .processName = process,
                                  .pid = static_cast<int>(getpid()),
                                  .threadName = readLine("/proc/thread-self/comm"),
                                  .tid = static_cast<int>(gettid())}});
    trace("watchdog: command buffer %p (job %llu on %s) killed at %.3f ms; %s", static_cast<void*>(cb),
          static_cast<unsigned long long>(job.sequence), ringName(q.family).c_str(), w.timeoutMs,
          hard                                     ? "the device is lost from then on"
          : w.recovery == Recovery::SoftNextSubmit ? "soft recovery, no error; the next submit loses the device"
                                                   : "soft recovery, no error");
}

// Places a successful submit's command buffers on the queue's clock and books when its
// signal operations and fence complete.
void schedule(DeviceState& d, VkQueue queue, const std::vector<Batch>& batches, VkFence fence, Nanoseconds now) {
    QueueState& q = queueOf(d, queue);
    Nanoseconds last = now;
    for (const Batch& b : batches) {
        Nanoseconds notBefore = 0;
        for (const auto& [s, value] : b.waits) notBefore = std::max(notBefore, completionOf(d, s, value));
        Nanoseconds end = std::max({now, q.clock.freeAt(), notBefore});
        for (const VkCommandBuffer cb : b.commandBuffers) {
            const auto it = d.commandBuffers.find(cb);
            const Nanoseconds duration = it == d.commandBuffers.end() ? 0 : it->second.model.duration();
            const JobTiming job = q.clock.schedule(now, notBefore, duration);
            end = job.end;
            if (it == d.commandBuffers.end()) continue;
            applyQueryOps(d, it->second, job.start, q.family);
            if (it->second.model.killed()) recordKill(d, q, job, cb);
        }
        for (const auto& [s, value] : b.signals) {
            if (auto t = d.timelines.find(s); t != d.timelines.end()) {
                t->second.prune(now);
                t->second.signal(value, end);
            } else {
                d.binarySignals[s] = end;
            }
        }
        last = std::max(last, end);
    }
    if (fence) d.fences[fence] = last;
}

// The common path of vkQueueSubmit and vkQueueSubmit2(KHR).
VkResult submit(VkQueue queue, const std::vector<Batch>& batches, VkFence fence, FaultCall call,
                const std::function<VkResult()>& forward) {
    DeviceState* d = lockedDevice(queue);
    const Nanoseconds now = monotonicNow();
    {
        std::lock_guard lock(globals().mutex);
        flushKills(*d, now);
        if (d->lostAtNextSubmit <= now) markLost(*d, now);
        if (d->lostAt <= now) return VK_ERROR_DEVICE_LOST;
    }
    const VkResult f = faultBefore(call, d);
    if (f != VK_SUCCESS) return f;
    std::lock_guard lock(globals().mutex);
    const VkResult r = forward();
    if (r == VK_ERROR_DEVICE_LOST) markLost(*d, now);
    if (r == VK_SUCCESS && (d->groups & kClockGroup)) schedule(*d, queue, batches, fence, now);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL simQueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits,
                                              VkFence fence) {
    std::vector<Batch> batches;
    for (uint32_t i = 0; i < count; ++i) {
        const VkSubmitInfo& s = submits[i];
        const VkTimelineSemaphoreSubmitInfo* values = nullptr;
        for (auto* p = static_cast<const VkBaseInStructure*>(s.pNext); p; p = p->pNext) {
            if (p->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO) {
                values = reinterpret_cast<const VkTimelineSemaphoreSubmitInfo*>(p);
            }
        }
        Batch b{.commandBuffers = {s.pCommandBuffers, s.pCommandBuffers + s.commandBufferCount}};
        for (uint32_t w = 0; w < s.waitSemaphoreCount; ++w) {
            const bool valued = values && values->pWaitSemaphoreValues && w < values->waitSemaphoreValueCount;
            b.waits.emplace_back(s.pWaitSemaphores[w], valued ? values->pWaitSemaphoreValues[w] : 0);
        }
        for (uint32_t g = 0; g < s.signalSemaphoreCount; ++g) {
            const bool valued = values && values->pSignalSemaphoreValues && g < values->signalSemaphoreValueCount;
            b.signals.emplace_back(s.pSignalSemaphores[g], valued ? values->pSignalSemaphoreValues[g] : 0);
        }
        batches.push_back(std::move(b));
    }
    DeviceState* d = lockedDevice(queue);
    return submit(queue, batches, fence, FaultCall::QueueSubmit,
                  [&] { return d->next.QueueSubmit(queue, count, submits, fence); });
}

std::vector<Batch> batchesOf(uint32_t count, const VkSubmitInfo2* submits) {
    std::vector<Batch> batches;
    for (uint32_t i = 0; i < count; ++i) {
        const VkSubmitInfo2& s = submits[i];
        Batch b;
        for (uint32_t c = 0; c < s.commandBufferInfoCount; ++c) {
            b.commandBuffers.push_back(s.pCommandBufferInfos[c].commandBuffer);
        }
        for (uint32_t w = 0; w < s.waitSemaphoreInfoCount; ++w) {
            b.waits.emplace_back(s.pWaitSemaphoreInfos[w].semaphore, s.pWaitSemaphoreInfos[w].value);
        }
        for (uint32_t g = 0; g < s.signalSemaphoreInfoCount; ++g) {
            b.signals.emplace_back(s.pSignalSemaphoreInfos[g].semaphore, s.pSignalSemaphoreInfos[g].value);
        }
        batches.push_back(std::move(b));
    }
    return batches;
}

VKAPI_ATTR VkResult VKAPI_CALL simQueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2* submits,
                                               VkFence fence) {
    DeviceState* d = lockedDevice(queue);
    return submit(queue, batchesOf(count, submits), fence, FaultCall::QueueSubmit2,
                  [&] { return d->next.QueueSubmit2(queue, count, submits, fence); });
}

VKAPI_ATTR VkResult VKAPI_CALL simQueueSubmit2KHR(VkQueue queue, uint32_t count, const VkSubmitInfo2* submits,
                                                  VkFence fence) {
    DeviceState* d = lockedDevice(queue);
    return submit(queue, batchesOf(count, submits), fence, FaultCall::QueueSubmit2,
                  [&] { return d->next.QueueSubmit2KHR(queue, count, submits, fence); });
}

VKAPI_ATTR void VKAPI_CALL simGetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue* queue) {
    DeviceState* d = lockedDevice(device);
    if (family == d->addedFamily) family = 0, index = 0;  // second-family: the driver's main queue
    d->next.GetDeviceQueue(device, family, index, queue);
    std::lock_guard lock(globals().mutex);
    if (*queue) queueOf(*d, *queue).family = family;
}

VKAPI_ATTR void VKAPI_CALL simGetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2* info, VkQueue* queue) {
    DeviceState* d = lockedDevice(device);
    VkDeviceQueueInfo2 down = *info;
    if (down.queueFamilyIndex == d->addedFamily) down.queueFamilyIndex = 0, down.queueIndex = 0;
    d->next.GetDeviceQueue2(device, &down, queue);
    std::lock_guard lock(globals().mutex);
    if (*queue) queueOf(*d, *queue).family = down.queueFamilyIndex;
}

// ---- waits ------------------------------------------------------------------------------

// What a wait that the driver below answered with `r` returns on the simulated clock.
// `start`: when the application's call began; `target`: the simulated completion waited
// for; `timeout`: the call's own, in ns.
VkResult simulatedWait(DeviceState& d, VkResult r, Nanoseconds start, Nanoseconds target, uint64_t timeout) {
    if (r == VK_ERROR_DEVICE_LOST) {
        std::lock_guard lock(globals().mutex);
        markLost(d, monotonicNow());
    }
    if (r != VK_SUCCESS || !(d.groups & kClockGroup)) return r;
    Nanoseconds lostAt = kNever;
    {
        std::lock_guard lock(globals().mutex);
        lostAt = d.lostAt;
    }
    const WaitPlan plan = planWait(monotonicNow(), target, lostAt, deadlineAfter(start, timeout));
    sleepUntil(plan.wakeAt);
    std::lock_guard lock(globals().mutex);
    flushKills(d, monotonicNow());
    switch (plan.end) {
        case WaitEnd::Completed:
            return VK_SUCCESS;
        case WaitEnd::DeviceLost:
            return VK_ERROR_DEVICE_LOST;
        case WaitEnd::TimedOut:
            return VK_TIMEOUT;
    }
    return r;
}

// Before a wait: the kills due written, and whether the device is already lost.
bool lostBeforeWait(DeviceState& d, Nanoseconds now) {
    std::lock_guard lock(globals().mutex);
    flushKills(d, now);
    return d.lostAt <= now;
}

VkResult waitSemaphores(VkDevice device, const VkSemaphoreWaitInfo* info, uint64_t timeout, PFN_vkWaitSemaphores next) {
    DeviceState* d = lockedDevice(device);
    const Nanoseconds start = monotonicNow();
    if (lostBeforeWait(*d, start)) return VK_ERROR_DEVICE_LOST;
    Nanoseconds target = 0;
    {
        std::lock_guard lock(globals().mutex);
        const bool any = (info->flags & VK_SEMAPHORE_WAIT_ANY_BIT) != 0;
        target = any && info->semaphoreCount ? kNever : 0;
        for (uint32_t i = 0; i < info->semaphoreCount; ++i) {
            const Nanoseconds t = completionOf(*d, info->pSemaphores[i], info->pValues[i]);
            target = any ? std::min(target, t) : std::max(target, t);
        }
    }
    const VkResult r = simulatedWait(*d, next(device, info, timeout), start, target, timeout);
    return faultAfterWait(FaultCall::WaitSemaphores, d, r);
}

VKAPI_ATTR VkResult VKAPI_CALL simWaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo* info, uint64_t timeout) {
    return waitSemaphores(device, info, timeout, lockedDevice(device)->next.WaitSemaphores);
}

VKAPI_ATTR VkResult VKAPI_CALL simWaitSemaphoresKHR(VkDevice device, const VkSemaphoreWaitInfo* info,
                                                    uint64_t timeout) {
    return waitSemaphores(device, info, timeout, lockedDevice(device)->next.WaitSemaphoresKHR);
}

VKAPI_ATTR VkResult VKAPI_CALL simQueueWaitIdle(VkQueue queue) {
    DeviceState* d = lockedDevice(queue);
    const Nanoseconds start = monotonicNow();
    if (lostBeforeWait(*d, start)) return VK_ERROR_DEVICE_LOST;
    Nanoseconds target = 0;
    {
        std::lock_guard lock(globals().mutex);
        target = queueOf(*d, queue).clock.freeAt();
    }
    const VkResult r = simulatedWait(*d, d->next.QueueWaitIdle(queue), start, target, UINT64_MAX);
    return faultAfterWait(FaultCall::QueueWaitIdle, d, r);
}

VKAPI_ATTR VkResult VKAPI_CALL simDeviceWaitIdle(VkDevice device) {
    DeviceState* d = lockedDevice(device);
    const Nanoseconds start = monotonicNow();
    if (lostBeforeWait(*d, start)) return VK_ERROR_DEVICE_LOST;
    Nanoseconds target = 0;
    {
        std::lock_guard lock(globals().mutex);
        for (const auto& [q, state] : d->queues) target = std::max(target, state.clock.freeAt());
    }
    const VkResult r = simulatedWait(*d, d->next.DeviceWaitIdle(device), start, target, UINT64_MAX);
    return faultAfterWait(FaultCall::DeviceWaitIdle, d, r);
}

VkResult counterValue(VkDevice device, VkSemaphore semaphore, uint64_t* value, PFN_vkGetSemaphoreCounterValue next) {
    DeviceState* d = lockedDevice(device);
    const Nanoseconds now = monotonicNow();
    if (lostBeforeWait(*d, now)) return VK_ERROR_DEVICE_LOST;
    const VkResult r = next(device, semaphore, value);
    if (r == VK_ERROR_DEVICE_LOST) markLost(*d, now);
    if (r != VK_SUCCESS) return r;
    std::lock_guard lock(globals().mutex);
    if (const auto t = d->timelines.find(semaphore); t != d->timelines.end()) {
        *value = t->second.observedValue(*value, now);
    }
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL simGetSemaphoreCounterValue(VkDevice device, VkSemaphore semaphore, uint64_t* value) {
    return counterValue(device, semaphore, value, lockedDevice(device)->next.GetSemaphoreCounterValue);
}

VKAPI_ATTR VkResult VKAPI_CALL simGetSemaphoreCounterValueKHR(VkDevice device, VkSemaphore semaphore, uint64_t* value) {
    return counterValue(device, semaphore, value, lockedDevice(device)->next.GetSemaphoreCounterValueKHR);
}

VKAPI_ATTR VkResult VKAPI_CALL simCreateSemaphore(VkDevice device, const VkSemaphoreCreateInfo* info,
                                                  const VkAllocationCallbacks* a, VkSemaphore* semaphore) {
    DeviceState* d = lockedDevice(device);
    const VkResult r = d->next.CreateSemaphore(device, info, a, semaphore);
    if (r != VK_SUCCESS) return r;
    for (auto* p = static_cast<const VkBaseInStructure*>(info->pNext); p; p = p->pNext) {
        if (p->sType != VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO) continue;
        const auto* type = reinterpret_cast<const VkSemaphoreTypeCreateInfo*>(p);
        if (type->semaphoreType != VK_SEMAPHORE_TYPE_TIMELINE) continue;
        std::lock_guard lock(globals().mutex);
        d->timelines.emplace(*semaphore, SemaphoreTimeline(type->initialValue));
    }
    return r;
}

VKAPI_ATTR void VKAPI_CALL simDestroySemaphore(VkDevice device, VkSemaphore semaphore, const VkAllocationCallbacks* a) {
    DeviceState* d = lockedDevice(device);
    {
        std::lock_guard lock(globals().mutex);
        d->timelines.erase(semaphore);
        d->binarySignals.erase(semaphore);
    }
    d->next.DestroySemaphore(device, semaphore, a);
}

VKAPI_ATTR VkResult VKAPI_CALL simWaitForFences(VkDevice device, uint32_t count, const VkFence* fences, VkBool32 all,
                                                uint64_t timeout) {
    DeviceState* d = lockedDevice(device);
    const Nanoseconds start = monotonicNow();
    if (lostBeforeWait(*d, start)) return VK_ERROR_DEVICE_LOST;
    Nanoseconds target = all || !count ? 0 : kNever;
    {
        std::lock_guard lock(globals().mutex);
        for (uint32_t i = 0; i < count; ++i) {
            const auto it = d->fences.find(fences[i]);
            const Nanoseconds t = it == d->fences.end() ? 0 : it->second;
            target = all ? std::max(target, t) : std::min(target, t);
        }
    }
    return simulatedWait(*d, d->next.WaitForFences(device, count, fences, all, timeout), start, target, timeout);
}

VKAPI_ATTR VkResult VKAPI_CALL simGetFenceStatus(VkDevice device, VkFence fence) {
    DeviceState* d = lockedDevice(device);
    const Nanoseconds now = monotonicNow();
    if (lostBeforeWait(*d, now)) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->next.GetFenceStatus(device, fence);
    if (r != VK_SUCCESS) return r;
    std::lock_guard lock(globals().mutex);
    const auto it = d->fences.find(fence);
    return it != d->fences.end() && it->second > now ? VK_NOT_READY : r;
}

VKAPI_ATTR VkResult VKAPI_CALL simResetFences(VkDevice device, uint32_t count, const VkFence* fences) {
    DeviceState* d = lockedDevice(device);
    {
        std::lock_guard lock(globals().mutex);
        for (uint32_t i = 0; i < count; ++i) d->fences.erase(fences[i]);
    }
    return d->next.ResetFences(device, count, fences);
}

VKAPI_ATTR void VKAPI_CALL simDestroyFence(VkDevice device, VkFence fence, const VkAllocationCallbacks* a) {
    DeviceState* d = lockedDevice(device);
    {
        std::lock_guard lock(globals().mutex);
        d->fences.erase(fence);
    }
    d->next.DestroyFence(device, fence, a);
}

// ---- queries ----------------------------------------------------------------------------

VKAPI_ATTR VkResult VKAPI_CALL simGetQueryPoolResults(VkDevice device, VkQueryPool pool, uint32_t first, uint32_t count,
                                                      size_t size, void* data, VkDeviceSize stride,
                                                      VkQueryResultFlags flags) {
    DeviceState* d = lockedDevice(device);
    if (lostBeforeWait(*d, monotonicNow())) return VK_ERROR_DEVICE_LOST;
    const VkResult f = faultBefore(FaultCall::GetQueryPoolResults, d);
    if (f != VK_SUCCESS) return f;
    std::vector<QuerySlot> slots;
    QueryRequest request{.first = first, .count = count, .stride = stride, .flags = flags, .nsPerTick = d->nsPerTick};
    {
        std::lock_guard lock(globals().mutex);
        if (const auto it = d->queries.find(pool); it != d->queries.end()) slots = it->second;
        const uint32_t family = d->queryFamilies.count(pool) ? d->queryFamilies.at(pool) : 0;
        if (family < d->timestampValidBits.size()) request.validBits = d->timestampValidBits[family];
    }
    const bool tracked = std::any_of(slots.begin(), slots.end(), [](const QuerySlot& s) { return s.tracked; });
    if (!tracked) {
        const VkResult r = d->next.GetQueryPoolResults(device, pool, first, count, size, data, stride, flags);
        if (r == VK_ERROR_DEVICE_LOST) markLost(*d, monotonicNow());
        return r;
    }
    if (flags & VK_QUERY_RESULT_WAIT_BIT) sleepUntil(queryWaitTarget(request, slots));
    const std::span out(static_cast<std::byte*>(data), size);
    std::vector<std::byte> below(out.begin(), out.end());
    const VkResult r = d->next.GetQueryPoolResults(device, pool, first, count, size, below.data(), stride, flags);
    if (r == VK_ERROR_DEVICE_LOST) markLost(*d, monotonicNow());
    return composeQueryResults(request, slots, below, r, monotonicNow(), out);
}

void forgetQueries(VkDevice device, VkQueryPool pool, uint32_t first, uint32_t count, bool all) {
    std::lock_guard lock(globals().mutex);
    DeviceState* d = deviceOf(device);
    const auto it = d->queries.find(pool);
    if (it == d->queries.end()) return;
    if (all) {
        d->queries.erase(it);
        d->queryFamilies.erase(pool);
        return;
    }
    for (uint64_t q = first; q < uint64_t{first} + count && q < it->second.size(); ++q) {
        it->second[q] = QuerySlot{};
    }
}

VKAPI_ATTR void VKAPI_CALL simResetQueryPool(VkDevice device, VkQueryPool pool, uint32_t first, uint32_t count) {
    forgetQueries(device, pool, first, count, false);
    lockedDevice(device)->next.ResetQueryPool(device, pool, first, count);
}

VKAPI_ATTR void VKAPI_CALL simResetQueryPoolEXT(VkDevice device, VkQueryPool pool, uint32_t first, uint32_t count) {
    forgetQueries(device, pool, first, count, false);
    lockedDevice(device)->next.ResetQueryPoolEXT(device, pool, first, count);
}

VKAPI_ATTR void VKAPI_CALL simDestroyQueryPool(VkDevice device, VkQueryPool pool, const VkAllocationCallbacks* a) {
    forgetQueries(device, pool, 0, 0, true);
    lockedDevice(device)->next.DestroyQueryPool(device, pool, a);
}

const Intercept kQueueIntercepts[] = {
    {"vkGetDeviceQueue", interceptFn(simGetDeviceQueue), kClockGroup | kFamilies, std::nullopt},
    {"vkGetDeviceQueue2", interceptFn(simGetDeviceQueue2), kClockGroup | kFamilies, std::nullopt},
    {"vkQueueSubmit", interceptFn(simQueueSubmit), kLoss, FaultCall::QueueSubmit},
    {"vkQueueSubmit2", interceptFn(simQueueSubmit2), kLoss, FaultCall::QueueSubmit2},
    {"vkQueueSubmit2KHR", interceptFn(simQueueSubmit2KHR), kLoss, FaultCall::QueueSubmit2},
    {"vkWaitSemaphores", interceptFn(simWaitSemaphores), kLoss, FaultCall::WaitSemaphores},
    {"vkWaitSemaphoresKHR", interceptFn(simWaitSemaphoresKHR), kLoss, FaultCall::WaitSemaphores},
    {"vkQueueWaitIdle", interceptFn(simQueueWaitIdle), kLoss, FaultCall::QueueWaitIdle},
    {"vkDeviceWaitIdle", interceptFn(simDeviceWaitIdle), kLoss, FaultCall::DeviceWaitIdle},
    {"vkGetSemaphoreCounterValue", interceptFn(simGetSemaphoreCounterValue), kLoss, std::nullopt},
    {"vkGetSemaphoreCounterValueKHR", interceptFn(simGetSemaphoreCounterValueKHR), kLoss, std::nullopt},
    {"vkCreateSemaphore", interceptFn(simCreateSemaphore), kClockGroup, std::nullopt},
    {"vkDestroySemaphore", interceptFn(simDestroySemaphore), kClockGroup, std::nullopt},
    {"vkWaitForFences", interceptFn(simWaitForFences), kLoss, std::nullopt},
    {"vkGetFenceStatus", interceptFn(simGetFenceStatus), kLoss, std::nullopt},
    {"vkResetFences", interceptFn(simResetFences), kClockGroup, std::nullopt},
    {"vkDestroyFence", interceptFn(simDestroyFence), kClockGroup, std::nullopt},
    {"vkGetQueryPoolResults", interceptFn(simGetQueryPoolResults), kLoss, FaultCall::GetQueryPoolResults},
    {"vkResetQueryPool", interceptFn(simResetQueryPool), kClockGroup, std::nullopt},
    {"vkResetQueryPoolEXT", interceptFn(simResetQueryPoolEXT), kClockGroup, std::nullopt},
    {"vkDestroyQueryPool", interceptFn(simDestroyQueryPool), kClockGroup, std::nullopt},
};

}  // namespace

std::span<const Intercept> queueIntercepts() { return kQueueIntercepts; }

}  // namespace repro::simdriver::layer
