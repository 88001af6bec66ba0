// The device facts a run's report carries (report/report.hpp DeviceReport), read from the
// device as it was created.
#pragma once

#include <vector>

#include "forensics/loader_log.hpp"
#include "report/report.hpp"

namespace repro::vk {

class Device;
struct Buffer;

// Every device fact the report carries (vulkaninfo --summary's fields and the set-up): the
// device, its queue, extensions and features as created, the driver library and manifest
// from the loader's messages, and where each buffer of `placed` landed (memory type, heap).
DeviceReport describeDevice(const Device& device, const std::vector<LoaderMessage>& loader,
                            const std::vector<const Buffer*>& placed);

}  // namespace repro::vk
