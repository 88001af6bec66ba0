// A scenario's pipelines and buffers (vk/scenario_resources.hpp).
#include "vk/scenario_resources.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <span>
#include <utility>

#include "core/errors.hpp"
#include "reference/host_read.hpp"
#include "scenario/scenario_cpu.hpp"
#include "scenario/stress.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/embedded_spirv.hpp"
#include "vk/trace.hpp"

namespace repro::vk {
namespace sc = repro::scenario;

const ComputePipeline& ScenarioPipelines::forDispatch(const sc::Dispatch& d) const {
    const sc::Kernel k = d.kernel;
    if (!d.user.empty()) return user.at(d.user);
    if (k == sc::Kernel::ImageIncrement) return imageIncrement;
    if (k == sc::Kernel::ImageCopy) return imageCopy.at(d.imageFormat);
    if (k == sc::Kernel::PrivateArray) return privateArray.at(d.privateWords);
    if (k == sc::Kernel::CompareSwap) return compareSwap;
    if (k == sc::Kernel::Work) return work;
    if (k == sc::Kernel::IndirectWriter) return indirectWriter;
    if (k == sc::Kernel::ConvT) return convT;
    if (k == sc::Kernel::Slice) return slice;
    return k == sc::Kernel::Increment ? increment : k == sc::Kernel::Copy ? copy : noop;
}

// The built-in kernels the steps of `s` dispatch (not private-array, made per size below).
namespace {

std::set<sc::Kernel> usedKernels(const sc::Scenario& s) {
    std::set<sc::Kernel> used;
    for (const auto& step : s.steps) {
        const auto* d = std::get_if<sc::Dispatch>(&step.body);
        if (d && d->user.empty()) used.insert(d->kernel);
    }
    return used;
}

// Each user kernel's pipeline: its module and entry point, a STORAGE_IMAGE where the module
// declares a storage image, else a STORAGE_BUFFER, and the 16 bytes of push constants.
void makeUserPipelines(const Device& device, const sc::Scenario& s, ScenarioPipelines& out) {
    for (const sc::UserKernel& k : s.kernels) {
        PipelineOptions options{.entryPoint = k.entry, .pushConstantBytes = sizeof(sc::KernelParams)};
        for (const auto& image : k.images)
            options.descriptorTypes.push_back(image ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
                                                    : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
        const auto made = out.user.emplace(
            k.name, createComputePipeline(device, k.name, k.words, static_cast<uint32_t>(k.writes.size()), options));
        trace::nameHandle(made.first->second.pipeline.get(), k.name);
    }
}

}  // namespace

ScenarioPipelines createScenarioPipelines(const Device& device, const sc::Scenario& s, bool shuffled) {
    // Only the kernels the steps use: each pipeline is a shader compile in the driver, which a
    // run pays for before its first submit (bench/overhead.sh --scenario).
    ScenarioPipelines out;
    const std::set<sc::Kernel> used = usedKernels(s);
    // constant_id 0 the private-array's words, 1 and 2 the shuffle's seeds (0: in order)
    const auto constants = [&](uint32_t privateWords) {
        return shuffled ? std::vector<uint32_t>{privateWords, sc::kShuffleMultiplier, sc::kShuffleOffset}
                        : std::vector<uint32_t>{};
    };
    const PipelineOptions builtIn{.pushConstantBytes = sizeof(sc::KernelParams), .specialization = constants(0)};
    const auto make = [&](sc::Kernel k, ComputePipeline& into, std::span<const uint32_t> spirv, uint32_t bindings,
                          const PipelineOptions& options, const char* name = nullptr) {
        if (!used.count(k)) return;
        into = createComputePipeline(device, name ? name : std::string(sc::name(k)), spirv, bindings, options);
        trace::nameHandle(into.pipeline.get(), into.name);
    };
    make(sc::Kernel::Increment, out.increment, REPRO_SPIRV(scenario_increment), 1, builtIn);
    make(sc::Kernel::Copy, out.copy, REPRO_SPIRV(scenario_copy), 2, builtIn);
    make(sc::Kernel::Noop, out.noop, REPRO_SPIRV(scenario_noop), 1, builtIn);
    make(sc::Kernel::CompareSwap, out.compareSwap, REPRO_SPIRV(scenario_compare_swap), 1, builtIn);
    make(sc::Kernel::Work, out.work, REPRO_SPIRV(scenario_work), 1, builtIn);
    make(sc::Kernel::IndirectWriter, out.indirectWriter, REPRO_SPIRV(scenario_indirect_writer), 1, builtIn);
    // blade #356's kernels as the built-in chain makes them (engine/rig.cpp, the default profile: every
    // binding a storage buffer, no push constants), named as its pipelines are
    make(sc::Kernel::ConvT, out.convT, REPRO_SPIRV(conv_t), 4, {}, "conv_t");
    make(sc::Kernel::Slice, out.slice, REPRO_SPIRV(slice), 3, {}, "slice");
    // image-increment and image-copy (one per format the steps copy), every binding a storage image
    PipelineOptions images = builtIn;
    images.descriptorTypes.assign(2, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE);
    const std::map<sc::ImageFormat, std::span<const uint32_t>> copies{
        {sc::ImageFormat::R32ui, REPRO_SPIRV(scenario_image_copy_r32ui)},
        {sc::ImageFormat::R32f, REPRO_SPIRV(scenario_image_copy_r32f)},
        {sc::ImageFormat::Rgba8unorm, REPRO_SPIRV(scenario_image_copy_rgba8)}};
    for (const auto& step : s.steps) {
        const auto* d = std::get_if<sc::Dispatch>(&step.body);
        if (!d || !d->user.empty()) continue;
        if (d->kernel == sc::Kernel::ImageIncrement && out.imageIncrement.pipeline.get() == VK_NULL_HANDLE)
            make(d->kernel, out.imageIncrement, REPRO_SPIRV(scenario_image_increment), 1, images, "image-increment");
        if (d->kernel == sc::Kernel::ImageCopy && out.imageCopy.count(d->imageFormat) == 0)
            make(d->kernel, out.imageCopy[d->imageFormat], copies.at(d->imageFormat), 2, images,
                 fmt::format("image-copy {}", sc::name(d->imageFormat)).c_str());
    }
    for (const auto& step : s.steps) {
        const auto* d = std::get_if<sc::Dispatch>(&step.body);
        if (!d || !d->user.empty() || d->kernel != sc::Kernel::PrivateArray || out.privateArray.count(d->privateWords))
            continue;
        PipelineOptions options{.pushConstantBytes = sizeof(sc::KernelParams)};
        options.specialization = shuffled ? constants(d->privateWords) : std::vector<uint32_t>{d->privateWords};
        make(sc::Kernel::PrivateArray, out.privateArray[d->privateWords], REPRO_SPIRV(scenario_private_array), 2,
             options, fmt::format("private-array {}", d->privateWords).c_str());
    }
    makeUserPipelines(device, s, out);
    return out;
}

std::vector<uint32_t> queueFamilies(const Device& device, const sc::Scenario& s) {
    std::vector<uint32_t> out{device.queueFamily()};
    for (size_t q = 1; q < s.queues.size(); ++q) out.push_back(device.extraQueues().at(q - 1).family);
    return out;
}

namespace {

// Those families, each once, the main one first: two or more make a buffer with `sharing =
// "concurrent"` VK_SHARING_MODE_CONCURRENT among them; the others stay exclusive, and their
// queue family ownership transfers are recorded (Ownership below).
std::vector<uint32_t> familiesOf(const Device& device, const sc::Scenario& s) {
    std::vector<uint32_t> out;
    for (const uint32_t f : queueFamilies(device, s)) {
        if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
    }
    return out;
}

}  // namespace

bool startsZero(const sc::BufferSpec& spec) {
    return spec.init == sc::InitKind::Zero || spec.init == sc::InitKind::Undefined;
}

ScenarioMemory scenarioMemory(sc::Placement p) {
    if (p == sc::Placement::Shared) return {MemoryClass::Shared, BufferMemory::Blade};
    return {MemoryClass::Device,
            p == sc::Placement::HostVisible ? BufferMemory::HostVisible : BufferMemory::DeviceLocal};
}

ScenarioBuffers::ScenarioBuffers(const Device& device, const sc::Scenario& s, bool stepReadbacks)
    : s_(s), allocator_(device, false) {
    const std::vector<uint32_t> families = familiesOf(device, s);
    std::set<std::string> written;  // by a step or a host write, in any mode (writtenRanges)
    for (const auto& step : s.steps) {
        for (const sc::WrittenRange& r : sc::writtenRanges(step, s)) written.insert(r.buffer);
    }
    for (const auto& spec : s.buffers) {
        if (spec.image) {  // the image, and a host-visible staging buffer under its name
            makeImage(device, spec, spec.concurrent ? families : std::vector<uint32_t>{});
            Buffer b = allocator_.create(spec.name + " (staging)", spec.bytes, MemoryClass::Device,
                                         {.placement = BufferMemory::HostVisible});
            writeInitialWords(spec, b.mapped, spec.checked || stepReadbacks);
            buffers_.emplace(spec.name, std::move(b));
            continue;
        }
        const bool host = spec.placement != sc::Placement::DeviceLocal;  // mapped
        const ScenarioMemory memory = scenarioMemory(spec.placement);
        Buffer b = allocator_.create(spec.name, spec.bytes, memory.memoryClass,
                                     {.placement = memory.placement,
                                      .concurrentFamilies = spec.concurrent ? families : std::vector<uint32_t>{}});
        // A device-local buffer that starts as zeros is filled by the fresh-state submit; it
        // needs a twin only to be read back.
        if (!host && (!startsZero(spec) || spec.checked || stepReadbacks)) {
            // concurrent among the families: --check-steps reads back into it on a step's queue
            twins_.emplace(spec.name,
                           allocator_.create(spec.name + " (host twin)", spec.bytes, MemoryClass::Device,
                                             {.placement = BufferMemory::HostVisible, .concurrentFamilies = families}));
        }
        // kept when restore() writes them again: a host-visible buffer that something writes
        // or the host writes before each mode (init = "host"), or a twin read into
        const bool rewritten =
            host ? written.count(spec.name) || spec.init == sc::InitKind::Host : spec.checked || stepReadbacks;
        void* mapped = host ? b.mapped : twins_.count(spec.name) ? twins_.at(spec.name).mapped : nullptr;
        writeInitialWords(spec, mapped, rewritten);
        buffers_.emplace(spec.name, std::move(b));
    }
    makeChainParams();
    if (!trace::installed()) return;  // --print-stream: the lines name buffers as the file does
    for (const std::optional<Buffer>* b : {&convParams_, &sliceParams_}) {
        if (*b) trace::nameHandle((*b)->get(), (*b)->name);
    }
    for (const auto& [name, b] : buffers_) trace::nameHandle(b.get(), b.name);
    for (const auto& [name, i] : images_) {  // the image, and the view a dispatch binds
        trace::nameHandle(i.get(), name);
        if (i.view) trace::nameHandle(i.view.get(), name);
    }
    for (const auto& [name, b] : twins_) trace::nameHandle(b.get(), name + " (host twin)");
}

void ScenarioBuffers::writeInitialWords(const sc::BufferSpec& spec, void* mapped, bool rewritten) {
    // Zero buffers, host-visible ones included, are filled by each mode's fresh-state submit;
    // a twin of one is only read into.
    if (!mapped || startsZero(spec)) return;
    // host, chain-input and chain-weight words that the parse made whole (no copy)
    const bool whole = (spec.init == sc::InitKind::Host || spec.init == sc::InitKind::ChainInput ||
                        spec.init == sc::InitKind::ChainWeight) &&
                       spec.words.size() * 4 == spec.bytes;
    if (whole && !rewritten) {
        copyToMapped(mapped, spec.words.data(), spec.bytes);
        return;
    }
    std::vector<uint32_t> words = sc::initialWords(spec);
    copyToMapped(mapped, words.data(), spec.bytes);
    if (rewritten) initial_.emplace(spec.name, std::move(words));
}

void ScenarioBuffers::makeChainParams() {
    // the built-in chain's uniform blocks (core/shape.hpp convParams, sliceParams) for the file's shape
    const std::set<sc::Kernel> used = usedKernels(s_);
    if (!s_.shape || (!used.count(sc::Kernel::ConvT) && !used.count(sc::Kernel::Slice))) return;
    const ChainSizes sizes = computeSizes(*s_.shape);
    const auto make = [&](const char* name, const void* bytes, uint64_t size) {
        // blade's Shared class, where the built-in chain puts them (vk/buffers.cpp)
        Buffer b = allocator_.create(name, size, MemoryClass::Shared, {.placement = BufferMemory::Blade});
        std::memcpy(b.mapped, bytes, size);  // HOST_COHERENT: no flush
        return b;
    };
    const ConvParams conv = repro::convParams(*s_.shape, sizes);
    const SliceParams slice = repro::sliceParams(*s_.shape, sizes);
    if (used.count(sc::Kernel::ConvT)) convParams_ = make("conv_params", &conv, sizeof(conv));
    if (used.count(sc::Kernel::Slice)) sliceParams_ = make("slice_params", &slice, sizeof(slice));
}

VkFormat vkFormat(sc::ImageFormat f) {
    return f == sc::ImageFormat::R32ui  ? VK_FORMAT_R32_UINT
           : f == sc::ImageFormat::R32f ? VK_FORMAT_R32_SFLOAT
                                        : VK_FORMAT_R8G8B8A8_UNORM;
}

VkImageLayout vkLayout(sc::ImageLayout l) {
    static constexpr VkImageLayout kLayouts[] = {
        VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    return kLayouts[static_cast<size_t>(l)];
}

namespace {

// The device's features for `spec`'s format and tiling: STORAGE_IMAGE where a dispatch binds
// it (else a bad file: UsageError at the image's line), TRANSFER_SRC|DST always (else
// CannotTest). `file`: the scenario's, for the line. Returns how the image is named in errors.
std::string checkImageFormat(const Device& device, const std::string& file, const sc::BufferSpec& spec, bool storage) {
    const sc::ImageSpec& i = *spec.image;
    VkFormatProperties props{};
    vkGetPhysicalDeviceFormatProperties(device.info().handle, vkFormat(i.format), &props);
    const VkFormatFeatureFlags features = i.linear ? props.linearTilingFeatures : props.optimalTilingFeatures;
    const std::string what =
        fmt::format("image '{}' ({}, {} tiling)", spec.name, sc::name(i.format), i.linear ? "linear" : "optimal");
    if (storage && !(features & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT))
        throw UsageError(
            fmt::format("{}:{}:{}: {} is bound by a dispatch, but the device cannot use that format and "
                        "tiling as a storage image (vkGetPhysicalDeviceFormatProperties: no "
                        "STORAGE_IMAGE_BIT); expected another format or tiling",
                        file, spec.place.line, spec.place.column, what));
    constexpr VkFormatFeatureFlags kCopies = VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    if ((features & kCopies) != kCopies)
        throw CannotTest(
            fmt::format("{}: the device cannot copy to and from it (no TRANSFER_SRC_BIT and "
                        "TRANSFER_DST_BIT in vkGetPhysicalDeviceFormatProperties)",
                        what));
    return what;
}

}  // namespace

void ScenarioBuffers::makeImage(const Device& device, const sc::BufferSpec& spec,
                                const std::vector<uint32_t>& families) {
    const sc::ImageSpec& i = *spec.image;
    const bool storage = std::any_of(s_.steps.begin(), s_.steps.end(), [&](const sc::Step& step) {
        const auto* d = std::get_if<sc::Dispatch>(&step.body);
        return d && std::count(d->bindings.begin(), d->bindings.end(), spec.name) > 0;
    });
    // SAMPLED where it is ever in shader-read-only: that layout needs it (Vulkan spec,
    // VUID-VkImageMemoryBarrier2-oldLayout-01211)
    const bool sampled =
        i.layout == sc::ImageLayout::ShaderReadOnly ||
        std::any_of(s_.steps.begin(), s_.steps.end(), [&](const sc::Step& step) {
            const auto* b = std::get_if<sc::Barrier>(&step.body);
            return b && b->kind == sc::BarrierKind::Image && b->buffer == spec.name &&
                   (b->oldLayout == sc::ImageLayout::ShaderReadOnly || b->newLayout == sc::ImageLayout::ShaderReadOnly);
        });
    const std::string what = checkImageFormat(device, s_.file, spec, storage);
    const VkImageCreateInfo info{
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = vkFormat(i.format),
        .extent = {i.width, i.height, 1},
        .mipLevels = 1,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = i.linear ? VK_IMAGE_TILING_LINEAR : VK_IMAGE_TILING_OPTIMAL,
        .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                 (storage ? VkImageUsageFlags{VK_IMAGE_USAGE_STORAGE_BIT} : VkImageUsageFlags{0}) |
                 (sampled ? VkImageUsageFlags{VK_IMAGE_USAGE_SAMPLED_BIT} : VkImageUsageFlags{0}),
        .sharingMode = families.size() >= 2 ? VK_SHARING_MODE_CONCURRENT : VK_SHARING_MODE_EXCLUSIVE,
        .queueFamilyIndexCount = families.size() >= 2 ? static_cast<uint32_t>(families.size()) : 0u,
        .pQueueFamilyIndices = families.size() >= 2 ? families.data() : nullptr,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    VkImageFormatProperties limits{};
    if (vkGetPhysicalDeviceImageFormatProperties(device.info().handle, info.format, info.imageType, info.tiling,
                                                 info.usage, 0, &limits) != VK_SUCCESS ||
        limits.maxExtent.width < i.width || limits.maxExtent.height < i.height)
        throw CannotTest(
            fmt::format("{}: the device does not support a {}x{} image of that format, tiling and usage "
                        "(vkGetPhysicalDeviceImageFormatProperties)",
                        what, i.width, i.height));
    ScenarioImage out;
    out.image = device.create(vkCreateImage, info, "vkCreateImage");
    const VkImage raw = out.image.get();
    const ScenarioMemory memory = scenarioMemory(spec.placement);
    out.memory = bindImageMemory(device, spec.name, raw, memory.memoryClass, memory.placement);
    if (storage) {  // the storage-image descriptor's view
        const VkImageViewCreateInfo view{.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                         .image = raw,
                                         .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                         .format = info.format,
                                         .subresourceRange = kImageColor};
        out.view = device.create(vkCreateImageView, view, "vkCreateImageView");
    }
    images_.emplace(spec.name, std::move(out));
}

const ScenarioImage* ScenarioBuffers::image(const std::string& name) const {
    const auto it = images_.find(name);
    return it == images_.end() ? nullptr : &it->second;
}

const Buffer* ScenarioBuffers::twin(const std::string& name) const {
    const auto it = twins_.find(name);
    return it == twins_.end() ? nullptr : &it->second;
}

void ScenarioBuffers::restore() {
    if (std::exchange(fresh_, false)) return;
    for (const auto& spec : s_.buffers) {
        const auto words = initial_.find(spec.name);
        if (words == initial_.end()) continue;
        const Buffer& to = twins_.count(spec.name) ? twins_.at(spec.name) : buffers_.at(spec.name);
        copyToMapped(to.mapped, words->second.data(), spec.bytes);
    }
}

}  // namespace repro::vk
