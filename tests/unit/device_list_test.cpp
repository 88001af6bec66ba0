// Unit tests for src/core/device_list.{hpp,cpp}: the JSON form of --list-devices, checked
// against docs/report.schema.json's $defs/device_list (tests/unit/schema_checker.hpp).
#include "report/device_list.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "schema_checker.hpp"

#ifndef REPRO_SOURCE_DIR
#error "REPRO_SOURCE_DIR must name the source tree (tests/CMakeLists.txt)"
#endif

namespace repro {
namespace {

using nlohmann::json;

std::vector<ListedDevice> twoDevices() {
    return {{.index = 0,
             .deviceName = "AMD Radeon RX 7900 XTX (RADV NAVI31)",
             .deviceType = "DISCRETE_GPU",
             .apiVersion = "1.3.287",
             .driverName = "radv",
             .driverInfo = "Mesa 24.2.0-devel (git-1a2b3c4d5e)",
             .driverId = "DRIVER_ID_MESA_RADV",
             .driverVersion = "24.2.0"},
            {.index = 1,
             .deviceName = "old \"device\"\n",
             .deviceType = "CPU",
             .apiVersion = "1.0.61",
             .driverVersion = "0.0.1",
             .unusable = "Vulkan 1.0: the repro needs 1.1"}};
}

const LoaderReport kLoader{.version = "1.3.239",
                           .driverLibraries = {"/usr/lib/libvulkan_radeon.so", "/opt/mesa/libvulkan_lvp.so"},
                           .problems = {"loader_icd_scan: failed to load /opt/mesa/libvulkan_lvp.so"}};

TEST(DeviceListJson, ValidatesAgainstTheSchema) {
    const json schema = test::loadReportSchema(REPRO_SOURCE_DIR);
    test::SchemaChecker checker(schema);
    const json doc = json::parse(renderDeviceListJson("0.1.0", "abc1234", kLoader, twoDevices()));
    const auto errors = checker.checkDefinition("device_list", doc);
    EXPECT_TRUE(errors.empty()) << test::joinErrors(errors);
    const json none = json::parse(renderDeviceListJson("0.1.0", "abc1234", {}, {}));
    EXPECT_TRUE(checker.checkDefinition("device_list", none).empty());
    // A run report is not a device list, and the other way round: the schemas tell them apart.
    EXPECT_FALSE(checker.check(doc).empty());
}

TEST(DeviceListJson, FieldsAndNulls) {
    const json doc = json::parse(renderDeviceListJson("0.1.0", "abc1234", kLoader, twoDevices()));
    EXPECT_EQ(doc["schema"], "repro-device-list");
    EXPECT_EQ(doc["schema_version"], kDeviceListSchemaVersion);
    EXPECT_EQ(doc["repro"]["git"], "abc1234");
    EXPECT_EQ(doc["loader"]["problems"][0], kLoader.problems[0]);
    ASSERT_EQ(doc["devices"].size(), 2u);
    const json& radv = doc["devices"][0];
    EXPECT_EQ(radv["driver_id"], "DRIVER_ID_MESA_RADV");
    EXPECT_EQ(radv["usable"], true);
    EXPECT_TRUE(radv["unusable_reason"].is_null());
    const json& old = doc["devices"][1];
    EXPECT_EQ(old["device_name"], "old \"device\"\n") << "driver text survives JSON escaping";
    EXPECT_TRUE(old["driver_name"].is_null());
    EXPECT_EQ(old["usable"], false);
    EXPECT_EQ(old["unusable_reason"], "Vulkan 1.0: the repro needs 1.1");
}

TEST(DeviceListJson, InvalidUtf8FromADriverStaysJson) {
    std::vector<ListedDevice> d = twoDevices();
    d[0].deviceName = "bad \xff name";
    const std::string text = renderDeviceListJson("0.1.0", "abc1234", kLoader, d);
    EXPECT_TRUE(json::accept(text)) << text;
}

}  // namespace
}  // namespace repro
