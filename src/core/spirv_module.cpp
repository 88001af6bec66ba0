// SPIR-V module reading (spirv_module.hpp; the § numbers are the SPIR-V specification's).
#include "core/spirv_module.hpp"

#include <fmt/format.h>

#include "core/bounded_file.hpp"
#include "core/enum_names.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <optional>
#include <span>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <spirv/unified1/spirv.hpp>

namespace repro {
namespace {

// §2.3: the header's words; a module of the other byte order starts with the magic number's
// bytes swapped.
constexpr uint32_t kMagicSwapped = 0x03022307;
constexpr size_t kHeaderWords = 5;

using Instruction = std::span<const uint32_t>;  // word 0 is (wordCount << 16) | opcode

struct Decorations {
    bool block = false;
    bool bufferBlock = false;
    bool nonWritable = false;
    bool nonReadable = false;
    bool workgroupSize = false;  // BuiltIn WorkgroupSize
    std::optional<uint32_t> set, binding;
    std::optional<uint32_t> arrayStride;
    std::unordered_set<uint32_t> nonWritableMembers, nonReadableMembers;
    std::unordered_map<uint32_t, uint32_t> memberOffsets;  // member -> Offset
};

struct EntryPoint {
    uint32_t function = 0;
    std::string name;
};

struct ExecutionMode {
    uint32_t mode = 0;
    std::vector<uint32_t> operands;
};

struct Pointer {
    uint32_t storageClass = 0;
    uint32_t pointee = 0;
};

struct Variable {
    uint32_t id = 0;
    uint32_t type = 0;
};

// OpTypeImage's operands after Sampled Type (§3.52): Dim, Depth, Arrayed, MS, Sampled, Image Format.
struct ImageType {
    uint32_t dim = 0, arrayed = 0, multisampled = 0, sampled = 0, format = 0;
};

// What one pass over the instruction stream collects; resolved after it (constants and
// types come after the entry point and modes that refer to them, §2.4).
struct Collected {
    std::vector<EntryPoint> glCompute;
    std::unordered_map<uint32_t, std::vector<ExecutionMode>> modes;  // by entry function
    std::unordered_map<uint32_t, std::string> names;
    std::unordered_map<uint32_t, Decorations> decorations;
    std::unordered_map<uint32_t, std::vector<uint32_t>> memberTypes;  // struct id -> member types
    // scalar, vector and matrix types -> (component type or 0 for a scalar, count or width)
    std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> numeric;
    std::unordered_map<uint32_t, uint32_t> arrayLength;   // OpTypeArray id -> its length's id
    std::unordered_map<uint32_t, uint32_t> arrayElement;  // (runtime) array id -> element type
    std::unordered_map<uint32_t, Pointer> pointers;
    std::unordered_map<uint32_t, ImageType> images;
    std::unordered_map<uint32_t, std::optional<uint32_t>> constants;  // value if one 32-bit word
    std::unordered_map<uint32_t, std::vector<uint32_t>> composites;   // constant composites
    std::vector<Variable> variables;
};

// The instructions repro reads, each with its name for messages and the fewest words it
// may have (§3.52).
struct OpShape {
    uint32_t opcode;
    std::string_view name;
    size_t minWords;
};
constexpr OpShape kOpShapes[] = {
    {spv::OpName, "OpName", 3},
    {spv::OpEntryPoint, "OpEntryPoint", 4},
    {spv::OpExecutionMode, "OpExecutionMode", 3},
    {spv::OpExecutionModeId, "OpExecutionModeId", 3},
    {spv::OpTypeInt, "OpTypeInt", 3},
    {spv::OpTypeFloat, "OpTypeFloat", 3},
    {spv::OpTypeVector, "OpTypeVector", 4},
    {spv::OpTypeMatrix, "OpTypeMatrix", 4},
    {spv::OpTypeImage, "OpTypeImage", 9},
    {spv::OpTypeArray, "OpTypeArray", 4},
    {spv::OpTypeRuntimeArray, "OpTypeRuntimeArray", 3},
    {spv::OpTypeStruct, "OpTypeStruct", 2},
    {spv::OpTypePointer, "OpTypePointer", 4},
    {spv::OpConstant, "OpConstant", 4},
    {spv::OpSpecConstant, "OpSpecConstant", 4},
    {spv::OpConstantComposite, "OpConstantComposite", 3},
    {spv::OpSpecConstantComposite, "OpSpecConstantComposite", 3},
    {spv::OpVariable, "OpVariable", 4},
    {spv::OpDecorate, "OpDecorate", 3},
    {spv::OpMemberDecorate, "OpMemberDecorate", 4},
};

class Parser {
  public:
    explicit Parser(std::string_view what) : what_(what) {}

    template <typename... Args>
    [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
        throw UsageError(fmt::format("{}: {}", what_, fmt::format(format, std::forward<Args>(args)...)));
    }

    // Fails unless `inst` has at least `words` words.
    void need(Instruction inst, size_t words, std::string_view opName) const {
        if (inst.size() < words) {
            fail("malformed {}: {} words, needs at least {}", opName, inst.size(), words);
        }
    }

    // §2.2.1: a literal string is UTF-8 octets packed four per word, the first in the
    // lowest-order 8 bits, ending in a NUL and padded to a word boundary with NULs.
    // Reads one from the start of `words`.
    std::string literalString(Instruction words, std::string_view opName) const {
        std::string s;
        for (const uint32_t word : words) {
            for (int b = 0; b < 4; ++b) {
                const auto c = static_cast<char>((word >> (8 * b)) & 0xffu);
                if (c == '\0') return s;
                s.push_back(c);
            }
        }
        fail("malformed {}: its string has no terminating NUL", opName);
    }

    // "%12" or "%12 ("name")" for messages.
    std::string describeId(const Collected& c, uint32_t id) const {
        const auto it = c.names.find(id);
        if (it == c.names.end() || it->second.empty()) return fmt::format("%{}", id);
        return fmt::format("%{} (\"{}\")", id, it->second);
    }

    // OpDecorate: records the decorations repro reads on the target id.
    void decorate(Instruction inst, Collected& c) const {
        Decorations& d = c.decorations[inst[1]];
        const uint32_t decoration = inst[2];
        if (decoration == spv::DecorationBlock) d.block = true;
        if (decoration == spv::DecorationBufferBlock) d.bufferBlock = true;
        if (decoration == spv::DecorationNonWritable) d.nonWritable = true;
        if (decoration == spv::DecorationNonReadable) d.nonReadable = true;
        if (decoration == spv::DecorationBuiltIn || decoration == spv::DecorationBinding ||
            decoration == spv::DecorationDescriptorSet || decoration == spv::DecorationArrayStride) {
            need(inst, 4, "OpDecorate");
            if (decoration == spv::DecorationArrayStride) d.arrayStride = inst[3];
            if (decoration == spv::DecorationBuiltIn && inst[3] == spv::BuiltInWorkgroupSize) d.workgroupSize = true;
            if (decoration == spv::DecorationBinding) d.binding = inst[3];
            if (decoration == spv::DecorationDescriptorSet) d.set = inst[3];
        }
    }

    // A type declaration (OpTypeInt .. OpTypeImage, its words checked) into `c`; other
    // instructions are left alone.
    static void type(Instruction inst, Collected& c) {
        switch (inst[0] & 0xffffu) {
            case spv::OpTypeInt:
            case spv::OpTypeFloat:
                c.numeric[inst[1]] = {0, inst[2]};
                break;
            case spv::OpTypeVector:
            case spv::OpTypeMatrix:
                c.numeric[inst[1]] = {inst[2], inst[3]};
                break;
            case spv::OpTypeArray:
                c.arrayLength[inst[1]] = inst[3];
                [[fallthrough]];
            case spv::OpTypeRuntimeArray:
                c.arrayElement[inst[1]] = inst[2];
                break;
            case spv::OpTypeStruct:
                c.memberTypes[inst[1]] = {inst.begin() + 2, inst.end()};
                break;
            case spv::OpTypePointer:
                c.pointers[inst[1]] = {inst[2], inst[3]};
                break;
            case spv::OpTypeImage:
                c.images[inst[1]] = {
                    .dim = inst[3], .arrayed = inst[5], .multisampled = inst[6], .sampled = inst[7], .format = inst[8]};
                break;
            default:
                break;
        }
    }

    // Collects what repro reads from one instruction into `c`; fails on a malformed one.
    void instruction(Instruction inst, Collected& c) const {
        const uint32_t opcode = inst[0] & 0xffffu;
        const OpShape* op = std::ranges::find(kOpShapes, opcode, &OpShape::opcode);
        if (op == std::end(kOpShapes)) return;
        need(inst, op->minWords, op->name);
        switch (opcode) {
            case spv::OpName:
                c.names[inst[1]] = literalString(inst.subspan(2), op->name);
                break;
            case spv::OpEntryPoint: {  // a GLCompute entry point is recorded, others skipped
                std::string entryName = literalString(inst.subspan(3), op->name);
                if (inst[1] == spv::ExecutionModelGLCompute) c.glCompute.push_back({inst[2], std::move(entryName)});
                break;
            }
            case spv::OpExecutionMode:
            case spv::OpExecutionModeId:
                c.modes[inst[1]].push_back({inst[2], {inst.begin() + 3, inst.end()}});
                break;
            case spv::OpConstant:
            case spv::OpSpecConstant:
                c.constants[inst[2]] = inst.size() == 4 ? std::optional(inst[3]) : std::nullopt;
                break;
            case spv::OpConstantComposite:
            case spv::OpSpecConstantComposite:
                c.composites[inst[2]] = {inst.begin() + 3, inst.end()};
                break;
            case spv::OpVariable:
                c.variables.push_back({inst[2], inst[1]});
                break;
            case spv::OpDecorate:
                decorate(inst, c);
                break;
            case spv::OpMemberDecorate:
                if (inst[3] == spv::DecorationNonWritable) c.decorations[inst[1]].nonWritableMembers.insert(inst[2]);
                if (inst[3] == spv::DecorationNonReadable) c.decorations[inst[1]].nonReadableMembers.insert(inst[2]);
                if (inst[3] == spv::DecorationOffset) {
                    need(inst, 5, op->name);
                    c.decorations[inst[1]].memberOffsets[inst[2]] = inst[4];
                }
                break;
            default:
                type(inst, c);
                break;
        }
    }

    // The 32-bit value of constant `id`, or nullopt when it is not a one-word OpConstant or
    // OpSpecConstant (a specialisation constant keeps its default: repro specialises nothing).
    static std::optional<uint32_t> constantValue(const Collected& c, uint32_t id) {
        const auto it = c.constants.find(id);
        return it == c.constants.end() ? std::nullopt : it->second;
    }

    std::array<uint32_t, 3> localSize(const Collected& c, const EntryPoint& entry) const {
        // §3.21: an object decorated WorkgroupSize takes precedence over LocalSize(Id).
        for (const auto& [id, d] : c.decorations) {
            if (!d.workgroupSize) continue;
            const auto composite = c.composites.find(id);
            std::array<uint32_t, 3> size{};
            bool ok = composite != c.composites.end() && composite->second.size() == 3;
            for (size_t i = 0; ok && i < 3; ++i) {
                const auto v = constantValue(c, composite->second[i]);
                ok = v.has_value();
                if (ok) size[i] = *v;
            }
            if (!ok) {
                fail("the WorkgroupSize built-in %{} is not a composite of three 32-bit constants", id);
            }
            return size;
        }
        const auto modes = c.modes.find(entry.function);
        if (modes != c.modes.end()) {
            for (const ExecutionMode& m : modes->second) {
                if (m.mode != spv::ExecutionModeLocalSize && m.mode != spv::ExecutionModeLocalSizeId) continue;
                const bool byId = m.mode == spv::ExecutionModeLocalSizeId;
                if (m.operands.size() != 3) {
                    fail("malformed {}: {} operands, needs 3", byId ? "LocalSizeId" : "LocalSize", m.operands.size());
                }
                std::array<uint32_t, 3> size{};
                for (size_t i = 0; i < 3; ++i) {
                    const auto v = byId ? constantValue(c, m.operands[i]) : std::optional(m.operands[i]);
                    if (!v) {
                        fail("LocalSizeId not supported: %{} is not a 32-bit OpConstant or OpSpecConstant",
                             m.operands[i]);
                    }
                    size[i] = *v;
                }
                return size;
            }
        }
        fail("no LocalSize for entry point \"{}\"", entry.name);
    }

    SpirvBinding binding(const Collected& c, const Variable& v, const Decorations& vd) const {
        if (!vd.set || !vd.binding) {
            const bool hasBinding = vd.binding.has_value();
            fail("variable {} has {} but no {}", describeId(c, v.id), hasBinding ? "Binding" : "DescriptorSet",
                 hasBinding ? "DescriptorSet" : "Binding");
        }
        SpirvBinding b{
            .set = *vd.set, .binding = *vd.binding, .nonWritable = vd.nonWritable, .nonReadable = vd.nonReadable};

        // The variable's type is a pointer (§3.52 OpVariable); its pointee is the block, or
        // an array of blocks (a descriptor array: Other, repro binds one buffer per binding).
        std::optional<Pointer> pointer;
        if (const auto p = c.pointers.find(v.type); p != c.pointers.end()) pointer = p->second;
        uint32_t pointee = pointer ? pointer->pointee : 0;
        bool array = false;
        for (auto a = c.arrayElement.find(pointee); a != c.arrayElement.end(); a = c.arrayElement.find(pointee)) {
            array = true;
            pointee = a->second;
        }
        const auto members = c.memberTypes.find(pointee);
        const bool isStruct = pointer && members != c.memberTypes.end();
        const auto typeDecorations = c.decorations.find(pointee);
        const Decorations none;
        const Decorations& td = isStruct && typeDecorations != c.decorations.end() ? typeDecorations->second : none;

        if (isStruct && !array) {
            const uint32_t sc = pointer->storageClass;
            if ((sc == spv::StorageClassStorageBuffer && td.block) ||
                (sc == spv::StorageClassUniform && td.bufferBlock)) {
                b.kind = SpirvResourceKind::StorageBuffer;
            } else if (sc == spv::StorageClassUniform && td.block) {
                b.kind = SpirvResourceKind::UniformBuffer;
            }
        }
        const auto image = c.images.find(pointee);
        if (pointer && pointer->storageClass == spv::StorageClassUniformConstant && !array && image != c.images.end()) {
            const ImageType& i = image->second;
            if (i.dim == spv::Dim2D && i.arrayed == 0 && i.multisampled == 0 && i.sampled == 2) {
                b.kind = SpirvResourceKind::StorageImage;
                b.imageFormat = i.format;
            }
        }
        if (isStruct && !members->second.empty()) {
            bool all = true, allNonReadable = true;
            for (uint32_t m = 0; m < members->second.size(); ++m) {
                all = all && td.nonWritableMembers.contains(m);
                allNonReadable = allNonReadable && td.nonReadableMembers.contains(m);
            }
            b.nonWritable = b.nonWritable || all;
            b.nonReadable = b.nonReadable || allNonReadable;
        }
        if (const auto n = c.names.find(v.id); n != c.names.end() && !n->second.empty()) {
            b.name = n->second;
        } else if (const auto tn = c.names.find(pointee); isStruct && tn != c.names.end()) {
            b.name = tn->second;
        }
        return b;
    }

    // The bytes a push-constant (or any explicitly laid out) type takes: a scalar its width,
    // a vector or matrix its components, an array its length times its ArrayStride (else its
    // element's size), a struct its largest member Offset + member size. Fails on other
    // types and on nesting deeper than 16 (a malformed, cyclic module).
    uint32_t typeBytes(const Collected& c, uint32_t type, int depth = 0) const {
        if (depth > 16) fail("type %{} nests deeper than 16 levels", type);
        if (const auto n = c.numeric.find(type); n != c.numeric.end()) {
            const auto [component, count] = n->second;
            return component == 0 ? count / 8 : count * typeBytes(c, component, depth + 1);
        }
        if (const auto a = c.arrayLength.find(type); a != c.arrayLength.end()) {
            const auto length = constantValue(c, a->second);
            if (!length) fail("array type %{} has no constant length", type);
            const auto d = c.decorations.find(type);
            const uint32_t stride = d != c.decorations.end() && d->second.arrayStride
                                        ? *d->second.arrayStride
                                        : typeBytes(c, c.arrayElement.at(type), depth + 1);
            return *length * stride;
        }
        const auto members = c.memberTypes.find(type);
        if (members == c.memberTypes.end())
            fail("push-constant type %{} is not a number, vector, matrix, array or struct", type);
        const auto d = c.decorations.find(type);
        uint32_t end = 0, packed = 0;
        for (uint32_t m = 0; m < members->second.size(); ++m) {
            const uint32_t bytes = typeBytes(c, members->second[m], depth + 1);
            uint32_t offset = packed;
            if (d != c.decorations.end() && d->second.memberOffsets.contains(m)) offset = d->second.memberOffsets.at(m);
            packed = offset + bytes;
            end = std::max(end, packed);
        }
        return end;
    }

    // The largest push-constant block's bytes among the PushConstant variables (0: none).
    uint32_t pushConstantBytes(const Collected& c) const {
        uint32_t out = 0;
        for (const Variable& v : c.variables) {
            const auto p = c.pointers.find(v.type);
            if (p == c.pointers.end() || p->second.storageClass != spv::StorageClassPushConstant) continue;
            out = std::max(out, typeBytes(c, p->second.pointee));
        }
        return out;
    }

    SpirvModule parse(std::vector<uint32_t> words) const {
        if (words.size() < kHeaderWords) {
            fail("{} words, fewer than the 5 of a SPIR-V header", words.size());
        }
        if (words[0] == kMagicSwapped) {
            fail("magic number 0x{:08x} is byte-swapped: the module is in the other byte order", words[0]);
        }
        if (words[0] != spv::MagicNumber) {
            fail("magic number 0x{:08x}, not SPIR-V's 0x{:08x}", words[0], spv::MagicNumber);
        }

        Collected c;
        const std::span<const uint32_t> all(words);
        for (size_t pos = kHeaderWords; pos < words.size();) {
            const uint32_t wordCount = words[pos] >> 16;
            const uint32_t opcode = words[pos] & 0xffffu;
            if (wordCount == 0) {
                fail("instruction at word {} (opcode {}) has word count 0", pos, opcode);
            }
            if (wordCount > words.size() - pos) {
                fail(
                    "instruction at word {} (opcode {}) has {} words, running past the end of "
                    "the module ({} words; truncated?)",
                    pos, opcode, wordCount, words.size());
            }
            instruction(all.subspan(pos, wordCount), c);
            pos += wordCount;
        }

        if (c.glCompute.empty()) fail("no GLCompute entry point");
        if (c.glCompute.size() > 1) {
            std::string list;
            for (const EntryPoint& e : c.glCompute) {
                list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", e.name);
            }
            fail("{} GLCompute entry points ({}); repro needs exactly one", c.glCompute.size(), list);
        }

        SpirvModule module;
        module.version = words[1];
        module.entryPoint = c.glCompute[0].name;
        module.localSize = localSize(c, c.glCompute[0]);
        module.pushConstantBytes = pushConstantBytes(c);
        for (const Variable& v : c.variables) {
            const auto d = c.decorations.find(v.id);
            if (d == c.decorations.end() || (!d->second.set && !d->second.binding)) continue;
            module.bindings.push_back(binding(c, v, d->second));
        }
        std::stable_sort(module.bindings.begin(), module.bindings.end(),
                         [](const SpirvBinding& a, const SpirvBinding& b) {
                             return std::tie(a.set, a.binding) < std::tie(b.set, b.binding);
                         });
        module.words = std::move(words);
        return module;
    }

  private:
    std::string_view what_;
};

std::string describeBinding(const SpirvBinding& b) {
    std::string s = fmt::format("set {} binding {}", b.set, b.binding);
    if (!b.name.empty()) s += fmt::format(" (\"{}\")", b.name);
    return s;
}

}  // namespace

std::string_view name(SpirvResourceKind k) {
    static constexpr std::string_view kNames[] = {"storage buffer", "uniform buffer", "storage image", "other"};
    return nameOf(kNames, k);
}

std::string spirvImageFormatName(uint32_t format) {
    static constexpr std::pair<uint32_t, std::string_view> kNames[] = {{0, "Unknown"},
                                                                       {kSpirvImageFormatR32f, "R32f"},
                                                                       {kSpirvImageFormatRgba8, "Rgba8"},
                                                                       {kSpirvImageFormatR32ui, "R32ui"}};
    for (const auto& [value, name] : kNames) {
        if (value == format) return std::string(name);
    }
    return fmt::format("Image Format {}", format);
}

SpirvModule parseSpirv(std::vector<uint32_t> words, std::string_view what) {
    return Parser(what).parse(std::move(words));
}

SpirvModule loadSpirvFile(const std::filesystem::path& path) {
    const std::string p = quote(path.string());
    // Only a regular file of a bounded size is read (core/bounded_file.hpp): a link to
    // /dev/zero or a FIFO would otherwise eat memory or block for ever.
    const BoundedRead file = readRegularFile(path.string(), kMaxSpirvBytes);
    if (file.tooLarge) {
        throw UsageError(fmt::format("{}: {} bytes, more than a compute shader's SPIR-V can be here (at most {} MiB)",
                                     p, file.size, kMaxSpirvBytes >> 20));
    }
    if (!file.problem.empty()) {
        throw UsageError(fmt::format("{}: cannot read: {}", p,
                                     file.error == ENOENT ? "no such file"
                                     : file.directory     ? "it is a directory, not a file"
                                     : file.error == 0    ? "not a regular file"
                                                          : file.problem));
    }
    const std::string& bytes = file.bytes;
    if (bytes.empty()) throw UsageError(fmt::format("{}: empty file (0 bytes)", p));
    if (bytes.size() % 4 != 0) {
        throw UsageError(fmt::format("{}: {} bytes, not a whole number of 32-bit words (truncated?)", p, bytes.size()));
    }
    std::vector<uint32_t> words(bytes.size() / 4);
    std::memcpy(words.data(), bytes.data(), bytes.size());
    return parseSpirv(std::move(words), p);
}

void checkComputeInterface(const SpirvModule& module, std::string_view what, std::array<uint32_t, 3> localSize,
                           uint32_t bindingCount) {
    const auto fail = [what](const std::string& problem) { throw UsageError(fmt::format("{}: {}", what, problem)); };
    if (module.localSize != localSize) {
        fail(fmt::format("local size {}x{}x{}, the host dispatches for {}x{}x{}", module.localSize[0],
                         module.localSize[1], module.localSize[2], localSize[0], localSize[1], localSize[2]));
    }
    const std::string expected = bindingCount == 0 ? std::string("repro binds no descriptors")
                                                   : fmt::format("repro binds set 0, bindings 0..{}", bindingCount - 1);

    // Walk the sorted bindings against (0, 0) .. (0, bindingCount-1).
    const auto& bs = module.bindings;
    size_t j = 0;
    for (uint32_t i = 0; i < bindingCount; ++i) {
        if (j == bs.size() || bs[j].set != 0 || bs[j].binding != i) {
            fail(fmt::format("binding {} missing ({})", i, expected));
        }
        if (bs[j].kind == SpirvResourceKind::Other || bs[j].kind == SpirvResourceKind::StorageImage) {
            fail(fmt::format("{} is {}, not a storage or uniform buffer", describeBinding(bs[j]), name(bs[j].kind)));
        }
        ++j;
        if (j < bs.size() && bs[j].set == 0 && bs[j].binding == i) {
            fail(fmt::format("set 0 binding {} is declared by more than one variable", i));
        }
    }
    if (j < bs.size()) {
        fail(fmt::format("{} is not used by repro ({})", describeBinding(bs[j]), expected));
    }
}

}  // namespace repro
