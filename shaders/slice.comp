// slice: crops [N, C, in_h, in_w] to [N, C, in_h-start_h-end_h, in_w-start_w-end_w].
// GLSL port of the `slice` entry point of the original report's shaders.wgsl
// (blade issue #356). Same arithmetic and 256-wide workgroup; `slice_params` is a
// read-only storage block to match the STORAGE_BUFFER descriptor blade writes for it
// (docs/blade-stream.md, "Shaders"), and `/` and `%` carry naga's zero-divisor guard.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "repro_shared.h"

layout(local_size_x = REPRO_SLICE_WORKGROUP_X, local_size_y = 1, local_size_z = 1) in;

// Field order is the original's SliceParams (32 bytes).
struct SliceParams {
    uint batch;
    uint channels;
    uint in_h;
    uint in_w;
    uint start_h;
    uint end_h;
    uint start_w;
    uint end_w;
};

layout(set = 0, binding = REPRO_SLICE_BINDING_SRC, std430) readonly buffer SliceSrc {
    float slice_src[];
};
layout(set = 0, binding = REPRO_SLICE_BINDING_DST, std430) buffer SliceDst {
    float slice_dst[];
};
#ifdef REPRO_PARAMS_UNIFORM
// slice_uniform.spv (--profile blade-exact): a Uniform block, as naga declares it.
layout(set = 0, binding = REPRO_SLICE_BINDING_PARAMS, std140) uniform SliceParamsBlock {
    SliceParams slice_params;
};
#else
layout(set = 0, binding = REPRO_SLICE_BINDING_PARAMS, std430) readonly buffer SliceParamsBlock {
    SliceParams slice_params;
};
#endif

uint guardedDiv(uint a, uint b) { return a / (b == 0u ? 1u : b); }
uint guardedRem(uint a, uint b) { return a % (b == 0u ? 1u : b); }

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint out_h = slice_params.in_h - slice_params.start_h - slice_params.end_h;
    uint out_w = slice_params.in_w - slice_params.start_w - slice_params.end_w;
    uint total = slice_params.batch * slice_params.channels * out_h * out_w;
    if (i >= total) {
        return;
    }

    uint ow = guardedRem(i, out_w);
    uint oh = guardedRem(guardedDiv(i, out_w), out_h);
    uint c = guardedRem(guardedDiv(i, out_w * out_h), slice_params.channels);
    uint n = guardedDiv(i, slice_params.channels * out_h * out_w);

    uint ih = oh + slice_params.start_h;
    uint iw = ow + slice_params.start_w;
    uint src_idx = ((n * slice_params.channels + c) * slice_params.in_h + ih) * slice_params.in_w + iw;
    slice_dst[i] = slice_src[src_idx];
}
