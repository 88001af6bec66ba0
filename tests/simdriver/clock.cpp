// The simulated clock after submission (clock.hpp).
#include "clock.hpp"

#include <algorithm>
#include <cstring>

namespace repro::simdriver {

JobTiming QueueClock::schedule(Nanoseconds submit, Nanoseconds notBefore, Nanoseconds duration) {
    JobTiming t;
    t.start = std::max({submit, notBefore, freeAt_});
    t.end = duration > kNever - t.start ? kNever : t.start + duration;
    t.sequence = ++jobs_;
    freeAt_ = t.end;
    return t;
}

WaitPlan planWait(Nanoseconds now, Nanoseconds target, Nanoseconds lostAt, Nanoseconds deadline) {
    if (lostAt <= now) return {.wakeAt = now, .end = WaitEnd::DeviceLost};
    if (target <= now) return {.wakeAt = now, .end = WaitEnd::Completed};
    const bool lostFirst = lostAt <= target;
    const Nanoseconds event = lostFirst ? lostAt : target;
    if (event > deadline) return {.wakeAt = deadline, .end = WaitEnd::TimedOut};
    return {.wakeAt = event, .end = lostFirst ? WaitEnd::DeviceLost : WaitEnd::Completed};
}

Nanoseconds deadlineAfter(Nanoseconds now, uint64_t timeoutNs) {
    if (timeoutNs >= static_cast<uint64_t>(kNever - now)) return kNever;
    return now + static_cast<Nanoseconds>(timeoutNs);
}

void SemaphoreTimeline::signal(uint64_t value, Nanoseconds completion) {
    signals_.push_back({.value = value, .completion = completion, .previous = last_});
    last_ = std::max(last_, value);
}

Nanoseconds SemaphoreTimeline::completionOf(uint64_t value) const {
    for (const Signal& s : signals_) {
        if (s.value >= value) return s.completion;
    }
    return 0;
}

uint64_t SemaphoreTimeline::observedValue(uint64_t realValue, Nanoseconds now) const {
    for (const Signal& s : signals_) {
        if (s.value <= realValue && s.completion > now) return s.previous;
    }
    return realValue;
}

void SemaphoreTimeline::prune(Nanoseconds now) {
    // Signals are in submission order, which is completion order on one queue; keep the
    // last completed one so that a later signal's `previous` stays meaningful.
    size_t done = 0;
    while (done < signals_.size() && signals_[done].completion <= now) ++done;
    if (done > 1) signals_.erase(signals_.begin(), signals_.begin() + static_cast<std::ptrdiff_t>(done - 1));
}

uint64_t timestampTicks(Nanoseconds at, double nsPerTick, uint32_t validBits) {
    const long double ticks = static_cast<long double>(at) / static_cast<long double>(nsPerTick > 0 ? nsPerTick : 1.0);
    const uint64_t value = ticks <= 0 ? 0 : static_cast<uint64_t>(ticks);
    if (validBits >= 64) return value;
    return value & ((uint64_t{1} << validBits) - 1);
}

namespace {

const QuerySlot* slotOf(std::span<const QuerySlot> slots, uint64_t query) {
    return query < slots.size() ? &slots[query] : nullptr;
}

void writeResult(std::byte* at, size_t width, uint64_t value) {
    if (width == sizeof(uint64_t)) {
        std::memcpy(at, &value, sizeof value);
    } else {
        const uint32_t low = static_cast<uint32_t>(value);  // 32-bit results keep the low bits
        std::memcpy(at, &low, sizeof low);
    }
}

}  // namespace

Nanoseconds queryWaitTarget(const QueryRequest& request, std::span<const QuerySlot> slots) {
    Nanoseconds target = 0;
    for (uint64_t q = request.first; q < uint64_t{request.first} + request.count; ++q) {
        const QuerySlot* s = slotOf(slots, q);
        if (s && s->tracked && !s->never) target = std::max(target, s->at);
    }
    return target;
}

VkResult composeQueryResults(const QueryRequest& request, std::span<const QuerySlot> slots,
                             std::span<const std::byte> below, VkResult belowResult, Nanoseconds now,
                             std::span<std::byte> out) {
    if (belowResult < 0) return belowResult;
    const size_t width = (request.flags & VK_QUERY_RESULT_64_BIT) ? 8 : 4;
    const bool availability = (request.flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT) != 0;
    const size_t perQuery = width * (availability ? 2 : 1);
    bool unavailable = false;
    for (uint32_t i = 0; i < request.count; ++i) {
        const uint64_t base = uint64_t{i} * request.stride;
        if (base + perQuery > out.size() || base + perQuery > below.size()) {
            break;  // the caller's buffer is too small
        }
        const QuerySlot* s = slotOf(slots, uint64_t{request.first} + i);
        if (!s || !s->tracked) {
            std::memcpy(out.data() + base, below.data() + base, perQuery);
            continue;
        }
        const bool written = !s->never && s->at <= now;
        if (written) {
            writeResult(out.data() + base, width, timestampTicks(s->at, request.nsPerTick, request.validBits));
        } else {
            unavailable = true;
        }
        if (availability) writeResult(out.data() + base + width, width, written ? 1 : 0);
    }
    return unavailable ? VK_NOT_READY : belowResult;
}

}  // namespace repro::simdriver
