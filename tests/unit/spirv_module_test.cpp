// Unit tests for src/core/spirv_module.{hpp,cpp}: the embedded shaders (the modules the
// build makes, linked in through repro_vk) parse to the interface the host records, and
// every UsageError path of parseSpirv, loadSpirvFile and checkComputeInterface, with
// hand-built modules for what glslang does not emit.
#include "core/spirv_module.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <sys/stat.h>

#include "repro_shared.h"

extern const uint32_t conv_t_spv[];
extern const size_t conv_t_spv_words;
extern const uint32_t slice_spv[];
extern const size_t slice_spv_words;

namespace repro {
namespace {

using Size3 = std::array<uint32_t, 3>;

constexpr Size3 kConvLocalSize{REPRO_CONV_WORKGROUP_X, REPRO_CONV_WORKGROUP_Y, 1};
constexpr Size3 kSliceLocalSize{REPRO_SLICE_WORKGROUP_X, 1, 1};

std::vector<uint32_t> convT() { return {conv_t_spv, conv_t_spv + conv_t_spv_words}; }
std::vector<uint32_t> slice() { return {slice_spv, slice_spv + slice_spv_words}; }

// The message of the UsageError parseSpirv throws for `words`; fails the test when none.
std::string parseError(std::vector<uint32_t> words, std::string_view what = "test.spv") {
    try {
        (void)parseSpirv(std::move(words), what);
    } catch (const UsageError& e) {
        return e.what();
    }
    ADD_FAILURE() << "parseSpirv did not throw UsageError";
    return {};
}

std::string checkError(const SpirvModule& m, Size3 localSize, uint32_t bindingCount,
                       std::string_view what = "test.spv") {
    try {
        checkComputeInterface(m, what, localSize, bindingCount);
    } catch (const UsageError& e) {
        return e.what();
    }
    ADD_FAILURE() << "checkComputeInterface did not throw UsageError";
    return {};
}

std::string loadError(const std::filesystem::path& path) {
    try {
        (void)loadSpirvFile(path);
    } catch (const UsageError& e) {
        return e.what();
    }
    ADD_FAILURE() << "loadSpirvFile did not throw UsageError for " << path;
    return {};
}

// A path under the test temporary folder, unique to the running test.
std::filesystem::path tempPath(std::string_view suffix) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return std::filesystem::path(::testing::TempDir()) /
           (std::string("spirv_module_test_") + info->name() + std::string(suffix));
}

std::filesystem::path writeFile(std::string_view suffix, const void* data, size_t bytes) {
    const auto path = tempPath(suffix);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    EXPECT_TRUE(out.good()) << path;
    return path;
}

// Builds modules instruction by instruction (SPIR-V spec §2.3: word 0 of an instruction is
// (wordCount << 16) | opcode; literal strings are NUL-terminated, packed little-end first).
// They only need to be well-formed for the parser, not valid for spirv-val.
struct Builder {
    std::vector<uint32_t> words{0x07230203u, 0x00010300u, 0u, 1000u, 0u};

    static std::vector<uint32_t> str(std::string_view s) {
        std::vector<uint32_t> w(s.size() / 4 + 1, 0u);
        for (size_t i = 0; i < s.size(); ++i) {
            w[i / 4] |= static_cast<uint32_t>(static_cast<unsigned char>(s[i])) << (8 * (i % 4));
        }
        return w;
    }
    Builder& op(uint32_t opcode, std::vector<uint32_t> operands) {
        words.push_back(static_cast<uint32_t>(operands.size() + 1) << 16 | opcode);
        words.insert(words.end(), operands.begin(), operands.end());
        return *this;
    }
    static std::vector<uint32_t> cat(std::initializer_list<std::vector<uint32_t>> parts) {
        std::vector<uint32_t> all;
        for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
        return all;
    }
    Builder& entryPoint(uint32_t model, uint32_t function, std::string_view entryName) {
        return op(15, cat({{model, function}, str(entryName)}));
    }
    Builder& localSize(uint32_t function, uint32_t x, uint32_t y, uint32_t z) {
        return op(16, {function, 17, x, y, z});
    }
    Builder& name(uint32_t id, std::string_view n) { return op(5, cat({{id}, str(n)})); }
    Builder& decorate(uint32_t id, std::vector<uint32_t> decoration) { return op(71, cat({{id}, decoration})); }
    Builder& uintType() { return op(21, {kUint, 32, 0}); }  // OpTypeInt %uint 32 0
    Builder& constant(uint32_t id, uint32_t value) { return op(43, {kUint, id, value}); }

    // One block variable %var of pointer type to a one-member struct %block.
    struct Buffer {
        uint32_t var, block, pointer;
        uint32_t storageClass = 12;    // StorageBuffer
        uint32_t blockDecoration = 2;  // Block
        uint32_t set = 0, binding = 0;
        std::string_view name = "";
        bool nonWritableMember = false;
    };
    Builder& buffer(const Buffer& b) {
        if (!b.name.empty()) name(b.var, b.name);
        decorate(b.block, {b.blockDecoration});
        if (b.nonWritableMember) op(72, {b.block, 0, 24});
        decorate(b.var, {34, b.set});
        decorate(b.var, {33, b.binding});
        op(30, {b.block, kUint});                           // OpTypeStruct %block %uint
        op(32, {b.pointer, b.storageClass, b.block});       // OpTypePointer
        return op(59, {b.pointer, b.var, b.storageClass});  // OpVariable
    }

    static constexpr uint32_t kUint = 900;
};

// A GLCompute "main" (%1) with LocalSize 8x4x2 and the uint type; callers add the rest.
Builder computeModule() {
    Builder b;
    b.op(17, {1});     // OpCapability Shader
    b.op(14, {0, 1});  // OpMemoryModel Logical GLSL450
    b.entryPoint(5, 1, "main").localSize(1, 8, 4, 2).uintType();
    return b;
}

// ---- the embedded shaders -----------------------------------------------------------

TEST(SpirvEmbedded, ConvTParsesToItsEntryPointLocalSizeAndFourStorageBuffers) {
    const SpirvModule m = parseSpirv(convT(), "conv_t");
    EXPECT_EQ(m.words, convT());
    EXPECT_EQ(m.version, 0x00010300u);  // --target-env vulkan1.1 (cmake/Shaders.cmake)
    EXPECT_EQ(m.entryPoint, "main");
    EXPECT_EQ(m.localSize, (Size3{16, 16, 1}));
    ASSERT_EQ(m.bindings.size(), 4u);
    const char* names[] = {"GradOut", "Weight", "Dst", "ParamsBlock"};  // the block names:
    const bool nonWritable[] = {true, true, false, true};               // glslang's variables are unnamed
    for (uint32_t i = 0; i < 4; ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(m.bindings[i].set, 0u);
        EXPECT_EQ(m.bindings[i].binding, i);
        EXPECT_EQ(m.bindings[i].kind, SpirvResourceKind::StorageBuffer);
        EXPECT_EQ(m.bindings[i].nonWritable, nonWritable[i]);
        EXPECT_EQ(m.bindings[i].name, names[i]);
    }
}

TEST(SpirvEmbedded, SliceParsesTo256x1x1AndThreeStorageBuffers) {
    const SpirvModule m = parseSpirv(slice(), "slice");
    EXPECT_EQ(m.entryPoint, "main");
    EXPECT_EQ(m.localSize, (Size3{256, 1, 1}));
    ASSERT_EQ(m.bindings.size(), 3u);
    const bool nonWritable[] = {true, false, true};
    for (uint32_t i = 0; i < 3; ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(m.bindings[i].set, 0u);
        EXPECT_EQ(m.bindings[i].binding, i);
        EXPECT_EQ(m.bindings[i].kind, SpirvResourceKind::StorageBuffer);
        EXPECT_EQ(m.bindings[i].nonWritable, nonWritable[i]);
    }
}

TEST(SpirvEmbedded, FileRoundTripLoadsTheSameModule) {
    const auto words = convT();
    const auto path = writeFile(".spv", words.data(), words.size() * 4);
    const SpirvModule m = loadSpirvFile(path);
    EXPECT_EQ(m.words, words);
    EXPECT_EQ(m.localSize, (Size3{16, 16, 1}));
    EXPECT_EQ(m.bindings.size(), 4u);
    std::filesystem::remove(path);
}

// ---- checkComputeInterface -----------------------------------------------------------

TEST(SpirvCheck, AcceptsBothEmbeddedShadersAsTheHostRecordsThem) {
    EXPECT_NO_THROW(checkComputeInterface(parseSpirv(convT(), "conv_t"), "conv_t", kConvLocalSize, 4));
    EXPECT_NO_THROW(checkComputeInterface(parseSpirv(slice(), "slice"), "slice", kSliceLocalSize, 3));
}

TEST(SpirvCheck, RejectsAWrongLocalSize) {
    const SpirvModule m = parseSpirv(convT(), "conv_t");
    EXPECT_EQ(checkError(m, {8, 8, 1}, 4, "--spirv d/conv_t.spv"),
              "--spirv d/conv_t.spv: local size 16x16x1, the host dispatches for 8x8x1");
    EXPECT_NE(checkError(m, {16, 16, 2}, 4).find("local size 16x16x1"), std::string::npos);
}

TEST(SpirvCheck, RejectsABindingTheHostDoesNotBind) {
    const std::string e = checkError(parseSpirv(convT(), "conv_t"), kConvLocalSize, 3, "conv");
    EXPECT_EQ(e,
              "conv: set 0 binding 3 (\"ParamsBlock\") is not used by repro (repro binds "
              "set 0, bindings 0..2)");
}

TEST(SpirvCheck, RejectsAMissingBinding) {
    EXPECT_EQ(checkError(parseSpirv(slice(), "slice"), kSliceLocalSize, 4, "slice"),
              "slice: binding 3 missing (repro binds set 0, bindings 0..3)");
    // A gap: bindings 0 and 2 only.
    Builder b = computeModule();
    b.buffer({.var = 10, .block = 11, .pointer = 12, .binding = 0});
    b.buffer({.var = 20, .block = 21, .pointer = 22, .binding = 2});
    EXPECT_NE(checkError(parseSpirv(b.words, "gap"), {8, 4, 2}, 3).find("binding 1 missing"), std::string::npos);
}

TEST(SpirvCheck, RejectsASetOtherThanZero) {
    Builder b = computeModule();
    b.buffer({.var = 10, .block = 11, .pointer = 12, .binding = 0});
    b.buffer({.var = 20, .block = 21, .pointer = 22, .set = 1, .binding = 0});
    const SpirvModule m = parseSpirv(b.words, "sets");
    EXPECT_EQ(checkError(m, {8, 4, 2}, 1, "sets"),
              "sets: set 1 binding 0 is not used by repro (repro binds set 0, bindings 0..0)");
    // Set 1 binding 0 stands where the host expects set 0 binding 1.
    EXPECT_NE(checkError(m, {8, 4, 2}, 2).find("binding 1 missing"), std::string::npos);
}

TEST(SpirvCheck, RejectsABindingThatIsNotABuffer) {
    Builder b = computeModule();
    b.buffer({.var = 10, .block = 11, .pointer = 12, .binding = 0});
    // A struct in the UniformConstant class (0) is neither kind of buffer.
    b.buffer({.var = 20, .block = 21, .pointer = 22, .storageClass = 0, .binding = 1, .name = "thing"});
    const SpirvModule m = parseSpirv(b.words, "x");
    ASSERT_EQ(m.bindings.size(), 2u);
    EXPECT_EQ(m.bindings[1].kind, SpirvResourceKind::Other);
    EXPECT_EQ(checkError(m, {8, 4, 2}, 2, "x"),
              "x: set 0 binding 1 (\"thing\") is other, not a storage or uniform buffer");
}

TEST(SpirvCheck, RejectsTwoVariablesOnOneBinding) {
    Builder b = computeModule();
    b.buffer({.var = 10, .block = 11, .pointer = 12, .binding = 0});
    b.buffer({.var = 20, .block = 21, .pointer = 22, .binding = 0});
    EXPECT_EQ(checkError(parseSpirv(b.words, "x"), {8, 4, 2}, 1, "x"),
              "x: set 0 binding 0 is declared by more than one variable");
}

TEST(SpirvCheck, AcceptsAUniformBuffer) {
    Builder b = computeModule();
    b.buffer({.var = 10, .block = 11, .pointer = 12, .storageClass = 2, .binding = 0});
    EXPECT_NO_THROW(checkComputeInterface(parseSpirv(b.words, "x"), "x", {8, 4, 2}, 1));
}

// ---- resource kinds, names, NonWritable ----------------------------------------------

TEST(SpirvBindings, KindNames) {
    EXPECT_EQ(name(SpirvResourceKind::StorageBuffer), "storage buffer");
    EXPECT_EQ(name(SpirvResourceKind::UniformBuffer), "uniform buffer");
    EXPECT_EQ(name(SpirvResourceKind::Other), "other");
}

TEST(SpirvBindings, UniformBlockIsAUniformBufferNamedByItsVariable) {
    Builder b = computeModule();
    b.name(11, "ParamsType");
    b.buffer({.var = 10, .block = 11, .pointer = 12, .storageClass = 2, .set = 0, .binding = 3, .name = "params"});
    const SpirvModule m = parseSpirv(b.words, "x");
    EXPECT_EQ(m.localSize, (Size3{8, 4, 2}));
    ASSERT_EQ(m.bindings.size(), 1u);
    EXPECT_EQ(m.bindings[0].kind, SpirvResourceKind::UniformBuffer);
    EXPECT_EQ(m.bindings[0].binding, 3u);
    EXPECT_EQ(m.bindings[0].name, "params");  // the variable's name wins over the block's
    EXPECT_FALSE(m.bindings[0].nonWritable);
}

TEST(SpirvBindings, UniformBufferBlockIsAStorageBufferAndVariableNonWritableCounts) {
    Builder b = computeModule();
    b.decorate(10, {24});  // NonWritable on the variable
    b.buffer({.var = 10, .block = 11, .pointer = 12, .storageClass = 2, .blockDecoration = 3});
    const SpirvModule m = parseSpirv(b.words, "x");
    ASSERT_EQ(m.bindings.size(), 1u);
    EXPECT_EQ(m.bindings[0].kind, SpirvResourceKind::StorageBuffer);
    EXPECT_TRUE(m.bindings[0].nonWritable);
    EXPECT_EQ(m.bindings[0].name, "");
}

TEST(SpirvBindings, StorageClassWithTheWrongBlockDecorationIsOther) {
    Builder b = computeModule();  // StorageBuffer + BufferBlock is neither kind
    b.buffer({.var = 10, .block = 11, .pointer = 12, .blockDecoration = 3, .nonWritableMember = true});
    const SpirvModule m = parseSpirv(b.words, "x");
    ASSERT_EQ(m.bindings.size(), 1u);
    EXPECT_EQ(m.bindings[0].kind, SpirvResourceKind::Other);
    EXPECT_TRUE(m.bindings[0].nonWritable);  // from its one member
}

TEST(SpirvBindings, ABlockIsNonWritableOnlyWhenEveryMemberIs) {
    Builder b = computeModule();
    b.decorate(11, {2});    // Block
    b.op(72, {11, 1, 24});  // member 1 NonWritable, member 0 not
    b.decorate(10, {34, 0}).decorate(10, {33, 0});
    b.op(30, {11, Builder::kUint, Builder::kUint});  // %11 = OpTypeStruct %uint %uint
    b.op(32, {12, 12, 11});
    b.op(59, {12, 10, 12});
    const SpirvModule partly = parseSpirv(b.words, "x");
    ASSERT_EQ(partly.bindings.size(), 1u);
    EXPECT_EQ(partly.bindings[0].kind, SpirvResourceKind::StorageBuffer);
    EXPECT_FALSE(partly.bindings[0].nonWritable);

    b.op(72, {11, 0, 24});  // now member 0 too
    EXPECT_TRUE(parseSpirv(b.words, "x").bindings[0].nonWritable);
}

TEST(SpirvBindings, AnArrayOfBlocksIsOther) {
    Builder b = computeModule();
    b.constant(30, 4);
    b.decorate(11, {2});  // Block
    b.decorate(10, {34, 0});
    b.decorate(10, {33, 0});
    b.op(30, {11, Builder::kUint});  // %11 = OpTypeStruct %uint
    b.op(28, {13, 11, 30});          // %13 = OpTypeArray %11 %30
    b.op(32, {12, 12, 13});          // %12 = OpTypePointer StorageBuffer %13
    b.op(59, {12, 10, 12});          // %10 = OpVariable %12 StorageBuffer
    const SpirvModule m = parseSpirv(b.words, "x");
    ASSERT_EQ(m.bindings.size(), 1u);
    EXPECT_EQ(m.bindings[0].kind, SpirvResourceKind::Other);
}

TEST(SpirvBindings, AreSortedBySetThenBinding) {
    Builder b = computeModule();
    b.buffer({.var = 10, .block = 11, .pointer = 12, .set = 1, .binding = 0});
    b.buffer({.var = 20, .block = 21, .pointer = 22, .set = 0, .binding = 5});
    b.buffer({.var = 30, .block = 31, .pointer = 32, .set = 0, .binding = 1});
    const SpirvModule m = parseSpirv(b.words, "x");
    ASSERT_EQ(m.bindings.size(), 3u);
    EXPECT_EQ(m.bindings[0].binding, 1u);
    EXPECT_EQ(m.bindings[1].binding, 5u);
    EXPECT_EQ(m.bindings[2].set, 1u);
}

// %var (binding `binding`, set 0, named "img") = OpVariable of a UniformConstant pointer %ptr
// to %image = OpTypeImage %uint with `operands` Dim, Depth, Arrayed, MS, Sampled, Image Format
// (SPIR-V spec §3.52 OpTypeImage).
void addImage(Builder& b, uint32_t var, uint32_t binding, std::vector<uint32_t> operands) {
    b.name(var, "img");
    b.decorate(var, {34, 0}).decorate(var, {33, binding});
    operands.insert(operands.begin(), {var + 1, Builder::kUint});
    b.op(25, operands);               // OpTypeImage
    b.op(32, {var + 2, 0, var + 1});  // OpTypePointer UniformConstant %image
    b.op(59, {var + 2, var, 0});      // OpVariable UniformConstant
}

TEST(SpirvBindings, A2DStorageImageIsAStorageImageWithItsFormat) {
    Builder b = computeModule();
    b.decorate(10, {24});                     // NonWritable on the variable (GLSL readonly)
    addImage(b, 10, 0, {1, 0, 0, 0, 2, 33});  // 2D, not depth, arrayed or multisampled, Sampled 2, R32ui
    b.buffer({.var = 20, .block = 21, .pointer = 22, .binding = 1});
    const SpirvModule m = parseSpirv(b.words, "x");
    ASSERT_EQ(m.bindings.size(), 2u);
    EXPECT_EQ(m.bindings[0].kind, SpirvResourceKind::StorageImage);
    EXPECT_EQ(m.bindings[0].imageFormat, kSpirvImageFormatR32ui);
    EXPECT_EQ(m.bindings[0].name, "img");
    EXPECT_TRUE(m.bindings[0].nonWritable);
    EXPECT_FALSE(m.bindings[0].nonReadable);
    EXPECT_EQ(m.bindings[1].kind, SpirvResourceKind::StorageBuffer);
    EXPECT_EQ(m.bindings[1].imageFormat, 0u);
    EXPECT_EQ(name(SpirvResourceKind::StorageImage), "storage image");
    EXPECT_EQ(spirvImageFormatName(33), "R32ui");
    EXPECT_EQ(spirvImageFormatName(2), "Image Format 2");
    // --spirv's kernels bind buffers: a storage image there is refused
    EXPECT_EQ(checkError(m, {8, 4, 2}, 2, "x"),
              "x: set 0 binding 0 (\"img\") is storage image, not a storage or uniform buffer");
}

TEST(SpirvBindings, OtherImagesAreOther) {
    for (const std::vector<uint32_t>& operands :
         std::vector<std::vector<uint32_t>>{{1, 0, 0, 0, 1, 33},   // Sampled 1: a sampled image
                                            {1, 0, 1, 0, 2, 33},   // arrayed
                                            {1, 0, 0, 1, 2, 33},   // multisampled
                                            {2, 0, 0, 0, 2, 33}})  // Dim 3D
    {
        Builder b = computeModule();
        addImage(b, 10, 0, operands);
        const SpirvModule m = parseSpirv(b.words, "x");
        ASSERT_EQ(m.bindings.size(), 1u);
        EXPECT_EQ(m.bindings[0].kind, SpirvResourceKind::Other) << operands[0] << operands[2] << operands[4];
    }
    Builder b = computeModule();
    b.op(25, {11, Builder::kUint, 1, 0, 0, 0, 2});  // no Image Format operand
    EXPECT_EQ(parseError(b.words, "x"), "x: malformed OpTypeImage: 8 words, needs at least 9");
}

TEST(SpirvBindings, ABindingWithoutADescriptorSetIsAnError) {
    Builder b = computeModule();
    b.name(10, "buf");
    b.decorate(10, {33, 0});  // Binding only
    b.op(30, {11, Builder::kUint});
    b.op(32, {12, 12, 11});
    b.op(59, {12, 10, 12});
    EXPECT_EQ(parseError(b.words, "x"), "x: variable %10 (\"buf\") has Binding but no DescriptorSet");
}

// ---- local size ----------------------------------------------------------------------

TEST(SpirvLocalSize, OnlyTheGLComputeEntryPointsModeCounts) {
    Builder b;
    b.entryPoint(0, 2, "vs").entryPoint(5, 1, "cs");  // Vertex %2, GLCompute %1
    b.localSize(2, 99, 99, 99).localSize(1, 32, 2, 1);
    const SpirvModule m = parseSpirv(b.words, "x");
    EXPECT_EQ(m.entryPoint, "cs");
    EXPECT_EQ(m.localSize, (Size3{32, 2, 1}));
}

TEST(SpirvLocalSize, LocalSizeIdResolvesConstants) {
    Builder b;
    b.entryPoint(5, 1, "main").op(331, {1, 38, 30, 31, 32});  // OpExecutionModeId LocalSizeId
    b.uintType().constant(30, 64).constant(31, 1);
    b.op(50, {Builder::kUint, 32, 3});  // %32 = OpSpecConstant %uint 3 (its default)
    EXPECT_EQ(parseSpirv(b.words, "x").localSize, (Size3{64, 1, 3}));
}

TEST(SpirvLocalSize, LocalSizeIdOfANonConstantIsNotSupported) {
    Builder b;
    b.entryPoint(5, 1, "main").op(331, {1, 38, 30, 31, 77});
    b.uintType().constant(30, 64).constant(31, 1);
    const std::string e = parseError(b.words, "x");
    EXPECT_NE(e.find("x: LocalSizeId not supported"), std::string::npos) << e;
    EXPECT_NE(e.find("%77"), std::string::npos) << e;
}

TEST(SpirvLocalSize, TheWorkgroupSizeBuiltInTakesPrecedence) {
    Builder b = computeModule();  // LocalSize 8x4x2
    b.decorate(40, {11, 25});     // BuiltIn WorkgroupSize
    b.constant(30, 4).constant(31, 4).constant(32, 4);
    b.op(23, {41, Builder::kUint, 3});  // %41 = OpTypeVector %uint 3
    b.op(44, {41, 40, 30, 31, 32});     // %40 = OpConstantComposite %41 %30 %31 %32
    EXPECT_EQ(parseSpirv(b.words, "x").localSize, (Size3{4, 4, 4}));
}

TEST(SpirvLocalSize, MissingLocalSizeIsAnError) {
    Builder b;
    b.entryPoint(5, 1, "main");
    EXPECT_EQ(parseError(b.words, "x"), "x: no LocalSize for entry point \"main\"");
}

// ---- entry points --------------------------------------------------------------------

TEST(SpirvEntryPoint, TwoGLComputeEntryPointsAreAnErrorNamingBoth) {
    Builder b;
    b.entryPoint(5, 1, "conv_t").entryPoint(5, 2, "slice");
    b.localSize(1, 16, 16, 1).localSize(2, 256, 1, 1);
    EXPECT_EQ(parseError(b.words, "--spirv d/conv_t.spv"),
              "--spirv d/conv_t.spv: 2 GLCompute entry points (\"conv_t\", \"slice\"); repro "
              "needs exactly one");
}

TEST(SpirvEntryPoint, NoGLComputeEntryPointIsAnError) {
    Builder b;
    b.entryPoint(4, 1, "fs").localSize(1, 1, 1, 1);  // Fragment
    EXPECT_EQ(parseError(b.words, "x"), "x: no GLCompute entry point");
}

TEST(SpirvEntryPoint, NamesOfEveryLengthDecode) {
    // 3, 4 and 5 characters: the NUL ends the first word, fills its own word, or the second.
    for (std::string_view n : {"abc", "abcd", "abcde"}) {
        Builder b;
        b.entryPoint(5, 1, n).localSize(1, 1, 1, 1);
        EXPECT_EQ(parseSpirv(b.words, "x").entryPoint, n);
    }
}

TEST(SpirvEntryPoint, ANameWithoutNulIsAnError) {
    Builder b;
    b.op(15, {5, 1, 0x64636261u});  // "abcd" with no NUL word after it
    b.localSize(1, 1, 1, 1);
    const std::string e = parseError(b.words, "x");
    EXPECT_EQ(e, "x: malformed OpEntryPoint: its string has no terminating NUL");
}

// ---- header and instruction stream ---------------------------------------------------

TEST(SpirvParse, TruncatedModuleRunsPastTheEnd) {
    // Cut the module inside its last instruction of two or more words (its last ones,
    // OpReturn and OpFunctionEnd, are one word each, so dropping them leaves a whole module).
    auto words = convT();
    size_t lastLong = 0;
    for (size_t pos = 5; pos < words.size(); pos += words[pos] >> 16) {
        ASSERT_NE(words[pos] >> 16, 0u);
        if (words[pos] >> 16 >= 2) lastLong = pos;
    }
    ASSERT_GT(lastLong, 0u);
    words.resize(lastLong + 1);
    const std::string e = parseError(words, "--spirv d/conv_t.spv");
    EXPECT_EQ(e.rfind("--spirv d/conv_t.spv: instruction at word ", 0), 0u) << e;
    EXPECT_NE(e.find("running past the end of the module"), std::string::npos) << e;
}

TEST(SpirvParse, ZeroWordCountIsAnError) {
    auto words = convT();
    words.insert(words.begin() + 5, 0x00000011u);  // word count 0, opcode 17 (OpCapability)
    EXPECT_EQ(parseError(words, "x"), "x: instruction at word 5 (opcode 17) has word count 0");
}

TEST(SpirvParse, HeaderOnlyModuleHasNoEntryPoint) {
    auto words = convT();
    words.resize(5);
    EXPECT_EQ(parseError(words, "x"), "x: no GLCompute entry point");
}

TEST(SpirvParse, FewerWordsThanAHeaderIsAnError) {
    auto words = convT();
    words.resize(4);
    EXPECT_EQ(parseError(words, "x"), "x: 4 words, fewer than the 5 of a SPIR-V header");
    EXPECT_EQ(parseError({}, "x"), "x: 0 words, fewer than the 5 of a SPIR-V header");
}

TEST(SpirvParse, WrongMagicSaysTheValueFound) {
    auto words = convT();
    words[0] = 0xdeadbeefu;
    EXPECT_EQ(parseError(words, "f.spv"), "f.spv: magic number 0xdeadbeef, not SPIR-V's 0x07230203");
}

TEST(SpirvParse, ByteSwappedModuleIsRejectedAsByteSwapped) {
    auto words = convT();
    for (uint32_t& w : words) {
        w = (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24);
    }
    const std::string e = parseError(words, "f.spv");
    EXPECT_EQ(e.rfind("f.spv: magic number 0x03022307 is byte-swapped", 0), 0u) << e;
}

// ---- files ---------------------------------------------------------------------------

TEST(SpirvFile, SizeNotAMultipleOfFourIsTruncated) {
    const auto words = convT();
    const auto path = writeFile(".spv", words.data(), 4 * 10 + 2);
    EXPECT_EQ(loadError(path), "'" + path.string() + "': 42 bytes, not a whole number of 32-bit words (truncated?)");
    std::filesystem::remove(path);
}

TEST(SpirvFile, EmptyFileIsAnError) {
    const auto path = writeFile(".spv", nullptr, 0);
    EXPECT_EQ(loadError(path), "'" + path.string() + "': empty file (0 bytes)");
    std::filesystem::remove(path);
}

TEST(SpirvFile, MissingFileIsAnError) {
    const auto path = tempPath("_absent.spv");
    std::filesystem::remove(path);
    EXPECT_EQ(loadError(path), "'" + path.string() + "': cannot read: no such file");
}

TEST(SpirvFile, ADirectoryIsAnError) {
    const auto path = tempPath("_dir");
    std::filesystem::create_directories(path);
    EXPECT_EQ(loadError(path), "'" + path.string() + "': cannot read: it is a directory, not a file");
    std::filesystem::remove(path);
}

TEST(SpirvFile, ParseErrorsNameThePath) {
    const auto words = convT();
    const auto path = writeFile(".spv", words.data(), 4 * 3);
    EXPECT_EQ(loadError(path), "'" + path.string() + "': 3 words, fewer than the 5 of a SPIR-V header");
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace repro

namespace repro {
namespace {

// A link to /dev/zero or a FIFO would make a plain read eat memory or block for ever:
// only a bounded regular file is read.
TEST(SpirvFile, OnlyABoundedRegularFileIsRead) {
    const auto dir = std::filesystem::temp_directory_path() / "spirv_module_test_special";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto zero = dir / "zero.spv";
    std::filesystem::create_symlink("/dev/zero", zero);
    EXPECT_EQ(loadError(zero), "'" + zero.string() + "': cannot read: not a regular file");
    const auto fifo = dir / "fifo.spv";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(loadError(fifo), "'" + fifo.string() + "': cannot read: not a regular file");
    const auto big = dir / "big.spv";
    std::ofstream(big).put('x');
    std::filesystem::resize_file(big, kMaxSpirvBytes + 4);
    EXPECT_EQ(loadError(big), "'" + big.string() + "': " + std::to_string(kMaxSpirvBytes + 4) +
                                  " bytes, more than a compute shader's SPIR-V can be here (at most 4 MiB)");
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace repro
