// noop: a dispatch that touches no memory; its one binding is declared and never accessed
// (executorch #17299's no-op dispatch between producer and consumer; docs/scenarios.md).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "scenario_common.h"

layout(set = 0, binding = 0, std430) readonly buffer Data {
    uint data[];
};

void main() {
    uint i = flatIndex();
    if (i >= params.count) return;
    if (workLoop(i) != 0u) data[0];  // never true: nothing is read or written
}
