// --stress's memory traffic (docs/scenarios.md "--stress"): `passes` read-modify-write sweeps
// over a scratch buffer of repro's own (no file buffer), each invocation over the same words
// in every pass, so the kernel races nothing of its own.
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(push_constant, std430) uniform Params {
    uint count;   // words of the scratch buffer
    uint passes;  // sweeps over it
    uint unused0;
    uint unused1;
} params;

layout(set = 0, binding = 0, std430) buffer Scratch {
    uint scratch[];
};

void main() {
    uint stride = gl_NumWorkGroups.x * 64u;
    for (uint p = 0u; p < params.passes; ++p) {
        for (uint i = gl_GlobalInvocationID.x; i < params.count; i += stride)
            scratch[i] = scratch[i] * 1664525u + 1013904223u;
    }
}
