// VK_KHR_cooperative_matrix for the distribution's Vulkan headers (1.3.239), which predate
// it: the types blade's cooperative-matrix decision reads and enables.
#pragma once

#include <volk.h>

#include <cstddef>
#include <cstdint>

namespace repro::vk {

#ifndef VK_KHR_cooperative_matrix
// VK_KHR_cooperative_matrix, absent from the distribution's Vulkan headers (1.3.239): these
// are KhronosGroup/Vulkan-Headers v1.3.255 include/vulkan/vulkan_core.h, the first release
// with the extension (spec version 2; unchanged through 1.4.359 apart from enumerators
// added to VkComponentTypeKHR and VkScopeKHR). With newer headers their own are used.
inline constexpr const char* VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME = "VK_KHR_cooperative_matrix";
inline constexpr auto VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR =
    static_cast<VkStructureType>(1000506000);
inline constexpr auto VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR = static_cast<VkStructureType>(1000506001);

typedef enum VkComponentTypeKHR {
    VK_COMPONENT_TYPE_FLOAT16_KHR = 0,
    VK_COMPONENT_TYPE_FLOAT32_KHR = 1,
    VK_COMPONENT_TYPE_FLOAT64_KHR = 2,
    VK_COMPONENT_TYPE_SINT8_KHR = 3,
    VK_COMPONENT_TYPE_SINT16_KHR = 4,
    VK_COMPONENT_TYPE_SINT32_KHR = 5,
    VK_COMPONENT_TYPE_SINT64_KHR = 6,
    VK_COMPONENT_TYPE_UINT8_KHR = 7,
    VK_COMPONENT_TYPE_UINT16_KHR = 8,
    VK_COMPONENT_TYPE_UINT32_KHR = 9,
    VK_COMPONENT_TYPE_UINT64_KHR = 10,
    VK_COMPONENT_TYPE_MAX_ENUM_KHR = 0x7FFFFFFF
} VkComponentTypeKHR;

typedef enum VkScopeKHR {
    VK_SCOPE_DEVICE_KHR = 1,
    VK_SCOPE_WORKGROUP_KHR = 2,
    VK_SCOPE_SUBGROUP_KHR = 3,
    VK_SCOPE_QUEUE_FAMILY_KHR = 5,
    VK_SCOPE_MAX_ENUM_KHR = 0x7FFFFFFF
} VkScopeKHR;

typedef struct VkCooperativeMatrixPropertiesKHR {
    VkStructureType sType;
    void* pNext;
    uint32_t MSize;
    uint32_t NSize;
    uint32_t KSize;
    VkComponentTypeKHR AType;
    VkComponentTypeKHR BType;
    VkComponentTypeKHR CType;
    VkComponentTypeKHR ResultType;
    VkBool32 saturatingAccumulation;
    VkScopeKHR scope;
} VkCooperativeMatrixPropertiesKHR;

typedef struct VkPhysicalDeviceCooperativeMatrixFeaturesKHR {
    VkStructureType sType;
    void* pNext;
    VkBool32 cooperativeMatrix;
    VkBool32 cooperativeMatrixRobustBufferAccess;
} VkPhysicalDeviceCooperativeMatrixFeaturesKHR;

typedef VkResult(VKAPI_PTR* PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)(
    VkPhysicalDevice physicalDevice, uint32_t* pPropertyCount, VkCooperativeMatrixPropertiesKHR* pProperties);
#endif  // VK_KHR_cooperative_matrix

// The first Vulkan-Headers release with VK_KHR_cooperative_matrix; a validation layer
// generated from an older one does not know its structures.
inline constexpr uint32_t kCoopMatrixHeaderVersion = VK_MAKE_API_VERSION(0, 1, 3, 255);

// The C layout on LP64 (Linux x86-64 and AArch64), where the driver writes these.
static_assert(sizeof(void*) != 8 || (sizeof(VkCooperativeMatrixPropertiesKHR) == 56 &&
                                     offsetof(VkCooperativeMatrixPropertiesKHR, scope) == 48));
static_assert(sizeof(void*) != 8 || sizeof(VkPhysicalDeviceCooperativeMatrixFeaturesKHR) == 24);

}  // namespace repro::vk
