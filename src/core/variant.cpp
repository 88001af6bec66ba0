// Names, submit planning, the --matrix set and the driver settings of --driver-env-sweep.
#include "core/variant.hpp"

#include <fmt/format.h>

#include <stdexcept>


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
        case BarrierKind::Blade: return "blade";
        case BarrierKind::Sync2: return "sync2";
        case BarrierKind::Buffer: return "buffer";
        case BarrierKind::Full: return "full";
        case BarrierKind::ExecutionOnly: return "execution-only";
        case BarrierKind::None: return "none";
    }
    return "?";
}

std::optional<BarrierKind> parseBarrier(std::string_view text) {
    constexpr BarrierKind all[] = {BarrierKind::Blade, BarrierKind::Sync2, BarrierKind::Buffer,
                                   BarrierKind::Full, BarrierKind::ExecutionOnly, BarrierKind::None};
    return parseName(text, all);
}

bool isControl(BarrierKind b) { return b == BarrierKind::ExecutionOnly || b == BarrierKind::None; }

std::string_view name(BufferMemory m) {
    switch (m) {
        case BufferMemory::Blade: return "blade";
        case BufferMemory::DeviceLocal: return "device-local";
        case BufferMemory::HostVisible: return "host-visible";
        case BufferMemory::HostCached: return "host-cached";
    }
    return "?";
}

std::optional<BufferMemory> parseBufferMemory(std::string_view text) {
    constexpr BufferMemory all[] = {BufferMemory::Blade, BufferMemory::DeviceLocal,
                                       BufferMemory::HostVisible, BufferMemory::HostCached};
    return parseName(text, all);
}

std::string_view name(Profile p) { return p == Profile::Default ? "default" : "blade-exact"; }

std::optional<Profile> parseProfile(std::string_view text) {
    constexpr Profile all[] = {Profile::Default, Profile::BladeExact};
    return parseName(text, all);
}

std::vector<size_t> commandBufferEnds(std::span<const uint64_t> writtenBytes,
                                      std::span<const double> predictedSeconds,
                                      const SubmitStructure& structure) {
    if (structure.splitMs && predictedSeconds.size() != writtenBytes.size()) {
        throw std::invalid_argument(fmt::format(
            "commandBufferEnds: --split-ms needs a predicted time per dispatch ({} for {} dispatches)",
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

std::vector<size_t> commandBufferEnds(std::span<const uint64_t> writtenBytes,
                                      const SubmitStructure& structure) {
    return commandBufferEnds(writtenBytes, {}, structure);
}

std::vector<Variant> matrixVariants(double splitMiB) {
    std::vector<Variant> out;
    const std::string split = fmt::format("{:.3f}", splitMiB);
    for (const char* mode : {"multipass", "single"}) {
        auto add = [&](std::string what, std::vector<std::string> flags, bool control = false,
                       bool quirks = false) {
            std::vector<std::string> args{"--mode", mode};
            args.insert(args.end(), flags.begin(), flags.end());
            out.push_back({fmt::format("{} {}", mode, what), std::move(args), control, quirks});
        };
        add("blade (as recorded by blade)", {});
        for (const char* b : {"sync2", "buffer", "full"}) {
            add(fmt::format("barrier={}", b), {"--barrier", b});
        }
        add("barrier=execution-only (control)", {"--barrier", "execution-only"}, true);
        add("barrier=none (control)", {"--barrier", "none"}, true);
        add("submit-every=2 host-wait", {"--submit-every", "2"});
        add("submit-every=2 no-host-wait", {"--submit-every", "2", "--no-host-wait"});
        add(fmt::format("split-mib={} no-host-wait", split), {"--split-mib", split, "--no-host-wait"});
        for (const char* m : {"device-local", "host-visible", "host-cached"}) {
            add(fmt::format("memory={}", m), {"--memory", m});
        }
        add("dispatch-repeat=4", {"--dispatch-repeat", "4"});
        add("profile=blade-exact (blade's quirks)", {"--profile", "blade-exact"}, false, true);
    }
    return out;
}

const std::vector<DriverSetting>& driverSettings() {
    // Effects as Mesa's documentation states them, paraphrased: docs/envvars.rst (RADV_DEBUG,
    // RADV_PERFTEST, ACO_DEBUG, INTEL_DEBUG), docs/drivers/nvk.rst (NVK_DEBUG), and the RADV
    // hang-debugging notes (RADV_DEBUG=hang also turns on syncshaders).
    static const std::vector<DriverSetting> settings = {
        {"MESA_RADV", "RADV_DEBUG", "syncshaders",
         "waits for every draw and dispatch to finish before the next starts", "Mesa envvars.rst, RADV_DEBUG"},
        {"MESA_RADV", "RADV_DEBUG", "nocompute",
         "hides the async compute queues (blade uses family 0 anyway)", "Mesa envvars.rst, RADV_DEBUG"},
        {"MESA_RADV", "RADV_DEBUG", "zerovram",
         "zero-fills every VRAM allocation", "Mesa envvars.rst, RADV_DEBUG"},
        {"MESA_RADV", "RADV_DEBUG", "noibs",
         "records command buffers in system memory, not directly in GPU-visible memory",
         "Mesa envvars.rst, RADV_DEBUG"},
        {"MESA_RADV", "RADV_DEBUG", "hang",
         "hang detection and dumps; it also synchronizes after every command, so a bug that "
         "vanishes under it cannot be caught by it",
         "Mesa envvars.rst, RADV_DEBUG; Mesa RADV hang-debugging notes (hang implies syncshaders)"},
        {"MESA_RADV", "ACO_DEBUG", "force-waitcnt",
         "ACO emits a wait for outstanding memory operations wherever there is one",
         "Mesa envvars.rst, ACO_DEBUG"},
        {"MESA_RADV", "RADV_PERFTEST", "cswave32",
         "compiles compute shaders for wave32 (GFX10+)", "Mesa envvars.rst, RADV_PERFTEST"},
        {"INTEL_OPEN_SOURCE_MESA", "INTEL_DEBUG", "sync",
         "the CPU waits for each batch to finish after sending it", "Mesa envvars.rst, INTEL_DEBUG"},
        {"INTEL_OPEN_SOURCE_MESA", "INTEL_DEBUG", "stall",
         "a GPU stall after every draw and dispatch", "Mesa envvars.rst, INTEL_DEBUG"},
        {"MESA_NVK", "NVK_DEBUG", "push_sync",
         "waits for every push buffer to complete", "Mesa docs/drivers/nvk.rst, NVK_DEBUG"},
    };
    return settings;
}

std::vector<DriverSetting> driverSettingsFor(std::string_view driverId, bool all) {
    std::vector<DriverSetting> out;
    for (const DriverSetting& s : driverSettings()) {
        if (all || s.driver == driverId) out.push_back(s);
    }
    return out;
}

}  // namespace repro
