// The device facts a run's report carries (see vk/device_report.hpp).
#include "vk/device_report.hpp"

#include <fmt/format.h>

#include "vk/describe.hpp"
#include "vk/device.hpp"
#include "vk/memory.hpp"

namespace repro::vk {

DeviceReport describeDevice(const Device& device, const std::vector<LoaderMessage>& loader,
                            const std::vector<const Buffer*>& placed) {
    const DeviceInfo& d = device.info();
    DeviceReport r;
    r.index = d.index;
    r.deviceName = d.properties.deviceName;
    r.deviceType = deviceTypeName(d.properties.deviceType);
    r.apiVersion = apiVersionText(d.apiVersion());
    r.driverVersion = driverVersionText(d);
    r.driverVersionRaw = d.properties.driverVersion;
    r.vendorId = d.properties.vendorID;
    r.deviceId = d.properties.deviceID;
    if (d.hasDriverProperties) {
        r.driverId = driverIdName(d.driver.driverID);
        r.driverName = d.driver.driverName;
        r.driverInfo = d.driver.driverInfo;
        const auto& c = d.driver.conformanceVersion;
        r.conformanceVersion = fmt::format("{}.{}.{}.{}", c.major, c.minor, c.subminor, c.patch);
    }
    r.deviceUuid = uuidText(d.ids.deviceUUID);
    r.driverUuid = uuidText(d.ids.driverUUID);
    r.pciBus = d.pciBus;
    const auto period = static_cast<double>(d.properties.limits.timestampPeriod);
    if (period > 0.0 && d.queueFamilies[device.queueFamily()].timestampValidBits > 0) r.timestampPeriodNs = period;
    r.queueFamily = device.queueFamily();
    r.queueFlags = queueFlagsText(d.queueFamilies[device.queueFamily()].queueFlags);
    r.queueNote = d.queueNote;
    for (const char* e : device.extensions().names()) r.extensions.emplace_back(e);
    r.features = device.features().names();
    r.driverLibrary = driverLibraryInUse(loader);
    if (r.driverLibrary) r.driverManifest = manifestOf(loader, *r.driverLibrary);
    for (const Buffer* b : placed) {
        const auto& type = d.memory.memoryTypes[b->memoryType];
        const auto& heap = d.memory.memoryHeaps[type.heapIndex];
        r.memory.push_back({.buffer = b->name,
                            .memoryClass = std::string(name(b->memoryClass)),
                            .typeIndex = b->memoryType,
                            .typeFlags = memoryFlagsText(type.propertyFlags),
                            .heapIndex = type.heapIndex,
                            .heapBytes = heap.size,
                            .heapFlags = (heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) ? "DEVICE_LOCAL" : "none"});
    }
    return r;
}

}  // namespace repro::vk
