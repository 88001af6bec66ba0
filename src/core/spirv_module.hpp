// Reading and checking a compute shader's SPIR-V before it reaches Vulkan (--spirv DIR:
// conv_t.spv and slice.spv from a folder, e.g. naga's output for the original WGSL,
// instead of the embedded modules). Vulkan-free, so unit tests cover every error path.
//
// SPIR-V facts come from the SPIR-V specification (unified): §2.3 Physical Layout of a
// SPIR-V Module and Instruction, §2.4 Logical Layout, §3 Binary Form (opcodes, execution
// models and modes, decorations, storage classes, built-ins); the reader takes their numbers
// from Khronos' SPIRV-Headers (spirv/unified1/spirv.hpp), this header states the image formats.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.hpp"  // UsageError

namespace repro {

// What a descriptor binding is, from its variable's storage class and the decoration of
// the struct it points to: a storage buffer is StorageBuffer + Block, or (SPIR-V before
// 1.3) Uniform + BufferBlock; a uniform buffer is Uniform + Block; a storage image is
// UniformConstant pointing to an OpTypeImage (§3.52) with Dim 2D, Arrayed 0, MS 0 and
// Sampled 2 (read and written without a sampler). Everything else (sampled images, samplers,
// other dims, arrays of blocks, ...) is Other, which repro never binds.
enum class SpirvResourceKind { StorageBuffer, UniformBuffer, StorageImage, Other };

// "storage buffer", "uniform buffer", "storage image", "other".
std::string_view name(SpirvResourceKind k);

// One variable decorated with DescriptorSet and Binding.
struct SpirvBinding {
    uint32_t set = 0, binding = 0;
    SpirvResourceKind kind = SpirvResourceKind::Other;
    bool nonWritable = false;  // the variable, or every member of its block, is NonWritable
    bool nonReadable = false;  // the variable, or every member of its block, is NonReadable
    std::string name;          // non-empty OpName of the variable, else of its block, else ""
    // StorageImage: its OpTypeImage's Image Format operand (§3.11: 0 Unknown, 3 R32f,
    // 4 Rgba8, 33 R32ui, ...); 0 for the other kinds
    uint32_t imageFormat = 0;
};

// §3.11 Image Format: the operands repro's image formats are declared with.
inline constexpr uint32_t kSpirvImageFormatR32f = 3;
inline constexpr uint32_t kSpirvImageFormatRgba8 = 4;
inline constexpr uint32_t kSpirvImageFormatR32ui = 33;

// "R32ui", "R32f", "Rgba8", "Unknown" (0), else "Image Format N": the spec's enumerant names.
std::string spirvImageFormatName(uint32_t format);

struct SpirvModule {
    std::vector<uint32_t> words;          // the whole module, host byte order
    uint32_t version = 0;                 // header word 1, e.g. 0x00010300 for SPIR-V 1.3
    std::string entryPoint;               // the GLCompute OpEntryPoint's name
    std::array<uint32_t, 3> localSize{};  // workgroup size in invocations, x y z (see parseSpirv)
    std::vector<SpirvBinding> bindings;   // every binding in the module, sorted by (set, binding)
    // The bytes of the largest block in the PushConstant storage class (0: none): its largest
    // member Offset plus that member's size (scalars, vectors, matrices, arrays with a
    // constant length and their ArrayStride, structs; §2.16.2 "Offset" and "ArrayStride").
    uint32_t pushConstantBytes = 0;
};

// Parses a module whose words are in host byte order. `what` names it in errors
// (e.g. "--spirv dir/conv_t.spv"); every error is UsageError("<what>: <problem>") for:
// - fewer than 5 words (no whole header);
// - a magic number other than 0x07230203 (the message gives the value found; a
//   byte-swapped module, magic 0x03022307, is rejected and called byte-swapped, not swapped);
// - an instruction whose word count is 0 or that runs past the end of the module;
// - a malformed instruction this parser reads (OpEntryPoint, OpExecutionMode, OpName,
//   OpDecorate, OpMemberDecorate, OpTypeStruct, OpTypePointer, OpTypeImage, OpVariable, constants);
// - no GLCompute entry point, or more than one (the message names them);
// - no workgroup size for that entry point;
// - a variable with only one of DescriptorSet and Binding;
// - a push-constant block with a member of another type, or an array without a constant length.
// The local size is the entry point's LocalSize, or its LocalSizeId when those ids are
// OpConstant or OpSpecConstant (a specialisation constant's default: repro specialises
// nothing), else "LocalSizeId not supported". A constant decorated BuiltIn WorkgroupSize
// (a composite of such constants) takes precedence over both, as the spec says (glslang
// emits one with the same values as LocalSize). Bindings are all variables in the module
// with DescriptorSet and Binding, whether or not the entry point uses them.
SpirvModule parseSpirv(std::vector<uint32_t> words, std::string_view what);

// The largest --spirv file read: the built-in conv_t.spv is about 8 KiB.
inline constexpr long kMaxSpirvBytes = 4 << 20;

// Reads the file at `path` (its bytes are the module's words in host byte order) and
// parses it with `what` = the path. UsageError naming the path (quoted) for a missing
// file, anything but a regular file (a directory, a FIFO, a device such as /dev/zero), a
// file over kMaxSpirvBytes, a file that cannot be read, an empty file, or a size that is
// not a multiple of 4 bytes (the message gives the size in bytes); then parseSpirv's errors.
SpirvModule loadSpirvFile(const std::filesystem::path& path);

// Checks a parsed module against what the host records: `localSize` must match exactly
// (the host computes workgroup counts from it), and the bindings must be exactly set 0,
// bindings 0..bindingCount-1, one variable each, each a storage or uniform buffer (not a
// storage image: --spirv's kernels bind buffers).
// Throws UsageError("<what>: <problem>") naming the first difference, e.g.
// "local size 8x8x1, the host dispatches for 16x16x1", "binding 3 missing",
// "set 1 binding 0 is not used by repro (...)". Bindings are checked in (set, binding) order.
void checkComputeInterface(const SpirvModule& module, std::string_view what, std::array<uint32_t, 3> localSize,
                           uint32_t bindingCount);

}  // namespace repro
