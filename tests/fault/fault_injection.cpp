// Fault injection for the failure-path tests: defines the weak test seam
// `reproAfterVolkLoad` that src/vk/device.cpp calls after each volk load, and replaces
// chosen entries of volk's function table with wrappers that make the k-th call of a
// function return a chosen VkResult. Linked only into `repro_faulty` (tests/CMakeLists.txt);
// the normal repro binary has no definition of the seam, so nothing can be injected there.
//
// REPRO_FAULT="function:k:VK_RESULT_NAME[,function:k:VK_RESULT_NAME...]", k 1-based,
// counting the calls of that function in this process. For the semaphore waits k counts
// waits, not calls: repro waits in slices of at most 100 ms (src/vk/encoder.hpp), so on a
// loaded machine one wait can take several calls; a call for the same value right after
// a call that timed out continues that wait and is not counted. Function names are volk's; the
// KHR alias of a promoted function shares its counter (vkWaitSemaphoresKHR and
// vkWaitSemaphores count as one function, whichever entry point the repro calls).
//
// What an injected call does, so the simulation stays what a real driver could do:
// - creation and allocation calls, vkQueueSubmit and the waits return the code without
//   calling the driver (a failed create makes nothing; a failed wait leaves the submit
//   running, as a hang would);
// - vkDeviceWaitIdle always calls the driver first (so the CPU driver really drains
//   before any teardown) and then returns the code;
// - VK_ERROR_DEVICE_LOST is sticky, as a lost device stays lost (Vulkan spec, "Lost
//   Device"): afterwards vkQueueSubmit, the waits, vkGetSemaphoreCounterValue and
//   vkDeviceWaitIdle (after draining) return VK_ERROR_DEVICE_LOST too; destroy and free
//   calls still reach the driver, as the spec allows them after loss;
// - VK_TIMEOUT from a wait is sticky too, as a hung GPU stays hung: that wait and every
//   later one sleep for their timeout (at most 1 s each) and return VK_TIMEOUT, so a
//   caller that waits in slices sees a hang that lasts until its own deadline.
// REPRO_TRACE=FILE also logs the command stream (installTrace below).
// A malformed REPRO_FAULT ends the process with status 99 and one line on stderr, a
// status outside repro's table so a test cannot mistake it for the repro's own.
#include <volk.h>

#include "vk/trace.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

struct Fault {
    std::string function;  // canonical name (KHR alias folded)
    unsigned long call = 0;
    VkResult result = VK_SUCCESS;
};

constexpr std::pair<std::string_view, VkResult> kResults[] = {
    {"VK_ERROR_DEVICE_LOST", VK_ERROR_DEVICE_LOST},
    {"VK_TIMEOUT", VK_TIMEOUT},
    {"VK_ERROR_OUT_OF_DEVICE_MEMORY", VK_ERROR_OUT_OF_DEVICE_MEMORY},
    {"VK_ERROR_OUT_OF_HOST_MEMORY", VK_ERROR_OUT_OF_HOST_MEMORY},
    {"VK_ERROR_INITIALIZATION_FAILED", VK_ERROR_INITIALIZATION_FAILED},
    {"VK_ERROR_INCOMPATIBLE_DRIVER", VK_ERROR_INCOMPATIBLE_DRIVER},
    {"VK_ERROR_OUT_OF_POOL_MEMORY", VK_ERROR_OUT_OF_POOL_MEMORY},
    {"VK_ERROR_FRAGMENTED_POOL", VK_ERROR_FRAGMENTED_POOL},
    {"VK_ERROR_UNKNOWN", VK_ERROR_UNKNOWN},
};

[[noreturn]] void badSpec(std::string_view spec, std::string_view why) {
    std::fprintf(stderr, "repro_faulty: REPRO_FAULT '%.*s': %.*s\n", int(spec.size()), spec.data(), int(why.size()),
                 why.data());
    std::_Exit(99);
}

std::string canonical(std::string_view name) {
    if (name == "vkWaitSemaphoresKHR") return "vkWaitSemaphores";
    if (name == "vkGetSemaphoreCounterValueKHR") return "vkGetSemaphoreCounterValue";
    return std::string(name);
}

// The functions this file can wrap; a fault naming another is a malformed spec.
constexpr std::string_view kHookable[] = {
    "vkCreateInstance",
    "vkCreateDevice",
    "vkQueueSubmit",
    "vkWaitSemaphores",
    "vkGetSemaphoreCounterValue",
    "vkDeviceWaitIdle",
    "vkAllocateMemory",
    "vkCreateBuffer",
    "vkCreateComputePipelines",
    "vkCreateDescriptorPool",
    "vkAllocateDescriptorSets",
};

std::vector<Fault> parseFaults() {
    std::vector<Fault> faults;
    const char* env = std::getenv("REPRO_FAULT");
    if (!env || !*env) return faults;
    std::string_view rest = env;
    while (!rest.empty()) {
        const size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        const size_t a = item.find(':');
        const size_t b = a == std::string_view::npos ? a : item.find(':', a + 1);
        if (b == std::string_view::npos) badSpec(item, "expected function:k:VK_RESULT_NAME");
        Fault f;
        f.function = canonical(item.substr(0, a));
        bool known = false;
        for (auto h : kHookable) known = known || h == f.function;
        if (!known) badSpec(item, "this function cannot be hooked");
        const std::string count(item.substr(a + 1, b - a - 1));
        char* end = nullptr;
        f.call = std::strtoul(count.c_str(), &end, 10);
        if (count.empty() || *end != '\0' || f.call == 0) badSpec(item, "k must be a whole number >= 1");
        const std::string_view resultName = item.substr(b + 1);
        bool found = false;
        for (const auto& [n, r] : kResults) {
            if (n == resultName) {
                f.result = r;
                found = true;
            }
        }
        if (!found) badSpec(item, "unknown VkResult name");
        faults.push_back(std::move(f));
    }
    return faults;
}

const std::vector<Fault>& faults() {
    static const std::vector<Fault> parsed = parseFaults();
    return parsed;
}

bool deviceLost = false;  // set by an injected VK_ERROR_DEVICE_LOST; never cleared
bool hung = false;        // set by an injected VK_TIMEOUT from a wait; never cleared

// The injected result for call `count` of `function`, or VK_SUCCESS for "no fault".
VkResult injected(std::string_view function, unsigned long count) {
    for (const Fault& f : faults()) {
        if (f.function == function && f.call == count) {
            if (f.result == VK_ERROR_DEVICE_LOST) deviceLost = true;
            return f.result;
        }
    }
    return VK_SUCCESS;
}

// How an injected call behaves (see the header comment).
enum class Kind {
    Create,     // return the code, the driver never sees the call
    Queue,      // like Create, and VK_ERROR_DEVICE_LOST once the device is lost
    Wait,       // like Queue, and VK_TIMEOUT (after sleeping its timeout) once hung
    DrainIdle,  // vkDeviceWaitIdle: the driver first, then the code
};

// Calls so far by canonical name, so a KHR alias and its core name share one count.
unsigned long& callCount(const std::string& name) {
    static std::vector<std::pair<std::string, unsigned long>> counts;
    for (auto& [n, c] : counts) {
        if (n == name) return c;
    }
    return counts.emplace_back(name, 0).second;
}

// The semaphore waits' state shared by vkWaitSemaphores and its KHR alias: the value the
// last call waited for, and whether it timed out (the next call for it is a continuation).
struct WaitSlices {
    uint64_t value = 0;
    bool timedOut = false;
};
WaitSlices& waitSlices() {
    static WaitSlices s;
    return s;
}

// The first timeline value a wait's VkSemaphoreWaitInfo names (0 when it names none).
template <typename... Args>
uint64_t waitedValue(Args... args) {
    const auto tuple = std::tuple<Args...>(args...);
    if constexpr (sizeof...(Args) == 3) {
        const VkSemaphoreWaitInfo* info = std::get<1>(tuple);
        if (info && info->semaphoreCount > 0 && info->pValues) return info->pValues[0];
    }
    return 0;
}

// One wrapper per volk table slot. `Slot` is the address of volk's global function
// pointer (e.g. &vkQueueSubmit); the wrapper has exactly its signature.
template <auto* Slot, const char* Name, Kind K,
          typename Fn = std::remove_pointer_t<std::remove_reference_t<decltype(*Slot)>>>
struct Hook;

template <auto* Slot, const char* Name, Kind K, typename... Args>
struct Hook<Slot, Name, K, VkResult(Args...)> {
    static inline VkResult (*original)(Args...) = nullptr;

    static VkResult VKAPI_CALL call(Args... args) {
        static const std::string name = canonical(Name);
        if constexpr (K == Kind::Wait) {
            WaitSlices& slices = waitSlices();
            const uint64_t value = waitedValue(args...);
            const bool continuation = slices.timedOut && value == slices.value;
            slices.value = value;
            const VkResult fault = continuation ? VK_SUCCESS : injected(name, ++callCount(name));
            const VkResult r = wait(fault, args...);
            slices.timedOut = r == VK_TIMEOUT;
            return r;
        }
        const VkResult fault = injected(name, ++callCount(name));
        if constexpr (K == Kind::DrainIdle) {
            const VkResult real = original(args...);
            if (fault != VK_SUCCESS) return fault;
            return deviceLost ? VK_ERROR_DEVICE_LOST : real;
        } else {
            if (fault != VK_SUCCESS) return fault;
            if (K == Kind::Queue && deviceLost) return VK_ERROR_DEVICE_LOST;
            return original(args...);
        }
    }

    // A wait with `fault` decided: the code, a lost device, a hung GPU's VK_TIMEOUT after
    // sleeping the timeout (at most 1 s), or the driver's own answer.
    static VkResult wait(VkResult fault, Args... args) {
        if (fault == VK_TIMEOUT) hung = true;
        if (fault != VK_SUCCESS && fault != VK_TIMEOUT) return fault;
        if (deviceLost) return VK_ERROR_DEVICE_LOST;
        if (hung) {
            // The last argument of vkWaitSemaphores is the timeout in nanoseconds.
            const uint64_t ns = std::get<sizeof...(Args) - 1>(std::tuple<Args...>(args...));
            std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<uint64_t>(ns, 1'000'000'000)));
            return VK_TIMEOUT;
        }
        return original(args...);
    }

    // Replaces the slot with the wrapper, keeping the driver's entry point; a slot volk
    // left null (function absent) stays null.
    static void install() {
        if (*Slot == nullptr || *Slot == &call) return;
        original = *Slot;
        *Slot = &call;
    }
};

// Names with linkage, usable as template arguments.
constexpr char kCreateInstance[] = "vkCreateInstance";
constexpr char kCreateDevice[] = "vkCreateDevice";
constexpr char kQueueSubmit[] = "vkQueueSubmit";
constexpr char kWaitSemaphores[] = "vkWaitSemaphores";
constexpr char kWaitSemaphoresKHR[] = "vkWaitSemaphoresKHR";
constexpr char kGetSemaphoreCounterValue[] = "vkGetSemaphoreCounterValue";
constexpr char kGetSemaphoreCounterValueKHR[] = "vkGetSemaphoreCounterValueKHR";
constexpr char kDeviceWaitIdle[] = "vkDeviceWaitIdle";
constexpr char kAllocateMemory[] = "vkAllocateMemory";
constexpr char kCreateBuffer[] = "vkCreateBuffer";
constexpr char kCreateComputePipelines[] = "vkCreateComputePipelines";
constexpr char kCreateDescriptorPool[] = "vkCreateDescriptorPool";
constexpr char kAllocateDescriptorSets[] = "vkAllocateDescriptorSets";

}  // namespace

// Stage 0: after volkInitialize (global functions); 1: after volkLoadInstanceOnly
// (instance functions); 2: after volkLoadDevice (device functions).
// REPRO_TRACE=FILE: the command-stream tracer (src/vk/trace.hpp) in forward mode, every
// traced call appended to FILE as one line, for the golden stream tests
// (tests/e2e/stream_test.cpp). Installed after the device's function table is loaded.
static void installTrace() {
    const char* path = std::getenv("REPRO_TRACE");
    if (!path || !*path) return;
    static FILE* out = std::fopen(path, "w");
    if (!out) {
        std::fprintf(stderr, "repro_faulty: REPRO_TRACE: cannot open %s\n", path);
        std::exit(99);
    }
    repro::vk::trace::install(repro::vk::trace::Mode::Forward, [](const std::string& line) {
        std::fprintf(out, "%s\n", line.c_str());
        std::fflush(out);
    });
}

extern "C" void reproAfterVolkLoad(int stage) {
    if (stage == 2) installTrace();
    if (faults().empty()) return;  // parse REPRO_FAULT now: a bad spec fails before any work
    switch (stage) {
        case 0:
            Hook<&vkCreateInstance, kCreateInstance, Kind::Create>::install();
            break;
        case 1:
            Hook<&vkCreateDevice, kCreateDevice, Kind::Create>::install();
            break;
        case 2:
            Hook<&vkQueueSubmit, kQueueSubmit, Kind::Queue>::install();
            Hook<&vkWaitSemaphores, kWaitSemaphores, Kind::Wait>::install();
            Hook<&vkWaitSemaphoresKHR, kWaitSemaphoresKHR, Kind::Wait>::install();
            Hook<&vkGetSemaphoreCounterValue, kGetSemaphoreCounterValue, Kind::Queue>::install();
            Hook<&vkGetSemaphoreCounterValueKHR, kGetSemaphoreCounterValueKHR, Kind::Queue>::install();
            Hook<&vkDeviceWaitIdle, kDeviceWaitIdle, Kind::DrainIdle>::install();
            Hook<&vkAllocateMemory, kAllocateMemory, Kind::Create>::install();
            Hook<&vkCreateBuffer, kCreateBuffer, Kind::Create>::install();
            Hook<&vkCreateComputePipelines, kCreateComputePipelines, Kind::Create>::install();
            Hook<&vkCreateDescriptorPool, kCreateDescriptorPool, Kind::Create>::install();
            Hook<&vkAllocateDescriptorSets, kAllocateDescriptorSets, Kind::Create>::install();
            break;
        default:
            break;
    }
}
