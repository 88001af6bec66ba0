// work: data[i] = h^work(data[i]) in place for i < count, h(x) = x * 1664525 + 1013904223
// (Numerical Recipes' LCG) then x ^= x >> 13: a dispatch as long as `work` asks whose result
// is written, so the CPU model checks it exactly (llama.cpp #21724, taichi #3544: long
// dispatches against a job timeout; docs/scenarios.md "Kernels").
#version 450
#extension GL_GOOGLE_include_directive : require
#include "scenario_common.h"

layout(set = 0, binding = 0, std430) buffer Data {
    uint data[];
};

void main() {
    uint i = flatIndex();
    if (i >= params.count) return;
    uint x = data[i];
    for (uint w = 0u; w < params.work; ++w) {
        x = x * 1664525u + 1013904223u;
        x ^= x >> 13u;
    }
    data[i] = x;
}
