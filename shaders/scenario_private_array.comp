// private-array: a per-invocation array of PRIVATE_WORDS 32-bit words, a specialization
// constant (constant_id 0), indexed by data so that it lives in private memory, where a large
// one spills to scratch (cubecl #1336: past about 544 bytes on RADV; docs/scenarios.md
// "Kernels"). dst[i] = a mix of the array filled from src[i], for i < count. The CPU model
// (src/scenario/scenario_cpu.cpp privateArrayWord) computes the same word exactly.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "scenario_common.h"

layout(constant_id = 0) const uint PRIVATE_WORDS = 256u;

layout(set = 0, binding = 0, std430) readonly buffer Src {
    uint src[];
};
layout(set = 0, binding = 1, std430) buffer Dst {
    uint dst[];
};

void main() {
    uint i = flatIndex();
    if (i >= params.count) return;
    uint arr[PRIVATE_WORDS];
    uint x = src[i];
    for (uint j = 0u; j < PRIVATE_WORDS; ++j) {  // fill: an LCG from the input word
        x = x * 1664525u + 1013904223u;
        arr[j] = x ^ j;
    }
    uint acc = src[i];
    for (uint j = 0u; j < PRIVATE_WORDS; ++j) {  // mix: each word adds into a word it picks
        uint v = arr[j];
        uint k = v % PRIVATE_WORDS;
        uint old = arr[k];
        arr[k] = old + (v ^ acc);
        acc = acc * 31u + old;
    }
    dst[i] = (acc ^ arr[acc % PRIVATE_WORDS]) + workLoop(i);
}
