// --print-stream (see engine/print_stream.hpp).
#include "engine/print_stream.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "core/interrupt.hpp"
#include "report/verdict.hpp"
#include "core/output.hpp"
#include "engine/stream_capture.hpp"
#include "vk/modes.hpp"
#include "vk/trace.hpp"

namespace repro {
namespace {

std::string modeTitle(const Options& o, Mode mode) {
    const RecordingOptions recording{
        .barrier = o.barrier, .submit = o.submit, .dispatchRepeat = o.dispatchRepeat, .dropDispatch = o.dropDispatch};
    const bool blade = mode == Mode::Split || isBladeStream(recording);
    return fmt::format(
        "mode {}, N={}: {}", name(mode), o.chainLength,
        blade ? "blade's stream (src/vk/blade_modes.cpp)" : "the experiment recorder's plan (src/vk/stream_plan.cpp)");
}

}  // namespace

int printStreams(Session& s, RunReport& report) {
    const Options& o = s.options;
    say("--- command stream (--print-stream: recorded, not submitted) ---");
    say("  each mode starts with repro's clearing submit (it fills every buffer the chain writes, and "
        "the host waits for it), then the mode's own stream; # G and # C mark blade's two barriers");
    Rig& rig = s.rig;
    for (const Mode mode : o.modes) {
        throwIfInterrupted("--print-stream");  // SIGTERM: 143, as for a run
        capturedStream().clear();
        const vk::ModeSettings settings{.steps = o.chainLength,
                                        .recording = {.barrier = o.barrier,
                                                      .submit = o.submit,
                                                      .dispatchRepeat = o.dispatchRepeat,
                                                      .dropDispatch = o.dropDispatch},
                                        .timeout = rig.waitTimeout(o),
                                        .hostReadBarrier = rig.profile.hostReadBarrier,
                                        .fillPattern = o.poison ? kPoisonPattern : 0u};
        vk::runMode(rig.resources, rig.encoder, rig.instrumentation, settings, mode);
        vk::trace::breakWaitRun();
        const std::string title = modeTitle(o, mode);
        say("## {}", title);
        for (const std::string& line : capturedStream()) say("{}", line);
        report.streams.push_back({.title = title, .calls = capturedStream()});
    }
    throwIfInterrupted("--print-stream");
    report.verdict = Verdict{.exitStatus = kExitNotReproduced,
                             .lines = {"--- command stream printed; nothing was run (--print-stream)"}};
    say("{}", report.verdict.lines.front());
    return kExitNotReproduced;
}

}  // namespace repro
