// Shared by the scenario kernels (shaders/scenario_*.comp; src/scenario/scenario.hpp): the
// workgroup size, the push constants (KernelParams, 16 bytes) and the flat invocation index.
#define SCENARIO_WORKGROUP_X 64

layout(local_size_x = SCENARIO_WORKGROUP_X, local_size_y = 1, local_size_z = 1) in;

layout(push_constant, std430) uniform Params {
    uint count;  // words processed
    uint add;    // increment: the amount added
    uint work;   // iterations of the work loop
    uint zero;   // always 0: keeps the work loop's result alive without changing a word
} params;

// The invocation's index over the whole dispatch, x fastest.
uint flatIndex() {
    uvec3 size = gl_NumWorkGroups * gl_WorkGroupSize;
    return gl_GlobalInvocationID.x + size.x * (gl_GlobalInvocationID.y + size.y * gl_GlobalInvocationID.z);
}

// `work` rounds of a linear congruential generator (Numerical Recipes' constants) from `seed`,
// masked by params.zero: 0 at run time, unknown to the compiler, so the loop runs.
uint workLoop(uint seed) {
    uint acc = seed;
    for (uint w = 0u; w < params.work; ++w) acc = acc * 1664525u + 1013904223u;
    return acc & params.zero;
}
