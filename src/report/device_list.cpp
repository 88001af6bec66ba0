// The JSON form of --list-devices (see device_list.hpp).
#include "report/device_list.hpp"

#include <nlohmann/json.hpp>

#include "report/report_render.hpp"

namespace repro {

std::string renderDeviceListJson(const std::string& version, const std::string& gitHash, const LoaderReport& loader,
                                 const std::vector<ListedDevice>& devices) {
    using nlohmann::json;
    auto orNull = [](const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); };
    json list = json::array();
    for (const auto& d : devices) {
        list.push_back({{"index", d.index},
                        {"device_name", d.deviceName},
                        {"device_type", d.deviceType},
                        {"api_version", d.apiVersion},
                        {"driver_name", orNull(d.driverName)},
                        {"driver_info", orNull(d.driverInfo)},
                        {"driver_id", orNull(d.driverId)},
                        {"driver_version", d.driverVersion},
                        {"usable", d.unusable.empty()},
                        {"unusable_reason", d.unusable.empty() ? json(nullptr) : json(d.unusable)}});
    }
    const json doc = {
        {"schema", "repro-device-list"},
        {"schema_version", kDeviceListSchemaVersion},
        {"repro", {{"version", version}, {"git", gitHash}}},
        {"loader",
         {{"version", loader.version}, {"driver_libraries", loader.driverLibraries}, {"problems", loader.problems}}},
        {"devices", list}};
    // Replacement of invalid UTF-8 (a device name is driver text): the document stays JSON.
    return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string renderDeviceListMarkdown(const std::vector<ListedDevice>& devices) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& d : devices) {
        const std::string driver = d.driverName ? *d.driverName + " " + d.driverInfo.value_or("") : d.driverVersion;
        rows.push_back({std::to_string(d.index), d.deviceName, d.deviceType, d.apiVersion, driver,
                        d.unusable.empty() ? "usable" : "NOT usable: " + d.unusable});
    }
    const std::string table = rows.empty()
                                  ? "no Vulkan devices\n"
                                  : markdownTable({"index", "device", "type", "Vulkan", "driver", "usable"}, rows);
    return "### repro --list-devices\n\n" + table;
}

}  // namespace repro
