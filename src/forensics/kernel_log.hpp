// The kernel log during a run: a reader that starts at the log's end when the run starts
// and later returns what the kernel wrote since (/dev/kmsg, or a regular file as a test
// seam), parsers for /dev/kmsg records and for dmesg / journalctl lines, and a classifier
// that turns GPU-driver records (amdgpu job timeouts, soft recoveries, ring and GPU
// resets, page faults, devcoredumps; i915 and xe hangs; NVIDIA Xids; nouveau channel
// errors) into typed events. Vulkan-free.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace repro {

// ---- Records --------------------------------------------------------------------------

// One kernel log record: when, as far as the format says, and what.
struct KernelRecord {
    std::optional<double> monotonicSeconds;  // since boot: /dev/kmsg's usec, dmesg's "[ 12.34]"
    std::string wallClock;                   // as printed by `dmesg -T`, `--time-format iso` or journalctl
    std::optional<uint64_t> sequence;        // /dev/kmsg's sequence number
    std::optional<int> level;                // syslog level 0 (emerg) .. 7 (debug), /dev/kmsg only
    std::string text;                        // the message, without the prefix
};

// One /dev/kmsg record (Documentation/ABI/testing/dev-kmsg): "PRI,SEQ,USEC,FLAGS[,...];
// MESSAGE\n" followed by optional dictionary lines that start with a space (" SUBSYSTEM=
// pci", ignored). The level is PRI & 7; "\xNN" escapes in the message are decoded.
// nullopt when the prefix is not of that form.
std::optional<KernelRecord> parseKmsgRecord(std::string_view record);

// One line of `dmesg` ("[ 1234.567890] msg"), `dmesg -T` ("[Wed Sep  2 09:32:42 2026]
// msg"), `dmesg --time-format iso` ("2026-09-02T09:32:42,123456+02:00 msg") or journalctl
// ("Feb 15 21:16:17 host kernel: msg", short-iso alike, a "[ 12.34]" after "kernel: "
// kept as the monotonic time). A line with no known prefix is taken whole as the text.
// nullopt for an empty or all-blank line.
std::optional<KernelRecord> parseLogLine(std::string_view line);

// Every record of a text that holds /dev/kmsg records or log lines, one per line (a
// /dev/kmsg record's dictionary lines are skipped).
std::vector<KernelRecord> parseLogText(std::string_view text);

// ---- The reader -----------------------------------------------------------------------

// What one readNew() found.
struct KernelReadResult {
    std::vector<KernelRecord> records;
    // Times records were lost: /dev/kmsg reported EPIPE (the ring buffer overwrote records
    // before they were read), or the file shrank (rotated or truncated).
    uint64_t lost = 0;
    std::string problem;  // a read error that stopped this read ("read /dev/kmsg: ..."), or empty
};

// Reads the kernel log from the moment it is opened. `path` "/dev/kmsg" (the default, any
// character device) is opened O_RDONLY|O_NONBLOCK|O_CLOEXEC and positioned at its end
// with lseek(SEEK_END); readNew() then reads whole records until EAGAIN. A regular file
// (the test seam, e.g. what REPRO_TEST_KMSG names) is remembered by its size at opening;
// readNew() returns the complete lines appended since (a partial last line waits for the
// next call). Never throws; move-only; closes its descriptor.
class KernelLogReader {
  public:
    // `runStart`: the wall-clock time the run started, for afterwardsCommand().
    explicit KernelLogReader(std::string path = "/dev/kmsg",
                             std::chrono::system_clock::time_point runStart = std::chrono::system_clock::now());

    bool readable() const { return fd_.fd >= 0; }
    const std::string& path() const { return path_; }
    // Why the log cannot be read, one line with the errno text, e.g. "cannot read the
    // kernel log /dev/kmsg: Operation not permitted (with kernel.dmesg_restrict = 1 only
    // root or CAP_SYSLOG may read it)"; empty when readable.
    const std::string& problem() const { return problem_; }
    // The commands that show the run's kernel log afterwards, the run's start filled in:
    // "`sudo journalctl -k --since '2026-09-02 09:32:41'` (or `sudo dmesg --time-format iso
    // | tail -n 200`, the lines from 2026-09-02T09:32:41+02:00 on)", local time.
    std::string afterwardsCommand() const;
    // The one line to print when the log cannot be read: problem() and "; afterwards run "
    // afterwardsCommand(). Empty when readable.
    std::string unreadableLine() const;
    // The records written since opening or since the previous call; empty and with
    // `problem` set when not readable. Reads at most 64 MiB or 100000 records a call.
    KernelReadResult readNew();

  private:
    KernelReadResult readKmsg();
    KernelReadResult readFile();

    std::string path_;
    std::chrono::system_clock::time_point runStart_;
    // The open descriptor (-1: none), closed with the reader or when replaced; moving one
    // leaves -1 behind, which makes the reader move-only.
    struct Descriptor {
        int fd = -1;
        Descriptor() = default;
        explicit Descriptor(int f) : fd(f) {}
        Descriptor(Descriptor&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
        Descriptor& operator=(Descriptor&& o) noexcept;
        ~Descriptor();
    };

    Descriptor fd_;
    bool regularFile_ = false;
    uint64_t offset_ = 0;  // regular file: bytes consumed
    std::string partial_;  // regular file: an incomplete last line
    std::string problem_;
};

// "2026-09-02 09:32:41" and "2026-09-02T09:32:41+02:00" of `t` in local time (journalctl
// --since and dmesg --time-format iso forms). Exposed for tests.
std::string localTimeForJournal(std::chrono::system_clock::time_point t);
std::string localTimeIso(std::chrono::system_clock::time_point t);

// ---- GPU-driver events ----------------------------------------------------------------

enum class GpuEventKind {
    RingTimeout,         // amdgpu "ring gfx_0.0.0 timeout, signaled seq=99, emitted seq=100"
    SoftRecovered,       // amdgpu "ring gfx_0.0.0 timeout, but soft recovered"
    RingResetStarted,    // amdgpu "Starting gfx_0.0.0 ring reset"
    RingResetSucceeded,  // amdgpu "Ring gfx_0.0.0 reset succeeded"
    RingResetFailed,     // amdgpu "Ring gfx_0.0.0 reset failed"
    GpuResetBegin,       // amdgpu "GPU reset begin!"; i915 "Resetting chip for ..."
    GpuResetSucceeded,   // amdgpu "GPU reset(2) succeeded!"
    GpuResetFailed,      // amdgpu "GPU reset(2) failed", "GPU Recovery Failed: -110"
    DeviceWedged,        // DRM "device wedged, but recovered through reset" / "needs recovery"
    PageFault,           // amdgpu "[gfxhub] page fault (src_id:0 ring:24 vmid:3 pasid:32771)"
    VmFaultStatus,       // amdgpu "GCVM_L2_PROTECTION_FAULT_STATUS:0x00801030" (and VM_, MMVM_)
    FenceFallback,       // amdgpu "Fence fallback timer expired on ring gfx_0.0.0" (a late
                         // interrupt, not a timeout)
    Devcoredump,         // "AMDGPU device coredump file has been created", ".../devcoredump/data",
                         // i915 "GPU crash dump saved to ..."
    ProcessInfo,         // amdgpu " Process NAME pid N thread NAME pid M" (after a timeout or fault)
    GuiltyContext,       // a kernel record that calls a context guilty
    I915Hang,            // i915 "GPU HANG: ecode 9:1:e757fefe, in kms_busy [821]"
    I915EngineReset,     // i915 "Resetting rcs0 for preemption time out" / "for stopped heartbeat"
    I915ContextReset,    // i915 "kms_busy[821] context reset due to GPU hang"
    XeJobTimeout,        // xe "Timedout job: seqno=..., guc_id=..., flags=0x..."
    XeEngineReset,       // xe "Engine reset: engine_class=rcs, logical_mask: 0x1"
    NvidiaXid,           // "NVRM: Xid (PCI:0000:0b:00): 109, pid=9468, name=..., ..."
    NouveauError,        // nouveau "fifo: SCHED_ERROR 0a [CTXSW_TIMEOUT]", "channel 4: killed"
    MesNoResponse,       // amdgpu "MES failed to respond to msg=REMOVE_QUEUE": the GPU's scheduler
                         // firmware (MES, GFX11 and later) stopped answering the kernel
};
// "ring timeout", "soft recovered", "ring reset started", ... "Xid", "nouveau error".
std::string_view name(GpuEventKind kind);

struct GpuEvent {
    GpuEventKind kind = GpuEventKind::RingTimeout;
    std::string ring;            // "gfx_0.0.0", "comp_1.1.0", "rcs0"; empty when none named
    std::optional<int> xid;      // NvidiaXid: the Xid number
    std::optional<int64_t> pid;  // the process the kernel names for it, when it does
    std::string process;         // and its name
    std::optional<double> monotonicSeconds;
    std::string text;  // the record's message
};

// The event a record is, or nullopt when it is none of the above (e.g. "ring gfx_0.0.0
// uses VM inv eng 0 on hub 0", a CPU "unable to handle page fault", xe "Timedout signaled
// job", "ring ... timeout, but device unplugged").
std::optional<GpuEvent> classifyGpuRecord(const KernelRecord& record);

// Every event of `records` in order. A ProcessInfo record gives its pid and name to the
// timeout or page fault just before it (within three records), and is kept as well.
std::vector<GpuEvent> gpuEvents(std::span<const KernelRecord> records);

// True for the events that mean the kernel stopped a job: ring timeout, soft recovery,
// ring reset (started, succeeded, failed), GPU reset (begin, succeeded, failed), device
// wedged, a MES that stopped answering, i915 hang / engine reset / context reset, xe timed-out job / engine reset,
// Xid 8 (GPU stopped processing) and 109 (context-switch timeout), a nouveau channel killed.
bool isKillEvent(const GpuEvent& event);

}  // namespace repro
