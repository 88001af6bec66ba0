// The defects of a scenario file's run that issue 34 names, each through the simulated
// driver (tests/README.md "The simulated driver") on the machine's driver: an interrupt
// exits 130/143 with the document kept and marked interrupted (it exited 125); a timed-out
// wait never leads to destroying the device (vkDestroyInstance crashed on the busy device);
// a hanging matrix row ends that row only (the rows ran in one process); Ctrl-Z stops the
// matrix's children and theirs; an interrupted --matrix --format markdown keeps its document.
// The submit timeout's scaling with the work is tests/unit/submit_budget_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
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
using repro::test::count;
using repro::test::describeEnd;
using repro::test::runBounded;

// A folder of its own for each test, removed at the end.
struct Folder {
    std::filesystem::path dir;
    explicit Folder(const std::string& name)
        : dir(std::filesystem::temp_directory_path() /
              ("repro-file-defects-" + name + "-" + std::to_string(::getpid()))) {
        std::filesystem::create_directories(dir);
    }
    ~Folder() { std::filesystem::remove_all(dir); }
    Folder(const Folder&) = delete;
    Folder& operator=(const Folder&) = delete;
};

std::string readFile(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `dispatches` in-place increments of 64 words with blade's barrier between them: three work
// steps, so the matrix has its submit-every row.
std::filesystem::path incrementFile(const Folder& f, int dispatches = 3) {
    const auto path = f.dir / "increments.toml";
    std::ofstream out(path);
    out << "name = \"increments\"\nsource = \"https://example.org/increments\"\npattern = \"increments\"\n"
           "expected = \"not reproduced\"\ncheck = [\"data\"]\n[[buffer]]\nname = \"data\"\nbytes = 256\n"
           "init = \"iota\"\n";
    for (int d = 0; d < dispatches; ++d) {
        if (d > 0) out << "[[step]]\nbarrier = \"blade-c\"\n";
        out << "[[step]]\ndispatch = \"increment\"\nbindings = [\"data\"]\n";
    }
    return path;
}

// The environment that loads the simulated driver with `simulate`.
std::string simulation(const std::string& simulate) {
    return std::string("VK_ADD_LAYER_PATH='") + REPRO_SIMDRIVER_LAYER_DIR +
           "' VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate REPRO_SIMULATE='" + simulate + "' ";
}

// repro `args` under `simulate`, started in the background by /bin/sh (SIGINT at its default,
// as a terminal's foreground job has it); once its stdout holds `marker`, `then` runs with
// $pid the repro process. stdout is the run's followed by "status=N". LeakSanitizer is off:
// an interrupted run leaves a busy device undestroyed on purpose.
BoundedResult inBackground(const std::string& simulate, const std::string& args, const std::string& marker,
                           const std::string& then, double limit = 150) {
    const std::string script =
        "out=$(mktemp) || exit 99; ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" " +
        simulation(simulate) + "env --default-signal=INT \"" + REPRO_EXECUTABLE + "\" " + args +
        " >\"$out\" & pid=$!; i=0; until grep -qF -- '" + marker +
        "' \"$out\" || ! kill -0 $pid 2>/dev/null || [ $i -ge 1200 ]; do sleep 0.05; i=$((i+1)); done; " + then +
        "; wait $pid; status=$?; cat \"$out\"; rm -f \"$out\"; echo status=$status";
    return runBounded("/bin/sh", {"-c", script}, {}, limit);
}

// The status the script above printed, or -1.
int statusOf(const BoundedResult& r) {
    std::smatch m;
    return std::regex_search(r.out, m, std::regex(R"(status=(\d+)\n$)")) ? std::stoi(m[1]) : -1;
}

// Each dispatch takes 400 ms of real time: a mode of the file lasts about a second.
constexpr const char* kSlow = "clock:us-per-wg=0,ms-per-dispatch=400";
// 150 ms a dispatch: a matrix row (split, then the row's mode) lasts about a second.
constexpr const char* kSlowRows = "clock:us-per-wg=0,ms-per-dispatch=150";

class FileInterrupt : public testing::TestWithParam<std::pair<const char*, int>> {};

// The signal lands in multipass, after split's line: 128 + the signal, the line that says so,
// split's result kept, and the JSON document written and marked interrupted.
TEST_P(FileInterrupt, ExitsWithTheSignalsStatusAndKeepsTheMarkedDocument) {
    const auto [signal, status] = GetParam();
    const Folder f(std::string("interrupt-") + signal);
    const auto json = f.dir / "r.json";
    const BoundedResult r =
        inBackground(kSlow, "--scenario '" + incrementFile(f).string() + "' --json '" + json.string() + "'",
                     "  mode=split ", std::string("kill -") + signal + " $pid");
    EXPECT_EQ(statusOf(r), status) << shown(r);
    EXPECT_TRUE(contains(r.out, std::string("--- INTERRUPTED by SIG") + signal)) << shown(r);
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(  mode=split +'data' nz=64/64)"))) << shown(r);
    const std::string doc = readFile(json);
    ASSERT_FALSE(doc.empty()) << "no document: " << shown(r);
    const auto j = nlohmann::json::parse(doc, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << doc;
    EXPECT_EQ(j["verdict"]["exit_status"], status) << doc;
    EXPECT_EQ(j["verdict"]["kind"], "interrupted") << doc;
    EXPECT_EQ(j["scenario"]["name"], "increments") << doc;
}

INSTANTIATE_TEST_SUITE_P(Signals, FileInterrupt,
                         testing::Values(std::make_pair("INT", 130), std::make_pair("TERM", 143)),
                         [](const auto& p) { return std::string(p.param.first); });

// A submit that never ends, --timeout 1, and a driver that crashes in vkDestroyDevice: the
// wait times out, the device is abandoned (never destroyed), so the verdict is the hang and
// no crash. Before, the busy device was destroyed and the driver crashed in it.
TEST(FileTimeout, ATimedOutWaitNeverLeadsToDestroyingTheDevice) {
    const Folder f("abandon");
    const std::string file = incrementFile(f).string();
    const BoundedResult r =
        runBounded("/bin/sh",
                   {"-c", simulation("clock:us-per-wg=1;hang:dispatches=1;crash:vkDestroyDevice") + "\"" +
                              REPRO_EXECUTABLE + "\" --scenario '" + file + "' --mode multipass --timeout 1"},
                   {"ASAN_OPTIONS=detect_leaks=0"}, 120);
    EXPECT_EQ(r.status, 3) << shown(r);
    EXPECT_TRUE(contains(r.out, "--- GPU HANG: mode multipass")) << shown(r);
    EXPECT_FALSE(contains(r.out + r.err, "DRIVER CRASH")) << shown(r);
    EXPECT_FALSE(contains(r.out + r.err, "CRASHED")) << shown(r);
    EXPECT_FALSE(contains(r.out + r.err, "vkDestroyDevice")) << shown(r);
}

// Every dispatch after a command buffer's second never ends and --timeout 1 ends each wait:
// the rows that keep the file's one submit hang, the submit-every=2 rows (two dispatches,
// then one) do not. Each row runs in a child of its own, so a hang ends that row only: the
// rows after a hung one run to their results, and the matrix says hang.
TEST(FileMatrix, AHangingRowEndsThatRowOnly) {
    const Folder f("matrix-hang");
    const std::string file = incrementFile(f).string();
    const BoundedResult r =
        runBounded("/bin/sh",
                   {"-c", simulation("clock:us-per-wg=0,ms-per-dispatch=1;hang:dispatches=2") + "\"" +
                              REPRO_EXECUTABLE + "\" --scenario '" + file + "' --matrix --timeout 1"},
                   {"ASAN_OPTIONS=detect_leaks=0"}, 150);
    EXPECT_EQ(r.status, 3) << shown(r);
    for (const char* mode : {"multipass", "single"}) {
        const std::string m(mode);
        EXPECT_TRUE(std::regex_search(r.out, std::regex("\n +\\d+  " + m + " as written +hang +3 "))) << mode << "\n"
                                                                                                      << shown(r);
        EXPECT_TRUE(std::regex_search(r.out, std::regex("\n +\\d+  " + m + " submit-every=2 host-wait +ok +0 ")))
            << mode << "\n"
            << shown(r);
    }
    EXPECT_TRUE(contains(r.out, "--- matrix verdict: GPU HANG in a valid variant: multipass as written (hang)"))
        << shown(r);
}

// The matrix's processes below repro, children first.
const char* kDescendants =
    "desc() { for c in $(cat /proc/$1/task/*/children 2>/dev/null); do echo $c; desc $c; done; }; ";

// SIGTSTP (Ctrl-Z) to repro during a file's matrix: repro, its row's child and that child's
// Vulkan child all stop (state T); SIGCONT resumes them and the matrix ends with its verdict.
TEST(FileMatrix, SigtstpStopsTheRowAndItsVulkanChild) {
    const Folder f("matrix-tstp");
    const std::string then = std::string(kDescendants) +
                             "sleep 1; kill -TSTP $pid; sleep 1.5; for p in $pid $(desc $pid); do "
                             "echo \"state $(cut -d')' -f2 /proc/$p/stat | cut -c2)\"; done; kill -CONT $pid";
    const BoundedResult r =
        inBackground(kSlowRows, "--scenario '" + incrementFile(f).string() + "' --matrix", "--- matrix ---", then, 280);
    EXPECT_EQ(statusOf(r), 0) << shown(r);
    // A row whose Vulkan child was just ending may hold it as a zombie (Z: it has exited and
    // runs nothing); repro and the row are stopped, and none may be running or sleeping.
    EXPECT_GE(count(r.out, "state T"), 2u) << "repro and the row: " << shown(r);
    EXPECT_GE(count(r.out, "state T") + count(r.out, "state Z"), 3u)
        << "repro, the row and its Vulkan child: " << shown(r);
    for (const char* running : {"state R", "state S", "state D"})
        EXPECT_FALSE(contains(r.out, running)) << "a process went on: " << shown(r);
    EXPECT_TRUE(contains(r.out, "--- matrix verdict: NOT REPRODUCED")) << shown(r);
}

// SIGINT during a file's matrix with --format markdown -o: 130 and the document, with the
// rows that finished and the interruption, is written.
TEST(FileMatrix, AnInterruptedMarkdownMatrixKeepsItsDocument) {
    const Folder f("matrix-markdown");
    const auto md = f.dir / "matrix.md";
    const BoundedResult r = inBackground(
        kSlowRows, "--scenario '" + incrementFile(f).string() + "' --matrix --format markdown -o '" + md.string() + "'",
        "  1  multipass as written", "kill -INT $pid", 280);
    EXPECT_EQ(statusOf(r), 130) << shown(r);
    const std::string doc = readFile(md);
    ASSERT_FALSE(doc.empty()) << "no document: " << shown(r);
    EXPECT_TRUE(contains(doc, "as written")) << doc;
    EXPECT_TRUE(contains(doc, "interrupted")) << doc;
}

// A file with one `work` step of `work` rounds over 64 words, then nothing: on lavapipe.
std::filesystem::path workFile(const Folder& f, uint32_t work) {
    const auto path = f.dir / ("work-" + std::to_string(work) + ".toml");
    std::ofstream(path) << "name = \"work\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\n"
                           "check = [\"data\"]\n[[buffer]]\nname = \"data\"\nbytes = 256\ninit = \"iota\"\n"
                           "[[step]]\ndispatch = \"work\"\nbindings = [\"data\"]\nwork = "
                        << work << "\n";
    return path;
}

const std::vector<std::string> kLavapipe = {"VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE="};

// lavapipe ends every shader loop after 65,535 rounds (gallivm's loop limiter): a work step of
// 65,536 would write other words with no fault of the driver, so it is cannot test (125) in one
// line before anything runs, never a verdict; 65,535 runs and is right. (--work-scale and the
// matrix's work-scale row leave the work kernel's rounds as written: it is what it computes.)
TEST(LavapipeQuirk, AWorkLoopPastItsLimitIsCannotTestNeverAVerdict) {
    const Folder f("loop-limit");
    const BoundedResult at = runBounded(REPRO_EXECUTABLE, {"--scenario", workFile(f, 65535).string()}, kLavapipe, 120);
    EXPECT_EQ(at.status, 0) << shown(at);
    const std::string past = workFile(f, 65536).string();
    const BoundedResult r = runBounded(REPRO_EXECUTABLE, {"--scenario", past}, kLavapipe, 120);
    EXPECT_EQ(r.status, 125) << shown(r);
    EXPECT_EQ(r.err, "repro: cannot test here: " + past +
                         ": step 1 dispatch work loops 65536 times, and MESA_LLVMPIPE ends a shader loop after 65535 "
                         "iterations (Mesa gallivm's loop limiter (LP_MAX_TGSI_LOOP_ITERATIONS, lp_bld_limits.h)): a "
                         "known limit of that driver, not a fault, so its words would differ from the CPU model's; "
                         "keep work at most 65535 on it, or run on another driver\n")
        << shown(r);
    EXPECT_FALSE(contains(r.out, "BUG REPRODUCED")) << shown(r);
}

}  // namespace
