// The SPIR-V the build embeds: each kernel of shaders/ (and each variant src/CMakeLists.txt
// names: one image copy per format, the Uniform-params conv_t/slice) compiled by
// glslangValidator, checked by spirv-val and written by cmake/EmbedSpirv.cmake
// (cmake/Shaders.cmake) as a generated source that defines, at global scope,
// `const uint32_t <name>_spv[]` (little-endian 32-bit words) and `<name>_spv_words` (their count).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#define REPRO_EMBEDDED_SPIRV(name)      \
    extern const uint32_t name##_spv[]; \
    extern const size_t name##_spv_words
// A std::span<const uint32_t> of the module `name` (e.g. REPRO_SPIRV(conv_t)).
#define REPRO_SPIRV(name) std::span(name##_spv, name##_spv_words)

REPRO_EMBEDDED_SPIRV(conv_t);
REPRO_EMBEDDED_SPIRV(slice);
REPRO_EMBEDDED_SPIRV(conv_t_uniform);
REPRO_EMBEDDED_SPIRV(slice_uniform);
REPRO_EMBEDDED_SPIRV(stress_prime);
REPRO_EMBEDDED_SPIRV(stress_traffic);
REPRO_EMBEDDED_SPIRV(scenario_increment);
REPRO_EMBEDDED_SPIRV(scenario_copy);
REPRO_EMBEDDED_SPIRV(scenario_noop);
REPRO_EMBEDDED_SPIRV(scenario_compare_swap);
REPRO_EMBEDDED_SPIRV(scenario_private_array);
REPRO_EMBEDDED_SPIRV(scenario_work);
REPRO_EMBEDDED_SPIRV(scenario_image_increment);
REPRO_EMBEDDED_SPIRV(scenario_image_copy_r32ui);
REPRO_EMBEDDED_SPIRV(scenario_image_copy_r32f);
REPRO_EMBEDDED_SPIRV(scenario_image_copy_rgba8);
REPRO_EMBEDDED_SPIRV(scenario_indirect_writer);
