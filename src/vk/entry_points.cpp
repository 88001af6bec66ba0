// Entry-point checks (see entry_points.hpp).
#include "vk/entry_points.hpp"

#include <volk.h>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "vk/extensions.hpp"

namespace repro::vk {
namespace {

template <typename Fn>
void require(Fn& fn, const char* name, const char* why = "") {
    if (fn) return;
    throw CannotTest(fmt::format("the driver provides no {}{}{}: repro would call it", name, *why ? ", " : "", why));
}

// The core name, from the KHR alias when the core one is missing (same signature).
template <typename Core, typename Khr>
void promoted(Core& core, Khr khr, const char* name, const char* extension) {
    if (!core && khr) core = khr;
    if (core) return;
    throw CannotTest(fmt::format("the driver provides neither {} (Vulkan 1.1+) nor its {} alias: repro would call it",
                                 name, extension));
}

}  // namespace

void resolveInstanceEntryPoints() {
    promoted(vkGetPhysicalDeviceProperties2, vkGetPhysicalDeviceProperties2KHR, "vkGetPhysicalDeviceProperties2",
             "VK_KHR_get_physical_device_properties2");
    promoted(vkGetPhysicalDeviceFeatures2, vkGetPhysicalDeviceFeatures2KHR, "vkGetPhysicalDeviceFeatures2",
             "VK_KHR_get_physical_device_properties2");
    require(vkEnumeratePhysicalDevices, "vkEnumeratePhysicalDevices");
    require(vkGetPhysicalDeviceProperties, "vkGetPhysicalDeviceProperties");
    require(vkGetPhysicalDeviceMemoryProperties, "vkGetPhysicalDeviceMemoryProperties");
    require(vkGetPhysicalDeviceQueueFamilyProperties, "vkGetPhysicalDeviceQueueFamilyProperties");
    require(vkEnumerateDeviceExtensionProperties, "vkEnumerateDeviceExtensionProperties");
    require(vkCreateDevice, "vkCreateDevice");
}

// A table, one entry per line: laid out by hand, not by clang-format.
// clang-format off
void resolveDeviceEntryPoints(const EnabledExtensions& e, bool synchronization2) {
    promoted(vkCreateDescriptorUpdateTemplate, vkCreateDescriptorUpdateTemplateKHR, "vkCreateDescriptorUpdateTemplate",
             "VK_KHR_descriptor_update_template");
    promoted(vkDestroyDescriptorUpdateTemplate, vkDestroyDescriptorUpdateTemplateKHR,
             "vkDestroyDescriptorUpdateTemplate", "VK_KHR_descriptor_update_template");
    promoted(vkUpdateDescriptorSetWithTemplate, vkUpdateDescriptorSetWithTemplateKHR,
             "vkUpdateDescriptorSetWithTemplate", "VK_KHR_descriptor_update_template");
    promoted(vkWaitSemaphores, vkWaitSemaphoresKHR, "vkWaitSemaphores", "VK_KHR_timeline_semaphore");
    if (e.synchronization2) vkCmdPipelineBarrier2 = vkCmdPipelineBarrier2KHR;  // a 1.2 device: only the KHR name
    const std::pair<PFN_vkVoidFunction, const char*> core[] = {
#define REPRO_CORE(fn) {reinterpret_cast<PFN_vkVoidFunction>(fn), #fn}
        REPRO_CORE(vkGetDeviceQueue), REPRO_CORE(vkCreateBuffer), REPRO_CORE(vkDestroyBuffer),
        REPRO_CORE(vkGetBufferMemoryRequirements), REPRO_CORE(vkAllocateMemory), REPRO_CORE(vkFreeMemory),
        REPRO_CORE(vkBindBufferMemory), REPRO_CORE(vkMapMemory), REPRO_CORE(vkCreateShaderModule),
        REPRO_CORE(vkDestroyShaderModule), REPRO_CORE(vkCreateDescriptorSetLayout),
        REPRO_CORE(vkDestroyDescriptorSetLayout), REPRO_CORE(vkCreatePipelineLayout),
        REPRO_CORE(vkDestroyPipelineLayout), REPRO_CORE(vkCreateComputePipelines), REPRO_CORE(vkDestroyPipeline),
        REPRO_CORE(vkCreateDescriptorPool), REPRO_CORE(vkDestroyDescriptorPool), REPRO_CORE(vkResetDescriptorPool),
        REPRO_CORE(vkAllocateDescriptorSets), REPRO_CORE(vkCreateCommandPool), REPRO_CORE(vkDestroyCommandPool),
        REPRO_CORE(vkAllocateCommandBuffers), REPRO_CORE(vkBeginCommandBuffer), REPRO_CORE(vkEndCommandBuffer),
        REPRO_CORE(vkCmdPipelineBarrier), REPRO_CORE(vkCmdBindPipeline), REPRO_CORE(vkCmdBindDescriptorSets),
        REPRO_CORE(vkCmdDispatch), REPRO_CORE(vkCmdFillBuffer), REPRO_CORE(vkCmdCopyBuffer),
        REPRO_CORE(vkCmdWriteTimestamp), REPRO_CORE(vkCmdResetQueryPool), REPRO_CORE(vkCreateQueryPool),
        REPRO_CORE(vkDestroyQueryPool), REPRO_CORE(vkGetQueryPoolResults), REPRO_CORE(vkCreateSemaphore),
        REPRO_CORE(vkDestroySemaphore), REPRO_CORE(vkQueueSubmit), REPRO_CORE(vkDeviceWaitIdle),
        REPRO_CORE(vkDestroyDevice),
#undef REPRO_CORE
    };
    for (const auto& [fn, name] : core) require(fn, name);
    if (synchronization2) {
        require(vkCmdPipelineBarrier2, e.synchronization2 ? "vkCmdPipelineBarrier2KHR" : "vkCmdPipelineBarrier2",
                e.synchronization2 ? "needed by --barrier sync2/full (VK_KHR_synchronization2 is enabled)"
                                   : "needed by --barrier sync2/full (Vulkan 1.3 core; the loader withholds it "
                                     "when the driver's manifest declares an older api_version)");
    }
    if (e.amdBufferMarker) require(vkCmdWriteBufferMarkerAMD, "vkCmdWriteBufferMarkerAMD", "VK_AMD_buffer_marker");
    if (e.amdShaderInfo) require(vkGetShaderInfoAMD, "vkGetShaderInfoAMD", "VK_AMD_shader_info");
    if (e.deviceFault) require(vkGetDeviceFaultInfoEXT, "vkGetDeviceFaultInfoEXT", "VK_EXT_device_fault");
}
// clang-format on

}  // namespace repro::vk
