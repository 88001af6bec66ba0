// What the simulated driver reports (identity.hpp): the identity in both property
// queries, api:1.0, the promoted entry points it hides and the pci= extension.
#include "identity.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace repro::simdriver {
namespace {

// lavapipe-like properties, as the driver below returns them.
VkPhysicalDeviceProperties driverProperties() {
    VkPhysicalDeviceProperties p{};
    p.apiVersion = VK_MAKE_API_VERSION(0, 1, 3, 230);
    p.driverVersion = VK_MAKE_VERSION(22, 3, 6);
    p.vendorID = 0x10005;
    p.deviceID = 0;
    p.deviceType = VK_PHYSICAL_DEVICE_TYPE_CPU;
    std::strcpy(p.deviceName, "llvmpipe (LLVM 15.0.6, 256 bits)");
    p.limits.timestampPeriod = 1;
    return p;
}

Identity identityOf(const std::string& text) { return *parseSimulate(text).config->identity; }

TEST(Identity, PatchesTheProperties) {
    VkPhysicalDeviceProperties p = driverProperties();
    const Identity id = defaultIdentity();
    applyIdentity(&id, false, p);
    EXPECT_STREQ(p.deviceName, "AMD Radeon 890M Graphics (RADV STRIX1)");
    EXPECT_EQ(p.vendorID, 0x1002u);
    EXPECT_EQ(p.deviceID, 0x150eu);
    EXPECT_EQ(p.deviceType, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU);
    EXPECT_EQ(p.driverVersion, VK_MAKE_VERSION(26, 0, 2));
    EXPECT_EQ(p.apiVersion, VK_MAKE_API_VERSION(0, 1, 3, 230));  // no api=: the driver's
    EXPECT_EQ(p.limits.timestampPeriod, 1.0f);                   // everything else is the driver's
}

TEST(Identity, OnlyGivenKeysChangeAndApiIsSet) {
    VkPhysicalDeviceProperties p = driverProperties();
    const Identity id = identityOf("identity:type=discrete,api=1.2.0");
    applyIdentity(&id, false, p);
    EXPECT_STREQ(p.deviceName, "llvmpipe (LLVM 15.0.6, 256 bits)");
    EXPECT_EQ(p.deviceType, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU);
    EXPECT_EQ(p.apiVersion, VK_MAKE_API_VERSION(0, 1, 2, 0));
    EXPECT_EQ(p.vendorID, 0x10005u);
}

TEST(Identity, LongNamesAreCutAndTerminated) {
    VkPhysicalDeviceProperties p = driverProperties();
    const Identity id = identityOf("identity:name=" + std::string(255, 'n'));
    applyIdentity(&id, false, p);
    EXPECT_EQ(std::strlen(p.deviceName), 255u);
}

TEST(Api10, KeepsThePatchNumber) {
    VkPhysicalDeviceProperties p = driverProperties();
    applyIdentity(nullptr, true, p);
    EXPECT_EQ(p.apiVersion, VK_MAKE_API_VERSION(0, 1, 0, 230));
    EXPECT_STREQ(p.deviceName, "llvmpipe (LLVM 15.0.6, 256 bits)");
}

TEST(Identity, PatchesTheChainedStructures) {
    VkPhysicalDevicePCIBusInfoPropertiesEXT pci{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
    VkPhysicalDeviceIDProperties ids{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES, .pNext = &pci};
    ids.deviceUUID[0] = 7;
    VkPhysicalDeviceVulkan12Properties v12{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES,
                                           .pNext = &ids};
    VkPhysicalDeviceDriverProperties driver{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
                                            .pNext = &v12};
    driver.driverID = VK_DRIVER_ID_MESA_LLVMPIPE;
    std::strcpy(driver.driverName, "llvmpipe");
    driver.conformanceVersion = {1, 3, 1, 1};
    VkPhysicalDeviceProperties2 p2{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &driver, .properties = driverProperties()};
    const Identity id = identityOf(
        "identity:driver-id=MESA_RADV,driver-name=radv,driver-info=Mesa 26.0.2,"
        "conformance=1.4.0.0,pci=0000:c4:00.0,name=GPU");
    applyIdentity(&id, false, p2);
    EXPECT_STREQ(p2.properties.deviceName, "GPU");
    for (const auto* d : {&driver.driverID, &v12.driverID}) EXPECT_EQ(*d, VK_DRIVER_ID_MESA_RADV);
    EXPECT_STREQ(driver.driverName, "radv");
    EXPECT_STREQ(v12.driverName, "radv");
    EXPECT_STREQ(driver.driverInfo, "Mesa 26.0.2");
    EXPECT_STREQ(v12.driverInfo, "Mesa 26.0.2");
    EXPECT_EQ(driver.conformanceVersion.major, 1);
    EXPECT_EQ(driver.conformanceVersion.minor, 4);
    EXPECT_EQ(v12.conformanceVersion.minor, 4);
    EXPECT_EQ(pci.pciDomain, 0u);
    EXPECT_EQ(pci.pciBus, 0xc4u);
    EXPECT_EQ(pci.pciDevice, 0u);
    EXPECT_EQ(pci.pciFunction, 0u);
    EXPECT_EQ(ids.deviceUUID[0], 7);  // not an identity structure
    // Without pci= the driver's PCI address stays.
    pci.pciBus = 3;
    const Identity noPci = defaultIdentity();
    applyIdentity(&noPci, false, p2);
    EXPECT_EQ(pci.pciBus, 3u);
    EXPECT_EQ(driver.conformanceVersion.minor, 4);  // no conformance= in the default identity
}

TEST(Api10, HidesTheCoreNamesOfPromotedDeviceCommandsOnly) {
    for (const char* name :
         {"vkCreateDescriptorUpdateTemplate", "vkUpdateDescriptorSetWithTemplate", "vkWaitSemaphores",
          "vkGetSemaphoreCounterValue", "vkGetBufferDeviceAddress", "vkQueueSubmit2", "vkCmdPipelineBarrier2",
          "vkCmdDispatchBase", "vkGetDeviceQueue2", "vkResetQueryPool"}) {
        EXPECT_TRUE(isPromotedDeviceCommand(name)) << name;
    }
    for (const char* name : {"vkCreateDescriptorUpdateTemplateKHR", "vkWaitSemaphoresKHR",
                             "vkGetBufferDeviceAddressKHR", "vkQueueSubmit2KHR", "vkCmdDispatch", "vkQueueSubmit",
                             "vkCreateDevice", "vkGetPhysicalDeviceProperties2", "vkEnumerateInstanceVersion"}) {
        EXPECT_FALSE(isPromotedDeviceCommand(name)) << name;
    }
}

TEST(PciBusInfo, AddedOnce) {
    VkExtensionProperties timeline{};
    std::strcpy(timeline.extensionName, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
    const auto added = withPciBusInfo({timeline});
    ASSERT_EQ(added.size(), 2u);
    EXPECT_STREQ(added[1].extensionName, "VK_EXT_pci_bus_info");
    EXPECT_EQ(added[1].specVersion, uint32_t{VK_EXT_PCI_BUS_INFO_SPEC_VERSION});
    EXPECT_EQ(withPciBusInfo(added).size(), 2u);
}

}  // namespace
}  // namespace repro::simdriver
