// Records and runs a scenario (scenario/scenario.hpp) in one of the three modes with the
// recording vocabulary of the built-in chain (vk/encoder.hpp, vk/barriers.hpp), and reads
// its checked buffers back (docs/scenarios.md "Modes").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "scenario/scenario.hpp"
#include "scenario/scenario_cpu.hpp"
#include "vk/memory.hpp"
#include "vk/pipeline.hpp"

namespace repro::vk {

class Device;

// The scenario kernel set's pipelines (shaders/scenario_*.comp, 16 bytes of push constants).
// A dispatch_indirect step is recorded as vkCmdDispatchIndirect on its args buffer (every
// scenario buffer has VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT: vk/memory.hpp kBladeBufferUsage).
struct ScenarioPipelines {
    ComputePipeline increment, copy, noop;
    const ComputePipeline& of(scenario::Kernel k) const;
    ComputePipeline compareSwap, work;
    std::map<uint32_t, ComputePipeline> privateArray;  // by private words (specialization constant 0)
    ComputePipeline indirectWriter;
    ComputePipeline convT, slice;  // blade #356's, as the built-in chain makes them (no push constants)
    // The file's user kernels by name (Scenario::kernels: their modules, entry points and
    // bindings, 16 bytes of push constants like the kernel set's).
    std::map<std::string, ComputePipeline> user;
    // The pipeline of `d`: of(d.kernel), the private-array one of d.privateWords, or the user
    // kernel's (made by createScenarioPipelines).
    const ComputePipeline& forDispatch(const scenario::Dispatch& d) const;
};
// The pipelines of the built-in kernels the steps of `s` dispatch (the others stay empty: a
// pipeline is a shader compile in the driver), one private-array pipeline per distinct
// private_words among them, and one per user kernel of `s`. Throws VulkanError /
// CannotTest as createComputePipeline does.
ScenarioPipelines createScenarioPipelines(const Device& device, const scenario::Scenario& s);

// How a scenario buffer of placement `p` is allocated: its class and the placement rule of
// Allocator::create (vk/memory.hpp). device-local: the DeviceLocal rule; host-visible: the
// HostVisible rule (write-combined system memory first); shared: blade's Shared class under
// blade's rule (chooseMemoryType), the memory type the built-in chain's Shared buffers get
// (vk/buffers.cpp), the BAR window on a discrete GPU that has one. Pure.
struct ScenarioMemory {
    MemoryClass memoryClass;
    BufferMemory placement;
};
ScenarioMemory scenarioMemory(scenario::Placement p);

// A scenario's buffers on one device, made once for every run of that scenario (each mode,
// each --repeat run), as the built-in chain makes its buffers once: every file buffer with its
// placement (exclusive, or with `sharing = "concurrent"` VK_SHARING_MODE_CONCURRENT among the
// queue families of its queues when they are more than one); a host-visible twin for each device-local buffer whose initial words are
// uploaded (any init but zero and undefined) or whose bytes are read back (checked, or every
// one with `stepReadbacks`, --check-steps); conv-t's and slice's parameter blocks when the
// steps dispatch them. Before each mode runScenarioMode gives every buffer its initial
// contents again (restore, then the upload submit), so nothing one mode leaves reaches the
// next: a buffer that starts as zeros (zero, undefined) is filled by the upload submit,
// host-visible or not; a device-local one is copied from its twin; a host-visible one keeps
// its words unless a step or a host write writes it (scenario/scenario_cpu.hpp writtenRanges, in
// any mode) or its init is "host", and then the host writes them again. Throws CannotTest when
// memory runs out (Allocator::create). Making them fresh for every mode was most of a mode's
// host time on the H200 at the blade file's full shape (bench/RESULTS.md, rounds 8 and 9).
class ScenarioBuffers {
  public:
    ScenarioBuffers(const Device& device, const scenario::Scenario& s, bool stepReadbacks);

    const Buffer& at(const std::string& name) const { return buffers_.at(name); }
    // The twin of device-local buffer `name`, or nullptr when it has none.
    const Buffer* twin(const std::string& name) const;
    const std::optional<Buffer>& convParams() const { return convParams_; }
    const std::optional<Buffer>& sliceParams() const { return sliceParams_; }
    // Before a mode: the initial words written again into the host-visible buffers that
    // something writes and into the twins a readback wrote into (through copyToMapped); the
    // first call after construction writes nothing (they hold their initial words already).
    // The upload submit then fills the zero buffers and copies the twins into their buffers
    // (runScenarioMode). HOST_COHERENT: no flush.
    void restore();

  private:
    const scenario::Scenario& s_;
    bool fresh_ = true;
    Allocator allocator_;
    std::map<std::string, Buffer> buffers_;
    std::map<std::string, Buffer> twins_;
    std::optional<Buffer> convParams_, sliceParams_;
    // the initial words of the buffers restore() writes again, by buffer name (for a
    // device-local one, its twin's)
    std::map<std::string, std::vector<uint32_t>> initial_;
};

// How one mode's run of a scenario went.
struct ScenarioModeRun {
    bool completed = false;
    bool hang = false;           // a submit timed out or the device was lost
    bool timedOut = false;       // a submit timed out: the device is abandoned (Device::abandon)
    std::string failure;         // when not completed: "submit 3 (step 3 copy a -> b): VK_ERROR_DEVICE_LOST"
    uint64_t submits = 0;        // the mode's own submits (not the upload and readback ones)
    uint64_t stepReadbacks = 0;  // --check-steps: the readback submits after split's steps
    scenario::Contents checked;  // the checked buffers' final bytes, when completed
    // Host phases of this run, seconds (the scenario report's "timings"; bench/overhead.sh):
    double buffersAndUpload = 0;  // the buffers made and written, the upload submit waited for
    double recording = 0;         // recording and submitting the mode's own command buffers
    double gpuWait = 0;           // the host's waits on the mode's own submits
    double readback = 0;          // the readback submit waited for, the checked bytes copied out
    // With timestamps: the GPU time of the mode's own command buffers, summed (a timestamp
    // pair around each); nullopt without them, where the queue family has no timestamps
    // (timestampValidBits 0), or when a pair was not written.
    std::optional<double> gpuSeconds;
    // Each host read's bytes (the whole buffer), by the host read's index into s.steps
    std::map<size_t, std::vector<uint8_t>> hostReads;
};

// --check-steps (docs/scenarios.md "--check-steps on a scenario"): in split, after each step's
// submit, one more submit [begin, G, a copy of each device-local buffer the step writes to its
// host twin, host-read barrier, end] and the host reads the buffers the step writes
// (scenario/scenario_cpu.hpp writtenRanges; host-visible ones from their mapped memory); `onStep`
// gets the step's index into s.steps and those buffers' whole bytes, in step order. Steps that
// write nothing (barriers, noop, host points) get no readback. Other modes ignore it.
struct StepReadback {
    std::function<void(size_t index, const scenario::Contents& written)> onStep;
};

// Gives `buffers` (made for `s`) their initial contents again (ScenarioBuffers::restore, then
// an upload submit: zero buffers filled, twins copied into their device-local buffers),
// records the steps as `mode` records them, submits and waits (each submit waited
// for at most `timeoutSeconds`), then reads every checked buffer back through one more
// submit. Modes, with G blade's global barrier (vk/barriers.hpp):
//   split:     for each step but barriers: [begin, G, step, G, end] submit, wait
//   multipass: [begin, for each step: (G, step) or the barrier as written, G, end] submit, wait
//   single:    [begin, G, every step with the barriers as written, G, end] submit, wait
// A host point (HostWrite, HostRead) ends the open submit in multipass and single ([..., G,
// and before a read the host-read barrier, end] submit, wait), the host writes or reads the
// mapped memory, and a new submit continues ([begin, G in single, ...]); in split a host write
// comes between two submits and a host read after a submit of its own [begin, host-read
// barrier, end]. The host-read barrier is ALL_COMMANDS/MEMORY_WRITE -> HOST/HOST_READ
// (vk/barriers.hpp recordHostReadBarrier).
// Where the scenario's queues landed in more than one queue family, each exclusive buffer's
// queue family ownership transfers (scenario/scenario_sync.hpp ownershipTransfers) are recorded in
// every mode: a release right after the step that last used it on its queue (or at the end of
// the upload submit), an acquire right before the step that uses it next on another family
// (or at the start of the readback submit, which takes every buffer back to the main queue).
// With `readback.onStep` set, split also reads back each step's written buffers (StepReadback).
// Throws CannotTest when memory runs out; submit failures are outcomes, not exceptions. After a
// timed-out submit the device is abandoned before the mode's objects go, since the GPU may
// still use them.
// With `timestamps`, each of the mode's own command buffers starts with a TOP_OF_PIPE and
// ends with a BOTTOM_OF_PIPE timestamp (vkCmdWriteTimestamp; Vulkan spec "Timestamp
// Queries": ticks times VkPhysicalDeviceLimits::timestampPeriod nanoseconds, masked to the
// queue family's timestampValidBits), read after each submit's wait into `gpuSeconds`; this
// adds commands to the stream, so bench/overhead.sh takes wall times from a run without it.
ScenarioModeRun runScenarioMode(Device& device, const ScenarioPipelines& pipelines, ScenarioBuffers& buffers,
                                const scenario::Scenario& s, Mode mode, double timeoutSeconds, bool timestamps = false,
                                const StepReadback& readback = {});

}  // namespace repro::vk
