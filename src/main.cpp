// repro: reproduces blade issue #356, a GPU-driver synchronization bug, with raw Vulkan.
//
// The story: options -> device -> buffers and pipelines -> record and run each mode ->
// check -> report -> exit status (SPEC §5). Results are printed and flushed as each mode
// finishes, so a hang or crash in a later mode cannot lose them.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/cpu_reference.hpp"
#include "core/interrupt.hpp"
#include "core/options.hpp"
#include "core/shape.hpp"
#include "core/stats.hpp"
#include "core/verdict.hpp"
#include "output.hpp"
#include "repro_version.h"
#include "session.hpp"
#include "vk/chain.hpp"
#include "vk/check.hpp"
#include "vk/describe.hpp"
#include "vk/device.hpp"
#include "vk/encoder.hpp"
#include "vk/memory.hpp"
#include "vk/pipeline.hpp"

extern const uint32_t conv_t_spv[];
extern const size_t conv_t_spv_words;
extern const uint32_t slice_spv[];
extern const size_t slice_spv_words;

namespace repro {
namespace {

void printDeviceList(const std::vector<vk::DeviceInfo>& devices) {
    if (devices.empty()) say("no Vulkan devices");
    for (const auto& d : devices) {
        say("{}: {} [{}, Vulkan {}, {} {}] {}", d.index, d.properties.deviceName,
            vk::deviceTypeName(d.properties.deviceType), vk::apiVersionText(d.apiVersion()),
            d.hasDriverProperties ? d.driver.driverName : "driver", 
            d.hasDriverProperties ? d.driver.driverInfo : vk::driverVersionText(d),
            d.unusable.empty() ? "usable" : "NOT usable: " + d.unusable);
    }
}

void printDevice(const vk::Device& device) {
    const vk::DeviceInfo& d = device.info();
    say("Device: {}", d.properties.deviceName);
    if (d.hasDriverProperties) {
        say("  driver: driverName {} | driverInfo {} | driverID {} | driverVersion {} (0x{:x})",
            d.driver.driverName, d.driver.driverInfo, vk::driverIdName(d.driver.driverID),
            vk::driverVersionText(d), d.properties.driverVersion);
        const auto& c = d.driver.conformanceVersion;
        say("  Vulkan {} | vendorID 0x{:04x} deviceID 0x{:04x} | {} | conformance {}.{}.{}.{}",
            vk::apiVersionText(d.apiVersion()), d.properties.vendorID, d.properties.deviceID,
            vk::deviceTypeName(d.properties.deviceType), c.major, c.minor, c.subminor, c.patch);
    } else {
        say("  driverVersion {} (0x{:x}) | Vulkan {} | vendorID 0x{:04x} deviceID 0x{:04x} | {}",
            vk::driverVersionText(d), d.properties.driverVersion, vk::apiVersionText(d.apiVersion()),
            d.properties.vendorID, d.properties.deviceID, vk::deviceTypeName(d.properties.deviceType));
    }
    say("  deviceUUID {} driverUUID {}", vk::uuidText(d.ids.deviceUUID), vk::uuidText(d.ids.driverUUID));
    say("  queue: {} ({})", d.queueNote, vk::queueFlagsText(d.queueFamilies[device.queueFamily()].queueFlags));
    say("  extensions: {}", join(device.enabledExtensions()));
    say("  features: {}", join(device.enabledFeatures()));
}

void printMemory(const vk::Device& device, const vk::ChainBuffers& buffers) {
    const auto& props = device.info().memory;
    std::vector<std::string> parts;
    auto describeClass = [&](const vk::Buffer& b) {
        const auto& type = props.memoryTypes[b.memoryType];
        parts.push_back(fmt::format("{} -> type {} ({}) heap {} ({} MiB)", vk::name(b.memoryClass),
                                    b.memoryType, vk::memoryFlagsText(type.propertyFlags),
                                    type.heapIndex, props.memoryHeaps[type.heapIndex].size >> 20));
    };
    describeClass(buffers.big.front());  // Device
    describeClass(buffers.weight);       // Shared
    say("  memory: {}", join(parts, "; "));
}

// Device limits the shapes must fit (exit 1: the values are impossible on this device)
// and the memory the chain needs (exit 125: not enough device memory).
void checkDeviceFits(const vk::DeviceInfo& d, const ChainSizes& sizes, uint32_t n) {
    const auto& limits = d.properties.limits;
    const std::pair<const std::array<uint32_t, 3>&, const char*> dispatches[] = {
        {sizes.convWorkgroups, "conv-T"}, {sizes.sliceWorkgroups, "slice"}};
    for (const auto& [groups, what] : dispatches) {
        for (int axis = 0; axis < 3; ++axis) {
            if (groups[axis] > limits.maxComputeWorkGroupCount[axis]) {
                throw UsageError(fmt::format(
                    "shape: {} dispatch [{}, {}, {}] exceeds the device's maxComputeWorkGroupCount "
                    "[{}, {}, {}] in axis {}",
                    what, groups[0], groups[1], groups[2], limits.maxComputeWorkGroupCount[0],
                    limits.maxComputeWorkGroupCount[1], limits.maxComputeWorkGroupCount[2], axis));
            }
        }
    }
    if (sizes.bigBytes > limits.maxStorageBufferRange) {
        throw vk::CannotTest(fmt::format("a big buffer is {} bytes, over the device's "
                                         "maxStorageBufferRange {}",
                                         sizes.bigBytes, limits.maxStorageBufferRange));
    }
    const uint64_t allocations = 2 * uint64_t{n} + 4;
    if (allocations > limits.maxMemoryAllocationCount) {
        throw vk::CannotTest(fmt::format("-n {} needs {} memory allocations, over the device's "
                                         "maxMemoryAllocationCount {}",
                                         n, allocations, limits.maxMemoryAllocationCount));
    }
    // Bytes per heap, with each class placed where blade's rules would put it.
    std::vector<uint64_t> need(d.memory.memoryHeapCount, 0);
    const ChainMemory memory = chainMemory(sizes, n);
    for (const auto& [cls, bytes] : {std::pair{vk::MemoryClass::Device, memory.deviceBytes},
                                     std::pair{vk::MemoryClass::Shared, memory.sharedBytes}}) {
        if (auto type = vk::chooseMemoryType(d.memory, ~0u, cls)) {
            uint64_t& heap = need[d.memory.memoryTypes[*type].heapIndex];
            heap = bytes > UINT64_MAX - heap ? UINT64_MAX : heap + bytes;
        }
    }
    for (uint32_t h = 0; h < need.size(); ++h) {
        if (need[h] > d.memory.memoryHeaps[h].size) {
            throw vk::CannotTest(fmt::format(
                "not enough device memory: the chain needs {} MiB in heap {}, which holds {} MiB "
                "(try a smaller -n or --preset)",
                need[h] >> 20, h, d.memory.memoryHeaps[h].size >> 20));
        }
    }
}

// Makes sure --dump-dir exists and is a directory before any GPU work starts.
void prepareDumpDir(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir)) {
        throw UsageError(fmt::format("--dump-dir: cannot use '{}' as a directory ({})", dir,
                                     ec ? ec.message() : "not a directory"));
    }
}

int run(const Options& options) {
    const ChainSizes sizes = computeSizes(options.shape);
    const uint32_t n = options.chainLength;

    vk::Instance instance(options.validation);
    const auto devices = vk::enumerateDevices(instance);
    if (options.listDevices) {
        printDeviceList(devices);
        return kExitNotReproduced;
    }
    const vk::DeviceInfo& chosen = vk::chooseDevice(devices, options.device);
    if (options.dumpDir) prepareDumpDir(*options.dumpDir);
    checkDeviceFits(chosen, sizes, n);

    say("repro {} (git {}): blade issue #356, conv-T + slice chain", kReproVersion, kReproGitHash);
    vk::Device device(instance, chosen);
    printDevice(device);

    const auto convT = vk::createComputePipeline(
        device, "conv_t", std::span(conv_t_spv, conv_t_spv_words), 4);
    const auto slice = vk::createComputePipeline(
        device, "slice", std::span(slice_spv, slice_spv_words), 3);
    const std::vector<float> input = makeInput(sizes);
    const std::vector<float> weight = makeWeight(sizes);
    const vk::ChainBuffers buffers =
        vk::createChainBuffers(device, options.shape, sizes, n, input, weight,
                               /*withStaging=*/options.checkSteps || options.sweep.has_value());
    vk::Encoder encoder(device);
    printMemory(device, buffers);
    // Declared last, destroyed first: nothing above is destroyed while the GPU may use it.
    struct IdleBeforeTeardown {
        const vk::Device& device;
        ~IdleBeforeTeardown() {
            if (!device.abandoned()) vkDeviceWaitIdle(device.get());
        }
    } idleGuard{device};

    say("small={} big={} (each conv-T writes {} elems = {} MiB)", sizes.smallElems, sizes.bigElems,
        sizes.bigElems, sizes.bigElems * 4 / 1024 / 1024);
    if (options.sweep) {
        say("Chaining {}..{} conv-T + slice ops (sweep)", options.sweep->first, options.sweep->second);
    } else {
        say("Chaining {} conv-T + slice ops", n);
    }
    say("conv-T wgs=[{}, {}, {}], slice wgs=[{}, {}, {}]", sizes.convWorkgroups[0],
        sizes.convWorkgroups[1], sizes.convWorkgroups[2], sizes.sliceWorkgroups[0],
        sizes.sliceWorkgroups[1], sizes.sliceWorkgroups[2]);
    const bool cpuDevice = chosen.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    say("  shape: preset {}: {}; timeout per submit: {}", options.preset, describe(options.shape),
        options.timeoutSeconds
            ? fmt::format("{} s", *options.timeoutSeconds)
            : fmt::format("auto ({:.0f} s for one conv-T, {:.0f} s for {})",
                          submitTimeoutSeconds(std::nullopt, options.shape, 1, cpuDevice),
                          submitTimeoutSeconds(std::nullopt, options.shape, n, cpuDevice), n));
    if (options.dropDispatch) {
        const uint32_t k = *options.dropDispatch;
        say("  POSITIVE CONTROL: dispatch {} (step {} {}) is left out of multipass and single; "
            "the checker must report them wrong",
            k, (k + 1) / 2, k % 2 ? "conv-T" : "slice");
    }

    if (options.reference == ReferenceKind::None) {
        say("  reference: none: zero and non-finite checks only (the original's semantics)");
    }
    vk::Chain chain{device,  encoder, buffers, convT, slice, sizes, n, options.shape,
                    options.timeoutSeconds, options.dropDispatch};
    Session session{options, sizes, instance, device, chain};
    return options.sweep ? runSweep(session) : runChainLength(session);
}

}  // namespace
}  // namespace repro

int main(int argc, char** argv) {
    using namespace repro;
    const char* envChain = std::getenv("N");
    ParseOutcome parsed = parseCommandLine(argc, argv, envChain ? std::optional<std::string_view>(envChain)
                                                                : std::nullopt);
    if (!parsed.options) {
        if (!parsed.out.empty()) fmt::print("{}", parsed.out);
        if (!parsed.err.empty()) fmt::print(stderr, "{}\n", parsed.err);
        return parsed.exitStatus;
    }
    installInterruptHandlers();
    try {
        return run(*parsed.options);
    } catch (const UsageError& e) {
        fmt::print(stderr, "repro: {}\n", e.what());
        return kExitUsage;
    } catch (const vk::CannotTest& e) {
        fmt::print(stderr, "repro: cannot test here: {}\n", e.what());
        return kExitCannotTest;
    } catch (const vk::VulkanError& e) {
        if (e.result == VK_ERROR_DEVICE_LOST) {
            fmt::print(stderr, "repro: GPU hang during set-up: {}\n", e.what());
            return kExitHang;
        }
        fmt::print(stderr, "repro: cannot test here: {}\n", e.what());
        return kExitCannotTest;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "repro: cannot test here: out of host memory\n");
        return kExitCannotTest;
    } catch (const std::exception& e) {
        fmt::print(stderr, "repro: cannot test here: internal error: {}\n", e.what());
        return kExitCannotTest;
    }
}
