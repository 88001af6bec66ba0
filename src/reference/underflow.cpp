// The underflow estimate (see underflow.hpp).
#include "reference/underflow.hpp"

#include <fmt/format.h>

#include <cmath>

#include "reference/cpu_reference.hpp"
#include "core/rust_format.hpp"

namespace repro {

UnderflowEstimate underflowEstimate(const Shape& shape, uint32_t steps) {
    const double limit = std::ldexp(1.0, -116);
    UnderflowEstimate e;
    if (double(convTermCount(shape)) * steps <= kExactBudget) {
        const CpuChain chain = cpuChain(shape, steps, 0, /*keepIntermediates=*/false);
        double maxAbs = 0;
        for (const float v : chain.output()) maxAbs = std::fmax(maxAbs, std::fabs(double(v)));
        e.exact = true;
        e.expectedMaxAbs = maxAbs;
        e.possible = maxAbs < limit;
        e.basis = fmt::format("the float64 CPU chain's max |small[{}]| is {}", steps, rustExp(maxAbs));
        return e;
    }
    e.expectedMaxAbs = 2.0 * std::pow(20.0, -double(steps));
    e.possible = e.expectedMaxAbs < limit;
    e.basis = fmt::format("measured shrink of at most 8x per step, taken as 20x: max |small[{}]| >= 2 * 20^-{} = {}",
                          steps, steps, rustExp(e.expectedMaxAbs));
    return e;
}

}  // namespace repro
