// The built-in chain (blade #356, `repro -n N`) written as a scenario file: one plan, two input
// forms (scenario/plan.hpp). The file says what the built-in chain's literal recorders record
// (docs/blade-stream.md): small[0] and the weight made from the chain's data in blade's Shared
// class, small[N] there too, every other small[i] and every big[i] device-local; step k's conv-T
// (small[k] and the weight into big[k]) and slice (big[k] cropped at (1, 1) into small[k+1]);
// blade's pass barrier C between every two dispatches in single alone (multipass puts blade's G
// before each dispatch itself); small[N] checked. `repro --write-scenario FILE` writes it, and
// e2e.BuiltInAsAFile.* shows that the step walker records the same stream from it as the
// literal recorders do from the chain.
#pragma once

#include <cstdint>
#include <string>

#include "core/shape.hpp"

namespace repro::scenario {

// The file's text for the chain of `n` steps (1 <= n <= kMaxBuiltInFileSteps) at `shape`:
// `shape = "PRESET"` when `shape` is that preset's, else a [shape] table of its ten fields.
// Throws UsageError past the step limit.
std::string builtInChainText(const Shape& shape, const std::string& preset, uint32_t n);

// The longest chain written as a file: 2N dispatches and 2N - 1 barriers stay within the
// parser's 65536 steps.
inline constexpr uint32_t kMaxBuiltInFileSteps = 16384;

}  // namespace repro::scenario
