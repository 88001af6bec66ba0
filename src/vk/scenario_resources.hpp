// A scenario's device objects (scenario/scenario.hpp): the pipelines of the kernels its steps
// dispatch and its buffers, each placed as the file says, with the host twins that upload and
// read back device-local ones. Made once per scenario on a device and used by every mode's
// run (vk/scenario_recorder.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"
#include "vk/memory.hpp"
#include "vk/pipeline.hpp"

namespace repro::vk {

class Device;

// The scenario kernel set's pipelines (shaders/scenario_*.comp, 16 bytes of push constants).
// A dispatch_indirect step is recorded as vkCmdDispatchIndirect on its args buffer (every
// scenario buffer has VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT: vk/memory.hpp kBladeBufferUsage).
struct ScenarioPipelines {
    ComputePipeline increment, copy, noop;
    ComputePipeline compareSwap, work;
    std::map<uint32_t, ComputePipeline> privateArray;  // by private words (specialization constant 0)
    ComputePipeline indirectWriter;
    ComputePipeline convT, slice;  // blade #356's, as the built-in chain makes them (no push constants)
    // image-increment (r32ui) and image-copy by format: storage-image bindings
    ComputePipeline imageIncrement;
    std::map<scenario::ImageFormat, ComputePipeline> imageCopy;
    // The file's user kernels by name (Scenario::kernels: their modules, entry points and
    // bindings, 16 bytes of push constants like the kernel set's).
    std::map<std::string, ComputePipeline> user;
    // The pipeline of `d`: its kernel's, the private-array one of d.privateWords, or the user
    // kernel's (made by createScenarioPipelines).
    const ComputePipeline& forDispatch(const scenario::Dispatch& d) const;
};
// The pipelines of the built-in kernels the steps of `s` dispatch (the others stay empty: a
// pipeline is a shader compile in the driver), one private-array pipeline per distinct
// private_words among them, and one per user kernel of `s`. `shuffled` (--stress): the kernel
// set's workgroups shuffled (shaders/scenario_common.h, constant_id 1 and 2:
// scenario/stress.hpp kShuffleMultiplier, kShuffleOffset); user kernels, conv-t and slice keep
// their order. Throws VulkanError / CannotTest as createComputePipeline does.
ScenarioPipelines createScenarioPipelines(const Device& device, const scenario::Scenario& s, bool shuffled = false);

// How a scenario buffer of placement `p` is allocated: its class and the placement rule of
// Allocator::create (vk/memory.hpp). device-local: the DeviceLocal rule; host-visible: the
// HostVisible rule (write-combined system memory first); shared: blade's Shared class under
// blade's rule (chooseMemoryType), the memory type the built-in chain's Shared buffers get
// (vk/buffers.cpp), the BAR window on a discrete GPU that has one. Pure.
struct ScenarioMemory {
    MemoryClass memoryClass;
    BufferMemory placement;
};
ScenarioMemory scenarioMemory(scenario::Placement p);

// A scenario image on the device (scenario/scenario.hpp ImageSpec): a 2D image of one mip
// level and one layer in the file's format and tiling, usage TRANSFER_SRC|TRANSFER_DST and
// STORAGE where a dispatch binds it (with a view for its storage-image descriptor), SAMPLED
// where it is ever in shader-read-only, shared among the families as a buffer is (below), in
// its own memory placed as a buffer of its placement would be (vk/memory.hpp bindImageMemory).
struct ScenarioImage {
    Owned<VkImage> image;
    Owned<VkDeviceMemory> memory;
    Owned<VkImageView> view;
    VkImage get() const { return image.get(); }
};
VkFormat vkFormat(scenario::ImageFormat f);  // R32_UINT, R32_SFLOAT, R8G8B8A8_UNORM
VkImageLayout vkLayout(scenario::ImageLayout l);
// The whole color subresource of a scenario image (mip 0, layer 0).
inline constexpr VkImageSubresourceRange kImageColor{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};

// A scenario's buffers on one device, made once for every mode and --repeat run and given their
// initial contents again before each mode (restore, then the upload submit), as docs/scenarios.md
// "Modes" (its last paragraph) says, with which device-local buffers get a host-visible twin
// (`stepReadbacks`: --check-steps) and which host-visible ones the host writes again (what a step
// writes: scenario/scenario_cpu.hpp writtenRanges). Sharing mode: docs/scenarios.md "[[buffer]]".
// conv-t's and slice's parameter blocks are made when the steps dispatch them. Throws CannotTest when
// memory runs out (Allocator::create). An [[image]] gets a ScenarioImage and, as its buffer
// under its name, a host-visible staging buffer of its bytes: its initial words, which the
// fresh-state submit copies into the image, and what the readback copies out of it. Throws
// UsageError when a dispatch binds an image whose format and tiling the device cannot use as
// a storage image (vkGetPhysicalDeviceFormatProperties), CannotTest when it cannot copy it.
class ScenarioBuffers {
  public:
    ScenarioBuffers(const Device& device, const scenario::Scenario& s, bool stepReadbacks);

    const Buffer& at(const std::string& name) const { return buffers_.at(name); }
    // The image `name`, or nullptr when it is a buffer.
    const ScenarioImage* image(const std::string& name) const;
    // The twin of device-local buffer `name`, or nullptr when it has none.
    const Buffer* twin(const std::string& name) const;
    const std::optional<Buffer>& convParams() const { return convParams_; }
    const std::optional<Buffer>& sliceParams() const { return sliceParams_; }
    // Before a mode: the initial words written again into the host-visible buffers that
    // something writes and into the twins a readback wrote into (through copyToMapped); the
    // first call after construction writes nothing (they hold their initial words already).
    // The upload submit then fills the zero buffers and copies the twins into their buffers
    // (runScenarioMode). HOST_COHERENT: no flush.
    void restore();

  private:
    // A buffer's initial words into its mapping (its own, or its twin's; nullptr: none), kept
    // for restore() when `rewritten`.
    void writeInitialWords(const scenario::BufferSpec& spec, void* mapped, bool rewritten);
    // conv_params and slice_params, when a step dispatches conv-t or slice.
    void makeChainParams();
    // The image of `spec` (an [[image]]), its format's support checked first; two or more
    // `families`: VK_SHARING_MODE_CONCURRENT among them, else EXCLUSIVE.
    void makeImage(const Device& device, const scenario::BufferSpec& spec, const std::vector<uint32_t>& families);

    const scenario::Scenario& s_;
    bool fresh_ = true;
    Allocator allocator_;
    std::map<std::string, Buffer> buffers_;
    std::map<std::string, Buffer> twins_;
    std::map<std::string, ScenarioImage> images_;
    std::optional<Buffer> convParams_, sliceParams_;
    // the initial words of the buffers restore() writes again, by buffer name (for a
    // device-local one, its twin's)
    std::map<std::string, std::vector<uint32_t>> initial_;
};

// The queue family each of `s`'s queues landed in on `device` ([0] the main queue's).
std::vector<uint32_t> queueFamilies(const Device& device, const scenario::Scenario& s);

// Whether a buffer's initial words are all zero (init zero, or undefined, which repro zeroes).
bool startsZero(const scenario::BufferSpec& spec);

}  // namespace repro::vk
