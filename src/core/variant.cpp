// Names, submit planning, the driver settings of --driver-env-sweep and
// whether an installed driver library knows an option name.
#include "core/variant.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <stdexcept>
#include <cerrno>
#include <filesystem>
#include <system_error>

namespace repro {
namespace {

template <typename Enum, size_t N>
std::optional<Enum> parseName(std::string_view text, const Enum (&values)[N]) {
    for (Enum v : values) {
        if (name(v) == text) return v;
    }
    return std::nullopt;
}

}  // namespace

std::string_view name(BarrierKind b) {
    switch (b) {
        case BarrierKind::Blade:
            return "blade";
        case BarrierKind::Sync2:
            return "sync2";
        case BarrierKind::Buffer:
            return "buffer";
        case BarrierKind::Full:
            return "full";
        case BarrierKind::ExecutionOnly:
            return "execution-only";
        case BarrierKind::None:
            return "none";
    }
    return "?";
}

std::optional<BarrierKind> parseBarrier(std::string_view text) {
    constexpr BarrierKind all[] = {BarrierKind::Blade, BarrierKind::Sync2,         BarrierKind::Buffer,
                                   BarrierKind::Full,  BarrierKind::ExecutionOnly, BarrierKind::None};
    return parseName(text, all);
}

bool isControl(BarrierKind b) { return b == BarrierKind::ExecutionOnly || b == BarrierKind::None; }

std::string_view name(BufferMemory m) {
    switch (m) {
        case BufferMemory::Blade:
            return "blade";
        case BufferMemory::DeviceLocal:
            return "device-local";
        case BufferMemory::HostVisible:
            return "host-visible";
        case BufferMemory::HostCached:
            return "host-cached";
    }
    return "?";
}

std::optional<BufferMemory> parseBufferMemory(std::string_view text) {
    constexpr BufferMemory all[] = {BufferMemory::Blade, BufferMemory::DeviceLocal, BufferMemory::HostVisible,
                                    BufferMemory::HostCached};
    return parseName(text, all);
}

std::string_view name(Profile p) { return p == Profile::Default ? "default" : "blade-exact"; }

std::optional<Profile> parseProfile(std::string_view text) {
    constexpr Profile all[] = {Profile::Default, Profile::BladeExact};
    return parseName(text, all);
}

std::vector<size_t> commandBufferEnds(std::span<const uint64_t> writtenBytes, std::span<const double> predictedSeconds,
                                      const SubmitStructure& structure) {
    if (structure.splitMs && predictedSeconds.size() != writtenBytes.size()) {
        throw std::invalid_argument(
            fmt::format("commandBufferEnds: --split-ms needs a predicted time per dispatch ({} for {} dispatches)",
                        predictedSeconds.size(), writtenBytes.size()));
    }
    std::vector<size_t> ends;
    // X MiB in bytes; a value too large for 64 bits never cuts.
    const double limitBytes = structure.splitMiB ? *structure.splitMiB * 1048576.0 : 0.0;
    const double limitSeconds = structure.splitMs ? *structure.splitMs / 1000.0 : 0.0;
    uint64_t written = 0;
    double seconds = 0.0;
    uint32_t inBuffer = 0;
    for (size_t d = 0; d < writtenBytes.size(); ++d) {
        written = writtenBytes[d] > UINT64_MAX - written ? UINT64_MAX : written + writtenBytes[d];
        if (structure.splitMs) seconds += predictedSeconds[d];
        ++inBuffer;
        const bool last = d + 1 == writtenBytes.size();
        const bool full = structure.every > 0 && inBuffer >= structure.every;
        const bool passedBytes = structure.splitMiB && static_cast<double>(written) > limitBytes;
        const bool passedTime = structure.splitMs && seconds > limitSeconds;
        if (last || full || passedBytes || passedTime) {
            ends.push_back(d);
            written = 0;
            seconds = 0.0;
            inBuffer = 0;
        }
    }
    return ends;
}

std::vector<size_t> commandBufferEnds(std::span<const uint64_t> writtenBytes, const SubmitStructure& structure) {
    return commandBufferEnds(writtenBytes, {}, structure);
}

// A table, one entry per line: laid out by hand, not by clang-format.
// clang-format off
const std::vector<DriverSetting>& driverSettings() {
    // Effects as Mesa's documentation states them, paraphrased: docs/envvars.rst (RADV_DEBUG,
    // RADV_PERFTEST, ACO_DEBUG, INTEL_DEBUG), docs/drivers/nvk.rst (NVK_DEBUG), the RADV
    // hang-debugging notes (RADV_DEBUG=hang also turns on syncshaders) and RADV's issue
    // template (.gitlab/issue_templates, "AMD Radeon Vulkan": does it reproduce with
    // RADV_DEBUG=llvm?). Releases: the option tables read in src/amd/vulkan/radv_instance.c
    // (a 25.x one with noibs and nocompute; a 26.x one with noibchaining, dumpibs and fullsync
    // that deprecates nocompute for RADV_QUEUE_DISABLE=compute; a newer one without nocompute)
    // and src/amd/compiler/aco_ir.cpp, and the names found in Debian 12's Mesa 22.3.6 library.
    const std::string everyRadv = "Mesa 22.3.6 (Debian 12's library) and every RADV table read up to the 26.x ones; "
                                  "first release not verified";
    const std::string everyAco = "Mesa 22.3.6 (Debian 12's library) and every ACO table read (aco_ir.cpp) up to the "
                                 "newest; first release not verified";
    static const std::vector<DriverSetting> settings = {
        {"MESA_RADV", "RADV_DEBUG", "syncshaders",
         "waits for every draw and dispatch to finish before the next starts", "Mesa envvars.rst, RADV_DEBUG", everyRadv},
        {"MESA_RADV", "RADV_DEBUG", "llvm",
         "compiles shaders with LLVM instead of ACO (a Mesa built with LLVM); RADV's bug template asks whether a bug "
         "reproduces with it",
         "Mesa envvars.rst, RADV_DEBUG; Mesa .gitlab/issue_templates (AMD Radeon Vulkan)", everyRadv},
        {"MESA_RADV", "RADV_DEBUG", "nocompute",
         "hides the async compute queues (blade uses family 0 anyway)", "Mesa envvars.rst, RADV_DEBUG",
         "Mesa 22.3.6 to the 25.x tables; a 26.x table deprecates it for RADV_QUEUE_DISABLE=compute; gone from the "
         "newest table read"},
        {"MESA_RADV", "RADV_DEBUG", "zerovram", "zero-fills every VRAM allocation", "Mesa envvars.rst, RADV_DEBUG",
         everyRadv},
        {"MESA_RADV", "RADV_DEBUG", "noibs",
         "records command buffers in system memory, not directly in GPU-visible memory",
         "Mesa envvars.rst, RADV_DEBUG", "Mesa 22.3.6 to the 25.x tables; renamed noibchaining in the 26.x tables"},
        {"MESA_RADV", "RADV_DEBUG", "noibchaining",
         "no IB chaining: each command buffer's IB is submitted on its own, the state IB inlined (noibs' new name)",
         "Mesa radv_instance.c (RADV_DEBUG_NO_IB_CHAINING, radv_amdgpu_winsys.c chain_ib)",
         "the 26.x tables read (replaces noibs); not in Mesa 22.3.6"},
        {"MESA_RADV", "RADV_DEBUG", "hang",
         "hang detection and dumps; it also synchronizes after every command, so a bug that "
         "vanishes under it cannot be caught by it",
         "Mesa envvars.rst, RADV_DEBUG; Mesa RADV hang-debugging notes (hang implies syncshaders)", everyRadv},
        {"MESA_RADV", "ACO_DEBUG", "force-waitcnt",
         "ACO emits a wait for outstanding memory operations wherever there is one",
         "Mesa envvars.rst, ACO_DEBUG", everyAco},
        {"MESA_RADV", "ACO_DEBUG", "nosched",
         "ACO does not schedule instructions: memory operations and their waits stay in program order",
         "Mesa envvars.rst, ACO_DEBUG; aco_ir.cpp (DEBUG_NO_SCHED)", everyAco},
        {"MESA_RADV", "ACO_DEBUG", "noopt", "ACO skips its IR optimizations", "Mesa envvars.rst, ACO_DEBUG; aco_ir.cpp (DEBUG_NO_OPT)",
         everyAco},
        {"MESA_RADV", "RADV_PERFTEST", "cswave32",
         "compiles compute shaders for wave32 (GFX10+)", "Mesa envvars.rst, RADV_PERFTEST", everyRadv},
        {"INTEL_OPEN_SOURCE_MESA", "INTEL_DEBUG", "sync",
         "the CPU waits for each batch to finish after sending it", "Mesa envvars.rst, INTEL_DEBUG", "not checked"},
        {"INTEL_OPEN_SOURCE_MESA", "INTEL_DEBUG", "stall",
         "a GPU stall after every draw and dispatch", "Mesa envvars.rst, INTEL_DEBUG", "not checked"},
        {"MESA_NVK", "NVK_DEBUG", "push_sync",
         "waits for every push buffer to complete", "Mesa docs/drivers/nvk.rst, NVK_DEBUG",
         "NVK_DEBUG_PUSH_SYNC in src/nouveau/vulkan/nvk_debug.h (2024); the table's releases not checked"},
    };
    return settings;
}
// clang-format on

std::optional<ShaderLoopLimit> shaderLoopLimit(std::string_view driverId) {
    if (driverId != "MESA_LLVMPIPE") return std::nullopt;
    return ShaderLoopLimit{.driver = "MESA_LLVMPIPE",
                           .iterations = 65535,
                           .source = "Mesa gallivm's loop limiter (LP_MAX_TGSI_LOOP_ITERATIONS, lp_bld_limits.h)"};
}

std::vector<DriverSetting> driverSettingsFor(std::string_view driverId, bool all) {
    std::vector<DriverSetting> out;
    for (const DriverSetting& s : driverSettings()) {
        if (all || s.driver == driverId) out.push_back(s);
    }
    return out;
}

std::string_view name(OptionPresence p) {
    switch (p) {
        case OptionPresence::Known:
            return "known";
        case OptionPresence::TailOnly:
            return "tail only";
        case OptionPresence::NotKnown:
            return "not known";
        case OptionPresence::Unreadable:
            return "unreadable";
    }
    return "?";
}

OptionPresence optionNameInBytes(std::string_view bytes, std::string_view option) {
    if (option.empty() || option.find('\0') != std::string_view::npos) return OptionPresence::NotKnown;
    bool tail = false;
    for (size_t at = bytes.find(option); at != std::string_view::npos; at = bytes.find(option, at + 1)) {
        const size_t end = at + option.size();
        if (end >= bytes.size() || bytes[end] != '\0') continue;  // not NUL-terminated here
        if (at == 0 || bytes[at - 1] == '\0') return OptionPresence::Known;
        tail = true;
    }
    return tail ? OptionPresence::TailOnly : OptionPresence::NotKnown;
}

LibraryOptionCheck optionKnownToLibrary(const std::string& path, std::string_view variable, std::string_view option) {
    LibraryOptionCheck out;
    const std::string file = std::filesystem::path(path).filename().string();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        out.detail = fmt::format("cannot read {}: {}", path, std::generic_category().message(errno));
        return out;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > (off_t{1} << 30)) {
        out.detail = fmt::format("cannot read {}: not a regular file of at most 1 GiB", path);
        ::close(fd);
        return out;
    }
    const auto size = static_cast<size_t>(st.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) {
        out.detail = fmt::format("cannot read {}: mmap: {}", path, std::generic_category().message(errno));
        return out;
    }
    out.presence = optionNameInBytes(std::string_view(static_cast<const char*>(map), size), option);
    ::munmap(map, size);
    switch (out.presence) {
        case OptionPresence::Known:
            out.detail = fmt::format("{} knows {} option '{}'", file, variable, option);
            break;
        case OptionPresence::TailOnly:
            out.detail = fmt::format("{} has '{}' only as the tail of a longer string: {} may or may not know it", file,
                                     option, variable);
            break;
        default:
            out.detail =
                fmt::format("{} does not know {} option '{}': setting it tests nothing", file, variable, option);
    }
    return out;
}

}  // namespace repro
