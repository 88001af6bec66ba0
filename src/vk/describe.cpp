// Device facts as text.
#include "vk/describe.hpp"

#include <fmt/format.h>

#include "vk/device.hpp"

namespace repro::vk {

std::string driverIdName(VkDriverId id) {
    switch (id) {
#define REPRO_ID(x) case VK_##x: return #x;
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
        default: break;
    }
    return fmt::format("DRIVER_ID_{}", static_cast<int>(id));
}

std::string deviceTypeName(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_OTHER: return "OTHER";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "INTEGRATED_GPU";
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "DISCRETE_GPU";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "VIRTUAL_GPU";
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
        default: return fmt::format("TYPE_{}", static_cast<int>(type));
    }
}

std::string apiVersionText(uint32_t v) {
    return fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                       VK_API_VERSION_PATCH(v));
}

std::string driverVersionText(const DeviceInfo& info) {
    const uint32_t v = info.properties.driverVersion;
    if (info.properties.vendorID == 0x10de) {
        return fmt::format("{}.{}.{}.{}", (v >> 22) & 0x3ff, (v >> 14) & 0xff, (v >> 6) & 0xff,
                           v & 0x3f);
    }
    if (info.hasDriverProperties &&
        info.driver.driverID == VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS) {
        return fmt::format("{}.{}", v >> 14, v & 0x3fff);
    }
    return apiVersionText(v);
}

std::string queueFlagsText(VkQueueFlags flags) {
    static constexpr std::pair<VkQueueFlags, const char*> kNames[] = {
        {VK_QUEUE_GRAPHICS_BIT, "GRAPHICS"}, {VK_QUEUE_COMPUTE_BIT, "COMPUTE"},
        {VK_QUEUE_TRANSFER_BIT, "TRANSFER"}, {VK_QUEUE_SPARSE_BINDING_BIT, "SPARSE_BINDING"},
        {VK_QUEUE_PROTECTED_BIT, "PROTECTED"}};
    std::string text;
    for (const auto& [bit, label] : kNames) {
        if (flags & bit) text += fmt::format("{}{}", text.empty() ? "" : "|", label);
    }
    return text.empty() ? "none" : text;
}

std::string uuidText(const uint8_t (&u)[VK_UUID_SIZE]) {
    std::string s;
    for (unsigned i = 0; i < VK_UUID_SIZE; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
        s += fmt::format("{:02x}", u[i]);
    }
    return s;
}

}  // namespace repro::vk
