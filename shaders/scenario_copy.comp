// copy: dst[i] = src[i] for i < count (docs/scenarios.md "Kernels").
#version 450
#extension GL_GOOGLE_include_directive : require
#include "scenario_common.h"

layout(set = 0, binding = 0, std430) readonly buffer Src {
    uint src[];
};
layout(set = 0, binding = 1, std430) buffer Dst {
    uint dst[];
};

void main() {
    uint i = flatIndex();
    if (i >= params.count) return;
    dst[i] = src[i] + workLoop(i);
}
