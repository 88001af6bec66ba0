// End-to-end tests of --triage and --watchdog-probe through the simulated driver
// (tests/simdriver): each simulated cause must be named as that cause, or left
// undetermined with what is missing, and the probe must show what a kill looks like; on a
// fake amdgpu host (REPRO_TEST_ROOT) with a known job timeout too, where --matrix adds its
// --split-ms rows.
// Every run is bounded in time (bounded_process.hpp).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include <fcntl.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bounded_process.hpp"
#include "process.hpp"

#if !defined(REPRO_EXECUTABLE) || !defined(REPRO_SIMDRIVER_LAYER_DIR)
#error "REPRO_EXECUTABLE and REPRO_SIMDRIVER_LAYER_DIR must be defined"
#endif

namespace {

using repro::test::BoundedResult;
using repro::test::contains;
using repro::test::describeEnd;
using repro::test::runBounded;

// A fresh folder with an empty kernel-log file for the simulated watchdog (it must exist
// before the run) and for repro's kernel-log seam REPRO_TEST_KMSG.
struct Scratch {
    std::filesystem::path dir, kmsg;
    explicit Scratch(const std::string& name)
        : dir(std::filesystem::temp_directory_path() / ("repro-triage-test-" + std::to_string(getpid()) + "-" + name)),
          kmsg(dir / "kmsg") {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        std::ofstream(kmsg).close();
    }
    ~Scratch() { std::filesystem::remove_all(dir); }
};

// repro with `args` through the simulated driver set to `simulate`, its children too (they
// inherit the environment), the kernel log read from `s.kmsg`.
BoundedResult simulated(const std::vector<std::string>& args, const std::string& simulate, const Scratch& s,
                        const std::vector<std::string>& extraEnv = {}) {
    std::vector<std::string> env = {std::string("VK_ADD_LAYER_PATH=") + REPRO_SIMDRIVER_LAYER_DIR,
                                    "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate",
                                    "REPRO_SIMULATE=" + simulate,
                                    "REPRO_SIMULATE_TRACE=",
                                    "REPRO_TEST_KMSG=" + s.kmsg.string(),
                                    "TMPDIR=" + s.dir.string()};
    env.insert(env.end(), extraEnv.begin(), extraEnv.end());
    return runBounded(REPRO_EXECUTABLE, args, env, 240);
}

BoundedResult plain(const std::vector<std::string>& args, const Scratch& s) {
    return runBounded(
        REPRO_EXECUTABLE, args,
        {"VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE=", "TMPDIR=" + s.dir.string()}, 240);
}

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// `md` starts with `title` and has every heading of RADV's issue template, in its order,
// with the build and the command a reader reruns, and no path of the test's scratch folder.
void expectRadvTemplate(const std::string& md, const std::string& title) {
    EXPECT_TRUE(md.starts_with(title)) << md.substr(0, 200);
    size_t at = 0;
    for (const char* heading :
         {"\n#### Description\n\n", "\n#### System information\n\n- GPU: ", "\n#### Steps to reproduce\n\n",
          "cmake --preset release && cmake --build --preset release", "\n#### Results\n\n",
          "\n#### Does RADV_DEBUG=llvm fix it?\n\n", "\n#### Regression\n\n", "\n#### Log files\n\n"}) {
        const size_t found = md.find(heading, at);
        EXPECT_NE(found, std::string::npos) << "missing, or out of order: " << heading << "\n" << md;
        if (found != std::string::npos) at = found;
    }
    EXPECT_FALSE(contains(md, std::filesystem::temp_directory_path().string() + "/repro-triage-test")) << md;
}

// The children's folder the run named, which must be gone afterwards (no --keep-logs).
void expectLogFolderRemoved(const BoundedResult& r) {
    const std::string all = r.err + r.out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(all, m, std::regex(R"(logs and JSON reports in (\S+) \(removed)"))) << r.out;
    EXPECT_FALSE(std::filesystem::exists(m[1].str())) << m[1].str();
}

// us-per-wg=12500: a tiny conv-T (8 workgroups) takes 100 ms, a slice (2) 25 ms; at N=5 one
// submit of the chain takes 625 ms, past the 500 ms timeout, while split's stay far below.
constexpr const char* kSoftWatchdog = "identity;watchdog:timeout=500,us-per-wg=12500,kmsg=";

TEST(Triage, SoftWatchdogKillConcludesTheJobTimeoutWithItsKernelLine) {
    const Scratch s("watchdog");
    const auto doc = s.dir / "triage.json";
    const auto md = s.dir / "triage.md";
    const BoundedResult r = simulated(
        {"--triage", "--preset", "tiny", "-n", "5", "--json", doc.string(), "--format", "markdown", "-o", md.string()},
        kSoftWatchdog + s.kmsg.string(), s);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- conclusion: the kernel's job timeout (H3)")) << r.out;
    EXPECT_TRUE(contains(r.out, "kernel log 'ring gfx_0.0.0 timeout, but soft recovered'")) << r.out;
    // The one-step control with as much work and 1/N of the bytes is killed too: not H4.
    EXPECT_TRUE(
        std::regex_search(r.out, std::regex(R"(H4  n=1 dispatch-repeat=10 +multipass killed \(exit 2\) +rules out)")))
        << r.out;
    EXPECT_TRUE(
        std::regex_search(r.out, std::regex(R"(H2  submit-every=2 host-wait +multipass ok \(exit 0\) +supports)")))
        << r.out;
    EXPECT_TRUE(contains(r.out, "H2 state that drains only at a submit boundary: no evidence")) << r.out;
    // split's per-dispatch CPU check, read from that child's report.
    EXPECT_TRUE(contains(r.out,
                         "H5 the shader compiler: rules out (every dispatch of split passes the per-dispatch "
                         "CPU check)"))
        << r.out;
    EXPECT_FALSE(contains(r.out, "conclusion: a synchronization bug")) << r.out;
    // The simulated RADV runs the RADV_DEBUG=llvm child: the template's question is answered.
    EXPECT_TRUE(contains(r.out, "Does it happen with RADV_DEBUG=llvm? yes: with RADV_DEBUG=llvm it is still")) << r.out;
    // The Markdown document (-o, --format markdown) follows RADV's template and answers there.
    expectRadvTemplate(readFile(md), "### repro --triage: the kernel's job timeout");
    EXPECT_TRUE(contains(readFile(md), "#### Does RADV_DEBUG=llvm fix it?\n\nyes: with RADV_DEBUG=llvm it is still"))
        << readFile(md);
    std::ifstream in(doc);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    ASSERT_TRUE(j.is_object()) << "no JSON document at " << doc;
    EXPECT_EQ(j["schema"], "repro-triage");
    EXPECT_EQ(j["conclusion"]["kind"], "job_timeout");
    EXPECT_EQ(j["exit_status"], 2);
    EXPECT_EQ(j["hypotheses"][2]["finding"], "supports");
    expectLogFolderRemoved(r);
}

TEST(Triage, StaleInputIsASynchronizationBugNotTheWatchdog) {
    const Scratch s("stale");
    const BoundedResult r = simulated({"--triage", "--preset", "tiny", "-n", "4", "--format", "markdown"},
                                      "identity;clock:us-per-wg=1,ms-per-dispatch=100;stale:dispatch=3", s);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, "--- conclusion: a synchronization bug (the baseline's own evidence")) << r.err;
    EXPECT_TRUE(contains(r.err, "the submit ran its full predicted time")) << r.err;
    EXPECT_TRUE(contains(r.err, "H3 the kernel's job watchdog: rules out")) << r.err;
    EXPECT_FALSE(contains(r.err, "conclusion: the kernel's job timeout")) << r.err;
    // --format markdown: one block on stdout, headed by the conclusion.
    EXPECT_TRUE(r.out.starts_with("### repro --triage: a synchronization bug")) << r.out;
    EXPECT_TRUE(contains(r.out, "| H3 | baseline's cause (multipass) | synchronization | rules out |")) << r.out;
}

// The seed bug on lavapipe's real, unmeasurably short times: a submit boundary fixes it, but
// nothing says whether the long submit did its work, so no cause is named.
TEST(Triage, SeedBugWithoutKernelLinesIsUndeterminedAndSaysWhatIsMissing) {
    const Scratch s("seed-bug");
    const BoundedResult r = simulated({"--triage", "--preset", "tiny", "-n", "4"}, "identity;seed-bug:dispatches=4", s);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "--- conclusion: undetermined: a submit boundary makes it correct (H2); missing: "
                         "evidence that the long submit did all its work"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "a prediction above the host's timing margin")) << r.out;
    EXPECT_FALSE(contains(r.out, "conclusion: the kernel's job timeout")) << r.out;
    EXPECT_FALSE(contains(r.out, "conclusion: a synchronization bug")) << r.out;
}

TEST(Triage, PlainLavapipeIsNotReproducedAndRunsNoExperiments) {
    const Scratch s("plain");
    const BoundedResult r = plain({"--triage", "--preset", "tiny", "-n", "2", "--keep-logs"}, s);
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- conclusion: not reproduced; nothing to triage")) << r.out;
    EXPECT_FALSE(contains(r.out, "barrier=full")) << r.out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(logs and reports kept in (\S+) \(--keep-logs\))"))) << r.out;
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(m[1].str()) / "01-baseline.log")) << m[1].str();
}

// A positive control (--drop-dispatch) makes every run wrong: the experiments that cannot
// take it are not run with a reason, never children that fail with a usage error.
TEST(Triage, APositiveControlSkipsTheExperimentsThatCannotTakeIt) {
    const Scratch s("control");
    const BoundedResult r = plain({"--triage", "--preset", "tiny", "-n", "2", "--drop-dispatch", "3"}, s);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_FALSE(contains(r.out, "usage error")) << r.out;
    EXPECT_TRUE(contains(r.out, "split takes no --drop-dispatch")) << r.out;
    EXPECT_TRUE(contains(r.out, "--drop-dispatch 3 is past the 2 dispatches of one step")) << r.out;
}

// A hard kill loses the device: exit 3, and the cause still names the job timeout from the
// kernel's lines (a hung mode's output is unknown, not correct).
TEST(Triage, HardWatchdogKillIsAHangWhoseCauseIsTheJobTimeout) {
    const Scratch s("hard");
    const BoundedResult r =
        simulated({"--preset", "tiny", "-n", "5", "--mode", "all"},
                  "identity;watchdog:timeout=500,us-per-wg=12500,recovery=hard,kmsg=" + s.kmsg.string(), s);
    EXPECT_EQ(r.status, 3) << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=multipass cause: the kernel's job timeout")) << r.out;
    EXPECT_TRUE(contains(r.out, "'ring gfx_0.0.0 timeout, signaled seq=")) << r.out;
    // a reset after repro's own timeout: guilty of a hard recovery, lost at the wait, not the canary
    EXPECT_TRUE(contains(r.out, "evidence: recovery: hard")) << r.out;
    EXPECT_FALSE(contains(r.out, "at repro's canary")) << r.out;
    EXPECT_FALSE(contains(r.out, "cause: none (the output is correct)")) << r.out;
}

// A device loss with no kernel record: no cause is guessed.
TEST(Triage, DeviceLossWithoutAKernelRecordIsUndetermined) {
    const Scratch s("lost");
    const BoundedResult r = simulated({"--preset", "tiny", "-n", "3", "--mode", "all"}, "lost:vkWaitSemaphores:9", s);
    EXPECT_EQ(r.status, 3) << shown(r);
    EXPECT_TRUE(
        contains(r.out, "mode=multipass cause undetermined: the mode lost the device without a job-timeout record"))
        << r.out;
    EXPECT_FALSE(contains(r.out, "cause: none (the output is correct)")) << r.out;
}

// The processes whose command line mentions `text` (the children name their report there).
std::vector<pid_t> processesMentioning(const std::string& text) {
    std::vector<pid_t> out;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in(entry.path() / "cmdline", std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        if (ss.str().find(text) != std::string::npos) out.push_back(static_cast<pid_t>(std::stoi(name)));
    }
    return out;
}

// Killing repro (SIGKILL: no handler runs) must take its triage children with it. Each
// simulated dispatch takes a second, so a child left behind would still be running
// after the 3 s this allows.
TEST(Triage, ChildrenDieWithTheParent) {
    const Scratch s("orphans");
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::setenv("VK_ADD_LAYER_PATH", REPRO_SIMDRIVER_LAYER_DIR, 1);
        ::setenv("VK_INSTANCE_LAYERS", "VK_LAYER_REPRO_simulate", 1);
        ::setenv("REPRO_SIMULATE", "identity;clock:us-per-wg=1,ms-per-dispatch=1000", 1);
        ::setenv("REPRO_TEST_KMSG", s.kmsg.string().c_str(), 1);
        ::setenv("TMPDIR", s.dir.string().c_str(), 1);
        const int devNull = ::open("/dev/null", O_WRONLY);
        ::dup2(devNull, STDOUT_FILENO);
        ::dup2(devNull, STDERR_FILENO);
        ::execl(REPRO_EXECUTABLE, REPRO_EXECUTABLE, "--triage", "--preset", "tiny", "-n", "5",
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const std::string marker = (s.dir / "repro-triage-").string();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (processesMentioning(marker).empty() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const bool sawChild = !processesMentioning(marker).empty();
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(sawChild) << "no triage child appeared within 60 s";
    const auto gone = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (!processesMentioning(marker).empty() && std::chrono::steady_clock::now() < gone) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(processesMentioning(marker).empty()) << "a child outlived its parent";
}

// repro `args` through the slow simulated clock (a second a dispatch), its output to
// /dev/null; once a triage or probe child runs, `signals` SIGINTs 300 ms apart. Returns the
// exit status (-1: not ended within 60 s, then killed).
int interruptedSlowRun(const Scratch& s, const std::vector<std::string>& args, int signals) {
    const pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        ::setenv("VK_ADD_LAYER_PATH", REPRO_SIMDRIVER_LAYER_DIR, 1);
        ::setenv("VK_INSTANCE_LAYERS", "VK_LAYER_REPRO_simulate", 1);
        ::setenv("REPRO_SIMULATE", "identity;clock:us-per-wg=1,ms-per-dispatch=1000", 1);
        ::setenv("REPRO_TEST_KMSG", s.kmsg.string().c_str(), 1);
        ::setenv("TMPDIR", s.dir.string().c_str(), 1);
        const int devNull = ::open("/dev/null", O_WRONLY);
        ::dup2(devNull, STDOUT_FILENO);
        ::dup2(devNull, STDERR_FILENO);
        std::vector<char*> argv{const_cast<char*>(REPRO_EXECUTABLE)};
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(REPRO_EXECUTABLE, argv.data());
        ::_exit(127);
    }
    const std::string marker = (s.dir / "repro-").string();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (processesMentioning(marker).empty() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    for (int i = 0; i < signals; ++i) {
        if (i) std::this_thread::sleep_for(std::chrono::milliseconds(300));
        ::kill(pid, SIGINT);
    }
    deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) != pid) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

nlohmann::json readDocument(const std::filesystem::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in, nullptr, false);
}

// Issue 21, 4e: the first SIGINT ends --triage with the document of what ran, marked
// interrupted, and no verdict.
TEST(Triage, AnInterruptWritesTheDocumentOfWhatRanMarkedInterrupted) {
    const Scratch s("interrupt-doc");
    const auto doc = s.dir / "triage.json";
    const int status = interruptedSlowRun(s, {"--triage", "--preset", "tiny", "-n", "5", "--json", doc.string()}, 1);
    EXPECT_EQ(status, 130);
    const nlohmann::json j = readDocument(doc);
    ASSERT_TRUE(j.is_object()) << "no triage document at " << doc;
    EXPECT_EQ(j["schema"], "repro-triage") << j.dump(2);
    EXPECT_EQ(j["interrupted"], true) << j.dump(2);
    EXPECT_EQ(j["exit_status"], 130) << j.dump(2);
    EXPECT_EQ(j["chain_length"], 5) << j.dump(2);
    EXPECT_TRUE(contains(j["conclusion"]["line"].get<std::string>(), "interrupted by SIGINT")) << j.dump(2);
}

TEST(WatchdogProbe, AnInterruptWritesTheDocumentOfWhatRanMarkedInterrupted) {
    const Scratch s("probe-interrupt-doc");
    const auto doc = s.dir / "probe.json";
    const int status = interruptedSlowRun(s, {"--watchdog-probe", "--preset", "tiny", "--json", doc.string()}, 1);
    EXPECT_EQ(status, 130);
    const nlohmann::json j = readDocument(doc);
    ASSERT_TRUE(j.is_object()) << "no probe document at " << doc;
    EXPECT_EQ(j["schema"], "repro-watchdog-probe") << j.dump(2);
    EXPECT_EQ(j["interrupted"], true) << j.dump(2);
    EXPECT_EQ(j["result"], "not run") << j.dump(2);
    EXPECT_TRUE(contains(j["verdict"].get<std::string>(), "interrupted by SIGINT")) << j.dump(2);
}

// A second SIGINT (the hostile-input probe's N7d/N7f: 20-300 ms after the first) ends the
// row at once, and the triage still writes its document of what ran and removes its log
// folder (it wrote none and left the folder in TMPDIR before).
TEST(Triage, ASecondInterruptStillWritesTheDocumentAndRemovesTheLogFolder) {
    const Scratch s("interrupt-twice");
    const auto doc = s.dir / "triage.json";
    const int status = interruptedSlowRun(s, {"--triage", "--preset", "tiny", "-n", "5", "--json", doc.string()}, 2);
    EXPECT_EQ(status, 130);
    const nlohmann::json j = readDocument(doc);
    ASSERT_TRUE(j.is_object()) << "no triage document at " << doc;
    EXPECT_EQ(j["schema"], "repro-triage") << j.dump(2);
    EXPECT_EQ(j["interrupted"], true) << j.dump(2);
    EXPECT_EQ(j["exit_status"], 130) << j.dump(2);
    for (const auto& entry : std::filesystem::directory_iterator(s.dir)) {
        EXPECT_FALSE(entry.path().filename().string().starts_with("repro-")) << "left in TMPDIR: " << entry.path();
    }
}

// The host the simulated RADV device sits in, as repro's test seam REPRO_TEST_ROOT shows it
// /proc and /sys: Linux 6.19, amdgpu's lockup_timeout "500" (one value: every queue, on 6.19
// and later), and card0 at the simulated device's PCI address, bound to amdgpu. The queue's
// job timeout is then known, 500 ms, as the original report's machine knew its 2 s one.
struct FakeAmdgpuHost {
    std::filesystem::path root;
    // `lockupTimeout`: amdgpu's lockup_timeout parameter, milliseconds.
    explicit FakeAmdgpuHost(const Scratch& s, const std::string& lockupTimeout = "500") : root(s.dir / "root") {
        namespace fs = std::filesystem;
        auto write = [&](const std::string& path, const std::string& text) {
            fs::create_directories((root / path).parent_path());
            std::ofstream(root / path) << text;
        };
        write("proc/sys/kernel/osrelease", "6.19.0-test\n");
        write("etc/os-release", "PRETTY_NAME=\"Test Linux\"\nID=test\n");
        write("sys/module/amdgpu/parameters/lockup_timeout", lockupTimeout + "\n");
        write("sys/class/drm/card0/device/uevent", "DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c4:00.0\n");
        write("sys/class/drm/card0/device/vendor", "0x1002\n");
        write("sys/class/drm/card0/device/device", "0x150e\n");
        fs::create_directories(root / "sys/bus/pci/drivers/amdgpu");
        fs::create_directory_symlink("../../../../bus/pci/drivers/amdgpu", root / "sys/class/drm/card0/device/driver");
    }
};

// The original report's device with every identity key given, so that the PCI address the
// fake card carries comes with it.
constexpr const char* kRadvAt_c4 =
    "identity:name=AMD Radeon 890M Graphics (RADV STRIX1),driver-id=MESA_RADV,driver-name=radv,"
    "driver-info=Mesa 26.0.2,vendor=0x1002,device=0x150e,type=integrated,pci=0000:c4:00.0";

// That device with kSoftWatchdog's watchdog: 500 ms, a 625 ms submit at N=5, its kernel
// log in the scratch directory.
std::string radvAt_c4WithSoftWatchdog(const Scratch& s) {
    return std::string(kRadvAt_c4) + ";watchdog:timeout=500,us-per-wg=12500,kmsg=" + s.kmsg.string();
}

BoundedResult onFakeHost(const std::vector<std::string>& args, const std::string& simulate, const Scratch& s,
                         const FakeAmdgpuHost& host) {
    return simulated(args, simulate, s, {"REPRO_TEST_ROOT=" + host.root.string()});
}

// With the timeout known, triage halves it (--split-ms 250 cures it and corroborates H3),
// runs the probe (a soft kill at 8 conv-Ts after 0.50 s or a little more), and names the job timeout with
// its value.
TEST(Triage, AKnownJobTimeoutIsHalvedProbedAndNamedWithItsValue) {
    const Scratch s("known-timeout");
    const FakeAmdgpuHost host(s);
    const std::string simulate = radvAt_c4WithSoftWatchdog(s);
    const BoundedResult r = onFakeHost({"--triage", "--preset", "tiny", "-n", "5"}, simulate, s, host);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(H3  split-ms=250 +multipass ok \(exit 0\) +supports)")))
        << r.out;
    EXPECT_TRUE(contains(r.out, "--- watchdog probe ---")) << r.out;
    EXPECT_TRUE(std::regex_search(
        r.out, std::regex(R"(soft kill at 8 conv-Ts in one submit: single killed with no error after 0\.[5-9]\d+ s)")))
        << r.out;
    // The kill comes at the 500 ms timeout; a loaded machine adds a few ms before the wait
    // returns, so the measured end is 0.50 s or more, never less. The prediction (0.63 s on
    // a quiet machine) comes from split's submits, which a loaded machine or a sanitizer
    // build makes a little longer (0.64 s seen under ASan): above the timeout either way.
    EXPECT_TRUE(
        std::regex_search(r.out, std::regex(R"(--- conclusion: the kernel's job timeout \(H3\) \(500 ms, gfx )"
                                            R"(queue\): the submit ended after 0\.[5-9]\d s of a predicted 0\.6\d s)")))
        << r.out;
    EXPECT_TRUE(contains(r.out, "; --split-ms at half the timeout makes it correct")) << r.out;
}

// The same host, but a stale-input bug and no watchdog: sysfs says 500 ms, yet the 0.8 s
// submit runs in full and is not killed. The kernel does not apply that timeout; the
// probe shows no kill past the baseline's submit, and the cure by a submit boundary after
// a submit that did all its work names a synchronization bug.
TEST(Triage, ATimeoutTheKernelDoesNotApplyIsRuledOutAndTheSynchronizationBugNamed) {
    const Scratch s("unapplied-timeout");
    const FakeAmdgpuHost host(s);
    const BoundedResult r =
        onFakeHost({"--triage", "--preset", "tiny", "-n", "4"},
                   std::string(kRadvAt_c4) + ";clock:us-per-wg=1,ms-per-dispatch=100;stale:dispatch=3", s, host);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "past the 500 ms timeout: the kernel applies a longer one")) << r.out;
    EXPECT_TRUE(contains(r.out, "H3 the kernel's job watchdog: rules out (watchdog probe: no kill up to")) << r.out;
    EXPECT_TRUE(contains(r.out,
                         "--- conclusion: a synchronization bug (the baseline's long submit ran its full predicted "
                         "time;"))
        << r.out;
    EXPECT_FALSE(contains(r.out, "conclusion: the bytes one submit writes")) << r.out;
}

// Issue 21, item 1: one-submit recordings that hang the GPU. Each submit is predicted at a
// few milliseconds (split's waits), runs until the 500 ms job timeout, ends with no error and
// its outputs unwritten, and the kernel logs the soft recovery; a submit boundary every 2
// dispatches avoids the hang, --split-ms 250 does not (the whole chain fits in one such
// submit). The watchdog only ended a hang: that is the finding, not the job timeout (H3)
// and not "contradictory evidence", and --split-ms is not offered as the cure.
TEST(Triage, AHangTheWatchdogOnlyEndedIsNamedAsAHangAndTheSubmitBoundaryAsWhatAvoidsIt) {
    const Scratch s("hang-killed");
    const FakeAmdgpuHost host(s);
    const std::string simulate =
        std::string(kRadvAt_c4) + ";watchdog:timeout=500,ms-per-dispatch=1,kmsg=" + s.kmsg.string() + ";hang";
    const BoundedResult r = onFakeHost({"--triage", "--preset", "tiny", "-n", "3"}, simulate, s, host);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "baseline's cause (multipass)")) << r.out;
    EXPECT_TRUE(
        std::regex_search(r.out, std::regex(R"(hang_killed +rules out +the job timeout only ended a GPU hang)")))
        << r.out;
    EXPECT_FALSE(contains(r.out, "contradictory")) << r.out;
    const std::smatch conclusion = [&] {
        std::smatch m;
        std::regex_search(r.out, m, std::regex(R"(--- conclusion: ([^\n]*))"));
        return m;
    }();
    ASSERT_FALSE(conclusion.empty()) << r.out;
    const std::string line = conclusion[1];
    EXPECT_TRUE(
        line.starts_with("a GPU hang in the one-submit recording (multipass); the job timeout (500 ms, gfx "
                         "queue) only ended it: the submit was predicted to take "))
        << line;
    EXPECT_TRUE(line.ends_with("; a submit boundary every few dispatches avoids it (H2)")) << line;
    EXPECT_EQ(line.find("split-ms"), std::string::npos) << line;
}

// split the failing mode (issue 21, 3): the device is lost at split's second submit, the
// first mode to run. The recording experiments change multipass and single only, so each is
// skipped with that reason rather than run as a `--mode split --barrier ...` usage error,
// and no summary claims what a barrier variant does.
TEST(Triage, SplitAsTheFailingModeSkipsTheRecordingExperimentsWithTheReason) {
    const Scratch s("split-fails");
    const BoundedResult r = simulated({"--triage", "--preset", "tiny", "-n", "3"}, "lost:vkWaitSemaphores:3", s);
    EXPECT_EQ(r.status, 3) << shown(r);
    EXPECT_TRUE(contains(r.out, "baseline's cause (split)")) << r.out;
    EXPECT_FALSE(contains(r.out, "usage error")) << r.out;
    EXPECT_FALSE(contains(r.out, "no barrier or memory variant makes it correct")) << r.out;
    const std::regex skipped(
        R"(barrier=sync2 +not run +no evidence +it changes multipass and single only; split, the failing mode)");
    EXPECT_TRUE(std::regex_search(r.out, skipped)) << r.out;
    EXPECT_TRUE(contains(r.out, "no barrier or memory variant ran")) << r.out;
}

// --matrix on the same host adds its two --split-ms rows at half the timeout the first
// child's report names, and they cure what the blade rows get wrong.
TEST(Matrix, AKnownJobTimeoutAddsTheSplitMsRows) {
    const Scratch s("matrix-known-timeout");
    const FakeAmdgpuHost host(s);
    const std::string simulate = radvAt_c4WithSoftWatchdog(s);
    const BoundedResult r = onFakeHost({"--matrix", "--preset", "tiny", "-n", "5"}, simulate, s, host);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "2 more valid variants: --split-ms 250 (half the 0.5 s job timeout the first child's "
                         "report names)"))
        << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(multipass split-ms=250 no-host-wait +ok +0 )"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(single split-ms=250 no-host-wait +ok +0 )"))) << r.out;
    EXPECT_TRUE(contains(r.out, "--- conclusion: the kernel's job timeout (H3) (500 ms, gfx queue)")) << r.out;
    // The control rows' one submit is killed too: that says nothing of the control (was "control:
    // raced (wrong output without a valid barrier)", counted as raced).
    EXPECT_TRUE(std::regex_search(
        r.out, std::regex(R"(barrier=none \(control\) +killed +2 .*control: not judged \(the kernel's job timeout cut )"
                          R"(a mode short\))")))
        << r.out;
    EXPECT_TRUE(contains(r.out, " 2 controls (0 raced, ")) << r.out;
}

TEST(WatchdogProbe, PlainLavapipeHasNoKnownTimeoutAndNoKill) {
    const Scratch s("probe-plain");
    const BoundedResult r = plain({"--watchdog-probe", "--preset", "tiny"}, s);
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "no known job timeout on this device")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- watchdog probe: no kill: no kill up to a ")) << r.out;
    expectLogFolderRemoved(r);
}

// R = 1, 2, 4: 125 ms, 225 ms, 425 ms; R = 8 (825 ms) passes the 500 ms timeout and is
// soft-recovered: zeros without an error after 0.5 s.
TEST(WatchdogProbe, SimulatedSoftWatchdogShowsASoftKill) {
    const Scratch s("probe-soft");
    const auto doc = s.dir / "probe.json";
    const auto md = s.dir / "probe.md";
    const BoundedResult r = simulated(
        {"--watchdog-probe", "--preset", "tiny", "--json", doc.string(), "--format", "markdown", "-o", md.string()},
        kSoftWatchdog + s.kmsg.string(), s);
    EXPECT_EQ(r.status, 0) << shown(r);
    // The Markdown document: RADV's template, the ladder as its results.
    expectRadvTemplate(readFile(md), "### repro --watchdog-probe: a kill here is soft");
    EXPECT_TRUE(contains(readFile(md), "| conv-Ts | steps | repeat | predicted s | measured s | outcome |"))
        << readFile(md);
    // The document: the ladder's four rungs, the last killed.
    std::ifstream in(doc);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    ASSERT_TRUE(j.is_object()) << "no JSON document at " << doc;
    EXPECT_EQ(j["schema"], "repro-watchdog-probe");
    EXPECT_EQ(j["result"], "soft kill");
    ASSERT_EQ(j["rungs"].size(), 4u) << j.dump(2);
    EXPECT_EQ(j["rungs"][3]["conv_ts"], 8);
    EXPECT_EQ(j["rungs"][3]["outcome"], "single killed (exit 2)") << j.dump(2);
    EXPECT_EQ(j["exit_status"], 0);
    // The simulated kill comes at 0.5 s of wall time; a loaded machine adds to what the host
    // measures, never takes from it.
    EXPECT_TRUE(
        std::regex_search(r.out, std::regex(R"(--- watchdog probe: a kill here is soft, zeros \(wrong output\) )"
                                            R"(with no error: soft kill at 8 conv-Ts in one submit: single )"
                                            R"(killed with no error after 0\.[5-9]\d+ s)")))
        << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +4 +\S+ s +\d+\.\d{3} s +single ok \(exit 0\))"))) << r.out;
}

// A kill is claimed only on the kernel's evidence or a submit that ended at the known
// timeout (issue 21, 4d). A dispatch left out on purpose is wrong output, not a soft kill.
TEST(WatchdogProbe, ADroppedDispatchIsNoKill) {
    const Scratch s("probe-drop");
    const BoundedResult r = plain({"--watchdog-probe", "--preset", "tiny", "--drop-dispatch", "1"}, s);
    EXPECT_EQ(r.status, 125) << shown(r);
    EXPECT_FALSE(contains(r.out, "soft kill")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- watchdog probe: no result: single was wrong at 1 conv-Ts in one submit")) << r.out;
    EXPECT_TRUE(contains(r.out, "with no sign of a kill")) << r.out;
}

// A hang that repro's own --timeout ended, on a device with no job timeout: no kill of
// the kernel's, so no "hard kill, device lost".
TEST(WatchdogProbe, ReprosOwnWaitTimeoutIsNoKill) {
    const Scratch s("probe-own-timeout");
    const BoundedResult r = simulated({"--watchdog-probe", "--preset", "tiny", "--timeout", "1"},
                                      "clock:us-per-wg=0,ms-per-dispatch=1;hang:dispatches=1", s);
    EXPECT_EQ(r.status, 125) << shown(r);
    EXPECT_FALSE(contains(r.out, "hard kill")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- watchdog probe: no result: single hung at 1 conv-Ts")) << r.out;
    EXPECT_TRUE(contains(r.out, "no kernel job-timeout record, and no job timeout is known here")) << r.out;
}

// The hostile-input probe's N6c: with a known 2000 ms job timeout, repro's own --timeout 1
// ends the rung that would pass 1 s, before the job timeout could fire: no result (125), never
// "no kill" (which it said, with "the submit did not end at the 2000 ms job timeout").
TEST(WatchdogProbe, AWaitShorterThanTheKnownJobTimeoutIsNoResult) {
    const Scratch s("probe-short-wait");
    const FakeAmdgpuHost host(s, "2000");
    const BoundedResult r =
        onFakeHost({"--watchdog-probe", "--preset", "tiny", "--timeout", "1"},
                   std::string(kRadvAt_c4) + ";watchdog:timeout=2000,us-per-wg=12500,kmsg=" + s.kmsg.string(), s, host);
    EXPECT_EQ(r.status, 125) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- watchdog probe: no result: single hung at ")) << r.out;
    EXPECT_TRUE(contains(r.out, "repro's own wait (--timeout 1 s) gave up before the 2000 ms job timeout could fire"))
        << r.out;
    EXPECT_FALSE(contains(r.out, "no kill")) << r.out;
}

// A baseline that cannot test (issue 21, 6a): the reason is printed and its log kept.
// --validation with no validation layer to find: the parent's probe needs none, the
// baseline child exits 125.
TEST(Triage, ABaselineThatCannotTestSaysWhyAndKeepsItsLog) {
    const Scratch s("baseline-cannot-test");
    const std::filesystem::path noLayers = s.dir / "no-layers";
    std::filesystem::create_directories(noLayers);
    const BoundedResult r = runBounded(REPRO_EXECUTABLE, {"--triage", "--preset", "tiny", "-n", "2", "--validation"},
                                       {"VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE=",
                                        "VK_LAYER_PATH=" + noLayers.string(), "TMPDIR=" + s.dir.string()},
                                       240);
    EXPECT_EQ(r.status, 125) << shown(r);
    EXPECT_TRUE(contains(r.out, "baseline: cannot test (exit 125): ")) << r.out;
    EXPECT_TRUE(contains(r.out, "VK_LAYER_KHRONOS_validation is not installed")) << r.out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(the baseline gave no result; its log is (\S+\.log))")))
        << r.out;
    EXPECT_TRUE(std::filesystem::exists(m[1].str())) << m[1].str();
}

// Matrix lines for children that never ran (issue 21, 6c): with no validation layer to
// find every child exits 125, so no control is "correct anyway" and no variant "clean".
TEST(Matrix, ChildrenThatNeverRanAreNeitherCorrectNorClean) {
    const Scratch s("matrix-never-ran");
    const std::filesystem::path noLayers = s.dir / "no-layers";
    std::filesystem::create_directories(noLayers);
    const BoundedResult r = runBounded(REPRO_EXECUTABLE, {"--matrix", "--preset", "tiny", "-n", "2", "--validation"},
                                       {"VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE=",
                                        "VK_LAYER_PATH=" + noLayers.string(), "TMPDIR=" + s.dir.string()},
                                       240);
    EXPECT_EQ(r.status, 125) << shown(r);
    EXPECT_FALSE(contains(r.out, "correct anyway")) << r.out;
    EXPECT_FALSE(std::regex_search(r.out, std::regex(R"( clean +)"))) << r.out;
    EXPECT_TRUE(contains(r.out, "control: no result (cannot test)")) << r.out;
}

// ---- --trace (docs/trace.md) ---------------------------------------------------------------

nlohmann::json readTrace(const std::filesystem::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

double traceEnd(const nlohmann::json& e) { return e["ts"].get<double>() + e["dur"].get<double>(); }

// The probe's rungs (R = 1, 2, 4, 8, the last killed) are slices of their own on the
// children's track, each around the one child process that ran it; so are the rungs of the
// one-dispatch ladder that follows (category dispatch-rung), whose children come after.
TEST(WatchdogProbe, TheTraceHasEachRungAsASliceAroundItsChild) {
    const Scratch s("probe-trace");
    const auto file = s.dir / "probe.trace.json";
    const BoundedResult r = simulated({"--watchdog-probe", "--preset", "tiny", "--trace", file.string()},
                                      kSoftWatchdog + s.kmsg.string(), s);
    EXPECT_EQ(r.status, 0) << shown(r);
    const nlohmann::json j = readTrace(file);
    ASSERT_TRUE(j.is_object()) << "no JSON trace at " << file;
    std::vector<nlohmann::json> rungs, dispatchRungs, children;
    for (const auto& e : j["traceEvents"]) {
        if (e["ph"] == "X" && e["cat"] == "rung") rungs.push_back(e);
        if (e["ph"] == "X" && e["cat"] == "dispatch-rung") dispatchRungs.push_back(e);
        if (e["ph"] == "X" && e["cat"] == "child") children.push_back(e);
    }
    ASSERT_EQ(rungs.size(), 4u) << j.dump(1);
    ASSERT_FALSE(dispatchRungs.empty()) << j.dump(1);
    ASSERT_EQ(children.size(), rungs.size() + dispatchRungs.size()) << j.dump(1);
    for (size_t i = 0; i < rungs.size(); ++i) {
        EXPECT_EQ(rungs[i]["name"], "watchdog-probe rung: " + std::to_string(1 << i) + " conv-Ts in one submit");
        EXPECT_EQ(rungs[i]["tid"], 3);
        EXPECT_EQ(children[i]["tid"], 3);
        EXPECT_GE(children[i]["ts"].get<double>(), rungs[i]["ts"].get<double>());
        EXPECT_LE(traceEnd(children[i]), traceEnd(rungs[i]));
    }
    EXPECT_EQ(rungs[3]["args"]["outcome"], "single killed (exit 2)") << rungs[3].dump();
}

// A known job timeout (500 ms on the fake amdgpu host) puts a marker on the long submit: at
// vkQueueSubmit plus 500 ms, which the simulated kill makes the submit's end.
TEST(Triage, TheTraceMarksTheJobTimeoutOnTheLongSubmit) {
    const Scratch s("trace-timeout");
    const FakeAmdgpuHost host(s);
    const auto file = s.dir / "run.trace.json";
    const BoundedResult r = onFakeHost({"--preset", "tiny", "-n", "5", "--mode", "single", "--trace", file.string()},
                                       radvAt_c4WithSoftWatchdog(s), s, host);
    EXPECT_EQ(r.status, 2) << shown(r);
    const nlohmann::json j = readTrace(file);
    ASSERT_TRUE(j.is_object()) << "no JSON trace at " << file;
    std::optional<nlohmann::json> submit, marker;
    for (const auto& e : j["traceEvents"]) {
        if (e["ph"] == "X" && e["cat"] == "submit" && e["name"] == "submit 1 of 1 (all 5 steps)") submit = e;
        if (e["ph"] == "i" && e["cat"] == "marker") marker = e;
    }
    ASSERT_TRUE(submit && marker) << j.dump(1);
    EXPECT_EQ((*marker)["name"], "job timeout (500 ms) of submit 1 of 1 (all 5 steps)");
    EXPECT_NEAR((*marker)["ts"].get<double>() - (*submit)["ts"].get<double>(), 500'000.0, 1.0);
    EXPECT_GE(traceEnd(*submit), (*marker)["ts"].get<double>());  // the kill ended it, not sooner
    EXPECT_TRUE(j["otherData"].value("job_timeout", "").starts_with("500 ms")) << j["otherData"].dump();
}

// A driver that crashes in the chain's submit still leaves the trace: the phases before it,
// and the verdict line as a marker where the supervisor ended the run.
TEST(Triage, ACrashedRunStillWritesItsTraceWithTheVerdict) {
    const Scratch s("trace-crash");
    const auto file = s.dir / "run.trace.json";
    const BoundedResult r = simulated({"--preset", "tiny", "-n", "2", "--mode", "multipass", "--trace", file.string()},
                                      "crash:vkQueueSubmit:2", s);
    EXPECT_EQ(r.status, 3) << shown(r);
    const nlohmann::json j = readTrace(file);
    ASSERT_TRUE(j.is_object()) << "no JSON trace at " << file;
    bool setUp = false, clearing = false, verdict = false;
    for (const auto& e : j["traceEvents"]) {
        setUp = setUp || e["name"] == "set-up";
        clearing = clearing || e["name"].get<std::string>().starts_with("clearing submit");
        verdict = verdict || (e["ph"] == "i" && e["name"].get<std::string>().starts_with("--- "));
    }
    EXPECT_TRUE(setUp && clearing && verdict) << j.dump(1);
}

}  // namespace

// Split's own submits (issue 21, 2): one conv-T alone outlives the job timeout
// (us-per-wg=75000: a tiny conv-T's 8 workgroups take 600 ms, past the 500 ms timeout; a
// slice 150 ms), so split itself is killed. That is the job timeout, named for split, not
// a reference that underflowed; multipass and single are judged against the CPU instead.
TEST(SplitKilled, OneDispatchPastTheJobTimeoutNamesItForSplitAndJudgesTheOthersAgainstTheCpu) {
    const Scratch s("split-killed");
    const FakeAmdgpuHost host(s);
    const std::string simulate =
        std::string(kRadvAt_c4) + ";watchdog:timeout=500,us-per-wg=75000,kmsg=" + s.kmsg.string();
    const auto report = s.dir / "report.json";
    const BoundedResult r = onFakeHost({"--preset", "tiny", "-n", "2", "--json", report.string()}, simulate, s, host);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_FALSE(contains(r.out, "INCONCLUSIVE")) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(mode=split +cause: the kernel's job timeout \(500 ms, gfx )"
                                                    R"(queue\): one dispatch alone outlives it)")))
        << r.out;
    EXPECT_TRUE(contains(r.out, "so it is no reference")) << r.out;
    EXPECT_TRUE(contains(r.out, "reference: cpu in place of split, which the kernel's job timeout killed")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED: mode split is killed")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED: mode multipass is killed")) << r.out;
    std::ifstream in(report);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    ASSERT_TRUE(j.is_object()) << report;
    EXPECT_EQ(j["reference"], "cpu") << j.dump(2);
    EXPECT_EQ(j["modes"][0]["mode"], "split") << j.dump(2);
    EXPECT_EQ(j["modes"][0]["classification"], "killed") << j.dump(2);
    EXPECT_EQ(j["modes"][0]["cause"]["kind"], "job_timeout") << j.dump(2);
}

// --watchdog-probe's second ladder makes one dispatch longer (issue 21, 2): one step as
// split with --batch doubled, each dispatch alone in its submit. kSoftWatchdog: the conv-T
// takes 100 ms per batch of 2, so batch 16 (800 ms) is killed at the 500 ms timeout.
TEST(WatchdogProbe, OneDispatchMadeLongerIsKilledAloneInItsSubmit) {
    const Scratch s("probe-one-dispatch");
    const auto doc = s.dir / "probe.json";
    const BoundedResult r =
        simulated({"--watchdog-probe", "--preset", "tiny", "--json", doc.string()}, kSoftWatchdog + s.kmsg.string(), s);
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "split, one dispatch per submit (-n 1 --batch B): one dispatch made longer")) << r.out;
    EXPECT_TRUE(contains(r.out, "one dispatch made longer: soft kill at batch 16: one conv-T alone in its submit"))
        << r.out;
    std::ifstream in(doc);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    ASSERT_TRUE(j.is_object()) << "no JSON document at " << doc;
    EXPECT_EQ(j["one_dispatch"]["result"], "soft kill") << j.dump(2);
    ASSERT_EQ(j["dispatch_rungs"].size(), 4u) << j.dump(2);
    EXPECT_EQ(j["dispatch_rungs"][3]["batch"], 16) << j.dump(2);
    EXPECT_EQ(j["dispatch_rungs"][0]["outcome"], "split ok (exit 0)") << j.dump(2);
}

// A --driver-env-sweep whose run without a setting cannot test (issue 21, 6c): it says so
// and why, never "does not reproduce".
TEST(DriverEnvSweep, ABaselineThatCannotTestSaysSoNeverNotReproduced) {
    const Scratch s("sweep-cannot-test");
    const std::filesystem::path noLayers = s.dir / "no-layers";
    std::filesystem::create_directories(noLayers);
    const BoundedResult r = runBounded(
        REPRO_EXECUTABLE, {"--driver-env-sweep", "--preset", "tiny", "-n", "2", "--validation"},
        {"VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE=", "VK_LAYER_PATH=" + noLayers.string(),
         "TMPDIR=" + s.dir.string()},
        240);
    EXPECT_EQ(r.status, 125) << shown(r);
    EXPECT_FALSE(contains(r.out, "does not reproduce")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- driver-env-sweep: no result without a setting: cannot test (exit 125)")) << r.out;
    EXPECT_TRUE(contains(r.out, "VK_LAYER_KHRONOS_validation is not installed")) << r.out;
    EXPECT_TRUE(contains(r.out, "no setting can be judged")) << r.out;
}

namespace {

// A file of three in-place increments of 16384 words (256 workgroups each) ordered by valid
// barriers; with `words` of 65536, one increment of 1024 workgroups alone.
std::filesystem::path incrementFile(const Scratch& s, uint32_t words, int dispatches) {
    const auto path = s.dir / "increments.toml";
    std::ofstream out(path);
    out << "name = \"increments\"\nsource = \"https://example.org/increments\"\npattern = \"increments\"\n"
           "expected = \"not reproduced\"\ncheck = [\"data\"]\n[[buffer]]\nname = \"data\"\nbytes = "
        << words * 4 << "\ninit = \"iota\"\n";
    for (int d = 0; d < dispatches; ++d) {
        if (d > 0) out << "[[step]]\nbarrier = \"blade-c\"\n";
        out << "[[step]]\ndispatch = \"increment\"\nbindings = [\"data\"]\n";
    }
    return path;
}

// us-per-wg=1000: an increment of 16384 words (256 workgroups) takes 256 ms, three of them
// in one submit 768 ms, past the fake host's 500 ms job timeout; split's stay below it.
std::string fileWatchdog(const Scratch& s) {
    return std::string(kRadvAt_c4) + ";watchdog:timeout=500,us-per-wg=1000,kmsg=" + s.kmsg.string();
}

}  // namespace

// A file whose one-submit modes the job timeout cuts: killed, with the job timeout as the
// cause and its 500 ms value, in text and JSON, as the built-in chain's; split stays right.
TEST(FileJobTimeout, AOneSubmitRecordingTheTimeoutCutsIsKilledWithTheCause) {
    const Scratch s("file-killed");
    const FakeAmdgpuHost host(s);
    const auto file = incrementFile(s, 16384, 3);
    const auto json = s.dir / "r.json";
    const BoundedResult r =
        onFakeHost({"--scenario", file.string(), "--json", json.string()}, fileWatchdog(s), s, host);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED: mode multipass is killed (cause: the kernel's job timeout)"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "mode=multipass cause: the kernel's job timeout (500 ms, gfx queue)")) << r.out;
    EXPECT_TRUE(contains(r.out, "evidence: kernel log during the mode: 'ring gfx_0.0.0 timeout, but soft recovered'"))
        << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(mode=split +'data' nz=\d+/16384)"))) << r.out;
    const std::string doc = readFile(json);
    EXPECT_TRUE(contains(doc, "\"killed\"")) << doc;
    EXPECT_TRUE(contains(doc, "\"job_timeout\"")) << doc;
}

// --triage on that file: the experiments run as children of the file, and the conclusion is
// the job timeout (H3), its value halved as --split-ms curing it.
TEST(FileJobTimeout, TriageConcludesOnTheJobTimeout) {
    const Scratch s("file-triage");
    const FakeAmdgpuHost host(s);
    const auto file = incrementFile(s, 16384, 3);
    const BoundedResult r = onFakeHost({"--scenario", file.string(), "--triage"}, fileWatchdog(s), s, host);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "conclusion: the kernel's job timeout")) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(H3  split-ms=250 +multipass ok)"))) << r.out;
}

// One dispatch alone past the timeout: split's own submit is killed, its cause named, and the
// other modes are not judged against it.
TEST(FileJobTimeout, ASingleDispatchPastTheTimeoutGetsSplitsCause) {
    const Scratch s("file-split-killed");
    const FakeAmdgpuHost host(s);
    const auto file = incrementFile(s, 65536, 1);
    const BoundedResult r = onFakeHost({"--scenario", file.string()}, fileWatchdog(s), s, host);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "its submit was cut short by the kernel's job timeout, so it is no reference"))
        << r.out;
    EXPECT_TRUE(contains(
        r.out, "mode=split cause: the kernel's job timeout (500 ms, gfx queue): one dispatch alone outlives it"))
        << r.out;
}
