// The kernel job watchdog's rules (watchdog.hpp). amdgpu's are those of
// amdgpu_device_get_job_timeout_settings() (drivers/gpu/drm/amd/amdgpu/amdgpu_device.c)
// and lib/kstrtox.c in each era, read from the patches that changed them (sources in
// watchdog.hpp and docs/watchdog.md).
#include "forensics/watchdog.hpp"
#include "core/enum_names.hpp"
#include "core/text.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <limits>
#include <utility>

namespace repro {
namespace {

constexpr std::string_view kParameterPath = "/sys/module/amdgpu/parameters/lockup_timeout";
constexpr std::string_view kNoVirtualization = " (bare metal assumed: repro does not detect SR-IOV or passthrough)";

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// kstrtol(s, 0, &value) on a 64-bit kernel (lib/kstrtox.c): nullopt, with `why`, where the
// kernel returns -EINVAL or -ERANGE.
std::optional<int64_t> kernelStrtol(std::string_view s, std::string& why) {
    bool negative = false;
    if (!s.empty() && s.front() == '-') {
        negative = true;  // kstrtoll: '-' then _kstrtoull, which takes no further sign
        s.remove_prefix(1);
    } else if (!s.empty() && s.front() == '+') {
        s.remove_prefix(1);  // kstrtoull skips one '+'
    }
    unsigned base = 10;
    const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
    if (!s.empty() && s[0] == '0') {
        const bool hex = s.size() > 2 && lower(s[1]) == 'x' && std::isxdigit(static_cast<unsigned char>(s[2]));
        base = hex ? 16 : 8;
        if (hex) s.remove_prefix(2);
    }
    uint64_t value = 0;
    size_t digits = 0;
    bool overflow = false;
    for (; digits < s.size(); ++digits) {
        const char c = lower(s[digits]);
        const unsigned d = isDigit(c) ? unsigned(c - '0') : (c >= 'a' && c <= 'f') ? unsigned(c - 'a' + 10) : 99;
        if (d >= base) break;
        if (value > (std::numeric_limits<uint64_t>::max() - d) / base) overflow = true;
        value = value * base + d;
    }
    std::string_view rest = s.substr(digits);
    if (!rest.empty() && rest.front() == '\n') rest.remove_prefix(1);
    constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    if (!overflow && (digits == 0 || !rest.empty())) {  // _kstrtoull checks overflow first
        why = "not a number (EINVAL)";
        return std::nullopt;
    }
    if (overflow || value > (negative ? kMax + 1 : kMax)) {
        why = "out of range (ERANGE)";
        return std::nullopt;
    }
    if (negative) return value == kMax + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(value);
    return static_cast<int64_t>(value);
}

// One queue's state while the kernel's rules are applied.
struct Slot {
    TimeoutKind kind = TimeoutKind::Unknown;
    int64_t ms = 0;
    bool fromParameter = false;
    std::string why;  // Unknown: the reason; otherwise how the default was chosen
};

Slot limit(int64_t ms, std::string why = {}) { return {TimeoutKind::Limit, ms, false, std::move(why)}; }

// The era's default for each queue (index: AmdgpuQueue) and virtualization.
std::array<Slot, 4> eraDefaults(AmdgpuEra era, AmdgpuVirtualization virt, const std::optional<KernelVersion>& k) {
    const bool virtualized = virt != AmdgpuVirtualization::BareMetal;
    if (era == AmdgpuEra::Linux6_19On) return {limit(2000), limit(2000), limit(2000), limit(2000)};
    if (era == AmdgpuEra::Linux6_17To6_18) return {limit(10000), limit(10000), limit(10000), limit(10000)};
    Slot compute = limit(60000, virtualized ? "" : std::string(kNoVirtualization));
    if (virt == AmdgpuVirtualization::SriovMultiVf) compute = limit(10000);
    if (era == AmdgpuEra::Before5_14 && virt == AmdgpuVirtualization::BareMetal) {
        const bool stable = k && k->major == 5 && (k->minor == 12 || k->minor == 13);
        compute = stable ? Slot{TimeoutKind::Unknown, 0, false,
                                "Linux 5.12 and 5.13: their stable updates of July 2021 changed the "
                                "bare-metal compute default from no timeout to 60000 ms; which update "
                                "runs here is not known"}
                         : Slot{TimeoutKind::NoLimit, 0, false, std::string(kNoVirtualization)};
    }
    return {limit(10000), compute, limit(10000), limit(10000)};
}

// The values of a parameter applied as the era's kernel applies them.
std::array<Slot, 4> applyParameter(AmdgpuEra era, AmdgpuVirtualization virt, const std::optional<KernelVersion>& k,
                                   const std::vector<int64_t>& values) {
    std::array<Slot, 4> q = eraDefaults(era, virt, k);
    size_t index = 0;
    for (const int64_t v : values) {
        if (v == 0) {  // 0 keeps that queue's default
            ++index;
            continue;
        }
        if (index < 4) q[index] = {v < 0 ? TimeoutKind::NoLimit : TimeoutKind::Limit, v < 0 ? 0 : v, true, ""};
        ++index;
    }
    if (index != 1) return q;
    if (era == AmdgpuEra::Linux6_19On) {
        if (values[0] == 0) {
            const Slot unknown{TimeoutKind::Unknown, 0, false,
                               "'0' alone on Linux 6.19+: the parameter's description says 0 keeps the "
                               "default (2000 ms), but the patch as posted to amd-gfx assigns the raw 0 to "
                               "every queue; which the merged kernel does was not verified"};
            return {unknown, unknown, unknown, unknown};
        }
        return {q[0], q[0], q[0], q[0]};
    }
    // Before 6.19: sdma and video take gfx's value; compute too under SR-IOV or passthrough.
    q[2] = q[3] = q[0];
    if (virt != AmdgpuVirtualization::BareMetal) q[1] = q[0];
    return q;
}

std::string quoted(std::string_view parameter) { return fmt::format("'{}'", parameter); }

// The words for a queue's final state.
std::string sourceText(const Slot& s, AmdgpuQueue queue, AmdgpuEra era, std::string_view parameter, size_t fields) {
    const std::string_view eraName = describe(era);
    if (s.kind == TimeoutKind::Unknown) return s.why;
    if (s.fromParameter) {
        std::string how;
        if (fields == 1) {
            how = era == AmdgpuEra::Linux6_19On ? fmt::format("one value: all queues on {}", eraName)
                                                : fmt::format("one value: gfx, sdma and video on {}", eraName);
            if (era != AmdgpuEra::Linux6_19On && queue == AmdgpuQueue::Compute)
                how = "one value: all queues under SR-IOV or passthrough";
        } else {
            how = fmt::format("the {} value", name(queue));
        }
        if (s.kind == TimeoutKind::NoLimit) how += "; negative means no timeout";
        return fmt::format("read from {} {} ({})", kParameterPath, quoted(parameter), how);
    }
    const std::string value = s.kind == TimeoutKind::NoLimit ? std::string("no timeout") : fmt::format("{} ms", s.ms);
    std::string why;
    if (parameter.empty()) {
        why = "lockup_timeout empty";
    } else if (fields == 1 && era != AmdgpuEra::Linux6_19On && queue == AmdgpuQueue::Compute) {
        why = fmt::format("lockup_timeout {} is one value, which sets gfx, sdma and video only", quoted(parameter));
    } else {
        why = fmt::format("lockup_timeout {} keeps the {} default: 0, an empty field or no value there",
                          quoted(parameter), name(queue));
    }
    return fmt::format("kernel default for {}: {} ({}){}", eraName, value, why, s.why);
}

}  // namespace

std::optional<KernelVersion> parseKernelRelease(std::string_view release) {
    std::string_view s = release;
    const auto major = takeNumber<uint32_t>(s);
    if (!major || s.empty() || s.front() != '.') return std::nullopt;
    s.remove_prefix(1);
    const auto minor = takeNumber<uint32_t>(s);
    if (!minor) return std::nullopt;
    return KernelVersion{*major, *minor};
}

std::string_view name(AmdgpuQueue q) {
    static constexpr std::string_view kNames[] = {"gfx", "compute", "sdma", "video"};
    return nameOf(kNames, q);
}

AmdgpuEra amdgpuEra(const std::optional<KernelVersion>& k) {
    if (!k || k->major < 5) return AmdgpuEra::Unknown;
    if (k->atLeast(6, 19)) return AmdgpuEra::Linux6_19On;
    if (k->atLeast(6, 17)) return AmdgpuEra::Linux6_17To6_18;
    if (k->atLeast(5, 14)) return AmdgpuEra::Linux5_14To6_16;
    return AmdgpuEra::Before5_14;
}

std::string_view describe(AmdgpuEra era) {
    static constexpr std::string_view kWords[] = {"an unknown kernel", "Linux before 5.14", "Linux 5.14-6.16",
                                                  "Linux 6.17-6.18", "Linux 6.19+"};
    return nameOf(kWords, era);
}

LockupTimeoutParse parseLockupTimeout(std::string_view text) {
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);  // sysfs adds one
    LockupTimeoutParse out;
    const std::vector<std::string_view> tokens = split(text, ',');
    for (size_t field = 1; field <= tokens.size(); ++field) {
        const std::string_view token = tokens[field - 1];
        if (token.empty()) break;  // strsep's empty field ends the kernel's loop
        std::string why;
        const auto value = kernelStrtol(token, why);
        if (!value) {
            out.error = fmt::format("field {} '{}' is {}", field, token, why);
            out.values.clear();
            return out;
        }
        out.values.push_back(*value);
    }
    return out;
}

QueueTimeout amdgpuQueueTimeout(AmdgpuQueue queue, const AmdgpuTimeoutInput& in) {
    const auto kernel = parseKernelRelease(in.kernelRelease);
    const AmdgpuEra era = amdgpuEra(kernel);
    QueueTimeout out;
    if (era == AmdgpuEra::Unknown) {
        out.source = kernel ? fmt::format("kernel {} predates the lockup_timeout rules modelled (5.0 and later)",
                                          in.kernelRelease)
                            : fmt::format("kernel release '{}' is not a version: the kernel's default is unknown",
                                          in.kernelRelease);
        return out;
    }
    if (!in.parameter) {
        out.source = fmt::format("{} {}: the {} default and an explicit value cannot be told apart", kParameterPath,
                                 in.parameterProblem.empty() ? std::string("could not be read") : in.parameterProblem,
                                 describe(era));
        return out;
    }
    std::string_view text = *in.parameter;
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    const LockupTimeoutParse parsed = parseLockupTimeout(text);
    if (parsed.error) {
        out.source = fmt::format(
            "{} {}: {}; the kernel rejects it ('invalid lockup_timeout parameter syntax') and "
            "initialises no amdgpu device with it",
            kParameterPath, quoted(text), *parsed.error);
        return out;
    }
    const auto slots = applyParameter(era, in.virtualization, kernel, parsed.values);
    const Slot& s = slots[static_cast<size_t>(queue)];
    out.kind = s.kind;
    out.milliseconds = s.ms;
    out.fromParameter = s.fromParameter;
    out.source = sourceText(s, queue, era, text, parsed.values.size());
    if (!in.virtualizationAssumed && out.source.ends_with(kNoVirtualization)) {
        out.source.resize(out.source.size() - kNoVirtualization.size());
    }
    return out;
}

std::string_view name(QueueKind k) {
    static constexpr std::string_view kNames[] = {"gfx", "compute", "other"};
    return nameOf(kNames, k);
}

QueueKind queueKindFromFlags(std::string_view flags) {
    const auto has = [&](std::string_view word) {
        for (size_t pos = flags.find(word); pos != std::string_view::npos; pos = flags.find(word, pos + 1)) {
            const bool startOk = pos == 0 || flags[pos - 1] == '|';
            const size_t end = pos + word.size();
            if (startOk && (end == flags.size() || flags[end] == '|')) return true;
        }
        return false;
    };
    if (has("GRAPHICS")) return QueueKind::Gfx;
    if (has("COMPUTE")) return QueueKind::Compute;
    return QueueKind::Other;
}

std::optional<AmdgpuQueue> amdgpuQueueFor(QueueKind kind) {
    if (kind == QueueKind::Gfx) return AmdgpuQueue::Gfx;
    if (kind == QueueKind::Compute) return AmdgpuQueue::Compute;
    return std::nullopt;
}

std::string queueLine(uint32_t family, std::string_view queueFlags, std::string_view ring, const QueueTimeout& t) {
    std::string head = fmt::format("queue: family {} ({})", family, queueFlags.empty() ? "flags unknown" : queueFlags);
    if (!ring.empty()) head += fmt::format(" = {}", ring);
    switch (t.kind) {
        case TimeoutKind::Limit:
            return fmt::format("{}; the kernel kills a job on it after {} ms ({})", head, t.milliseconds, t.source);
        case TimeoutKind::NoLimit:
            return fmt::format("{}; no job timeout applies to it ({})", head, t.source);
        case TimeoutKind::Unknown:
            break;
    }
    return fmt::format("{}; how long the kernel lets a job on it run is unknown ({})", head, t.source);
}

const std::vector<DriverWatchdogFact>& otherDriverWatchdogFacts() {
    static const std::vector<DriverWatchdogFact> facts = {
        {"i915",
         "heartbeat pulses every heartbeat_interval_ms (default 2500, 0 disables hang detection); an engine "
         "whose pulse does not complete is reset (engine reset, else full GPU reset); a context that does not "
         "yield within preempt_timeout_ms (default 640) when another must run is reset; both per engine in "
         "/sys/class/drm/card*/engine/*/",
         "Linux drivers/gpu/drm/i915/Kconfig.profile (DRM_I915_HEARTBEAT_INTERVAL, DRM_I915_PREEMPT_TIMEOUT)"},
        {"xe",
         "job_timeout_ms per engine class (default 5000, bounded by job_timeout_min/max, CONFIG "
         "DRM_XE_JOB_TIMEOUT_MAX default 10000) in /sys/class/drm/card*/device/tile*/gt*/engines/<class>/; a "
         "job past it logs 'Timedout job' and its queue is reset",
         "Linux drivers/gpu/drm/xe/xe_hw_engine.c (job_timeout_ms = 5 * 1000), xe_guc_submit.c, Kconfig.profile"},
        {"nvidia",
         "no documented job timeout for compute on a GPU without a display; with an X screen on the GPU the "
         "X driver's watchdog (Option \"Interactive\", default on) terminates GPU programs that get stuck; its "
         "duration is not documented (unknown); stuck or timed-out channels log 'NVRM: Xid' 8 (GPU stopped "
         "processing) or 109 (CTX SWITCH TIMEOUT)",
         "NVIDIA Linux driver README, X Config Options, Option \"Interactive\"; NVIDIA Xid catalog "
         "(docs.nvidia.com/deploy/xid-errors)"},
        {"nouveau", "no known job timeout for this workload (channel errors such as CTXSW_TIMEOUT are logged)",
         "not documented for nouveau; CTXSW_TIMEOUT as seen in public kernel logs"},
        {"lavapipe", "no known timeout: lavapipe runs on the CPU, only the host's own wait can time out",
         "Mesa lavapipe runs shaders in llvmpipe threads; no kernel scheduler is involved"},
    };
    return facts;
}

const DriverWatchdogFact* otherDriverWatchdogFact(std::string_view driver) {
    for (const auto& f : otherDriverWatchdogFacts()) {
        if (f.driver == driver) return &f;
    }
    return nullptr;
}

}  // namespace repro
