// Environment capture from procfs/sysfs under a chosen root, hang-evidence notes and the
// kernel job watchdog (see environment.hpp). Reads only what an unprivileged user may.
#include "forensics/environment.hpp"
#include "core/text.hpp"
#include "forensics/kernel_cmdline.hpp"

#include "forensics/watchdog.hpp"

#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string_view>
#include <system_error>
#include <utility>

extern char** environ;  // NOLINT: POSIX

namespace repro {
namespace fs = std::filesystem;

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// The outcome of reading one file: its text (trailing whitespace trimmed, control
// characters other than tab and newline replaced by '?') or why it has none.
struct FileRead {
    std::optional<std::string> text;
    std::string problem;  // "unreadable (<reason>)" or "not present (<path>)"

    // The text, or the problem: what a report shows.
    std::string fact() const { return text ? *text : problem; }
};

class Tree {
  public:
    explicit Tree(fs::path root) : root_(std::move(root)) {}

    // `path` is absolute as on the real host ("/sys/module/amdgpu"); it is looked up
    // under the root.
    fs::path real(std::string_view path) const { return root_ / fs::path(std::string(path)).relative_path(); }

    // Reads at most `limit` bytes of a file. Never throws.
    FileRead read(std::string_view path, size_t limit = size_t{1} << 20) const {
        FileRead out;
        const fs::path full = real(path);
        const int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
            const int error = errno;
            std::error_code ec;
            if ((error == ENOENT || error == ENOTDIR) && fs::is_symlink(fs::symlink_status(full, ec))) {
                out.problem = "unreadable (broken symbolic link)";
            } else if (error == ENOENT || error == ENOTDIR) {
                out.problem = fmt::format("not present ({})", path);
            } else {
                out.problem = fmt::format("unreadable ({})", errnoText(error));
            }
            return out;
        }
        std::string data;
        std::array<char, 4096> buffer{};
        while (data.size() < limit) {
            const ssize_t n = ::read(fd, buffer.data(), std::min(buffer.size(), limit - data.size()));
            if (n < 0) {
                if (errno == EINTR) continue;
                const int error = errno;
                ::close(fd);
                out.problem = fmt::format("unreadable ({})", errnoText(error));
                return out;
            }
            if (n == 0) break;
            data.append(buffer.data(), static_cast<size_t>(n));
        }
        ::close(fd);
        for (char& c : data) {
            const auto u = static_cast<unsigned char>(c);
            if (u < 0x20 && c != '\n' && c != '\t') c = '?';
            if (u == 0x7f) c = '?';
        }
        out.text = std::string(trimmed(data));
        return out;
    }

    bool exists(std::string_view path) const {
        std::error_code ec;
        return fs::exists(real(path), ec);
    }

    // Names in a directory, sorted; empty when it cannot be listed (`error` says why).
    std::vector<std::string> list(std::string_view path, std::string* error = nullptr) const {
        std::vector<std::string> names;
        std::error_code ec;
        fs::directory_iterator it(real(path), ec);
        if (ec) {
            if (error) {
                *error = ec == std::errc::no_such_file_or_directory ? fmt::format("not present ({})", path)
                                                                    : fmt::format("unreadable ({})", ec.message());
            }
            return names;
        }
        for (; it != fs::directory_iterator(); it.increment(ec)) {
            if (ec) break;
            names.push_back(it->path().filename().string());
        }
        std::sort(names.begin(), names.end());
        return names;
    }

    // The last component of a symbolic link's target; nullopt when it is no link.
    std::optional<std::string> linkBasename(std::string_view path) const {
        std::error_code ec;
        const fs::path target = fs::read_symlink(real(path), ec);
        if (ec) return std::nullopt;
        return target.filename().string();
    }

  private:
    fs::path root_;
};

// Value of KEY in os-release text: unquotes "..." and '...', undoes backslash escapes.
std::optional<std::string> osReleaseValue(const std::string& text, std::string_view key) {
    for (const std::string_view piece : split(text, '\n')) {
        const std::string_view line = trimmed(piece);
        if (line.empty() || line[0] == '#') continue;
        const size_t eq = line.find('=');
        if (eq == std::string_view::npos || line.substr(0, eq) != key) continue;
        std::string_view raw = line.substr(eq + 1);
        if (raw.size() >= 2 && (raw.front() == '"' || raw.front() == '\'') && raw.back() == raw.front()) {
            raw = raw.substr(1, raw.size() - 2);
        }
        std::string value;
        for (size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] == '\\' && i + 1 < raw.size()) ++i;
            value += raw[i];
        }
        return value;
    }
    return std::nullopt;
}

void captureOs(const Tree& tree, Pairs& host, std::vector<std::string>& notes) {
    std::string path = "/etc/os-release";
    FileRead release = tree.read(path);
    if (!release.text && !tree.exists(path)) {
        // os-release(5): /etc/os-release takes precedence; /usr/lib/os-release is the fallback.
        const FileRead fallback = tree.read("/usr/lib/os-release");
        if (fallback.text) {
            path = "/usr/lib/os-release";
            release = fallback;
        }
    }
    if (!release.text) {
        host.emplace_back("os", release.problem);
        notes.push_back(fmt::format("OS: {} {}", path, release.problem));
        return;
    }
    const auto pretty = osReleaseValue(*release.text, "PRETTY_NAME");
    const auto name = osReleaseValue(*release.text, "NAME");
    const auto version = osReleaseValue(*release.text, "VERSION");
    std::string os;
    if (pretty) {
        os = *pretty;
    } else if (name) {
        os = version ? *name + " " + *version : *name;
    } else {
        os = fmt::format("not present (no PRETTY_NAME or NAME in {})", path);
    }
    host.emplace_back("os", os);
    if (const auto id = osReleaseValue(*release.text, "ID")) host.emplace_back("os.id", *id);
    if (const auto v = osReleaseValue(*release.text, "VERSION_ID")) host.emplace_back("os.version_id", *v);
}

void captureKernel(const UnameFacts& uname, Pairs& host, std::vector<std::string>& notes) {
    const bool failed = !uname.error.empty();
    const std::string problem = fmt::format("unreadable (uname: {})", uname.error);
    host.emplace_back("kernel.release", failed ? problem : uname.release);
    host.emplace_back("kernel.version", failed ? problem : uname.version);
    host.emplace_back("kernel.machine", failed ? problem : uname.machine);
    if (failed) notes.push_back(fmt::format("kernel: uname failed: {}", uname.error));
}

void captureCpu(const Tree& tree, Pairs& host, std::vector<std::string>& notes) {
    const FileRead cpuinfo = tree.read("/proc/cpuinfo", size_t{8} << 20);
    if (!cpuinfo.text) {
        host.emplace_back("cpu", cpuinfo.problem);
        notes.push_back(fmt::format("CPU: /proc/cpuinfo {}", cpuinfo.problem));
        return;
    }
    // x86 "model name"; other architectures name the CPU under other keys.
    static constexpr std::array<std::string_view, 6> kModelKeys{"model name", "Model", "Hardware",
                                                                "cpu model",  "cpu",   "uarch"};
    std::vector<std::pair<std::string, std::string>> fields;
    uint64_t processors = 0;
    for (const std::string_view line : split(*cpuinfo.text, '\n')) {
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        std::string key(trimmed(line.substr(0, colon)));
        if (key == "processor") ++processors;
        fields.emplace_back(std::move(key), std::string(trimmed(line.substr(colon + 1))));
    }
    std::optional<std::string> model;
    for (const auto key : kModelKeys) {
        const auto it = std::find_if(fields.begin(), fields.end(),
                                     [&](const auto& f) { return f.first == key && !f.second.empty(); });
        if (it != fields.end()) {
            model = it->second;
            break;
        }
    }
    host.emplace_back("cpu", model ? *model : "not present (no model name in /proc/cpuinfo)");
    if (processors > 0) host.emplace_back("cpu.count", fmt::to_string(processors));
}

void captureCmdline(const Tree& tree, Pairs& host, std::vector<std::string>& notes) {
    const FileRead cmdline = tree.read("/proc/cmdline");
    // Only the GPU-relevant parameters: the rest (root=UUID=..., hostnames) is private.
    host.emplace_back("kernel.cmdline", cmdline.text ? gpuKernelParameters(*cmdline.text) : cmdline.problem);
    if (!cmdline.text) notes.push_back(fmt::format("kernel command line: /proc/cmdline {}", cmdline.problem));
}

struct ModuleSpec {
    std::string_view name;
    std::vector<std::string_view> parameters;
};

const std::vector<ModuleSpec>& moduleSpecs() {
    static const std::vector<ModuleSpec> specs{
        {"amdgpu",
         {"lockup_timeout", "gpu_recovery", "reset_method", "mes", "mes_kiq", "uni_mes", "sched_hw_submission",
          "sched_jobs", "job_hang_limit", "noretry", "vm_fault_stop", "vm_update_mode", "cwsr_enable", "runpm",
          "ppfeaturemask", "debug_mask", "timeout_fatal_disable", "timeout_period"}},
        {"i915",
         {"enable_hangcheck", "reset", "enable_guc", "guc_log_level", "error_capture", "force_probe", "mitigations"}},
        {"xe", {"force_probe", "wedged_mode", "guc_log_level", "guc_firmware_path", "max_vfs"}},
        {"nouveau", {"config", "debug", "noaccel", "runpm", "modeset"}},
        {"nvidia", {}},
    };
    return specs;
}

void captureModules(const Tree& tree, Pairs& out, std::vector<std::string>& notes) {
    for (const auto& spec : moduleSpecs()) {
        const std::string dir = fmt::format("/sys/module/{}", spec.name);
        if (!tree.exists(dir)) {
            out.emplace_back(std::string(spec.name), fmt::format("not present ({})", dir));
            continue;
        }
        for (const auto parameter : spec.parameters) {
            const FileRead r = tree.read(fmt::format("{}/parameters/{}", dir, parameter));
            out.emplace_back(fmt::format("{}.{}", spec.name, parameter), r.fact());
            if (r.problem.starts_with("unreadable")) {
                notes.push_back(fmt::format("{}.{}: {}", spec.name, parameter, r.problem));
            }
        }
        // Out-of-tree builds (nvidia, amdgpu-dkms) carry a version; in-tree ones do not.
        const FileRead version = tree.read(dir + "/version");
        if (version.text || spec.name == "nvidia") {
            out.emplace_back(fmt::format("{}.version", spec.name), version.fact());
        }
        if (spec.name == "nvidia") {
            const FileRead proc = tree.read("/proc/driver/nvidia/version");
            std::string first = proc.fact();
            if (proc.text) first = std::string(trimmed(first.substr(0, first.find('\n'))));
            out.emplace_back("nvidia.driver_version", first);
        }
    }
}

std::optional<uint32_t> parseHex(std::string_view s) {
    if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
    return parseWhole<uint32_t>(s, 16);
}

bool isCardName(const std::string& name) {
    return name.size() > 4 && name.starts_with("card") && std::all_of(name.begin() + 4, name.end(), [](char c) {
               return std::isdigit(static_cast<unsigned char>(c)) != 0;
           });
}

void captureAmdgpuCard(const Tree& tree, const std::string& card, Pairs& out) {
    const std::string device = fmt::format("/sys/class/drm/{}/device", card);
    out.emplace_back(card + ".vbios_version", tree.read(device + "/vbios_version").fact());
    std::string error;
    const auto files = tree.list(device + "/fw_version", &error);
    if (files.empty()) {
        out.emplace_back(card + ".fw_version", error.empty() ? "not present (empty directory)" : error);
        return;
    }
    for (const auto& file : files) {
        out.emplace_back(fmt::format("{}.fw.{}", card, file),
                         tree.read(fmt::format("{}/fw_version/{}", device, file)).fact());
    }
}

bool isComputeOrRender(std::string_view engine) { return engine.starts_with("rcs") || engine.starts_with("ccs"); }

void captureI915Card(const Tree& tree, const std::string& card, Pairs& out) {
    const std::string engines = fmt::format("/sys/class/drm/{}/engine", card);
    std::string error;
    bool any = false;
    for (const auto& engine : tree.list(engines, &error)) {
        if (!isComputeOrRender(engine)) continue;
        any = true;
        for (const auto file : {"heartbeat_interval_ms", "preempt_timeout_ms", "stop_timeout_ms"}) {
            out.emplace_back(fmt::format("{}.engine.{}.{}", card, engine, file),
                             tree.read(fmt::format("{}/{}/{}", engines, engine, file)).fact());
        }
    }
    if (!any) out.emplace_back(card + ".engine", error.empty() ? "not present (no rcs or ccs engine)" : error);
}

void captureXeCard(const Tree& tree, const std::string& card, Pairs& out) {
    const std::string device = fmt::format("/sys/class/drm/{}/device", card);
    bool any = false;
    for (const auto& tile : tree.list(device)) {
        if (!tile.starts_with("tile")) continue;
        for (const auto& gt : tree.list(fmt::format("{}/{}", device, tile))) {
            if (!gt.starts_with("gt")) continue;
            const std::string engines = fmt::format("{}/{}/{}/engines", device, tile, gt);
            for (const auto& engine : tree.list(engines)) {
                if (!isComputeOrRender(engine)) continue;
                any = true;
                for (const auto file : {"job_timeout_ms", "preempt_timeout_us", "timeslice_duration_us"}) {
                    out.emplace_back(fmt::format("{}.{}.{}.{}.{}", card, tile, gt, engine, file),
                                     tree.read(fmt::format("{}/{}/{}", engines, engine, file)).fact());
                }
            }
        }
    }
    if (!any)
        out.emplace_back(card + ".engines", fmt::format("not present (no {}/tile*/gt*/engines/rcs or ccs)", device));
}

// The card names under /sys/class/drm in card-number order; sets `error` when the
// directory cannot be listed.
std::vector<std::string> listCards(const Tree& tree, std::string& error) {
    std::vector<std::string> cards;
    for (const auto& name : tree.list("/sys/class/drm", &error)) {
        if (isCardName(name)) cards.push_back(name);
    }
    std::sort(cards.begin(), cards.end(), [](const std::string& a, const std::string& b) {
        return std::strtoul(a.c_str() + 4, nullptr, 10) < std::strtoul(b.c_str() + 4, nullptr, 10);
    });
    return cards;
}

// Reads card `name`'s PCI slot, ids and driver into env (its kernelDriver line, its
// driver's own facts, its DrmCard); returns whether its driver is amdgpu.
bool captureCard(const Tree& tree, const std::string& name, EnvironmentReport& env) {
    const std::string device = fmt::format("/sys/class/drm/{}/device", name);
    DrmCard card{.name = name};
    const FileRead uevent = tree.read(device + "/uevent");
    std::string ueventDriver;
    if (uevent.text) {
        card.pciSlot = osReleaseValue(*uevent.text, "PCI_SLOT_NAME").value_or("");
        ueventDriver = osReleaseValue(*uevent.text, "DRIVER").value_or("");
    }
    const FileRead vendor = tree.read(device + "/vendor");
    const FileRead dev = tree.read(device + "/device");
    if (vendor.text) card.vendorId = parseHex(*vendor.text);
    if (dev.text) card.deviceId = parseHex(*dev.text);
    std::string driverText;
    if (const auto link = tree.linkBasename(device + "/driver")) {
        card.driver = *link;
        driverText = *link;
    } else if (!ueventDriver.empty()) {
        card.driver = ueventDriver;
        driverText = ueventDriver;
    } else {
        driverText = fmt::format("not present ({}/driver)", device);
    }
    const std::string pci = !card.pciSlot.empty() ? card.pciSlot
                            : uevent.text         ? fmt::format("not present (no PCI_SLOT_NAME in {}/uevent)", device)
                                                  : uevent.problem;
    const auto id = [](const FileRead& r, const std::optional<uint32_t>& v) {
        if (v) return fmt::format("0x{:04x}", *v);
        return r.text ? fmt::format("unreadable (not hex: '{}')", *r.text) : r.problem;
    };
    env.kernelDriver.emplace_back(name, fmt::format("pci {}, vendor {}, device {}, driver {}", pci,
                                                    id(vendor, card.vendorId), id(dev, card.deviceId), driverText));
    // The PCI revision ID (Linux drivers/pci/pci-sysfs.c, "revision"): the Mesa issue
    // template asks for it beside vendor:device. Only when readable.
    const FileRead revision = tree.read(device + "/revision");
    if (revision.text) env.kernelDriver.emplace_back(name + ".revision", std::string(trimmed(*revision.text)));
    bool amdgpu = false;
    if (card.driver == "amdgpu") {
        captureAmdgpuCard(tree, name, env.kernelDriver);
        amdgpu = true;
    } else if (card.driver == "i915") {
        captureI915Card(tree, name, env.kernelDriver);
    } else if (card.driver == "xe") {
        captureXeCard(tree, name, env.kernelDriver);
    }
    env.drmCards.push_back(std::move(card));
    return amdgpu;
}

void captureCards(const Tree& tree, EnvironmentReport& env) {
    std::string error;
    const std::vector<std::string> cards = listCards(tree, error);
    if (cards.empty()) {
        env.kernelDriver.emplace_back("drm", error.empty() ? "not present (no /sys/class/drm/card*)" : error);
        return;
    }
    bool amdgpuSeen = false;
    for (const auto& name : cards) {
        if (captureCard(tree, name, env)) amdgpuSeen = true;
    }
    if (amdgpuSeen) {
        std::error_code ec;
        fs::directory_iterator probe(tree.real("/sys/kernel/debug/dri"), ec);
        env.notes.push_back(
            fmt::format("amdgpu firmware: the fw_version files are what sysfs shows without root; the full "
                        "table (amdgpu_firmware_info) and ring state are in `/sys/kernel/debug/dri/<minor>/`, "
                        "which is root-only, and were not read ({})",
                        ec ? ec.message() : "readable here, but repro does not read debugfs"));
    }
}

constexpr std::array<std::string_view, 11> kVariablePrefixes{
    "RADV_", "ACO_", "RADEON_", "AMD_", "MESA_", "INTEL_", "ANV_", "NVK_", "NAK_", "VK_LOADER_", "REPRO_"};
constexpr std::array<std::string_view, 5> kVariableNames{"VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VK_INSTANCE_LAYERS",
                                                         "VK_LAYER_PATH", "VK_ADD_LAYER_PATH"};

void captureVariables(const std::vector<std::string>& environment, EnvironmentReport& env) {
    for (const auto& entry : environment) {
        const size_t eq = entry.find('=');
        if (eq == std::string::npos || eq == 0) continue;
        std::string name = entry.substr(0, eq);
        if (!isDriverVariable(name)) continue;
        const bool seen =
            std::any_of(env.variables.begin(), env.variables.end(), [&](const auto& p) { return p.first == name; });
        if (!seen) env.variables.emplace_back(std::move(name), entry.substr(eq + 1));
    }
    std::sort(env.variables.begin(), env.variables.end());
    if (env.variables.empty()) {
        env.notes.push_back(
            "driver environment variables: none set (checked RADV_*, ACO_*, RADEON_*, AMD_*, "
            "MESA_*, INTEL_*, ANV_*, NVK_*, NAK_*, VK_LOADER_*, REPRO_*, VK_ICD_FILENAMES, "
            "VK_DRIVER_FILES, VK_INSTANCE_LAYERS, VK_LAYER_PATH, VK_ADD_LAYER_PATH)");
    }
}

bool containsWord(const std::string& haystack, std::string_view needle) {
    return haystack.find(needle) != std::string::npos;
}

bool isProblem(const std::string& value) { return value.starts_with("unreadable") || value.starts_with("not present"); }

// The amdgpu timeout of `queue` from the captured lockup_timeout and kernel release
// (watchdog.hpp has the kernel's rules).
QueueTimeout amdgpuTimeout(const EnvironmentReport& env, AmdgpuQueue queue) {
    AmdgpuTimeoutInput in;
    const std::string* value = factValue(env.kernelDriver, "amdgpu.lockup_timeout");
    if (!value) {
        in.parameterProblem = "was not captured";
    } else if (isProblem(*value)) {
        in.parameterProblem = *value;
    } else {
        in.parameter = *value;
    }
    const std::string* release = factValue(env.host, "kernel.release");
    in.kernelRelease = release ? *release : std::string("(not captured)");
    return amdgpuQueueTimeout(queue, in);
}

// The first card fact whose key starts with `prefix` and ends with `suffix`.
const std::pair<std::string, std::string>* findFact(const Pairs& pairs, std::string_view prefix,
                                                    std::string_view suffix) {
    for (const auto& p : pairs) {
        if (p.first.starts_with(prefix) && p.first.size() >= prefix.size() + suffix.size() &&
            p.first.ends_with(suffix)) {
            return &p;
        }
    }
    return nullptr;
}

JobWatchdog xeWatchdog(const EnvironmentReport& env, const std::string& card, bool graphics) {
    JobWatchdog w{.driver = "xe"};
    const std::string prefix = card + ".";
    const auto* fact = findFact(env.kernelDriver, prefix, graphics ? ".rcs.job_timeout_ms" : ".ccs.job_timeout_ms");
    if (!fact) fact = findFact(env.kernelDriver, prefix, graphics ? ".ccs.job_timeout_ms" : ".rcs.job_timeout_ms");
    const auto ms = fact ? parseWhole<long long>(trimmed(fact->second)) : std::nullopt;
    if (!ms || *ms <= 0) {
        w.seconds = 5.0;
        w.source = fmt::format("common default, not read: 5000 ms ({})",
                               fact ? fmt::format("{} = '{}'", fact->first, fact->second)
                                    : fmt::format("no job_timeout_ms for {}", card.empty() ? "any card" : card));
        return w;
    }
    w.read = true;
    w.seconds = static_cast<double>(*ms) / 1000.0;
    w.source = fmt::format("read from {} (ms)", fact->first);
    return w;
}

JobWatchdog i915Watchdog(const EnvironmentReport& env, const std::string& card, bool graphics) {
    JobWatchdog w{.driver = "i915"};
    const std::string* hangcheck = factValue(env.kernelDriver, "i915.enable_hangcheck");
    if (hangcheck && (trimmed(*hangcheck) == "N" || trimmed(*hangcheck) == "0")) {
        w.read = true;
        w.source = "read from /sys/module/i915/parameters/enable_hangcheck: N, hang detection is off";
        return w;
    }
    const std::string prefix = card + ".engine.";
    const auto* fact = findFact(env.kernelDriver, prefix + (graphics ? "rcs" : "ccs"), ".heartbeat_interval_ms");
    if (!fact) fact = findFact(env.kernelDriver, prefix + (graphics ? "ccs" : "rcs"), ".heartbeat_interval_ms");
    const auto ms = fact ? parseWhole<long long>(trimmed(fact->second)) : std::nullopt;
    if (!ms || *ms < 0) {
        w.seconds = 2.5;
        w.source = fmt::format(
            "common default, not read: heartbeat_interval_ms 2500; the engine is "
            "declared hung when a heartbeat does not complete within an interval "
            "or two ({})",
            fact ? fmt::format("{} = '{}'", fact->first, fact->second)
                 : fmt::format("no heartbeat_interval_ms for {}", card.empty() ? "any card" : card));
        return w;
    }
    w.read = true;
    if (*ms == 0) {
        w.source = fmt::format("read from {}: 0, heartbeats are off", fact->first);
        return w;
    }
    w.seconds = static_cast<double>(*ms) / 1000.0;
    w.source = fmt::format(
        "read from {} (ms); the engine is declared hung when a heartbeat does "
        "not complete within an interval or two",
        fact->first);
    return w;
}

bool moduleLoaded(const EnvironmentReport& env, std::string_view module) {
    const std::string* bare = factValue(env.kernelDriver, module);
    if (bare && isProblem(*bare)) return false;
    const std::string prefix = std::string(module) + ".";
    return std::any_of(env.kernelDriver.begin(), env.kernelDriver.end(),
                       [&](const auto& p) { return p.first.starts_with(prefix); });
}

}  // namespace

const std::string* factValue(const std::vector<std::pair<std::string, std::string>>& facts, std::string_view key) {
    for (const auto& [k, v] : facts) {
        if (k == key) return &v;
    }
    return nullptr;
}

UnameFacts hostUname() {
    UnameFacts facts;
    struct utsname u {};
    if (::uname(&u) != 0) {
        facts.error = errnoText(errno);
        return facts;
    }
    facts.sysname = u.sysname;
    facts.release = u.release;
    facts.version = u.version;
    facts.machine = u.machine;
    return facts;
}

std::vector<std::string> processEnvironment() {
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
    return out;
}

bool isDriverVariable(std::string_view name) {
    if (std::find(kVariableNames.begin(), kVariableNames.end(), name) != kVariableNames.end()) return true;
    return std::any_of(kVariablePrefixes.begin(), kVariablePrefixes.end(),
                       [&](std::string_view prefix) { return name.starts_with(prefix); });
}

EnvironmentSources processEnvironmentSources() {
    EnvironmentSources sources;
    const char* root = std::getenv("REPRO_TEST_ROOT");
    if (!root || !*root) return sources;
    sources.root = root;
    sources.seamNote =
        fmt::format("test seam in force: REPRO_TEST_ROOT={} (/etc, /proc and /sys are read from there)", root);
    const FileRead release = Tree(sources.root).read("/proc/sys/kernel/osrelease");
    if (release.text && !release.text->empty()) sources.uname.release = *release.text;
    return sources;
}

EnvironmentReport captureEnvironment(const EnvironmentSources& sources) {
    EnvironmentReport env;
    try {
        const Tree tree(sources.root);
        captureOs(tree, env.host, env.notes);
        captureKernel(sources.uname, env.host, env.notes);
        captureCpu(tree, env.host, env.notes);
        captureCmdline(tree, env.host, env.notes);
        captureModules(tree, env.kernelDriver, env.notes);
        captureCards(tree, env);
        captureVariables(sources.environment, env);
        if (!sources.seamNote.empty()) env.notes.insert(env.notes.begin(), sources.seamNote);
    } catch (const std::exception& e) {
        env.notes.push_back(fmt::format("environment capture stopped early: {}", e.what()));
    }
    return env;
}

std::vector<std::string> hangEvidenceNotes(const std::string& driverName) {
    const std::string name = lower(driverName);
    std::vector<std::string> notes;
    const std::string kernelLog =
        "kernel log: `sudo dmesg -T` or `journalctl -k -b` (after a reboot, the previous boot: "
        "`journalctl -k -b -1`); attach the lines around the hang";
    if (containsWord(name, "llvmpipe") || containsWord(name, "lavapipe")) {
        notes.push_back(
            "none from the kernel: lavapipe runs on the CPU, so a 'hang' is the host's "
            "wait timing out; a backtrace of the stuck process (`gdb -p <pid> -batch "
            "-ex 'thread apply all bt'`) is the evidence");
        return notes;
    }
    const bool amd = containsWord(name, "radv") || containsWord(name, "amd") || containsWord(name, "radeon");
    const bool intel = containsWord(name, "intel") || containsWord(name, "anv") || name == "i915" || name == "xe";
    const bool nvk = containsWord(name, "nvk") || containsWord(name, "nouveau");
    const bool nvidia = !nvk && containsWord(name, "nvidia");
    if (amd) {
        notes.push_back(kernelLog +
                        ": amdgpu job timeouts read `[drm:amdgpu_job_timedout [amdgpu]] "
                        "*ERROR* ring gfx_0.0.0 timeout` (the repro's queue family 0 is "
                        "the gfx ring; compute rings are `comp_1.x.x`), followed by "
                        "`GPU reset begin!` and `GPU reset(N) succeeded!` or a failure");
        notes.push_back(
            "`RADV_DEBUG=hang`: RADV waits after each submit and, on a hang, writes a "
            "report (rings, registers, command buffers) to `$HOME/radv_dumps_<pid>_<time>/`; "
            "slow, so run the one failing mode");
        notes.push_back(
            "umr (gitlab.freedesktop.org/tomstdenis/umr), as root while the GPU is hung: "
            "`umr -R gfx_0.0.0` dumps the ring and `umr -O halt_waves -wa` the waves");
        notes.push_back(
            "devcoredump: kernels with CONFIG_DEV_COREDUMP leave the reset's state in "
            "`/sys/class/drm/card<N>/device/devcoredump/data` (root) for a few minutes");
    } else if (intel) {
        notes.push_back(kernelLog +
                        ": i915 logs `GPU HANG: ecode ...` and `Resetting rcs0 for ...`; "
                        "xe logs `Timedout job` and the engine reset");
        notes.push_back(
            "i915 error state: `sudo cat /sys/class/drm/card0/error > i915_error.txt` "
            "(the card of the device) right after the hang; attach it");
        notes.push_back(
            "xe: the reset's state is in `/sys/class/drm/card<N>/device/devcoredump/data` "
            "(root) for a few minutes after the hang");
    } else if (nvk) {
        notes.push_back(kernelLog +
                        ": nouveau reports channel errors, faults and timeouts "
                        "(`nouveau 0000:...: ... fifo: ...`, `... timeout`)");
    } else if (nvidia) {
        notes.push_back(kernelLog +
                        ": the NVIDIA driver logs `NVRM: Xid (PCI:...): <n>, ...`; the "
                        "Xid number says what failed (e.g. 13 graphics exception, 31 MMU "
                        "fault, 109 context-switch timeout)");
        notes.push_back(
            "`sudo nvidia-bug-report.sh` gathers the kernel log, driver state and "
            "configuration into nvidia-bug-report.log.gz");
    } else {
        notes.push_back(kernelLog + ": look for the GPU driver's job timeout and reset messages");
    }
    return notes;
}

const DrmCard* findDrmCard(const EnvironmentReport& env, const DeviceReport& device) {
    if (device.pciBus && !device.pciBus->empty()) {
        for (const auto& card : env.drmCards) {
            if (lower(card.pciSlot) == lower(*device.pciBus)) return &card;
        }
        return nullptr;
    }
    const DrmCard* found = nullptr;
    for (const auto& card : env.drmCards) {
        if (card.vendorId == device.vendorId && card.deviceId == device.deviceId) {
            if (found) return nullptr;  // two identical GPUs: cannot tell them apart
            found = &card;
        }
    }
    return found;
}

namespace {

// The kernel driver (and card) behind `device`; without one, the first card or loaded
// module of amdgpu, xe or i915, else the first card with a driver. Empty: none found.
struct DriverMatch {
    std::string driver, card;
};

DriverMatch matchDriver(const EnvironmentReport& env, const DeviceReport* device) {
    DriverMatch m;
    if (device) {
        if (const DrmCard* card = findDrmCard(env, *device)) m = {card->driver, card->name};
        return m;
    }
    for (const auto& c : env.drmCards) {
        if (c.driver == "amdgpu" || c.driver == "xe" || c.driver == "i915") return {c.driver, c.name};
    }
    for (const auto module : {"amdgpu", "xe", "i915"}) {
        if (moduleLoaded(env, module)) return {module, ""};
    }
    for (const auto& c : env.drmCards) {
        if (!c.driver.empty()) return {c.driver, c.name};
    }
    return m;
}

QueueKind kindOf(const DeviceReport* device) {
    return device && !device->queueFlags.empty() ? queueKindFromFlags(device->queueFlags) : QueueKind::Gfx;
}

QueueTimeout fromJobWatchdog(const JobWatchdog& w) {
    QueueTimeout t;
    t.kind = w.seconds ? TimeoutKind::Limit : TimeoutKind::NoLimit;
    t.milliseconds = w.seconds ? static_cast<int64_t>(*w.seconds * 1000.0 + 0.5) : 0;
    t.fromParameter = w.read;
    t.source = w.source;
    return t;
}

QueueTimeout fromFact(std::string_view driver, TimeoutKind kind) {
    QueueTimeout t;
    t.kind = kind;
    if (const DriverWatchdogFact* f = otherDriverWatchdogFact(driver)) t.source = f->summary + "; " + f->source;
    return t;
}

std::string ringName(std::string_view driver, QueueKind kind) {
    if (driver == "amdgpu") {
        if (kind == QueueKind::Gfx) return "amdgpu gfx ring (gfx_0.0.0 on RADV)";
        if (kind == QueueKind::Compute) return "amdgpu compute ring (comp_X.Y.Z)";
        return "an amdgpu ring";
    }
    if (driver == "i915" || driver == "xe")
        return fmt::format("{} {} engine", driver, kind == QueueKind::Gfx ? "render (rcs)" : "compute (ccs)");
    return std::string(driver);
}

}  // namespace

std::optional<JobWatchdog> jobWatchdogSeconds(const EnvironmentReport& env, const DeviceReport* device) {
    const QueueWatchdog q = queueWatchdog(env, device);
    const QueueTimeout& t = q.timeout;
    if ((q.driver != "amdgpu" && q.driver != "xe" && q.driver != "i915") || t.kind == TimeoutKind::Unknown)
        return std::nullopt;
    JobWatchdog w{.driver = q.driver, .read = t.fromParameter, .source = t.source};
    if (t.kind == TimeoutKind::Limit) w.seconds = t.seconds();
    return w;
}

QueueWatchdog queueWatchdog(const EnvironmentReport& env, const DeviceReport* device, std::optional<QueueKind> queue) {
    const QueueKind kind = queue ? *queue : kindOf(device);
    QueueWatchdog w;
    if (device && device->deviceType == "CPU") {
        w.driver = "lavapipe";
        w.timeout = fromFact("lavapipe", TimeoutKind::NoLimit);
        return w;
    }
    const DriverMatch m = matchDriver(env, device);
    w.driver = m.driver;
    w.ring = ringName(m.driver, kind);
    const bool graphics = kind != QueueKind::Compute;
    if (m.driver == "amdgpu") {
        const auto q = amdgpuQueueFor(kind);
        if (q) {
            w.timeout = amdgpuTimeout(env, *q);
        } else {
            w.timeout.source = "the amdgpu ring of a queue family without GRAPHICS or COMPUTE is not modelled";
        }
    } else if (m.driver == "xe") {
        w.timeout = fromJobWatchdog(xeWatchdog(env, m.card, graphics));
    } else if (m.driver == "i915") {
        w.timeout = fromJobWatchdog(i915Watchdog(env, m.card, graphics));
    } else if (m.driver == "nvidia") {
        w.timeout = fromFact("nvidia", TimeoutKind::Unknown);
    } else if (m.driver == "nouveau") {
        w.timeout = fromFact("nouveau", TimeoutKind::NoLimit);
    } else {
        w.timeout.source = m.driver.empty() ? "no DRM card matches the device, so its kernel driver is unknown"
                                            : fmt::format("no job-timeout facts for kernel driver {}", m.driver);
    }
    return w;
}

}  // namespace repro
