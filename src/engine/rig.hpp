// Everything a run sets up once per process before the modes: the SPIR-V it will use, the
// logical device, the two pipelines, the chain's buffers, the command encoder and the
// instrumentation, in creation order (destroyed in reverse, after the queue is idle).
#pragma once

#include <future>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "cli/profile.hpp"
#include "report/report.hpp"
#include "core/spirv_module.hpp"
#include "vk/buffers.hpp"
#include "vk/device.hpp"
#include "vk/encoder.hpp"
#include "vk/instrumentation.hpp"
#include "vk/modes.hpp"
#include "vk/pipeline.hpp"

namespace repro {

// The SPIR-V of one shader: built in, or --spirv DIR/<file>, checked against what the host
// records.
struct ShaderSource {
    SpirvModule module;
    std::string origin;            // "built in" or the path
    bool declaresUniform() const;  // a binding is a Uniform block
};

struct ShaderSources {
    ShaderSource convT, slice;
};

// The built-in modules (the naga-interface variants with --profile blade-exact), or
// --spirv DIR/conv_t.spv and DIR/slice.spv. Throws UsageError with one line when a file
// cannot be read or does not match what the host records (entry point, local size,
// bindings).
ShaderSources loadShaders(const Options& options, const ProfileSettings& profile);

// Device limits the shapes must fit (UsageError: the values are impossible on this device)
// and the memory the chain of `steps` needs (CannotTest: not enough device memory).
void checkDeviceFits(const vk::DeviceInfo& device, const ChainSizes& sizes, uint32_t steps);

// The chain's input small[0] and its weight (makeInput and makeWeight, reference/cpu_reference.hpp),
// floats in the buffers' layout: they depend on the shape alone.
struct ChainInputs {
    std::vector<float> input, weight;
};

// Makes the inputs for `sizes` on a thread of its own (startInBackground, core/parallel.hpp),
// to be taken by the Rig when it fills the buffers: started before the device is created,
// their host time (about 15 ms at full size on the H200 host) runs while the driver creates
// the device. get() rethrows std::bad_alloc.
std::future<ChainInputs> startChainInputs(const ChainSizes& sizes);

class Rig {
  public:
    // Creates the device, pipelines, buffers (for options.chainLength steps, filled from
    // `inputs`, which it waits for), encoder and instrumentation, timing each phase into
    // `timings`. Throws CannotTest, UsageError or VulkanError, and what inputs.get() throws.
    Rig(const vk::Instance& instance, const vk::DeviceInfo& chosen, const Options& options,
        const ShaderSources& shaders, PhaseTimings& timings, std::future<ChainInputs> inputs);
    ~Rig();
    Rig(const Rig&) = delete;
    Rig& operator=(const Rig&) = delete;

    const ProfileSettings profile;
    vk::Device device;
    const vk::ComputePipeline convT;
    const vk::ComputePipeline slice;
    const vk::ChainBuffers buffers;
    vk::Encoder encoder;
    std::vector<std::string> instrumentationNotes;  // what instrumentation could not do
    vk::Instrumentation instrumentation;
    const vk::ChainResources resources;
    // --profile blade-exact with params declared Uniform and written through a
    // STORAGE_BUFFER descriptor: undefined behaviour, so a wrong split is not the driver's.
    const bool paramsDescriptorMismatch;

    // The wait timeout of `options` on this device.
    vk::WaitTimeout waitTimeout(const Options& options) const;
    // Every device fact the report carries (vulkaninfo --summary's fields and the set-up),
    // with the driver library and manifest from the loader's messages.
    DeviceReport describeDevice(const std::vector<LoaderMessage>& loader) const;
    // Debug-utils names on every object (--labels).
    void nameObjects() const;

  private:
    // Names for the command-stream tracer (vk/trace.hpp).
    void nameForTrace() const;
};

}  // namespace repro
