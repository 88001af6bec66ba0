// Compute pipelines with their descriptor-set layout and update template, created in
// blade's order (blade-command-stream.md §4-5: blade `vulkan/pipeline.rs:384-443`).
#pragma once

#include <volk.h>

#include <cstdint>
#include <span>
#include <string>

#include "vk/handles.hpp"

namespace repro::vk {

class Device;

struct ComputePipeline {
    std::string name;
    uint32_t bindingCount = 0;  // STORAGE_BUFFER bindings 0..bindingCount-1 in set 0
    Owned<VkDescriptorSetLayout> setLayout;
    Owned<VkDescriptorUpdateTemplate> updateTemplate;  // one VkDescriptorBufferInfo per binding
    Owned<VkPipelineLayout> layout;                    // 1 set layout, no push constants
    Owned<VkPipeline> pipeline;
};

// vkCreateShaderModule -> vkCreateDescriptorSetLayout -> vkCreateDescriptorUpdateTemplate
// -> vkCreatePipelineLayout -> vkCreateComputePipelines (no cache, flags 0, entry "main")
// -> vkDestroyShaderModule. Every binding is a STORAGE_BUFFER with count 1 and stage
// COMPUTE, as blade declares every BufferPiece. `spirv` is in 32-bit words.
// Throws VulkanError (CannotTest on out-of-memory).
ComputePipeline createComputePipeline(const Device& device, std::string name,
                                      std::span<const uint32_t> spirv, uint32_t bindingCount);

}  // namespace repro::vk
