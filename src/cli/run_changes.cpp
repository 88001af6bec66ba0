// What a run changes about blade's stream (run_changes.hpp).
#include "cli/run_changes.hpp"

#include <fmt/format.h>

#include "core/variant.hpp"

namespace repro {

std::vector<std::string> RunChanges::all() const {
    std::vector<std::string> out = recording;
    out.insert(out.end(), setup.begin(), setup.end());
    return out;
}

RunChanges runChanges(const Options& o) {
    RunChanges c;
    if (o.barrier != BarrierKind::Blade) c.recording.push_back(fmt::format("--barrier {}", name(o.barrier)));
    if (o.submit.every) c.recording.push_back(fmt::format("--submit-every {}", o.submit.every));
    if (o.submit.splitMiB) c.recording.push_back(fmt::format("--split-mib {}", *o.submit.splitMiB));
    if (o.submit.splitMs) c.recording.push_back(fmt::format("--split-ms {}", *o.submit.splitMs));
    if (o.submit.cuts()) c.recording.push_back(o.submit.hostWait ? "--host-wait" : "--no-host-wait");
    if (o.dispatchRepeat > 1) c.recording.push_back(fmt::format("--dispatch-repeat {}", o.dispatchRepeat));
    if (o.dropDispatch) c.recording.push_back(fmt::format("--drop-dispatch {}", *o.dropDispatch));
    if (o.memory != BufferMemory::Blade) c.setup.push_back(fmt::format("--memory {}", name(o.memory)));
    if (o.profile != Profile::Default) c.setup.push_back(fmt::format("--profile {}", name(o.profile)));
    if (o.spirvDir) c.setup.push_back(fmt::format("--spirv {}", *o.spirvDir));
    return c;
}

}  // namespace repro
