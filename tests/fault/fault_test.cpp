// Failure-path tests: runs repro_faulty (repro with the fault-injection seam,
// tests/fault/fault_injection.cpp) on the machine's Vulkan driver with REPRO_FAULT making
// the k-th call of one Vulkan function fail, over a generated matrix of
// (result, function, k, mode), and checks the exit status (docs/contract.md), the message, that
// the results of modes that finished are still printed and that later modes say
// `not run`. The same table generates docs/failure-matrix.md (FailureMatrixDoc below).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "../e2e/harness.hpp"

#if !defined(REPRO_FAULTY_EXECUTABLE) || !defined(REPRO_EXECUTABLE) || !defined(REPRO_SOURCE_DIR)
#error "REPRO_FAULTY_EXECUTABLE, REPRO_EXECUTABLE and REPRO_SOURCE_DIR must be defined"
#endif

namespace {

using repro::test::contains;
using repro::test::lines;
using repro::test::ProcessResult;
using repro::test::runProcess;

// Every row runs `--preset tiny -n 3 --mode <mode>`.
constexpr int kChain = 3;
// Timeout rows add --timeout 1: the injected hang lasts until repro's own deadline.
constexpr int kTimeoutSeconds = 1;
const std::vector<std::string> kModes = {"split", "multipass", "single", "all"};

// ---- the repro's call plan, restated here so the expectations do not trust src/ ----------

// One mode's run in the order repro performs them. split is the reference: when it was
// not asked for, it runs after the mode under test, and is skipped (no line) once the
// device is gone.
struct Run {
    std::string mode;
    bool referenceOnly = false;
};

std::vector<Run> runsOf(const std::string& mode) {
    if (mode == "all") return {{"split"}, {"multipass"}, {"single"}};
    if (mode == "split") return {{"split"}};
    return {{mode}, {"split", /*referenceOnly=*/true}};
}

// Submits (each host-waited) per run: one clearing the chain's buffers, then 2N for
// split or 1 for multipass and single, then repro's canary (engine/stages.hpp checkCanary).
int submitsIn(const Run& run) { return 1 + (run.mode == "split" ? 2 * kChain : 1) + 1; }

// How repro names submit `j` (0-based, 0 = the clear) of a run in its hang message.
std::string submitLabel(const Run& run, int j) {
    if (j == 0) return "submit 1 of 1 (clearing the chain's buffers)";
    if (j + 1 == submitsIn(run)) return "repro's canary after the mode";
    if (run.mode != "split") return "submit 1 of 1 (all " + std::to_string(kChain) + " steps)";
    const int step = (j + 1) / 2;
    return "submit " + std::to_string(j) + " of " + std::to_string(2 * kChain) + " (step " + std::to_string(step) +
           (j % 2 ? " conv-T)" : " slice)");
}

// Descriptor sets allocated per run: one per dispatch, 2N (the clear binds none).
constexpr int kBindsPerRun = 2 * kChain;

// Buffers in creation order: one vkCreateBuffer and one vkAllocateMemory each.
std::vector<std::string> bufferNames() {
    std::vector<std::string> names{"conv_params", "slice_params", "weight"};
    for (int i = 0; i <= kChain; ++i) names.push_back("small[" + std::to_string(i) + "]");
    for (int i = 0; i < kChain; ++i) names.push_back("big[" + std::to_string(i) + "]");
    return names;
}

// Bytes of each tiny buffer (batch 2, C 4, 5x7, kernel 3x4, stride 1x2: big 7x16).
uint64_t bufferBytes(const std::string& name) {
    if (name == "conv_params") return 64;
    if (name == "slice_params") return 32;
    if (name == "weight") return 4 * 4 * 3 * 4 * 4;
    if (name.rfind("small", 0) == 0) return 2 * 4 * 5 * 7 * 4;
    return 2 * 4 * 7 * 16 * 4;
}

std::string padded(const std::string& mode) { return mode + std::string(9 - mode.size(), ' '); }

// ---- the matrix -----------------------------------------------------------------------------

struct FaultCase {
    std::string label;                   // test name
    std::string fault;                   // REPRO_FAULT
    std::string mode;                    // --mode
    int status = 0;                      // expected exit status
    std::vector<std::string> messages;   // fragments expected in stdout + stderr
    std::vector<std::string> completed;  // modes whose `  mode=X nz=` line must be printed
    std::string hung;                    // mode whose `  mode=X HANG` line must be printed
    std::vector<std::string> notRun;     // modes whose `  mode=X not run` line must be printed
    bool setupFailure = false;           // no mode started: no `--- results ---`
    bool timeout = false;                // run with --timeout 1; repro abandons the device (leaks)
    std::string knownIssue;              // the src/ defect that DISABLED_ the row (empty: enabled)
    std::string note;                    // for the doc's summary
};

// gtest prints the parameter in failures: the fault and the mode say it all.
void PrintTo(const FaultCase& c, std::ostream* os) { *os << "REPRO_FAULT=" << c.fault << " --mode " << c.mode; }

std::string shortResult(const std::string& result) {
    std::string s = result;
    for (const char* prefix : {"VK_ERROR_", "VK_"}) {
        if (s.rfind(prefix, 0) == 0) return s.substr(std::string(prefix).size());
    }
    return s;
}

FaultCase makeCase(const std::string& function, int k, const std::string& result, const std::string& mode) {
    FaultCase c;
    c.fault = function + ":" + std::to_string(k) + ":" + result;
    c.mode = mode;
    c.label = function + "_k" + std::to_string(k) + "_" + shortResult(result) + "_" + mode;
    return c;
}

// A submit or its wait fails at global submit `k` of `mode`: status 3, the runs before
// it keep their results, the run itself says HANG, later runs under test say not run.
FaultCase hangCase(const std::string& function, int k, const std::string& result, const std::string& mode) {
    FaultCase c = makeCase(function, k, result, mode);
    c.status = 3;
    c.timeout = result == "VK_TIMEOUT";
    const auto runs = runsOf(mode);
    int first = 1;
    size_t r = 0;
    while (k >= first + submitsIn(runs[r])) first += submitsIn(runs[r++]);
    const std::string label = submitLabel(runs[r], k - first);
    for (size_t i = 0; i < r; ++i) c.completed.push_back(runs[i].mode);
    c.hung = runs[r].mode;
    for (size_t i = r + 1; i < runs.size(); ++i) {
        if (!runs[i].referenceOnly) c.notRun.push_back(runs[i].mode);
    }
    const std::string head = "--- GPU HANG: mode " + runs[r].mode + " ";
    // repro names the wait "vkWaitSemaphores" whichever entry point it called.
    const std::string call = function == "vkQueueSubmit" ? function : "vkWaitSemaphores";
    if (c.timeout) {
        c.messages = {head + "hung: " + call + " for " + label + " did not signal within the " +
                      std::to_string(kTimeoutSeconds) + " s timeout (VK_TIMEOUT)"};
    } else {
        c.messages = {head + "lost the device: " + call + " returned " + result + " at " + label};
    }
    c.messages.push_back("--- results of the modes that completed are above; later modes did not run");
    return c;
}

// A set-up call fails before any mode runs: status 125 with the named call and result.
FaultCase setupCase(const std::string& function, int k, const std::string& result, const std::string& mode,
                    std::vector<std::string> messages) {
    FaultCase c = makeCase(function, k, result, mode);
    c.status = 125;
    c.setupFailure = true;
    c.messages = {"repro: cannot test here: "};
    c.messages.insert(c.messages.end(), messages.begin(), messages.end());
    return c;
}

std::vector<FaultCase> faultMatrix() {
    std::vector<FaultCase> m;
    const std::vector<std::string> oom = {"VK_ERROR_OUT_OF_DEVICE_MEMORY", "VK_ERROR_OUT_OF_HOST_MEMORY"};
    const auto names = bufferNames();

    for (const auto& mode : kModes) {
        int submits = 0;
        for (const auto& run : runsOf(mode)) submits += submitsIn(run);
        // Device loss from the submit, device loss or a timeout from the wait: every submit.
        for (int k = 1; k <= submits; ++k) m.push_back(hangCase("vkQueueSubmit", k, "VK_ERROR_DEVICE_LOST", mode));
        for (int k = 1; k <= submits; ++k) m.push_back(hangCase("vkWaitSemaphores", k, "VK_ERROR_DEVICE_LOST", mode));
        for (int k = 1; k <= submits; ++k) m.push_back(hangCase("vkWaitSemaphores", k, "VK_TIMEOUT", mode));
        // The KHR entry point (the one repro calls where the extension is enabled) by name.
        m.push_back(hangCase("vkWaitSemaphoresKHR", submits, "VK_TIMEOUT", mode));
        m.back().note =
            "the entry point repro calls where VK_KHR_timeline_semaphore is enabled (lavapipe); "
            "one count with vkWaitSemaphores";

        // repro never reads the counter: the fault cannot fire and every mode completes.
        {
            FaultCase c = makeCase("vkGetSemaphoreCounterValue", 1, "VK_ERROR_DEVICE_LOST", mode);
            c.status = 0;
            for (const auto& run : runsOf(mode)) c.completed.push_back(run.mode);
            c.messages = {"--- NOT REPRODUCED"};
            c.note = "repro never calls it, so the fault cannot fire";
            m.push_back(c);
        }
        // The device is lost in the teardown's vkDeviceWaitIdle, after every mode finished.
        {
            FaultCase c = makeCase("vkDeviceWaitIdle", 1, "VK_ERROR_DEVICE_LOST", mode);
            c.status = 3;
            for (const auto& run : runsOf(mode)) c.completed.push_back(run.mode);
            c.messages = {"vkDeviceWaitIdle", "VK_ERROR_DEVICE_LOST"};
            m.push_back(c);
        }

        for (const auto& result : oom) {
            // Memory: the first buffer, the first host-visible chain buffer, the last one.
            for (int k : {1, 4, static_cast<int>(names.size())}) {
                const std::string& b = names[k - 1];
                m.push_back(setupCase("vkAllocateMemory", k, result, mode,
                                      {"not enough device memory: vkAllocateMemory(", " bytes for '" + b + "', type ",
                                       ") returned " + result + "; heap ", " MiB"}));
                FaultCase c = setupCase(
                    "vkCreateBuffer", k, result, mode,
                    {"vkCreateBuffer(" + b + ", " + std::to_string(bufferBytes(b)) + " bytes): " + result, "heap "});
                m.push_back(c);
            }
            for (int k : {1, 2}) {
                m.push_back(setupCase("vkCreateComputePipelines", k, result, mode,
                                      {"vkCreateComputePipelines ran out of memory: " + result}));
            }
            m.push_back(
                setupCase("vkCreateDescriptorPool", 1, result, mode, {"vkCreateDescriptorPool failed: " + result}));
            // A descriptor set while recording: the first and last dispatch of every run.
            const auto runs = runsOf(mode);
            for (size_t r = 0; r < runs.size(); ++r) {
                for (int j : {1, kBindsPerRun}) {
                    const int k = static_cast<int>(r) * kBindsPerRun + j;
                    FaultCase c = makeCase("vkAllocateDescriptorSets", k, result, mode);
                    c.status = 125;
                    c.messages = {"repro: cannot test here: vkAllocateDescriptorSets failed: " + result};
                    for (size_t i = 0; i < r; ++i) c.completed.push_back(runs[i].mode);
                    c.note = "while recording a mode: the results of earlier modes stay printed";
                    m.push_back(c);
                }
            }
        }

        for (const std::string result : {"VK_ERROR_INITIALIZATION_FAILED", "VK_ERROR_INCOMPATIBLE_DRIVER"}) {
            m.push_back(setupCase("vkCreateInstance", 1, result, mode, {"vkCreateInstance failed: " + result}));
            m.push_back(setupCase("vkCreateDevice", 1, result, mode, {"vkCreateDevice failed: " + result}));
        }
    }
    return m;
}

bool hasLineStartingWith(const std::string& text, const std::string& prefix) {
    const auto all = lines(text);
    return std::any_of(all.begin(), all.end(), [&](const auto& l) { return l.rfind(prefix, 0) == 0; });
}

// The environment for a row: the fault, and for a timeout no leak check, since repro
// abandons (deliberately leaks) every Vulkan object after a wait timed out
// (src/vk/handles.hpp) and LeakSanitizer would otherwise change the exit status.
std::vector<std::string> environmentFor(const FaultCase& c) {
    std::vector<std::string> env{"REPRO_FAULT=" + c.fault};
    if (c.timeout) {
        const char* asan = std::getenv("ASAN_OPTIONS");
        env.push_back(std::string("ASAN_OPTIONS=") + (asan ? std::string(asan) + ":" : "") + "detect_leaks=0");
    }
    return env;
}

std::vector<std::string> argumentsFor(const FaultCase& c) {
    std::vector<std::string> args{"--preset", "tiny", "-n", std::to_string(kChain), "--mode", c.mode};
    if (c.timeout) args.insert(args.end(), {"--timeout", std::to_string(kTimeoutSeconds)});
    return args;
}

std::string commandLine(const FaultCase& c) {
    std::string s = "REPRO_FAULT=" + c.fault + " repro_faulty";
    for (const auto& a : argumentsFor(c)) s += " " + a;
    return s;
}

void checkRow(const FaultCase& c) {
    const ProcessResult r = runProcess(REPRO_FAULTY_EXECUTABLE, argumentsFor(c), environmentFor(c));
    const std::string context = commandLine(c) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
    ASSERT_FALSE(r.signaled) << context;
    EXPECT_NE(r.status, 134) << context;
    EXPECT_NE(r.status, 255) << context;
    EXPECT_EQ(r.status, c.status) << context;
    const std::string all = r.out + r.err;
    for (const auto& m : c.messages) EXPECT_TRUE(contains(all, m)) << "missing: " << m << "\n" << context;
    for (const auto& mode : c.completed) {
        EXPECT_TRUE(hasLineStartingWith(r.out, "  mode=" + padded(mode) + " nz="))
            << "result of completed mode " << mode << " lost\n"
            << context;
    }
    if (!c.hung.empty()) {
        EXPECT_TRUE(hasLineStartingWith(r.out, "  mode=" + padded(c.hung) + " HANG")) << context;
    }
    for (const auto& mode : c.notRun) {
        EXPECT_TRUE(hasLineStartingWith(r.out, "  mode=" + padded(mode) + " not run")) << context;
    }
    if (c.setupFailure) {
        EXPECT_FALSE(contains(r.out, "--- results ---")) << context;
    }
}

std::vector<FaultCase> rows(bool knownIssues) {
    std::vector<FaultCase> out;
    for (auto& c : faultMatrix()) {
        if (c.knownIssue.empty() != knownIssues) out.push_back(c);
    }
    return out;
}

class FaultMatrix : public ::testing::TestWithParam<FaultCase> {};
TEST_P(FaultMatrix, ExitStatusMessageAndCompletedResults) {
    REPRO_REQUIRE_LAVAPIPE();  // the call counts k are lavapipe's
    checkRow(GetParam());
}
INSTANTIATE_TEST_SUITE_P(Lavapipe, FaultMatrix, ::testing::ValuesIn(rows(false)),
                         [](const auto& param) { return param.param.label; });

// Rows that state the specified behaviour where src/ does not have it yet (each case's
// knownIssue says what); DISABLED_ in the test name, so gtest and CTest skip them until
// the fix moves them back to the table above.
class FaultMatrixKnownIssue : public ::testing::TestWithParam<FaultCase> {};
// Empty while src/ has no known defect in the matrix.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FaultMatrixKnownIssue);
TEST_P(FaultMatrixKnownIssue, DISABLED_ExitStatusMessageAndCompletedResults) { checkRow(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Lavapipe, FaultMatrixKnownIssue, ::testing::ValuesIn(rows(true)),
                         [](const auto& param) { return param.param.label; });

// ---- the seam itself ------------------------------------------------------------------------

TEST(Seam, NormalReproIgnoresRequestedFaults) {
    const ProcessResult r = runProcess(REPRO_EXECUTABLE, {"--preset", "tiny", "-n", "1"},
                                       {"REPRO_FAULT=vkCreateInstance:1:VK_ERROR_INITIALIZATION_FAILED"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
}

TEST(Seam, CommaSeparatedFaultsApplyInTurn) {
    // The first fault names a call that never comes; the second loses the device at
    // multipass's submit.
    const ProcessResult r =
        runProcess(REPRO_FAULTY_EXECUTABLE, {"--preset", "tiny", "-n", "3"},
                   {"REPRO_FAULT=vkCreateBuffer:99:VK_ERROR_OUT_OF_HOST_MEMORY,vkQueueSubmit:9:VK_ERROR_DEVICE_LOST"});
    EXPECT_EQ(r.status, 3) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "--- GPU HANG: mode multipass lost the device")) << r.out;
}

TEST(Seam, MalformedSpecStopsBeforeAnyWork) {
    for (const char* spec : {"vkQueueSubmit:0:VK_ERROR_DEVICE_LOST", "vkQueueSubmit:1",
                             "vkCmdDispatch:1:VK_ERROR_DEVICE_LOST", "vkQueueSubmit:1:VK_NOPE"}) {
        const ProcessResult r =
            runProcess(REPRO_FAULTY_EXECUTABLE, {"--preset", "tiny", "-n", "1"}, {std::string("REPRO_FAULT=") + spec});
        EXPECT_EQ(r.status, 99) << spec << "\n" << r.err;
        EXPECT_TRUE(contains(r.err, "REPRO_FAULT")) << r.err;
    }
}

// ---- docs/failure-matrix.md ------------------------------------------------------------------

std::string markdownCell(std::string s) {
    std::string out;
    for (char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return out;
}

// Failures that no injected Vulkan result produces: the environment a bisect runs in, and
// interrupts inside repro's own host loops. Each row names the test that runs it end to end
// (with the real repro on lavapipe, or the simulated driver); the doc lists them after the
// injected faults.
struct EnvironmentCase {
    std::string situation;  // what is wrong, or what happens
    std::string command;    // how to produce it
    int status;
    std::string says;  // what repro says (a fragment of its line)
    std::string test;  // the test that checks it
};

std::vector<EnvironmentCase> environmentCases() {
    return {
        {"SIGTERM during the float64 CPU reference", "`repro --mode split -n 1 --reference cpu`, then `kill -TERM`",
         143, "--- INTERRUPTED by SIGTERM: during the host's float64 conv-T",
         "e2e.Interrupt.SigtermDuringTheCpuReferenceIsAnsweredThere"},
        {"SIGTERM during `--repeat`",
         "`repro --preset small --mode multipass --repeat 500 --reference none --format json`, then "
         "`kill -TERM`",
         143, "`multipass: 0/K runs wrong` with K the completed runs; the JSON report validates",
         "e2e.Interrupt.RepeatCountsCompletedRunsAndTheJsonReportValidates"},
        {"SIGHUP during a sweep (a closed terminal)",
         "`repro --preset small --sweep 1..2000 --json r.json`, then "
         "`kill -HUP`",
         143, "--- INTERRUPTED by SIGTERM; r.json written and valid",
         "e2e.Interrupt.SighupCountsAsSigtermAndTheOutputFileIsWritten"},
        {"a driver library that fails to load", "`VK_DRIVER_FILES=lvp.json:missing-library.json repro`", 0,
         "`note: the Vulkan loader reports: ...` in the header",
         "e2e.LoaderProblems.ADriverThatFailedToLoadIsInTheTextHeader"},
        {"a driver manifest that is not JSON", "`VK_DRIVER_FILES=cut-short.json repro`", 125,
         "driver manifest '...' is not valid JSON (parse error at byte N)",
         "e2e.LoaderProblems.CorruptManifestIsExplainedNotOutOfMemoryAlone"},
        {"an empty driver variable", "`VK_DRIVER_FILES= repro` (or `VK_ICD_FILENAMES=`)", 125,
         "VK_DRIVER_FILES is set but empty: the loader loads no driver", "e2e.BadInput/Rejects.*/driver_files_empty"},
        {"--expect-driver naming another driver library", "`repro --expect-driver /mesa/build/libvulkan_radeon.so`",
         125, "--expect-driver ...: the device that would run is ...; devices: ...",
         "e2e.ExpectDriver.AnotherLibraryPathIs125WithTheDeviceList"},
        {"an unwritable --output, --dump-dir or TMPDIR",
         "`repro --output /nonexistent/r.json`, `--dump-dir /proc/x`, "
         "`TMPDIR=/nonexistent repro --matrix`",
         1, "-o/--output: cannot write '...' (No such file or directory)",
         "e2e.BadInput/Rejects.*/output_in_missing_folder, dump_dir_under_proc, tmpdir_missing_for_matrix"},
        {"a report write that fails after the run", "`repro --output /dev/full`", 1,
         "--output: cannot write, after the results", "e2e.JsonReport.UnwritableOutputIsExitOneWithResultsPrinted"},
        {"stdout on a full device, stderr closed",
         "`repro --help > /dev/full`, `repro --format json > /dev/full`, "
         "`repro -n 0 2>&-`",
         1, "the output could not be written to stdout (never 134)",
         "e2e.UnwritableStreams.EveryLostWriteIsExitOneNeverAnAbort"},
        {"a pipe closed early", "`repro --json r.json | head -1`", 1, "r.json is still written (SIGPIPE ignored)",
         "e2e.UnwritableStreams.AClosedPipeStillWritesTheOutputFile"},
        {"SIGCHLD ignored on entry", "`env --ignore-signal=CHLD repro --preset tiny -n 1`", 0,
         "the verdict, and the run ends (SIGCHLD is reset to its default; it used to spin for ever)",
         "e2e.Dispositions.IgnoredSigchldOnEntryStillEndsWithTheVerdict"},
        {"SIGHUP or SIGINT ignored on entry",
         "`nohup repro --preset tiny --sweep 1..60`, then `kill -HUP`; `env --ignore-signal=INT repro ...`, then "
         "`kill -INT`",
         0, "nothing: the signal stays ignored and the run goes on to its verdict",
         "e2e.Entry/IgnoredSignal.StaysIgnoredAndTheRunEndsWithItsVerdict/nohup, sigint"},
        {"SIGTSTP to repro alone", "`kill -TSTP <repro>` during a sweep, then `kill -CONT <repro>`", 0,
         "the supervised child stops (state T) with repro and continues with it; the run ends with its verdict",
         "e2e.JobControl.SigtstpToTheSupervisorStopsTheChildAndSigcontResumesBoth"},
        {"a terminal with `stty tostop`, and Ctrl-Z", "repro on a pseudo-terminal with TOSTOP, Ctrl-Z, then SIGCONT", 0,
         "the run is never stopped by its own output; Ctrl-Z stops repro and its child together",
         "e2e.JobControl.OnATerminalWithTostopCtrlZStopsBothAndTheRunEnds"},
        {"SIGTERM during --print-stream", "`repro --print-stream --preset small -n 2000`, then `kill -TERM`", 143,
         "INTERRUPTED by SIGTERM: during --print-stream", "e2e.PrintStream.SigtermWhileItPrintsIs143"},
        {"an interrupted run of children",
         "`kill -TERM` during `repro --matrix`, `--triage`, `--watchdog-probe`, `--driver-env-sweep`", 143,
         "its `repro-*` log folder is removed; with --keep-logs it stays and `logs and reports kept in DIR "
         "(--keep-logs)` says where",
         "e2e.Interrupted/InterruptedChildren.*/matrix, triage, watchdog_probe, driver_env_sweep"},
        {"a full filesystem under a document",
         "`repro --json full/r.json`, `repro --watchdog-probe --json full/p.json` (a full 64 KiB tmpfs)", 1,
         "--json: cannot write the JSON report to '...' (No space left on device); an existing file stays "
         "whole, no partial or temporary file",
         "e2e.FullFilesystem.OutputKeepsTheOldFileOrLeavesNoneAndSaysWhy, TheProbeDocumentAndTheDumpsSayWhy"},
        {"stdout on a full device in the other modes",
         "`repro --list-devices > /dev/full`, also with `--format markdown`, `--matrix`, `--triage`, "
         "`--watchdog-probe`",
         1, "the report could not be written to stdout", "e2e.UnwritableStreams.EveryModeSaysTheReportWasLost"},
        {"--list-devices as Markdown", "`repro --list-devices --format markdown`", 0,
         "a table of the devices on stdout (it printed nothing)", "e2e.ListDevices.MarkdownIsATableOnStdout"},
        // Issue 21, verdicts that hold under every fault (tests/e2e/faults_test.cpp).
        {"a driver whose manifest declares `api_version` 1.0 (the loader withholds the 1.3 core names), with "
         "`--barrier sync2` or `full`",
         "`VK_DRIVER_FILES=api10.json repro --barrier sync2` (lavapipe's library, `\"api_version\": \"1.0.0\"`)", 125,
         "the driver provides no vkCmdPipelineBarrier2, needed by --barrier sync2/full (...), before any mode "
         "(was a call through null: GPU HANG, exit 3)",
         "e2e.simdriver.Faults.Sync2OnADriverDeclaringApi10IsCannotTestNamingTheFunction"},
        {"a driver crash during the modes", "`REPRO_SIMULATE=crash:vkQueueSubmit:3 repro`", 3,
         "--- DRIVER CRASH: the driver crashed (SIGSEGV) in vkQueueSubmit ...; --- code at 0x... in "
         "libVkLayer_repro_simulate.so",
         "e2e.simdriver.Faults.ADriverCrashNamesTheDriversCode"},
        {"a crash in repro's own code (a call through a null pointer, a bad write)",
         "the crash reporter in a forked child of the unit tests", 125,
         "--- REPRO CRASHED: repro crashed (SIGSEGV) ...; --- ...: a defect of repro (please report it with these "
         "lines), "
         "not a verdict on the driver; no verdict",
         "unit.CrashSite.TheHandlerPlacesACallThroughANullPointerAndABadWriteInTheExecutable, "
         "unit.CrashSite.OnlyTheDriversOwnCrashIsAHang"},
        {"a SIGSEGV sent to the child from outside, during a driver call", "`kill -SEGV <child>` during a wait", 125,
         "--- CRASHED: the repro child process crashed (SIGSEGV) ...; --- ...neither the driver's code nor repro's "
         "could "
         "be named (was GPU HANG: the driver crashed, exit 3)",
         "e2e.simdriver.Faults.ASegvSentFromOutsideIsNoDriverCrashNorAHang"},
        {"a usage error under `--invert`, found at run time or while parsing",
         "`repro --invert -o /nonexistent/r.json`, `repro --invert --mode bogus`", 125,
         "-o/--output: cannot write '...'; --- --invert: exit 125 for exit 1 (a usage error, no verdict: ...) "
         "(was 1, \"not reproduced\" under --invert)",
         "e2e.simdriver.Faults.UnderInvertAUsageErrorIsNeverAVerdict, "
         "unit.Verdict.InvertSwapsReproducedAndNotReproducedAndKeepsUsageErrorsOffTheVerdicts"},
        {"the child, then the supervisor, stopped for longer than a call's 10 s deadline (SIGSTOP, a debugger, a "
         "container pause)",
         "`kill -STOP` the child during a wait, then the supervisor; 11 s later `kill -CONT` both", 0,
         "--- NOT REPRODUCED, no \"driver stalled\" (was GPU HANG: the driver stalled, exit 3)",
         "e2e.simdriver.Faults.StoppingTheChildAndTheSupervisorPastTheCallDeadlineIsNoStall, unit.WatchedClock.*"},
        // Issue 35: hostile files given to --merge-reports (tests/e2e/merge_reports_test.cpp).
        {"a JSON number beyond a double's range in a file given to `--merge-reports` (R3)",
         "`repro --merge-reports ok.json h.json` with `[1e400]` in h.json (or `\"schema_version\": 1e400`, `-1e400`, "
         "`1E999`)",
         1,
         "--merge-reports: 'h.json': not JSON (a number out of range at byte N); ok.json merged (was an abort, "
         "exit 134)",
         "e2e.MergeReports.HostileFilesAreNamedOnceAndTheOthersMerged, "
         "unit.MergeReportsHostile.ANumberBeyondADoublesRangeIsNotJson"},
        {"a FIFO or a device given to `--merge-reports` (R10)",
         "`mkfifo fifo.json; repro --merge-reports ok.json fifo.json`", 1,
         "--merge-reports: 'fifo.json': cannot read (a FIFO, not a regular file), at once (was an open that waited "
         "for a writer for ever)",
         "e2e.MergeReports.HostileFilesAreNamedOnceAndTheOthersMerged, "
         "unit.MergeReportsHostile.AFifoADeviceAndAFolderAreNotRegularFiles"},
        {"a document without a field the merged table reads, or with another type than the schema's, given to "
         "`--merge-reports`; the same file twice (R13)",
         "`{\"schema\": \"repro-report\", \"schema_version\": 3}` alone, `\"verdict\": []`, `\"chain_length\": -5`; "
         "`repro --merge-reports ok.json ok.json`",
         1,
         "--merge-reports: 'stub.json': not merged: an invalid repro-report (repro.version: missing); 'ok.json': the "
         "same file as 'ok.json', merged once (was counted as \"not reproduced\", and twice)",
         "e2e.MergeReports.HostileFilesAreNamedOnceAndTheOthersMerged, "
         "unit.MergeReportsHostile.ASchemaInvalidDocumentIsNotMerged, "
         "unit.MergeReportsHostile.TheSameFileTwiceIsMergedOnce"},
    };
}

// Issue 21's defects of the verdicts: each a situation a user could hit, run end to end
// (or through the reasoning) by the test named, which failed before the fix.
std::vector<EnvironmentCase> verdictCases() {
    return {
        {"a GPU hang that the job timeout only ended",
         "simulated RADV on a fake amdgpu host (500 ms), "
         "`REPRO_SIMULATE='…;watchdog:timeout=500,ms-per-dispatch=1;hang'`, `repro --triage --preset tiny -n 3`",
         2,
         "`conclusion: a GPU hang in the one-submit recording (multipass); the job timeout (500 ms, gfx queue) only "
         "ended it: …; a submit boundary every few dispatches avoids it (H2)`; H3 ruled out by the baseline's own "
         "cause; never `--split-ms` as the cure, never \"contradictory evidence\"",
         "e2e.simdriver.Triage.AHangTheWatchdogOnlyEndedIsNamedAsAHangAndTheSubmitBoundaryAsWhatAvoidsIt, "
         "unit.Triage.AHangTheWatchdogOnlyEndedIsItsOwnFindingWeighedByTheRecordingExperiments"},
        {"the user's own `--spirv` module is wrong",
         "`repro --preset tiny -n 2 --reference cpu --check-steps --timestamps --spirv DIR` with a valid, wrong "
         "conv_t.spv",
         2,
         "`the SPIR-V modules are the user's (--spirv): spirv-val (vulkan1.3): conv_t.spv valid, slice.spv valid` in "
         "the header; `cause: the shaders or the shader compiler: … the modules may be invalid (…)`; triage: `the "
         "shaders or the shader compiler (H5)`",
         "e2e.VerdictDefects.TheUsersWrongModuleIsNotBlamedOnTheShaderCompiler, "
         "unit.Cause.TheUsersModulesAreNamedBeforeTheCompiler, unit.SpirvValidation.*"},
        {"split is the failing mode (issue 21, 3)",
         "`REPRO_SIMULATE='lost:vkWaitSemaphores:3' repro --triage --preset tiny -n 3`: the device is lost at split's "
         "second submit",
         3,
         "each recording experiment (`--barrier`, `--submit-every`, `--split-mib`, `-n 1 --dispatch-repeat`) `not run: "
         "it changes multipass and single only; split, the failing mode, keeps blade's stream`; no `usage error (exit "
         "1)` rows; H1 `no evidence (no barrier or memory variant ran)`; a child that exits 1 anyway is `repro defect` "
         "with its one line, never evidence",
         "e2e.simdriver.Triage.SplitAsTheFailingModeSkipsTheRecordingExperimentsWithTheReason, "
         "unit.Triage.AChildsUsageErrorIsAReproDefectNeverEvidence, "
         "unit.Triage.AHangWithNoRecordingExperimentRunSaysNoneRan"},
        {"the `--triage` baseline cannot test (issue 21, 6a)",
         "`VK_LAYER_PATH=<empty folder> repro --triage --preset tiny -n 2 --validation`", 125,
         "`baseline: cannot test (exit 125): repro: cannot test here: --validation: VK_LAYER_KHRONOS_validation is not "
         "installed …`; the children's folder kept: `the baseline gave no result; its log is …/01-baseline.log`",
         "e2e.simdriver.Triage.ABaselineThatCannotTestSaysWhyAndKeepsItsLog"},
        {"`--watchdog-probe` with a wrong or hung rung and no kill evidence (issue 21, 4d)",
         "`repro --watchdog-probe --preset tiny --drop-dispatch 1`; "
         "`REPRO_SIMULATE='clock:us-per-wg=0,ms-per-dispatch=1;hang:dispatches=1' repro --watchdog-probe --preset tiny "
         "--timeout 1`",
         125,
         "`watchdog probe: no result: single was wrong (hung) at 1 conv-Ts in one submit (…) with no sign of a kill: "
         "no kernel job-timeout record, and no job timeout is known here`; never \"soft kill\" or \"hard kill, device "
         "lost\"",
         "e2e.simdriver.WatchdogProbe.ADroppedDispatchIsNoKill, "
         "e2e.simdriver.WatchdogProbe.ReprosOwnWaitTimeoutIsNoKill"},
        {"`--triage` or `--watchdog-probe` interrupted (issue 21, 4e)",
         "SIGINT during a slow simulated run (`clock:us-per-wg=1,ms-per-dispatch=1000`), `--output F`", 130,
         "the rows that finished, `conclusion: interrupted by SIGINT after K experiments; no verdict` (probe: "
         "`watchdog probe: no result: interrupted by SIGINT after K rungs; no verdict`), and F the triage (probe) "
         "document of what ran with `\"interrupted\": true`; after a second SIGINT no run report (`chain_length` 0) is "
         "written in its place",
         "e2e.simdriver.Triage.AnInterruptWritesTheDocumentOfWhatRanMarkedInterrupted, "
         "e2e.simdriver.WatchdogProbe.AnInterruptWritesTheDocumentOfWhatRanMarkedInterrupted, "
         "e2e.simdriver.Triage.ASecondInterruptWritesNoRunReportInPlaceOfTheDocument"},
        {"`--matrix` children that never ran (issue 21, 6c, in part)",
         "`VK_LAYER_PATH=<empty folder> repro --matrix --preset tiny -n 2 --validation`: every child exits 125", 125,
         "a control row `control: no result (cannot test)`, never `control: correct anyway`; the validation column "
         "`not run`, never `clean`",
         "e2e.simdriver.Matrix.ChildrenThatNeverRanAreNeitherCorrectNorClean"},
        {"one dispatch alone outlives the job timeout, so split itself is killed (issue 21, 2)",
         "simulated RADV on a fake amdgpu host (500 ms), `REPRO_SIMULATE='…;watchdog:timeout=500,us-per-wg=75000'` (a "
         "600 ms conv-T), `repro --preset tiny -n 2`",
         2,
         "split `-> killed: …; its submit was cut short by the kernel's job timeout, so it is no reference`, "
         "`mode=split "
         "cause: the kernel's job timeout (500 ms, gfx queue): one dispatch alone outlives it …`; `reference: cpu in "
         "place of split, which the kernel's job timeout killed`; multipass and single judged against the CPU (killed "
         "too); never `INCONCLUSIVE` for an underflowed reference. With `--reference split`, or a CPU chain over 2e11 "
         "multiply-adds, `reference: none: …` says why",
         "e2e.simdriver.SplitKilled.OneDispatchPastTheJobTimeoutNamesItForSplitAndJudgesTheOthersAgainstTheCpu, "
         "unit.Cause.SplitsOwnKillIsTheJobTimeoutWithoutAPrediction"},
        {"`--watchdog-probe`: only more dispatches per submit were probed (issue 21, 2)",
         "`REPRO_SIMULATE='identity;watchdog:timeout=500,us-per-wg=12500,kmsg=F' repro --watchdog-probe --preset tiny`",
         0,
         "a second ladder, one dispatch made longer (`-n 1 --mode split --batch B`): `one dispatch made longer: soft "
         "kill at batch 16: one conv-T alone in its submit, …; a submit boundary cannot avoid this kill`; the "
         "document's "
         "`dispatch_rungs` and `one_dispatch`",
         "e2e.simdriver.WatchdogProbe.OneDispatchMadeLongerIsKilledAloneInItsSubmit"},
        {"the `--driver-env-sweep` run without a setting cannot test (issue 21, 6c)",
         "`VK_LAYER_PATH=<empty folder> repro --driver-env-sweep --preset tiny -n 2 --validation`", 125,
         "`--- driver-env-sweep: no result without a setting: cannot test (exit 125): … VK_LAYER_KHRONOS_validation is "
         "not installed …; no setting can be judged`, never \"does not reproduce\"",
         "e2e.simdriver.DriverEnvSweep.ABaselineThatCannotTestSaysSoNeverNotReproduced"},
        {"a child that exited without a report (issue 21, 6c, in part)",
         "a triage or matrix child that exits 2 without a readable JSON report", 2,
         "`no report (exit 2)` in the triage row and the matrix note, never `no report (exit 2) (exit 2)`",
         "unit.ChildReport.AMissingOrMalformedReportIsNoReport"},
        {"a matrix child killed from outside (issue 21, 6c)",
         "`kill -KILL` of the child running variant 1 of `repro --matrix -n 1 --preset tiny`", 125,
         "`multipass blade (as recorded by blade): crashed (signal 9; log DIR/variant-01.log)`, and `logs and reports "
         "kept in DIR: a line above points at a child's log`: the file the line names is there after exit (it was "
         "deleted with the folder)",
         "e2e.Matrix.AKilledChildsLinePointsAtALogThatIsKept"},
        {"the matrix's rows for blade's quirks (issue 21, 6c)", "`repro --matrix -n 2 --preset tiny --drop-dispatch 3`",
         2,
         "`blade's quirks: single profile=blade-exact (blade's quirks): cannot test (exit 125)`, its exit named once",
         "e2e.Matrix.ReportsABrokenChainAndExitsTwo"},
        {"--split-ms or --drop-dispatch, which change the stream",
         "`repro --preset tiny -n 2 --split-ms 1`, `repro --preset tiny -n 2 --drop-dispatch 3 --format json`", 0,
         "`experiment: --split-ms 1 --host-wait (multipass and single; ...)`; `experiment: --drop-dispatch 3 ...` "
         "and `experiment.changes` `[\"--drop-dispatch 3\"]` in the JSON (that run exits 2: the control is caught) "
         "(was \"experiment flags: none (blade's "
         "stream)\" and nothing in the report)",
         "e2e.VerdictDefects.SplitMsAndDropDispatchAreNamedInTheHeaderAndTheJsonReport, unit.RunChanges.*"},
        {"amdgpu's scheduler firmware (MES) wedged during a mode (issue 35 §3)",
         "the mode's kernel log has `MES failed to respond to msg=REMOVE_QUEUE`, a "
         "`GCVM_L2_PROTECTION_FAULT_STATUS`, a `MODE2 reset` and `device wedged, but recovered through reset`; the "
         "submit ended at the timeout",
         2,
         "`cause: the GPU's scheduler firmware (amdgpu MES) stopped answering the kernel ('MES failed to respond to "
         "msg=REMOVE_QUEUE'), firmware card0 mes_fw_version 0x00000083, ...`, the records and the firmware versions "
         "as evidence, JSON `cause.kind` firmware (was read as the kernel's job timeout, or undetermined)",
         "unit.Cause.AMesThatStoppedAnsweringIsTheFirmware, unit.GpuEvents.MesWedge"},
        {"a job the kernel killed, reported by the driver only at the next submit (issue 35 §3)",
         "the simulated RADV with `device-fault;watchdog:timeout=500,ms-per-dispatch=100,recovery=soft-next-submit`: "
         "the killed "
         "mode's own wait returns VK_SUCCESS and small[N] is read from mapped memory; `repro --preset tiny -n 4`",
         3,
         "`lost the device: vkQueueSubmit returned VK_ERROR_DEVICE_LOST at repro's canary after the mode (...)`, "
         "`cause: the kernel's job timeout ...` with `evidence: recovery: soft (... 'guilty of a soft recovery')` and "
         "`VK_EXT_device_fault: repro-simulate: a simulated device fault (...)` (the query, where the device has the "
         "extension); JSON `canary` per mode and "
         "`cause.device_lost` {`at_canary`, `recovery`} (was: the zeros read as a reproduction, the loss seen only "
         "at the next mode's submit, never with one mode)",
         "e2e.simdriver.Canary.AKillTheDriverReportsOnlyAtTheNextSubmitIsCaughtByTheCanary, "
         "unit.Cause.RecoveryIsReadFromTheKillRecords"},
    };
}

// Hostile inputs (issue 35, section 4; the hostile-input probe's R-numbers): a file, a path
// or a signal that made repro give a wrong verdict, hang, crash or lose a document. Each row
// the behaviour now and the test that failed before the fix.
std::vector<EnvironmentCase> hostileCases() {
    return {
        {"--watchdog-probe with --timeout below the known job timeout (the probe's N6c)",
         "a 2000 ms amdgpu job timeout, `repro --preset tiny --watchdog-probe --timeout 1`", 125,
         "`--- watchdog probe: no result: single hung at 16 conv-Ts (...): repro's own wait (--timeout 1 s) gave up "
         "before the 2000 ms job timeout could fire; give a --timeout above it` (was `no kill: ... the submit did "
         "not end at the 2000 ms job timeout`, exit 0)",
         "e2e.simdriver.WatchdogProbe.AWaitShorterThanTheKnownJobTimeoutIsNoResult"},
        {"a long --repeat (issue 35 §4, the probe's R14)",
         "`repro --preset tiny -n 2 --mode single --repeat 1000` (split runs after as the reference)", 0,
         "every run still prints its line; runs past the first 20 of a mode are counted, not kept: `single: 0/1000 "
         "runs wrong; results bit-identical across runs (980 runs past the first 20 counted here, not listed one by "
         "one)`, JSON `folded_runs`; peak RSS 73.4 MiB at 20, 200 and 1000 runs, 2.1 s for 1000 (was 73.4 / 75.0 / "
         "80.4 MiB and 24.2 s: each run kept its record and the child re-sent the whole growing report after each; "
         "bench/repeat-rss.sh)",
         "e2e.Repeat.RunsPastTheFirstTwentyAreCountedNotListed"},
        {"a second Ctrl-C during --triage, --matrix or the probe (issue 35 §4, the probe's N7d/N7f)",
         "`repro --triage --json F` on a slow device, SIGINT, then SIGINT again 20-300 ms later", 130,
         "the row running is killed at once, the document of what ran is written (`interrupted: true`, "
         "`exit_status` 130) and the log folder removed; a second interrupt inside a driver call still ends the "
         "child at once (was: no document, the repro-triage-* folder left in TMPDIR, and 'during triage: the "
         "baseline run' while experiments ran)",
         "e2e.simdriver.Triage.ASecondInterruptStillWritesTheDocumentAndRemovesTheLogFolder"},
        {"a race in the file on one queue (issue 35 §1)",
         "eight in-place increments of one buffer with no barrier between them "
         "(`tests/scenarios/race-repeated-increments.toml`), `repro --scenario F`",
         1,
         "`F:18:1: step 1 dispatch increment (repetition 1 of 8) and step 2 dispatch increment (repetition 2 of 8) "
         "race on buffer 'data' (write-after-write): no barrier that single records between them orders them ...; "
         "expected barrier = \"blade-c\" between them, or a barrier marked control = true ...`, nothing run (was NOT "
         "REPRODUCED on lavapipe and BUG REPRODUCED, 20 of 20 runs, on a correct H100)",
         "unit.OneQueueRace.*, e2e.OneQueueRace.ARaceInTheFileIsRefusedAndItsLabelledControlRuns"},
        {"a run under a positive control that catches it (issue 35 §2)",
         "`repro --preset small -n 3 --drop-dispatch 3`; a file's labelled control; `--barrier none` where it races", 2,
         "`cause: the control (dispatch 3 left out of multipass and single by repro (--drop-dispatch 3)): the control "
         "was caught, not the driver`, `--- CONTROL CAUGHT: mode multipass is zero: ...` and `--- the control was "
         "caught (...)`; JSON `experiment.control` true, `verdict.kind` control_caught, `cause.kind` control; the "
         "Markdown title CONTROL CAUGHT (was BUG REPRODUCED with cause synchronization and `control: false`)",
         "e2e.Controls.ADroppedDispatchIsTheControlCaughtInTextJsonAndMarkdown"},
        {"a run under a control that every mode survives",
         "`repro --scenario scenarios/blade-356-conv-t-slice-chain.toml --barrier none` on lavapipe (in order)", 0,
         "`--- NOT REPRODUCED: ...` then `--- the control was not caught (--barrier none: ...): every mode stayed "
         "right "
         "without what it removes, so on this device this run cannot tell a driver that drops it from one that keeps "
         "it` (was NOT REPRODUCED alone), in text, JSON `verdict.lines` and the Markdown",
         "e2e.Controls.AControlEveryModeSurvivesSaysTheRunCouldNotCatchIt"},
        {"a mode killed or hung under a positive control",
         "`repro --preset tiny -n 4 --mode multipass --barrier none` through a driver whose job timeout kills it "
         "(the simulated amdgpu watchdog, soft or hard recovery) or that hangs it (the simulated hang)",
         2,
         "with the kernel's job-timeout record and a prediction past the timeout: `cause: the kernel's job timeout "
         "...` with the evidence `the mode runs under a positive control: ...`; a soft recovery's zeros stay `--- BUG "
         "REPRODUCED: mode multipass is killed ...` with `--- the control was not judged in multipass (...)` and "
         "`verdict.kind` reproduced (a hard one: exit 3); a hang nothing explains: `cause: the control (...) or the "
         "file itself: ... (missing: multipass run without the control, ...)`, exit 3 (was `cause: the control` and "
         "CONTROL CAUGHT in every case, even where the job timeout killed the mode or the file hangs as written)",
         "unit.Cause.UnderAControlTheJobTimeoutAndTheFirmwareComeFirst, "
         "e2e.simdriver.Cause.UnderAControlTheJobTimeoutIsNamedAndAnUnexplainedHangIsUndecided"},
        {"a --matrix control row the job timeout killed",
         "`repro --matrix --preset tiny -n 5` on a RADV whose 500 ms job timeout kills the one-submit modes (the "
         "simulated soft watchdog on a fake amdgpu host)",
         2,
         "the barrier=none and execution-only rows `killed ... control: not judged (the kernel's job timeout cut a "
         "mode "
         "short)`, not counted as raced (was `control: raced (wrong output without a valid barrier)`, 2 raced)",
         "e2e.simdriver.Matrix.AKnownJobTimeoutAddsTheSplitMsRows"},
        {"--driver-env-sweep on a positive control",
         "`repro --driver-env-sweep --drop-dispatch 2` (or `--barrier none`, `--mutant`, a file that labels a step a "
         "control)",
         1,
         "`repro: --driver-env-sweep: not with a positive control (...): a setting is judged against the driver's own "
         "failure, and a control's wrong output is not the driver's`, nothing run (was the sweep, ending `the bug "
         "reproduces without a setting; it disappears under: none of them` for a control caught)",
         "e2e.BadInput/Rejects.WithItsStatusAndExactLine/driver_env_sweep_with_a_control, "
         "e2e.OneQueueRace.ARaceInTheFileIsRefusedAndItsLabelledControlRuns"},
        {"--mutants where the file as written fails",
         "`repro --scenario F --mutants` where F hangs (exit 3) or is wrong (exit 2) as written", 3,
         "`--- mutants: none run: the file as written ended exit 3: GPU HANG: ..., and a mutant is told apart only "
         "from a run that is right`, no child run; JSON `mutants.withheld` says why, `score` null; the run's own exit "
         "status (was every mutant run and scored: `8 of 8 mutants killed, 8 of them by a hang` for a file that hung "
         "as written)",
         "e2e.Mutants.NoMutantRunsWhereTheFileAsWrittenFails"},
        {"a triage whose experiments gave no result (issue 35 §4, leftovers)",
         "a wrong baseline whose experiments were all not run (no effect on the device, not here, or interrupted)", 2,
         "`conclusion: undetermined: no experiment gave a result; missing: ...` (was `no experiment makes it "
         "correct`, a claim no experiment had tested)",
         "unit.Triage.ADeviceLossWithoutAKillRecordIsUndetermined"},
        {"a work loop past lavapipe's loop limit (issue 35 §4)",
         "a `work` step with `work = 65536` on lavapipe, `repro --scenario F`", 125,
         "`cannot test here: F: step 1 dispatch work loops 65536 times, and MESA_LLVMPIPE ends a shader loop after "
         "65535 iterations (Mesa gallivm's loop limiter ...): a known limit of that driver, not a fault ...`, nothing "
         "run (was BUG REPRODUCED in every mode, split included, with cause undetermined; 65535 is right)",
         "e2e.LavapipeQuirk.AWorkLoopPastItsLimitIsCannotTestNeverAVerdict"},
        {"a name in a scenario file with a control character (R15)",
         "`name = \"evil\\u001b[2J\\nsecond line\"` (or a buffer, kernel, queue or semaphore so named), "
         "`repro --scenario F`",
         1,
         "`F:1:8: the scenario's name 'evil\\x1b[2J\\nsecond line' holds a control character; expected a name that "
         "prints as itself on one line` (was printed raw: a verdict line split in two, terminal escapes run)",
         "e2e.HostileFile.ANameWithControlCharactersIsABadFile, "
         "unit.ScenarioParse.NamesWithControlCharactersAreBadFilesOnOneLine, "
         "unit.OneTerminalLine.*"},
        {"a scenario dispatch of more than 2^32 invocations (R1)",
         "`groups = [65535, 1025, 1]` on increment, or the same counts from an indirect-writer into a "
         "`dispatch_indirect`, `repro --scenario F`",
         1,
         "`F:13:10: groups [65535, 1025, 1] make 4299096000 invocations (64 per workgroup), more than the 4294967296 "
         "that kernel increment's 32-bit invocation index numbers without wrapping; ...`, nothing run (was BUG "
         "REPRODUCED on a correct driver, exit 2)",
         "e2e.HostileFile.ADispatchPast2To32InvocationsIsRefusedBeforeItRuns, "
         "e2e.HostileFile.IndirectCountsPast2To32InvocationsAreRefusedBeforeTheyRun, "
         "unit.ScenarioParse.InvocationsPastTheKernelsIndexAreRefusedAtTheBoundary"},
        {"a user kernel's SPIR-V module that spirv-val rejects (R7)",
         "a `[[kernel]]` module with the id bound 0xffffffff, `repro --scenario F`", 1,
         "`F:L:C: kernel 'mix': 'bound.spv': spirv-val (vulkan1.3) rejects the module (error: line 0: Invalid SPIR-V.  "
         "The id bound is larger than the max id bound 4194303.); ...` at the `spirv` key (was CANNOT TEST HERE: the "
         "driver crashed in vkCreateComputePipelines, 125)",
         "e2e.HostileFile.AUserModuleThatSpirvValRejectsIsABadFile"},
        {"--scenario or a VK_DRIVER_FILES entry that is a FIFO, a device or too large (R9)",
         "`repro --scenario fifo.toml`, `repro --scenario /dev/zero`, a 16 MiB + 1 file; "
         "`VK_DRIVER_FILES=broken.json:/dev/zero:fifo.json repro`",
         1,
         "`--scenario: cannot read 'fifo.toml' (a FIFO, not a regular file)`, `(a character device, not a regular "
         "file)`, `(16777217 bytes, more than the 16 MiB allowed)`; 125 with `driver manifest '/dev/zero' cannot be "
         "read (a character device, not a regular file)` (was a hang in open(), or memory filled without bound)",
         "e2e.HostileFile.AFifoOrADeviceIsRefusedWithoutReadingIt, "
         "e2e.LoaderProblems.AManifestThatIsADeviceOrAFifoIsNamedWithoutReadingIt, "
         "unit.ScenarioLoad.ReadErrorsSayWhyAndNeitherAFifoNorADeviceIsRead, "
         "unit.UnreadableManifests.ADeviceOrAFifoIsNamedWithoutBeingRead"},
        {"a scenario file that cannot be read, is empty, or repeats past 65536 steps (R18)",
         "`repro --scenario` of a missing file, a folder, a dangling link, a link loop, an empty file; a `repeat = "
         "65536` then one more step",
         1,
         "`--scenario: cannot read 'F' (No such file or directory)` (`Is a directory`, `Too many levels of symbolic "
         "links`); `--scenario: 'F' is empty (0 bytes); ...`; `F:12:10: the steps repeated here make 65536 steps, and "
         "with the steps after them the file comes to more than 65536 at step 65537 (line 14); ...` (was no reason, "
         "`cannot read` for an empty file, and `F:0:0`)",
         "e2e.HostileFile.ReadErrorsSayWhyAndAnEmptyFileSaysItIsEmpty, "
         "e2e.HostileFile.TooManyStepsAfterARepeatPointAtTheRepeat, "
         "unit.ScenarioParse.TooManyStepsPointAtTheRepeatNeverAtLineZero"},
        {"a SIGABRT another process sends (R6)",
         "`kill -ABRT <child>` during a driver call; `kill -ABRT <repro>` or `timeout -s ABRT` (repro passes it on to "
         "the child)",
         125,
         "`--- CRASHED: the repro child process was ended by a SIGABRT another process sent, in vkWaitSemaphores "
         "during ...`; `--- a signal from outside, not an abort the child raised: ... no verdict on the driver` (was "
         "DRIVER CRASH: the driver aborted, exit 3; under `timeout -s ABRT` repro itself ended by the signal); "
         "abort() in the driver stays the driver's",
         "e2e.simdriver.Faults.AnAbortSentFromOutsideIsNoDriverCrash, "
         "unit.CrashSite.TheHandlerReportsOnlyAnAbortSentByAnotherProcess, "
         "unit.CrashSite.AnAbortAnotherProcessSentIsNeverTheDrivers"},
        {"two documents on one file, or a document on an input (R11)",
         "`repro --trace r.json --json r.json`, `-o r.md --json ./r.md`, `--scenario F --json F`, `-o` on a "
         "`--spirv` module",
         1,
         "`--json 'r.json' and --trace 'r.json' name the same file, so one document would replace the other; ...`; "
         "`--json 'F' is the --scenario file 'F', which the document would replace; ...`, before anything runs, the "
         "file untouched (was overwritten without a word, exit 0)",
         "e2e.OutputPaths.TwoDocumentsOrADocumentAndAnInputOnOneFileAreRefusedBeforeAnyWork, "
         "e2e.HostileFile.AnOutputNamingTheScenarioFileIsRefusedAndTheFileKept, unit.OutputCollision.*"},
        {"a document name of 248..255 bytes, or a folder where no new file can be made (R12)",
         "`repro --format json -o LLL...L.json` (255 bytes); `repro -o /proc/self/comm` (a writable file in a "
         "folder that takes no new file, as a read-only or immutable one)",
         0,
         "the long name is written (the temporary name is cut to fit NAME_MAX); the folder is `-o/--output: cannot "
         "write '/proc/self/comm' (No such file or directory)`, exit 1, before the run (was the document lost after "
         "the run, exit 1)",
         "e2e.OutputPaths.ADocumentWithALongValidNameIsWritten, "
         "e2e.OutputPaths.AFolderWhereTheTemporaryFileCannotBeMadeIsRefusedBeforeAnyWork, "
         "unit.OutputPaths.TheTemporaryNameFitsForEveryValidName"},
        {"a stdout document lost on a run that reproduced (N12)",
         "`repro --preset tiny -n 2 --drop-dispatch 2 --format json > /dev/full`", 2,
         "`repro: the report could not be written to stdout`, the status still 2 (was 2 and no word)",
         "e2e.UnwritableStreams.AReproducedRunSaysItsDocumentWasLostAndKeepsItsStatus"},
    };
}

std::string matrixMarkdown() {
    const auto m = faultMatrix();
    std::ostringstream md;
    md << "# Failure matrix\n\n"
          "Generated from the table in `tests/fault/fault_test.cpp`; the test\n"
          "`fault.FailureMatrixDoc.MatchesTheTestTable` fails when this file and the table differ.\n"
          "Regenerate with `REPRO_UPDATE_FAILURE_MATRIX=1 build/dev/tests/repro_fault_tests "
          "--gtest_filter=FailureMatrixDoc.*`.\n\n"
          "Each row runs `repro_faulty --preset tiny -n "
       << kChain
       << " --mode MODE` on lavapipe with `REPRO_FAULT=function:k:RESULT`:\n"
          "the k-th call (1-based, counted over the whole process) of that Vulkan function returns\n"
          "RESULT (`repro_faulty` is repro built with `tests/fault/fault_injection.cpp`, which\n"
          "replaces entries of volk's function table; the normal `repro` cannot be made to do it).\n"
          "An injected `VK_ERROR_DEVICE_LOST` is sticky: later submits, waits and\n"
          "`vkDeviceWaitIdle` return it too. An injected wait result skips the real wait, as a hang\n"
          "would leave the submit running; an injected `VK_TIMEOUT` is sticky as well (every later\n"
          "wait sleeps its timeout and times out), so those rows add `--timeout 1` and the hang\n"
          "lasts until repro's own deadline. Every row also checks that the process did not end by\n"
          "a signal, nor with status 134 or 255.\n\n"
          "Call counts with `-n 3`: each mode's run is one submit clearing the chain's buffers\n"
          "plus 6 (split) or 1 (multipass, single), then repro's canary (an empty command buffer),\n"
          "each host-waited; `--mode all` runs split, multipass, single (14 submits);\n"
          "`--mode multipass|single` runs that mode, then split as the reference (11 submits). Buffers (one "
          "vkCreateBuffer + vkAllocateMemory each):\n";
    const auto names = bufferNames();
    for (size_t i = 0; i < names.size(); ++i) md << (i ? ", " : "") << i + 1 << " " << names[i];
    md << ". Descriptor sets: " << kBindsPerRun
       << " per run, one per dispatch.\n\n"
          "Columns: *kept* lists the modes whose `  mode=... nz=...` result line must still be\n"
          "printed; *hang* the mode that must say `HANG`; *not run* the modes that must say\n"
          "`not run`; *message* the fragments that must appear in stdout or stderr (`…` joins\n"
          "several).\n\n";

    int enabled = 0, disabled = 0;
    for (const auto& c : m) (c.knownIssue.empty() ? enabled : disabled)++;
    md << "## Summary\n\n"
       << m.size() << " rows: " << enabled << " enabled, " << disabled
       << " `DISABLED_` (a known defect in src/, expected to fail until fixed; the row states\n"
          "the specified behaviour).\n\n"
          "| fault | function | rows | status | note |\n|---|---|---|---|---|\n";
    std::vector<std::pair<std::string, std::string>> seen;
    auto functionAndResult = [](const FaultCase& c) {
        return std::pair{c.fault.substr(0, c.fault.find(':')), c.fault.substr(c.fault.rfind(':') + 1)};
    };
    for (const auto& c : m) {
        const auto key = functionAndResult(c);
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
        seen.push_back(key);
        const auto rows =
            std::count_if(m.begin(), m.end(), [&](const FaultCase& x) { return functionAndResult(x) == key; });
        std::string note = c.note;
        if (!c.knownIssue.empty()) note += (note.empty() ? "" : "; ") + ("DISABLED_: " + c.knownIssue);
        md << "| " << key.second << " | " << key.first << " | " << rows << " | " << c.status << " | " << note << " |\n";
    }

    auto list = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
        return s;
    };
    md << "\n## Rows\n\n| REPRO_FAULT | mode | status | kept | hang | not run | message | state |\n"
          "|---|---|---|---|---|---|---|---|\n";
    for (const auto& c : m) {
        std::string message;
        for (const auto& f : c.messages) message += (message.empty() ? "" : " … ") + f;
        md << "| `" << c.fault << "` | " << c.mode
           << (c.timeout ? " `--timeout " + std::to_string(kTimeoutSeconds) + "`" : std::string()) << " | " << c.status
           << " | " << list(c.completed) << " | " << c.hung << " | " << list(c.notRun) << " | " << markdownCell(message)
           << " | " << (c.knownIssue.empty() ? "enabled" : "DISABLED_") << " |\n";
    }
    md << "\n## Environments and interrupts\n\n"
          "Failures no injected Vulkan result produces, each run end to end by the test named.\n\n"
          "| situation | how | status | repro says | test |\n|---|---|---|---|---|\n";
    for (const auto& e : environmentCases()) {
        md << "| " << markdownCell(e.situation) << " | " << markdownCell(e.command) << " | " << e.status << " | "
           << markdownCell(e.says) << " | " << markdownCell(e.test) << " |\n";
    }
    md << "\n## Verdicts under faults (issue 21)\n\n"
          "Each row a defect a user could hit, the behaviour now, and the test that failed before the\n"
          "fix.\n\n"
          "| situation | how | status | repro says | test |\n|---|---|---|---|---|\n";
    for (const auto& e : verdictCases()) {
        md << "| " << markdownCell(e.situation) << " | " << markdownCell(e.command) << " | " << e.status << " | "
           << markdownCell(e.says) << " | " << markdownCell(e.test) << " |\n";
    }
    md << "\n## Hostile inputs (issue 35)\n\n"
          "Files, paths and signals a user or a script may hand repro (issue 35, section 4; the R and N\n"
          "numbers are the hostile-input probe's): the behaviour now, and the test that failed before\n"
          "the fix.\n\n"
          "| situation | how | status | repro says | test |\n|---|---|---|---|---|\n";
    for (const auto& e : hostileCases()) {
        md << "| " << markdownCell(e.situation) << " | " << markdownCell(e.command) << " | " << e.status << " | "
           << markdownCell(e.says) << " | " << markdownCell(e.test) << " |\n";
    }
    return md.str();
}

TEST(FailureMatrixDoc, MatchesTheTestTable) {
    const std::filesystem::path doc = std::filesystem::path(REPRO_SOURCE_DIR) / "docs" / "failure-matrix.md";
    const std::string expected = matrixMarkdown();
    if (std::getenv("REPRO_UPDATE_FAILURE_MATRIX")) {
        std::ofstream(doc, std::ios::binary | std::ios::trunc) << expected;
    }
    std::ifstream in(doc, std::ios::binary);
    std::stringstream got;
    got << in.rdbuf();
    EXPECT_EQ(got.str(), expected) << doc << " is out of date; regenerate it (see its header)";
}

}  // namespace
