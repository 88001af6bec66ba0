// The crash site (crash_site.hpp). The handler's half is async-signal-safe: open, read,
// write, sigaction and raise only, fixed buffers, no allocation.
#include "forensics/crash_site.hpp"

#include <fcntl.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

#include "core/enum_names.hpp"
#include "core/exit_status.hpp"
#include "core/text.hpp"

namespace repro {
namespace {

constexpr std::array<int, 4> kCrashSignals = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};

// What the handler reads: filled by installCrashReporter before the handler exists.
struct Reporter {
    int fd = -1;
    std::array<CodeRange, 512> startup{};
    size_t startupCount = 0;
    std::array<struct sigaction, kCrashSignals.size()> previous{};
    struct sigaction previousAbort {};
};
Reporter reporter;
alignas(16) char alternateStack[64 * 1024];

// Calls `each(entry)` for every line of /proc/self/maps until it returns true; async-signal-
// safe. The entry's path points into a static buffer, valid until the next call.
template <typename Each>
bool forEachMapping(Each each) {
    static char buffer[16384];
    const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    size_t have = 0;
    bool done = false;
    while (!done) {
        const ssize_t n = ::read(fd, buffer + have, sizeof buffer - have);
        const bool last = n <= 0;
        have += last ? 0 : static_cast<size_t>(n);
        size_t start = 0;
        for (size_t i = 0; i < have && !done; ++i) {
            if (buffer[i] != '\n' && !(last && i + 1 == have)) continue;
            const size_t end = buffer[i] == '\n' ? i : i + 1;
            if (const auto e = parseMapsLine(std::string_view(buffer + start, end - start))) done = each(*e);
            start = i + 1;
        }
        if (last || done) break;  // done: the entry's path points into the buffer; keep it
        have = start < have ? have - start : 0;
        if (have == sizeof buffer) have = 0;  // a line longer than the buffer: dropped
        if (have > 0) std::memmove(buffer, buffer + start, have);
    }
    ::close(fd);
    return true;
}

std::optional<MapsEntry> mappingAt(uintptr_t address) {
    std::optional<MapsEntry> found;
    forEachMapping([&](const MapsEntry& e) {
        if (address >= e.begin && address < e.end) found = e;
        return found.has_value();
    });
    return found;
}

// The faulting instruction's address, and the return address at the top of the stack (a
// call through a bad pointer leaves it there, or in the link register).
void codeAddresses(void* context, uintptr_t& pc, std::optional<uintptr_t>& caller) {
    const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
    pc = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
    caller = *reinterpret_cast<const uintptr_t*>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
    pc = static_cast<uintptr_t>(uc->uc_mcontext.pc);
    caller = static_cast<uintptr_t>(uc->uc_mcontext.regs[30]);
#else
    (void)uc;
    pc = 0;
    caller.reset();
#endif
}

// Appends to a fixed buffer, as the handler may (no allocation).
struct LineBuffer {
    char text[512];
    size_t size = 0;
    void add(std::string_view s, bool field = false) {  // field: its tabs and newlines become spaces
        for (const char c : s) {
            if (size + 1 < sizeof text) text[size++] = field && (c == '\t' || c == '\n') ? ' ' : c;
        }
    }
    void number(uintptr_t v, int base) {
        char digits[32];
        const auto [ptr, ec] = std::to_chars(digits, digits + sizeof digits, v, base);
        add(std::string_view(digits, static_cast<size_t>(ptr - digits)));
    }
};

// Writes the parent's "C" line: "\nC\t<signal>\t<site>\t0x<address>\t<file>\n", the file the
// base name of `mapping`'s path ("" without one). The leading newline ends a line the
// crashed thread may have left half-written.
void sendCrashLine(int signal, CrashSite site, uintptr_t at, const std::optional<MapsEntry>& mapping) {
    LineBuffer line;
    line.add("\nC\t");
    line.number(static_cast<uintptr_t>(signal), 10);
    line.add("\t");
    line.add(name(site));
    line.add("\t0x");
    line.number(at, 16);
    line.add("\t");
    if (mapping) line.add(mapping->path.substr(mapping->path.rfind('/') + 1), /*field=*/true);
    line.text[line.size++] = '\n';
    [[maybe_unused]] const ssize_t written = ::write(reporter.fd, line.text, line.size);
}

void onCrash(int signal, siginfo_t* info, void* context) {
    const int savedErrno = errno;
    const bool sent = info->si_code <= 0;  // SI_USER, SI_TKILL, SI_QUEUE: kill(2) or raise(3)
    uintptr_t at = 0;
    CrashSite site = CrashSite::Unknown;
    std::optional<MapsEntry> mapping;
    if (!sent) {
        std::optional<uintptr_t> caller;
        codeAddresses(context, at, caller);
        mapping = mappingAt(at);
        if ((!mapping || !mapping->executable) && caller) {
            at = *caller;
            mapping = mappingAt(at);
        }
        site = classifyCodeAddress(at, mapping, std::span(reporter.startup.data(), reporter.startupCount));
    }
    sendCrashLine(signal, site, at, mapping);
    for (size_t i = 0; i < kCrashSignals.size(); ++i) {
        if (kCrashSignals[i] == signal) sigaction(signal, &reporter.previous[i], nullptr);
    }
    if (sent) raise(signal);  // pending until return, then the previous disposition acts
    errno = savedErrno;       // a fault faults again on return, under the previous one
}

// SIGABRT: abort(3) raises it in the process itself (tgkill with the process's own pid);
// one that another process sent (kill -ABRT, `timeout -s ABRT`, a service manager's
// watchdog, a debugger) carries the sender's pid, or 0 from outside the pid namespace. Only
// that one is reported, as a signal sent is ("C\t6\tunknown\t0x0\t"), so that the parent
// does not take it for the driver's abort. Then the previous disposition acts.
void onAbort(int signal, siginfo_t* info, void*) {
    const int savedErrno = errno;
    if (info->si_code <= 0 && info->si_pid != ::getpid()) sendCrashLine(signal, CrashSite::Unknown, 0, std::nullopt);
    sigaction(signal, &reporter.previousAbort, nullptr);
    raise(signal);  // pending until return, then the previous disposition acts
    errno = savedErrno;
}

}  // namespace

std::string_view name(CrashSite site) {
    static constexpr std::string_view kNames[] = {"driver", "repro", "unknown"};
    return nameOf(kNames, site);
}

std::optional<CrashSite> parseCrashSite(std::string_view text) {
    for (const CrashSite s : {CrashSite::Driver, CrashSite::Repro, CrashSite::Unknown}) {
        if (name(s) == text) return s;
    }
    return std::nullopt;
}

std::optional<MapsEntry> parseMapsLine(std::string_view line) {
    const size_t dash = line.find('-');
    const size_t space = line.find(' ');
    if (dash == std::string_view::npos || space == std::string_view::npos || dash > space) return std::nullopt;
    const auto begin = parseWhole<uintptr_t>(line.substr(0, dash), 16);
    const auto end = parseWhole<uintptr_t>(line.substr(dash + 1, space - dash - 1), 16);
    if (!begin || !end || *end < *begin) return std::nullopt;
    std::array<std::string_view, 4> fields;  // permissions, offset, device, inode
    size_t pos = space;
    for (auto& field : fields) {
        pos = line.find_first_not_of(' ', pos);
        if (pos == std::string_view::npos) return std::nullopt;
        const size_t stop = std::min(line.find(' ', pos), line.size());
        field = line.substr(pos, stop - pos);
        pos = stop;
    }
    if (fields[0].size() != 4) return std::nullopt;
    MapsEntry e{.begin = *begin, .end = *end, .executable = fields[0][2] == 'x'};
    pos = line.find_first_not_of(' ', pos);
    if (pos != std::string_view::npos) e.path = line.substr(pos);
    return e;
}

CrashSite classifyCodeAddress(uintptr_t address, const std::optional<MapsEntry>& mapping,
                              std::span<const CodeRange> startup) {
    if (!mapping || !mapping->executable || address < mapping->begin || address >= mapping->end) {
        return CrashSite::Unknown;
    }
    for (const CodeRange& r : startup) {
        if (address >= r.begin && address < r.end) return r.reproExecutable ? CrashSite::Repro : CrashSite::Unknown;
    }
    return CrashSite::Driver;
}

bool installCrashReporter(int fd) {
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    const std::string_view self = n > 0 ? std::string_view(exe, static_cast<size_t>(n)) : std::string_view();
    reporter.startupCount = 0;
    const bool read = forEachMapping([&](const MapsEntry& e) {
        if (e.executable && reporter.startupCount < reporter.startup.size()) {
            reporter.startup[reporter.startupCount++] = {e.begin, e.end, !self.empty() && e.path == self};
        }
        return false;
    });
    if (!read) return false;
    reporter.fd = fd;
    const stack_t stack{.ss_sp = alternateStack, .ss_flags = 0, .ss_size = sizeof alternateStack};
    sigaltstack(&stack, nullptr);
    struct sigaction action {};
    action.sa_sigaction = onCrash;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < kCrashSignals.size(); ++i) sigaction(kCrashSignals[i], &action, &reporter.previous[i]);
    action.sa_sigaction = onAbort;
    sigaction(SIGABRT, &action, &reporter.previousAbort);
    return true;
}

CrashVerdict crashVerdict(int signal, const std::optional<CrashReport>& report, bool inCall, bool modes,
                          std::string_view where, std::string_view signalName) {
    const bool abort = signal == SIGABRT;
    // An abort is reported only when another process sent it (onAbort): never the driver's.
    const bool abortSent = abort && report && report->signal == SIGABRT;
    const CrashSite site = abort ? (inCall && !abortSent ? CrashSite::Driver : CrashSite::Unknown)
                                 : (report ? report->site : CrashSite::Unknown);
    const std::string code = !report                ? std::string()
                             : report->file.empty() ? fmt::format("code at {}; ", report->address)
                                                    : fmt::format("code at {} in {}; ", report->address, report->file);
    const char* died = abort ? "aborted" : "crashed";
    if (site == CrashSite::Driver) {
        if (modes) {
            return {kExitHang, fmt::format("--- DRIVER CRASH: the driver {} ({}) {}", died, signalName, where),
                    fmt::format("--- {}the results above are complete for the modes that finished", code)};
        }
        return {
            kExitCannotTest, fmt::format("--- CANNOT TEST HERE: the driver {} ({}) {}", died, signalName, where),
            fmt::format("--- {}before the first submit of the modes under test: this revision cannot be tested", code)};
    }
    if (site == CrashSite::Repro) {
        return {kExitCannotTest, fmt::format("--- REPRO CRASHED: repro crashed ({}) {}", signalName, where),
                fmt::format("--- {}in repro's own code: a defect of repro (please report it with these lines), not a "
                            "verdict on the driver; no verdict",
                            code)};
    }
    if (abortSent) {
        return {kExitCannotTest,
                fmt::format("--- CRASHED: the repro child process was ended by a {} another process sent, {}",
                            signalName, where),
                "--- a signal from outside, not an abort the child raised: neither the driver's code nor repro's "
                "could be named, so this is no verdict on the driver"};
    }
    return {kExitCannotTest, fmt::format("--- CRASHED: the repro child process {} ({}) {}", died, signalName, where),
            fmt::format("--- {}neither the driver's code nor repro's could be named, so this is no verdict on the "
                        "driver",
                        code)};
}

}  // namespace repro
