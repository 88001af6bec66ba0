// A user kernel that binds a storage image (docs/scenarios.md "User kernels"), written as a
// user would write one: img texel (x, y) += words[y * width + x] + add for every texel of the
// r32ui image, in place, the buffer read only, with the 16 bytes of push constants repro
// pushes. Compiled at build time (tests/CMakeLists.txt) to user_image.spv, beside
// tests/scenarios/user-kernel-image.toml.
#version 450

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0, r32ui) uniform uimage2D img;

layout(set = 0, binding = 1, std430) readonly buffer Words {
    uint words[];
};

layout(push_constant) uniform Params {
    uint count, add, work, zero;
} params;

void main() {
    const ivec2 size = imageSize(img);
    const ivec2 at = ivec2(gl_GlobalInvocationID.xy);
    if (at.x >= size.x || at.y >= size.y) return;
    const uint i = uint(at.y * size.x + at.x);
    const uint w = i < uint(words.length()) ? words[i] : 0u;
    imageStore(img, at, imageLoad(img, at) + uvec4(w + params.add));
}
