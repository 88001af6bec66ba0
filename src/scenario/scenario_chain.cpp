// Chain values in a scenario and their CPU reference (scenario/scenario_chain.hpp).
#include "scenario/scenario_chain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "scenario/scenario_cpu.hpp"

namespace repro::scenario {

std::string describe(ChainValue v) {
    switch (v.kind) {
        case ChainValue::Kind::Small:
            return fmt::format("small[{}]", v.step);
        case ChainValue::Kind::Big:
            return fmt::format("big[{}]", v.step);
        case ChainValue::Kind::Weight:
            break;
    }
    return "the weight";
}

ChainValues initialChainValues(const Scenario& s) {
    ChainValues out;
    if (!s.shape) return out;
    const ChainSizes sizes = computeSizes(*s.shape);
    for (const BufferSpec& b : s.buffers) {
        if (b.init == InitKind::ChainInput && b.bytes == sizes.smallBytes)
            out[b.name] = {.kind = ChainValue::Kind::Small, .step = 0};
        if (b.init == InitKind::ChainWeight && b.bytes == sizes.weightBytes)
            out[b.name] = {.kind = ChainValue::Kind::Weight, .step = 0};
    }
    return out;
}

namespace {

bool holds(const ChainValues& values, const std::string& buffer, ChainValue::Kind kind) {
    const auto it = values.find(buffer);
    return it != values.end() && it->second.kind == kind;
}

// What `step` makes a buffer hold, if anything (chainValuesAfter's rules).
std::optional<std::pair<std::string, ChainValue>> made(const Step& step, const Scenario& s, const ChainSizes& sizes,
                                                       const ChainValues& values) {
    if (const auto* d = std::get_if<Dispatch>(&step.body); d && d->user.empty() && !d->indirect) {
        const auto& b = d->bindings;
        if (d->kernel == Kernel::ConvT && b.size() == 3 && holds(values, b[0], ChainValue::Kind::Small) &&
            holds(values, b[1], ChainValue::Kind::Weight) && s.buffer(b[2])->bytes == sizes.bigBytes)
            return std::pair{b[2], ChainValue{.kind = ChainValue::Kind::Big, .step = values.at(b[0]).step}};
        if (d->kernel == Kernel::Slice && b.size() == 2 && holds(values, b[0], ChainValue::Kind::Big) &&
            s.buffer(b[1])->bytes == sizes.smallBytes)
            return std::pair{b[1], ChainValue{.kind = ChainValue::Kind::Small, .step = values.at(b[0]).step + 1}};
    } else if (const auto* c = std::get_if<Copy>(&step.body)) {
        const auto src = values.find(c->src);
        const uint64_t bytes = s.buffer(c->src)->bytes;
        if (src != values.end() && c->srcOffset == 0 && c->dstOffset == 0 && c->size == bytes &&
            s.buffer(c->dst)->bytes == bytes)
            return std::pair{c->dst, src->second};
    }
    return std::nullopt;
}

}  // namespace

void chainValuesAfter(const Step& step, const Scenario& s, ChainValues& values) {
    if (!s.shape || values.empty()) return;
    const auto result = made(step, s, computeSizes(*s.shape), values);
    std::vector<std::string> reads, writes;
    stepAccesses(step, s, reads, writes);
    for (const auto& w : writes) values.erase(w);
    if (result) values[result->first] = result->second;
}

ChainValues finalChainValues(const Scenario& s) {
    ChainValues values = initialChainValues(s);
    for (const Step& step : s.steps) chainValuesAfter(step, s, values);
    return values;
}

uint32_t referenceDepth(ChainValue v) {
    if (v.kind == ChainValue::Kind::Weight)
        throw std::invalid_argument("chain references: the weight is no kernel's output");
    return v.kind == ChainValue::Kind::Big ? v.step + 1 : v.step;
}

std::map<std::string, ChainExpected> chainReferences(const Shape& shape, const ChainValues& values) {
    std::set<uint32_t> depths;
    for (const auto& [name, v] : values) depths.insert(referenceDepth(v));
    std::map<uint32_t, std::pair<std::vector<float>, Tolerance>> at;
    if (!depths.empty()) {
        CpuStepper stepper(shape);
        for (const uint32_t d : depths) {
            while (stepper.steps() < d) stepper.advance();
            at.emplace(d, std::pair{stepper.small(), stepper.tolerance()});
        }
    }
    std::map<std::string, ChainExpected> out;
    for (const auto& [name, v] : values) {
        const auto& [small, tolerance] = at.at(referenceDepth(v));
        out.emplace(name, ChainExpected{.value = v, .small = small, .tolerance = tolerance});
    }
    return out;
}

uint64_t chainReferenceCost(const Shape& shape, const ChainValues& values) {
    uint32_t deepest = 0;
    for (const auto& [name, v] : values) deepest = std::max(deepest, referenceDepth(v));
    return uint64_t{deepest} * 4 * convTermCount(shape);
}

std::vector<float> comparedFloats(const Shape& shape, ChainValue v, std::span<const uint8_t> bytes) {
    const ChainSizes sizes = computeSizes(shape);
    const uint64_t elems = v.kind == ChainValue::Kind::Big ? sizes.bigElems : sizes.smallElems;
    referenceDepth(v);  // the weight is refused
    if (bytes.size() < elems * 4)
        throw std::invalid_argument(
            fmt::format("comparedFloats: {} bytes hold no {} ({} bytes)", bytes.size(), describe(v), elems * 4));
    std::vector<float> floats(elems);
    std::memcpy(floats.data(), bytes.data(), elems * 4);
    if (v.kind == ChainValue::Kind::Small) return floats;
    std::vector<float> crop(sizes.smallElems);
    cpuSlice(shape, sizes, floats, crop);
    return crop;
}

uint64_t bufferFloatIndex(const Shape& shape, ChainValue v, uint64_t i) {
    if (v.kind != ChainValue::Kind::Big) return i;
    const ChainSizes sizes = computeSizes(shape);
    const uint64_t w = i % shape.width, h = i / shape.width % shape.height, plane = i / shape.width / shape.height;
    return (plane * sizes.bigHeight + h + 1) * sizes.bigWidth + w + 1;
}

}  // namespace repro::scenario
