// Device facts as text.
#include "vk/describe.hpp"

#include <fmt/format.h>

#include <initializer_list>

#include "vk/physical_device.hpp"

namespace repro::vk {

std::string driverIdName(VkDriverId id) {
    switch (id) {
#define REPRO_ID(x) \
    case VK_##x:    \
        return #x;
        REPRO_ID(DRIVER_ID_AMD_PROPRIETARY)
        REPRO_ID(DRIVER_ID_AMD_OPEN_SOURCE)
        REPRO_ID(DRIVER_ID_MESA_RADV)
        REPRO_ID(DRIVER_ID_NVIDIA_PROPRIETARY)
        REPRO_ID(DRIVER_ID_INTEL_PROPRIETARY_WINDOWS)
        REPRO_ID(DRIVER_ID_INTEL_OPEN_SOURCE_MESA)
        REPRO_ID(DRIVER_ID_IMAGINATION_PROPRIETARY)
        REPRO_ID(DRIVER_ID_QUALCOMM_PROPRIETARY)
        REPRO_ID(DRIVER_ID_ARM_PROPRIETARY)
        REPRO_ID(DRIVER_ID_GOOGLE_SWIFTSHADER)
        REPRO_ID(DRIVER_ID_GGP_PROPRIETARY)
        REPRO_ID(DRIVER_ID_BROADCOM_PROPRIETARY)
        REPRO_ID(DRIVER_ID_MESA_LLVMPIPE)
        REPRO_ID(DRIVER_ID_MOLTENVK)
        REPRO_ID(DRIVER_ID_COREAVI_PROPRIETARY)
        REPRO_ID(DRIVER_ID_JUICE_PROPRIETARY)
        REPRO_ID(DRIVER_ID_VERISILICON_PROPRIETARY)
        REPRO_ID(DRIVER_ID_MESA_TURNIP)
        REPRO_ID(DRIVER_ID_MESA_V3DV)
        REPRO_ID(DRIVER_ID_MESA_PANVK)
        REPRO_ID(DRIVER_ID_SAMSUNG_PROPRIETARY)
        REPRO_ID(DRIVER_ID_MESA_VENUS)
        REPRO_ID(DRIVER_ID_MESA_DOZEN)
        REPRO_ID(DRIVER_ID_MESA_NVK)
        REPRO_ID(DRIVER_ID_IMAGINATION_OPEN_SOURCE_MESA)
#undef REPRO_ID
        default:
            break;
    }
    return fmt::format("DRIVER_ID_{}", static_cast<int>(id));
}

std::string driverIdShortName(VkDriverId id) { return driverIdName(id).substr(std::string_view("DRIVER_ID_").size()); }

std::string deviceTypeName(VkPhysicalDeviceType type) {
    // by value: VK_PHYSICAL_DEVICE_TYPE_OTHER is 0, ..., VK_PHYSICAL_DEVICE_TYPE_CPU 4
    constexpr const char* kNames[] = {"OTHER", "INTEGRATED_GPU", "DISCRETE_GPU", "VIRTUAL_GPU", "CPU"};
    const auto i = static_cast<size_t>(type);
    return i < std::size(kNames) ? kNames[i] : fmt::format("TYPE_{}", static_cast<int>(type));
}

std::string apiVersionText(uint32_t v) {
    return fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
}

std::string driverVersionText(const DeviceInfo& info) {
    const uint32_t v = info.properties.driverVersion;
    if (info.properties.vendorID == 0x10de) {
        return fmt::format("{}.{}.{}.{}", (v >> 22) & 0x3ff, (v >> 14) & 0xff, (v >> 6) & 0xff, v & 0x3f);
    }
    if (info.hasDriverProperties && info.driver.driverID == VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS) {
        return fmt::format("{}.{}", v >> 14, v & 0x3fff);
    }
    return apiVersionText(v);
}

std::string queueFlagsText(VkQueueFlags flags) {
    return maskText(flags,
                    {{VK_QUEUE_GRAPHICS_BIT, "GRAPHICS"},
                     {VK_QUEUE_COMPUTE_BIT, "COMPUTE"},
                     {VK_QUEUE_TRANSFER_BIT, "TRANSFER"},
                     {VK_QUEUE_SPARSE_BINDING_BIT, "SPARSE_BINDING"},
                     {VK_QUEUE_PROTECTED_BIT, "PROTECTED"}},
                    "none", false);
}

std::string uuidText(const uint8_t (&u)[VK_UUID_SIZE]) {
    std::string s;
    for (unsigned i = 0; i < VK_UUID_SIZE; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
        s += fmt::format("{:02x}", u[i]);
    }
    return s;
}

std::string maskText(uint64_t mask, std::initializer_list<BitName> names, std::string_view none, bool showUnnamed) {
    std::string out;
    for (const BitName& n : names) {
        if ((mask & n.bit) != n.bit) continue;
        out += (out.empty() ? "" : "|") + std::string(n.name);
        mask &= ~n.bit;
    }
    if (mask != 0 && showUnnamed) out += fmt::format("{}0x{:x}", out.empty() ? "" : "|", mask);
    return out.empty() ? std::string(none) : out;
}

std::string stageMaskText(VkPipelineStageFlags mask) { return stageMask2Text(mask); }

std::string stageMask2Text(VkPipelineStageFlags2 mask) {
    // The synchronization2 stage bits below 2^32 equal the legacy ones (Vulkan spec,
    // VkPipelineStageFlagBits2); ALL_COMMANDS first so it is not spelled out bit by bit.
    return maskText(mask, {{VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, "ALL_COMMANDS"},
                           {VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, "TOP_OF_PIPE"},
                           {VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT, "DRAW_INDIRECT"},
                           {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, "COMPUTE_SHADER"},
                           {VK_PIPELINE_STAGE_2_TRANSFER_BIT, "TRANSFER"},
                           {VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT, "BOTTOM_OF_PIPE"},
                           {VK_PIPELINE_STAGE_2_HOST_BIT, "HOST"},
                           {VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, "ALL_GRAPHICS"},
                           {VK_PIPELINE_STAGE_2_COPY_BIT, "COPY"},
                           {VK_PIPELINE_STAGE_2_CLEAR_BIT, "CLEAR"}});
}

std::string accessMaskText(VkAccessFlags mask) { return accessMask2Text(mask); }

std::string accessMask2Text(VkAccessFlags2 mask) {
    return maskText(mask, {{VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT, "INDIRECT_COMMAND_READ"},
                           {VK_ACCESS_2_UNIFORM_READ_BIT, "UNIFORM_READ"},
                           {VK_ACCESS_2_SHADER_READ_BIT, "SHADER_READ"},
                           {VK_ACCESS_2_SHADER_WRITE_BIT, "SHADER_WRITE"},
                           {VK_ACCESS_2_TRANSFER_READ_BIT, "TRANSFER_READ"},
                           {VK_ACCESS_2_TRANSFER_WRITE_BIT, "TRANSFER_WRITE"},
                           {VK_ACCESS_2_HOST_READ_BIT, "HOST_READ"},
                           {VK_ACCESS_2_HOST_WRITE_BIT, "HOST_WRITE"},
                           {VK_ACCESS_2_MEMORY_READ_BIT, "MEMORY_READ"},
                           {VK_ACCESS_2_MEMORY_WRITE_BIT, "MEMORY_WRITE"},
                           {VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, "SHADER_SAMPLED_READ"},
                           {VK_ACCESS_2_SHADER_STORAGE_READ_BIT, "SHADER_STORAGE_READ"},
                           {VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, "SHADER_STORAGE_WRITE"}});
}

}  // namespace repro::vk
