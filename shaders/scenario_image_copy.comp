// image-copy: texel i (row-major) of storage image `dst` = texel i of `src` for i < count, both
// of one format and extent; compiled once per format (REPRO_FORMAT_R32UI, REPRO_FORMAT_R32F,
// REPRO_FORMAT_RGBA8: src/CMakeLists.txt), since a storage image declares its format
// (docs/scenarios.md "Images"). r32f and rgba8unorm pass through float: the same bits come back.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "scenario_common.h"

#if defined(REPRO_FORMAT_R32UI)
layout(set = 0, binding = 0, r32ui) uniform readonly uimage2D src;
layout(set = 0, binding = 1, r32ui) uniform writeonly uimage2D dst;
#elif defined(REPRO_FORMAT_R32F)
layout(set = 0, binding = 0, r32f) uniform readonly image2D src;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D dst;
#else
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
#endif

void main() {
    uint i = flatIndex();
    ivec2 size = imageSize(src);
    if (i >= params.count || i >= uint(size.x * size.y)) return;
    ivec2 at = ivec2(int(i % uint(size.x)), int(i / uint(size.x)));
    imageStore(dst, at, imageLoad(src, at));
    if (workLoop(i) != 0u) imageStore(dst, at, imageLoad(src, at));
}
