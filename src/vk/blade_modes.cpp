// The three modes exactly as blade-graphics 72c30c1 records them for the original repro
// (blade `vulkan/command.rs`: start() 517-572, barrier() 369-389, ComputeCommandEncoder
// barrier() 859-876, finish() 350-367; `vulkan/mod.rs` submit and wait_for 628-800; the
// original's main.rs run_split/run_multipass/run_single). docs/blade-stream.md lists the
// calls; tests/e2e/stream_test.cpp pins them with a trace of every vkCmd*, submit and wait.
#include <fmt/format.h>

#include "vk/modes.hpp"

namespace repro::vk {

ModeRun recordSplit(Recorder& r) {
    const uint32_t n = r.steps();
    for (uint32_t i = 0; i < n; ++i) {
        r.begin();
        r.barrierG();  // the compute pass's start
        r.convT(i);
        r.finish(/*hostReads=*/false);
        if (!r.submitAndWait(fmt::format("step {} conv-T", i + 1), /*convTs=*/1)) return r.stopped();
        r.begin();
        r.barrierG();
        r.slice(i);
        r.finish(/*hostReads=*/i + 1 == n);
        if (!r.submitAndWait(fmt::format("step {} slice", i + 1), /*convTs=*/0)) return r.stopped();
    }
    return r.completed();
}

ModeRun recordMultipass(Recorder& r) {
    const uint32_t n = r.steps();
    r.begin();
    for (uint32_t i = 0; i < n; ++i) {
        r.barrierG();  // conv-T's compute pass starts
        r.convT(i);
        r.barrierG();  // slice's compute pass starts
        r.slice(i);
    }
    r.finish(/*hostReads=*/true);
    if (!r.submitAndWait(fmt::format("all {} steps", n), /*convTs=*/n)) return r.stopped();
    return r.completed();
}

ModeRun recordSingle(Recorder& r) {
    const uint32_t n = r.steps();
    r.begin();
    r.barrierG();  // the one compute pass starts
    for (uint32_t i = 0; i < n; ++i) {
        if (i > 0) r.barrierC();  // pass.barrier()
        r.convT(i);
        r.barrierC();
        r.slice(i);
    }
    r.finish(/*hostReads=*/true);
    if (!r.submitAndWait(fmt::format("all {} steps", n), /*convTs=*/n)) return r.stopped();
    return r.completed();
}

}  // namespace repro::vk
