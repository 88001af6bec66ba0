// compare-swap: one step of an odd-even transposition sort on `data`, in place (taichi #3791's
// hundreds of tiny compare-swap dispatches; docs/scenarios.md "Kernels"). Invocation j takes
// the pair (k, k+1) with k = 2j + phase (phase 0 or 1, in the push constants' `add` slot) and
// swaps the two words when data[k] > data[k+1], for k + 1 < count.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "scenario_common.h"

layout(set = 0, binding = 0, std430) buffer Data {
    uint data[];
};

void main() {
    uint k = 2u * flatIndex() + params.add;
    if (k + 1u >= params.count) return;
    uint extra = workLoop(k);
    uint a = data[k];
    uint b = data[k + 1u];
    if (a > b) {
        data[k] = b + extra;
        data[k + 1u] = a + extra;
    }
}
