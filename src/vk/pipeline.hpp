// Compute pipelines with their descriptor-set layout and update template, created in
// blade's order (blade `vulkan/pipeline.rs:384-443` at 72c30c1; docs/blade-stream.md "Pipelines").
#pragma once

#include <volk.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vk/handles.hpp"

namespace repro::vk {

class Device;

struct ComputePipeline {
    std::string name;
    uint32_t bindingCount = 0;                      // bindings 0..bindingCount-1 in set 0
    std::vector<VkDescriptorType> descriptorTypes;  // per binding
    Owned<VkDescriptorSetLayout> setLayout;
    Owned<VkDescriptorUpdateTemplate> updateTemplate;  // one VkDescriptorBufferInfo per binding
    Owned<VkPipelineLayout> layout;                    // 1 set layout, push constants per PipelineOptions
    Owned<VkPipeline> pipeline;
    std::string statistics;  // blade-exact with VK_AMD_shader_info: "VGPRs .. SGPRs .."
};

// What createComputePipeline does beyond blade's defaults.
struct PipelineOptions {
    std::string entryPoint = "main";  // OpEntryPoint name (pName)
    // Per binding; empty: STORAGE_BUFFER for every one, as blade declares every BufferPiece
    // (blade pipeline.rs:224-229), whatever the SPIR-V says.
    std::vector<VkDescriptorType> descriptorTypes;
    // ProfileSettings::pipelineStatistics: VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR
    // (when pipelineExecutableInfo is enabled) and vkGetShaderInfoAMD(STATISTICS) (when
    // VK_AMD_shader_info is), as blade pipeline.rs:384-443 does.
    bool statistics = false;
    // Bytes of push constants (one COMPUTE range at offset 0); 0, blade's, for none. The
    // scenario kernels take 16 (scenario/scenario.hpp KernelParams).
    uint32_t pushConstantBytes = 0;
    // Specialization constants: constant_id i takes specialization[i] (32-bit each); empty:
    // none (the scenario private-array kernel's array size, scenario/scenario.hpp).
    std::vector<uint32_t> specialization;
};

// vkCreateShaderModule -> vkCreateDescriptorSetLayout -> vkCreateDescriptorUpdateTemplate
// -> vkCreatePipelineLayout -> vkCreateComputePipelines (no cache) -> vkDestroyShaderModule.
// Every binding has count 1 and stage COMPUTE. `spirv` is in 32-bit words.
// Throws VulkanError (CannotTest on out-of-memory).
ComputePipeline createComputePipeline(const Device& device, std::string name, std::span<const uint32_t> spirv,
                                      uint32_t bindingCount, const PipelineOptions& options = {});

}  // namespace repro::vk
