// The Vulkan feature structs blade chains into VkPhysicalDeviceFeatures2, declared once:
// physical_device.cpp reads them (what the device supports), device.cpp enables them (what
// blade turns on); each links its own subset in its own order (blade-graphics
// `vulkan/init.rs` at 72c30c1, lines 318-335 and 1017-1125).
#pragma once

#include "vk/khr_cooperative_matrix.hpp"

namespace repro::vk {

// Every struct with its sType set and every feature VK_FALSE; the structs must not move
// once linked.
struct FeatureStructs {
    VkPhysicalDeviceTimelineSemaphoreFeatures timeline{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    VkPhysicalDeviceDynamicRenderingFeatures rendering{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES};
    VkPhysicalDeviceInlineUniformBlockFeatures inlineBlock{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_INLINE_UNIFORM_BLOCK_FEATURES};
    VkPhysicalDeviceDescriptorIndexingFeatures indexing{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_FEATURES};
    VkPhysicalDeviceBufferDeviceAddressFeatures bda{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
    VkPhysicalDeviceShaderFloat16Int8Features f16{.sType =
                                                      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    VkPhysicalDevice16BitStorageFeatures storage16{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR coopMatrix{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
    VkPhysicalDeviceVulkanMemoryModelFeatures memoryModel{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exec{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    VkPhysicalDeviceFaultFeaturesEXT fault{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FAULT_FEATURES_EXT};
    VkPhysicalDeviceSynchronization2Features sync2{.sType =
                                                       VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES};
};

// Puts `s` at the head of the pNext chain `chain` when `on` (as ash's push_next does:
// the last linked comes first).
template <typename S>
void prependIf(void*& chain, S& s, bool on) {
    if (!on) return;
    s.pNext = chain;
    chain = &s;
}

}  // namespace repro::vk
