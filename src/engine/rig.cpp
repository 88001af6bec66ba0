// One process's set-up (see engine/rig.hpp).
#include "engine/rig.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <span>

#include "core/clock.hpp"
#include "reference/cpu_reference.hpp"
#include "core/parallel.hpp"
#include "repro_shared.h"
#include "vk/check.hpp"
#include "vk/describe.hpp"
#include "vk/device_report.hpp"
#include "vk/embedded_spirv.hpp"
#include "vk/trace.hpp"
#include "vk/watch.hpp"

namespace repro {
namespace {

ShaderSource shaderSource(const Options& options, const ProfileSettings& profile, const char* file,
                          std::span<const uint32_t> builtIn, std::span<const uint32_t> builtInNaga,
                          std::array<uint32_t, 3> localSize, uint32_t bindings) {
    ShaderSource source;
    if (options.spirvDir) {
        const auto path = std::filesystem::path(*options.spirvDir) / file;
        source.module = loadSpirvFile(path);
        source.origin = path.string();
    } else {
        const bool naga = profile.nagaInterface;
        const auto words = naga ? builtInNaga : builtIn;
        source.module =
            parseSpirv(std::vector<uint32_t>(words.begin(), words.end()),
                       naga ? fmt::format("built-in {} (params Uniform)", file) : fmt::format("built-in {}", file));
        source.origin = naga ? "built in, params declared Uniform and the entry point named as naga does" : "built in";
    }
    checkComputeInterface(source.module, "--spirv " + source.origin, localSize, bindings);
    return source;
}

// Descriptor types for a module's bindings: the default profile matches the SPIR-V (a
// Uniform block gets UNIFORM_BUFFER); blade-exact writes STORAGE_BUFFER for every binding,
// as blade does (pipeline.rs:224-229).
std::vector<VkDescriptorType> descriptorTypes(const SpirvModule& module, const ProfileSettings& profile) {
    std::vector<VkDescriptorType> types;
    for (const SpirvBinding& b : module.bindings) {
        types.push_back(!profile.nagaInterface && b.kind == SpirvResourceKind::UniformBuffer
                            ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                            : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    }
    return types;
}

vk::ComputePipeline makePipeline(const vk::Device& device, const char* name, const ShaderSource& source,
                                 uint32_t bindings, const ProfileSettings& profile) {
    return vk::createComputePipeline(device, name, source.module.words, bindings,
                                     {.entryPoint = source.module.entryPoint,
                                      .descriptorTypes = descriptorTypes(source.module, profile),
                                      .statistics = profile.pipelineStatistics});
}

vk::DeviceOptions deviceOptions(const Options& o, const ProfileSettings& profile) {
    return {.deviceFault = !profile.bladeExact(),  // the fault query after a lost device
            .synchronization2 = o.barrier == BarrierKind::Sync2 || o.barrier == BarrierKind::Full,
            .calibratedTimestamps = o.trace.has_value() && o.timestamps,
            .profile = profile,
            .afterLoad = o.printStream ? std::function<void()>(vk::trace::installCapture) : std::function<void()>()};
}

vk::ChainBuffers makeBuffers(const vk::Device& device, const Options& o, const ProfileSettings& profile,
                             std::future<ChainInputs>& inputs) {
    const ChainSizes sizes = computeSizes(o.shape);
    const ChainInputs made = inputs.get();
    return vk::createChainBuffers(
        device, o.shape, sizes, o.chainLength, made.input, made.weight,
        {.placement = o.memory, .profile = profile, .withStaging = o.checkSteps || o.sweep.has_value()});
}

// Adds the host time `make` takes to `seconds` and returns what it makes (guaranteed copy
// elision: the result is initialised before the timer stops, so non-movable types work).
struct ScopedTimer {
    double& seconds;
    Clock::time_point start = Clock::now();
    ~ScopedTimer() { seconds += secondsSince(start); }
};
template <typename Make>
auto timed(double& seconds, Make&& make) {
    const ScopedTimer timer{seconds};
    return make();
}

}  // namespace

std::future<ChainInputs> startChainInputs(const ChainSizes& sizes) {
    return startInBackground([sizes] { return ChainInputs{.input = makeInput(sizes), .weight = makeWeight(sizes)}; });
}

bool ShaderSource::declaresUniform() const {
    return std::any_of(module.bindings.begin(), module.bindings.end(),
                       [](const SpirvBinding& b) { return b.kind == SpirvResourceKind::UniformBuffer; });
}

ShaderSources loadShaders(const Options& options, const ProfileSettings& profile) {
    return {.convT = shaderSource(options, profile, "conv_t.spv", std::span(conv_t_spv, conv_t_spv_words),
                                  std::span(conv_t_uniform_spv, conv_t_uniform_spv_words),
                                  {REPRO_CONV_WORKGROUP_X, REPRO_CONV_WORKGROUP_Y, 1}, 4),
            .slice = shaderSource(options, profile, "slice.spv", std::span(slice_spv, slice_spv_words),
                                  std::span(slice_uniform_spv, slice_uniform_spv_words),
                                  {REPRO_SLICE_WORKGROUP_X, 1, 1}, 3)};
}

void checkDeviceFits(const vk::DeviceInfo& d, const ChainSizes& sizes, uint32_t n) {
    const auto& limits = d.properties.limits;
    const std::pair<const std::array<uint32_t, 3>&, const char*> dispatches[] = {{sizes.convWorkgroups, "conv-T"},
                                                                                 {sizes.sliceWorkgroups, "slice"}};
    for (const auto& [groups, what] : dispatches) {
        for (int axis = 0; axis < 3; ++axis) {
            if (groups[axis] <= limits.maxComputeWorkGroupCount[axis]) continue;
            throw UsageError(
                fmt::format("shape: {} dispatch [{}, {}, {}] exceeds the device's maxComputeWorkGroupCount "
                            "[{}, {}, {}] in axis {}",
                            what, groups[0], groups[1], groups[2], limits.maxComputeWorkGroupCount[0],
                            limits.maxComputeWorkGroupCount[1], limits.maxComputeWorkGroupCount[2], axis));
        }
    }
    if (sizes.bigBytes > limits.maxStorageBufferRange) {
        throw CannotTest(fmt::format("a big buffer is {} bytes, over the device's maxStorageBufferRange {}",
                                     sizes.bigBytes, limits.maxStorageBufferRange));
    }
    const uint64_t allocations = 2 * uint64_t{n} + 4;
    if (allocations > limits.maxMemoryAllocationCount) {
        throw CannotTest(
            fmt::format("-n {} needs {} memory allocations, over the device's "
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
        if (need[h] <= d.memory.memoryHeaps[h].size) continue;
        throw CannotTest(
            fmt::format("not enough device memory: the chain needs {} MiB in heap {}, which "
                        "holds {} MiB (try a smaller -n or --preset)",
                        need[h] >> 20, h, d.memory.memoryHeaps[h].size >> 20));
    }
}

Rig::Rig(const vk::Instance& instance, const vk::DeviceInfo& chosen, const Options& o, const ShaderSources& shaders,
         PhaseTimings& timings, std::future<ChainInputs> inputs)
    : profile(profileSettings(o.profile)),
      device(timed(timings.instanceAndDevice,
                   [&] {
                       watch::detail("creating the device");
                       return vk::Device(instance, chosen, deviceOptions(o, profile));
                   })),
      convT(timed(timings.pipelines,
                  [&] {
                      watch::detail("creating the pipelines");
                      return makePipeline(device, "conv_t", shaders.convT, 4, profile);
                  })),
      slice(timed(timings.pipelines, [&] { return makePipeline(device, "slice", shaders.slice, 3, profile); })),
      buffers(timed(timings.buffersAndUpload,
                    [&] {
                        watch::detail("creating and filling the buffers");
                        return makeBuffers(device, o, profile, inputs);
                    })),
      encoder(device),
      instrumentation(timed(timings.buffersAndUpload,
                            [&] {
                                return vk::Instrumentation(
                                    device,
                                    {.timestamps = o.timestamps, .breadcrumbs = o.breadcrumbs, .labels = o.labels},
                                    o.chainLength, o.dispatchRepeat, instrumentationNotes);
                            })),
      resources{.device = device,
                .buffers = buffers,
                .convT = convT,
                .slice = slice,
                .sizes = computeSizes(o.shape),
                .shape = o.shape},
      paramsDescriptorMismatch(profile.nagaInterface &&
                               (shaders.convT.declaresUniform() || shaders.slice.declaresUniform())) {
    nameForTrace();
    if (instrumentation.labels()) nameObjects();
}

void Rig::nameForTrace() const {
    const auto name = [](auto handle, const std::string& text) { vk::trace::nameHandle(handle, text); };
    for (const vk::Buffer* b : {&buffers.convParams, &buffers.sliceParams, &buffers.weight}) name(b->get(), b->name);
    for (const auto& b : buffers.small) name(b.get(), b.name);
    for (const auto& b : buffers.big) name(b.get(), b.name);
    for (const auto* b : {&buffers.scratch, &buffers.upload, &buffers.staging}) {
        if (*b) name((*b)->get(), (*b)->name);
    }
    if (const vk::Buffer* m = instrumentation.markers()) name(m->get(), m->name);
    name(convT.pipeline.get(), "conv_t");
    name(slice.pipeline.get(), "slice");
}

Rig::~Rig() {
    // Nothing is destroyed while the GPU may still use it.
    if (!device.abandoned()) vkDeviceWaitIdle(device.get());
}

vk::WaitTimeout Rig::waitTimeout(const Options& o) const {
    return {.fixed = o.timeoutSeconds, .cpuDevice = device.info().isCpu()};
}

DeviceReport Rig::describeDevice(const std::vector<LoaderMessage>& loader) const {
    return vk::describeDevice(device, loader,
                              {&buffers.small.front(), &buffers.small.back(), &buffers.big.front(), &buffers.weight});
}

void Rig::nameObjects() const {
    auto setName = [&](VkObjectType type, uint64_t handle, const std::string& name) {
        const VkDebugUtilsObjectNameInfoEXT info{.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
                                                 .objectType = type,
                                                 .objectHandle = handle,
                                                 .pObjectName = name.c_str()};
        vkSetDebugUtilsObjectNameEXT(device.get(), &info);
    };
    auto nameBuffer = [&](const vk::Buffer& b) {
        setName(VK_OBJECT_TYPE_BUFFER, reinterpret_cast<uint64_t>(b.get()), b.name);
        if (b.memory) {  // a dedicated allocation; shared chunks hold several buffers
            setName(VK_OBJECT_TYPE_DEVICE_MEMORY, reinterpret_cast<uint64_t>(b.memory.get()), b.name + " memory");
        }
    };
    for (const vk::Buffer* b : {&buffers.convParams, &buffers.sliceParams, &buffers.weight}) nameBuffer(*b);
    for (const auto& b : buffers.small) nameBuffer(b);
    for (const auto& b : buffers.big) nameBuffer(b);
    setName(VK_OBJECT_TYPE_PIPELINE, reinterpret_cast<uint64_t>(convT.pipeline.get()), "conv_t");
    setName(VK_OBJECT_TYPE_PIPELINE, reinterpret_cast<uint64_t>(slice.pipeline.get()), "slice");
    setName(VK_OBJECT_TYPE_COMMAND_BUFFER, reinterpret_cast<uint64_t>(encoder.cmd()), "repro");
}

}  // namespace repro
