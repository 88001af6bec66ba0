// --print-stream (see engine/print_stream.hpp).
#include "engine/print_stream.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "core/interrupt.hpp"
#include "core/output.hpp"
#include "engine/stages.hpp"
#include "engine/workload.hpp"
#include "report/verdict.hpp"
#include "vk/trace.hpp"

namespace repro {

int printStreams(Session& s, RunReport& report) {
    const Options& o = s.options;
    say("--- command stream (--print-stream: recorded, not submitted) ---");
    say("  {}", s.workload.streamNote());
    const run::Length length{.session = s, .point = s.plan.points(o).front(), .n = s.plan.points(o).front().n};
    if (!s.plan.builtIn()) s.workload.beginPoint(length);  // the file's pipelines and buffers
    for (const Mode mode : o.modes) {
        throwIfInterrupted("--print-stream");  // SIGTERM: 143, as for a run
        vk::trace::captured().clear();
        s.workload.recordForStream(length, mode);
        vk::trace::breakWaitRun();
        const std::string title = s.workload.streamTitle(length, mode);
        say("## {}", title);
        for (const std::string& line : vk::trace::captured()) say("{}", line);
        report.streams.push_back({.title = title, .calls = vk::trace::captured()});
    }
    throwIfInterrupted("--print-stream");
    report.verdict = Verdict{.exitStatus = kExitNotReproduced,
                             .lines = {"--- command stream printed; nothing was run (--print-stream)"}};
    say("{}", report.verdict.lines.front());
    return kExitNotReproduced;
}

}  // namespace repro
