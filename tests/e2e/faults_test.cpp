// Verdicts that hold under every fault (issue 21): the real repro, on lavapipe, with the
// simulated driver where a long wait is needed.
//  - a driver whose manifest declares "api_version": "1.0.0" withholds the 1.3 core names:
//    --barrier sync2/full is then 125 naming vkCmdPipelineBarrier2, not a call through null;
//  - a crash is called the driver's only when the faulting code is the driver's, and an
//    abort only when the child raised it;
//  - --invert never gives a usage error a verdict's status;
//  - a child stopped (SIGSTOP, a debugger), or the whole run stopped, for longer than a
//    call's deadline has not stalled.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bounded_process.hpp"
#include "process.hpp"
#include "simulated_env.hpp"

namespace {

using repro::test::BoundedResult;
using repro::test::contains;
using repro::test::runBounded;
using repro::test::simulated;

// No layer: repro on the machine's driver.
const std::vector<std::string> kNoLayer = {"VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE="};

// A fresh folder under the system's temporary folder.
std::filesystem::path freshFolder(const std::string& name) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("repro-faults-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

// The library of the driver a tiny run uses (lavapipe here), from its JSON report.
std::string driverLibrary() {
    const BoundedResult r = runBounded(
        REPRO_EXECUTABLE, {"--preset", "tiny", "-n", "1", "--mode", "split", "--format", "json"}, kNoLayer, 120);
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    return j.is_discarded() ? "" : j.at("device").value("driver_library", "");
}

// ---- a: function pointers and crash sites ------------------------------------------------

TEST(Faults, Sync2OnADriverDeclaringApi10IsCannotTestNamingTheFunction) {
    const std::string library = driverLibrary();
    ASSERT_FALSE(library.empty()) << "no driver library in the report";
    const auto dir = freshFolder("api10");
    const std::string manifest = (dir / "api10_icd.json").string();
    std::ofstream(manifest) << R"({"file_format_version": "1.0.0", "ICD": {"library_path": ")" << library
                            << R"(", "api_version": "1.0.0"}})";
    std::vector<std::string> env = kNoLayer;
    env.push_back("VK_DRIVER_FILES=" + manifest);
    env.push_back("VK_ICD_FILENAMES=" + manifest);
    for (const char* barrier : {"sync2", "full"}) {
        const BoundedResult r = runBounded(
            REPRO_EXECUTABLE, {"--preset", "tiny", "-n", "2", "--mode", "multipass", "--barrier", barrier}, env, 120);
        EXPECT_EQ(r.status, 125) << barrier << "\n" << shown(r);
        EXPECT_TRUE(contains(r.err, "vkCmdPipelineBarrier2")) << shown(r);
        EXPECT_TRUE(contains(r.err, "--barrier sync2/full")) << shown(r);
        EXPECT_FALSE(contains(r.out, "GPU HANG")) << shown(r);
        EXPECT_FALSE(contains(r.out, "mode=multipass")) << "no mode ran\n" << shown(r);
    }
    const BoundedResult plain = runBounded(REPRO_EXECUTABLE, {"--preset", "tiny", "-n", "2"}, env, 120);
    EXPECT_EQ(plain.status, 0) << "the default barriers need no 1.3 name\n" << shown(plain);
    std::filesystem::remove_all(dir);
}

TEST(Faults, ADriverCrashNamesTheDriversCode) {
    const BoundedResult r =
        runBounded(REPRO_EXECUTABLE, {"--preset", "tiny", "-n", "2"}, simulated("crash:vkQueueSubmit:3"), 120);
    EXPECT_EQ(r.status, 3) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- DRIVER CRASH: the driver crashed (SIGSEGV) in vkQueueSubmit")) << shown(r);
    EXPECT_TRUE(contains(r.out, " in libVkLayer_repro_simulate.so;")) << "the faulting code's library\n" << shown(r);
}

// Every call repro makes is watched (lint.VkCalls), teardown's too: a crash in vkDestroyBuffer
// was "outside any Vulkan call", and now names the call; the verdict above it stands.
TEST(Faults, ACrashInTeardownNamesTheCall) {
    const BoundedResult r =
        runBounded(REPRO_EXECUTABLE, {"--preset", "tiny", "-n", "2"}, simulated("crash:vkDestroyBuffer"), 120);
    EXPECT_EQ(r.status, 3) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED: every mode")) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- DRIVER CRASH: the driver crashed (SIGSEGV) in vkDestroyBuffer during "))
        << shown(r);
}

// Starts repro with `args` in the background, runs `then` (a shell fragment that may use
// $pid and $child, the supervisor and its child, once the run has gone on for `after` s)
// and ends with repro's status.
BoundedResult runAndThen(const std::vector<std::string>& args, const std::vector<std::string>& env, int after,
                         const std::string& then) {
    std::string command = std::string("'") + REPRO_EXECUTABLE + "'";
    for (const std::string& a : args) command += " '" + a + "'";
    const std::string script = command + " & pid=$!; sleep " + std::to_string(after) +
                               "; child=$(pgrep -P $pid | head -n 1); " + then + "; wait $pid";
    return runBounded("/bin/sh", {"-c", script}, env, 240);
}

// The simulated clock keeps the child in its 100 ms wait slices (each a watched call)
// for most of a run: 1.5 s per dispatch, multipass 4 dispatches, then split's 4 submits.
const std::vector<std::string> kLongWaits = {"--preset", "tiny", "-n", "2", "--mode", "multipass"};
const char* const kSlowClock = "clock:us-per-wg=0,ms-per-dispatch=1500";

TEST(Faults, ASegvSentFromOutsideIsNoDriverCrashNorAHang) {
    const BoundedResult r = runAndThen(kLongWaits, simulated(kSlowClock), 3, "kill -SEGV $child");
    EXPECT_EQ(r.status, 125) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- CRASHED: the repro child process crashed (SIGSEGV)")) << shown(r);
    EXPECT_FALSE(contains(r.out, "GPU HANG")) << shown(r);
    EXPECT_FALSE(contains(r.out, "the driver crashed")) << shown(r);
}

// abort(3) in the driver is the driver's (e2e.simdriver.* abort rows); a SIGABRT another
// process sends (kill -ABRT, `timeout -s ABRT`, a watchdog) is not (hostile-input probe R6).
// Sent to the child, or to repro itself (as `timeout -s ABRT` does, to repro and its process
// group), which passes it on and never ends by it.
TEST(Faults, AnAbortSentFromOutsideIsNoDriverCrash) {
    for (const char* kill : {"kill -ABRT $child", "kill -ABRT $pid"}) {
        const BoundedResult r = runAndThen(kLongWaits, simulated(kSlowClock), 3, kill);
        EXPECT_EQ(r.status, 125) << kill << "\n" << shown(r);
        EXPECT_TRUE(
            contains(r.out, "--- CRASHED: the repro child process was ended by a SIGABRT another process sent, in "))
            << kill << "\n"
            << shown(r);
        EXPECT_TRUE(contains(r.out, "so this is no verdict on the driver")) << shown(r);
        EXPECT_FALSE(contains(r.out, "DRIVER CRASH")) << shown(r);
        EXPECT_FALSE(contains(r.out, "the driver aborted")) << shown(r);
    }
}

// ---- c: a stop is not a stall ---------------------------------------------------------

TEST(Faults, StoppingTheChildAndTheSupervisorPastTheCallDeadlineIsNoStall) {
    // The child stopped (as by a debugger) for 13 s, the supervisor too for 11 of them (as
    // by SIGSTOP of both, or a container pause): more than a call's 10 s deadline.
    const BoundedResult r = runAndThen(kLongWaits, simulated(kSlowClock), 3,
                                       "kill -STOP $child; sleep 1; kill -STOP $pid; sleep 11; kill -CONT $pid; "
                                       "sleep 1; kill -CONT $child");
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << shown(r);
    EXPECT_FALSE(contains(r.out, "stalled")) << shown(r);
}

// ---- b: --invert and usage errors -------------------------------------------------------

TEST(Faults, UnderInvertAUsageErrorIsNeverAVerdict) {
    const std::vector<std::string> unwritable = {"--preset", "tiny", "-n", "1", "-o", "/nonexistent-repro-dir/r.json"};
    const BoundedResult plain = runBounded(REPRO_EXECUTABLE, unwritable, kNoLayer, 60);
    EXPECT_EQ(plain.status, 1) << shown(plain);
    std::vector<std::string> inverted = unwritable;
    inverted.emplace_back("--invert");
    const BoundedResult r = runBounded(REPRO_EXECUTABLE, inverted, kNoLayer, 60);
    EXPECT_EQ(r.status, 125) << "1 says 'not reproduced' under --invert\n" << shown(r);
    EXPECT_TRUE(contains(r.err, "-o/--output: cannot write '/nonexistent-repro-dir/r.json'")) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- --invert: exit 125 for exit 1 (a usage error, no verdict")) << shown(r);
    // Found while parsing, with --invert on the command line: the same.
    const BoundedResult parsed = runBounded(REPRO_EXECUTABLE, {"--invert", "--mode", "bogus"}, kNoLayer, 60);
    EXPECT_EQ(parsed.status, 125) << shown(parsed);
    // A verdict still maps as before: not reproduced is 1.
    const BoundedResult ran = runBounded(REPRO_EXECUTABLE, {"--preset", "tiny", "-n", "1", "--invert"}, kNoLayer, 120);
    EXPECT_EQ(ran.status, 1) << shown(ran);
}

}  // namespace
