// Device selection for a run (see engine/device_choice.hpp).
#include "engine/device_choice.hpp"

#include <fmt/format.h>

#include <set>

#include "report/device_list.hpp"
#include "core/errors.hpp"
#include "forensics/loader_log.hpp"
#include "core/output.hpp"
#include "cli/output_paths.hpp"
#include "core/text.hpp"
#include "repro_version.h"
#include "engine/text_report.hpp"
#include "vk/check.hpp"
#include "vk/describe.hpp"
#include "vk/device.hpp"

namespace repro {
namespace {

std::string driverOf(const vk::DeviceInfo& d) {
    return d.hasDriverProperties ? fmt::format("{} ({})", d.driver.driverName, vk::driverIdName(d.driver.driverID))
                                 : std::string("driver unknown");
}

std::string deviceList(const std::vector<vk::DeviceInfo>& devices) {
    std::string out;
    for (const auto& d : devices) {
        out += fmt::format("{}{}: {}, {}", out.empty() ? "" : "; ", d.index, d.properties.deviceName, driverOf(d));
    }
    return out.empty() ? "none" : out;
}

std::string loaderSays(const vk::Instance& instance) {
    const std::vector<std::string> problems = loaderProblems(instance.loaderMessages());
    return problems.empty() ? "" : "; the loader says: " + join(problems, " | ");
}

bool matchesDriver(std::string_view expected, const std::string& driverName, const std::string& driverId,
                   const std::string& library) {
    const std::string e = lower(expected);
    for (const std::string& candidate : {driverName, driverId}) {
        if (!candidate.empty() && lower(candidate).find(e) != std::string::npos) return true;
    }
    return libraryMatches(expected, library);
}

// --expect-driver before the device is made: the loader names the library a device runs
// on only at vkCreateDevice ("Using ... with driver"), so here a library path matches when
// it names one of the driver libraries the loader loaded; checkExpectedDriver confirms it
// against the device's own library once the device exists.
void checkExpectedBeforeDevice(const vk::Instance& instance, const std::vector<vk::DeviceInfo>& devices,
                               const std::string& expected, const vk::DeviceInfo& chosen) {
    const std::string id = chosen.hasDriverProperties ? vk::driverIdName(chosen.driver.driverID) : "";
    const std::string name = chosen.hasDriverProperties ? chosen.driver.driverName : "";
    if (matchesDriver(expected, name, id, "")) return;
    const std::vector<std::string> libraries = driverLibraries(instance.loaderMessages());
    for (const auto& library : libraries) {
        if (libraryMatches(expected, library)) return;
    }
    std::vector<std::string> quoted;
    for (const auto& library : libraries) quoted.push_back(quote(library));
    throw CannotTest(fmt::format(
        "--expect-driver {}: the device that would run is {} ({}); devices: {}; driver "
        "libraries the loader read: {}",
        quote(expected), chosen.properties.deviceName, driverOf(chosen), deviceList(devices), join(quoted)));
}

}  // namespace

void applyQueueChoice(vk::DeviceInfo& d, const QueueChoice& choice) {
    using K = QueueChoice::Kind;
    if (choice.kind == K::Default) return;
    auto families = [&] {
        std::string out;
        for (uint32_t f = 0; f < d.queueFamilies.size(); ++f) {
            out +=
                fmt::format("{}{}: {}", out.empty() ? "" : ", ", f, vk::queueFlagsText(d.queueFamilies[f].queueFlags));
        }
        return out;
    };
    auto fits = [&](uint32_t f) {
        const VkQueueFlags flags = d.queueFamilies[f].queueFlags;
        if (!(flags & VK_QUEUE_COMPUTE_BIT)) return false;
        if (choice.kind == K::Gfx) return (flags & VK_QUEUE_GRAPHICS_BIT) != 0;
        if (choice.kind == K::Compute) return (flags & VK_QUEUE_GRAPHICS_BIT) == 0;
        return f == choice.index;
    };
    for (uint32_t f = 0; f < d.queueFamilies.size(); ++f) {
        if (!fits(f)) continue;
        d.queueFamily = f;
        d.queueNote = fmt::format("family {}, chosen by --queue{}", f,
                                  f == 0 ? " (blade's family 0)" : " (NOT blade's family 0)");
        return;
    }
    const char* wanted = choice.kind == K::Gfx       ? "no family with graphics and compute"
                         : choice.kind == K::Compute ? "no compute-only family"
                                                     : "no such family with compute";
    throw CannotTest(fmt::format("--queue {}: the device has {} (families: {})",
                                 choice.kind == K::Index ? std::to_string(choice.index)
                                 : choice.kind == K::Gfx ? std::string("gfx")
                                                         : std::string("compute"),
                                 wanted, families()));
}

vk::DeviceInfo selectDevice(const vk::Instance& instance, const std::vector<vk::DeviceInfo>& devices, const Options& o,
                            std::vector<std::string>& notes) {
    const vk::DeviceInfo* chosen = nullptr;
    try {
        chosen = &vk::chooseDevice(devices, o.device);
    } catch (const CannotTest& e) {
        throw CannotTest(std::string(e.what()) + loaderSays(instance));
    }
    if (o.expectDriver) checkExpectedBeforeDevice(instance, devices, *o.expectDriver, *chosen);
    // A driver that failed to load is in the header's notes too, not only in the JSON
    // report's loader.problems: one line for each of the loader's own messages.
    for (const auto& problem : loaderProblems(instance.loaderMessages())) {
        notes.push_back("the Vulkan loader reports: " + problem);
    }
    std::set<std::string> drivers;
    for (const auto& d : devices) {
        if (d.unusable.empty()) drivers.insert(driverOf(d));
    }
    if (!o.device && drivers.size() > 1) {
        notes.push_back(
            fmt::format("{} drivers offer a usable device ({}); took device {} ({}), blade's rule: the "
                        "first usable one; use --device or --expect-driver to choose",
                        drivers.size(), deviceList(devices), chosen->index, chosen->properties.deviceName));
    }
    if (o.queue.kind != QueueChoice::Kind::Default && o.profile == Profile::BladeExact) {
        throw UsageError("--queue: --profile blade-exact records on queue family 0, as blade does");
    }
    vk::DeviceInfo device = *chosen;
    applyQueueChoice(device, o.queue);
    return device;
}

void checkExpectedDriver(const Options& o, const DeviceReport& d) {
    if (!o.expectDriver) return;
    if (matchesDriver(*o.expectDriver, d.driverName, d.driverId, d.driverLibrary.value_or(""))) return;
    throw CannotTest(fmt::format("--expect-driver {}: the device runs on {} ({}, library {})", quote(*o.expectDriver),
                                 d.driverName, d.driverId, d.driverLibrary ? quote(*d.driverLibrary) : "unknown"));
}

LoaderReport describeLoader(const vk::Instance& instance) {
    const auto& log = instance.loaderMessages();
    return {.version = vk::apiVersionText(instance.loaderVersion()),
            .driverLibraries = driverLibraries(log),
            .problems = loaderProblems(log)};
}

int listDevices(const vk::Instance& instance, const std::vector<vk::DeviceInfo>& devices, const Options& o) {
    printDeviceList(devices);
    if (o.format == Format::Text && !o.json) return kExitNotReproduced;
    std::vector<ListedDevice> listed;
    for (const auto& d : devices) {
        listed.push_back(
            {.index = d.index,
             .deviceName = d.properties.deviceName,
             .deviceType = vk::deviceTypeName(d.properties.deviceType),
             .apiVersion = vk::apiVersionText(d.apiVersion()),
             .driverName = d.hasDriverProperties ? std::optional<std::string>(d.driver.driverName) : std::nullopt,
             .driverInfo = d.hasDriverProperties ? std::optional<std::string>(d.driver.driverInfo) : std::nullopt,
             .driverId = d.hasDriverProperties ? std::optional(vk::driverIdName(d.driver.driverID)) : std::nullopt,
             .driverVersion = vk::driverVersionText(d),
             .unusable = d.unusable});
    }
    const std::string document = renderDeviceListJson(kReproVersion, kReproGitHash, describeLoader(instance), listed);
    bool written = true;
    if (o.format == Format::Json) written = emitFormatDocument(o, "the device list", document);
    if (o.format == Format::Markdown)
        written = emitFormatDocument(o, "the device list", renderDeviceListMarkdown(listed));
    written = emitJsonFile(o, "the device list", document) && written;
    return written ? kExitNotReproduced : kExitUsage;
}

std::string loaderVersionText() {
    if (volkInitialize() != VK_SUCCESS) return "no loader (libvulkan.so.1 could not be loaded)";
    if (vkEnumerateInstanceVersion == nullptr) return "1.0 (the loader has no vkEnumerateInstanceVersion)";
    uint32_t version = 0;
    const VkResult result = vkEnumerateInstanceVersion(&version);
    if (result != VK_SUCCESS)
        return fmt::format("unknown (vkEnumerateInstanceVersion returned {})", vk::resultName(result));
    return vk::apiVersionText(version);
}

}  // namespace repro
