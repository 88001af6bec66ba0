// The command-stream tracer's names for command buffers (src/vk/trace.cpp), with volk's slots
// pointed at stand-ins for a driver: no Vulkan implementation is loaded or called.
#include <gtest/gtest.h>
#include <volk.h>

#include <cstdint>
#include <string>
#include <vector>

#include "vk/trace.hpp"

namespace {

uintptr_t gNextHandle = 0x1000;  // what the stand-in vkAllocateCommandBuffers hands out

VKAPI_ATTR VkResult VKAPI_CALL standInAllocate(VkDevice, const VkCommandBufferAllocateInfo* info,
                                               VkCommandBuffer* cbs) {
    for (uint32_t i = 0; i < info->commandBufferCount; ++i)
        cbs[i] = reinterpret_cast<VkCommandBuffer>(gNextHandle + 8 * i);
    return VK_SUCCESS;
}
VKAPI_ATTR VkResult VKAPI_CALL standInBegin(VkCommandBuffer, const VkCommandBufferBeginInfo*) { return VK_SUCCESS; }

// On NVIDIA's driver a second queue's command buffer, allocated from a pool made and
// destroyed per mode, sometimes had the handle of the previous mode's and sometimes not: the
// printed stream named it "cb1" in one run and "cb2" in the next (bench/RESULTS.md, round 22).
TEST(TraceNames, ACommandBufferWithAFreedOnesHandleGetsANewName) {
    vkAllocateCommandBuffers = &standInAllocate;
    vkBeginCommandBuffer = &standInBegin;
    std::vector<std::string> lines;
    repro::vk::trace::install(repro::vk::trace::Mode::Forward, [&](const std::string& l) { lines.push_back(l); });
    const VkCommandBufferAllocateInfo info{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                           .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                           .commandBufferCount = 1};
    const VkCommandBufferBeginInfo begin{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    for (const uintptr_t handle : {0x1000, 0x2000, 0x1000}) {  // the third reuses the first's handle
        gNextHandle = handle;
        VkCommandBuffer cb = VK_NULL_HANDLE;
        ASSERT_EQ(vkAllocateCommandBuffers(VK_NULL_HANDLE, &info, &cb), VK_SUCCESS);
        vkBeginCommandBuffer(cb, &begin);
        vkBeginCommandBuffer(cb, &begin);  // begun again (a reset command buffer): the same name
    }
    EXPECT_EQ(lines, (std::vector<std::string>{"vkBeginCommandBuffer(cb0)", "vkBeginCommandBuffer(cb0)",
                                               "vkBeginCommandBuffer(cb1)", "vkBeginCommandBuffer(cb1)",
                                               "vkBeginCommandBuffer(cb2)", "vkBeginCommandBuffer(cb2)"}));
}

}  // namespace
