// End-to-end tests through the simulated driver (tests/simdriver, VK_LAYER_REPRO_simulate):
// repro on the machine's driver (lavapipe in CI) with the layer between them making it
// misbehave as REPRO_SIMULATE asks, and repro's conclusions checked against what was
// simulated. Every run is bounded in time (bounded_process.hpp), so no test can hang.
#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bounded_process.hpp"
#include "independent_chain.hpp"
#include "process.hpp"
#include "simulated_env.hpp"

#if !defined(REPRO_EXECUTABLE) || !defined(REPRO_SIMDRIVER_LAYER_DIR) || !defined(REPRO_SIMDRIVER_PROBE)
#error "REPRO_EXECUTABLE, REPRO_SIMDRIVER_LAYER_DIR and REPRO_SIMDRIVER_PROBE must be defined"
#endif

namespace {

using repro::test::BoundedResult;
using repro::test::contains;
using repro::test::count;
using repro::test::cpuChain;
using repro::test::describeEnd;
using repro::test::kRelativeTolerance;
using repro::test::kTiny;
using repro::test::lines;
using repro::test::readDump;
using repro::test::runBounded;
using repro::test::simulated;

// repro with `args` through the layer set to `simulate`, killed after `limit` seconds.
BoundedResult repro(const std::vector<std::string>& args, const std::string& simulate, double limit = 300,
                    std::vector<std::string> extraEnv = {}) {
    std::vector<std::string> env = simulated(simulate);
    env.insert(env.end(), extraEnv.begin(), extraEnv.end());
    return runBounded(REPRO_EXECUTABLE, args, env, limit);
}

// repro with no simulated driver: the layer not enabled at all.
BoundedResult plainRepro(const std::vector<std::string>& args) {
    return runBounded(REPRO_EXECUTABLE, args, {"VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE="},
                      300);
}

std::filesystem::path freshDir(const std::string& name) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("repro-simdriver-" + std::to_string(getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool sameBytes(const std::filesystem::path& a, const std::filesystem::path& b) {
    const std::string x = slurp(a), y = slurp(b);
    return !x.empty() && x == y;
}

int64_t monotonicMicroseconds() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return int64_t{t.tv_sec} * 1'000'000 + t.tv_nsec / 1000;
}

// ---- loading ----------------------------------------------------------------------------

TEST(Loading, FoundThroughAddLayerPathOrLayerPathAndEnabledEitherWay) {
    const std::string dir = REPRO_SIMDRIVER_LAYER_DIR;
    const std::vector<std::vector<std::string>> ways = {
        {"VK_ADD_LAYER_PATH=" + dir, "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate"},
        {"VK_ADD_LAYER_PATH=" + dir, "VK_LOADER_LAYERS_ENABLE=*REPRO_simulate"},
        {"VK_LAYER_PATH=" + dir, "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate"},
    };
    for (auto env : ways) {
        env.insert(env.end(), {"REPRO_SIMULATE=", "REPRO_SIMULATE_TRACE=1"});
        const BoundedResult r = runBounded(REPRO_SIMDRIVER_PROBE, {}, env, 60);
        EXPECT_EQ(r.status, 0) << env[1] << "\n" << shown(r);
        EXPECT_TRUE(contains(r.err, "repro-simulate: loaded (pid ")) << env[1] << "\n" << r.err;
        EXPECT_TRUE(contains(r.err, "REPRO_SIMULATE unset: every call passes through unchanged")) << r.err;
    }
    const BoundedResult off = runBounded(
        REPRO_SIMDRIVER_PROBE, {},
        {"VK_ADD_LAYER_PATH=" + dir, "VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE_TRACE=1"}, 60);
    EXPECT_EQ(off.status, 0) << shown(off);
    EXPECT_FALSE(contains(off.err, "repro-simulate")) << "found but not enabled: not loaded\n" << off.err;
}

TEST(Loading, UnsetIsInvisibleBitForBit) {
    const auto plainDir = freshDir("invisible-plain"), layerDir = freshDir("invisible-layer");
    const std::vector<std::string> args = {"--preset", "small", "-n", "3", "--mode", "all", "--timestamps"};
    auto with = [&](const std::filesystem::path& d) {
        std::vector<std::string> a = args;
        a.insert(a.end(), {"--dump-dir", d.string()});
        return a;
    };
    const BoundedResult plain = plainRepro(with(plainDir));
    const BoundedResult layered = repro(with(layerDir), "", 300, {"REPRO_SIMULATE_TRACE=1"});
    ASSERT_EQ(plain.status, 0) << shown(plain);
    ASSERT_EQ(layered.status, 0) << shown(layered);
    EXPECT_TRUE(contains(layered.err, "repro-simulate: loaded")) << layered.err;
    for (const char* mode : {"split", "multipass", "single"}) {
        EXPECT_TRUE(sameBytes(plainDir / (std::string(mode) + ".f32"), layerDir / (std::string(mode) + ".f32")))
            << mode;
    }
    std::filesystem::remove_all(plainDir);
    std::filesystem::remove_all(layerDir);
}

TEST(Grammar, ABadSettingFailsInstanceCreationWithOneLine) {
    const BoundedResult r = repro({"--preset", "tiny", "-n", "1"}, "seed-bug:dispatches=7;watchdog:timeout=2s");
    EXPECT_EQ(r.status, 125) << shown(r);
    const auto errLines = lines(r.err);
    ASSERT_EQ(errLines.size(), 2u) << r.err;
    EXPECT_EQ(errLines[0],
              "repro-simulate: REPRO_SIMULATE='seed-bug:dispatches=7;watchdog:timeout=2s': watchdog: "
              "timeout=2s: not "
              "a number of milliseconds above 0 (digits, optionally one '.')");
    EXPECT_EQ(errLines[1], "repro: cannot test here: vkCreateInstance failed: VK_ERROR_INITIALIZATION_FAILED");
}

// Only the driver knows its version, so this one fails the first vkEnumeratePhysicalDevices.
TEST(Grammar, IdentityApiAboveTheDriverFailsDeviceEnumeration) {
    const BoundedResult r = repro({"--preset", "tiny", "-n", "1"}, "identity:api=99.0.0");
    EXPECT_EQ(r.status, 125) << shown(r);
    const auto errLines = lines(r.err);
    ASSERT_EQ(errLines.size(), 2u) << r.err;
    EXPECT_EQ(errLines[0].rfind("repro-simulate: REPRO_SIMULATE='identity:api=99.0.0': identity: api=99.0.0 is above "
                                "device 0 (",
                                0),
              0u)
        << r.err;
    EXPECT_EQ(errLines[1],
              "repro: cannot test here: vkEnumeratePhysicalDevices failed: VK_ERROR_INITIALIZATION_FAILED");
    EXPECT_EQ(repro({"--preset", "tiny", "-n", "1"}, "identity:api=1.3.255").status,
              0);  // a patch above is no new entry point
}

// ---- seed-bug ---------------------------------------------------------------------------

class SeedBug : public ::testing::TestWithParam<int> {};

// K dispatches per command buffer: multipass and single record 2N, so the smallest N
// whose command buffer passes K is floor(K/2) + 1; split records one per command buffer.
TEST_P(SeedBug, SweepFindsTheSmallestNWhereTheDispatchCountPassesK) {
    const int k = GetParam();
    const int n = k / 2 + 1;
    const BoundedResult r = repro({"--sweep", "1..8", "--preset", "tiny"}, "seed-bug:dispatches=" + std::to_string(k));
    EXPECT_EQ(r.status, 2) << shown(r);
    const std::string smallest =
        "--- smallest reproducing N: split none, multipass N=" + std::to_string(n) + ", single N=" + std::to_string(n);
    EXPECT_TRUE(contains(r.out, smallest)) << smallest << "\n" << r.out;
}

// The largest difference between a dump and the test's own CPU chain, relative to the
// chain's largest magnitude (independent_chain.hpp).
double relativeError(const std::filesystem::path& dump, int n) {
    const std::vector<double> expected = cpuChain(kTiny, n);
    const std::vector<float> got = readDump(dump);
    if (got.size() != expected.size()) return 1e30;
    double scale = 0, worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        scale = std::max(scale, std::fabs(expected[i]));
        worst = std::max(worst, std::fabs(got[i] - expected[i]));
    }
    return worst / scale;
}

TEST_P(SeedBug, PlainRunReproducesAtNAndNotAtNMinusOne) {
    const int k = GetParam();
    const int n = k / 2 + 1;
    const std::string setting = "seed-bug:dispatches=" + std::to_string(k);
    const auto dir = freshDir("seed-bug-" + std::to_string(k));
    const BoundedResult at = repro({"--preset", "tiny", "-n", std::to_string(n), "--dump-dir", dir.string()}, setting);
    EXPECT_EQ(at.status, 2) << shown(at);
    EXPECT_TRUE(contains(at.out, "--- BUG REPRODUCED: mode multipass is zero")) << at.out;
    EXPECT_TRUE(contains(at.out, "--- BUG REPRODUCED: mode single is zero")) << at.out;
    EXPECT_TRUE(contains(at.out, "-> ok: finite and non-zero; the reference for the other modes")) << at.out;
    EXPECT_TRUE(contains(at.out, "  mode=split     nz=280/280 (100.0%)")) << at.out;
    EXPECT_LE(relativeError(dir / "split.f32", n), kRelativeTolerance) << "split is right";
    const std::vector<float> multipass = readDump(dir / "multipass.f32");
    EXPECT_EQ(multipass.size(), kTiny.smallElems());
    EXPECT_TRUE(std::all_of(multipass.begin(), multipass.end(), [](float v) { return v == 0.0f; }));
    const BoundedResult below =
        repro({"--preset", "tiny", "-n", std::to_string(n - 1), "--dump-dir", dir.string()}, setting);
    EXPECT_EQ(below.status, 0) << shown(below);
    EXPECT_TRUE(contains(below.out, "--- NOT REPRODUCED")) << below.out;
    EXPECT_LE(relativeError(dir / "multipass.f32", n - 1), kRelativeTolerance) << "multipass is right below N";
    std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(K, SeedBug, ::testing::Values(12, 7),
                         [](const auto& p) { return "K" + std::to_string(p.param); });

// ---- flaky ------------------------------------------------------------------------------

// With seed 1 the draws are fixed, so the count is always the same; the bounds are what
// any fair generator passes with 98.7% probability (Binomial(20, 0.3): P(X <= 1) = 0.008,
// P(X >= 12) = 0.005), and what a flaky that ignored P (0/20 or 20/20) fails.
TEST(Flaky, RepeatRateNearP) {
    const BoundedResult r =
        repro({"--preset", "tiny", "-n", "7", "--mode", "multipass", "--repeat", "20"}, "flaky:0.3");
    EXPECT_EQ(r.status, 2) << shown(r);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(  multipass: (\d+)/20 runs wrong)"))) << r.out;
    const int wrong = std::stoi(m[1]);
    EXPECT_GE(wrong, 2) << r.out;
    EXPECT_LE(wrong, 11) << r.out;
    const BoundedResult again =
        repro({"--preset", "tiny", "-n", "7", "--mode", "multipass", "--repeat", "20"}, "flaky:0.3");
    EXPECT_TRUE(contains(again.out, m[0].str())) << "same seed, same draws\n" << again.out;
}

// Runs that differ say so in every entry of their mode in the JSON report, as the text's
// "results NOT bit-identical across runs" does (each entry once copied its own run's default,
// true, whatever the runs held).
TEST(Flaky, RunsThatDifferAreNotIdenticalInTheReport) {
    const BoundedResult r =
        repro({"--preset", "tiny", "-n", "7", "--mode", "multipass", "--repeat", "6", "--format", "json"}, "flaky:0.5");
    ASSERT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, "runs wrong; results NOT bit-identical across runs")) << shown(r);
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    size_t entries = 0;
    for (const auto& m : doc.at("modes")) {
        if (m.at("mode") != "multipass") continue;
        ++entries;
        EXPECT_EQ(m.at("identical_across_runs"), false) << m.dump();
    }
    EXPECT_EQ(entries, 6u) << r.out;
}

// ---- lost -------------------------------------------------------------------------------

// --mode all -n 3: split waits 1 + 2N + 1 = 8 times (its clear, each submit, repro's canary),
// multipass's clear is wait 9 and its own submit wait 10 (faults_test.cpp derives the same k).
TEST(Lost, SplitCompletesAndMultipassIsLost) {
    const auto dir = freshDir("lost"), plainDir = freshDir("lost-plain");
    const BoundedResult r =
        repro({"--preset", "tiny", "-n", "3", "--mode", "all", "--dump-dir", dir.string()}, "lost:vkWaitSemaphores:10");
    EXPECT_EQ(r.status, 3) << shown(r);
    EXPECT_TRUE(contains(r.out, "  mode=split     nz=280/280 (100.0%)")) << r.out;
    EXPECT_TRUE(contains(r.out, "-> ok: finite and non-zero; the reference for the other modes")) << r.out;
    EXPECT_TRUE(contains(r.out, "  mode=multipass HANG")) << r.out;
    EXPECT_TRUE(contains(
        r.out, "lost the device: vkWaitSemaphores returned VK_ERROR_DEVICE_LOST at submit 1 of 1 (all 3 steps)"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "  mode=single    not run")) << r.out;
    const BoundedResult plain =
        plainRepro({"--preset", "tiny", "-n", "3", "--mode", "split", "--dump-dir", plainDir.string()});
    ASSERT_EQ(plain.status, 0) << shown(plain);
    EXPECT_TRUE(sameBytes(dir / "split.f32", plainDir / "split.f32")) << "the completed mode's result is lavapipe's";
    std::filesystem::remove_all(dir);
    std::filesystem::remove_all(plainDir);
}

// ---- crash, abort, stall: the supervision contract --------------------------------------

// What repro must do when the driver dies or stops inside a call: end with a documented
// status and one line naming the call, never by a signal and never hanging. Before the
// first submit of the modes under test that is 125 (cannot test here); during their
// submits, waits and readback 3 (a GPU hang). `expectedToFail`: what today's repro does
// not do yet; a marked case that starts passing fails until the mark is removed.
struct FaultCase {
    std::string kind;
    std::string call;
    int status;
    bool expectedToFail;
};

constexpr const char* kNotSupervised = "repro does not yet supervise the driver in a child process";
// A stall ends by the supervisor's call deadline (src/vk/watch.hpp kCallSeconds, 10 s):
// well inside the 60 s a `timeout 60 repro ...` would allow.
constexpr double kFaultLimitSeconds = 40;

class DriverFault : public ::testing::TestWithParam<FaultCase> {};

TEST_P(DriverFault, EndsWithADocumentedStatusAndNamesTheCall) {
    const FaultCase& c = GetParam();
    const BoundedResult r = repro({"--preset", "tiny", "-n", "2", "--mode", "all", "--timeout", "5"},
                                  c.kind + ":" + c.call, kFaultLimitSeconds);
    const bool namesCall = contains(r.out + r.err, c.call);
    const bool passes = !r.timedOut && r.signal == 0 && r.status == c.status && namesCall;
    if (c.expectedToFail) {
        if (passes) {
            FAIL() << c.kind << ":" << c.call << " now passes: remove the expected-failure mark\n" << shown(r);
        }
        GTEST_SKIP() << "expected failure (" << kNotSupervised << "): " << c.kind << ":" << c.call << " ended with "
                     << describeEnd(r) << ", wanted exit " << c.status << " and a line naming " << c.call;
    }
    EXPECT_FALSE(r.timedOut) << shown(r);
    EXPECT_EQ(r.signal, 0) << shown(r);
    EXPECT_EQ(r.status, c.status) << shown(r);
    EXPECT_TRUE(namesCall) << shown(r);
    if (c.kind == "stall") {
        EXPECT_LT(r.seconds, 30) << "a stall must end well inside 60 s: " << shown(r);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Contract, DriverFault,
    ::testing::Values(  // kind, call, wanted status, expected to fail today
        FaultCase{"crash", "vkCreateDevice", 125, false}, FaultCase{"abort", "vkCreateDevice", 125, false},
        FaultCase{"stall", "vkCreateDevice", 125, false}, FaultCase{"crash", "vkCreateComputePipelines", 125, false},
        FaultCase{"abort", "vkCreateComputePipelines", 125, false},
        FaultCase{"stall", "vkCreateComputePipelines", 125, false}, FaultCase{"crash", "vkQueueSubmit", 3, false},
        FaultCase{"abort", "vkQueueSubmit", 3, false}, FaultCase{"stall", "vkQueueSubmit", 3, false},
        FaultCase{"crash", "vkWaitSemaphores", 3, false}, FaultCase{"abort", "vkWaitSemaphores", 3, false},
        FaultCase{"stall", "vkWaitSemaphores", 3, false}),
    [](const auto& p) { return p.param.kind + "_" + p.param.call; });

// The layer's own half of that contract, through the probe: each fault happens where it
// is asked for. The probe is built without sanitizers and run without the sanitize
// preset's LD_PRELOAD (which brings in the AddressSanitizer runtime and its SIGSEGV
// handler), so that its death is the signal itself.
TEST(DriverFault, TheLayerCrashesAbortsStallsOrLosesTheDevice) {
    const auto run = [](const std::string& setting, double limit) {
        std::vector<std::string> env = simulated(setting);
        env.emplace_back("LD_PRELOAD=");
        return runBounded(REPRO_SIMDRIVER_PROBE, {}, env, limit);
    };
    const BoundedResult crash = run("crash:vkCreateDevice", 60);
    EXPECT_EQ(crash.signal, SIGSEGV) << shown(crash);
    EXPECT_TRUE(contains(crash.out, "apiVersion")) << "the crash comes after the first calls\n" << shown(crash);
    const BoundedResult abort = run("abort:vkEnumeratePhysicalDevices", 60);
    EXPECT_EQ(abort.signal, SIGABRT) << shown(abort);
    const BoundedResult stall = run("stall:vkCreateDevice", 3);
    EXPECT_TRUE(stall.timedOut) << shown(stall);
    const BoundedResult lost = run("lost:vkCreateDevice", 60);
    EXPECT_EQ(lost.status, 1) << shown(lost);
    EXPECT_TRUE(contains(lost.err, "vkCreateDevice failed: VkResult -4")) << shown(lost);
    const BoundedResult second = run("crash:vkCreateDevice:2", 60);  // the probe makes one device: no crash
    EXPECT_EQ(second.status, 0) << shown(second);
}

// ---- identity, api ----------------------------------------------------------------------

TEST(Identity, ListDevicesShowsTheSimulatedRadv) {
    const BoundedResult r = repro({"--list-devices"}, "identity");
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(0: AMD Radeon 890M Graphics \(RADV STRIX1\) \[INTEGRATED_GPU, )"
                                                    R"(Vulkan 1\.\d+\.\d+, radv Mesa 26\.0\.2\] usable)")))
        << r.out;
}

TEST(Identity, MarkdownReportShowsTheSimulatedRadv) {
    // -v: the text report on stderr carries the whole driver line.
    const BoundedResult r = repro({"-v", "--preset", "tiny", "-n", "1", "--format", "markdown"}, "identity");
    EXPECT_EQ(r.status, 0) << shown(r);
    for (const char* s : {"AMD Radeon 890M Graphics (RADV STRIX1)", "DRIVER_ID_MESA_RADV", "Mesa 26.0.2", "0x1002",
                          "0x150e", "INTEGRATED_GPU"}) {
        EXPECT_TRUE(contains(r.out, s)) << s << "\n" << r.out;
    }
    EXPECT_TRUE(contains(r.err,
                         "driver: driverName radv | driverInfo Mesa 26.0.2 | driverID DRIVER_ID_MESA_RADV | "
                         "driverVersion 26.0.2"))
        << r.err;
}

TEST(Identity, PciAddressIsReportedAndItsExtensionListed) {
    const BoundedResult r = repro({"-v", "--preset", "tiny", "-n", "1"}, "identity:pci=0000:c4:00.0");
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "| PCI 0000:c4:00.0")) << r.out;
    const BoundedResult probe = runBounded(REPRO_SIMDRIVER_PROBE, {}, simulated("identity:pci=0000:c4:00.0"), 60);
    EXPECT_EQ(probe.status, 0) << "enabling the layer's VK_EXT_pci_bus_info works\n" << shown(probe);
    EXPECT_TRUE(contains(probe.out, "extension VK_EXT_pci_bus_info\n")) << probe.out;
    const BoundedResult plain = runBounded(REPRO_SIMDRIVER_PROBE, {}, simulated("identity"), 60);
    EXPECT_EQ(count(plain.out, "extension VK_EXT_pci_bus_info\n"),
              count(runBounded(REPRO_SIMDRIVER_PROBE, {}, {}, 60).out, "extension VK_EXT_pci_bus_info\n"));
}

TEST(Api10, ReproRefusesAndPromotedEntryPointsAreHidden) {
    const BoundedResult r = repro({"--preset", "tiny", "-n", "1"}, "api:1.0");
    EXPECT_EQ(r.status, 125) << shown(r);
    EXPECT_TRUE(contains(r.err, "Vulkan 1.0 device; blade needs 1.1")) << r.err;
    const std::vector<std::string> names = {"vkCreateDescriptorUpdateTemplate",
                                            "vkCreateDescriptorUpdateTemplateKHR",
                                            "vkWaitSemaphores",
                                            "vkWaitSemaphoresKHR",
                                            "vkGetBufferDeviceAddress",
                                            "vkCmdDispatch"};
    const BoundedResult probe = runBounded(REPRO_SIMDRIVER_PROBE, names, simulated("api:1.0"), 60);
    ASSERT_EQ(probe.status, 0) << shown(probe);
    EXPECT_TRUE(std::regex_search(probe.out, std::regex(R"(apiVersion 1\.0\.\d+\n)"))) << probe.out;
    // vkGetDeviceProcAddr gives null; vkGetInstanceProcAddr still gives the loader's own
    // trampoline, which the loader hands out for every core name without asking a layer
    // (Vulkan-Loader docs/LoaderLayerInterface.md, "the loader's vkGetInstanceProcAddr ...
    // 1. Check if core function"), as it would over a real 1.0 driver.
    for (const char* hidden : {"vkCreateDescriptorUpdateTemplate", "vkWaitSemaphores", "vkGetBufferDeviceAddress"}) {
        EXPECT_TRUE(contains(probe.out, std::string(hidden) + " device null instance set\n")) << hidden << "\n"
                                                                                              << probe.out;
    }
    for (const char* kept : {"vkCreateDescriptorUpdateTemplateKHR", "vkWaitSemaphoresKHR", "vkCmdDispatch"}) {
        EXPECT_TRUE(contains(probe.out, std::string(kept) + " device set")) << kept << "\n" << probe.out;
    }
    const BoundedResult normal = runBounded(REPRO_SIMDRIVER_PROBE, names, simulated(""), 60);
    EXPECT_TRUE(contains(normal.out, "vkWaitSemaphores device set")) << normal.out;
}

// Behaviours other than seed-bug, watchdog, stale and flaky leave the results alone.
struct Untouching {
    std::string label;
    std::string setting;
};

class BitForBit : public ::testing::TestWithParam<Untouching> {};

TEST_P(BitForBit, DumpsEqualTheDriversOwn) {
    const auto plainDir = freshDir("bits-plain-" + GetParam().label), dir = freshDir("bits-" + GetParam().label);
    const std::vector<std::string> args = {"--preset", "small", "-n", "3", "--mode", "all", "--dump-dir"};
    auto with = [&](const std::filesystem::path& d) {
        std::vector<std::string> a = args;
        a.push_back(d.string());
        return a;
    };
    const BoundedResult plain = plainRepro(with(plainDir));
    ASSERT_EQ(plain.status, 0) << shown(plain);
    const BoundedResult r = repro(with(dir), GetParam().setting);
    EXPECT_EQ(r.status, 0) << shown(r);
    for (const char* mode : {"split", "multipass", "single"}) {
        EXPECT_TRUE(sameBytes(plainDir / (std::string(mode) + ".f32"), dir / (std::string(mode) + ".f32"))) << mode;
    }
    std::filesystem::remove_all(plainDir);
    std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Settings, BitForBit,
                         ::testing::Values(Untouching{"identity", "identity"},
                                           Untouching{"identity_pci_discrete",
                                                      "identity:pci=0000:c4:00.0,type=discrete"},
                                           Untouching{"clock", "clock:us-per-wg=1,ms-per-dispatch=1"},
                                           Untouching{"identity_clock", "identity;clock:us-per-wg=2"},
                                           Untouching{"lost_after_the_run", "lost:vkQueueSubmit:1000"}),
                         [](const auto& p) { return p.param.label; });

// ---- the simulated clock ----------------------------------------------------------------

TEST(Clock, TimestampsReportSimulatedTime) {
    const BoundedResult r = repro({"--preset", "tiny", "-n", "2", "--mode", "split", "--timestamps"},
                                  "clock:us-per-wg=0,ms-per-dispatch=20");
    EXPECT_EQ(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out, "gpu: 80.000 ms in 4 submits; conv-T 20.000 ms each, slice 20.000 ms each")) << r.out;
    EXPECT_GE(r.seconds, 0.08) << "the host waited for the simulated 4 x 20 ms";
}

// watchdog:timeout=500,ms-per-dispatch=100 at -n 4: split's command buffers take 100 ms
// each; multipass's and single's 8 dispatches would take 800 ms, so the 6th (ending at
// 600 ms) and everything after it are killed, and each completes at 500 ms.
TEST(Watchdog, SoftKillGivesZerosWithoutAnErrorAndLogsTheTimeout) {
    const auto dir = freshDir("watchdog-soft");
    const auto kmsg = dir / "kmsg";
    const int64_t before = monotonicMicroseconds();
    const BoundedResult r = repro({"--preset", "tiny", "-n", "4", "--mode", "all"},
                                  "watchdog:timeout=500,ms-per-dispatch=100,kmsg=" + kmsg.string());
    const int64_t after = monotonicMicroseconds();
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "  mode=multipass nz=0/280 (0.0%)")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED: mode multipass is zero")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED: mode single is zero")) << r.out;
    // Simulated waits: 8 x 100 ms of split, 500 ms each for multipass and single.
    EXPECT_GE(r.seconds, 1.8) << r.out;
    EXPECT_LT(r.seconds, 60) << r.out;
    const auto records = lines(slurp(kmsg));
    ASSERT_EQ(records.size(), 2u) << slurp(kmsg);
    const std::regex form(
        R"((\d+),(\d+),(\d+),-;amdgpu 0000:c4:00\.0: amdgpu: ring gfx_0\.0\.0 timeout, but soft recovered)");
    for (size_t i = 0; i < records.size(); ++i) {
        std::smatch m;
        ASSERT_TRUE(std::regex_match(records[i], m, form)) << records[i];
        EXPECT_EQ(m[1], "3");
        EXPECT_EQ(std::stoull(m[2]), i);
        const int64_t usec = std::stoll(m[3]);
        EXPECT_GT(usec, before);
        EXPECT_LT(usec, after);
    }
    std::filesystem::remove_all(dir);
}

TEST(Watchdog, HardKillLosesTheDeviceAndLogsAReset) {
    const auto dir = freshDir("watchdog-hard");
    const auto kmsg = dir / "kmsg";
    const BoundedResult r =
        repro({"--preset", "tiny", "-n", "4", "--mode", "all"},
              "identity:pci=0000:03:00.0;watchdog:timeout=500,ms-per-dispatch=100,recovery=hard,kmsg=" + kmsg.string());
    EXPECT_EQ(r.status, 3) << shown(r);
    EXPECT_TRUE(contains(r.out, "-> ok: finite and non-zero; the reference for the other modes")) << r.out;
    EXPECT_TRUE(contains(r.out, "  mode=multipass HANG")) << r.out;
    EXPECT_TRUE(contains(
        r.out, "lost the device: vkWaitSemaphores returned VK_ERROR_DEVICE_LOST at submit 1 of 1 (all 4 steps)"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "  mode=single    not run")) << r.out;
    const std::string log = slurp(kmsg);
    const auto records = lines(log);
    ASSERT_EQ(records.size(), 4u) << log;
    EXPECT_TRUE(
        std::regex_match(records[0], std::regex(R"(3,0,\d+,-;amdgpu 0000:03:00\.0: amdgpu: ring gfx_0\.0\.0 timeout, )"
                                                R"(signaled seq=\d+, emitted seq=\d+)")))
        << records[0];
    EXPECT_TRUE(
        std::regex_match(records[1], std::regex(R"(3,1,\d+,-;amdgpu 0000:03:00\.0: amdgpu: Process information: )"
                                                R"(process repro pid \d+ thread repro pid \d+)")))
        << records[1];
    EXPECT_TRUE(std::regex_match(records[2], std::regex(R"(6,2,\d+,-;amdgpu 0000:03:00\.0: amdgpu: GPU reset begin!)")))
        << records[2];
    EXPECT_TRUE(std::regex_match(records[3],
                                 std::regex(R"(6,3,\d+,-;amdgpu 0000:03:00\.0: amdgpu: GPU reset\(1\) succeeded!)")))
        << records[3];
    std::filesystem::remove_all(dir);
}

// ---- stale ------------------------------------------------------------------------------

// stale:dispatch=3: step 2's slice (dispatch 4) reads big[1] as it was before step 2's
// conv-T wrote it (the clear's zeros), while the conv-T's own output stays right.
TEST(Stale, CheckStepsNamesTheConsumerAsTheFirstWrongDispatch) {
    const auto doc = std::filesystem::temp_directory_path() / ("repro-stale-" + std::to_string(getpid()) + ".json");
    const BoundedResult r = repro(
        {"--preset", "tiny", "-n", "3", "--mode", "multipass", "--check-steps", "--validation", "--json", doc.string()},
        "stale:dispatch=3");
    EXPECT_EQ(r.status, 2) << shown(r);
    {
        std::ifstream in(doc);
        const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
        ASSERT_TRUE(j.is_object()) << "no report at " << doc;
        for (const auto& m : j["modes"]) {  // split (the reference) passes; multipass fails at the slice
            const nlohmann::json& check = m["per_dispatch_check"];
            EXPECT_EQ(check["state"], m["mode"] == "split" ? "passed" : "failed") << m;
            if (m["mode"] == "multipass") {
                EXPECT_EQ(check["first_wrong"], 4) << check;
            }
        }
    }
    std::filesystem::remove(doc);
    EXPECT_TRUE(contains(r.out, "first wrong dispatch 4: step 2 slice is zero")) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(dispatch   3 step   2 conv-T nz=896/896 \(100\.0%\) .* -> ok)")))
        << r.out;
    EXPECT_TRUE(contains(r.out, "validation: 0 messages")) << "the layer's copies and barriers are valid\n" << r.out;
}

}  // namespace

// ---- the cause of a wrong one-submit mode, through the simulated driver -----------------
// repro reads the kernel log from REPRO_TEST_KMSG (the file the simulated watchdog writes
// its amdgpu lines to), so each run sees exactly the records its own submits caused.

// The run with the simulated RADV identity and the kernel log at DIR/kmsg (created empty,
// as /dev/kmsg always exists).
namespace {
BoundedResult triageRun(const std::filesystem::path& dir, const std::string& behaviour) {
    const auto kmsg = dir / "kmsg";
    std::ofstream(kmsg).close();
    return repro({"--preset", "tiny", "-n", "4", "--mode", "all"},
                 "identity;" + behaviour + (behaviour.starts_with("watchdog") ? ",kmsg=" + kmsg.string() : ""), 120,
                 {"REPRO_TEST_KMSG=" + kmsg.string()});
}
}  // namespace

TEST(Cause, SoftWatchdogKillIsTheJobTimeoutWithItsKernelLine) {
    const auto dir = freshDir("cause-watchdog");
    const BoundedResult r = triageRun(dir, "watchdog:timeout=500,ms-per-dispatch=100");
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- BUG REPRODUCED: mode multipass is killed")) << r.out;
    EXPECT_TRUE(contains(r.out, "mode=multipass cause: the kernel's job timeout")) << r.out;
    EXPECT_TRUE(contains(r.out, "evidence: kernel log during the mode: 'ring gfx_0.0.0 timeout, but soft recovered'"))
        << r.out;
    EXPECT_FALSE(contains(r.out, "cause: synchronization")) << r.out;
    std::filesystem::remove_all(dir);
}

// Under a positive control (--barrier none) the kernel's job timeout is still named where its
// record and the prediction say it killed the mode: a soft recovery's zeros stay BUG REPRODUCED
// (the control was not judged there: JSON verdict.kind "reproduced"), a hard recovery's loss is
// a GPU HANG with the job timeout's cause. Where nothing explains a hang (the simulated hang, only
// repro's --timeout ending the wait), the cause says the control or the file itself, and that the
// mode without the control was not run.
namespace {
TEST(Cause, UnderAControlTheJobTimeoutIsNamedAndAnUnexplainedHangIsUndecided) {
    const auto dir = freshDir("cause-control-hang");
    const auto kmsg = dir / "kmsg";
    const auto json = dir / "soft.json";
    const auto watchdogRun = [&](const std::string& recovery, std::vector<std::string> extra) {
        std::ofstream(kmsg).close();
        std::vector<std::string> args{"--preset", "tiny", "-n", "4", "--mode", "multipass", "--barrier", "none"};
        args.insert(args.end(), extra.begin(), extra.end());
        return repro(
            args, "identity;watchdog:timeout=500,ms-per-dispatch=100,recovery=" + recovery + ",kmsg=" + kmsg.string(),
            120, {"REPRO_TEST_KMSG=" + kmsg.string()});
    };
    const BoundedResult soft = watchdogRun("soft", {"--json", json.string()});
    EXPECT_EQ(soft.status, 2) << shown(soft);
    EXPECT_TRUE(contains(soft.out, "\n--- BUG REPRODUCED: mode multipass is killed")) << shown(soft);
    EXPECT_TRUE(contains(soft.out, "mode=multipass cause: the kernel's job timeout")) << shown(soft);
    EXPECT_TRUE(contains(soft.out, "\n--- the control was not judged in multipass (--barrier none: ")) << shown(soft);
    EXPECT_FALSE(contains(soft.out, "CONTROL CAUGHT")) << shown(soft);
    EXPECT_FALSE(contains(soft.out, "the control was caught")) << shown(soft);
    EXPECT_TRUE(contains(slurp(json), "\"kind\": \"reproduced\"")) << slurp(json);
    const BoundedResult hard = watchdogRun("hard", {});
    EXPECT_EQ(hard.status, 3) << shown(hard);
    EXPECT_TRUE(contains(hard.out, "mode=multipass cause: the kernel's job timeout")) << shown(hard);
    EXPECT_TRUE(contains(hard.out, "the mode runs under a positive control: --barrier none")) << shown(hard);
    EXPECT_FALSE(contains(hard.out, "cause: the control")) << shown(hard);
    const BoundedResult hung =
        repro({"--preset", "tiny", "-n", "4", "--mode", "multipass", "--barrier", "none", "--timeout", "1"},
              "clock:us-per-wg=1;hang:dispatches=1", 120);
    EXPECT_EQ(hung.status, 3) << shown(hung);
    EXPECT_TRUE(contains(hung.out, "mode=multipass cause: the control (--barrier none: ")) << shown(hung);
    EXPECT_TRUE(contains(hung.out, ") or the file itself: the mode did not finish")) << shown(hung);
    EXPECT_TRUE(contains(hung.out, "missing: multipass run without the control, which tells whether the file hangs"))
        << shown(hung);
    EXPECT_TRUE(contains(hung.out, "\n--- GPU HANG: mode multipass ")) << shown(hung);
    EXPECT_TRUE(contains(hung.out, "(cause: the control or the file itself)\n")) << shown(hung);
    std::filesystem::remove_all(dir);
}
}  // namespace

// A --sweep under a control says CONTROL CAUGHT where every point's reproduction is the
// control's (it said BUG REPRODUCED), and BUG REPRODUCED, JSON verdict.kind "reproduced", where a
// point's mode the job timeout killed kept its BUG REPRODUCED line (the kind was
// "control_caught", the sweep's one line not read as the driver's).
namespace {
TEST(Cause, ASweepUnderAControlSaysWhetherAnyPointWasTheDriversFault) {
    const auto dir = freshDir("sweep-control");
    const BoundedResult caught =
        plainRepro({"--preset", "tiny", "--sweep", "2..3", "--drop-dispatch", "3", "--format", "json"});
    EXPECT_EQ(caught.status, 2) << shown(caught);
    EXPECT_TRUE(contains(caught.err, "\n--- sweep verdict: CONTROL CAUGHT; smallest reproducing N: ")) << shown(caught);
    EXPECT_EQ(nlohmann::json::parse(caught.out).at("verdict").at("kind"), "control_caught") << caught.out;
    const auto kmsg = dir / "kmsg";
    std::ofstream(kmsg).close();
    const BoundedResult killed =
        repro({"--preset", "tiny", "--sweep", "3..4", "--mode", "multipass", "--barrier", "none", "--format", "json"},
              "identity;watchdog:timeout=500,ms-per-dispatch=100,recovery=soft,kmsg=" + kmsg.string(), 120,
              {"REPRO_TEST_KMSG=" + kmsg.string()});
    EXPECT_EQ(killed.status, 2) << shown(killed);
    EXPECT_TRUE(contains(killed.err, "\n--- BUG REPRODUCED: mode multipass is killed")) << shown(killed);
    EXPECT_TRUE(contains(killed.err, "\n--- sweep verdict: BUG REPRODUCED; smallest reproducing N: ")) << shown(killed);
    EXPECT_EQ(nlohmann::json::parse(killed.out).at("verdict").at("kind"), "reproduced") << killed.out;
    std::filesystem::remove_all(dir);
}
}  // namespace

// recovery=soft-next-submit: amdgpu's soft recovery lets the killed job's fence signal, so the
// mode's own wait returns VK_SUCCESS, and only the next submit reports the lost context. At
// tiny, small[N] is read from mapped memory with no readback submit: without repro's canary
// after the mode, nothing the mode does submits again, and the loss is never seen there.
namespace {
TEST(Canary, AKillTheDriverReportsOnlyAtTheNextSubmitIsCaughtByTheCanary) {
    const auto dir = freshDir("canary");
    const auto doc = dir / "r.json";
    const auto kmsg = dir / "kmsg";
    std::ofstream(kmsg).close();
    const BoundedResult r =
        repro({"--preset", "tiny", "-n", "4", "--mode", "all", "--json", doc.string()},
              "identity;device-fault;watchdog:timeout=500,ms-per-dispatch=100,recovery=soft-next-submit,kmsg=" +
                  kmsg.string(),
              120, {"REPRO_TEST_KMSG=" + kmsg.string()});
    EXPECT_EQ(r.status, 3) << shown(r);
    EXPECT_TRUE(contains(r.out,
                         "lost the device: vkQueueSubmit returned VK_ERROR_DEVICE_LOST at repro's canary after "
                         "the mode"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "mode=multipass cause: the kernel's job timeout")) << r.out;
    EXPECT_TRUE(contains(r.out, "evidence: recovery: soft")) << r.out;
    // the device lists VK_EXT_device_fault (device-fault): repro enabled it and asked after the loss
    EXPECT_TRUE(contains(r.out, "VK_EXT_device_fault: repro-simulate: a simulated device fault (0 address records"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "  mode=single    not run")) << r.out;
    EXPECT_FALSE(contains(r.out, "BUG REPRODUCED")) << r.out;
    std::ifstream in(doc);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    ASSERT_TRUE(j.is_object()) << "no report at " << doc;
    std::map<std::string, nlohmann::json> modes;
    for (const auto& m : j["modes"]) modes[m["mode"].get<std::string>()] = m;
    EXPECT_EQ(modes["split"]["canary"], "VK_SUCCESS") << modes["split"];
    EXPECT_EQ(modes["multipass"]["canary"], "VK_ERROR_DEVICE_LOST") << modes["multipass"];
    EXPECT_EQ(modes["multipass"]["cause"]["device_lost"]["at_canary"], true) << modes["multipass"];
    EXPECT_EQ(modes["multipass"]["cause"]["device_lost"]["recovery"], "soft") << modes["multipass"];
    std::filesystem::remove_all(dir);
}
}  // namespace

TEST(Cause, StaleInputWithTheFullTimeIsSynchronizationNotTheWatchdog) {
    const auto dir = freshDir("cause-stale");
    const BoundedResult r = triageRun(dir, "clock:us-per-wg=1,ms-per-dispatch=100;stale:dispatch=3");
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=multipass cause: synchronization: the submit ran its full predicted time"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "evidence: no job-timeout record in the kernel log during the mode")) << r.out;
    EXPECT_FALSE(contains(r.out, "is killed")) << r.out;
    EXPECT_FALSE(contains(r.out, "cause: the kernel's job timeout")) << r.out;
    std::filesystem::remove_all(dir);
}

// The seed bug on lavapipe's real times: the submits are far too short to measure, so the
// cause stays open and says what would decide it, rather than guess.
TEST(Cause, SeedBugWithoutMeasurableTimesIsUndeterminedAndSaysWhatIsMissing) {
    const auto dir = freshDir("cause-seed-bug");
    const BoundedResult r = triageRun(dir, "seed-bug:dispatches=4");
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "mode=multipass cause undetermined: the job timeout is excluded")) << r.out;
    EXPECT_TRUE(contains(r.out, "missing: a prediction above the host's timing margin")) << r.out;
    std::filesystem::remove_all(dir);
}
