// Whether a correct device may legitimately return all zeros at the end of a chain. With
// the default data the signal shrinks every step (about 3.5x per step at the original's
// shapes, measured on the H200: max |small[7]| 5.07e-4, max |small[20]| 3.63e-14), so a
// long enough chain underflows float32 and a correct device returns zeros. Without a
// reference (--reference none) this decides whether all-zero output is the bug or that.
// Vulkan-free. Its float64 chain throws Interrupted on SIGINT/SIGTERM (cpu_reference.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "core/shape.hpp"

namespace repro {

struct UnderflowEstimate {
    bool possible = true;       // a correct device may return zeros or denormals only
    double expectedMaxAbs = 0;  // the CPU chain's value when `exact`, else the bound
    bool exact = false;         // from the float64 CPU chain, not the bound
    std::string basis;          // one line: how it was decided
};

// The float64 CPU chain's own maximum at `steps` when that is cheap (at most
// kExactBudget multiply-adds: the tiny and small presets; full-size chains are not), else
// an empirical bound. Measured over the first 40 steps, the maximum shrinks by 1.4x to
// 3.2x per step on tiny and by 3.3x to 7.6x on small (tests/unit/underflow_test.cpp holds
// both below 8x), and in the H200 run above at the original's shapes by about 3.3x per
// step up to small[7] and 6x from there to small[20]; taken as 20x, that leaves a margin
// of 2.5, and with max |small[0]| at most 2 the maximum stays above 2 * 20^-N. Cancellation
// could in principle shrink a custom shape faster: the bound is a measurement, not a proof,
// and the verdict says which basis it used.
// "Possible" means the expected maximum (on either basis) is below 2^-116, within 10
// binades of float32's normal range, where flushed denormals can make a correct result zero.
UnderflowEstimate underflowEstimate(const Shape& shape, uint32_t steps);

// The chain length from which the bound above allows underflow: 2 * 20^-28 is 2^-120.0,
// 2 * 20^-27 is 2^-115.7.
inline constexpr uint32_t kUnderflowBoundSteps = 28;
inline constexpr double kExactBudget = 2e9;  // multiply-adds

}  // namespace repro
