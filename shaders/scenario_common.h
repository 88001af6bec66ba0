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

// --stress's shuffled workgroups (docs/scenarios.md "--stress"): 0 (the default) keeps the
// workgroups in order; otherwise the seeds of a bijection of the flattened workgroup index,
// the same as src/scenario/stress.hpp shuffledGroup computes on the host.
layout(constant_id = 1) const uint SHUFFLE_MULTIPLIER = 0u;
layout(constant_id = 2) const uint SHUFFLE_OFFSET = 0u;

uint shuffleGcd(uint a, uint b) {
    while (b != 0u) {
        uint t = a % b;
        a = b;
        b = t;
    }
    return a;
}

// Group `w` of `count` moved by a bijection of 0..count-1: (w * p + q) mod count, p the first
// value from SHUFFLE_MULTIPLIER mod count up that is coprime to count; past 65536 groups (where
// w * p could overflow 32 bits) the rotation (w + q) mod count.
uint shuffledGroup(uint w, uint count) {
    uint q = SHUFFLE_OFFSET % count;
    if (count > 65536u) return (w + q) % count;
    uint p = max(SHUFFLE_MULTIPLIER % count, 1u);
    while (shuffleGcd(p, count) != 1u) ++p;
    return (w * p + q) % count;
}

// The invocation's index over the whole dispatch, x fastest: 64 * (flat workgroup index) + the
// invocation's index in its workgroup; under --stress the workgroup index shuffled, so that
// every index is still taken by exactly one invocation.
uint flatIndex() {
    uvec3 groups = gl_NumWorkGroups;
    uint w = gl_WorkGroupID.x + groups.x * (gl_WorkGroupID.y + groups.y * gl_WorkGroupID.z);
    if (SHUFFLE_MULTIPLIER != 0u) w = shuffledGroup(w, groups.x * groups.y * groups.z);
    return w * SCENARIO_WORKGROUP_X + gl_LocalInvocationID.x;
}

// `work` rounds of a linear congruential generator (Numerical Recipes' constants) from `seed`,
// masked by params.zero: 0 at run time, unknown to the compiler, so the loop runs.
uint workLoop(uint seed) {
    uint acc = seed;
    for (uint w = 0u; w < params.work; ++w) acc = acc * 1664525u + 1013904223u;
    return acc & params.zero;
}
