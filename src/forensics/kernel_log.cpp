// The kernel log reader, its parsers and the GPU-driver event classifier
// (kernel_log.hpp). Message formats are the kernel's (amdgpu_job.c amdgpu_job_timedout,
// amdgpu_ring.c, amdgpu_device.c, gmc/gfxhub fault printers, drm_drv.c wedged events,
// i915 and xe reset paths, NVIDIA's Xid lines) as they appear in public reports; the
// unit tests carry those lines with their sources.
#include "forensics/kernel_log.hpp"
#include "core/text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <ctime>
#include <system_error>
#include <utility>

namespace repro {
namespace {

constexpr size_t kMaxBytesPerRead = size_t{64} << 20;
constexpr size_t kMaxRecordsPerRead = 100000;

bool isDigit(char c) { return c >= '0' && c <= '9'; }

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// "\xNN" escapes of /dev/kmsg decoded; anything else kept.
std::string unescapeKmsg(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    const auto hex = [](char c) -> int {
        if (isDigit(c)) return c - '0';
        const int l = std::tolower(static_cast<unsigned char>(c));
        return l >= 'a' && l <= 'f' ? l - 'a' + 10 : -1;
    };
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' && hex(s[i + 2]) >= 0 && hex(s[i + 3]) >= 0) {
            out += static_cast<char>(hex(s[i + 2]) * 16 + hex(s[i + 3]));
            i += 3;
        } else {
            out += s[i];
        }
    }
    return out;
}

// "[ 1234.567890]" at the start of `s`: the seconds, and `s` moved past it and one space.
std::optional<double> takeBracketSeconds(std::string_view& s) {
    std::string_view t = s;
    if (t.empty() || t.front() != '[') return std::nullopt;
    t.remove_prefix(1);
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    const auto whole = takeNumber<uint64_t>(t);
    if (!whole || t.empty() || t.front() != '.') return std::nullopt;
    t.remove_prefix(1);
    const size_t digits = std::min<size_t>(t.find_first_not_of("0123456789"), t.size());
    if (digits == 0 || digits >= t.size() || t[digits] != ']') return std::nullopt;
    double frac = 0, scale = 0.1;
    for (size_t i = 0; i < digits; ++i, scale /= 10) frac += (t[i] - '0') * scale;
    t.remove_prefix(digits + 1);
    if (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    s = t;
    return static_cast<double>(*whole) + frac;
}

// "[Wed Sep  2 09:32:42 2026] " (dmesg -T) at the start of `s`.
std::optional<std::string> takeBracketDate(std::string_view& s) {
    if (s.size() < 26 || s.front() != '[') return std::nullopt;
    const size_t close = s.find(']');
    if (close == std::string_view::npos || close < 20 || close > 40) return std::nullopt;
    const std::string_view inside = s.substr(1, close - 1);
    if (inside.find(':') == std::string_view::npos || !std::isalpha(static_cast<unsigned char>(inside[0]))) {
        return std::nullopt;
    }
    std::string date(inside);
    s.remove_prefix(close + 1);
    if (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    return date;
}

// "2026-09-02T09:32:42,123456+02:00 " (dmesg --time-format iso, journalctl short-iso).
std::optional<std::string> takeIsoDate(std::string_view& s) {
    if (s.size() < 20 || !isDigit(s[0]) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':') {
        return std::nullopt;
    }
    const size_t space = s.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    std::string date(s.substr(0, space));
    s.remove_prefix(space + 1);
    return date;
}

}  // namespace

std::optional<KernelRecord> parseKmsgRecord(std::string_view record) {
    const size_t semicolon = record.find(';');
    if (semicolon == std::string_view::npos) return std::nullopt;
    std::string_view prefix = record.substr(0, semicolon);
    std::array<uint64_t, 3> fields{};  // priority, sequence, microseconds; FLAGS follow
    for (uint64_t& field : fields) {
        const auto n = takeNumber<uint64_t>(prefix);
        if (!n || prefix.empty() || prefix.front() != ',') return std::nullopt;
        prefix.remove_prefix(1);
        field = *n;
    }
    KernelRecord r;
    r.level = static_cast<int>(fields[0] & 7);
    r.sequence = fields[1];
    r.monotonicSeconds = static_cast<double>(fields[2]) / 1e6;
    std::string_view message = record.substr(semicolon + 1);
    message = message.substr(0, message.find('\n'));  // the dictionary lines follow
    r.text = unescapeKmsg(message);
    return r;
}

std::optional<KernelRecord> parseLogLine(std::string_view line) {
    std::string_view s = trimmed(line);
    if (s.empty()) return std::nullopt;
    KernelRecord r;
    if (const auto secs = takeBracketSeconds(s)) {
        r.monotonicSeconds = secs;
    } else if (auto date = takeBracketDate(s)) {
        r.wallClock = std::move(*date);
    } else if (auto iso = takeIsoDate(s)) {
        r.wallClock = std::move(*iso);
    }
    // journalctl: "<date> <host> kernel: <message>" (the date may be localised).
    if (const size_t k = s.find(" kernel: "); k != std::string_view::npos && k < 80) {
        const std::string_view head = trimmed(s.substr(0, k));
        const size_t hostStart = head.rfind(' ');
        if (r.wallClock.empty())
            r.wallClock = std::string(hostStart == std::string_view::npos ? head : head.substr(0, hostStart));
        s.remove_prefix(k + 9);
        if (const auto secs = takeBracketSeconds(s)) r.monotonicSeconds = secs;
    }
    r.text = std::string(s);
    return r;
}

std::vector<KernelRecord> parseLogText(std::string_view text) {
    std::vector<KernelRecord> out;
    for (const std::string_view line : split(text, '\n')) {
        if (!line.empty() && line.front() == ' ' && !out.empty() && out.back().sequence) continue;  // kmsg dictionary
        if (!line.empty() && isDigit(line.front())) {
            if (auto kmsg = parseKmsgRecord(line)) {
                out.push_back(std::move(*kmsg));
                continue;
            }
        }
        if (auto r = parseLogLine(line)) out.push_back(std::move(*r));
    }
    return out;
}

// ---- The reader -----------------------------------------------------------------------

namespace {

std::string localTime(std::chrono::system_clock::time_point t, const char* format, bool isoZone) {
    const std::time_t tt = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    if (::localtime_r(&tt, &tm) == nullptr) return "(unknown time)";
    std::array<char, 64> buf{};
    const size_t n = std::strftime(buf.data(), buf.size(), format, &tm);
    const std::string_view text(buf.data(), n);
    if (!isoZone || text.size() < 5) return std::string(text);
    // +0200 -> +02:00. Built by fmt rather than std::string::insert, which GCC 12's
    // -Wrestrict misreads at -O2 (a false positive, GCC bug 105329).
    return fmt::format("{}:{}", text.substr(0, text.size() - 2), text.substr(text.size() - 2));
}

std::string openProblem(const std::string& path, int error) {
    std::string why = errnoText(error);
    if (error == EPERM || error == EACCES) {
        why += path == "/dev/kmsg" ? " (with kernel.dmesg_restrict = 1 only root or CAP_SYSLOG may read it)"
                                   : " (no read permission)";
    }
    return fmt::format("cannot read the kernel log {}: {}", path, why);
}

}  // namespace

std::string localTimeForJournal(std::chrono::system_clock::time_point t) {
    return localTime(t, "%Y-%m-%d %H:%M:%S", false);
}
std::string localTimeIso(std::chrono::system_clock::time_point t) { return localTime(t, "%Y-%m-%dT%H:%M:%S%z", true); }

KernelLogReader::KernelLogReader(std::string path, std::chrono::system_clock::time_point runStart)
    : path_(std::move(path)), runStart_(runStart) {
    fd_ = Descriptor(::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (fd_.fd < 0) {
        problem_ = openProblem(path_, errno);
        return;
    }
    struct stat st {};
    if (::fstat(fd_.fd, &st) != 0) {
        problem_ = openProblem(path_, errno);
        fd_ = {};
        return;
    }
    regularFile_ = S_ISREG(st.st_mode);
    if (regularFile_) {
        offset_ = static_cast<uint64_t>(st.st_size);
    } else if (::lseek(fd_.fd, 0, SEEK_END) < 0 && errno != ESPIPE) {
        problem_ = fmt::format("cannot read the kernel log {}: lseek to its end: {}", path_, errnoText(errno));
        fd_ = {};
    }
}

KernelLogReader::Descriptor& KernelLogReader::Descriptor::operator=(Descriptor&& o) noexcept {
    if (this != &o) {
        if (fd >= 0) ::close(fd);
        fd = std::exchange(o.fd, -1);
    }
    return *this;
}

KernelLogReader::Descriptor::~Descriptor() {
    if (fd >= 0) ::close(fd);
}

std::string KernelLogReader::afterwardsCommand() const {
    return fmt::format(
        "`sudo journalctl -k --since '{}'` (or `sudo dmesg --time-format iso | tail -n 200`, the lines "
        "from {} on)",
        localTimeForJournal(runStart_), localTimeIso(runStart_));
}

std::string KernelLogReader::unreadableLine() const {
    return readable() ? std::string() : fmt::format("{}; afterwards run {}", problem_, afterwardsCommand());
}

KernelReadResult KernelLogReader::readNew() {
    if (fd_.fd < 0) {
        KernelReadResult r;
        r.problem = problem_;
        return r;
    }
    return regularFile_ ? readFile() : readKmsg();
}

KernelReadResult KernelLogReader::readKmsg() {
    KernelReadResult r;
    std::array<char, 16384> buf{};  // a record is at most 8 KiB (CONSOLE_EXT_LOG_MAX)
    size_t bytes = 0;
    while (r.records.size() < kMaxRecordsPerRead && bytes < kMaxBytesPerRead) {
        const ssize_t n = ::read(fd_.fd, buf.data(), buf.size());
        if (n > 0) {
            bytes += static_cast<size_t>(n);
            if (auto rec = parseKmsgRecord(std::string_view(buf.data(), static_cast<size_t>(n)))) {
                r.records.push_back(std::move(*rec));
            }
            continue;
        }
        if (n == 0) break;
        if (errno == EINTR) continue;
        if (errno == EPIPE && r.lost < kMaxRecordsPerRead) {  // overwritten; the next read goes on after them
            ++r.lost;
            continue;
        }
        if (errno != EAGAIN) r.problem = fmt::format("read {}: {}", path_, errnoText(errno));
        break;
    }
    return r;
}

KernelReadResult KernelLogReader::readFile() {
    KernelReadResult r;
    struct stat st {};
    if (::fstat(fd_.fd, &st) != 0) {
        r.problem = fmt::format("stat {}: {}", path_, errnoText(errno));
        return r;
    }
    const auto size = static_cast<uint64_t>(st.st_size);
    if (size < offset_) {  // truncated or replaced: start over
        ++r.lost;
        offset_ = 0;
        partial_.clear();
    }
    std::string data = std::move(partial_);
    partial_.clear();
    std::array<char, 65536> buf{};
    while (offset_ < size && data.size() < kMaxBytesPerRead) {
        const size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), size - offset_));
        const ssize_t n = ::pread(fd_.fd, buf.data(), want, static_cast<off_t>(offset_));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n < 0) r.problem = fmt::format("read {}: {}", path_, errnoText(errno));
            break;
        }
        data.append(buf.data(), static_cast<size_t>(n));
        offset_ += static_cast<uint64_t>(n);
    }
    const size_t lastNewline = data.rfind('\n');
    if (lastNewline == std::string::npos) {
        partial_ = std::move(data);
        return r;
    }
    partial_ = data.substr(lastNewline + 1);
    r.records = parseLogText(std::string_view(data).substr(0, lastNewline + 1));
    if (r.records.size() > kMaxRecordsPerRead) r.records.resize(kMaxRecordsPerRead);
    return r;
}

// ---- GPU-driver events ----------------------------------------------------------------

namespace {

bool isRingChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'; }

// The token right after `word` at `pos` in `s`, up to a space, ',' or ')'; empty if none.
std::string_view tokenAt(std::string_view s, size_t pos) {
    size_t end = pos;
    while (end < s.size() && s[end] != ' ' && s[end] != ',' && s[end] != ')') ++end;
    return s.substr(pos, end - pos);
}

bool isRingName(std::string_view t) { return !t.empty() && std::all_of(t.begin(), t.end(), isRingChar); }

// The ring of "<lead><ring><tail>" in `text`, e.g. lead "Starting ", tail " ring reset".
std::optional<std::string> ringBetween(std::string_view text, std::string_view lead, std::string_view tail) {
    for (size_t pos = text.find(lead); pos != std::string_view::npos; pos = text.find(lead, pos + 1)) {
        const std::string_view ring = tokenAt(text, pos + lead.size());
        if (isRingName(ring) && text.substr(pos + lead.size() + ring.size(), tail.size()) == tail) {
            return std::string(ring);
        }
    }
    return std::nullopt;
}

// "[gfxhub] page fault", "[gfxhub0] retry page fault", "[mmhub0] no-retry page fault".
bool isHubPageFault(std::string_view text) {
    for (size_t pos = text.find("page fault"); pos != std::string_view::npos; pos = text.find("page fault", pos + 1)) {
        std::string_view before = text.substr(0, pos);
        for (const std::string_view word : {"retry ", "no-"}) {
            if (before.ends_with(word)) before.remove_suffix(word.size());
        }
        if (!before.ends_with("] ")) continue;
        const size_t open = before.rfind('[');
        if (open != std::string_view::npos && contains(before.substr(open), "hub")) return true;
    }
    return false;
}

std::optional<int64_t> numberAt(std::string_view s, size_t pos) {
    std::string_view t = s.substr(std::min(pos, s.size()));
    const auto v = takeNumber<uint64_t>(t);
    if (!v || *v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(*v);
}

// The process amdgpu names: "Process information: process NAME pid N thread ..." (older
// timeouts), " Process NAME pid N thread NAME pid M" (newer timeouts and faults), and
// "for process NAME pid N" / " in process NAME pid N" (page faults).
bool parseProcessInfo(std::string_view text, GpuEvent& e) {
    size_t nameAt = std::string_view::npos;
    for (const std::string_view lead : {"Process information: process ", "for process ", " in process "}) {
        if (const size_t at = text.find(lead); at != std::string_view::npos) {
            nameAt = at + lead.size();
            break;
        }
    }
    if (nameAt == std::string_view::npos) {
        const size_t at = text.find("Process ");
        if (at == std::string_view::npos || (at > 0 && text[at - 1] != ' ')) return false;
        nameAt = at + 8;
    }
    const size_t pidAt = text.find(" pid ", nameAt);
    if (pidAt == std::string_view::npos) return false;
    const auto pid = numberAt(text, pidAt + 5);
    if (!pid) return false;
    e.process = std::string(trimmed(text.substr(nameAt, pidAt - nameAt)));
    e.pid = pid;
    return true;
}

// "NAME [PID]" or "NAME[PID]" starting at `nameStart` in `text`.
void parseNamePid(std::string_view text, size_t nameStart, GpuEvent& e) {
    const size_t open = text.find('[', nameStart);
    if (open == std::string_view::npos) return;
    const auto pid = numberAt(text, open + 1);
    if (!pid) return;
    e.pid = pid;
    e.process = std::string(trimmed(text.substr(nameStart, open - nameStart)));
}

// "..., in NAME [PID]" (i915 GPU HANG, xe Timedout job).
void parseBracketPid(std::string_view text, std::string_view lead, GpuEvent& e) {
    const size_t at = text.rfind(lead);
    if (at != std::string_view::npos) parseNamePid(text, at + lead.size(), e);
}

std::optional<GpuEvent> classifyNvidia(std::string_view t, GpuEvent e) {
    const size_t at = t.find("NVRM: Xid (");
    const size_t close = at == std::string_view::npos ? at : t.find("): ", at);
    if (close == std::string_view::npos) return std::nullopt;
    const auto xid = numberAt(t, close + 3);
    if (!xid || *xid > 100000) return std::nullopt;
    e.kind = GpuEventKind::NvidiaXid;
    e.xid = static_cast<int>(*xid);
    if (const size_t p = t.find("pid=", close); p != std::string_view::npos) e.pid = numberAt(t, p + 4);
    if (const size_t n = t.find("name=", close); n != std::string_view::npos)
        e.process = std::string(tokenAt(t, n + 5));
    return e;
}

// amdgpu's ring messages, "<lead><ring><tail>", in the order they are tried (a soft recovery
// is a timeout too).
struct RingMessage {
    std::string_view lead, tail;
    GpuEventKind kind;
};
constexpr RingMessage kRingMessages[] = {
    {"ring ", " timeout, but soft recovered", GpuEventKind::SoftRecovered},
    {"ring ", " timeout", GpuEventKind::RingTimeout},
    {"Starting ", " ring reset", GpuEventKind::RingResetStarted},
    {"Ring ", " reset succeeded", GpuEventKind::RingResetSucceeded},
    {"Ring ", " reset failed", GpuEventKind::RingResetFailed},
    {"Fence fallback timer expired on ring ", "", GpuEventKind::FenceFallback},
};

std::optional<GpuEvent> classifyAmdgpuRing(std::string_view t, GpuEvent e) {
    for (const RingMessage& m : kRingMessages) {
        auto ring = ringBetween(t, m.lead, m.tail);
        if (!ring) continue;
        // "ring X timeout, but device unplugged, skipping": no event
        if (m.kind == GpuEventKind::RingTimeout && contains(t, "timeout, but ")) return std::nullopt;
        e.kind = m.kind;
        e.ring = std::move(*ring);
        return e;
    }
    return std::nullopt;
}

std::optional<GpuEvent> classifyReset(std::string_view t, GpuEvent e) {
    const auto as = [&](GpuEventKind kind) {
        e.kind = kind;
        return std::optional<GpuEvent>(e);
    };
    if (contains(t, "GPU reset begin!") || contains(t, "Resetting chip for ")) return as(GpuEventKind::GpuResetBegin);
    if (const size_t r = t.find("GPU reset("); r != std::string_view::npos) {
        if (contains(t.substr(r), ") succeeded")) return as(GpuEventKind::GpuResetSucceeded);
        if (contains(t.substr(r), ") failed")) return as(GpuEventKind::GpuResetFailed);
    }
    if (contains(t, "GPU Recovery Failed")) return as(GpuEventKind::GpuResetFailed);
    if (contains(t, "MODE2 reset")) return as(GpuEventKind::GpuResetBegin);  // amdgpu's reset of APUs
    if (contains(t, "MES failed to respond to msg=")) return as(GpuEventKind::MesNoResponse);
    if (contains(t, "device wedged")) return as(GpuEventKind::DeviceWedged);
    if (contains(t, "VM_L2_PROTECTION_FAULT_STATUS")) return as(GpuEventKind::VmFaultStatus);
    if (isHubPageFault(t)) {
        parseProcessInfo(t, e);  // "(src_id:0 ..., for process NAME pid N thread ...)"
        return as(GpuEventKind::PageFault);
    }
    if (contains(t, "device coredump file has been created") || contains(t, "devcoredump/data") ||
        contains(t, "GPU crash dump saved to")) {
        return as(GpuEventKind::Devcoredump);
    }
    return std::nullopt;
}

std::optional<GpuEvent> classifyIntel(std::string_view t, GpuEvent e) {
    if (contains(t, "GPU HANG: ecode")) {
        e.kind = GpuEventKind::I915Hang;
        parseBracketPid(t, ", in ", e);
        return e;
    }
    for (size_t pos = t.find("Resetting "); pos != std::string_view::npos; pos = t.find("Resetting ", pos + 1)) {
        const std::string_view engine = tokenAt(t, pos + 10);
        if (engine.size() >= 3 && contains(engine, "cs") && isDigit(engine.back()) &&
            t.substr(pos + 10 + engine.size(), 5) == " for ") {
            e.kind = GpuEventKind::I915EngineReset;
            e.ring = std::string(engine);
            return e;
        }
    }
    if (const size_t c = t.find(" context reset due to GPU hang"); c != std::string_view::npos) {
        e.kind = GpuEventKind::I915ContextReset;
        const size_t nameStart = t.rfind(' ', c == 0 ? 0 : c - 1);
        parseNamePid(t, nameStart == std::string_view::npos ? 0 : nameStart + 1, e);  // "Xorg[5337] context reset"
        return e;
    }
    if (contains(t, "Timedout job:")) {
        e.kind = GpuEventKind::XeJobTimeout;
        parseBracketPid(t, " in ", e);
        return e;
    }
    if (const size_t r = t.find("Engine reset: engine_class="); r != std::string_view::npos) {
        e.kind = GpuEventKind::XeEngineReset;
        e.ring = std::string(tokenAt(t, r + 27));
        return e;
    }
    return std::nullopt;
}

// Each kind's name and whether it is a kill record (the kernel stopped or reset a job: a
// timeout, a reset, a wedge, a hang), in GpuEventKind's order. Whether an Xid or a nouveau
// error is one depends on the record (isKillEvent).
struct GpuEventKindFacts {
    std::string_view name;
    bool kill;
};
constexpr GpuEventKindFacts kGpuEventKinds[] = {
    {"ring timeout", true},         {"soft recovered", true},    {"ring reset started", true},
    {"ring reset succeeded", true}, {"ring reset failed", true}, {"GPU reset begin", true},
    {"GPU reset succeeded", true},  {"GPU reset failed", true},  {"device wedged", true},
    {"page fault", false},          {"VM fault status", false},  {"fence fallback timer", false},
    {"devcoredump", false},         {"process", false},          {"guilty context", false},
    {"i915 GPU hang", true},        {"i915 engine reset", true}, {"i915 context reset", true},
    {"xe job timeout", true},       {"xe engine reset", true},   {"Xid", false},
    {"nouveau error", false},       {"MES no response", true},
};
static_assert(std::size(kGpuEventKinds) == static_cast<size_t>(GpuEventKind::MesNoResponse) + 1);

}  // namespace

std::string_view name(GpuEventKind kind) { return kGpuEventKinds[static_cast<size_t>(kind)].name; }

std::optional<GpuEvent> classifyGpuRecord(const KernelRecord& record) {
    const std::string_view t = record.text;
    GpuEvent e;
    e.monotonicSeconds = record.monotonicSeconds;
    e.text = record.text;
    if (contains(t, "NVRM: Xid (")) return classifyNvidia(t, e);
    if (auto ring = classifyAmdgpuRing(t, e)) return ring;
    if (contains(t, "timeout, but ")) return std::nullopt;
    if (auto reset = classifyReset(t, e)) return reset;
    if (auto intel = classifyIntel(t, e)) return intel;
    if (contains(t, "nouveau") &&
        (contains(t, "SCHED_ERROR") || contains(t, ": killed") || contains(t, "CTXSW_TIMEOUT"))) {
        e.kind = GpuEventKind::NouveauError;
        return e;
    }
    if (parseProcessInfo(t, e)) {
        e.kind = GpuEventKind::ProcessInfo;
        return e;
    }
    if (contains(t, "guilty")) {
        e.kind = GpuEventKind::GuiltyContext;
        return e;
    }
    return std::nullopt;
}

std::vector<GpuEvent> gpuEvents(std::span<const KernelRecord> records) {
    std::vector<GpuEvent> out;
    std::optional<size_t> lastOwner;  // index in `out` of a timeout or fault waiting for its process
    size_t ownerRecord = 0;
    for (size_t i = 0; i < records.size(); ++i) {
        auto e = classifyGpuRecord(records[i]);
        if (!e) continue;
        const bool owner = e->kind == GpuEventKind::RingTimeout || e->kind == GpuEventKind::SoftRecovered ||
                           e->kind == GpuEventKind::PageFault;
        if (e->kind == GpuEventKind::ProcessInfo && lastOwner && i - ownerRecord <= 3 && !out[*lastOwner].pid) {
            out[*lastOwner].pid = e->pid;
            out[*lastOwner].process = e->process;
            lastOwner.reset();
        }
        out.push_back(std::move(*e));
        if (owner) {
            lastOwner = out.size() - 1;
            ownerRecord = i;
        }
    }
    return out;
}

bool isKillEvent(const GpuEvent& e) {
    if (e.kind == GpuEventKind::NvidiaXid) return e.xid == 8 || e.xid == 109;
    if (e.kind == GpuEventKind::NouveauError) return contains(e.text, ": killed");
    return kGpuEventKinds[static_cast<size_t>(e.kind)].kill;
}

}  // namespace repro
