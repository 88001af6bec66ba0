// --stress's host side (scenario/stress.hpp).
#include "scenario/stress.hpp"

#include <algorithm>
#include <numeric>
#include <variant>

namespace repro::scenario {

uint32_t shuffledGroup(uint32_t w, uint32_t count, uint32_t multiplier, uint32_t offset) {
    const uint32_t q = offset % count;
    if (count > 65536u) return static_cast<uint32_t>((uint64_t{w} + q) % count);
    uint32_t p = std::max(multiplier % count, 1u);
    while (std::gcd(p, count) != 1u) ++p;
    return (w * p + q) % count;  // w, p < count <= 65536: w * p + q < 2^32
}

std::vector<std::string> primedBuffers(const Scenario& s) {
    std::vector<std::string> out;
    const auto add = [&](const std::string& name) {  // images are not primed: the prime binds buffers
        const BufferSpec* b = s.buffer(name);
        if (b && !b->image && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    };
    for (const Step& step : s.steps) {
        if (const auto* d = std::get_if<Dispatch>(&step.body)) {
            for (const auto& b : d->bindings) add(b);
            if (d->indirect) add(d->indirect->buffer);
        } else if (const auto* c = std::get_if<Copy>(&step.body)) {
            add(c->src);
        }
    }
    return out;
}

std::vector<std::string> stressParts(const Scenario& s) {
    if (s.usesQueues()) return {"shuffled-workgroups"};
    return {"priming", "traffic", "shuffled-workgroups"};
}

}  // namespace repro::scenario
