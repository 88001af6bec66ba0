// image-increment: texel i (row-major: x = i % width, y = i / width) of an r32ui storage image
// += add for i < count, in place: the increment kernel on an image (docs/scenarios.md "Images").
#version 450
#extension GL_GOOGLE_include_directive : require
#include "scenario_common.h"

layout(set = 0, binding = 0, r32ui) uniform uimage2D image;

void main() {
    uint i = flatIndex();
    ivec2 size = imageSize(image);
    if (i >= params.count || i >= uint(size.x * size.y)) return;
    ivec2 at = ivec2(int(i % uint(size.x)), int(i / uint(size.x)));
    imageStore(image, at, imageLoad(image, at) + uvec4(params.add + workLoop(i)));
}
