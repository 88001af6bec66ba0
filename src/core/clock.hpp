// Host time for phase timings and timeouts: the monotonic clock, in seconds.
#pragma once

#include <chrono>

namespace repro {

using Clock = std::chrono::steady_clock;

// Seconds from `start` to now (monotonic).
inline double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace repro
