// Verdicts that hold under every fault (issue 21, sections 4f, 5 and 6b), end to end on
// the machine's driver: signal dispositions inherited on entry (SIGCHLD ignored, SIGHUP or
// SIGINT ignored by nohup or a shell), job control (SIGTSTP to the supervisor stops its
// child; `stty tostop` and Ctrl-Z on a terminal), SIGTERM during --print-stream, the
// children's log folder of an interrupted --matrix/--triage/--watchdog-probe/
// --driver-env-sweep, documents on a full filesystem, and failed stdout writes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "terminal.hpp"

namespace {

using repro::test::contains;
using repro::test::drain;
using repro::test::ProcessResult;
using repro::test::readText;
using repro::test::runProcess;
using repro::test::runRepro;
using repro::test::TempDir;

using SteadyClock = std::chrono::steady_clock;

double secondsSince(SteadyClock::time_point start) {
    return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

// `command` under /bin/sh, with "REPRO" standing for the executable; killed after
// `limitSeconds`.
ProcessResult shell(std::string command, double limitSeconds = 120) {
    for (size_t at; (at = command.find("REPRO")) != std::string::npos;) {
        command.replace(at, 5, std::string("\"") + REPRO_EXECUTABLE + "\"");
    }
    return runProcess("/bin/sh", {"-c", command}, {}, limitSeconds);
}

// A process's state letter from /proc/PID/stat ('R', 'S', 'T', ...; '?' when it is gone).
char processState(pid_t pid) {
    const std::string stat = readText("/proc/" + std::to_string(pid) + "/stat");
    const size_t close = stat.rfind(')');
    return close == std::string::npos || close + 2 >= stat.size() ? '?' : stat[close + 2];
}

// Waits up to `seconds` for `pid` to be in state `state`; whether it got there.
bool reachesState(pid_t pid, char state, double seconds) {
    const auto start = SteadyClock::now();
    while (secondsSince(start) < seconds) {
        if (processState(pid) == state) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

// Waits up to `seconds` for `pid` to leave state `state`; whether it did.
bool leavesState(pid_t pid, char state, double seconds) {
    const auto start = SteadyClock::now();
    while (secondsSince(start) < seconds) {
        if (processState(pid) != state) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

// The first child of `pid` (its supervised child), or 0.
pid_t firstChild(pid_t pid) {
    const std::string p = std::to_string(pid);
    const std::string children = readText("/proc/" + p + "/task/" + p + "/children");
    return children.empty() ? 0 : static_cast<pid_t>(std::stol(children));
}

// repro started in the background in its own process group (as a shell's job), output to
// files in `dir`: for the tests that signal it while it runs.
class Background {
  public:
    Background(const std::vector<std::string>& args, const TempDir& dir)
        : out_((dir / "out.txt").string()), err_((dir / "err.txt").string()), start_(SteadyClock::now()) {
        std::vector<std::string> all{REPRO_EXECUTABLE};
        all.insert(all.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : all) argv.push_back(a.data());
        argv.push_back(nullptr);
        pid_ = ::fork();
        if (pid_ == 0) {
            ::setpgid(0, 0);
            const int in = ::open("/dev/null", O_RDONLY);
            const int o = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            const int e = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (in < 0 || o < 0 || e < 0 || ::dup2(in, 0) < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(127);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
        ::setpgid(pid_, pid_);
    }
    ~Background() {
        if (!ended_) {
            ::kill(-pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;

    pid_t pid() const { return pid_; }
    std::string out() const { return readText(out_); }

    // Waits up to `seconds` for stdout to contain `text`.
    bool waitForOutput(const std::string& text, double seconds) const {
        const auto start = SteadyClock::now();
        while (secondsSince(start) < seconds) {
            if (contains(out(), text)) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return false;
    }

    // Waits for the end, at most `seconds` (then SIGKILL to the group, timedOut).
    ProcessResult finish(double seconds) {
        ProcessResult r;
        int raw = 0;
        const auto start = SteadyClock::now();
        while (::waitpid(pid_, &raw, WNOHANG) == 0) {
            if (secondsSince(start) > seconds) {
                r.timedOut = true;
                ::kill(-pid_, SIGKILL);
                ::waitpid(pid_, &raw, 0);
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        ended_ = true;
        ::kill(-pid_, SIGKILL);  // anything left in its group
        r.seconds = secondsSince(start_);
        if (WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
        if (WIFSIGNALED(raw)) {
            r.signaled = true;
            r.signal = WTERMSIG(raw);
        }
        r.out = readText(out_);
        r.err = readText(err_);
        return r;
    }

  private:
    std::string out_, err_;
    SteadyClock::time_point start_;
    pid_t pid_ = -1;
    bool ended_ = false;
};

// ---- 5a, 5c: dispositions inherited on entry ------------------------------------------------

TEST(Dispositions, IgnoredSigchldOnEntryStillEndsWithTheVerdict) {
    // With SIGCHLD ignored the kernel reaps the child itself: the supervisor's waitpid
    // never saw it end and spun at 100% CPU for ever after the verdict.
    const ProcessResult r = shell("env --ignore-signal=CHLD REPRO --preset tiny -n 1 --mode split", 60);
    EXPECT_FALSE(r.timedOut) << "still running after 60 s: " << r.out << r.err;
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << r.out;
}

struct IgnoredOnEntry {
    const char* name;
    const char* wrapper;  // how the signal comes to be ignored
    const char* signal;   // the one sent
};

class IgnoredSignal : public testing::TestWithParam<IgnoredOnEntry> {};

TEST_P(IgnoredSignal, StaysIgnoredAndTheRunEndsWithItsVerdict) {
    // A sweep of fast chains; the signal lands after N=2 and must change nothing.
    TempDir dir(std::string("ignored-") + GetParam().name);
    const std::string out = (dir / "out.txt").string();
    const ProcessResult r = shell(
        std::string(GetParam().wrapper) + " REPRO --preset tiny --sweep 1..60 --mode split >'" + out +
            "' 2>&1 & pid=$!; until grep -qF -e '--- results for N=2 ---' '" + out +
            "' || ! kill -0 $pid 2>/dev/null; do sleep 0.02; done; kill -" + GetParam().signal + " $pid; wait $pid",
        300);
    const std::string text = readText(out);
    EXPECT_EQ(r.status, 0) << text;
    EXPECT_FALSE(contains(text, "INTERRUPTED")) << text;
    EXPECT_TRUE(contains(text, "--- results for N=60 ---")) << text;
}

INSTANTIATE_TEST_SUITE_P(Entry, IgnoredSignal,
                         testing::Values(IgnoredOnEntry{"nohup", "nohup", "HUP"},
                                         IgnoredOnEntry{"sigint", "env --ignore-signal=INT", "INT"}),
                         [](const testing::TestParamInfo<IgnoredOnEntry>& p) { return std::string(p.param.name); });

// ---- 5b: job control ------------------------------------------------------------------------

TEST(JobControl, SigtstpToTheSupervisorStopsTheChildAndSigcontResumesBoth) {
    TempDir dir("sigtstp");
    Background repro({"--preset", "tiny", "--sweep", "1..60", "--mode", "split"}, dir);
    ASSERT_TRUE(repro.waitForOutput("--- results for N=1 ---", 60)) << repro.out();
    const pid_t child = firstChild(repro.pid());
    ASSERT_GT(child, 0) << "no supervised child";
    ::kill(repro.pid(), SIGTSTP);
    EXPECT_TRUE(reachesState(repro.pid(), 'T', 5)) << "the supervisor did not stop: " << processState(repro.pid());
    EXPECT_TRUE(reachesState(child, 'T', 5)) << "the GPU work goes on: the child is in state " << processState(child);
    const size_t stoppedAt = repro.out().size();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_EQ(repro.out().size(), stoppedAt) << "output while stopped";
    ::kill(repro.pid(), SIGCONT);
    EXPECT_TRUE(leavesState(child, 'T', 5)) << "the child was not continued";
    const ProcessResult r = repro.finish(300);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "--- results for N=60 ---")) << r.out;
}

TEST(JobControl, OnATerminalWithTostopCtrlZStopsBothAndTheRunEnds) {
    // repro in the foreground of a pseudo-terminal with `stty tostop`: a child in a
    // process group of its own was in the background there and stopped (SIGTTOU) at its
    // first line; Ctrl-Z (the terminal's SIGTSTP to the foreground group) reached only
    // the supervisor.
    int master = -1;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
    ASSERT_GE(pid, 0) << std::strerror(errno);
    if (pid == 0) {
        termios t{};
        ::tcgetattr(STDIN_FILENO, &t);
        t.c_lflag |= TOSTOP;
        ::tcsetattr(STDIN_FILENO, TCSANOW, &t);
        ::execl(REPRO_EXECUTABLE, REPRO_EXECUTABLE, "--preset", "tiny", "--sweep", "1..60", "--mode", "split",
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    std::string seen;
    const auto start = SteadyClock::now();
    while (!contains(seen, "--- results for N=1 ---") && secondsSince(start) < 60) drain(master, seen, 0.1);
    EXPECT_TRUE(contains(seen, "--- results for N=1 ---")) << "the run stopped at its first line: " << seen;
    const pid_t child = firstChild(pid);
    EXPECT_GT(child, 0);
    const char ctrlZ = 0x1a;
    EXPECT_EQ(::write(master, &ctrlZ, 1), 1);
    EXPECT_TRUE(reachesState(pid, 'T', 5)) << processState(pid);
    if (child > 0) {
        EXPECT_TRUE(reachesState(child, 'T', 5)) << "Ctrl-Z left the child running: " << processState(child);
    }
    ::kill(pid, SIGCONT);
    int raw = 0;
    while (::waitpid(pid, &raw, WNOHANG) == 0 && secondsSince(start) < 300) drain(master, seen, 0.1);
    if (::waitpid(pid, &raw, WNOHANG) == 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &raw, 0);
        ADD_FAILURE() << "still running after 300 s: " << seen;
    }
    drain(master, seen, 0.5);
    ::close(master);
    EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << "raw status " << raw << "\n" << seen;
    EXPECT_TRUE(contains(seen, "--- results for N=60 ---")) << seen;
}

// ---- 5d: SIGTERM during --print-stream --------------------------------------------------------

TEST(PrintStream, SigtermWhileItPrintsIs143) {
    // Thousands of recorded calls: the signal lands while they are printed.
    TempDir dir("print-stream-term");
    Background repro({"--print-stream", "--preset", "small", "-n", "2000"}, dir);
    ASSERT_TRUE(repro.waitForOutput("## mode split", 60)) << repro.out();
    ::kill(repro.pid(), SIGTERM);
    const ProcessResult r = repro.finish(120);
    EXPECT_EQ(r.status, 143) << r.out.substr(r.out.size() > 2000 ? r.out.size() - 2000 : 0) << r.err;
    EXPECT_TRUE(contains(r.out + r.err, "INTERRUPTED by SIGTERM")) << r.err;
    EXPECT_FALSE(contains(r.out, "--- command stream printed; nothing was run")) << "it went on to the end";
}

// ---- 5e: the children's log folder of an interrupted run -------------------------------------

struct Interruptible {
    const char* name;
    std::vector<std::string> args;
    const char* waitFor;  // a line on stdout once children run
    const char* folder;   // its log folder's prefix
};

class InterruptedChildren : public testing::TestWithParam<Interruptible> {};

// The entries of `dir` whose names start with `prefix`.
std::vector<std::string> entriesStartingWith(const std::filesystem::path& dir, const std::string& prefix) {
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (e.path().filename().string().starts_with(prefix)) found.push_back(e.path().string());
    }
    return found;
}

ProcessResult interruptChildren(const Interruptible& p, const TempDir& tmp, const TempDir& dir, bool keep) {
    std::vector<std::string> args = p.args;
    if (keep) args.push_back("--keep-logs");
    ::setenv("TMPDIR", tmp.path().c_str(), 1);  // Background passes the environment on
    Background repro(args, dir);
    ::unsetenv("TMPDIR");
    const bool started = repro.waitForOutput(p.waitFor, 120);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(repro.pid(), SIGTERM);
    ProcessResult r = repro.finish(120);
    if (!started) r.err += "\n(the line '" + std::string(p.waitFor) + "' never came)";
    return r;
}

TEST_P(InterruptedChildren, LeaveNoLogFolderBehind) {
    TempDir tmp(std::string("tmpdir-") + GetParam().name), dir(std::string("out-") + GetParam().name);
    const ProcessResult r = interruptChildren(GetParam(), tmp, dir, false);
    EXPECT_EQ(r.status, 143) << r.out << r.err;
    EXPECT_EQ(entriesStartingWith(tmp.path(), GetParam().folder), std::vector<std::string>{}) << r.out;
}

TEST_P(InterruptedChildren, KeepLogsKeepsTheFolderAndSaysWhere) {
    TempDir tmp(std::string("tmpdir-keep-") + GetParam().name), dir(std::string("out-keep-") + GetParam().name);
    const ProcessResult r = interruptChildren(GetParam(), tmp, dir, true);
    EXPECT_EQ(r.status, 143) << r.out << r.err;
    const std::vector<std::string> kept = entriesStartingWith(tmp.path(), GetParam().folder);
    ASSERT_EQ(kept.size(), 1u) << r.out;
    EXPECT_TRUE(contains(r.out, "  logs and reports kept in " + kept.front() + " (--keep-logs)")) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Interrupted, InterruptedChildren,
    testing::Values(
        Interruptible{"matrix", {"--matrix", "--preset", "small", "-n", "3"}, "--- matrix ---", "repro-matrix-"},
        Interruptible{"triage", {"--triage", "-n", "1"}, "runs the command as given", "repro-triage-"},
        Interruptible{"watchdog_probe", {"--watchdog-probe"}, "--- watchdog probe ---", "repro-watchdog-probe-"},
        Interruptible{"driver_env_sweep",
                      {"--driver-env-sweep", "-n", "1", "--mode", "single"},
                      "--- driver settings ---",
                      "repro-driver-env-"}),
    [](const testing::TestParamInfo<Interruptible>& p) { return std::string(p.param.name); });

// ---- 4f: documents on a full filesystem -------------------------------------------------------

// A 64 KiB tmpfs mounted at DIR/fs and filled up; unmounted when the object goes. Needs
// root (CAP_SYS_ADMIN); `problem` says why it could not be made.
class FullFilesystem {
  public:
    explicit FullFilesystem(const TempDir& dir) : at_(dir / "fs") {
        std::filesystem::create_directories(at_);
        if (::geteuid() != 0) {
            problem = "not root: cannot mount a small tmpfs";
            return;
        }
        if (::mount("tmpfs", at_.c_str(), "tmpfs", 0, "size=64k") != 0) {
            problem = std::string("mount -t tmpfs -o size=64k failed: ") + std::strerror(errno);
            return;
        }
        mounted_ = true;
    }
    ~FullFilesystem() {
        if (mounted_) ::umount2(at_.c_str(), MNT_DETACH);
    }
    FullFilesystem(const FullFilesystem&) = delete;
    FullFilesystem& operator=(const FullFilesystem&) = delete;

    // Writes a filler file until the filesystem is full.
    void fill() const {
        std::ofstream filler(at_ / "filler", std::ios::binary);
        const std::string block(4096, 'x');
        for (int i = 0; i < 64 && filler; ++i) filler.write(block.data(), static_cast<std::streamsize>(block.size()));
    }
    std::filesystem::path operator/(const std::string& name) const { return at_ / name; }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& e : std::filesystem::directory_iterator(at_)) out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }
    std::string problem;

  private:
    std::filesystem::path at_;
    bool mounted_ = false;
};

TEST(FullFilesystem, OutputKeepsTheOldFileOrLeavesNoneAndSaysWhy) {
    TempDir dir("full-fs");
    FullFilesystem fs(dir);
    if (!fs.problem.empty()) GTEST_SKIP() << fs.problem;
    std::ofstream(fs / "old.json") << "old\n";
    fs.fill();
    for (const char* name : {"old.json", "new.json"}) {
        const std::string path = (fs / name).string();
        const ProcessResult r = runRepro({"--preset", "tiny", "-n", "1", "--mode", "split", "--json", path}, {}, 120);
        EXPECT_EQ(r.status, 1) << r.out << r.err;
        EXPECT_TRUE(
            contains(r.err, "repro: --json: cannot write the JSON report to '" + path + "' (No space left on device)"))
            << r.err;
        EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << "the results are printed: " << r.out;
    }
    EXPECT_EQ(readText(fs / "old.json"), "old\n") << "the old report is kept whole";
    EXPECT_EQ(fs.names(), (std::vector<std::string>{"filler", "old.json"})) << "no truncated or temporary file";
}

TEST(FullFilesystem, TheProbeDocumentAndTheDumpsSayWhy) {
    TempDir dir("full-fs-documents");
    FullFilesystem fs(dir);
    if (!fs.problem.empty()) GTEST_SKIP() << fs.problem;
    fs.fill();
    const std::string doc = (fs / "probe.json").string();
    const ProcessResult probe = runRepro({"--watchdog-probe", "--preset", "tiny", "--json", doc}, {}, 300);
    EXPECT_EQ(probe.status, 1) << probe.out << probe.err;
    EXPECT_TRUE(contains(probe.err, "repro: --json: cannot write the watchdog probe document to '" + doc +
                                        "' (No space left on device)"))
        << probe.err;
    // --dump-dir streams its raw files; a failed one says why.
    const ProcessResult dump =
        runRepro({"--preset", "tiny", "-n", "1", "--mode", "split", "--dump-dir", (fs / "d").string()}, {}, 120);
    EXPECT_TRUE(contains(dump.err, "repro: --dump-dir: could not write '" + (fs / "d" / "split.f32").string() +
                                       "' (No space left on device)"))
        << dump.err;
    EXPECT_EQ(fs.names(), (std::vector<std::string>{"d", "filler"})) << "no document, no temporary file";
}

// ---- 6b: failed stdout writes -----------------------------------------------------------------

TEST(UnwritableStreams, EveryModeSaysTheReportWasLost) {
    for (const std::string& command : {std::string("REPRO --list-devices > /dev/full"),
                                       std::string("REPRO --list-devices --format markdown > /dev/full"),
                                       std::string("REPRO --matrix --preset tiny -n 2 > /dev/full"),
                                       std::string("REPRO --triage --preset tiny -n 2 > /dev/full"),
                                       std::string("REPRO --watchdog-probe --preset tiny > /dev/full")}) {
        const ProcessResult r = shell(command, 300);
        EXPECT_EQ(r.status, 1) << command << "\n" << r.err;
        EXPECT_TRUE(contains(r.err, "repro: the report could not be written to stdout\n")) << command << "\n" << r.err;
    }
}

TEST(ListDevices, MarkdownIsATableOnStdout) {
    const ProcessResult r = runRepro({"--list-devices", "--format", "markdown"}, {}, 60);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "### repro --list-devices\n\n| index | device |")) << r.out;
    EXPECT_TRUE(std::regex_search(
        r.out, std::regex(R"re(\n\| 0 \| [^|]+ \| \w+ \| [0-9.]+ \| [^|]+ \| (usable|NOT usable))re")))
        << r.out;
}

}  // namespace
