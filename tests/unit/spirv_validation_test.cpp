// spirv-val over the user's --spirv modules: valid, invalid and not-checked modules, and the
// line the header and the cause carry (core/spirv_validation.hpp).
#include "core/spirv_validation.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "temp_folder.hpp"

#if !defined(REPRO_BUILT_SPIRV_DIR)
#error "REPRO_BUILT_SPIRV_DIR must be defined"
#endif

namespace repro {
namespace {

using test::TempFolder;

std::filesystem::path spirvVal() {
    const char* path = std::getenv("PATH");
    return findOnPath("spirv-val", path ? path : "");
}

TEST(SpirvValidation, FindsAnExecutableOnPathAndNothingElse) {
    EXPECT_EQ(findOnPath("sh", "/nonexistent-repro-dir::/bin"), std::filesystem::path("/bin/sh"));
    EXPECT_TRUE(findOnPath("no-such-program-repro", "/bin:/usr/bin").empty());
    EXPECT_TRUE(findOnPath("sh", "").empty());
}

TEST(SpirvValidation, TheBuiltModulesAreValidAndGarbageIsNot) {
    if (spirvVal().empty()) GTEST_SKIP() << "spirv-val not installed (spirv-tools)";
    const TempFolder dir("spirv-val");
    std::filesystem::copy_file(std::filesystem::path(REPRO_BUILT_SPIRV_DIR) / "conv_t.spv", dir.path() / "conv_t.spv");
    // A SPIR-V header (magic, version 1.0, generator, bound 1, schema) and no instructions:
    // no OpMemoryModel, which the rules require.
    const uint32_t words[] = {0x07230203, 0x00010000, 0, 1, 0};
    std::ofstream(dir.path() / "slice.spv", std::ios::binary).write(reinterpret_cast<const char*>(words), sizeof words);
    const auto results = validateModules(spirvVal(), dir.path(), {"conv_t.spv", "slice.spv"}, dir.path());
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].state, SpirvValidation::State::Valid) << results[0].message;
    EXPECT_EQ(results[1].state, SpirvValidation::State::Invalid);
    EXPECT_FALSE(results[1].message.empty());
    const std::string line = userModulesLine(results);
    EXPECT_TRUE(
        line.starts_with("the SPIR-V modules are the user's (--spirv): spirv-val (vulkan1.3): conv_t.spv "
                         "valid, slice.spv INVALID: "))
        << line;
    // Its temporary output files are gone.
    size_t files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
    EXPECT_EQ(files, 2u);
}

TEST(SpirvValidation, WithoutTheValidatorEveryModuleIsNotCheckedAndSaysWhy) {
    const auto results = validateModules({}, "/nonexistent", {"conv_t.spv"}, "/tmp");
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].state, SpirvValidation::State::NotChecked);
    EXPECT_EQ(userModulesLine(results),
              "the SPIR-V modules are the user's (--spirv): spirv-val (vulkan1.3): conv_t.spv not checked: spirv-val "
              "not found on PATH (the spirv-tools package)");
}

}  // namespace
}  // namespace repro
