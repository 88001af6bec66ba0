// End-to-end tests of the workaround and hypothesis experiments on the machine's
// Vulkan driver (lavapipe in CI), under the validation layer with synchronization
// validation: every valid variant is validation-clean and equal to the chain the test
// computes itself; the two invalid controls draw hazard messages (proving validation is
// live); --spirv accepts good modules and rejects truncated and wrong-magic ones with one
// line; --matrix and --driver-env-sweep print their tables and can fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <chrono>
#include <csignal>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"

#if !defined(REPRO_BUILT_SPIRV_DIR)
#error "REPRO_BUILT_SPIRV_DIR must be defined"
#endif

namespace {

using repro::test::contains;
using repro::test::count;
using repro::test::cpuChain;
using repro::test::kRelativeTolerance;
using repro::test::kSmall;
using repro::test::lines;
using repro::test::ProcessResult;
using repro::test::readDump;
using repro::test::runRepro;
using repro::test::TempDir;

// The largest |dump - independent chain| over small[N] of `mode`, relative to the chain's
// largest magnitude.
double relativeError(const std::filesystem::path& dir, const char* mode, int n) {
    const std::vector<double> expected = cpuChain(kSmall, n);
    double scale = 0;
    for (double v : expected) scale = std::max(scale, std::fabs(v));
    const std::vector<float> got = readDump(dir / (std::string(mode) + ".f32"));
    if (got.size() != expected.size() || scale == 0) return INFINITY;
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - expected[i]));
    return worst / scale;
}

struct VariantCase {
    std::string name;
    std::vector<std::string> flags;
};

void PrintTo(const VariantCase& c, std::ostream* os) { *os << c.name; }

class ValidVariant : public ::testing::TestWithParam<VariantCase> {};

// All three modes at small size, N=3, the variant applied to multipass and single (split is
// the reference): exit 0, zero validation messages, each mode equal to the test's chain.
TEST_P(ValidVariant, ValidationCleanAndEqualToTheIndependentChain) {
    const auto& c = GetParam();
    const TempDir dir(c.name);
    std::vector<std::string> args = {"--validation", "--mode", "all",        "--preset",         "small",
                                     "-n",           "3",      "--dump-dir", dir.path().string()};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    const ProcessResult r = runRepro(args);
    ASSERT_FALSE(r.signaled) << r.err;
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "validation: 0 messages")) << r.out;
    EXPECT_TRUE(contains(r.out, "  experiment: ")) << "the variant is not stated: " << r.out;
    for (const char* mode : {"split", "multipass", "single"}) {
        EXPECT_LE(relativeError(dir.path(), mode, 3), kRelativeTolerance) << mode;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Lavapipe, ValidVariant,
    ::testing::Values(VariantCase{"barrier_sync2", {"--barrier", "sync2"}},
                      VariantCase{"barrier_buffer", {"--barrier", "buffer"}},
                      VariantCase{"barrier_full", {"--barrier", "full"}},
                      VariantCase{"submit_every_2_host_wait", {"--submit-every", "2"}},
                      VariantCase{"submit_every_1_no_host_wait", {"--submit-every", "1", "--no-host-wait"}},
                      VariantCase{"split_mib_no_host_wait", {"--split-mib", "0.06", "--no-host-wait"}},
                      VariantCase{"memory_device_local", {"--memory", "device-local", "--check-steps"}},
                      VariantCase{"memory_host_visible", {"--memory", "host-visible", "--check-steps"}},
                      VariantCase{"memory_host_cached", {"--memory", "host-cached"}},
                      VariantCase{"dispatch_repeat_3_buffer_barrier",
                                  {"--dispatch-repeat", "3", "--barrier", "buffer"}},
                      VariantCase{"all_at_once_with_instrumentation",
                                  {"--barrier", "sync2", "--submit-every", "3", "--no-host-wait", "--dispatch-repeat",
                                   "2", "--memory", "device-local", "--timestamps", "--labels", "--breadcrumbs"}},
                      // blade-exact's sub-allocation, device addresses and CAPTURE_STATISTICS with the
                      // storage-block SPIR-V: only the params descriptor mismatch is left out.
                      VariantCase{"blade_exact_layout_with_storage_params",
                                  {"--profile", "blade-exact", "--spirv", REPRO_BUILT_SPIRV_DIR}}),
    [](const auto& p) { return p.param.name; });

// The controls record no memory dependency between dependent dispatches: synchronization
// validation must say so (this is what proves validation is live for the valid variants).
class ControlVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(ControlVariant, DrawsReadAfterWriteHazardsAndSaysItIsAControl) {
    const ProcessResult r =
        runRepro({"--validation", "--mode", "single", "--preset", "small", "-n", "3", "--barrier", GetParam()});
    ASSERT_FALSE(r.signaled) << r.err;
    EXPECT_TRUE(contains(r.out, "CONTROL: --barrier " + GetParam() + " is INVALID Vulkan on purpose")) << r.out;
    EXPECT_TRUE(contains(r.err, "SYNC-HAZARD-READ-AFTER-WRITE")) << r.err;
    // Five dependencies inside the one command buffer of a 3-step chain, one hazard each.
    EXPECT_GE(count(r.err, "SYNC-HAZARD-READ-AFTER-WRITE"), 5u) << r.err;
    EXPECT_EQ(r.status, 4) << "validation messages and nothing worse: " << r.out;
}

INSTANTIATE_TEST_SUITE_P(Lavapipe, ControlVariant, ::testing::Values("none", "execution-only"), [](const auto& p) {
    std::string n = p.param;
    std::replace(n.begin(), n.end(), '-', '_');
    return n;
});

TEST(BladeExact, ListsItsQuirksAndIsNotValidationClean) {
    const ProcessResult r =
        runRepro({"--validation", "--mode", "single", "--preset", "small", "-n", "2", "--profile", "blade-exact"});
    ASSERT_FALSE(r.signaled) << r.err;
    EXPECT_TRUE(contains(r.out, "profile blade-exact: quirks in force:")) << r.out;
    EXPECT_TRUE(contains(r.out, "written through a STORAGE_BUFFER descriptor")) << r.out;
    EXPECT_TRUE(contains(r.out, "no HOST_READ barrier")) << r.out;
    EXPECT_TRUE(contains(r.out, "NOT validation-clean")) << r.out;
    EXPECT_TRUE(contains(r.out, "entry point 'conv_t'")) << "named as naga names it: " << r.out;
    EXPECT_TRUE(contains(r.out, "entry point 'slice'")) << r.out;
    EXPECT_TRUE(contains(r.out, "=uniform buffer")) << "params is declared Uniform: " << r.out;
    // gpu-alloc's buddy layout: the small buffers share one chunk.
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(shared chunk \d+: conv_params@0, slice_params@\d+)"))) << r.out;
    // The descriptor type mismatch is what validation reports.
    EXPECT_TRUE(contains(r.err, "VUID-VkComputePipelineCreateInfo-layout-00703")) << r.err;
    EXPECT_NE(r.status, 0) << r.out;
}

// --spirv with the modules the build made from shaders/: accepted, described, correct.
TEST(Spirv, GoodModulesAreCheckedDescribedAndUsed) {
    const TempDir dir("spirv-good-dump");
    const ProcessResult r = runRepro({"--validation", "--mode", "all", "--preset", "small", "-n", "2", "--spirv",
                                      REPRO_BUILT_SPIRV_DIR, "--dump-dir", dir.path().string()});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "conv_t.spv: entry point 'main', SPIR-V 1.3")) << r.out;
    EXPECT_TRUE(contains(r.out, "slice.spv: entry point 'main', SPIR-V 1.3")) << r.out;
    EXPECT_TRUE(contains(r.out, "validation: 0 messages")) << r.out;
    for (const char* mode : {"split", "multipass", "single"})
        EXPECT_LE(relativeError(dir.path(), mode, 2), kRelativeTolerance);
}

// Fills `dir` with conv_t.spv and slice.spv, copied from the build, then `edit`ed.
void fillSpirvFolder(const TempDir& dir, void (*edit)(std::vector<char>&)) {
    for (const char* file : {"conv_t.spv", "slice.spv"}) {
        std::ifstream in(std::filesystem::path(REPRO_BUILT_SPIRV_DIR) / file, std::ios::binary);
        std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (std::string(file) == "conv_t.spv") edit(bytes);
        std::ofstream(dir / file, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
    }
}

void expectOneLineUsageError(const ProcessResult& r, const std::string& pattern) {
    ASSERT_FALSE(r.signaled) << r.err;
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    const auto errLines = lines(r.err);
    ASSERT_EQ(errLines.size(), 1u) << r.err;
    EXPECT_TRUE(std::regex_search(errLines[0], std::regex(pattern))) << errLines[0];
    EXPECT_FALSE(contains(r.out, "--- results ---")) << r.out;
}

TEST(Spirv, TruncatedModuleIsOneUsageErrorNamingTheFile) {
    // Cut in the middle of the last instruction, on a word boundary.
    const TempDir dir("spirv-truncated");
    fillSpirvFolder(dir, [](std::vector<char>& b) { b.resize(b.size() - 8); });
    expectOneLineUsageError(runRepro({"--preset", "tiny", "--spirv", dir.path().string()}),
                            R"(^repro: .*conv_t\.spv': instruction at word \d+ .*running past the end)");
    // Not a whole number of words.
    const TempDir odd("spirv-odd-size");
    fillSpirvFolder(odd, [](std::vector<char>& b) { b.resize(b.size() - 2); });
    expectOneLineUsageError(runRepro({"--preset", "tiny", "--spirv", odd.path().string()}),
                            R"(^repro: .*conv_t\.spv': \d+ bytes, not a whole number of 32-bit words)");
}

TEST(Spirv, WrongMagicIsOneUsageErrorNamingTheValue) {
    const TempDir dir("spirv-magic");
    fillSpirvFolder(dir, [](std::vector<char>& b) { b[0] = 0x11; });
    expectOneLineUsageError(runRepro({"--preset", "tiny", "--spirv", dir.path().string()}),
                            R"(^repro: .*conv_t\.spv': .*magic.*0x07230211)");
}

TEST(Spirv, MissingFolderIsOneUsageError) {
    expectOneLineUsageError(runRepro({"--preset", "tiny", "--spirv", "/nonexistent-repro-spirv"}),
                            R"(^repro: '/nonexistent-repro-spirv/conv_t\.spv': cannot read)");
    // The parents check once, before any child runs.
    expectOneLineUsageError(runRepro({"--matrix", "--preset", "tiny", "--spirv", "/nonexistent-repro-spirv"}),
                            R"(^repro: '/nonexistent-repro-spirv/conv_t\.spv': cannot read)");
}

// The matrix rows: "  <#>  <label> <result> <exit> <validation> <gpu>...".
std::vector<std::string> matrixRows(const std::string& out) {
    std::vector<std::string> rows;
    for (const auto& line : lines(out)) {
        if (std::regex_search(line, std::regex(R"(^\s+\d+\s+(multipass|single) )"))) rows.push_back(line);
    }
    return rows;
}

TEST(Matrix, PrintsEveryVariantAndPassesOnACorrectDriver) {
    const ProcessResult r = runRepro({"--matrix", "-n", "2", "--preset", "tiny", "--validation"});
    ASSERT_FALSE(r.signaled) << r.err;
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const auto rows = matrixRows(r.out);
    ASSERT_EQ(rows.size(), 23u) << r.out;
    EXPECT_TRUE(contains(r.out, "23 variants (19 valid, 2 controls, 2 with blade's own quirks)")) << r.out;
    // With a --barrier other than blade's, multipass and single record one stream: listed once.
    EXPECT_TRUE(contains(r.out, "5 more variants are folded into the ones they repeat")) << r.out;
    EXPECT_TRUE(contains(r.out, "multipass = single barrier=sync2")) << r.out;
    EXPECT_FALSE(contains(r.out, "  single barrier=sync2")) << r.out;
    size_t validClean = 0;
    for (const auto& row : rows) {
        const bool control = contains(row, "(control)");
        const bool quirks = contains(row, "blade-exact");
        if (control) {
            EXPECT_TRUE(contains(row, "hazards)")) << row;
        } else if (!quirks) {
            EXPECT_TRUE(std::regex_search(row, std::regex(R"( ok\s+0\s+clean)"))) << row;
            validClean += std::regex_search(row, std::regex(R"( ok\s+0\s+clean)"));
        }
    }
    EXPECT_EQ(validClean, 19u);
    EXPECT_TRUE(contains(r.out, "2 drew hazard messages")) << r.out;
    // --split-ms at half the job timeout needs a known timeout; lavapipe has none, and says so.
    EXPECT_TRUE(contains(r.out,
                         "split-ms (half the job timeout): not run: the first child's report names no job "
                         "timeout"))
        << r.out;
    // The same conclusion section as --triage, from the rows.
    EXPECT_TRUE(contains(r.out, "--- conclusion: not reproduced; nothing to triage")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- validation: 0 of the valid default-profile variants drew messages")) << r.out;
    EXPECT_TRUE(contains(r.out, "--- matrix verdict: NOT REPRODUCED by any valid variant")) << r.out;
}

TEST(Matrix, MarkdownBlockOnStdoutTextOnStderr) {
    const ProcessResult r = runRepro({"--matrix", "-n", "1", "--preset", "tiny", "--format", "markdown"});
    ASSERT_FALSE(r.signaled) << r.err;
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(r.out.rfind("### repro --matrix: NOT REPRODUCED by any valid variant\n", 0), 0u) << r.out;
    EXPECT_TRUE(contains(r.out, "| # | variant | result | exit | validation | GPU | note |")) << r.out;
    EXPECT_TRUE(contains(r.out, "| 6 | multipass = single barrier=none (control) | ok | 0 |")) << r.out;
    EXPECT_EQ(count(r.out, "\n| "), 24u) << "header and 23 rows: " << r.out;
    EXPECT_TRUE(matrixRows(r.out).empty()) << "the text table belongs on stderr";
    EXPECT_EQ(matrixRows(r.err).size(), 23u) << r.err;
}

// A chain broken on purpose in every variant (--drop-dispatch passes through to the
// children): the matrix must report it and exit 2.
// The children run /proc/self/exe, this process's own binary even once its file is gone: a
// rebuild or deletion during a long matrix must not turn its rows into "did not start".
TEST(Matrix, ChildrenRunEvenAfterTheExecutableIsDeleted) {
    const TempDir dir("matrix-deleted-exe");
    const std::filesystem::path copy = dir / "repro-copy";
    std::filesystem::copy_file(REPRO_EXECUTABLE, copy);
    const std::filesystem::path tmp = dir / "tmp";
    std::filesystem::create_directories(tmp);
    // Delete the copy as soon as the first child has written its report. The walk takes error
    // codes: repro creates and removes files under TMPDIR while it runs, and a throwing walk
    // that meets one gone would end the test with std::terminate.
    std::thread remover([&] {
        for (int i = 0; i < 6000; ++i) {
            std::error_code ec;
            for (std::filesystem::recursive_directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
                if (it->path().filename() == "variant-01.json") {
                    std::filesystem::remove(copy);
                    return;
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    });
    const ProcessResult r = repro::test::runProcess(
        copy.string(), {"--matrix", "-n", "2", "--preset", "tiny", "--keep-logs"}, {"TMPDIR=" + tmp.string()}, 600);
    remover.join();
    EXPECT_FALSE(std::filesystem::exists(copy)) << "the copy was never deleted";
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_FALSE(contains(r.out, "did not start")) << r.out;
    EXPECT_TRUE(contains(r.out, "19 valid (19 ran, 0 reproduced the bug, 0 hung)")) << r.out;
}

TEST(Matrix, ReportsABrokenChainAndExitsTwo) {
    const ProcessResult r = runRepro({"--matrix", "-n", "2", "--preset", "tiny", "--drop-dispatch", "3"});
    ASSERT_FALSE(r.signaled) << r.err;
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "--- matrix verdict: BUG REPRODUCED by a valid variant")) << r.out;
    EXPECT_TRUE(contains(r.out, "multipass blade (as recorded by blade)")) << r.out;
    EXPECT_TRUE(contains(r.out, "19 valid (19 ran, 19 reproduced the bug, 0 hung)")) << r.out;
    // The dropped dispatch, not a race, makes the controls wrong.
    EXPECT_TRUE(contains(r.out, "control: wrong, as --drop-dispatch 3 makes every variant")) << r.out;
    EXPECT_FALSE(contains(r.out, "control: raced")) << r.out;
    EXPECT_TRUE(contains(r.out, "2 controls (0 raced")) << r.out;
    // Each quirk row's summary names its exit once (issue 21, 6c: it read "(exit 2) (exit 2)").
    int quirkLines = 0;
    std::istringstream text(r.out);
    for (std::string line; std::getline(text, line);) {
        if (!contains(line, "    blade's quirks: ")) continue;
        ++quirkLines;
        const size_t first = line.find("(exit ");
        EXPECT_NE(first, std::string::npos) << line;
        EXPECT_EQ(line.find("(exit ", first + 1), std::string::npos) << line;
    }
    EXPECT_EQ(quirkLines, 2) << r.out;
}

// Kills (SIGKILL) every process whose command line names both `folder` and `name`, polling
// until one is found or `tries` polls of 10 ms pass; returns how many it killed.
int killProcessesNaming(const std::string& folder, const std::string& name, int tries) {
    for (int i = 0; i < tries; ++i) {
        int killed = 0;
        for (const auto& e : std::filesystem::directory_iterator("/proc")) {
            const std::string pid = e.path().filename().string();
            if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
            std::ifstream in(e.path() / "cmdline", std::ios::binary);
            const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            if (cmdline.find(folder) == std::string::npos || cmdline.find(name) == std::string::npos) continue;
            if (::kill(std::stoi(pid), SIGKILL) == 0) ++killed;
        }
        if (killed > 0) return killed;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return 0;
}

// A valid variant's child killed from outside: its line says "crashed (signal 9; log FILE)",
// and the folder holding FILE is kept at exit and said so, so the pointer leads to a file
// (issue 21, 6c: the pointer named a log deleted at exit).
TEST(Matrix, AKilledChildsLinePointsAtALogThatIsKept) {
    const TempDir dir("matrix-killed-child");
    const std::string marker = (dir / "repro-matrix-").string();  // TMPDIR/repro-matrix-XXXXXX
    std::thread killer([&] { EXPECT_GT(killProcessesNaming(marker, "variant-01.json", 6000), 0); });
    const ProcessResult r =
        runRepro({"--matrix", "-n", "1", "--preset", "tiny"}, {"TMPDIR=" + dir.path().string()}, 600);
    killer.join();
    ASSERT_FALSE(r.signaled) << r.err;
    EXPECT_EQ(r.status, 125) << r.out << r.err;
    std::smatch m;
    std::regex_search(r.out, m,
                      std::regex("multipass blade \\(as recorded by blade\\): crashed \\(signal 9; "
                                 "log (\\S+variant-01\\.log)\\)"));
    ASSERT_FALSE(m.empty()) << r.out;
    const std::string log = m[1].str();
    EXPECT_EQ(log.rfind(marker, 0), 0u) << log;
    EXPECT_TRUE(std::filesystem::exists(log)) << log << " was removed at exit";
    EXPECT_TRUE(contains(r.out + r.err, ": a line above points at a child's log")) << r.out << r.err;
}

TEST(DriverEnvSweep, NoSettingForLavapipeUnlessAllDrivers) {
    const ProcessResult r = runRepro({"--driver-env-sweep", "--preset", "tiny", "-n", "2", "--mode", "single"});
    ASSERT_FALSE(r.signaled) << r.err;
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "RADV_DEBUG=hang itself adds synchronization")) << r.out;
    EXPECT_TRUE(contains(r.out, "no documented synchronization setting for driver MESA_LLVMPIPE")) << r.out;
    EXPECT_TRUE(contains(r.out, "the run without a setting does not reproduce")) << r.out;
}

// Every row of every driver either runs as a child (a name lavapipe's library happens to hold)
// or, where libvulkan_lvp.so does not hold the option's name, is not run and says so.
TEST(DriverEnvSweep, AllDriversRunsEverySettingTheLibraryMayKnowAsAChild) {
    const ProcessResult r =
        runRepro({"--driver-env-sweep", "--all-drivers", "--preset", "tiny", "-n", "2", "--mode", "single"});
    ASSERT_FALSE(r.signaled) << r.err;
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    for (const char* setting :
         {"RADV_DEBUG=syncshaders", "RADV_DEBUG=nocompute", "RADV_DEBUG=zerovram", "ACO_DEBUG=force-waitcnt",
          "RADV_PERFTEST=cswave32", "INTEL_DEBUG=sync", "NVK_DEBUG=push_sync"}) {
        EXPECT_TRUE(std::regex_search(
            r.out, std::regex(std::string(R"(\n  )") + setting + R"( +(single ok +0 |not known to this driver +- ))")))
            << setting << "\n"
            << r.out;
    }
    // Debian 12's lavapipe has no RADV option table (unit.OptionPresenceInLibrary.*).
    EXPECT_TRUE(
        std::regex_search(r.out, std::regex(R"(\n  RADV_DEBUG=syncshaders +not known to this driver +- +- +)"
                                            R"(libvulkan_lvp\.so does not know RADV_DEBUG option 'syncshaders')")))
        << r.out;
    EXPECT_TRUE(contains(r.out, "      if the outcome changes: a missing execution dependency")) << r.out;
}

}  // namespace
