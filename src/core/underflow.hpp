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
// an empirical bound: on the presets the maximum shrinks by 2.5x to 4x per step
// (tests/unit/underflow_test.cpp measures tiny and small, the H200 run above the original's
// shapes), so 20x per step leaves a margin of 5; with max |small[0]| = 2 the maximum stays
// above 2 * 20^-N, far inside float32's normal range up to N = 28. Cancellation could in
// principle shrink a custom shape faster: the bound is a measurement, not a proof, and the
// verdict says which basis it used.
// "Possible" means the expected maximum is below 2^-116 (within 10 binades of the normal
// range, where flushed denormals can make a correct result zero).
UnderflowEstimate underflowEstimate(const Shape& shape, uint32_t steps);

// The chain length from which the bound above allows underflow: 29.
inline constexpr uint32_t kUnderflowBoundSteps = 29;
inline constexpr double kExactBudget = 2e9;  // multiply-adds

}  // namespace repro
