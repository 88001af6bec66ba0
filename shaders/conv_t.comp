// conv-T: conv2d backward w.r.t. its input, with separate stride and padding in h and w.
// GLSL port of the `conv_t` entry point of the original report's shaders.wgsl
// (blade issue #356), which copies meganeura's conv2d_grad_input_hw.wgsl. Same
// arithmetic, same loop order, same 16x16x1 workgroup, the same 49-float shared
// weight tile with two workgroup barriers per output channel.
//
// Differences from the naga output blade sends (docs/blade-stream.md, "Shaders"):
// - `params` is a read-only storage block, so the STORAGE_BUFFER descriptor that
//   blade writes for it matches the shader (naga declares a Uniform block).
// - integer `/` and `%` get the same zero-divisor guard naga wraps them in, so a
//   zero stride behaves as in the original (the CLI rejects zero strides anyway).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "repro_shared.h"

layout(local_size_x = REPRO_CONV_WORKGROUP_X, local_size_y = REPRO_CONV_WORKGROUP_Y,
       local_size_z = 1) in;

// Field order is the original's Params (64 bytes).
struct Params {
    uint batch;
    uint in_channels;
    uint in_h;
    uint in_w;
    uint out_channels;
    uint kernel_h;
    uint kernel_w;
    uint stride_h;
    uint padding_h;
    uint out_h;
    uint out_w;
    uint padding_w;
    uint stride_w;
    uint _pad0;
    uint _pad1;
    uint _pad2;
};

layout(set = 0, binding = REPRO_CONV_BINDING_GRAD_OUT, std430) readonly buffer GradOut {
    float grad_out[];
};
layout(set = 0, binding = REPRO_CONV_BINDING_WEIGHT, std430) readonly buffer Weight {
    float weight[];
};
layout(set = 0, binding = REPRO_CONV_BINDING_DST, std430) buffer Dst {
    float dst[];
};
#ifdef REPRO_PARAMS_UNIFORM
// conv_t_uniform.spv (--profile blade-exact): a Uniform block, as naga declares
// `var<uniform> params`, which blade binds through a STORAGE_BUFFER descriptor.
layout(set = 0, binding = REPRO_CONV_BINDING_PARAMS, std140) uniform ParamsBlock {
    Params params;
};
#else
layout(set = 0, binding = REPRO_CONV_BINDING_PARAMS, std430) readonly buffer ParamsBlock {
    Params params;
};
#endif

shared float wg_weight[REPRO_WEIGHT_TILE];

// naga's guards for integer division and remainder (divide by 1 instead of 0,
// and instead of -1 for INT_MIN).
uint guardedDiv(uint a, uint b) { return a / (b == 0u ? 1u : b); }
uint guardedRem(uint a, uint b) { return a % (b == 0u ? 1u : b); }
int guardedRem(int a, int b) {
    return a % ((b == 0 || (a == -2147483648 && b == -1)) ? 1 : b);
}

void main() {
    uint iw = gl_GlobalInvocationID.x;
    uint ih = gl_GlobalInvocationID.y;
    uint nci = gl_GlobalInvocationID.z;

    uint n = guardedDiv(nci, params.in_channels);
    uint ci = guardedRem(nci, params.in_channels);
    bool in_bounds = iw < params.in_w && ih < params.in_h && n < params.batch;

    uint tid = gl_LocalInvocationID.y * 16u + gl_LocalInvocationID.x;
    uint kernel_size = params.kernel_h * params.kernel_w;
    int i_padding_h = int(params.padding_h);
    int i_padding_w = int(params.padding_w);
    int i_stride_h = int(params.stride_h);
    int i_stride_w = int(params.stride_w);

    float sum = 0.0;

    for (uint co = 0u; co < params.out_channels; co++) {
        if (tid < kernel_size) {
            wg_weight[tid] = weight[(co * params.in_channels + ci) * kernel_size + tid];
        }
        barrier();

        if (in_bounds) {
            uint go_base = (n * params.out_channels + co) * params.out_h * params.out_w;

            for (uint kh = 0u; kh < params.kernel_h; kh++) {
                int h_off = int(ih) + i_padding_h - int(kh);
                if (h_off >= 0 && guardedRem(h_off, i_stride_h) == 0) {
                    uint oh = guardedDiv(uint(h_off), params.stride_h);
                    if (oh < params.out_h) {
                        for (uint kw = 0u; kw < params.kernel_w; kw++) {
                            int w_off = int(iw) + i_padding_w - int(kw);
                            if (w_off >= 0 && guardedRem(w_off, i_stride_w) == 0) {
                                uint ow = guardedDiv(uint(w_off), params.stride_w);
                                if (ow < params.out_w) {
                                    sum += grad_out[go_base + oh * params.out_w + ow]
                                         * wg_weight[kh * params.kernel_w + kw];
                                }
                            }
                        }
                    }
                }
            }
        }

        barrier();
    }

    if (in_bounds) {
        uint in_idx = ((n * params.in_channels + ci) * params.in_h + ih) * params.in_w + iw;
        dst[in_idx] = sum;
    }
}
