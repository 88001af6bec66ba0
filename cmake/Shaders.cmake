# GLSL -> SPIR-V at build time with glslangValidator, validated with spirv-val, and
# embedded as a uint32_t array. Nothing compiled is committed.
#
# repro_add_shaders(<target> <glsl>...) adds to <target> a generated source that
# defines `const uint32_t <name>_spv[]` and `<name>_spv_words` for each shader.

set(REPRO_SPIRV_ENV vulkan1.1)  # SPIR-V 1.3, as naga emits for blade (docs/blade-stream.md, "Pipelines")

# repro_add_shader(<target> <glsl> <name> [ENTRY <entry>] [<define>...]) compiles one variant
# of a shader with -D<define> for each define and embeds it as <name>_spv. ENTRY renames the
# GLSL `main` to <entry> in the SPIR-V (as naga names entry points after the WGSL function).
function(repro_add_shader target glsl name)
  cmake_parse_arguments(PARSE_ARGV 3 ARG "" "ENTRY" "")
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/shaders)
  file(MAKE_DIRECTORY ${out_dir})
  get_filename_component(abs ${glsl} ABSOLUTE)
  set(spv ${out_dir}/${name}.spv)
  set(cpp ${out_dir}/${name}_spv.cpp)
  set(defines)
  foreach(def IN LISTS ARG_UNPARSED_ARGUMENTS)
    list(APPEND defines -D${def})
  endforeach()
  if(ARG_ENTRY)
    list(APPEND defines -e ${ARG_ENTRY} --source-entrypoint main)
  endif()
  add_custom_command(
    OUTPUT ${spv}
    COMMAND ${GLSLANG_VALIDATOR} --target-env ${REPRO_SPIRV_ENV} --quiet ${defines}
            --depfile ${spv}.d -o ${spv} ${abs}
    COMMAND ${SPIRV_VAL} --target-env ${REPRO_SPIRV_ENV} ${spv}
    DEPENDS ${abs}
    DEPFILE ${spv}.d
    COMMENT "glslangValidator + spirv-val: ${name}"
    VERBATIM)
  add_custom_command(
    OUTPUT ${cpp}
    COMMAND ${CMAKE_COMMAND} -DSPV=${spv} -DOUT=${cpp} -DNAME=${name}
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake
    DEPENDS ${spv} ${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake
    COMMENT "embed ${name}.spv"
    VERBATIM)
  target_sources(${target} PRIVATE ${cpp})
endfunction()

function(repro_add_shaders target)
  foreach(glsl IN LISTS ARGN)
    get_filename_component(name ${glsl} NAME_WE)
    repro_add_shader(${target} ${glsl} ${name})
  endforeach()
endfunction()
