// Benchmark of the host read path alone: for every HOST_VISIBLE memory type of one Vulkan
// device, a buffer filled by the GPU (vkCmdFillBuffer, then a TRANSFER_WRITE -> HOST_READ
// barrier, a submit and a fence wait) is read into a cached std::vector with memcpy and
// with copyFromMapped (its default kernel) on 1, 2, 4, 8 and 16 threads, then with the
// SSE4.1 kernel, with threads started per read, and into fresh memory (a new zero-filled
// std::vector, or uninitialised new[], or a prefaultedHostFloats) on the most threads; every
// copy is checked. Prints one row per memory type: GB/s (1 GB = 1e9 bytes), the median of
// the timed reads, and a second row with the first (cold) read. Then a table of writes into
// each mapping (the upload's direction): memcpy and copyToMapped per thread count.
//
// Calls Vulkan through volk directly, not src/vk, so it stands alone.
//
// Usage: read_bench [--device INDEX] [--bytes N | --mib X] [--runs R] [--threads A,B,...]
//                   [--cpu-only]
//   --device   index in vkEnumeratePhysicalDevices order (default 0)
//   --bytes    bytes per buffer (default 14745600: the full-size small[N], 3,686,400 floats);
//   --mib      the same in whole MiB
//   --runs     timed reads per column after the first (default 7)
//   --threads  stream-load thread counts (default 1,2,4,8,16)
//   --cpu-only no Vulkan: a malloc'd buffer filled by the CPU (ordinary cached memory)
// Exit status: 0; 1 for a bad argument or a Vulkan failure (one line on stderr); 2 when a
// copy was wrong.
#include "reference/host_floats.hpp"
#include "reference/host_read.hpp"
#include "core/parallel.hpp"

#include <fmt/format.h>
#include <volk.h>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
    uint32_t device = 0;
    size_t bytes = 3686400 * sizeof(float);
    unsigned runs = 7;
    std::vector<unsigned> threads{1, 2, 4, 8, 16};
    bool cpuOnly = false;
};

[[noreturn]] void usage(const std::string& why) { throw std::invalid_argument(why); }

std::vector<unsigned> parseList(const std::string& text) {
    std::vector<unsigned> out;
    size_t at = 0;
    while (at <= text.size()) {
        const size_t comma = std::min(text.find(',', at), text.size());
        const auto n = repro::parseThreadCount(text.substr(at, comma - at).c_str());
        if (!n) usage("--threads takes a list of integers 1..64, such as 1,2,4,8,16");
        out.push_back(*n);
        at = comma + 1;
    }
    return out;
}

// A whole decimal number for `option`, or std::invalid_argument naming it.
uint64_t parseNumber(const std::string& option, const std::string& text) {
    size_t used = 0;
    uint64_t value = 0;
    try {
        value = std::stoull(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || text[0] == '-') {
        usage(option + " takes a whole number, not '" + text + "'");
    }
    return value;
}

Args parseArgs(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--device") {
            a.device = static_cast<uint32_t>(std::min<uint64_t>(parseNumber(arg, value()), UINT32_MAX));
        } else if (arg == "--bytes") {
            a.bytes = parseNumber(arg, value());
        } else if (arg == "--mib") {
            a.bytes = parseNumber(arg, value()) * 1024 * 1024;
        } else if (arg == "--runs") {
            a.runs = static_cast<unsigned>(std::min<uint64_t>(parseNumber(arg, value()), 1000));
        } else if (arg == "--threads") {
            a.threads = parseList(value());
        } else if (arg == "--cpu-only") {
            a.cpuOnly = true;
        } else {
            usage("unknown argument " + arg + " (see the comment at the top of bench/read_bench.cpp)");
        }
    }
    if (a.bytes < 4 || a.bytes % 4 != 0 || a.bytes > (size_t{1} << 34)) {
        usage("--bytes must be a multiple of 4 from 4 to 16 GiB");
    }
    if (a.runs == 0) usage("--runs must be positive");
    return a;
}

// The pattern: 256-byte blocks, each a different 32-bit value (vkCmdFillBuffer repeats one
// value), so a copy that drops, repeats or shifts a block is caught.
constexpr size_t kBlockBytes = 256;
uint32_t blockValue(size_t block) { return static_cast<uint32_t>((block + 1) * 0x9E3779B9u); }

std::vector<uint32_t> expectedPattern(size_t bytes) {
    std::vector<uint32_t> words(bytes / 4);
    for (size_t i = 0; i < words.size(); ++i) words[i] = blockValue(i * 4 / kBlockBytes);
    return words;
}

// The same blocks as copyFromMapped (kReadBlockBytes, at multiples of it in the source
// address, taken in order from a shared counter) on a std::jthread per thread started for
// this one read.
void copyWithSpawnedThreads(void* dst, const void* src, size_t bytes, unsigned threads) {
    const size_t block = repro::kReadBlockBytes;
    const size_t lead = block - reinterpret_cast<uintptr_t>(src) % block;
    const size_t blocks = bytes <= lead ? 1 : 2 + (bytes - lead - 1) / block;
    auto bound = [&](size_t k) { return k == 0 ? 0 : std::min(bytes, lead + (k - 1) * block); };
    std::atomic<size_t> next{0};
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
            for (size_t k = next++; k < blocks; k = next++) {
                const size_t begin = bound(k);
                repro::copyFromMapped(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin,
                                      bound(k + 1) - begin, 1);
            }
        });
    }
}

struct Timing {
    double first = 0;   // GB/s of the first read
    double median = 0;  // GB/s, median of the timed reads
};

// Calls `read` (which fills dst) once, then `runs` times; checks every copy. dst is zeroed
// before each read, untimed, as repro's readback writes into a fresh zeroed vector.
Timing timeReads(const std::function<void()>& read, std::vector<uint32_t>& dst, const std::vector<uint32_t>& expected,
                 unsigned runs, bool& wrong) {
    const double bytes = double(expected.size() * 4);
    std::vector<double> rates;
    for (unsigned r = 0; r <= runs; ++r) {
        std::fill(dst.begin(), dst.end(), 0u);
        const auto t0 = Clock::now();
        read();
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (dst != expected) wrong = true;
        rates.push_back(bytes / s * 1e-9);
    }
    Timing t{.first = rates[0]};
    std::vector<double> timed(rates.begin() + 1, rates.end());
    std::sort(timed.begin(), timed.end());
    t.median = timed[timed.size() / 2];
    return t;
}

// How a fresh-memory read gets its destination.
enum class Fresh {
    ZeroedVector,  // a std::vector sized by its constructor: zero-filled on the calling thread,
                   // which takes the page faults (allocation timed)
    RawNew,        // an uninitialised new[]: the copy's threads take the faults (allocation timed)
    Prefaulted,    // a prefaultedHostFloats made before the clock starts, as repro's readback
                   // does now (its pages faulted in on a background thread while the GPU runs)
};

// Reads into memory the process has not touched yet, as a readback into a new buffer does.
// Every buffer stays allocated until the end, so each read gets fresh pages, as repro's
// --repeat keeps every run's result.
Timing timeFreshReads(const void* src, const std::vector<uint32_t>& expected, unsigned threads, Fresh fresh,
                      unsigned runs, bool& wrong) {
    const size_t n = expected.size();
    std::vector<std::vector<uint32_t>> vectors;
    std::vector<std::unique_ptr<uint32_t[]>> raws;
    std::vector<repro::HostFloats> prefaulted;
    std::vector<double> rates;
    for (unsigned r = 0; r <= runs; ++r) {
        void* out =
            fresh == Fresh::Prefaulted ? prefaulted.emplace_back(repro::prefaultedHostFloats(n)).data() : nullptr;
        const auto t0 = Clock::now();
        if (fresh == Fresh::ZeroedVector) out = vectors.emplace_back(n).data();
        if (fresh == Fresh::RawNew) out = raws.emplace_back(new uint32_t[n]).get();
        repro::copyFromMapped(out, src, n * 4, threads);
        const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        if (std::memcmp(out, expected.data(), n * 4) != 0) wrong = true;
        rates.push_back(double(n * 4) / seconds * 1e-9);
    }
    Timing t{.first = rates[0]};
    std::sort(rates.begin() + 1, rates.end());
    t.median = rates[1 + runs / 2];
    return t;
}

// The upload's direction: the pattern written from cached host memory into the mapping by
// one memcpy and by copyToMapped on each thread count, GB/s (median of the runs after a
// first), each write checked by reading the mapping back. The mapping keeps the pattern.
bool benchWrites(const std::string& label, void* mapped, const Args& a) {
    const std::vector<uint32_t> expected = expectedPattern(a.bytes);
    std::vector<uint32_t> back(expected.size());
    bool wrong = false;
    auto time = [&](const std::function<void()>& write) {
        std::vector<double> rates;
        for (unsigned r = 0; r <= a.runs; ++r) {
            const auto t0 = Clock::now();
            write();
            const double s = std::chrono::duration<double>(Clock::now() - t0).count();
            rates.push_back(double(a.bytes) / s * 1e-9);
            repro::copyFromMapped(back.data(), mapped, a.bytes);
            if (back != expected) wrong = true;
        }
        std::sort(rates.begin() + 1, rates.end());
        return rates[1 + a.runs / 2];
    };
    std::string row =
        fmt::format("{:<60} {:>7.3f}", label, time([&] { std::memcpy(mapped, expected.data(), a.bytes); }));
    for (const unsigned t : a.threads) {
        row += fmt::format(" {:>7.3f}", time([&] { repro::copyToMapped(mapped, expected.data(), a.bytes, t); }));
    }
    fmt::print("{}{}\n", row, wrong ? "  WRITE WRONG" : "");
    return !wrong;
}

// One table row pair for a mapped (or malloc'd) source: memcpy, stream loads per thread
// count on the pool, and the largest thread count on threads spawned per read.
bool benchSource(const std::string& label, const void* src, const Args& a) {
    const std::vector<uint32_t> expected = expectedPattern(a.bytes);
    std::vector<uint32_t> dst(expected.size());
    bool wrong = false;
    std::vector<Timing> cols;
    cols.push_back(timeReads([&] { std::memcpy(dst.data(), src, a.bytes); }, dst, expected, a.runs, wrong));
    for (const unsigned t : a.threads) {
        cols.push_back(
            timeReads([&] { repro::copyFromMapped(dst.data(), src, a.bytes, t); }, dst, expected, a.runs, wrong));
    }
    const unsigned most = *std::max_element(a.threads.begin(), a.threads.end());
    cols.push_back(timeReads(
        [&] { repro::copyFromMapped(dst.data(), src, a.bytes, most, repro::HostReadKernel::StreamLoadSse41); }, dst,
        expected, a.runs, wrong));
    cols.push_back(
        timeReads([&] { copyWithSpawnedThreads(dst.data(), src, a.bytes, most); }, dst, expected, a.runs, wrong));
    for (const Fresh fresh : {Fresh::ZeroedVector, Fresh::RawNew, Fresh::Prefaulted}) {
        cols.push_back(timeFreshReads(src, expected, most, fresh, a.runs, wrong));
    }
    std::string median = fmt::format("{:<60}", label), first = fmt::format("{:<60}", "    first read");
    for (size_t c = 0; c < cols.size(); ++c) {
        const size_t width = c + 5 == cols.size() ? 10 : c + 5 > cols.size() ? 9 : 7;
        median += fmt::format(" {:>{}.3f}", cols[c].median, width);
        first += fmt::format(" {:>{}.3f}", cols[c].first, width);
    }
    fmt::print("{}{}\n{}\n", median, wrong ? "  COPY WRONG" : "", first);
    return !wrong;
}

void printHeader(const Args& a, const std::string& what) {
    std::vector<unsigned char> probe(64);
    const repro::HostReadInfo info = repro::copyFromMapped(probe.data(), probe.data() + 32, 32, 1);
    const unsigned most = *std::max_element(a.threads.begin(), a.threads.end());
    fmt::print("read bench: {}; {} bytes ({:.2f} MiB) per read; median of {} reads after a first\n", what, a.bytes,
               double(a.bytes) / (1 << 20), a.runs);
    fmt::print(
        "GB/s (1e9 bytes/s). memcpy: one std::memcpy; xT: copyFromMapped on T threads, its default\n"
        "kernel ({}); sse4.1 x{}: the SSE4.1 kernel; spawn x{}: the default kernel on threads started\n"
        "for each read instead of the persistent pool; new vec, new[]: x{} into fresh memory, a\n"
        "zero-filled std::vector or uninitialised new[], allocation timed too; prefault: x{} into a\n"
        "prefaultedHostFloats made untimed, as repro reads now. {} CPUs available\n",
        repro::name(info.kernel), most, most, most, most, repro::availableCpus());
    if (!a.cpuOnly) {
        fmt::print(
            "memory: type index, flags (DL DEVICE_LOCAL, HV HOST_VISIBLE, HC HOST_COHERENT, "
            "CACHED HOST_CACHED), heap index and size\n");
    }
    std::string header = fmt::format("{:<60} {:>7}", "memory", "memcpy");
    for (const unsigned t : a.threads) header += fmt::format(" {:>7}", fmt::format("x{}", t));
    header += fmt::format(" {:>10} {:>9} {:>9} {:>9} {:>9}", fmt::format("sse4.1 x{}", most),
                          fmt::format("spawn x{}", most), "new vec", "new[]", "prefault");
    fmt::print("{}\n", header);
}

int cpuOnly(const Args& a) {
    printHeader(a, "CPU only (malloc'd, cached host memory)");
    const std::vector<uint32_t> pattern = expectedPattern(a.bytes);
    std::unique_ptr<void, decltype(&std::free)> buffer(std::aligned_alloc(64, (a.bytes + 63) / 64 * 64), &std::free);
    if (!buffer) throw std::runtime_error("out of memory");
    std::memcpy(buffer.get(), pattern.data(), a.bytes);
    return benchSource("malloc'd host memory", buffer.get(), a) ? 0 : 2;
}

// ---- Vulkan -------------------------------------------------------------------------------

const char* resultName(VkResult r) {
    switch (r) {
        case VK_SUCCESS:
            return "VK_SUCCESS";
        case VK_TIMEOUT:
            return "VK_TIMEOUT";
        case VK_ERROR_OUT_OF_HOST_MEMORY:
            return "VK_ERROR_OUT_OF_HOST_MEMORY";
        case VK_ERROR_OUT_OF_DEVICE_MEMORY:
            return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
        case VK_ERROR_INITIALIZATION_FAILED:
            return "VK_ERROR_INITIALIZATION_FAILED";
        case VK_ERROR_DEVICE_LOST:
            return "VK_ERROR_DEVICE_LOST";
        case VK_ERROR_MEMORY_MAP_FAILED:
            return "VK_ERROR_MEMORY_MAP_FAILED";
        case VK_ERROR_INCOMPATIBLE_DRIVER:
            return "VK_ERROR_INCOMPATIBLE_DRIVER";
        case VK_ERROR_TOO_MANY_OBJECTS:
            return "VK_ERROR_TOO_MANY_OBJECTS";
        default:
            return "another VkResult";
    }
}

void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS) {
        throw std::runtime_error(fmt::format("{} failed: {} ({})", what, resultName(r), int(r)));
    }
}

// The instance, device, queue, command pool and fence, destroyed in reverse order.
struct Context {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties properties{};
    VkPhysicalDeviceMemoryProperties memory{};

    Context() = default;
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    ~Context() {
        if (device) {
            vkDeviceWaitIdle(device);  // teardown: nothing to do with a failure here
            if (fence) vkDestroyFence(device, fence, nullptr);
            if (pool) vkDestroyCommandPool(device, pool, nullptr);
            vkDestroyDevice(device, nullptr);
        }
        if (instance) vkDestroyInstance(instance, nullptr);
    }
};

void createInstance(Context& c) {
    void* loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    auto gipa = loader ? reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(loader, "vkGetInstanceProcAddr")) : nullptr;
    if (!gipa) {
        throw std::runtime_error("no Vulkan loader: libvulkan.so.1 could not be loaded (try --cpu-only)");
    }
    volkInitializeCustom(gipa);
    const VkApplicationInfo app{.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                .pApplicationName = "read_bench",
                                .apiVersion = VK_API_VERSION_1_1};
    const VkInstanceCreateInfo info{.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    check(vkCreateInstance(&info, nullptr, &c.instance), "vkCreateInstance");
    volkLoadInstanceOnly(c.instance);
}

// Device `index` with one queue of a family that can record vkCmdFillBuffer (graphics or
// compute: Vulkan 1.0's requirement, Vulkan spec "vkCmdFillBuffer").
void createDevice(Context& c, uint32_t index) {
    uint32_t count = 0;
    check(vkEnumeratePhysicalDevices(c.instance, &count, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> devices(count);
    check(vkEnumeratePhysicalDevices(c.instance, &count, devices.data()), "vkEnumeratePhysicalDevices");
    if (index >= count) {
        throw std::invalid_argument(fmt::format("--device {}: the loader lists {} devices", index, count));
    }
    c.physical = devices[index];
    vkGetPhysicalDeviceProperties(c.physical, &c.properties);
    vkGetPhysicalDeviceMemoryProperties(c.physical, &c.memory);
    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(c.physical, &families, nullptr);
    std::vector<VkQueueFamilyProperties> props(families);
    vkGetPhysicalDeviceQueueFamilyProperties(c.physical, &families, props.data());
    uint32_t family = families;
    for (uint32_t f = 0; f < families && family == families; ++f) {
        if (props[f].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) family = f;
    }
    if (family == families) throw std::runtime_error("no graphics or compute queue family");
    const float priority = 1.0f;
    const VkDeviceQueueCreateInfo queue{.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                        .queueFamilyIndex = family,
                                        .queueCount = 1,
                                        .pQueuePriorities = &priority};
    const VkDeviceCreateInfo info{
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &queue};
    check(vkCreateDevice(c.physical, &info, nullptr, &c.device), "vkCreateDevice");
    volkLoadDevice(c.device);
    vkGetDeviceQueue(c.device, family, 0, &c.queue);
    const VkCommandPoolCreateInfo pool{.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = family};
    check(vkCreateCommandPool(c.device, &pool, nullptr, &c.pool), "vkCreateCommandPool");
    const VkFenceCreateInfo fence{.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    check(vkCreateFence(c.device, &fence, nullptr, &c.fence), "vkCreateFence");
}

// A buffer in one memory type, mapped whole.
struct MappedBuffer {
    VkDevice device = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr;

    MappedBuffer() = default;
    MappedBuffer(const MappedBuffer&) = delete;
    MappedBuffer& operator=(const MappedBuffer&) = delete;
    ~MappedBuffer() {
        if (mapped) vkUnmapMemory(device, memory);
        if (buffer) vkDestroyBuffer(device, buffer, nullptr);
        if (memory) vkFreeMemory(device, memory, nullptr);
    }
};

// Empty string, or why the type cannot hold the buffer.
std::string allocate(const Context& c, uint32_t type, size_t bytes, MappedBuffer& b) {
    b.device = c.device;
    const VkBufferCreateInfo info{.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                  .size = bytes,
                                  .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                  .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    check(vkCreateBuffer(c.device, &info, nullptr, &b.buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(c.device, b.buffer, &req);
    if (!(req.memoryTypeBits & (1u << type))) return "not allowed for a transfer-destination buffer";
    const VkMemoryAllocateInfo alloc{
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    const VkResult r = vkAllocateMemory(c.device, &alloc, nullptr, &b.memory);
    if (r != VK_SUCCESS) return fmt::format("vkAllocateMemory: {}", resultName(r));
    check(vkBindBufferMemory(c.device, b.buffer, b.memory, 0), "vkBindBufferMemory");
    check(vkMapMemory(c.device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), "vkMapMemory");
    return "";
}

// The GPU writes the pattern; the barrier makes the writes available and visible to the host
// (Vulkan spec, "Host Access to Device Memory Objects": HOST_READ in the second scope).
void fillFromGpu(const Context& c, const MappedBuffer& b, size_t bytes, bool coherent) {
    const VkCommandBufferAllocateInfo info{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                           .commandPool = c.pool,
                                           .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                           .commandBufferCount = 1};
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    check(vkAllocateCommandBuffers(c.device, &info, &cmd), "vkAllocateCommandBuffers");
    const VkCommandBufferBeginInfo begin{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                         .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
    for (size_t offset = 0, block = 0; offset < bytes; offset += kBlockBytes, ++block) {
        vkCmdFillBuffer(cmd, b.buffer, offset, std::min(kBlockBytes, bytes - offset), blockValue(block));
    }
    const VkMemoryBarrier barrier{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                  .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0,
                         nullptr);
    check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    const VkSubmitInfo submit{.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    check(vkQueueSubmit(c.queue, 1, &submit, c.fence), "vkQueueSubmit");
    check(vkWaitForFences(c.device, 1, &c.fence, VK_TRUE, 60'000'000'000ull), "vkWaitForFences (60 s)");
    check(vkResetFences(c.device, 1, &c.fence), "vkResetFences");
    vkFreeCommandBuffers(c.device, c.pool, 1, &cmd);
    if (!coherent) {
        const VkMappedMemoryRange range{
            .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = b.memory, .offset = 0, .size = VK_WHOLE_SIZE};
        check(vkInvalidateMappedMemoryRanges(c.device, 1, &range), "vkInvalidateMappedMemoryRanges");
    }
}

std::string flagNames(VkMemoryPropertyFlags f) {
    std::string out;
    auto add = [&](VkMemoryPropertyFlags bit, const char* n) {
        if (f & bit) out += out.empty() ? n : std::string("|") + n;
    };
    add(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "DL");
    add(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "HV");
    add(VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "HC");
    add(VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "CACHED");
    add(VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT, "LAZY");
    add(VK_MEMORY_PROPERTY_PROTECTED_BIT, "PROT");
    return out.empty() ? "-" : out;
}

int vulkanBench(const Args& a) {
    Context c;
    createInstance(c);
    createDevice(c, a.device);
    printHeader(
        a, fmt::format("device {} {} (Vulkan {}.{}.{}, driverVersion 0x{:x})", a.device, c.properties.deviceName,
                       VK_API_VERSION_MAJOR(c.properties.apiVersion), VK_API_VERSION_MINOR(c.properties.apiVersion),
                       VK_API_VERSION_PATCH(c.properties.apiVersion), c.properties.driverVersion));
    bool allRight = true;
    std::vector<std::pair<std::string, std::unique_ptr<MappedBuffer>>> mapped;  // destroyed before c
    for (uint32_t t = 0; t < c.memory.memoryTypeCount; ++t) {
        const VkMemoryType& type = c.memory.memoryTypes[t];
        if (!(type.propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) continue;
        const VkMemoryHeap& heap = c.memory.memoryHeaps[type.heapIndex];
        const std::string label =
            fmt::format("type {:>2} {:<16} heap {} ({:.0f} MiB{})", t, flagNames(type.propertyFlags), type.heapIndex,
                        double(heap.size) / (1 << 20), heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT ? ", DL" : "");
        auto owned = std::make_unique<MappedBuffer>();
        MappedBuffer& b = *owned;
        const std::string why = allocate(c, t, a.bytes, b);
        if (!why.empty()) {
            fmt::print("{:<60} {}\n", label, why);
            continue;
        }
        fillFromGpu(c, b, a.bytes, type.propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        allRight = benchSource(label, b.mapped, a) && allRight;
        mapped.emplace_back(label, std::move(owned));
    }
    std::string header =
        fmt::format("writes into the mapping (the upload's direction), GB/s\n{:<60} {:>7}", "memory", "memcpy");
    for (const unsigned t : a.threads) header += fmt::format(" {:>7}", fmt::format("x{}", t));
    fmt::print("{}\n", header);
    for (auto& [label, b] : mapped) allRight = benchWrites(label, b->mapped, a) && allRight;
    return allRight ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Args a = parseArgs(argc, argv);
        return a.cpuOnly ? cpuOnly(a) : vulkanBench(a);
    } catch (const std::exception& e) {
        fmt::print(stderr, "read_bench: {}\n", e.what());
        return 1;
    }
}
