// The experiment recorder's plan: multipass and single as a Vulkan-free list of steps
// (begin, a pipeline barrier of a kind, a dispatch, finish, a submit with or without a host
// wait) for the flags that change blade's stream: --barrier, --submit-every, --split-mib,
// --split-ms, --no-host-wait, --dispatch-repeat and --drop-dispatch. Without them repro
// records blade's stream through the literal recorders of src/vk/blade_modes.cpp instead;
// the plan of the default options is that same stream (tests/unit/stream_plan_test.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "core/variant.hpp"

namespace repro {

// What changes how multipass and single are recorded (split is always blade's stream).
struct RecordingOptions {
    BarrierKind barrier = BarrierKind::Blade;  // --barrier
    SubmitStructure submit;                    // --submit-every, --split-mib, --split-ms, --[no-]host-wait
    uint32_t dispatchRepeat = 1;               // --dispatch-repeat: each conv-T recorded R times
    std::optional<uint32_t> dropDispatch;      // --drop-dispatch K: the positive control
};

// True when the options record exactly blade's stream (the literal recorders).
bool isBladeStream(const RecordingOptions& options);

// The pipeline barriers a plan can hold (src/vk/barriers.hpp records each).
enum class PlanBarrier {
    BladeGlobal,    // blade's G: ALL_COMMANDS, MEMORY_WRITE|TRANSFER_WRITE -> MEMORY_READ|...
    BladeCompute,   // blade's C: COMPUTE_SHADER, SHADER_WRITE -> SHADER_READ|SHADER_WRITE
    Sync2Storage,   // --barrier sync2
    Buffer,         // --barrier buffer: on the buffer the dispatch before wrote
    Sync2Full,      // --barrier full
    ExecutionOnly,  // --barrier execution-only (a control: invalid on purpose)
};

struct PlanStep {
    enum class Kind { Begin, Barrier, Dispatch, Finish, Submit };
    Kind kind = Kind::Begin;
    PlanBarrier barrier = PlanBarrier::BladeGlobal;  // Barrier
    // Dispatch: its chain number, 1-based (step s's conv-T is 2s-1, its slice 2s).
    // Barrier of kind Buffer: the number of the dispatch whose output it covers.
    uint32_t dispatch = 0;
    bool hostReads = false;  // Finish: the host reads this command buffer's results
    bool hostWait = true;    // Submit: the host waits for it before going on
    // Submit: conv-T dispatches recorded since the last host-waited submit (repeats
    // counted), which sizes the automatic wait timeout.
    uint32_t convTsSinceWait = 0;
    std::string what;  // Submit: "all 7 steps", "dispatches 1..4"
    bool operator==(const PlanStep&) const = default;
};

// The plan for `mode` (Multipass or Single) at chain length `steps`. Every command buffer
// starts with begin and ends with finish (blade's closing G); with blade's barrier,
// multipass puts G before every dispatch (each its own compute pass) and single puts G once
// and C between dispatches; any other --barrier starts every command buffer with G and
// puts that barrier between every two dispatches (so multipass and single plan the same
// stream; --barrier none puts nothing there). A repeated conv-T has the mode's barrier
// between its repeats. Command buffers end as commandBufferEnds decides, with
// `predictedSeconds[d]` (GPU seconds of chain dispatch d, 0-based, one recording; a
// repeated conv-T counts R times) for --split-ms. Throws std::invalid_argument for mode
// Split, and for --split-ms without a prediction for every dispatch.
std::vector<PlanStep> planExperiment(Mode mode, uint32_t steps, const RecordingOptions& options,
                                     const ChainSizes& sizes, std::span<const double> predictedSeconds = {});

// One plan step as text ("begin", "barrier G", "dispatch 3 (step 2 conv-T)", "finish",
// "finish + host-read barrier", "submit (all 7 steps), host wait"), for tests and docs.
std::string describe(const PlanStep& step);

}  // namespace repro
