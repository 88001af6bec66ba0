// Constants shared by the GLSL shaders and the C++ host code (included by both).
// Workgroup sizes and the shared weight tile come from the original WGSL
// (blade issue #356, shaders.wgsl: @workgroup_size(16,16,1), @workgroup_size(256),
// var<workgroup> wg_weight: array<f32, 49>).
#ifndef REPRO_SHARED_H
#define REPRO_SHARED_H

#define REPRO_CONV_WORKGROUP_X 16
#define REPRO_CONV_WORKGROUP_Y 16
#define REPRO_SLICE_WORKGROUP_X 256
// Floats in conv-T's shared weight tile: kernelH * kernelW may not exceed it.
#define REPRO_WEIGHT_TILE 49

// Descriptor bindings, set 0 (blade: struct field index -> binding).
#define REPRO_CONV_BINDING_GRAD_OUT 0
#define REPRO_CONV_BINDING_WEIGHT 1
#define REPRO_CONV_BINDING_DST 2
#define REPRO_CONV_BINDING_PARAMS 3
#define REPRO_SLICE_BINDING_SRC 0
#define REPRO_SLICE_BINDING_DST 1
#define REPRO_SLICE_BINDING_PARAMS 2

#endif
