// Names, submit planning, the driver settings of --driver-env-sweep and
// whether an installed driver library knows an option name.
#include "core/variant.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <stdexcept>
#include <filesystem>
#include <system_error>

#include "core/enum_names.hpp"

namespace repro {
namespace {

// Each enum's names, in the order of its values.
constexpr std::string_view kBarrierNames[] = {"blade", "sync2", "buffer", "full", "execution-only", "none"};
constexpr std::string_view kWeakeningNames[] = {"removed", "execution-only", "no-src-access", "dst-stage-misses"};
constexpr std::string_view kMemoryNames[] = {"blade", "device-local", "host-visible", "host-cached"};
constexpr std::string_view kProfileNames[] = {"default", "blade-exact"};
constexpr std::string_view kPresenceNames[] = {"known", "tail only", "not known", "unreadable"};

}  // namespace

std::string_view name(BarrierKind b) { return nameOf(kBarrierNames, b); }

std::optional<BarrierKind> parseBarrier(std::string_view text) { return parseName<BarrierKind>(text, kBarrierNames); }

bool isControl(BarrierKind b) { return b == BarrierKind::ExecutionOnly || b == BarrierKind::None; }

std::string_view name(Weakening w) { return nameOf(kWeakeningNames, w); }

std::optional<Weakening> parseWeakening(std::string_view text) { return parseName<Weakening>(text, kWeakeningNames); }

std::string mutantText(const MutantSpec& m) { return std::to_string(m.step) + ":" + std::string(name(m.weakening)); }

std::string_view name(BufferMemory m) { return nameOf(kMemoryNames, m); }

std::optional<BufferMemory> parseBufferMemory(std::string_view text) {
    return parseName<BufferMemory>(text, kMemoryNames);
}

std::string_view name(Profile p) { return nameOf(kProfileNames, p); }

std::optional<Profile> parseProfile(std::string_view text) { return parseName<Profile>(text, kProfileNames); }

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
    // Effects as Mesa documents them, paraphrased (https://docs.mesa3d.org/envvars.html: RADV_DEBUG,
    // RADV_PERFTEST, ACO_DEBUG, INTEL_DEBUG; docs/drivers/nvk.rst: NVK_DEBUG; RADV's hang-debugging
    // notes: hang turns on syncshaders; RADV's issue template asks about llvm). Names checked in the
    // option tables of src/amd/vulkan/radv_instance.c (25.x: noibs; 26.x: noibchaining, fullsync),
    // src/amd/compiler/aco_ir.cpp, src/nouveau/vulkan/nvk_instance.c, and Debian 12's 22.3.6 library.
    const std::string radv = "Mesa 22.3.6 (Debian 12's library) and every RADV table read up to the 26.x ones";
    const std::string aco = "Mesa 22.3.6 (Debian 12's library) and every ACO table read (aco_ir.cpp)";
    const std::string sync = "a missing execution dependency: a dispatch started before the one it must follow ended";
    auto row = [](std::string driver, std::string variable, std::string value, std::string effect,
                  std::string proves, std::string releases, std::string source = {}) {
        if (source.empty()) source = "Mesa envvars.rst, " + variable;
        return DriverSetting{std::move(driver), std::move(variable), std::move(value), std::move(effect),
                             std::move(source), std::move(releases), std::move(proves)};
    };
    static const std::vector<DriverSetting> settings = {
        row("MESA_RADV", "RADV_DEBUG", "syncshaders", "waits for every draw and dispatch to finish before the next starts", sync, radv),
        row("MESA_RADV", "RADV_DEBUG", "fullsync", "full synchronization (RADV_DEBUG_FULL_SYNC); not described in envvars.rst as read: " "by its name syncshaders with cache flushes and invalidations (not verified in the source)", "a missing cache flush or invalidation where syncshaders alone stays wrong (else no more than syncshaders)", "the 26.x tables read; not in Mesa 22.3.6 nor the 25.x table", "Mesa radv_instance.c (RADV_DEBUG_FULL_SYNC)"),
        row("MESA_RADV", "RADV_DEBUG", "hang", "hang detection with dumps; it implies syncshaders", "no more than syncshaders (hang implies it); a bug that vanishes here cannot be caught by hang's report", radv, "Mesa envvars.rst, RADV_DEBUG; Mesa RADV hang-debugging notes (hang implies syncshaders)"),
        row("MESA_RADV", "RADV_DEBUG", "nocache", "disables the shader cache", "a stale or wrong shader binary taken from the shader cache", radv),
        row("MESA_RADV", "RADV_DEBUG", "allbos", "makes every allocated buffer part of each submission", "a buffer missing from the submission's buffer list (not resident while the work ran)", radv),
        row("MESA_RADV", "RADV_DEBUG", "noibs", "records command buffers in system memory, not in GPU-visible memory", "a fault in how command buffers are recorded or chained into one submission", "Mesa 22.3.6 to the 25.x tables; renamed noibchaining in the 26.x tables"),
        row("MESA_RADV", "RADV_DEBUG", "noibchaining", "no IB chaining: each command buffer's IB is submitted on its own " "(noibs' new name)", "a fault in chaining command buffers into one submission", "the 26.x tables read (replaces noibs); not in Mesa 22.3.6", "Mesa radv_instance.c (RADV_DEBUG_NO_IB_CHAINING, radv_amdgpu_winsys.c chain_ib)"),
        row("MESA_RADV", "RADV_DEBUG", "nocompute", "hides the async compute queues (blade uses family 0 anyway)", "the compute rings' presence itself: the chain runs on family 0 either way", "Mesa 22.3.6 to the 25.x tables; a 26.x table deprecates it for RADV_QUEUE_DISABLE=compute; gone from the newest"),
        row("MESA_RADV", "RADV_DEBUG", "zerovram", "zero-fills every VRAM allocation", "a read of device memory that was never written", radv),
        row("MESA_RADV", "RADV_DEBUG", "llvm", "compiles shaders with LLVM instead of ACO (a Mesa built with LLVM); RADV's " "bug template asks whether a bug reproduces with it", "the ACO compiler (H5), where LLVM compiled (the row says so from the device name, to which RADV " "appends the LLVM version; newer Mesa may keep llvm to debug builds); unchanged proves nothing", radv, "Mesa envvars.rst, RADV_DEBUG; Mesa .gitlab/issue_templates (AMD Radeon Vulkan)"),
        row("MESA_RADV", "ACO_DEBUG", "force-waitcnt", "ACO waits for outstanding memory operations wherever there is one", "a missing wait inside the shader (ACO's wait-counter insertion)", aco),
        row("MESA_RADV", "ACO_DEBUG", "force-waitdeps", "ACO waits on instruction dependencies, for hardware hazards (GFX10+)", "a hardware hazard ACO does not work around", aco),
        row("MESA_RADV", "ACO_DEBUG", "novn", "ACO skips value numbering", "a value-numbering miscompile in ACO", aco),
        row("MESA_RADV", "ACO_DEBUG", "noopt", "ACO skips its IR optimizations", "an ACO optimization miscompiles (novn and nosched narrow which)", aco),
        row("MESA_RADV", "ACO_DEBUG", "nosched", "ACO does not schedule instructions: memory operations keep program order", "ACO's scheduler moved a memory operation or its wait", aco, "Mesa envvars.rst, ACO_DEBUG; aco_ir.cpp (DEBUG_NO_SCHED)"),
        row("MESA_RADV", "RADV_PERFTEST", "cswave32", "compiles compute shaders for wave32 (GFX10+)", "a fault tied to the wave size compute shaders run with", radv),
        row("INTEL_OPEN_SOURCE_MESA", "INTEL_DEBUG", "sync", "the CPU waits for each batch to finish after sending it", "a missing dependency between batches (submission-level synchronization)", "not checked"),
        row("INTEL_OPEN_SOURCE_MESA", "INTEL_DEBUG", "stall", "a GPU stall after every draw and dispatch", sync, "not checked"),
        row("MESA_NVK", "NVK_DEBUG", "push_sync", "waits for every push buffer to complete", "a missing dependency between push buffers (submission-level synchronization)", "NVK_DEBUG_PUSH_SYNC in nvk_instance.c's table", "Mesa docs/drivers/nvk.rst, NVK_DEBUG"),
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

std::string_view name(OptionPresence p) { return nameOf(kPresenceNames, p); }

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
