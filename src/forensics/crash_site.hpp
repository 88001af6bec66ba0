// Where a crash of the supervised child happened: in the driver's code, in repro's own, or
// somewhere neither can be named (docs/contract.md, "Verdict and exit status"). The child
// installs a handler for SIGSEGV, SIGBUS, SIGILL and SIGFPE that finds the faulting
// instruction's mapping in /proc/self/maps and sends one line to the parent before the
// signal ends it, and one for SIGABRT that tells an abort the child raised from one another
// process sent; the parent turns that line into the verdict. Vulkan-free.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace repro {

// Whose code faulted.
//  - Driver: code mapped after the child started, that is by the Vulkan loader (the loader,
//    its layers, the driver and the libraries they load, or code a driver compiled at run
//    time into anonymous executable memory);
//  - Repro: repro's own executable;
//  - Unknown: a library loaded before Vulkan (libc, libstdc++: either side may have called
//    it), no executable mapping at the address, or a signal another process sent.
enum class CrashSite { Driver, Repro, Unknown };
std::string_view name(CrashSite site);  // "driver", "repro", "unknown"
std::optional<CrashSite> parseCrashSite(std::string_view text);

// One line of /proc/<pid>/maps: "7f1c2a000000-7f1c2a021000 r-xp 00000000 08:01 42 /usr/lib/x.so".
struct MapsEntry {
    uintptr_t begin = 0;  // [begin, end), bytes
    uintptr_t end = 0;
    bool executable = false;  // 'x' in the permissions
    std::string_view path;    // "" for an anonymous mapping; points into the line
};
// nullopt for a line that is not of that shape.
std::optional<MapsEntry> parseMapsLine(std::string_view line);

// An executable mapping of the child as it started, before any Vulkan library was loaded.
struct CodeRange {
    uintptr_t begin = 0;
    uintptr_t end = 0;
    bool reproExecutable = false;  // a mapping of /proc/self/exe
};

// The site of faulting code at `address`. `mapping`: the mapping that holds it at the time
// of the fault (nullopt: none); `startup`: the executable mappings at the child's start.
CrashSite classifyCodeAddress(uintptr_t address, const std::optional<MapsEntry>& mapping,
                              std::span<const CodeRange> startup);

// What the child's handler sent: the signal, the site, the code address (hexadecimal, as
// "0x7f1c2a001234") and the mapping's file name ("libvulkan_lvp.so"; "" for anonymous
// memory or no mapping).
struct CrashReport {
    int signal = 0;
    CrashSite site = CrashSite::Unknown;
    std::string address;
    std::string file;
};

// The child's side: records the executable mappings as they are now, then installs the
// handler, which writes "C\t<signal>\t<site>\t<address>\t<file>\n" to `fd` and lets the
// signal end the process as it would have (the previous disposition runs next). For SIGABRT
// the handler writes that line only when another process sent the signal (its siginfo's
// si_pid is not the child's own: abort(3) raises it with the child's pid), as
// "C\t6\tunknown\t0x0\t". Call in
// the child before the first Vulkan call. Returns false, having installed nothing, when
// /proc/self/maps cannot be read.
bool installCrashReporter(int fd);

// The verdict for a child that died of `signal` (not stalled, not interrupted): its exit
// status and its line. `report`: what the handler sent, if anything; `inCall`: the child
// was inside a watched Vulkan call; `modes`: a mode under test had begun; `where`: "in
// vkQueueSubmit during mode multipass, ..." (the supervisor's words). A driver's crash or
// abort (a SIGABRT the child raised inside a watched call) is 3 during the modes and 125
// before them (SPEC §5); repro's own crash, a crash that cannot be placed, and a SIGABRT
// another process sent (a `report` of SIGABRT) are 125 and never called a hang. A driver's crash during
// the modes is headed "--- DRIVER CRASH" (status 3, as a hang, but worded as a crash).
struct CrashVerdict {
    int status = 0;
    std::string line;    // the verdict: what crashed, the signal and where
    std::string detail;  // the line after it: "--- code at 0x... in FILE; " and what it means
};
CrashVerdict crashVerdict(int signal, const std::optional<CrashReport>& report, bool inCall, bool modes,
                          std::string_view where, std::string_view signalName);

}  // namespace repro
