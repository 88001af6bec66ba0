// The command-stream tracer (see trace.hpp).
#include "vk/trace.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <map>
#include <type_traits>
#include <vector>

#include "vk/describe.hpp"

namespace repro::vk::trace {
namespace {

// The driver's entry point behind each wrapped volk slot, which its wrapper forwards to.
template <auto* Slot>
std::remove_pointer_t<decltype(Slot)> driver = nullptr;

struct State {
    Mode mode = Mode::Forward;
    std::function<void(const std::string&)> sink;
    bool installed = false;
    std::map<uint64_t, std::string> names;
    std::map<std::string, uint32_t> unnamedCounts;
    std::map<uint64_t, std::string> commandBuffers;  // "cb0", "cb1"...
    uint32_t commandBuffersNamed = 0;
    std::map<uint64_t, std::vector<VkDescriptorUpdateTemplateEntry>> templates;
    std::map<uint64_t, std::vector<std::string>> sets;  // the buffers and images written, by binding
    std::pair<uint64_t, uint64_t> lastWait{0, 0};       // semaphore, value
};

State& state() {
    static State s;
    return s;
}

template <typename Handle>
uint64_t key(Handle h) {
    return reinterpret_cast<uint64_t>(h);
}

template <typename Handle>
std::string named(Handle h, const char* kind) {
    State& s = state();
    auto [it, added] = s.names.try_emplace(key(h));
    if (added) it->second = fmt::format("{}#{}", kind, ++s.unnamedCounts[kind]);
    return it->second;
}

// A submit's semaphore and value: "timeline = 3" for an unnamed one (an encoder's own
// timeline), "NAME = 3" for a named timeline, "NAME" for a named one with value 0 (binary).
std::string semaphoreValue(VkSemaphore semaphore, uint64_t value) {
    const State& s = state();
    const auto it = s.names.find(key(semaphore));
    if (it == s.names.end()) return fmt::format("timeline = {}", value);
    return value == 0 ? it->second : fmt::format("{} = {}", it->second, value);
}

// A command buffer's name: the next "cbN" when it is allocated (vkAllocateCommandBuffers) or,
// allocated before install(), first seen. A driver may hand a freed command buffer's handle
// to a new one (a second queue's pool is made and destroyed per mode); naming at allocation
// keeps the printed stream the same whether it does or not.
std::string cbName(VkCommandBuffer cb, bool allocated = false) {
    State& s = state();
    auto [it, added] = s.commandBuffers.try_emplace(key(cb), "");
    if (added || allocated) it->second = fmt::format("cb{}", s.commandBuffersNamed++);
    return it->second;
}

VKAPI_ATTR VkResult VKAPI_CALL allocateCbs(VkDevice d, const VkCommandBufferAllocateInfo* info, VkCommandBuffer* cbs) {
    const VkResult r = driver<&vkAllocateCommandBuffers>(d, info, cbs);
    if (r == VK_SUCCESS) {
        for (uint32_t i = 0; i < info->commandBufferCount; ++i) cbName(cbs[i], true);
    }
    return r;
}

void emit(const std::string& line) {
    State& s = state();
    s.lastWait = {0, 0};
    if (s.sink) s.sink(line);
}

bool forward() { return state().mode == Mode::Forward; }

// What blade's and repro's own barriers are, so a reader sees the name beside the masks.
std::string barrierName(VkPipelineStageFlags src, VkPipelineStageFlags dst, VkAccessFlags srcAccess,
                        VkAccessFlags dstAccess) {
    constexpr VkAccessFlags gSrc = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    constexpr VkAccessFlags gDst = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT |
                                   VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    const bool all = src == VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    if (all && dst == VK_PIPELINE_STAGE_ALL_COMMANDS_BIT && srcAccess == gSrc && dstAccess == gDst) return "  # G";
    if (src == VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT && dst == src && srcAccess == VK_ACCESS_SHADER_WRITE_BIT &&
        dstAccess == (VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT)) {
        return "  # C";
    }
    if (all && dst == VK_PIPELINE_STAGE_HOST_BIT && dstAccess == VK_ACCESS_HOST_READ_BIT) {
        return "  # host read (not blade's)";
    }
    return "";
}

VKAPI_ATTR VkResult VKAPI_CALL beginCb(VkCommandBuffer cb, const VkCommandBufferBeginInfo* info) {
    const bool once = info && (info->flags & VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
    emit(fmt::format("vkBeginCommandBuffer({}{})", cbName(cb), once ? ", ONE_TIME_SUBMIT" : ""));
    return driver<&vkBeginCommandBuffer>(cb, info);
}

VKAPI_ATTR VkResult VKAPI_CALL endCb(VkCommandBuffer cb) {
    emit(fmt::format("vkEndCommandBuffer({})", cbName(cb)));
    return driver<&vkEndCommandBuffer>(cb);
}

// An image layout as the printed stream names it: "GENERAL", "TRANSFER_SRC_OPTIMAL", ... (the
// VkImageLayout names without VK_IMAGE_LAYOUT_; the five a scenario file can name, else the number).
std::string layoutText(VkImageLayout l) {
    static constexpr std::pair<VkImageLayout, const char*> kNames[] = {
        {VK_IMAGE_LAYOUT_UNDEFINED, "UNDEFINED"},
        {VK_IMAGE_LAYOUT_GENERAL, "GENERAL"},
        {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, "TRANSFER_SRC_OPTIMAL"},
        {VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, "TRANSFER_DST_OPTIMAL"},
        {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, "SHADER_READ_ONLY_OPTIMAL"}};
    for (const auto& [layout, name] : kNames) {
        if (layout == l) return name;
    }
    return fmt::format("layout {}", static_cast<int>(l));
}

// ", queue family 1 -> 2" for a barrier that transfers ownership, else "".
template <typename Barrier>
std::string familiesText(const Barrier& b) {
    if (b.srcQueueFamilyIndex == b.dstQueueFamilyIndex) return "";
    return fmt::format(", queue family {} -> {}", b.srcQueueFamilyIndex, b.dstQueueFamilyIndex);
}

VKAPI_ATTR void VKAPI_CALL barrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkPipelineStageFlags dst,
                                   VkDependencyFlags flags, uint32_t memoryCount, const VkMemoryBarrier* memory,
                                   uint32_t bufferCount, const VkBufferMemoryBarrier* buffers, uint32_t imageCount,
                                   const VkImageMemoryBarrier* images) {
    std::string line = fmt::format("  vkCmdPipelineBarrier({} -> {}", stageMaskText(src), stageMaskText(dst));
    if (flags) line += fmt::format(", dependencyFlags 0x{:x}", flags);
    for (uint32_t i = 0; i < memoryCount; ++i) {
        line += fmt::format(", memory {} -> {}", accessMaskText(memory[i].srcAccessMask),
                            accessMaskText(memory[i].dstAccessMask));
    }
    for (uint32_t i = 0; i < bufferCount; ++i) {
        line += fmt::format(", buffer {} {} -> {}{}", named(buffers[i].buffer, "buffer"),
                            accessMaskText(buffers[i].srcAccessMask), accessMaskText(buffers[i].dstAccessMask),
                            familiesText(buffers[i]));
    }
    for (uint32_t i = 0; i < imageCount; ++i) {
        line += fmt::format(", image {} {} -> {}, {} -> {}{}", named(images[i].image, "image"),
                            accessMaskText(images[i].srcAccessMask), accessMaskText(images[i].dstAccessMask),
                            layoutText(images[i].oldLayout), layoutText(images[i].newLayout), familiesText(images[i]));
    }
    if (memoryCount == 0 && bufferCount == 0 && imageCount == 0) line += ", execution only";
    line += ")";
    if (memoryCount == 1 && bufferCount == 0 && imageCount == 0) {
        line += barrierName(src, dst, memory[0].srcAccessMask, memory[0].dstAccessMask);
    }
    emit(line);
    if (forward())
        driver<&vkCmdPipelineBarrier>(cb, src, dst, flags, memoryCount, memory, bufferCount, buffers, imageCount,
                                      images);
}

VKAPI_ATTR void VKAPI_CALL barrier2(VkCommandBuffer cb, const VkDependencyInfo* dep) {
    std::string line = "  vkCmdPipelineBarrier2(";
    for (uint32_t i = 0; i < dep->memoryBarrierCount; ++i) {
        const VkMemoryBarrier2& m = dep->pMemoryBarriers[i];
        line += fmt::format("{}memory {} {} -> {} {}", i ? ", " : "", stageMask2Text(m.srcStageMask),
                            accessMask2Text(m.srcAccessMask), stageMask2Text(m.dstStageMask),
                            accessMask2Text(m.dstAccessMask));
    }
    for (uint32_t i = 0; i < dep->imageMemoryBarrierCount; ++i) {
        const VkImageMemoryBarrier2& m = dep->pImageMemoryBarriers[i];
        line += fmt::format("{}image {} {} {} -> {} {}, {} -> {}", i || dep->memoryBarrierCount ? ", " : "",
                            named(m.image, "image"), stageMask2Text(m.srcStageMask), accessMask2Text(m.srcAccessMask),
                            stageMask2Text(m.dstStageMask), accessMask2Text(m.dstAccessMask), layoutText(m.oldLayout),
                            layoutText(m.newLayout));
    }
    if (dep->bufferMemoryBarrierCount)
        line += fmt::format("{}{} buffer barriers", dep->memoryBarrierCount || dep->imageMemoryBarrierCount ? ", " : "",
                            dep->bufferMemoryBarrierCount);
    line += ")";
    emit(line);
    if (forward()) driver<&vkCmdPipelineBarrier2>(cb, dep);
}

VKAPI_ATTR void VKAPI_CALL bindPipeline(VkCommandBuffer cb, VkPipelineBindPoint point, VkPipeline pipeline) {
    emit(fmt::format("  vkCmdBindPipeline({}, {})", point == VK_PIPELINE_BIND_POINT_COMPUTE ? "COMPUTE" : "GRAPHICS",
                     named(pipeline, "pipeline")));
    if (forward()) driver<&vkCmdBindPipeline>(cb, point, pipeline);
}

VKAPI_ATTR void VKAPI_CALL bindSets(VkCommandBuffer cb, VkPipelineBindPoint point, VkPipelineLayout layout,
                                    uint32_t first, uint32_t count, const VkDescriptorSet* sets, uint32_t dynamicCount,
                                    const uint32_t* dynamicOffsets) {
    std::string line = "  vkCmdBindDescriptorSets(COMPUTE";
    for (uint32_t i = 0; i < count; ++i) {
        const auto& contents = state().sets[key(sets[i])];
        std::string list;
        for (const auto& b : contents) list += (list.empty() ? "" : ", ") + b;
        line += fmt::format(", set {}: {}", first + i, list.empty() ? "?" : list);
    }
    if (dynamicCount) line += fmt::format(", {} dynamic offsets", dynamicCount);
    emit(line + ")");
    if (forward())
        driver<&vkCmdBindDescriptorSets>(cb, point, layout, first, count, sets, dynamicCount, dynamicOffsets);
}

VKAPI_ATTR void VKAPI_CALL dispatch(VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z) {
    emit(fmt::format("  vkCmdDispatch({}, {}, {})", x, y, z));
    if (forward()) driver<&vkCmdDispatch>(cb, x, y, z);
}

VKAPI_ATTR void VKAPI_CALL dispatchIndirect(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset) {
    emit(fmt::format("  vkCmdDispatchIndirect({}, offset {})", named(buffer, "buffer"), offset));
    if (forward()) driver<&vkCmdDispatchIndirect>(cb, buffer, offset);
}

// The values as 32-bit words (repro pushes KernelParams: four uint32 words).
VKAPI_ATTR void VKAPI_CALL pushConstants(VkCommandBuffer cb, VkPipelineLayout layout, VkShaderStageFlags stages,
                                         uint32_t offset, uint32_t size, const void* values) {
    std::vector<uint32_t> words(size / 4);
    std::memcpy(words.data(), values, words.size() * 4);
    emit(fmt::format("  vkCmdPushConstants({}, offset {}, {} bytes: {})",
                     stages == VK_SHADER_STAGE_COMPUTE_BIT ? "COMPUTE" : fmt::format("stages 0x{:x}", stages), offset,
                     size, fmt::join(words, " ")));
    if (forward()) driver<&vkCmdPushConstants>(cb, layout, stages, offset, size, values);
}

VKAPI_ATTR void VKAPI_CALL updateBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                                        const void* data) {
    emit(fmt::format("  vkCmdUpdateBuffer({}, offset {}, {} bytes)", named(buffer, "buffer"), offset, size));
    if (forward()) driver<&vkCmdUpdateBuffer>(cb, buffer, offset, size, data);
}

VKAPI_ATTR void VKAPI_CALL fill(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                                uint32_t data) {
    emit(fmt::format("  vkCmdFillBuffer({}, offset {}, {}, 0x{:08x})", named(buffer, "buffer"), offset,
                     size == VK_WHOLE_SIZE ? std::string("WHOLE_SIZE") : std::to_string(size), data));
    if (forward()) driver<&vkCmdFillBuffer>(cb, buffer, offset, size, data);
}

VKAPI_ATTR void VKAPI_CALL copy(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t count,
                                const VkBufferCopy* regions) {
    emit(fmt::format("  vkCmdCopyBuffer({} -> {}, {} bytes)", named(src, "buffer"), named(dst, "buffer"),
                     count ? regions[0].size : 0));
    if (forward()) driver<&vkCmdCopyBuffer>(cb, src, dst, count, regions);
}

VKAPI_ATTR void VKAPI_CALL timestamp(VkCommandBuffer cb, VkPipelineStageFlagBits stage, VkQueryPool pool,
                                     uint32_t query) {
    emit(fmt::format("  vkCmdWriteTimestamp({}, query {})", stageMaskText(stage), query));
    if (forward()) driver<&vkCmdWriteTimestamp>(cb, stage, pool, query);
}

VKAPI_ATTR void VKAPI_CALL resetQueries(VkCommandBuffer cb, VkQueryPool pool, uint32_t first, uint32_t count) {
    emit(fmt::format("  vkCmdResetQueryPool(queries {}..{})", first, first + count - 1));
    if (forward()) driver<&vkCmdResetQueryPool>(cb, pool, first, count);
}

VKAPI_ATTR void VKAPI_CALL marker(VkCommandBuffer cb, VkPipelineStageFlagBits stage, VkBuffer buffer,
                                  VkDeviceSize offset, uint32_t value) {
    emit(fmt::format("  vkCmdWriteBufferMarkerAMD({}, {} + {}, {})", stageMaskText(stage), named(buffer, "buffer"),
                     offset, value));
    if (forward()) driver<&vkCmdWriteBufferMarkerAMD>(cb, stage, buffer, offset, value);
}

VKAPI_ATTR void VKAPI_CALL beginLabel(VkCommandBuffer cb, const VkDebugUtilsLabelEXT* label) {
    emit(fmt::format("  vkCmdBeginDebugUtilsLabelEXT(\"{}\")", label && label->pLabelName ? label->pLabelName : ""));
    if (forward()) driver<&vkCmdBeginDebugUtilsLabelEXT>(cb, label);
}

VKAPI_ATTR void VKAPI_CALL endLabel(VkCommandBuffer cb) {
    emit("  vkCmdEndDebugUtilsLabelEXT()");
    if (forward()) driver<&vkCmdEndDebugUtilsLabelEXT>(cb);
}

VKAPI_ATTR VkResult VKAPI_CALL submit(VkQueue queue, uint32_t count, const VkSubmitInfo* infos, VkFence fence) {
    for (uint32_t i = 0; i < count; ++i) {
        const VkSubmitInfo& s = infos[i];
        std::string cbs;
        for (uint32_t c = 0; c < s.commandBufferCount; ++c) {
            cbs += (cbs.empty() ? "" : ", ") + cbName(s.pCommandBuffers[c]);
        }
        std::string signal, wait;
        for (auto* next = static_cast<const VkBaseInStructure*>(s.pNext); next; next = next->pNext) {
            if (next->sType != VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO) continue;
            const auto* t = reinterpret_cast<const VkTimelineSemaphoreSubmitInfo*>(next);
            for (uint32_t v = 0; v < t->signalSemaphoreValueCount; ++v) {
                signal +=
                    (signal.empty() ? "" : ", ") + semaphoreValue(s.pSignalSemaphores[v], t->pSignalSemaphoreValues[v]);
            }
            for (uint32_t v = 0; v < t->waitSemaphoreValueCount; ++v) {
                wait += fmt::format("{}{} at {}", wait.empty() ? "" : ", ",
                                    semaphoreValue(s.pWaitSemaphores[v], t->pWaitSemaphoreValues[v]),
                                    stageMaskText(s.pWaitDstStageMask[v]));
            }
        }
        emit(fmt::format("vkQueueSubmit({}; wait {}; signal {}; fence {})", cbs,
                         wait.empty() ? std::to_string(s.waitSemaphoreCount) : wait,
                         signal.empty() ? std::to_string(s.signalSemaphoreCount) : signal,
                         fence == VK_NULL_HANDLE ? "none" : "yes"));
    }
    return forward() ? driver<&vkQueueSubmit>(queue, count, infos, fence) : VK_SUCCESS;
}

// One line per (semaphore, value) however many timeout slices the host waits in.
void noteWait(const VkSemaphoreWaitInfo* info) {
    State& s = state();
    const std::pair<uint64_t, uint64_t> now{key(info->pSemaphores[0]), info->pValues[0]};
    if (now == s.lastWait) return;
    std::string values;
    for (uint32_t i = 0; i < info->semaphoreCount; ++i) {
        const auto name = s.names.find(key(info->pSemaphores[i]));
        values += fmt::format("{}{} >= {}", i ? ", " : "", name == s.names.end() ? "timeline" : name->second,
                              info->pValues[i]);
    }
    emit(fmt::format("vkWaitSemaphores({})", values));
    s.lastWait = now;
}

// The wrappers of a command and its KHR alias, of one type: `Slot` is the one forwarded to.
template <auto* Slot>
VKAPI_ATTR VkResult VKAPI_CALL wait(VkDevice device, const VkSemaphoreWaitInfo* info, uint64_t timeout) {
    noteWait(info);
    return forward() ? driver<Slot>(device, info, timeout) : VK_SUCCESS;
}

void rememberTemplate(const VkDescriptorUpdateTemplateCreateInfo* info, VkDescriptorUpdateTemplate* out) {
    const auto* entries = info->pDescriptorUpdateEntries;
    state().templates[key(*out)].assign(entries, entries + info->descriptorUpdateEntryCount);
}

template <auto* Slot>
VKAPI_ATTR VkResult VKAPI_CALL createTemplate(VkDevice d, const VkDescriptorUpdateTemplateCreateInfo* info,
                                              const VkAllocationCallbacks* a, VkDescriptorUpdateTemplate* out) {
    const VkResult r = driver<Slot>(d, info, a, out);
    if (r == VK_SUCCESS) rememberTemplate(info, out);
    return r;
}

// The buffers and images a template update writes: repro's templates hold a
// VkDescriptorBufferInfo per buffer, a VkDescriptorImageInfo per storage image (src/vk/pipeline.cpp),
// named by its view, which a scenario names as its image (vk/scenario_resources.hpp).
void rememberSet(VkDescriptorSet set, VkDescriptorUpdateTemplate t, const void* data) {
    std::vector<std::string> bound;
    for (const VkDescriptorUpdateTemplateEntry& e : state().templates[key(t)]) {
        for (uint32_t i = 0; i < e.descriptorCount; ++i) {
            const char* at = static_cast<const char*>(data) + e.offset + i * e.stride;
            VkDescriptorBufferInfo buffer{};
            VkDescriptorImageInfo image{};
            if (e.descriptorType != VK_DESCRIPTOR_TYPE_STORAGE_IMAGE) std::memcpy(&buffer, at, sizeof buffer);
            if (e.descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE) std::memcpy(&image, at, sizeof image);
            bound.push_back(image.imageView ? named(image.imageView, "image") : named(buffer.buffer, "buffer"));
        }
    }
    state().sets[key(set)] = std::move(bound);
}

template <auto* Slot>
VKAPI_ATTR void VKAPI_CALL update(VkDevice d, VkDescriptorSet set, VkDescriptorUpdateTemplate t, const void* data) {
    rememberSet(set, t, data);
    driver<Slot>(d, set, t, data);
}

// The image transfers of a scenario file: the image's name and layout, the first region's texels.
std::string regionText(const VkExtent3D& e, const VkOffset3D& o) {
    return fmt::format("{}x{} texels at ({}, {})", e.width, e.height, o.x, o.y);
}

VKAPI_ATTR void VKAPI_CALL copyToImage(VkCommandBuffer cb, VkBuffer src, VkImage dst, VkImageLayout layout,
                                       uint32_t count, const VkBufferImageCopy* regions) {
    emit(fmt::format("  vkCmdCopyBufferToImage({} -> {} {}, {})", named(src, "buffer"), named(dst, "image"),
                     layoutText(layout), count ? regionText(regions[0].imageExtent, regions[0].imageOffset) : "-"));
    if (forward()) driver<&vkCmdCopyBufferToImage>(cb, src, dst, layout, count, regions);
}

VKAPI_ATTR void VKAPI_CALL copyToBuffer(VkCommandBuffer cb, VkImage src, VkImageLayout layout, VkBuffer dst,
                                        uint32_t count, const VkBufferImageCopy* regions) {
    emit(fmt::format("  vkCmdCopyImageToBuffer({} {} -> {}, {})", named(src, "image"), layoutText(layout),
                     named(dst, "buffer"), count ? regionText(regions[0].imageExtent, regions[0].imageOffset) : "-"));
    if (forward()) driver<&vkCmdCopyImageToBuffer>(cb, src, layout, dst, count, regions);
}

VKAPI_ATTR void VKAPI_CALL copyImage(VkCommandBuffer cb, VkImage src, VkImageLayout srcLayout, VkImage dst,
                                     VkImageLayout dstLayout, uint32_t count, const VkImageCopy* regions) {
    emit(fmt::format("  vkCmdCopyImage({} {} -> {} {}, {})", named(src, "image"), layoutText(srcLayout),
                     named(dst, "image"), layoutText(dstLayout),
                     count ? regionText(regions[0].extent, regions[0].dstOffset) : "-"));
    if (forward()) driver<&vkCmdCopyImage>(cb, src, srcLayout, dst, dstLayout, count, regions);
}

VKAPI_ATTR void VKAPI_CALL clearImage(VkCommandBuffer cb, VkImage image, VkImageLayout layout,
                                      const VkClearColorValue* color, uint32_t count,
                                      const VkImageSubresourceRange* ranges) {
    emit(fmt::format("  vkCmdClearColorImage({} {}, 0x{:08x})", named(image, "image"), layoutText(layout),
                     color->uint32[0]));
    if (forward()) driver<&vkCmdClearColorImage>(cb, image, layout, color, count, ranges);
}

VKAPI_ATTR VkResult VKAPI_CALL queryResults(VkDevice d, VkQueryPool pool, uint32_t first, uint32_t count, size_t size,
                                            void* data, VkDeviceSize stride, VkQueryResultFlags flags) {
    if (forward()) return driver<&vkGetQueryPoolResults>(d, pool, first, count, size, data, stride, flags);
    std::memset(data, 0, size);  // nothing ran: nothing is available
    return VK_NOT_READY;
}

// Puts `wrapper` in volk's slot, the driver's entry saved behind it (once).
template <auto* Slot>
void hook(std::remove_pointer_t<decltype(Slot)> wrapper) {
    if (!*Slot || *Slot == wrapper) return;
    driver<Slot> = *Slot;
    *Slot = wrapper;
}

}  // namespace

void install(Mode mode, std::function<void(const std::string&)> sink) {
    State& s = state();
    s.mode = mode;
    s.sink = std::move(sink);
    if (s.installed) return;
    s.installed = true;
    hook<&vkAllocateCommandBuffers>(&allocateCbs);
    hook<&vkBeginCommandBuffer>(&beginCb);
    hook<&vkEndCommandBuffer>(&endCb);
    hook<&vkCmdPipelineBarrier>(&barrier);
    hook<&vkCmdPipelineBarrier2>(&barrier2);
    hook<&vkCmdBindPipeline>(&bindPipeline);
    hook<&vkCmdBindDescriptorSets>(&bindSets);
    hook<&vkCmdDispatch>(&dispatch);
    hook<&vkCmdDispatchIndirect>(&dispatchIndirect);
    hook<&vkCmdPushConstants>(&pushConstants);
    hook<&vkCmdUpdateBuffer>(&updateBuffer);
    hook<&vkCmdFillBuffer>(&fill);
    hook<&vkCmdCopyBuffer>(&copy);
    hook<&vkCmdCopyBufferToImage>(&copyToImage);
    hook<&vkCmdCopyImageToBuffer>(&copyToBuffer);
    hook<&vkCmdCopyImage>(&copyImage);
    hook<&vkCmdClearColorImage>(&clearImage);
    hook<&vkCmdWriteTimestamp>(&timestamp);
    hook<&vkCmdResetQueryPool>(&resetQueries);
    hook<&vkCmdWriteBufferMarkerAMD>(&marker);
    hook<&vkCmdBeginDebugUtilsLabelEXT>(&beginLabel);
    hook<&vkCmdEndDebugUtilsLabelEXT>(&endLabel);
    hook<&vkQueueSubmit>(&submit);
    hook<&vkWaitSemaphores>(&wait<&vkWaitSemaphores>);
    hook<&vkWaitSemaphoresKHR>(&wait<&vkWaitSemaphoresKHR>);
    hook<&vkCreateDescriptorUpdateTemplate>(&createTemplate<&vkCreateDescriptorUpdateTemplate>);
    hook<&vkCreateDescriptorUpdateTemplateKHR>(&createTemplate<&vkCreateDescriptorUpdateTemplateKHR>);
    hook<&vkUpdateDescriptorSetWithTemplate>(&update<&vkUpdateDescriptorSetWithTemplate>);
    hook<&vkUpdateDescriptorSetWithTemplateKHR>(&update<&vkUpdateDescriptorSetWithTemplateKHR>);
    hook<&vkGetQueryPoolResults>(&queryResults);
}

bool installed() { return state().installed; }

std::vector<std::string>& captured() {
    static std::vector<std::string> lines;
    return lines;
}

void installCapture() {
    install(Mode::Swallow, [](const std::string& line) { captured().push_back(line); });
}

void nameObject(uint64_t handle, std::string name) { state().names[handle] = std::move(name); }

void breakWaitRun() { state().lastWait = {0, 0}; }

void note(const std::string& text) {
    if (state().installed) emit("# " + text);
}

}  // namespace repro::vk::trace
