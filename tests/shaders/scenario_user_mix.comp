// A user kernel for a scenario's [[kernel]] table (docs/scenarios.md "User kernels"), written
// as a user would write one, without repro's scenario_common.h: acc[i] = acc[i] * 3 + (src[i]
// ^ add) for i < count, in place, with the 16 bytes of push constants repro pushes. Compiled
// at build time (tests/CMakeLists.txt) to user_mix.spv and, with a -D define each, to the
// modules the bad-file tests need: WRITEONLY (acc NonReadable: acc[i] = src[i] ^ add), SET1
// (src in descriptor set 1), UNIFORM (src a uniform buffer), BIG_PUSH (32 bytes of push
// constants), ENTRY_MIX (the entry point named "mix" instead of "main").
#version 450

layout(local_size_x = 64) in;

#ifdef SET1
layout(set = 1, binding = 0, std430) readonly buffer Src {
    uint src[];
};
#elif defined(UNIFORM)
layout(set = 0, binding = 0, std140) uniform Src {
    uvec4 src4[64];
};
#else
layout(set = 0, binding = 0, std430) readonly buffer Src {
    uint src[];
};
#endif

#ifdef WRITEONLY
layout(set = 0, binding = 1, std430) writeonly buffer Acc {
    uint acc[];
};
#else
layout(set = 0, binding = 1, std430) buffer Acc {
    uint acc[];
};
#endif

layout(push_constant) uniform Params {
    uint count, add, work, zero;
#ifdef BIG_PUSH
    uint more[4];
#endif
} params;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= params.count) return;
#ifdef UNIFORM
    uint s = src4[i % 64].x;
#else
    uint s = src[i];
#endif
#ifdef WRITEONLY
    acc[i] = s ^ params.add;
#else
    acc[i] = acc[i] * 3u + (s ^ params.add);
#endif
}
