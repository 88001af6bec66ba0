# cmake -DSPV=in.spv -DOUT=out.cpp -DNAME=name -P EmbedSpirv.cmake
# Writes a C++ source with the SPIR-V words of in.spv as `const uint32_t NAME_spv[]`.
file(READ ${SPV} hex HEX)
string(LENGTH "${hex}" len)
math(EXPR rem "${len} % 8")
if(len EQUAL 0 OR NOT rem EQUAL 0)
  message(FATAL_ERROR "${SPV}: not a whole number of 32-bit words")
endif()
# Little-endian bytes -> 32-bit words (SPIR-V files from glslang are little-endian).
string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1u," words "${hex}")
string(REGEX REPLACE "((0x........u,){8})" "\\1\n    " words "${words}")
math(EXPR count "${len} / 8")
file(WRITE ${OUT}.tmp "// Generated from ${NAME}.spv by cmake/EmbedSpirv.cmake; do not edit.\n"
  "#include <cstddef>\n#include <cstdint>\n"
  "extern const uint32_t ${NAME}_spv[];\nextern const size_t ${NAME}_spv_words;\n"
  "const uint32_t ${NAME}_spv[] = {\n    ${words}\n};\n"
  "const size_t ${NAME}_spv_words = ${count};\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
