// Compute pipeline creation in blade's call order.
#include "vk/pipeline.hpp"

#include <vector>

#include "vk/check.hpp"
#include "vk/device.hpp"

namespace repro::vk {
namespace {

void checkSetup(VkResult r, std::string_view call) {
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
        throw CannotTest(std::string(call) + " ran out of memory: " + resultName(r));
    }
    check(r, call);
}

// The descriptor-set layout (one binding per buffer, count 1, stage COMPUTE; blade always
// chains binding flags, all 0, a struct that is core only from 1.2) and the update template
// (one VkDescriptorBufferInfo per binding, 24 bytes each), in blade's order.
// One template stride serves buffers and storage images (Encoder::bindPipelineAndResources).
static_assert(sizeof(VkDescriptorImageInfo) == sizeof(VkDescriptorBufferInfo));

void createSetLayoutAndTemplate(const Device& device, ComputePipeline& p) {
    const uint32_t count = p.bindingCount;
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    std::vector<VkDescriptorBindingFlags> bindingFlags(count, 0);
    std::vector<VkDescriptorUpdateTemplateEntry> entries;
    for (uint32_t i = 0; i < count; ++i) {
        bindings.push_back({.binding = i,
                            .descriptorType = p.descriptorTypes[i],
                            .descriptorCount = 1,
                            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT});
        entries.push_back({.dstBinding = i,
                           .dstArrayElement = 0,
                           .descriptorCount = 1,
                           .descriptorType = p.descriptorTypes[i],
                           .offset = i * sizeof(VkDescriptorBufferInfo),
                           .stride = sizeof(VkDescriptorBufferInfo)});
    }
    const VkDescriptorSetLayoutBindingFlagsCreateInfo flagsInfo{
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO,
        .bindingCount = count,
        .pBindingFlags = bindingFlags.data(),
    };
    const bool chainFlags = device.info().apiVersion() >= VK_API_VERSION_1_2;
    const VkDescriptorSetLayoutCreateInfo layoutInfo{
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .pNext = chainFlags ? &flagsInfo : nullptr,
        .bindingCount = count,
        .pBindings = bindings.data(),
    };
    p.setLayout = device.create(vkCreateDescriptorSetLayout, layoutInfo, "vkCreateDescriptorSetLayout", checkSetup);
    const VkDescriptorUpdateTemplateCreateInfo templateInfo{
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO,
        .descriptorUpdateEntryCount = count,
        .pDescriptorUpdateEntries = entries.data(),
        .templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET,
        .descriptorSetLayout = p.setLayout.get(),
    };
    p.updateTemplate =
        device.create(vkCreateDescriptorUpdateTemplate, templateInfo, "vkCreateDescriptorUpdateTemplate", checkSetup);
}

// blade only logs these (pipeline.rs); the call itself is what is reproduced.
std::string shaderStatistics(const Device& device, VkPipeline pipeline) {
    VkShaderStatisticsInfoAMD stats{};
    size_t size = sizeof stats;
    if (vkGetShaderInfoAMD(device.get(), pipeline, VK_SHADER_STAGE_COMPUTE_BIT, VK_SHADER_INFO_TYPE_STATISTICS_AMD,
                           &size, &stats) != VK_SUCCESS) {
        return "";
    }
    return "VGPRs " + std::to_string(stats.resourceUsage.numUsedVgprs) + ", SGPRs " +
           std::to_string(stats.resourceUsage.numUsedSgprs);
}

}  // namespace

ComputePipeline createComputePipeline(const Device& device, std::string name, std::span<const uint32_t> spirv,
                                      uint32_t bindingCount, const PipelineOptions& options) {
    ComputePipeline p;
    p.name = std::move(name);
    p.bindingCount = bindingCount;
    p.descriptorTypes = options.descriptorTypes;
    p.descriptorTypes.resize(bindingCount, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    const VkShaderModuleCreateInfo moduleInfo{
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = spirv.size_bytes(), .pCode = spirv.data()};
    // destroyed on return, as blade does
    const Owned<VkShaderModule> module =
        device.create(vkCreateShaderModule, moduleInfo, "vkCreateShaderModule", checkSetup);
    createSetLayoutAndTemplate(device, p);
    const VkDescriptorSetLayout setLayout = p.setLayout.get();
    // The scenario kernels' push constants (PipelineOptions::pushConstantBytes); none for blade's.
    const VkPushConstantRange pushRange{
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = options.pushConstantBytes};
    const VkPipelineLayoutCreateInfo pipelineLayoutInfo{
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &setLayout,
        .pushConstantRangeCount = options.pushConstantBytes ? 1u : 0u,
        .pPushConstantRanges = options.pushConstantBytes ? &pushRange : nullptr};
    p.layout = device.create(vkCreatePipelineLayout, pipelineLayoutInfo, "vkCreatePipelineLayout", checkSetup);
    const bool captureStatistics = options.statistics && device.features().pipelineExecutableInfo;
    std::vector<VkSpecializationMapEntry> entries;
    for (uint32_t i = 0; i < options.specialization.size(); ++i)
        entries.push_back({.constantID = i, .offset = 4 * i, .size = 4});
    const VkSpecializationInfo specialization{.mapEntryCount = static_cast<uint32_t>(entries.size()),
                                              .pMapEntries = entries.data(),
                                              .dataSize = options.specialization.size() * 4,
                                              .pData = options.specialization.data()};
    const VkComputePipelineCreateInfo pipelineInfo{
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .flags = captureStatistics ? VkPipelineCreateFlags{VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR}
                                   : VkPipelineCreateFlags{0},
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module.get(),
                  .pName = options.entryPoint.c_str(),
                  .pSpecializationInfo = entries.empty() ? nullptr : &specialization},
        .layout = p.layout.get(),
        .basePipelineHandle = VK_NULL_HANDLE,
        .basePipelineIndex = 0,
    };
    VkPipeline rawPipeline = VK_NULL_HANDLE;
    checkSetup(vkCreateComputePipelines(device.get(), VK_NULL_HANDLE, 1, &pipelineInfo, nullptr, &rawPipeline),
               "vkCreateComputePipelines");
    p.pipeline = Owned<VkPipeline>(device.life(), rawPipeline);
    if (options.statistics && device.extensions().amdShaderInfo) p.statistics = shaderStatistics(device, rawPipeline);
    return p;
}

}  // namespace repro::vk
