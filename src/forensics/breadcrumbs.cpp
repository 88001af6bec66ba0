// Breadcrumb interpretation.
#include "forensics/breadcrumbs.hpp"

#include <fmt/format.h>

namespace repro {

BreadcrumbReading readBreadcrumbs(std::span<const uint32_t> slots, uint32_t dispatches, uint32_t runId) {
    BreadcrumbReading r;
    for (uint32_t k = 1; k <= dispatches; ++k) {
        const bool done = k < slots.size() && slots[k] == runId;
        if (done) {
            ++r.finished;
            r.lastFinished = k;
            if (r.firstUnfinished) r.inOrder = false;
        } else if (!r.firstUnfinished) {
            r.firstUnfinished = k;
        }
    }
    return r;
}

std::string describeDispatch(uint32_t k) {
    return fmt::format("dispatch {} (step {} {})", k, (k + 1) / 2, k % 2 ? "conv-T" : "slice");
}

std::string describeBreadcrumbs(const BreadcrumbReading& r, uint32_t dispatches) {
    if (!r.lastFinished) {
        return fmt::format("breadcrumbs: the GPU finished none of the {} dispatches", dispatches);
    }
    std::string line = fmt::format(
        "breadcrumbs: the GPU finished {} of {} dispatches; the last "
        "was {}",
        r.finished, dispatches, describeDispatch(*r.lastFinished));
    if (r.firstUnfinished) {
        line += fmt::format("; the first unfinished is {}", describeDispatch(*r.firstUnfinished));
    }
    if (!r.inOrder) line += " (out of order: some later dispatches finished before earlier ones)";
    return line;
}

}  // namespace repro
