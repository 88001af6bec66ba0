// indirect-writer: invocation 0 writes a VkDispatchIndirectCommand (x, y, z: three 32-bit
// words; Vulkan spec, vkCmdDispatchIndirect) at word `word` of args, for a later
// dispatch_indirect step to read; every other invocation does nothing (docs/scenarios.md
// "Kernels"). The 16 bytes of push constants are read as (word, x, y, z), not as
// scenario_common.h's (count, add, work, zero): src/scenario/scenario.hpp pushConstants.
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(push_constant, std430) uniform Params {
    uint word;  // where the command starts, in 32-bit words
    uint x;
    uint y;
    uint z;
} params;

layout(set = 0, binding = 0, std430) writeonly buffer Args {
    uint args[];
};

void main() {
    if (gl_GlobalInvocationID != uvec3(0u)) return;
    args[params.word] = params.x;
    args[params.word + 1u] = params.y;
    args[params.word + 2u] = params.z;
}
