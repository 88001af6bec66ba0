// The child's side of the supervision (see watch.hpp). Protocol, one line per message:
//   E <seconds> <call>          entering a call that must return within <seconds>
//   L                           left it
//   S <stage> <mode> <what>     tab-separated: the stage, the mode running ("-" when none), words
//   D <what>                    what is happening within the stage
//   R <json>                    the report so far
//   T <json>                    one line of --trace (report/trace_events.hpp)
//   P <mode> <seconds>          the predicted GPU seconds of the mode's next run
//   W <index> <total> <label>   row <index> (from 1) of <total> begins (--sweep, --repeat, ...)
// (src/children/child_protocol.hpp parses them.) Every message is written whole with one
// write(2) to a pipe (atomic below PIPE_BUF bytes), so a crash cannot interleave them.
#include "vk/watch.hpp"

#include <volk.h>

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <type_traits>

#include "core/enum_names.hpp"

namespace repro::watch {
namespace {

int gFd = -1;

void send(const std::string& line) {
    if (gFd < 0) return;
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
        const ssize_t n = ::write(gFd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            gFd = -1;  // the parent is gone: nothing left to tell
            return;
        }
        p += n;
        left -= static_cast<size_t>(n);
    }
}

std::string oneLine(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        if (c == '\n' || c == '\t' || c == '\r') c = ' ';
    }
    return out;
}

// The saved driver entry point behind each wrapped volk slot, and the slot's name.
template <auto* Slot>
std::remove_pointer_t<decltype(Slot)> next = nullptr;
template <auto* Slot>
const char* slotName = "";

template <auto* Slot, typename Fn>
struct Wrapper;
template <auto* Slot, typename R, typename... A>
struct Wrapper<Slot, R(VKAPI_PTR*)(A...)> {
    static R VKAPI_CALL call(A... args) {
        const Scope scope(slotName<Slot>, kCallSeconds);
        return next<Slot>(args...);
    }
};

// Puts `wrapper` in volk's slot, the driver's entry saved behind it (once).
template <auto* Slot>
void wrap(const char* name, std::remove_pointer_t<decltype(Slot)> wrapper) {
    if (!*Slot || *Slot == wrapper) return;
    next<Slot> = *Slot;
    slotName<Slot> = name;
    *Slot = wrapper;
}

template <auto* Slot>
void wrap(const char* name) {
    wrap<Slot>(name, &Wrapper<Slot, std::remove_pointer_t<decltype(Slot)>>::call);
}

// The waits: their own timeout plus the grace.
template <auto* Slot>
VkResult VKAPI_CALL waitWrapper(VkDevice device, const VkSemaphoreWaitInfo* info, uint64_t timeout) {
    const Scope scope(slotName<Slot>, kCallSeconds + double(timeout) * 1e-9);
    return next<Slot>(device, info, timeout);
}

#define REPRO_WRAP(fn) wrap<&fn>(#fn)

void wrapGlobal() {
    REPRO_WRAP(vkCreateInstance);
    REPRO_WRAP(vkEnumerateInstanceVersion);
    REPRO_WRAP(vkEnumerateInstanceLayerProperties);
    REPRO_WRAP(vkEnumerateInstanceExtensionProperties);
}

void wrapInstance() {
    REPRO_WRAP(vkEnumeratePhysicalDevices);
    REPRO_WRAP(vkGetPhysicalDeviceProperties);
    REPRO_WRAP(vkGetPhysicalDeviceProperties2);
    REPRO_WRAP(vkGetPhysicalDeviceFeatures2);
    REPRO_WRAP(vkGetPhysicalDeviceMemoryProperties);
    REPRO_WRAP(vkGetPhysicalDeviceQueueFamilyProperties);
    REPRO_WRAP(vkEnumerateDeviceExtensionProperties);
    REPRO_WRAP(vkGetPhysicalDeviceFormatProperties);
    REPRO_WRAP(vkGetPhysicalDeviceImageFormatProperties);
    REPRO_WRAP(vkGetPhysicalDeviceCalibrateableTimeDomainsEXT);
    REPRO_WRAP(vkCreateDebugUtilsMessengerEXT);
    REPRO_WRAP(vkDestroyDebugUtilsMessengerEXT);
    REPRO_WRAP(vkCreateDevice);
    REPRO_WRAP(vkDestroyInstance);
}

// Instrumentation and forensics (--timestamps, --breadcrumbs, --labels, the fault report), teardown.
void wrapDeviceRest() {
    REPRO_WRAP(vkCmdWriteTimestamp);
    REPRO_WRAP(vkCmdResetQueryPool);
    REPRO_WRAP(vkCmdWriteBufferMarkerAMD);
    REPRO_WRAP(vkCmdBeginDebugUtilsLabelEXT);
    REPRO_WRAP(vkCmdEndDebugUtilsLabelEXT);
    REPRO_WRAP(vkSetDebugUtilsObjectNameEXT);
    REPRO_WRAP(vkGetCalibratedTimestampsEXT);
    REPRO_WRAP(vkGetDeviceFaultInfoEXT);
    REPRO_WRAP(vkGetShaderInfoAMD);
    REPRO_WRAP(vkGetDeviceQueue);
    REPRO_WRAP(vkGetBufferMemoryRequirements);
    REPRO_WRAP(vkGetImageMemoryRequirements);
    REPRO_WRAP(vkDestroyShaderModule);
    REPRO_WRAP(vkDestroyDescriptorSetLayout);
    REPRO_WRAP(vkDestroyDescriptorUpdateTemplate);
    REPRO_WRAP(vkDestroyPipelineLayout);
    REPRO_WRAP(vkDestroyPipeline);
    REPRO_WRAP(vkDestroyBuffer);
    REPRO_WRAP(vkDestroyImage);
    REPRO_WRAP(vkDestroyImageView);
    REPRO_WRAP(vkFreeMemory);
    REPRO_WRAP(vkDestroyCommandPool);
    REPRO_WRAP(vkDestroyDescriptorPool);
    REPRO_WRAP(vkDestroySemaphore);
    REPRO_WRAP(vkDestroyQueryPool);
    REPRO_WRAP(vkDestroyDevice);
}

void wrapDevice() {
    REPRO_WRAP(vkCreateShaderModule);
    REPRO_WRAP(vkCreateDescriptorSetLayout);
    REPRO_WRAP(vkCreateDescriptorUpdateTemplate);
    REPRO_WRAP(vkCreatePipelineLayout);
    REPRO_WRAP(vkCreateComputePipelines);
    REPRO_WRAP(vkCreateBuffer);
    REPRO_WRAP(vkAllocateMemory);
    REPRO_WRAP(vkBindBufferMemory);
    REPRO_WRAP(vkMapMemory);
    REPRO_WRAP(vkCreateCommandPool);
    REPRO_WRAP(vkAllocateCommandBuffers);
    REPRO_WRAP(vkCreateDescriptorPool);
    REPRO_WRAP(vkResetDescriptorPool);
    REPRO_WRAP(vkAllocateDescriptorSets);
    REPRO_WRAP(vkUpdateDescriptorSetWithTemplate);
    REPRO_WRAP(vkCreateSemaphore);
    REPRO_WRAP(vkCreateQueryPool);
    REPRO_WRAP(vkBeginCommandBuffer);
    REPRO_WRAP(vkEndCommandBuffer);
    REPRO_WRAP(vkCmdPipelineBarrier);
    REPRO_WRAP(vkCmdPipelineBarrier2);
    REPRO_WRAP(vkCmdBindPipeline);
    REPRO_WRAP(vkCmdBindDescriptorSets);
    REPRO_WRAP(vkCmdDispatch);
    REPRO_WRAP(vkCmdFillBuffer);
    REPRO_WRAP(vkCmdCopyBuffer);
    // what a scenario file's steps record besides: images, indirect dispatches, push constants, updates
    REPRO_WRAP(vkCreateImage);
    REPRO_WRAP(vkCreateImageView);
    REPRO_WRAP(vkBindImageMemory);
    REPRO_WRAP(vkCmdPushConstants);
    REPRO_WRAP(vkCmdDispatchIndirect);
    REPRO_WRAP(vkCmdUpdateBuffer);
    REPRO_WRAP(vkCmdCopyBufferToImage);
    REPRO_WRAP(vkCmdCopyImageToBuffer);
    REPRO_WRAP(vkCmdCopyImage);
    REPRO_WRAP(vkCmdClearColorImage);
    REPRO_WRAP(vkQueueSubmit);
    REPRO_WRAP(vkDeviceWaitIdle);
    REPRO_WRAP(vkQueueWaitIdle);
    REPRO_WRAP(vkGetQueryPoolResults);
    wrap<&vkWaitSemaphores>("vkWaitSemaphores", &waitWrapper<&vkWaitSemaphores>);
    wrap<&vkWaitSemaphoresKHR>("vkWaitSemaphoresKHR", &waitWrapper<&vkWaitSemaphoresKHR>);
    wrapDeviceRest();
}

#undef REPRO_WRAP

}  // namespace

std::string_view name(Stage s) {
    static constexpr std::string_view kNames[] = {"setup", "modes", "teardown"};
    return nameOf(kNames, s);
}

void attach(int fd) { gFd = fd; }

void stage(Stage s, std::string_view what, std::string_view mode) {
    send(fmt::format("S\t{}\t{}\t{}\n", name(s), mode.empty() ? "-" : oneLine(mode), oneLine(what)));
}

void detail(std::string_view what) { send(fmt::format("D\t{}\n", oneLine(what))); }

void publishReport(const std::string& json) { send("R\t" + oneLine(json) + "\n"); }

void publishTrace(const std::string& json) { send("T\t" + oneLine(json) + "\n"); }

void sendText(std::string_view text) {
    if (gFd < 0) return;
    constexpr std::string_view kEscaped = "\\\n\t\r", kAs = "\\ntr";  // written as \\, \n, \t, \r
    std::string line = "X\t";
    for (const char c : text) {
        const size_t k = kEscaped.find(c);
        if (k == std::string_view::npos)
            line += c;
        else
            line += {'\\', kAs[k]};
    }
    send(line + "\n");
}

void predict(std::string_view mode, double seconds) { send(fmt::format("P\t{}\t{:.3f}\n", oneLine(mode), seconds)); }

void row(unsigned index, unsigned total, std::string_view label) {
    send(fmt::format("W\t{}\t{}\t{}\n", index, total, oneLine(label)));
}

void rowProcess(long pid) { send(fmt::format("G\t{}\n", pid)); }

Scope::Scope(const char* call, double seconds) {
    if (gFd >= 0) send(fmt::format("E\t{:.3f}\t{}\n", seconds, call));
}

Scope::~Scope() {
    if (gFd >= 0) send("L\n");
}

void wrapVolk(int stage) {
    constexpr void (*kWraps[])() = {wrapGlobal, wrapInstance, wrapDevice};  // by stage
    if (gFd < 0) return;                                                    // not supervised: nothing to tell
    if (stage >= 0 && stage < 3) kWraps[stage]();
}

}  // namespace repro::watch
