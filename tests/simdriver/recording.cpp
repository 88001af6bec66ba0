// Record-time decisions of the simulated driver (recording.hpp).
#include "recording.hpp"

#include <cmath>

namespace repro::simdriver {

namespace {
constexpr Nanoseconds kMaxCost = Nanoseconds{1} << 62;
}

uint64_t SplitMix64::next() {
    state_ += 0x9e3779b97f4a7c15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double SplitMix64::nextUnit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

RecordRules RecordRules::from(const Config& config) {
    RecordRules r;
    if (config.seedBug) r.skipAfter = config.seedBug->dispatches;
    r.flaky = config.flaky;
    r.cost = config.cost();
    if (config.hang) r.hangAfter = config.hang->dispatches;
    if (config.watchdog) r.timeout = static_cast<Nanoseconds>(std::llround(config.watchdog->timeoutMs * 1e6));
    return r;
}

Nanoseconds dispatchCost(const ClockCost& cost, uint64_t workgroups) {
    const double ns = cost.msPerDispatch * 1e6 + cost.usPerWorkgroup * 1e3 * static_cast<double>(workgroups);
    if (!(ns < static_cast<double>(kMaxCost))) return kMaxCost;
    return static_cast<Nanoseconds>(std::llround(ns));
}

void CommandBufferModel::begin(const RecordRules& rules, bool flakyDrawn) {
    rules_ = rules;
    drawn_ = rules.flaky && flakyDrawn;
    killed_ = false;
    dispatches_ = 0;
    skipped_ = 0;
    elapsed_ = 0;
}

DispatchDecision CommandBufferModel::dispatch(uint64_t workgroups, bool hangs) {
    DispatchDecision d{.number = ++dispatches_, .start = elapsed_};
    std::optional<uint32_t> limit = rules_.skipAfter;
    if (drawn_) limit = rules_.flaky->dispatches;
    if (limit && d.number > *limit) {
        d.forward = false;
        d.reason = SkipReason::SeedBug;
    } else if (killed_) {
        d.forward = false;
        d.reason = SkipReason::Watchdog;
    } else if (rules_.cost) {
        hangs = hangs || (rules_.hangAfter && d.number > *rules_.hangAfter);
        d.cost = hangs ? kMaxCost : dispatchCost(*rules_.cost, workgroups);
        if (rules_.timeout && d.cost > *rules_.timeout - elapsed_) {
            // The dispatch that crosses the line is the first one the watchdog kills.
            killed_ = true;
            d.forward = false;
            d.reason = SkipReason::Watchdog;
        }
    }
    if (!d.forward) {
        ++skipped_;
        d.cost = 0;
    }
    elapsed_ = d.cost > kMaxCost - elapsed_ ? kMaxCost : elapsed_ + d.cost;  // saturates: no overflow
    return d;
}

TimestampDecision CommandBufferModel::timestamp() const {
    if (killed_) return {.available = false, .offset = *rules_.timeout};
    return {.available = true, .offset = elapsed_};
}

}  // namespace repro::simdriver
