// Fault call counting (faults.hpp).
#include "faults.hpp"

namespace repro::simdriver {

std::optional<FaultKind> FaultCounter::onCall(FaultCall call, bool counts) {
    if (!counts) return std::nullopt;
    const uint64_t n = ++counts_[static_cast<size_t>(call)];
    for (const std::optional<Fault>& f : {processFault_, lost_}) {
        if (f && f->call == call && f->k == n) return f->kind;
    }
    return std::nullopt;
}

}  // namespace repro::simdriver
