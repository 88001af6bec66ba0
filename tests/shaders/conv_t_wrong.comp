// A user's --spirv conv-T that is valid SPIR-V (spirv-val passes it) and computes the wrong
// thing: the interface of shaders/conv_t.comp (its four bindings, the 16x16x1 workgroup, the
// same invocation-to-element mapping), but each element of big[i] gets a fixed pattern
// instead of the transposed convolution. For the end-to-end test of issue 21 item 6e: a
// wrong result from the user's own module must not be blamed on the shader compiler.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "repro_shared.h"

layout(local_size_x = REPRO_CONV_WORKGROUP_X, local_size_y = REPRO_CONV_WORKGROUP_Y,
       local_size_z = 1) in;

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
layout(set = 0, binding = REPRO_CONV_BINDING_PARAMS, std430) readonly buffer ParamsBlock {
    Params params;
};

void main() {
    uint iw = gl_GlobalInvocationID.x;
    uint ih = gl_GlobalInvocationID.y;
    uint nci = gl_GlobalInvocationID.z;
    uint channels = max(params.in_channels, 1u);
    uint n = nci / channels;
    uint ci = nci % channels;
    if (iw < params.in_w && ih < params.in_h && n < params.batch) {
        uint in_idx = ((n * params.in_channels + ci) * params.in_h + ih) * params.in_w + iw;
        // grad_out and weight are read so that the module keeps conv-T's bindings.
        dst[in_idx] = float(in_idx % 7u) + 1.0 + 0.0 * (grad_out[0] + weight[0]);
    }
}
