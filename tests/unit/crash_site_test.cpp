// Where a crash of the supervised child happened, and the verdict it makes
// (src/forensics/crash_site.hpp, src/children/child_protocol.hpp).
#include "forensics/crash_site.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include "children/child_protocol.hpp"
#include "report/verdict.hpp"

namespace repro {
namespace {

TEST(CrashSite, ParsesMapsLines) {
    const auto lib =
        parseMapsLine("7f1c2a000000-7f1c2a021000 r-xp 00001000 08:01 42       /usr/lib/x86_64/libvulkan_lvp.so");
    ASSERT_TRUE(lib);
    EXPECT_EQ(lib->begin, 0x7f1c2a000000u);
    EXPECT_EQ(lib->end, 0x7f1c2a021000u);
    EXPECT_TRUE(lib->executable);
    EXPECT_EQ(lib->path, "/usr/lib/x86_64/libvulkan_lvp.so");
    const auto anonymous = parseMapsLine("7ffd1000-7ffd2000 rw-p 00000000 00:00 0");
    ASSERT_TRUE(anonymous);
    EXPECT_FALSE(anonymous->executable);
    EXPECT_EQ(anonymous->path, "");
    const auto spaces = parseMapsLine("1000-2000 r-xp 00000000 08:01 7 /tmp/a b (deleted)");
    ASSERT_TRUE(spaces);
    EXPECT_EQ(spaces->path, "/tmp/a b (deleted)");
    for (const char* bad : {"", "garbage", "1000-2000", "2000-1000 r-xp 0 0 0", "1000-2000 r-x 0 0 0 /x",
                            "1000-zz r-xp 0 0 0", "1000-2000 r-xp 0 0"}) {
        EXPECT_FALSE(parseMapsLine(bad)) << bad;
    }
}

TEST(CrashSite, DriverCodeIsCodeMappedAfterTheStartReproItsExecutableAndTheRestUnknown) {
    const std::vector<CodeRange> startup = {{0x1000, 0x2000, true}, {0x7000, 0x8000, false}};
    const MapsEntry exe{.begin = 0x1000, .end = 0x2000, .executable = true, .path = "/bin/repro"};
    const MapsEntry libc{.begin = 0x7000, .end = 0x8000, .executable = true, .path = "/lib/libc.so.6"};
    const MapsEntry driver{.begin = 0x9000, .end = 0xa000, .executable = true, .path = "/lib/libvulkan_radeon.so"};
    const MapsEntry jit{.begin = 0xb000, .end = 0xc000, .executable = true, .path = ""};
    const MapsEntry data{.begin = 0xd000, .end = 0xe000, .executable = false, .path = "/lib/libvulkan_radeon.so"};
    EXPECT_EQ(classifyCodeAddress(0x1234, exe, startup), CrashSite::Repro);
    EXPECT_EQ(classifyCodeAddress(0x7234, libc, startup), CrashSite::Unknown);
    EXPECT_EQ(classifyCodeAddress(0x9234, driver, startup), CrashSite::Driver);
    EXPECT_EQ(classifyCodeAddress(0xb234, jit, startup), CrashSite::Driver);
    EXPECT_EQ(classifyCodeAddress(0xd234, data, startup), CrashSite::Unknown);
    EXPECT_EQ(classifyCodeAddress(0, std::nullopt, startup), CrashSite::Unknown);
    EXPECT_EQ(classifyCodeAddress(0x5000, driver, startup), CrashSite::Unknown) << "outside the mapping given";
}

TEST(CrashSite, TheProtocolCarriesTheHandlersLine) {
    ChildProtocol p;
    p.feed("S\tmodes\tmultipass\tsubmit 1 of 1\n", 1.0);
    p.feed("\nC\t11\trepro\t0x55d0c0ffee\trepro\n", 2.0);
    ASSERT_TRUE(p.state().crash);
    EXPECT_EQ(p.state().crash->signal, SIGSEGV);
    EXPECT_EQ(p.state().crash->site, CrashSite::Repro);
    EXPECT_EQ(p.state().crash->address, "0x55d0c0ffee");
    EXPECT_EQ(p.state().crash->file, "repro");
    ChildProtocol bad;
    bad.feed("C\t11\tsomewhere\t0x1\tx\nC\t11\tdriver\nC\n", 1.0);
    EXPECT_FALSE(bad.state().crash);
}

TEST(CrashSite, OnlyTheDriversOwnCrashIsAHang) {
    const std::string where = "in vkQueueSubmit during mode multipass, submit 1 of 1";
    const CrashReport driver{.signal = SIGSEGV, .site = CrashSite::Driver, .address = "0x7f01", .file = "libx.so"};
    const CrashVerdict d = crashVerdict(SIGSEGV, driver, true, true, where, "SIGSEGV");
    EXPECT_EQ(d.status, kExitHang);
    EXPECT_EQ(d.line,
              "--- DRIVER CRASH: the driver crashed (SIGSEGV) in vkQueueSubmit during mode multipass, submit 1 of 1");
    EXPECT_EQ(d.detail, "--- code at 0x7f01 in libx.so; the results above are complete for the modes that finished");
    EXPECT_EQ(d.line.find("HANG"), std::string::npos) << "a crash is worded as a crash: " << d.line;
    EXPECT_EQ(crashVerdict(SIGSEGV, driver, true, false, where, "SIGSEGV").status, kExitCannotTest);
    // repro's own code, inside a watched call or not: never a hang, never a verdict.
    for (const bool inCall : {true, false}) {
        const CrashReport own{.signal = SIGSEGV, .site = CrashSite::Repro, .address = "0x0", .file = ""};
        const CrashVerdict r = crashVerdict(SIGSEGV, own, inCall, true, where, "SIGSEGV");
        EXPECT_EQ(r.status, kExitCannotTest);
        EXPECT_TRUE(r.line.starts_with("--- REPRO CRASHED: repro crashed (SIGSEGV) in vkQueueSubmit")) << r.line;
        EXPECT_NE(r.detail.find("a defect of repro (please report it"), std::string::npos) << r.detail;
        EXPECT_EQ(r.line.find("HANG"), std::string::npos) << r.line;
    }
    // Neither side named (libc, a signal sent from outside, no report at all): "crashed", 125.
    const CrashReport libc{.signal = SIGSEGV, .site = CrashSite::Unknown, .address = "0x7f02", .file = "libc.so.6"};
    for (const auto& report : {std::optional<CrashReport>(libc), std::optional<CrashReport>()}) {
        const CrashVerdict u = crashVerdict(SIGSEGV, report, true, true, where, "SIGSEGV");
        EXPECT_EQ(u.status, kExitCannotTest);
        EXPECT_TRUE(u.line.starts_with("--- CRASHED: the repro child process crashed (SIGSEGV)")) << u.line;
    }
    // An abort inside a driver call is the driver's; outside any call it cannot be placed.
    EXPECT_EQ(crashVerdict(SIGABRT, std::nullopt, true, true, where, "SIGABRT").status, kExitHang);
    EXPECT_EQ(crashVerdict(SIGABRT, std::nullopt, false, true, "outside any Vulkan call, during x", "SIGABRT").status,
              kExitCannotTest);
}

TEST(CrashSite, AnAbortAnotherProcessSentIsNeverTheDrivers) {
    const std::string where = "in vkWaitSemaphores during mode split, submit 7 of 40 (step 4 conv-T)";
    // What the handler sends for it, through the protocol, to the verdict.
    ChildProtocol p;
    p.feed("S\tmodes\tsplit\tsubmit 7 of 40\n\nC\t6\tunknown\t0x0\t\n", 1.0);
    ASSERT_TRUE(p.state().crash);
    for (const bool modes : {true, false}) {
        const CrashVerdict v = crashVerdict(SIGABRT, p.state().crash, /*inCall=*/true, modes, where, "SIGABRT");
        EXPECT_EQ(v.status, kExitCannotTest);
        EXPECT_EQ(v.line, "--- CRASHED: the repro child process was ended by a SIGABRT another process sent, " + where);
        EXPECT_EQ(v.detail,
                  "--- a signal from outside, not an abort the child raised: neither the driver's code nor repro's "
                  "could be named, so this is no verdict on the driver");
    }
    // The child's own abort inside a driver call (no report) stays the driver's.
    const CrashVerdict own = crashVerdict(SIGABRT, std::nullopt, true, true, where, "SIGABRT");
    EXPECT_EQ(own.status, kExitHang);
    EXPECT_EQ(own.line, "--- DRIVER CRASH: the driver aborted (SIGABRT) " + where);
}

// Runs `crash` in a forked child with the reporter installed; returns what the handler sent.
template <typename Crash>
std::string reportedBy(Crash crash) {
    int fds[2];
    if (::pipe(fds) != 0) return "no pipe";
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(fds[0]);
        if (!installCrashReporter(fds[1])) ::_exit(3);
        crash();
        ::_exit(4);
    }
    ::close(fds[1]);
    std::string text;
    char buffer[512];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (WIFEXITED(status)) text += "exited " + std::to_string(WEXITSTATUS(status));
    return text;
}

// This test program stands in for repro's executable: code in it is "repro".
TEST(CrashSite, TheHandlerPlacesACallThroughANullPointerAndABadWriteInTheExecutable) {
    const std::string self = [] {
        char exe[4096];
        const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
        const std::string path(exe, n > 0 ? static_cast<size_t>(n) : 0);
        return path.substr(path.rfind('/') + 1);
    }();
    const std::string nullCall = reportedBy([] {
        void (*volatile missing)() = nullptr;  // as a function pointer the driver did not provide
        missing();
    });
    EXPECT_TRUE(nullCall.starts_with("\nC\t11\trepro\t0x")) << nullCall;
    EXPECT_TRUE(nullCall.ends_with("\t" + self + "\n")) << nullCall;
    const std::string badWrite = reportedBy([] {
        void* page = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        *static_cast<volatile int*>(page) = 1;
    });
    EXPECT_TRUE(badWrite.starts_with("\nC\t11\trepro\t0x")) << badWrite;
    const std::string sent = reportedBy([] { ::kill(::getpid(), SIGBUS); });
    EXPECT_TRUE(sent.starts_with("\nC\t7\tunknown\t0x0\t\n")) << "a signal sent is placed nowhere: " << sent;
}

// abort(3) raises SIGABRT with the process's own pid: the handler reports nothing, so the
// parent's rule (inside a watched driver call: the driver's) decides. A SIGABRT another
// process sends (kill -ABRT, timeout -s ABRT) is reported as a signal sent.
TEST(CrashSite, TheHandlerReportsOnlyAnAbortSentByAnotherProcess) {
    EXPECT_EQ(reportedBy([] { std::abort(); }), "") << "abort() in the child is its own";
    EXPECT_EQ(reportedBy([] { ::raise(SIGABRT); }), "");
    const std::string sent = reportedBy([] {
        const pid_t self = ::getpid();
        const pid_t other = ::fork();
        if (other == 0) {
            ::kill(self, SIGABRT);
            ::_exit(0);
        }
        ::waitpid(other, nullptr, 0);
        for (;;) ::pause();  // until the signal ends this process
    });
    EXPECT_EQ(sent, "\nC\t6\tunknown\t0x0\t\n");
}

}  // namespace
}  // namespace repro
