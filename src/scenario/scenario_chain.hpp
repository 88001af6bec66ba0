// The CPU model of conv-t and slice in a scenario (docs/scenarios.md "conv-t and slice in the
// CPU model"): which buffers hold a value of the built-in chain, and their comparison with
// the chain computed on the host in float64 within its derived float32 tolerance
// (reference/cpu_reference.hpp). Vulkan-free.
// What a float kernel writes outside the chain's values is compared with split only (unmodelledBuffers).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "reference/cpu_reference.hpp"
#include "scenario/scenario.hpp"

namespace repro::scenario {

// A value of the built-in chain for the file's shape (reference/cpu_reference.hpp cpuChain):
// small[k] (smallElems floats: the input after k conv-T + slice steps), big[k] (bigElems
// floats: conv-T k + 1's output, whose crop is small[k + 1]) or the weight.
struct ChainValue {
    enum class Kind : uint8_t { Small, Big, Weight };
    Kind kind = Kind::Small;
    uint32_t step = 0;  // k (0 for the weight)
    bool operator==(const ChainValue&) const = default;
};
// "small[3]", "big[2]", "the weight"
std::string describe(ChainValue v);

// Buffer name -> the chain value it holds whole.
using ChainValues = std::map<std::string, ChainValue>;

// The chain values the buffers hold before the first step, by the rules of docs/scenarios.md "conv-t and slice in
// the CPU model" (chain-input and chain-weight of exactly the tensor's size). Empty without a shape.
ChainValues initialChainValues(const Scenario& s);

// `values` after one more step, by the same rules: conv-t and slice make their output hold the next value, a
// whole-buffer copy carries it, every other write (stepAccesses) takes it away; barriers and reads change nothing.
void chainValuesAfter(const Step& step, const Scenario& s, ChainValues& values);

// chainValuesAfter over every step: what each buffer holds at the end.
ChainValues finalChainValues(const Scenario& s);

// The depth of the CPU chain (CpuStepper steps) a buffer holding `v` is compared with: k for
// small[k], k + 1 for big[k] (its crop is small[k + 1]). Throws std::invalid_argument for the
// weight, which is no kernel's output.
uint32_t referenceDepth(ChainValue v);

// The CPU model's reference for one chain value: the float64 chain's small[k] (for big[k]:
// small[k + 1], what its crop must be) rounded to float, and its tolerance (the
// cpu_reference.hpp bound for a float32 GPU at that depth).
struct ChainExpected {
    ChainValue value;
    std::vector<float> small;  // smallElems floats
    Tolerance tolerance;
};

// The references of `values` (Small or Big; the weight is no kernel's output and is
// rejected), made by one CpuStepper advanced to the deepest one: buffer name -> reference.
// Cost: one CpuStepper step (four conv-T passes) per chain step, on the worker pool; memory
// five float64 copies of small and three float copies per distinct depth. Throws
// std::invalid_argument for a weight, UsageError from computeSizes for an invalid shape,
// Interrupted as cpuConvT does.
std::map<std::string, ChainExpected> chainReferences(const Shape& shape, const ChainValues& values);

// The multiply-adds chainReferences spends on `values`: the deepest one's depth (k for
// small[k], k + 1 for big[k]) times four conv-T passes (the chain and its magnitude, term and
// variance chains: CpuStepper::advance) of convTermCount(shape) each. 0 when empty.
uint64_t chainReferenceCost(const Shape& shape, const ChainValues& values);

// The most multiply-adds `--reference auto` spends on the CPU chain of a scenario (2^32; past it the chain
// values are compared with split only, and the header says so). What that costs: docs/scenarios.md "conv-t and
// slice in the CPU model" (`--reference auto`) and bench/RESULTS.md.
inline constexpr uint64_t kAutoChainMultiplyAdds = uint64_t{1} << 32;

// The floats of a buffer holding `v` that are compared with ChainExpected::small: for small[k]
// its first smallElems floats; for big[k] the crop at (1, 1) of its first bigElems floats
// (cpuSlice: the border slice drops is not compared). Throws std::invalid_argument when
// `bytes` is shorter than the tensor, or for the weight.
std::vector<float> comparedFloats(const Shape& shape, ChainValue v, std::span<const uint8_t> bytes);

// Where compared float `i` (an index into comparedFloats' result) lies in the buffer, as a
// float index: `i` for small[k]; for big[k], the element (n, c, h + 1, w + 1) of big that
// crop element (n, c, h, w) is.
uint64_t bufferFloatIndex(const Shape& shape, ChainValue v, uint64_t i);

}  // namespace repro::scenario
