// The kernel's job watchdog as facts: how long the GPU kernel driver lets one job (one
// submit's work on a hardware queue) run before it kills it, for the kernel that runs
// here. amdgpu in full (its `lockup_timeout` parameter in every form, in each kernel era);
// the other drivers as documented facts with their sources. Pure functions: the caller
// reads the files (environment.cpp does), these decide. Vulkan-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace repro {

// ---- Kernel version -------------------------------------------------------------------

// The first two numbers of a kernel release string.
struct KernelVersion {
    uint32_t major = 0;
    uint32_t minor = 0;
    bool operator==(const KernelVersion&) const = default;
    // Lexicographic (major, minor) comparison.
    bool atLeast(uint32_t wantMajor, uint32_t wantMinor) const {
        return major != wantMajor ? major > wantMajor : minor >= wantMinor;
    }
};

// Parses uname(2)'s release ("6.19.0-rc3-foo", "7.0.13-arch1-1", "5.15.0-91-generic"):
// digits, '.', digits at the start; whatever follows the minor number is ignored.
// nullopt for anything else ("", "garbage", "6", "6.", "v6.19", numbers past 2^32).
std::optional<KernelVersion> parseKernelRelease(std::string_view release);

// ---- amdgpu lockup_timeout ------------------------------------------------------------

// The four queue classes lockup_timeout sets, in its order.
enum class AmdgpuQueue { Gfx, Compute, Sdma, Video };
std::string_view name(AmdgpuQueue q);  // "gfx", "compute", "sdma", "video"

// Which rules the running kernel applies: the defaults and one-value rule of each era, with their sources, are
// docs/watchdog.md "1. The timeout amdgpu applies" (5.14 as a boundary is inferred: "9. Not verified"). A
// distribution kernel may carry backports; the version decides only for upstream rules.
enum class AmdgpuEra { Unknown, Before5_14, Linux5_14To6_16, Linux6_17To6_18, Linux6_19On };
AmdgpuEra amdgpuEra(const std::optional<KernelVersion>& kernel);
// "Linux 6.19+", "Linux 6.17-6.18", "Linux 5.14-6.16", "Linux before 5.14", "an unknown kernel"
std::string_view describe(AmdgpuEra era);

// How the GPU is attached; only amdgpu's defaults and one-value rule before 6.19 depend
// on it (amdgpu_sriov_vf, amdgpu_sriov_is_pp_one_vf, amdgpu_passthrough in
// amdgpu_device.c). repro does not detect it: callers pass BareMetal and say so.
enum class AmdgpuVirtualization { BareMetal, Passthrough, SriovOneVf, SriovMultiVf };

// The parameter parsed as amdgpu_device_get_job_timeout_settings parses it (docs/watchdog.md "The parameter"),
// each value fitting a 64-bit long; a field that fails sets `error`, as the kernel rejects the whole parameter.
struct LockupTimeoutParse {
    std::vector<int64_t> values;       // ms as the kernel read them, in order (gfx, compute, sdma,
                                       // video, then extras the kernel ignores)
    std::optional<std::string> error;  // "field 2 '5s' is not a number": the kernel rejects it
    bool empty() const { return values.empty() && !error; }
};
LockupTimeoutParse parseLockupTimeout(std::string_view text);

// One queue's job timeout as the kernel applies it, or why it is not known.
enum class TimeoutKind { Limit, NoLimit, Unknown };
struct QueueTimeout {
    TimeoutKind kind = TimeoutKind::Unknown;
    int64_t milliseconds = 0;    // the limit (Limit only)
    bool fromParameter = false;  // the value (or "no limit") came from lockup_timeout itself
    // Where it comes from, in words: "read from /sys/module/amdgpu/parameters/lockup_timeout
    // '5000' (one value: all queues on Linux 6.19+)", "kernel default for Linux 6.19+:
    // 2000 ms (lockup_timeout empty)", or why it is unknown.
    std::string source;
    double seconds() const { return static_cast<double>(milliseconds) / 1000.0; }
};

// What amdgpuQueueTimeout reads. `parameter`: the sysfs file's text (a trailing newline
// allowed), nullopt when it could not be read, with `parameterProblem` saying why
// ("not present (/sys/module/amdgpu/parameters/lockup_timeout)", "unreadable (Permission
// denied)"). `kernelRelease`: uname's release, for the era and for messages.
struct AmdgpuTimeoutInput {
    std::optional<std::string> parameter;
    std::string parameterProblem;
    std::string kernelRelease;
    AmdgpuVirtualization virtualization = AmdgpuVirtualization::BareMetal;
    bool virtualizationAssumed = true;  // true: bare metal was assumed, not detected
};

// The timeout of `queue` under `input` by the era's rules (docs/watchdog.md "1. The timeout amdgpu applies" and
// "The parameter"): 0 keeps the queue's default, a negative value is no timeout (MAX_SCHEDULE_TIMEOUT), an empty
// parameter the era's defaults. Unknown, with the reason in `source`, for a kernel version that cannot be parsed
// or predates the rules modelled, a parameter that cannot be read (the default and an explicit value cannot be
// told apart), one the kernel would reject, a 5.12/5.13 compute default and a lone "0" on 6.19+. Never throws.
QueueTimeout amdgpuQueueTimeout(AmdgpuQueue queue, const AmdgpuTimeoutInput& input);

// ---- The queue repro submits to --------------------------------------------------------

// The kind of Vulkan queue family repro submits to. On RADV, family 0 (GRAPHICS|COMPUTE|
// TRANSFER) is the GFX queue, whose amdgpu ring is gfx_0.0.0; RADV's compute-only family
// runs on the comp_X.Y.Z rings (the names amdgpu's job-timeout and ring-reset messages
// use; llama.cpp issues 21724 and 27076 show both).
enum class QueueKind { Gfx, Compute, Other };
std::string_view name(QueueKind k);  // "gfx", "compute", "other"

// The kind for a family's queue flags ("GRAPHICS|COMPUTE|TRANSFER" -> Gfx, "COMPUTE|
// TRANSFER" -> Compute, anything without GRAPHICS or COMPUTE -> Other).
QueueKind queueKindFromFlags(std::string_view queueFlags);

// The amdgpu queue class a kind runs on; nullopt for Other (transfer queues run on SDMA
// or on a compute ring depending on the RADV version and settings: not modelled).
std::optional<AmdgpuQueue> amdgpuQueueFor(QueueKind kind);

// The line repro prints about its queue, e.g.
// "queue: family 0 (GRAPHICS|COMPUTE|TRANSFER) = amdgpu gfx ring; the kernel kills a job on
// it after 2000 ms (kernel default for Linux 6.19+: 2000 ms (lockup_timeout empty))".
// `ring` names what the family runs on ("amdgpu gfx ring", "i915 render engine"); an
// empty one is left out. No limit ("no job timeout applies to it") and unknown ("how
// long the kernel lets a job on it run is unknown") are said as such.
std::string queueLine(uint32_t family, std::string_view queueFlags, std::string_view ring, const QueueTimeout& timeout);

// ---- Other drivers --------------------------------------------------------------------

// What is publicly documented about another kernel driver's job watchdog.
struct DriverWatchdogFact {
    std::string driver;   // "i915", "xe", "nvidia", "nouveau", "lavapipe"
    std::string summary;  // one line: the mechanism, its default, where it is set
    std::string source;   // where that is documented
};
// The known facts, one per driver, in a fixed order (i915, xe, nvidia, nouveau, lavapipe).
const std::vector<DriverWatchdogFact>& otherDriverWatchdogFacts();
// The fact for `driver` (case-sensitive, as above); nullptr when there is none.
const DriverWatchdogFact* otherDriverWatchdogFact(std::string_view driver);

}  // namespace repro
