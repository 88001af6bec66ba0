// increment: data[i] += add for i < count, in place (a read-modify-write of one buffer), the
// kernel of kompute #196 and taichi #3791's in-place steps (docs/scenarios.md "Kernels").
#version 450
#extension GL_GOOGLE_include_directive : require
#include "scenario_common.h"

layout(set = 0, binding = 0, std430) buffer Data {
    uint data[];
};

void main() {
    uint i = flatIndex();
    if (i >= params.count) return;
    data[i] = data[i] + params.add + workLoop(i);
}
