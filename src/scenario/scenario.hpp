// A scenario: the data of one compute-synchronization pattern (named buffers and an ordered
// list of steps), what `repro --scenario FILE` records in the three modes and checks against
// split and the CPU model (docs/scenarios.md; issue 22). Vulkan-free: the recorder is
// vk/scenario_recorder.hpp, the parser scenario/scenario_parse.hpp, the CPU model
// scenario/scenario_cpu.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/shape.hpp"
#include "core/variant.hpp"

namespace repro::scenario {

// The limits of a scenario file (the parser, scenario_parse.hpp, refuses a file past them).
// The largest buffer a scenario may declare: 2^27 bytes, the minimum every Vulkan device
// guarantees for maxStorageBufferRange (Vulkan spec, "Required Limits").
inline constexpr uint64_t kMaxBufferBytes = uint64_t{1} << 27;
// The largest workgroup count per dimension: 65535, the required minimum of
// maxComputeWorkGroupCount (Vulkan spec, "Required Limits").
inline constexpr uint32_t kMaxGroups = 65535;
// The largest private array of the private-array kernel: 4096 words (16 KiB per invocation),
// far past the 544 bytes where cubecl #1336 saw RADV spill to scratch.
inline constexpr uint32_t kMaxPrivateWords = 4096;
// The most steps a scenario may have once every repeat is expanded.
inline constexpr uint64_t kMaxSteps = 65536;

// Where a buffer's memory is: the types each prefers, docs/scenarios.md "[[buffer]]" (`memory`); Shared is also
// the built-in chain's class for its buffers and parameter blocks ("blade #356 as a scenario").
enum class Placement {
    DeviceLocal,  // DEVICE_LOCAL; written and read through a host-visible staging buffer
    HostVisible,  // HOST_VISIBLE|HOST_COHERENT, system memory; mapped
    Shared,       // blade's Memory::Shared class (vk/memory.hpp chooseMemoryType); mapped
};
std::string_view name(Placement p);  // "device-local", "host-visible", "shared"

// A buffer's contents before the first step (docs/scenarios.md "[[buffer]]", `init`).
enum class InitKind {
    Zero,       // every byte 0
    Pattern,    // every 32-bit word `value`
    Iota,       // word i holds `value` + i
    Random,     // word i from a xorshift32 seeded with `value` (0 taken as 1): randomWords()
    Host,       // the words of `words`, repeated to the size (host-written contents)
    Undefined,  // not written before the first step: reading it first is an error
    // The built-in chain's input (makeInput) or weight (makeWeight) for the file's `shape`, as float bits
    ChainInput,
    ChainWeight,
};
// "zero", "pattern", "iota", "random", "host", "undefined", "chain-input", "chain-weight"
std::string_view name(InitKind k);

// Where a parsed item came from, for error messages (1-based; 0 when unknown).
struct SourcePlace {
    uint32_t line = 0, column = 0;
};

// An [[image]] (docs/scenarios.md "[[image]]"): a 2D image of one mip level and one array layer,
// whose texels are 32-bit words for every format here (rgba8unorm: the 4 bytes of a texel as
// one little-endian word), row-major: texel (x, y) is word y * width + x of its contents, so
// that the CPU model, the checks and the race check treat it as a buffer of width * height * 4
// bytes under its name.
enum class ImageFormat { R32ui, R32f, Rgba8unorm };
std::string_view name(ImageFormat f);  // "r32ui", "r32f", "rgba8unorm"
// The layouts a file names (VkImageLayout: Vulkan spec, "Image Layouts").
enum class ImageLayout { Undefined, General, TransferSrc, TransferDst, ShaderReadOnly };
// "undefined", "general", "transfer-src", "transfer-dst", "shader-read-only"
std::string_view name(ImageLayout l);
struct ImageSpec {
    uint32_t width = 0, height = 0;  // texels, 1..kMaxImageSide each
    ImageFormat format = ImageFormat::R32ui;
    bool linear = false;  // VK_IMAGE_TILING_LINEAR (`tiling = "linear"`); optimal by default
    // The layout repro's upload leaves it in before the first step (`layout`, default general)
    ImageLayout layout = ImageLayout::General;
    ImageLayout finalLayout = ImageLayout::General;  // after the last step (checkImageLayouts)
};
inline constexpr uint32_t kMaxImageSide = 4096;  // maxImageDimension2D's required minimum

struct BufferSpec {
    std::string name;
    uint64_t bytes = 0;  // a multiple of 4, at least 4
    Placement placement = Placement::DeviceLocal;
    InitKind init = InitKind::Zero;
    uint32_t value = 0;  // Pattern: the word; Iota: the first word; Random: the seed
    // Host: the file's words, repeated to the size; ChainInput, ChainWeight: the built-in
    // chain's data for the file's shape, which the parse leaves empty and fillChainWords
    // (scenario_parse.hpp) makes, so that a run makes them while the driver creates the device
    std::vector<uint32_t> words;
    bool checked = false;   // its final contents are compared (check = [...])
    bool poisoned = false;  // --poison: init replaced by the sentinel (scenario_cpu.hpp poisonBuffers)
    // `sharing = "concurrent"`, no ownership transfers; by default exclusive, transferred wherever it changes
    // family (scenario/scenario_sync.hpp ownershipTransfers; docs/scenarios.md "[[buffer]]", `sharing`)
    bool concurrent = false;
    // `ownership_transfers = false` on an exclusive buffer: a labelled control without those transfers
    // (Scenario::hasControl; docs/scenarios.md "[[buffer]]", `ownership_transfers`)
    bool ownershipTransfers = true;
    // Set: an [[image]], not a buffer (bytes = width * height * 4); steps that take a buffer
    // refuse it and the image steps take only these
    std::optional<ImageSpec> image;
    SourcePlace place;
};

// Whether `b` is chain-input or chain-weight and its words are not made yet (fillChainWords).
inline bool awaitsChainWords(const BufferSpec& b) {
    return (b.init == InitKind::ChainInput || b.init == InitKind::ChainWeight) && b.words.empty();
}

// The built-in kernels of the scenario kernel set (shaders/scenario_*.comp; what each does: docs/scenarios.md
// "Kernels", "[[image]]"). 32-bit words, one invocation per word, 64 invocations per workgroup.
enum class Kernel {
    Increment,  // binding 0 `data`: data[i] += add for i < count (in place: read-modify-write)
    Copy,       // binding 0 `src`, binding 1 `dst`: dst[i] = src[i] for i < count
    Noop,       // binding 0 `data`, never accessed: a dispatch that does nothing
    // binding 0 `data`: one odd-even transposition step in place, pairs (2j + phase, 2j + phase + 1)
    CompareSwap,
    // bindings 0 `src`, 1 `dst`: dst[i] = privateArrayWord(src[i], privateWords) (cubecl #1336)
    PrivateArray,
    // binding 0 `data`: data[i] = workWord(data[i], work) in place (llama.cpp #21724, taichi #3544)
    Work,
    // binding 0 `args`: invocation 0 writes the VkDispatchIndirectCommand of Dispatch::writer
    IndirectWriter,
    // blade #356's conv-t (shaders/conv_t.comp): bindings 0 `input`, 1 `weight`, 2 `output`; `conv_params`
    // (core/shape.hpp convParams) at 3; workgroups ChainSizes::convWorkgroups
    ConvT,
    // blade #356's slice: bindings 0 `input` (big), 1 `output` (small); `slice_params` (sliceParams) at 2;
    // workgroups ChainSizes::sliceWorkgroups
    Slice,
    // binding 0 `image`, an r32ui storage image: texel i (row-major) += add for i < count
    ImageIncrement,
    // bindings 0 `src`, 1 `dst`, storage images of one format and extent: dst texel i = src texel i, i < count
    ImageCopy,
};
// "increment", "copy", "noop", "compare-swap", "private-array", "work", "indirect-writer",
// "conv-t", "slice", "image-increment", "image-copy"
std::string_view name(Kernel k);
std::optional<Kernel> parseKernel(std::string_view text);
// Whether `k` is one of blade #356's float kernels (conv-t, slice), which take the file's shape.
inline bool isChainKernel(Kernel k) { return k == Kernel::ConvT || k == Kernel::Slice; }
// Whether `k` binds storage images (image-increment, image-copy) instead of storage buffers.
inline bool isImageKernel(Kernel k) { return k == Kernel::ImageIncrement || k == Kernel::ImageCopy; }
// The binding names a kernel takes, in binding order (the Kernel enumerators above).
std::vector<std::string_view> kernelBindings(Kernel k);
// Whether binding `index` of `k` is written by the kernel (increment's data, copy's dst,
// indirect-writer's args).
bool kernelWrites(Kernel k, uint32_t index);
// Whether binding `index` of `k` is read by the kernel (increment's data, copy's src; not
// indirect-writer's args).
bool kernelReads(Kernel k, uint32_t index);

inline constexpr uint32_t kWorkgroupSize = 64;  // local_size_x of every scenario kernel

// The push constants every scenario kernel takes, in this order (16 bytes).
struct KernelParams {
    uint32_t count = 0;  // words processed: invocations with index >= count do nothing
    uint32_t add = 1;    // increment: the amount added; compare-swap: the phase, 0 or 1
    uint32_t work = 1;   // iterations of a loop whose result never reaches a buffer: lengthens
                         // the dispatch without changing what it writes
    uint32_t zero = 0;   // always 0, so that the compiler cannot drop the work loop
};

// The indirect-writer's parameters: the VkDispatchIndirectCommand it writes and where.
struct ArgsWrite {
    uint64_t offset = 0;             // bytes into `args`, a multiple of 4; offset + 12 fits
    uint32_t groups[3] = {1, 1, 1};  // x, y, z as written (any 32-bit values: not checked
                                     // here, but where an indirect dispatch reads them)
};

// dispatch_indirect: where vkCmdDispatchIndirect reads its group counts (Vulkan spec,
// vkCmdDispatchIndirect: a VkDispatchIndirectCommand at `offset`, a multiple of 4).
struct IndirectArgs {
    std::string buffer;
    uint64_t offset = 0;  // bytes; offset + 12 fits in the buffer
};

// A user kernel: a SPIR-V compute module the file names in a [[kernel]] table
// (docs/scenarios.md "User kernels"). Its storage buffers are set 0, bindings 0..n-1; it gets
// the same 16 bytes of push constants (KernelParams) as the built-in kernels. The CPU model
// cannot compute it: what it writes is compared with split only.
struct UserKernel {
    std::string name;                     // unique, and no built-in kernel's name
    std::string spirv;                    // the module's path as opened (relative paths from the file's folder)
    std::string entry = "main";           // its GLCompute OpEntryPoint
    std::array<uint32_t, 3> localSize{};  // the module's workgroup size (LocalSize), for the output
    std::vector<uint32_t> words;          // the module, host byte order
    std::vector<bool> writes;             // per binding: not NonWritable (it may write the buffer)
    std::vector<bool> reads;              // per binding: not NonReadable (it may read the buffer)
    // per binding: nullopt for a storage buffer; for a storage image its OpTypeImage's Image
    // Format operand (SPIR-V §3.11, core/spirv_module.hpp), which the bound image's format must be
    std::vector<std::optional<uint32_t>> images;
    // spirv-val's word on the module (a module it rejects is a bad file): "spirv-val
    // (vulkan1.3): valid", or "not checked by spirv-val: spirv-val not found on PATH (...)"
    std::string validation;
    SourcePlace place;
};

struct Dispatch {
    Kernel kernel = Kernel::Increment;  // unused when `user` is set
    std::string user;                   // non-empty: the user kernel of Scenario::kernels by name
    std::vector<std::string> bindings;  // buffer names, in binding order
    KernelParams params;                // count defaults to the first binding's words
    // vkCmdDispatch counts; x defaults to ceil(count/64). For an indirect dispatch: the counts
    // the CPU model reads from its args when the file is parsed (parseScenario), used to say
    // which bytes it writes (writtenRanges); the CPU model itself reads them again (applyStep)
    uint32_t groups[3] = {0, 1, 1};
    // private-array: the array's words per invocation (specialization constant 0), 1..4096
    uint32_t privateWords = 0;
    // compare-swap with phase = "alternate" in a repeat: the phase is the repetition's parity
    bool alternatePhase = false;
    ArgsWrite writer;                              // indirect-writer: what it writes
    std::optional<IndirectArgs> indirect;          // set: recorded as vkCmdDispatchIndirect from these args
    ImageFormat imageFormat = ImageFormat::R32ui;  // image-increment, image-copy: the images' format
};

// Whether the integer CPU model computes `d`: a built-in integer kernel; not a user kernel
// (compared with split only), nor conv-t or slice (scenario/scenario_chain.hpp's chain values).
inline bool cpuModelled(const Dispatch& d) { return d.user.empty() && !isChainKernel(d.kernel); }

// The 16 bytes of push constants recorded for `d`: d.params, or for the indirect-writer the
// words (offset / 4, x, y, z), which shaders/scenario_indirect_writer.comp reads so. Pure.
KernelParams pushConstants(const Dispatch& d);

// The invocations of a dispatch of workgroup counts `groups`: kWorkgroupSize * x * y * z (at
// most 2^54 for counts up to 65535). Pure.
uint64_t invocations(const uint32_t (&groups)[3]);

// The most invocations a dispatch of `d`'s kernel may have before the 32-bit index its shader computes wraps
// (docs/scenarios.md "[[step]]", `groups`; hostile-input probe R1): 2^32 for flatIndex, x + size.x * (y + size.y
// * z) in uint (shaders/scenario_common.h); (2^32 - phase) / 2 for compare-swap's pairs; 0, no bound, for noop and
// the indirect-writer (no result depends on the index), conv-t and slice (workgroups from the shape) and user
// kernels (repro does not know their indexing). Pure.
uint64_t maxIndexedInvocations(const Dispatch& d);

// vkCmdFillBuffer, vkCmdUpdateBuffer, vkCmdCopyBuffer. Offsets and sizes in bytes, multiples
// of 4 as Vulkan requires for fill and update (Vulkan spec, vkCmdFillBuffer/vkCmdUpdateBuffer);
// copies may be any byte range.
struct Fill {
    std::string buffer;
    uint64_t offset = 0, size = 0;  // size 0 in the file: to the end of the buffer
    uint32_t value = 0;
};
struct Update {
    std::string buffer;
    uint64_t offset = 0;
    std::vector<uint32_t> words;  // at most 65536 bytes (vkCmdUpdateBuffer's limit)
};
struct Copy {
    std::string src, dst;
    uint64_t srcOffset = 0, dstOffset = 0, size = 0;
};

// The image transfers (docs/scenarios.md "[[image]]"), on mip level 0, array layer 0 of the
// color aspect: vkCmdCopyBufferToImage, vkCmdCopyImageToBuffer, vkCmdCopyImage and
// vkCmdClearColorImage. A region is texels; a buffer side is tightly packed (bufferRowLength
// 0) from `bufferOffset`, 4 bytes per texel.
enum class ImageTransferKind { BufferToImage, ImageToBuffer, ImageToImage, Clear };
// "copy_buffer_to_image", "copy_image_to_buffer", "copy_image", "clear_image" (the step keys)
std::string_view name(ImageTransferKind k);
struct ImageTransfer {
    ImageTransferKind kind = ImageTransferKind::Clear;
    std::string src, dst;                             // a buffer or an image by kind; clear: dst alone
    uint64_t bufferOffset = 0;                        // bytes, a multiple of 4
    uint32_t srcX = 0, srcY = 0, dstX = 0, dstY = 0;  // the image sides' offsets
    uint32_t width = 0, height = 0;                   // the extent (clear: of dst); within each image
    uint32_t value = 0;  // clear: the texel's 32-bit word (r32f: its bits; rgba8unorm: its 4 bytes)
    // Where the region lies in each side's contents (the model's bytes, row-major for an
    // image): the byte of its first texel and the bytes from one row to the next (a buffer
    // side: bufferOffset and width * 4). Set by the parser; what the CPU model copies.
    uint64_t srcByte = 0, dstByte = 0, srcPitch = 0, dstPitch = 0;
    // clear's image format (its value is converted to it); the images' layouts: Step::layouts
    ImageFormat format = ImageFormat::R32ui;
};

// The barrier forms a scenario may record between steps (docs/scenarios.md "barrier").
enum class BarrierKind {
    BladeGlobal,    // blade's G (vk/barriers.hpp recordBladeGlobalBarrier)
    BladeCompute,   // blade's C (recordBladeComputeBarrier)
    Memory,         // one global memory barrier with the file's masks
    Buffer,         // one buffer memory barrier on `buffer` (whole range) with the file's masks
    ExecutionOnly,  // the file's stages, no memory barrier: a control when a write is read after it
    None,           // nothing recorded: a control
    // one image memory barrier on `buffer`, an image (its whole color subresource), with the
    // file's masks and its layout transition old_layout -> new_layout
    Image,
};
// "blade-g", "blade-c", "memory", "buffer", "execution-only", "none", "image"
std::string_view name(BarrierKind k);

// A stage or access name of a file and its synchronization2 bit (VkPipelineStageFlagBits2,
// VkAccessFlagBits2 values: Vulkan spec, "Synchronization and Cache Control"); the original
// form uses the same low 32 bits where they exist.
struct NamedBit {
    std::string_view name;
    uint64_t bit;
};
// The stage names of `src_stage`, `dst_stage` and a wait's `stage` (docs/scenarios.md).
inline constexpr NamedBit kStages[] = {
    {"top-of-pipe", 0x1},       {"draw-indirect", 0x2}, {"compute", 0x800},        {"transfer", 0x1000},
    {"bottom-of-pipe", 0x2000}, {"host", 0x4000},       {"all-commands", 0x10000},
};
// `bits` as a file writes stages: ["transfer", "compute"] (kStages' names). Pure.
std::string stageNames(uint64_t bits);

struct Barrier {
    BarrierKind kind = BarrierKind::BladeGlobal;
    bool sync2 = true;  // vkCmdPipelineBarrier2 (true) or vkCmdPipelineBarrier
    uint64_t srcStage = 0, dstStage = 0;
    uint64_t srcAccess = 0, dstAccess = 0;
    std::string buffer;    // Buffer: the buffer's name; Image: the image's
    bool control = false;  // deliberately insufficient: said in the output, never judged
    // Image: the layout transition (equal: none). --barrier execution-only and none keep it
    // (replaceBarriers), so that the layouts the steps need stay right
    ImageLayout oldLayout = ImageLayout::General, newLayout = ImageLayout::General;
    bool operator==(const Barrier&) const = default;
};

// Host points: the host writes words into, or reads, the mapped memory of a host-visible buffer between two
// steps; the recorder ends the submit there and waits (why that suffices: docs/scenarios.md "Host points").
struct HostWrite {
    std::string buffer;           // host-visible
    uint64_t offset = 0;          // bytes, a multiple of 4; offset + 4 * words.size() fits
    std::vector<uint32_t> words;  // at least one
};
struct HostRead {
    std::string buffer;  // host-visible: its bytes are compared with the CPU model's at this point
};

// A queue a scenario's steps go to (docs/scenarios.md "Queues and semaphores"). Queue 0 is
// always "main", the queue repro uses for everything else; a [[queue]] asks for another.
enum class QueueFamilyChoice {
    Main,   // the main queue itself (queue 0 alone)
    Same,   // a second queue of the main queue's family
    Other,  // a queue of another family that supports the steps put on it
};
std::string_view name(QueueFamilyChoice f);  // "main", "same", "other"

struct QueueSpec {
    std::string name;
    QueueFamilyChoice family = QueueFamilyChoice::Main;
    SourcePlace place;
};

// A semaphore between queues (Vulkan spec "Semaphores"): binary (each signal consumed by one
// wait) or timeline (a 64-bit counter; a wait for N is satisfied once a signal of N or more ran).
struct SemaphoreSpec {
    std::string name;
    bool timeline = false;
    SourcePlace place;
};

// `signal = "s"`: ends its queue's current batch, which signals s at its end (with `value`
// for a timeline, strictly increasing in file order). `semaphore` indexes Scenario::semaphores.
struct Signal {
    uint32_t semaphore = 0;
    uint64_t value = 0;  // timeline only; 0 for a binary semaphore
};
// `wait = "s"`: the next batch on its queue waits for s (a timeline: until it reaches `value`)
// at the stages `stage` (synchronization2 bits, truncated to the 32-bit VkPipelineStageFlags
// of vkQueueSubmit's pWaitDstStageMask; default compute).
struct Wait {
    uint32_t semaphore = 0;
    uint64_t value = 0;  // timeline only
    uint64_t stage = 0x800;
    // `control = true`: insufficient on purpose; a `stage` that misses the step after it is
    // then run (a labelled control) instead of refused as a data race (scenario/scenario_sync.hpp)
    bool control = false;
};

using StepBody = std::variant<Dispatch, Fill, Update, Copy, Barrier, HostWrite, HostRead, Signal, Wait, ImageTransfer>;

struct Step {
    StepBody body;
    std::string label;  // "step 3 dispatch increment", for the output
    SourcePlace place;
    uint32_t queue = 0;  // index into Scenario::queues (0: main)
    // The modes that record this step (a barrier's `modes` key): bit i for cli/options.hpp
    // Mode i (1 split, 2 multipass, 4 single); every mode by default.
    uint8_t modeMask = 7;
    // The layout each image the step binds, transfers or transitions is in when it starts, by
    // name (after it: the same but an image barrier's new_layout), as the parser's one walk of
    // the layouts (checkImageLayouts) found it, for the recorders and ownershipTransfers
    std::map<std::string, ImageLayout> layouts;
};

// The layout image `name` is in when `step` starts (Step::layouts); undefined for a buffer. Pure.
inline ImageLayout layoutAt(const Step& step, const std::string& name) {
    const auto it = step.layouts.find(name);
    return it == step.layouts.end() ? ImageLayout::Undefined : it->second;
}

// A file's [parameters] (docs/scenarios.md "Parameters"): name -> the value used.
using ParameterValues = std::map<std::string, uint32_t>;

struct Scenario {
    std::string name;
    std::string source;      // the public report's URL
    std::string pattern;     // one sentence
    std::string expected;    // the verdict on a correct driver: "not reproduced"
    std::string file;        // the path it was read from
    uint64_t fileBytes = 0;  // the file's size in bytes, as read (loadScenario)
    std::string fileSha256;  // the SHA-256 of those bytes, 64 hex digits (core/sha256.hpp); "" when parsed from text
    std::string fileText;    // those bytes (the reports carry them, so that a reader can rerun the file)
    ParameterValues parameters;      // [parameters], with any override (--sweep) applied
    ParameterValues fileParameters;  // [parameters] as the file writes them (no override)
    // `shape = "small"`: the preset (core/shape.hpp presetShape) the conv-t and slice steps and
    // the chain-input/chain-weight inits take; "" and nullopt when the file has none
    std::string shapeName;
    std::optional<Shape> shape;
    std::vector<BufferSpec> buffers;
    std::vector<UserKernel> kernels;  // [[kernel]] tables
    std::vector<Step> steps;
    const UserKernel* kernel(std::string_view name) const;  // nullptr when none has the name
    bool usesSync2() const;                                 // a barrier in the synchronization2 form
    std::vector<QueueSpec> queues = {{.name = "main"}};     // [0] is main; then each [[queue]]
    std::vector<SemaphoreSpec> semaphores;
    // Steps were reordered to run in a valid order of the semaphores (scenario/scenario_sync.hpp).
    bool reordered = false;
    // --submit-every K (and --matrix's submit-every row): multipass and single end their submit
    // after every K work steps (dispatches and transfers), waited for by the host, as the
    // built-in chain's --submit-every with its host wait; 0: the file's own submits. Not with
    // queues (their batches follow the semaphores); split is unchanged.
    uint32_t submitEvery = 0;
    // Whether checked buffers that hold a value of the built-in chain (scenario/scenario_chain.hpp)
    // are compared with the CPU chain within its tolerance; false: with split only. The run
    // sets it from --reference and the chain's size (docs/scenarios.md "conv-t and slice in the
    // CPU model").
    bool cpuChain = true;
    bool hasControl() const;  // a barrier labelled a control (or execution-only / none between steps), or a wait
    // What is labelled a control: "a barrier", "a wait", "a buffer without its ownership transfers",
    // joined ("a barrier and a wait"); "" for none
    std::string controlSteps() const;
    const BufferSpec* buffer(std::string_view name) const;  // a buffer or an image by name
    // A [[queue]] or [[semaphore]]: the modes submit one batch at a time (scenario_sync.hpp).
    bool usesQueues() const { return queues.size() > 1 || !semaphores.empty(); }
};

// Whether binding `index` of dispatch `d` of `s` is written (read) by its kernel: kernelWrites
// (kernelReads) for a built-in kernel; for a user kernel, from its module's NonWritable
// (NonReadable) decorations (UserKernel::writes, reads). `d` is assumed checked.
bool dispatchWrites(const Scenario& s, const Dispatch& d, uint32_t index);
bool dispatchReads(const Scenario& s, const Dispatch& d, uint32_t index);

// Whether `body` holds one of T...
template <typename... T>
bool holds(const StepBody& body) {
    return (std::holds_alternative<T>(body) || ...);
}
// A dispatch, fill, update, copy or image transfer: what a submit holds, what --submit-every
// counts and split gives a submit of its own (the recorders and the submit budget share it).
inline bool isWork(const Step& step) { return holds<Dispatch, Fill, Update, Copy, ImageTransfer>(step.body); }
// A host write or a host read: the main queue's submit ends there and is waited for.
inline bool isHostPoint(const Step& step) { return holds<HostWrite, HostRead>(step.body); }

// `repro --scenario FILE --barrier B`: every barrier step of `s` replaced by B, its label saying "(--barrier B)"
// (what each B records: docs/scenarios.md "`--barrier` and `--repeat` on a scenario"). Returns "" when done, or
// why B does not apply (sync2 and buffer, whose masks and buffer a scenario's barriers already name).
std::string replaceBarriers(Scenario& s, repro::BarrierKind b);

// The matrix's work factor on a scenario: every dispatch's `work` (its loop whose result never
// reaches memory) multiplied by `factor`, at most kMaxWork, but the work kernel's (its work is
// what it writes), the indirect-writer's (its push constants are its command, it has no work
// loop) and conv-t's and slice's (they take no push constants): the same bytes written,
// longer dispatches. Returns how many dispatches it lengthened (0: none takes work).
inline constexpr uint32_t kMaxWork = uint32_t{1} << 20;
size_t multiplyWork(Scenario& s, uint32_t factor);

// How many work steps (dispatches and transfers) `s` has: what --submit-every cuts.
size_t workSteps(const Scenario& s);

// `repro --scenario FILE --triage`'s memory experiment: every buffer of `s` placed at `p`
// but those a host point names, which stay host-visible (docs/scenarios.md "--triage on a
// scenario"). Returns how many buffers it moved (0: the experiment changes nothing here).
size_t replacePlacements(Scenario& s, Placement p);

// The initial words of `spec` (bytes / 4 of them). Pure. Throws std::logic_error for a
// chain-input or chain-weight buffer whose words fillChainWords has not made yet.
std::vector<uint32_t> initialWords(const BufferSpec& spec);

// The private-array kernel's result for input word `x` with an array of `words` words
// (shaders/scenario_private_array.comp, step by step). Pure; `words` >= 1.
uint32_t privateArrayWord(uint32_t x, uint32_t words);
// The work kernel's result: `rounds` times x = x * 1664525 + 1013904223, x ^= x >> 13
// (shaders/scenario_work.comp). Pure.
uint32_t workWord(uint32_t x, uint32_t rounds);

// xorshift32 (Marsaglia 2003) words from `seed` (0 taken as 1): the Random init. Pure.
std::vector<uint32_t> randomWords(uint32_t seed, uint64_t count);

}  // namespace repro::scenario
