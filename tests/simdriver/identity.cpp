// The simulated driver's reported identity (identity.hpp).
#include "identity.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

namespace repro::simdriver {
namespace {

// Device-level commands of VK_VERSION_1_1, VK_VERSION_1_2 and VK_VERSION_1_3 in the
// 1.3.239 vulkan_core.h, in the header's order.
constexpr std::array<std::string_view, 65> kPromoted = {
    // 1.1
    "vkBindBufferMemory2", "vkBindImageMemory2", "vkGetDeviceGroupPeerMemoryFeatures", "vkCmdSetDeviceMask",
    "vkCmdDispatchBase", "vkGetImageMemoryRequirements2", "vkGetBufferMemoryRequirements2",
    "vkGetImageSparseMemoryRequirements2", "vkTrimCommandPool", "vkGetDeviceQueue2", "vkCreateSamplerYcbcrConversion",
    "vkDestroySamplerYcbcrConversion", "vkCreateDescriptorUpdateTemplate", "vkDestroyDescriptorUpdateTemplate",
    "vkUpdateDescriptorSetWithTemplate", "vkGetDescriptorSetLayoutSupport",
    // 1.2
    "vkCmdDrawIndirectCount", "vkCmdDrawIndexedIndirectCount", "vkCreateRenderPass2", "vkCmdBeginRenderPass2",
    "vkCmdNextSubpass2", "vkCmdEndRenderPass2", "vkResetQueryPool", "vkGetSemaphoreCounterValue", "vkWaitSemaphores",
    "vkSignalSemaphore", "vkGetBufferDeviceAddress", "vkGetBufferOpaqueCaptureAddress",
    "vkGetDeviceMemoryOpaqueCaptureAddress",
    // 1.3
    "vkCreatePrivateDataSlot", "vkDestroyPrivateDataSlot", "vkSetPrivateData", "vkGetPrivateData", "vkCmdSetEvent2",
    "vkCmdResetEvent2", "vkCmdWaitEvents2", "vkCmdPipelineBarrier2", "vkCmdWriteTimestamp2", "vkQueueSubmit2",
    "vkCmdCopyBuffer2", "vkCmdCopyImage2", "vkCmdCopyBufferToImage2", "vkCmdCopyImageToBuffer2", "vkCmdBlitImage2",
    "vkCmdResolveImage2", "vkCmdBeginRendering", "vkCmdEndRendering", "vkCmdSetCullMode", "vkCmdSetFrontFace",
    "vkCmdSetPrimitiveTopology", "vkCmdSetViewportWithCount", "vkCmdSetScissorWithCount", "vkCmdBindVertexBuffers2",
    "vkCmdSetDepthTestEnable", "vkCmdSetDepthWriteEnable", "vkCmdSetDepthCompareOp", "vkCmdSetDepthBoundsTestEnable",
    "vkCmdSetStencilTestEnable", "vkCmdSetStencilOp", "vkCmdSetRasterizerDiscardEnable", "vkCmdSetDepthBiasEnable",
    "vkCmdSetPrimitiveRestartEnable", "vkGetDeviceBufferMemoryRequirements", "vkGetDeviceImageMemoryRequirements",
    "vkGetDeviceImageSparseMemoryRequirements"};

template <size_t N>
void copyText(char (&field)[N], const std::string& text) {
    const size_t n = std::min(text.size(), N - 1);
    std::memcpy(field, text.data(), n);
    std::memset(field + n, 0, N - n);
}

// The driver fields shared by VkPhysicalDeviceDriverProperties and
// VkPhysicalDeviceVulkan12Properties.
template <typename Driver>
void applyDriver(const Identity& id, Driver& d) {
    if (id.driverId) d.driverID = *id.driverId;
    if (id.driverName) copyText(d.driverName, *id.driverName);
    if (id.driverInfo) copyText(d.driverInfo, *id.driverInfo);
    if (id.conformance) d.conformanceVersion = *id.conformance;
}

}  // namespace

void applyIdentity(const Identity* identity, bool api10, VkPhysicalDeviceProperties& p) {
    if (api10) p.apiVersion = VK_MAKE_API_VERSION(0, 1, 0, VK_API_VERSION_PATCH(p.apiVersion));
    if (!identity) return;
    const Identity& id = *identity;
    if (id.name) copyText(p.deviceName, *id.name);
    if (id.vendorId) p.vendorID = *id.vendorId;
    if (id.deviceId) p.deviceID = *id.deviceId;
    if (id.type) p.deviceType = *id.type;
    if (id.apiVersion) p.apiVersion = *id.apiVersion;
    if (id.driverVersion) p.driverVersion = *id.driverVersion;
}

void applyIdentity(const Identity* identity, bool api10, VkPhysicalDeviceProperties2& properties) {
    applyIdentity(identity, api10, properties.properties);
    if (!identity) return;
    for (auto* s = static_cast<VkBaseOutStructure*>(properties.pNext); s; s = s->pNext) {
        switch (s->sType) {
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES:
                applyDriver(*identity, *reinterpret_cast<VkPhysicalDeviceDriverProperties*>(s));
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES:
                applyDriver(*identity, *reinterpret_cast<VkPhysicalDeviceVulkan12Properties*>(s));
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT:
                if (identity->pci) {
                    auto* pci = reinterpret_cast<VkPhysicalDevicePCIBusInfoPropertiesEXT*>(s);
                    pci->pciDomain = identity->pci->domain;
                    pci->pciBus = identity->pci->bus;
                    pci->pciDevice = identity->pci->device;
                    pci->pciFunction = identity->pci->function;
                }
                break;
            default:
                break;
        }
    }
}

bool isPromotedDeviceCommand(std::string_view name) {
    return std::find(kPromoted.begin(), kPromoted.end(), name) != kPromoted.end();
}

std::vector<VkExtensionProperties> withPciBusInfo(std::vector<VkExtensionProperties> extensions) {
    const bool listed = std::any_of(extensions.begin(), extensions.end(), [](const VkExtensionProperties& e) {
        return std::strcmp(e.extensionName, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME) == 0;
    });
    if (!listed) {
        VkExtensionProperties pci{};
        std::strcpy(pci.extensionName, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
        pci.specVersion = VK_EXT_PCI_BUS_INFO_SPEC_VERSION;
        extensions.push_back(pci);
    }
    return extensions;
}

}  // namespace repro::simdriver
