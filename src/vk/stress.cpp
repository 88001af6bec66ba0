// --stress's kernels and buffers (vk/stress.hpp).
#include "vk/stress.hpp"

#include <algorithm>
#include <span>

#include "scenario/scenario.hpp"
#include "scenario/stress.hpp"
#include "vk/embedded_spirv.hpp"
#include "vk/encoder.hpp"
#include "vk/scenario_resources.hpp"
#include "vk/trace.hpp"

namespace repro::vk {
namespace {

constexpr uint64_t kSinkBytes = 256;

// The push constants of both kernels: the words they go over, then the traffic's passes.
struct StressParams {
    uint32_t words = 0, passes = 0, unused0 = 0, unused1 = 0;
};

}  // namespace

StressKit createStressKit(const Device& device, const scenario::Scenario& s) {
    StressKit kit;
    const PipelineOptions options{.pushConstantBytes = sizeof(StressParams)};
    kit.prime = createComputePipeline(device, "stress-prime", REPRO_SPIRV(stress_prime), 2, options);
    kit.traffic = createComputePipeline(device, "stress-traffic", REPRO_SPIRV(stress_traffic), 1, options);
    kit.scratch = createBuffer(device, "stress scratch", kStressScratchBytes, MemoryClass::Device);
    kit.primed = scenario::primedBuffers(s);
    for (const auto& name : kit.primed)
        kit.sinks.push_back(createBuffer(device, "stress sink of " + name, kSinkBytes, MemoryClass::Device));
    for (const ComputePipeline* p : {&kit.prime, &kit.traffic}) trace::nameHandle(p->pipeline.get(), p->name);
    trace::nameHandle(kit.scratch.get(), kit.scratch.name);
    for (const Buffer& b : kit.sinks) trace::nameHandle(b.get(), b.name);
    return kit;
}

void recordStress(Encoder& encoder, const StressKit& kit, const ScenarioBuffers& buffers) {
    const VkCommandBuffer cmd = encoder.cmd();
    for (size_t i = 0; i < kit.primed.size(); ++i) {
        const Buffer& input = buffers.at(kit.primed[i]);
        const StressParams params{.words = static_cast<uint32_t>(std::min(input.size, kStressPrimeBytes) / 4)};
        encoder.bindPipelineAndBuffers(kit.prime, {input.get(), kit.sinks[i].get()});
        vkCmdPushConstants(cmd, kit.prime.layout.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params), &params);
        vkCmdDispatch(cmd, kStressGroups, 1, 1);
    }
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr,
                         0, nullptr, 0, nullptr);
    const StressParams traffic{.words = static_cast<uint32_t>(kStressScratchBytes / 4), .passes = kStressTrafficPasses};
    encoder.bindPipelineAndBuffers(kit.traffic, {kit.scratch.get()});
    vkCmdPushConstants(cmd, kit.traffic.layout.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(traffic), &traffic);
    vkCmdDispatch(cmd, kStressGroups, 1, 1);
}

}  // namespace repro::vk
