// --stress's cache priming (docs/scenarios.md "--stress"): reads the first `count` words of a
// file buffer, which it never writes, so that caches hold their contents before the file's
// work; the words' xor goes to a sink of its own only when it equals a value no input is
// expected to give, which keeps the loads alive.
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(push_constant, std430) uniform Params {
    uint count;  // words read
    uint unused0;
    uint unused1;
    uint unused2;
} params;

layout(set = 0, binding = 0, std430) readonly buffer Input {
    uint words[];
};
layout(set = 0, binding = 1, std430) buffer Sink {
    uint sink[];
};

void main() {
    uint stride = gl_NumWorkGroups.x * 64u;
    uint acc = 0u;
    for (uint i = gl_GlobalInvocationID.x; i < params.count; i += stride) acc ^= words[i];
    if (acc == 0x9e3779b9u) sink[gl_LocalInvocationID.x] = acc;
}
