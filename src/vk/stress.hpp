// --stress on a scenario file (docs/scenarios.md "--stress"): the priming and traffic kernels
// of the stressing environment of MC Mutants (Levine et al., ASPLOS 2023) and what they read
// and write, recorded at the start of each command buffer of multipass and single on one
// queue. Neither changes a word of the file's buffers nor races the file's work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vk/memory.hpp"
#include "vk/pipeline.hpp"

namespace repro::scenario {
struct Scenario;
}

namespace repro::vk {

class Device;
class Encoder;
class ScenarioBuffers;

// The traffic kernel's scratch buffer and its sweeps over it in each command buffer.
inline constexpr uint64_t kStressScratchBytes = 8ull << 20;
inline constexpr uint32_t kStressTrafficPasses = 2;
// The priming kernel reads at most this many bytes of each file buffer.
inline constexpr uint64_t kStressPrimeBytes = 16ull << 20;
// Workgroups of each priming and traffic dispatch (64 invocations each).
inline constexpr uint32_t kStressGroups = 64;

// The kernels and repro's own buffers of --stress for one scenario on one device.
struct StressKit {
    ComputePipeline prime, traffic;  // shaders/stress_prime.comp, shaders/stress_traffic.comp
    Buffer scratch;                  // the traffic kernel's, kStressScratchBytes, device-local
    // The file buffers primed (scenario/stress.hpp primedBuffers), each with a sink of its own
    // (256 bytes), so that no two priming dispatches write the same memory.
    std::vector<std::string> primed;
    std::vector<Buffer> sinks;
};
// Makes them. Throws VulkanError, or CannotTest when memory runs out.
StressKit createStressKit(const Device& device, const scenario::Scenario& s);

// At the start of a command buffer, after its G (the earlier submits' writes made visible to
// the priming reads; the caller records it) and before any of the file's commands: one
// priming dispatch per primed buffer
// (reads only), an execution-only dependency COMPUTE_SHADER -> ALL_COMMANDS (the priming reads
// ordered before every later write of those buffers: a write-after-read hazard needs no
// memory dependency; Vulkan spec, "Execution and Memory Dependencies"), then the traffic
// dispatch, with no barrier to the file's work (it touches no file memory). The next command
// buffer's G, and the readback's, order it before anything after.
void recordStress(Encoder& encoder, const StressKit& kit, const ScenarioBuffers& buffers);

}  // namespace repro::vk
