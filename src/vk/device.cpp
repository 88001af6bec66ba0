// Logical-device creation following blade-graphics `vulkan/init.rs` at 72c30c1
// (docs/blade-stream.md "Device").
#include "vk/device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>

#include "core/errors.hpp"
#include "vk/check.hpp"
#include "vk/describe.hpp"
#include "vk/entry_points.hpp"
#include "vk/feature_structs.hpp"
#include "vk/khr_cooperative_matrix.hpp"

namespace repro::vk {
namespace {

// Every feature struct blade chains (feature_structs.hpp), with VK_TRUE for what it enables;
// linked into VkPhysicalDeviceFeatures2's chain by link() in blade's push order.
struct FeatureChain : FeatureStructs {
    VkPhysicalDeviceFeatures2 features{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};

    void enableAll() {
        timeline.timelineSemaphore = VK_TRUE;
        rendering.dynamicRendering = VK_TRUE;
        inlineBlock.inlineUniformBlock = VK_TRUE;
        // blade turns binding arrays on where all three exist (init.rs:1026-1035).
        indexing.shaderSampledImageArrayNonUniformIndexing = VK_TRUE;
        indexing.shaderStorageBufferArrayNonUniformIndexing = VK_TRUE;
        indexing.descriptorBindingPartiallyBound = VK_TRUE;
        bda.bufferDeviceAddress = VK_TRUE;
        f16.shaderFloat16 = VK_TRUE;
        // With an f16 tile (init.rs:1071-1078).
        storage16.storageBuffer16BitAccess = VK_TRUE;
        storage16.uniformAndStorageBuffer16BitAccess = VK_TRUE;
        // With any tile (init.rs:1080-1094): not cooperativeMatrixRobustBufferAccess.
        coopMatrix.cooperativeMatrix = VK_TRUE;
        // vulkanMemoryModel alone, not vulkanMemoryModelDeviceScope (init.rs:1080-1094).
        memoryModel.vulkanMemoryModel = VK_TRUE;
        exec.pipelineExecutableInfo = VK_TRUE;
        fault.deviceFault = VK_TRUE;
        sync2.synchronization2 = VK_TRUE;
    }

    // ash's push_next prepends, so blade's chain runs in reverse push order; linked here
    // in blade's push order (init.rs:1017-1125). The structs must not move afterwards.
    VkPhysicalDeviceFeatures2* link(const EnabledFeatures& on) {
        enableAll();
        void* chain = nullptr;
        prependIf(chain, timeline, on.timelineSemaphore);
        prependIf(chain, rendering, on.dynamicRendering);
        prependIf(chain, inlineBlock, on.inlineUniformBlock);
        prependIf(chain, indexing, on.bindingArray);
        prependIf(chain, bda, on.bufferDeviceAddress);
        prependIf(chain, f16, on.shaderFloat16);
        prependIf(chain, storage16, on.storage16Bit);
        prependIf(chain, coopMatrix, on.cooperativeMatrix);
        prependIf(chain, memoryModel, on.vulkanMemoryModel);
        prependIf(chain, exec, on.pipelineExecutableInfo);
        prependIf(chain, fault, on.deviceFault);
        prependIf(chain, sync2, on.synchronization2);
        features.pNext = chain;
        features.features.dualSrcBlend = on.dualSrcBlend ? VK_TRUE : VK_FALSE;
        return &features;
    }
};

// The checks that make the device unable to run the chosen options (CannotTest).
void checkOptionsFit(const DeviceInfo& info, const DeviceOptions& options) {
    if (options.synchronization2 && !info.supported.synchronization2) {
        throw CannotTest(
            "--barrier sync2/full need the synchronization2 feature (Vulkan 1.3 or "
            "VK_KHR_synchronization2), which this device lacks");
    }
    if (options.profile.queueFamilyZeroAlways && *info.queueFamily != 0) {
        throw CannotTest(
            fmt::format("--profile blade-exact: blade records on queue family 0, which "
                        "has no compute here ({})",
                        info.queueNote));
    }
    const CooperativeMatrixTiles& tiles = info.supported.cooperativeMatrixTiles;
    if (options.profile.cooperativeMatrix && tiles.f16Tile > 0 && !info.supported.uniformAndStorageBuffer16BitAccess) {
        // blade checks only storageBuffer16BitAccess (init.rs:515-516) but enables both
        // (init.rs:1071-1078), so its own vkCreateDevice would be asking for a missing feature.
        throw CannotTest(
            fmt::format("--profile blade-exact: blade's f16 cooperative-matrix tile ({}) makes it enable "
                        "uniformAndStorageBuffer16BitAccess, which this device lacks (blade's own "
                        "vkCreateDevice would fail here)",
                        tiles.f16Tile));
    }
}

bool withCoopMatrix(const DeviceInfo& info, const DeviceOptions& options) {
    return options.profile.cooperativeMatrix && info.supported.cooperativeMatrixTiles.supported();
}

}  // namespace

std::vector<const char*> EnabledExtensions::names() const {
    const std::pair<bool, const char*> all[] = {
        {timelineSemaphore, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME},
        {descriptorUpdateTemplate, VK_KHR_DESCRIPTOR_UPDATE_TEMPLATE_EXTENSION_NAME},
        {dynamicRendering, VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME},
        {inlineUniformBlock, VK_EXT_INLINE_UNIFORM_BLOCK_EXTENSION_NAME},
        {descriptorIndexing, VK_EXT_DESCRIPTOR_INDEXING_EXTENSION_NAME},
        {bufferDeviceAddress, VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME},
        {amdBufferMarker, VK_AMD_BUFFER_MARKER_EXTENSION_NAME},
        {amdShaderInfo, VK_AMD_SHADER_INFO_EXTENSION_NAME},
        {pipelineExecutableProperties, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME},
        {externalMemory, VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME},
        {externalMemoryFd, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME},
        {externalMemoryHost, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME},
        {cooperativeMatrix, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME},
        {vulkanMemoryModel, VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME},
        {memoryBudget, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME},
        {deviceFault, VK_EXT_DEVICE_FAULT_EXTENSION_NAME},
        {synchronization2, VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME},
        {calibratedTimestamps, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME},
    };
    std::vector<const char*> out;
    for (const auto& [on, name] : all) {
        if (on) out.push_back(name);
    }
    return out;
}

std::vector<std::string> EnabledFeatures::names() const {
    const std::pair<bool, const char*> all[] = {
        {dualSrcBlend, "dualSrcBlend"},
        {timelineSemaphore, "timelineSemaphore"},
        {dynamicRendering, "dynamicRendering"},
        {inlineUniformBlock, "inlineUniformBlock"},
        {bindingArray,
         "shaderStorageBufferArrayNonUniformIndexing+"
         "shaderSampledImageArrayNonUniformIndexing+descriptorBindingPartiallyBound"},
        {bufferDeviceAddress, "bufferDeviceAddress"},
        {shaderFloat16, "shaderFloat16"},
        {storage16Bit, "storageBuffer16BitAccess+uniformAndStorageBuffer16BitAccess"},
        {cooperativeMatrix, "cooperativeMatrix"},
        {vulkanMemoryModel, "vulkanMemoryModel"},
        {pipelineExecutableInfo, "pipelineExecutableInfo"},
        {deviceFault, "deviceFault (repro's query after a lost device; not blade's)"},
        {synchronization2, "synchronization2 (--barrier; not blade's)"},
    };
    std::vector<std::string> out;
    for (const auto& [on, name] : all) {
        if (on) out.emplace_back(name);
    }
    return out;
}

// blade's extension list (init.rs:933-998): the three it requires, then the optional ones
// the device lists.
EnabledExtensions chooseExtensions(const DeviceInfo& info, const DeviceOptions& options, bool coopWithheld) {
    const bool v12 = info.apiVersion() >= VK_API_VERSION_1_2;
    const bool v13 = info.apiVersion() >= VK_API_VERSION_1_3;
    auto has = [&](const char* name) { return info.hasExtension(name); };
    const bool coop = withCoopMatrix(info, options);  // a tile implies both are listed
    const bool externalPair =
        has(VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME) && has(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    return EnabledExtensions{
        .timelineSemaphore = has(VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME),
        .descriptorUpdateTemplate = has(VK_KHR_DESCRIPTOR_UPDATE_TEMPLATE_EXTENSION_NAME),
        .dynamicRendering = has(VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME),
        .inlineUniformBlock = info.supported.inlineUniformBlock && has(VK_EXT_INLINE_UNIFORM_BLOCK_EXTENSION_NAME),
        .descriptorIndexing = !v12 && has(VK_EXT_DESCRIPTOR_INDEXING_EXTENSION_NAME),
        .bufferDeviceAddress = !v12 && has(VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME),
        .amdBufferMarker = has(VK_AMD_BUFFER_MARKER_EXTENSION_NAME),
        .amdShaderInfo = has(VK_AMD_SHADER_INFO_EXTENSION_NAME),
        .pipelineExecutableProperties = has(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME),
        .externalMemory = externalPair,
        .externalMemoryFd = externalPair,
        .externalMemoryHost = has(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME),
        .cooperativeMatrix = coop && !coopWithheld && has(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME),
        .vulkanMemoryModel = coop && !v12 && has(VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME),
        .memoryBudget = has(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME),
        .deviceFault = options.deviceFault && info.supported.deviceFault && has(VK_EXT_DEVICE_FAULT_EXTENSION_NAME),
        .synchronization2 = options.synchronization2 && !v13 && has(VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME),
        .calibratedTimestamps = options.calibratedTimestamps && has(VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME),
    };
}

EnabledFeatures chooseFeatures(const DeviceInfo& info, const DeviceOptions& options, bool coopWithheld) {
    const SupportedFeatures& s = info.supported;
    const bool coop = withCoopMatrix(info, options);
    return EnabledFeatures{
        .dualSrcBlend = s.dualSrcBlend,
        .inlineUniformBlock = s.inlineUniformBlock,
        .bindingArray = options.profile.bindingArrayFeatures && s.bindingArray,
        .bufferDeviceAddress = s.bufferDeviceAddress,
        // blade: shaderFloat16 where supported or where the f16 tile is > 0 (init.rs:538,
        // 1064-1070); a tile needs shaderFloat16 supported, so that is "where supported".
        .shaderFloat16 = s.shaderFloat16,
        .storage16Bit = coop && s.cooperativeMatrixTiles.f16Tile > 0,
        .cooperativeMatrix = coop && !coopWithheld,
        .vulkanMemoryModel = coop,
        .pipelineExecutableInfo =
            s.pipelineExecutableInfo && info.hasExtension(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME),
        .deviceFault = options.deviceFault && s.deviceFault,
        .synchronization2 = options.synchronization2,
    };
}

std::vector<std::string> omittedFeatures(const DeviceInfo& info, const DeviceOptions& options, bool coopWithheld,
                                         uint32_t layerSpec) {
    const CooperativeMatrixTiles& tiles = info.supported.cooperativeMatrixTiles;
    const bool profile = options.profile.cooperativeMatrix;
    std::vector<std::string> omitted;
    if (!withCoopMatrix(info, options)) {
        omitted.push_back(fmt::format(
            "cooperativeMatrix + vulkanMemoryModel (blade: with an 8x8 or 16x16 tile; {})",
            !profile && tiles.supported() ? "only with --profile blade-exact" : info.cooperativeMatrixNote));
    } else if (coopWithheld) {
        omitted.push_back(
            fmt::format("VK_KHR_cooperative_matrix + cooperativeMatrix (blade: f32 tile {}, f16 tile {}; "
                        "withheld: the validation layer {}.{}.{} predates the extension (1.3.255) and fails "
                        "vkCreateDevice with its feature struct; run without --validation to get it)",
                        tiles.f32Tile, tiles.f16Tile, VK_API_VERSION_MAJOR(layerSpec), VK_API_VERSION_MINOR(layerSpec),
                        VK_API_VERSION_PATCH(layerSpec)));
    }
    if (!(withCoopMatrix(info, options) && tiles.f16Tile > 0)) {
        const std::string why = !profile && tiles.f16Tile > 0 ? "only with --profile blade-exact"
                                : tiles.supported() ? fmt::format("device has an f32 tile ({}) only", tiles.f32Tile)
                                                    : info.cooperativeMatrixNote;
        omitted.push_back(
            fmt::format("storageBuffer16BitAccess+uniformAndStorageBuffer16BitAccess (blade: with an f16 "
                        "cooperative-matrix tile; {})",
                        why));
    }
    omitted.push_back("unifiedImageLayouts");
    if (!(options.profile.bindingArrayFeatures && info.supported.bindingArray)) {
        omitted.push_back("descriptor-indexing features (blade: binding arrays)");
    }
    return omitted;
}

namespace {

// Whether family `f` runs commands that need `needs` (transfer commands run on any graphics or
// compute family: Vulkan spec "Queues").
bool supports(const VkQueueFamilyProperties& f, VkQueueFlags needs) {
    if (needs & VK_QUEUE_COMPUTE_BIT) return (f.queueFlags & VK_QUEUE_COMPUTE_BIT) != 0;
    return (f.queueFlags & (VK_QUEUE_TRANSFER_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT)) != 0;
}

// One VkDeviceQueueCreateInfo per family used: the main queue and the extra ones not fallen
// back, all at priority 1.0.
std::vector<VkDeviceQueueCreateInfo> queueCreateInfos(uint32_t mainFamily, const std::vector<ExtraQueue>& extra) {
    static const std::vector<float> kPriorities(64, 1.0f);
    std::map<uint32_t, uint32_t> counts{{mainFamily, 1}};
    for (const ExtraQueue& q : extra) {
        if (!q.fallback) counts[q.family] = std::max(counts[q.family], q.index + 1);
    }
    std::vector<VkDeviceQueueCreateInfo> out;
    for (const auto& [family, count] : counts) {
        out.push_back({.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                       .queueFamilyIndex = family,
                       .queueCount = std::min<uint32_t>(count, 64),
                       .pQueuePriorities = kPriorities.data()});
    }
    return out;
}

}  // namespace

std::vector<ExtraQueue> chooseExtraQueues(const std::vector<VkQueueFamilyProperties>& families, uint32_t mainFamily,
                                          const std::vector<ExtraQueueRequest>& requests) {
    std::vector<uint32_t> taken(families.size(), 0);
    if (mainFamily < taken.size()) taken[mainFamily] = 1;
    const auto left = [&](uint32_t f) { return taken[f] < std::min<uint32_t>(families[f].queueCount, 64); };
    std::vector<ExtraQueue> out;
    for (const ExtraQueueRequest& r : requests) {
        std::optional<uint32_t> family;
        for (uint32_t f = 0; r.otherFamily && !family && f < families.size(); ++f) {
            if (f != mainFamily && supports(families[f], r.needs) && left(f)) family = f;
        }
        const std::string flags =
            queueFlagsText(r.needs & VK_QUEUE_COMPUTE_BIT ? VK_QUEUE_COMPUTE_BIT : VK_QUEUE_TRANSFER_BIT);
        std::string why = r.otherFamily ? fmt::format("no family besides {} runs {} commands with a queue to spare; ",
                                                      mainFamily, flags)
                                        : "";
        if (!family && mainFamily < families.size() && left(mainFamily)) family = mainFamily;
        if (!family) {
            const uint32_t count = mainFamily < families.size() ? families[mainFamily].queueCount : 0;
            out.push_back({.family = mainFamily,
                           .index = 0,
                           .fallback = true,
                           .note = fmt::format("falls back to the main queue ({}family {} has {} queue{} and every "
                                               "one is taken)",
                                               why, mainFamily, count, count == 1 ? "" : "s")});
            continue;
        }
        const uint32_t index = taken[*family]++;
        const bool instead = r.otherFamily && *family == mainFamily;
        out.push_back(
            {.family = *family,
             .index = index,
             .otherFamily = *family != mainFamily,
             .note = fmt::format("family {} ({}), queue {}{}", *family, queueFlagsText(families[*family].queueFlags),
                                 index, instead ? " (" + why + "a second queue of the main family instead)" : "")});
    }
    return out;
}

Device::Device(const Instance& instance, const DeviceInfo& info, const DeviceOptions& options) : info_(info) {
    checkOptionsFit(info, options);
    // A validation layer generated from headers older than the extension rejects
    // VkPhysicalDeviceCooperativeMatrixFeaturesKHR in vkCreateDevice's pNext
    // (VUID-VkDeviceCreateInfo-pNext-pNext, "unknown VkStructureType") and then fails the
    // call with VK_ERROR_VALIDATION_FAILED_EXT (Vulkan-ValidationLayers v1.3.239
    // layers/generated/parameter_validation.cpp:5483, layers/stateless_validation.h:565-572,
    // layers/generated/chassis.cpp:439-440). There the extension and its struct are
    // withheld; the rest of blade's set stays.
    const uint32_t layerSpec = instance.validationLayerSpecVersion();
    const bool coopWithheld = withCoopMatrix(info, options) && layerSpec != 0 && layerSpec < kCoopMatrixHeaderVersion;
    extensions_ = chooseExtensions(info, options, coopWithheld);
    features_ = chooseFeatures(info, options, coopWithheld);
    omitted_ = vk::omittedFeatures(info, options, coopWithheld, layerSpec);

    queueFamily_ = *info.queueFamily;
    extraQueues_ = chooseExtraQueues(info.queueFamilies, queueFamily_, options.extraQueues);
    const std::vector<VkDeviceQueueCreateInfo> queueInfos = queueCreateInfos(queueFamily_, extraQueues_);
    FeatureChain chain;
    const std::vector<const char*> names = extensions_.names();
    const VkDeviceCreateInfo createInfo{
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = chain.link(features_),
        .queueCreateInfoCount = static_cast<uint32_t>(queueInfos.size()),
        .pQueueCreateInfos = queueInfos.data(),
        .enabledExtensionCount = static_cast<uint32_t>(names.size()),
        .ppEnabledExtensionNames = names.data(),
        .pEnabledFeatures = nullptr,  // blade chains VkPhysicalDeviceFeatures2 instead
    };
    const VkResult r = vkCreateDevice(info.handle, &createInfo, nullptr, &life_.device);
    if (r != VK_SUCCESS) throw VulkanError("vkCreateDevice", r);
    volkLoadDevice(life_.device);
    // Every entry point repro calls, promoted ones from their KHR aliases where the core
    // name is missing (a 1.0 or 1.2 driver): CannotTest naming one that is not there.
    resolveDeviceEntryPoints(extensions_, features_.synchronization2);
    if (options.afterLoad) options.afterLoad();
    afterVolkLoad(2);
    vkGetDeviceQueue(life_.device, queueFamily_, 0, &queue_);
    for (ExtraQueue& q : extraQueues_) vkGetDeviceQueue(life_.device, q.family, q.index, &q.queue);
    debugUtils_ = instance.hasDebugUtils();
}

Device::~Device() {
    if (life_.device == VK_NULL_HANDLE || life_.abandoned) return;
    vkDestroyDevice(life_.device, nullptr);
}

namespace {
std::atomic<bool> gAbandoned{false};
}  // namespace

void noteDeviceAbandoned() { gAbandoned.store(true); }

bool deviceAbandoned() { return gAbandoned.load(); }

}  // namespace repro::vk
