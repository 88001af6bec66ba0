// scripts/mesa-bisect-step under `git bisect run`, end to end: throw-away git histories
// whose revisions each "build" a driver, bisected with repro, and the revision git names
// checked against the one that introduced (or fixed) the simulated bug.
//
// How a revision tells repro what its driver does. On a Mesa checkout each revision's
// build makes a different driver. Here every revision's driver is the machine's lavapipe,
// made to misbehave by the simulated driver (tests/simdriver, VK_LAYER_REPRO_simulate) as
// the revision's `behaviour` file says. The step script is a user's tool and carries
// nothing for tests, so the test uses only what a user can give it too:
//   - the build command (--build-cmd 'sh build.sh') is the revision's own build.sh: it
//     writes build/fake_devenv_icd.json, as a Mesa build writes
//     radeon_devenv_icd.<arch>.json, and the step hands that manifest to the loader
//     (--icd). It is a copy of lavapipe's manifest, one naming a library that does not
//     exist, or nothing at all when the build fails (which then leaves the previous
//     revision's manifest in place, as a failed Mesa build leaves its old driver);
//   - the layer's own variables (VK_ADD_LAYER_PATH, VK_INSTANCE_LAYERS) are exported by
//     the test into git's environment; the step passes them on untouched;
//   - REPRO_SIMULATE comes from a small launcher script given as --repro: it reads
//     ./behaviour (the step runs repro from the checkout's top level, where git bisect
//     run starts it) and execs the real repro.
// A `behaviour` read by the step script itself (say, a sourced env file) would have put a
// test-only feature into the user's script; the launcher keeps it in the test.
//
// Every revision but OtherDriver simulates the original report's device (`identity`:
// driverName radv), and the bisect runs with --expect-driver radv, as a Mesa bisect should.
// Every process is bounded in time (process.hpp), git runs with no global or system
// configuration, and the histories live in a temporary folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "process.hpp"

#if !defined(REPRO_EXECUTABLE) || !defined(REPRO_SIMDRIVER_LAYER_DIR) || !defined(REPRO_BISECT_STEP)
#error "REPRO_EXECUTABLE, REPRO_SIMDRIVER_LAYER_DIR and REPRO_BISECT_STEP must be defined"
#endif

namespace {

namespace fs = std::filesystem;
using repro::test::contains;
using repro::test::lines;
using repro::test::ProcessResult;
using repro::test::runProcess;
using repro::test::shown;

// ---- revisions ---------------------------------------------------------------------------

// What a revision's build makes. Statuses are the step script's (scripts/mesa-bisect-step
// --help), which passes repro's on.
enum class Kind {
    Good,            // the simulated RADV, correct: 0
    Bug,             // the original report's bug (seed-bug: a command buffer loses its dispatches past the 12th): 2
    Crash,           // the driver crashes in vkQueueSubmit, during the modes: 3
    Stall,           // the driver stalls in vkCreateComputePipelines, during set-up: 125 after 10 s
    MissingLibrary,  // the manifest names a driver library that is not there: 125
    Api10,           // a Vulkan 1.0 device, which repro cannot use: 125
    OtherDriver,     // lavapipe as itself (driverName llvmpipe), not the driver expected: 125
    BuildFails,      // the build exits 1: 125
    Slow,            // every dispatch takes 0.5 s on the simulated clock: only for the --limit test
    DropsDispatch,   // a command buffer loses its dispatches past its first (seed-bug:dispatches=1): 2
};

struct KindSpec {
    const char* name;
    const char* behaviour;  // REPRO_SIMULATE for the launcher
    int status;             // the step's exit status, and with --invert
    int invertedStatus;
};

const KindSpec& spec(Kind k) {
    static const std::map<Kind, KindSpec> specs = {
        {Kind::Good, {"good", "identity", 0, 1}},
        {Kind::Bug, {"bug", "identity;seed-bug", 2, 0}},
        {Kind::Crash, {"crash", "identity;crash:vkQueueSubmit", 3, 3}},
        {Kind::Stall, {"stall", "identity;stall:vkCreateComputePipelines", 125, 125}},
        {Kind::MissingLibrary, {"missing-library", "identity", 125, 125}},
        {Kind::Api10, {"api-1.0", "identity;api:1.0", 125, 125}},
        {Kind::OtherDriver, {"other-driver", "", 125, 125}},
        {Kind::BuildFails, {"build-fails", "identity", 125, 125}},
        {Kind::Slow, {"slow", "identity;clock:us-per-wg=0,ms-per-dispatch=500", 125, 125}},
        {Kind::DropsDispatch, {"drops-dispatch", "identity;seed-bug:dispatches=1", 2, 0}},
    };
    return specs.at(k);
}

// How git bisect files a revision of kind `k`: "old", "new" or "skip" (git-bisect(1):
// 0 old, 125 skip, 1 to 127 new).
std::string gitClass(Kind k, bool invert) {
    const int status = invert ? spec(k).invertedStatus : spec(k).status;
    return status == 0 ? "old" : status == 125 ? "skip" : "new";
}

// ---- processes -------------------------------------------------------------------------

// git with no user or system configuration, in English, never asking for anything.
const std::vector<std::string>& gitEnv() {
    static const std::vector<std::string> env = {"GIT_CONFIG_GLOBAL=/dev/null",
                                                 "GIT_CONFIG_NOSYSTEM=1",
                                                 "GIT_PAGER=cat",
                                                 "GIT_TERMINAL_PROMPT=0",
                                                 "LC_ALL=C",
                                                 "LANGUAGE="};
    return env;
}

// The simulate layer loaded, with REPRO_SIMULATE left to the launcher. The driver
// variables stay the caller's: the step sets its own (and an empty VK_DRIVER_FILES is not
// "unset" to the loader but a list of no drivers).
std::vector<std::string> bisectEnv() {
    std::vector<std::string> env = gitEnv();
    env.insert(env.end(), {std::string("VK_ADD_LAYER_PATH=") + REPRO_SIMDRIVER_LAYER_DIR,
                           "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate",
                           "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE=", "REPRO_SIMULATE_TRACE="});
    return env;
}

// `git -C dir args...`; throws with git's words when it fails.
std::string git(const fs::path& dir, std::vector<std::string> args) {
    args.insert(args.begin(), {"-C", dir.string()});
    const ProcessResult r = runProcess("git", args, gitEnv(), 60);
    if (r.status != 0) throw std::runtime_error("git " + args[2] + " failed: " + shown(r));
    return r.out;
}

void writeFile(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Lavapipe's manifest in two of the folders where the loader looks for drivers on Linux
// ($XDG_DATA_DIRS, by default /usr/local/share:/usr/share, and /etc, each + /vulkan/icd.d:
// Vulkan-Loader docs/LoaderDriverInterface.md, "Driver Discovery on Linux"); "" when it is
// not installed there.
std::string lavapipeManifest() {
    const char* xdg = std::getenv("XDG_DATA_DIRS");
    std::stringstream dirs(xdg && *xdg ? xdg : "/usr/local/share:/usr/share");
    std::vector<fs::path> roots;
    for (std::string d; std::getline(dirs, d, ':');) roots.emplace_back(d);
    roots.emplace_back("/etc");
    for (const fs::path& root : roots) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(root / "vulkan" / "icd.d", ec)) {
            if (e.path().filename().string().starts_with("lvp_icd")) return e.path().string();
        }
    }
    return "";
}

// A fresh folder, removed with its contents at the end.
class Scratch {
  public:
    explicit Scratch(const std::string& tag)
        : path_(fs::temp_directory_path() / ("repro-bisect-" + std::to_string(getpid()) + "-" + tag)) {
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    const fs::path& path() const { return path_; }

  private:
    fs::path path_;
};

// ---- the fake Mesa -------------------------------------------------------------------------

// A git repository with one commit per entry of `kinds`, oldest first, and the launcher
// beside it. shas[i] is the commit of kinds[i].
class FakeMesa {
  public:
    FakeMesa(const fs::path& root, const std::string& lavapipe, const std::vector<Kind>& kinds)
        : checkout_(root / "mesa"), launcher_(root / "repro-launcher"), lavapipe_(lavapipe) {
        fs::create_directories(checkout_);
        writeLauncher();
        git(checkout_, {"init", "-q"});
        git(checkout_, {"config", "user.name", "repro test"});
        git(checkout_, {"config", "user.email", "test@repro.invalid"});
        writeFile(checkout_ / ".gitignore", "/build/\n");
        for (size_t i = 0; i < kinds.size(); ++i) commit(i, kinds[i]);
    }
    const fs::path& checkout() const { return checkout_; }
    const fs::path& launcher() const { return launcher_; }
    const std::vector<std::string>& shas() const { return shas_; }
    const std::map<std::string, Kind>& kindOf() const { return kindOf_; }

  private:
    void writeLauncher() const {
        writeFile(launcher_, std::string("#!/bin/sh\n# The revision's simulated driver behaviour, from its tree.\n") +
                                 "REPRO_SIMULATE=$(cat ./behaviour) || exit 99\nexport REPRO_SIMULATE\n" + "exec '" +
                                 REPRO_EXECUTABLE + "' \"$@\"\n");
        fs::permissions(launcher_, fs::perms::owner_all);
    }

    // The revision's build.sh: the manifest it installs, or a failure that leaves build/ as it was.
    std::string buildScript(Kind k) const {
        if (k == Kind::BuildFails) return "echo 'fake build: error: this revision does not compile' >&2\nexit 1\n";
        return "rm -rf build && mkdir build && cp manifest.json build/fake_devenv_icd.json\n";
    }

    std::string manifest(Kind k) const {
        if (k != Kind::MissingLibrary) return readFile(lavapipe_);
        const std::string library = (checkout_ / "build/src/amd/vulkan/libvulkan_radeon.so").string();
        return "{\n    \"file_format_version\": \"1.0.0\",\n    \"ICD\": {\n        \"library_path\": \"" + library +
               "\",\n        \"api_version\": \"1.3.230\"\n    }\n}\n";
    }

    void commit(size_t index, Kind k) {
        writeFile(checkout_ / "behaviour", std::string(spec(k).behaviour) + "\n");
        writeFile(checkout_ / "build.sh", buildScript(k));
        writeFile(checkout_ / "manifest.json", manifest(k));
        writeFile(checkout_ / "revision", std::to_string(index) + "\n");  // every commit differs
        git(checkout_, {"add", "-A"});
        git(checkout_, {"commit", "-q", "-m", "r" + std::to_string(index) + ": " + spec(k).name});
        std::string sha = git(checkout_, {"rev-parse", "HEAD"});
        sha.erase(sha.find_last_not_of("\n") + 1);
        shas_.push_back(sha);
        kindOf_[sha] = k;
    }

    fs::path checkout_, launcher_;
    std::string lavapipe_;
    std::vector<std::string> shas_;
    std::map<std::string, Kind> kindOf_;
};

// The step script's options for the fake Mesa, then repro's.
std::vector<std::string> stepArgs(const FakeMesa& mesa, bool invert, const std::string& limit = "120") {
    std::vector<std::string> args = {"--build-cmd", "sh build.sh",
                                     "--icd",       "build/fake_devenv_icd.json",
                                     "--repro",     mesa.launcher().string(),
                                     "--limit",     limit,
                                     "--",          "--preset",
                                     "tiny",        "-n",
                                     "7",           "--mode",
                                     "all",         "--expect-driver",
                                     "radv"};
    if (invert) args.push_back("--invert");
    return args;
}

// One step on the checked-out revision, from the checkout's top level as git bisect run
// starts it (env -C).
ProcessResult runStep(const FakeMesa& mesa, const std::vector<std::string>& stepOptions) {
    std::vector<std::string> args = {"-C", mesa.checkout().string(), REPRO_BISECT_STEP};
    args.insert(args.end(), stepOptions.begin(), stepOptions.end());
    return runProcess("env", args, bisectEnv(), 120);
}

#define REQUIRE_LAVAPIPE(manifest)                                                                 \
    do {                                                                                           \
        if ((manifest).empty()) {                                                                  \
            GTEST_SKIP() << "needs lavapipe's manifest (mesa-vulkan-drivers): it stands in for a " \
                            "Mesa build's";                                                        \
        }                                                                                          \
    } while (0)

}  // namespace

namespace {

const std::string& lavapipe() {
    static const std::string manifest = lavapipeManifest();
    return manifest;
}

// ---- one step per kind of revision -------------------------------------------------------

// What the step's output must say for each kind, besides its status.
void expectStepSays(Kind k, const ProcessResult& r) {
    const std::string all = r.out + r.err;
    const bool ran = contains(r.err, "mesa-bisect-step: ") && contains(r.err, ": running: ");
    switch (k) {
        case Kind::Good:
            EXPECT_TRUE(contains(all, "--- NOT REPRODUCED")) << all;
            break;
        case Kind::Bug:
            EXPECT_TRUE(contains(all, "--- BUG REPRODUCED: mode multipass is zero")) << all;
            break;
        case Kind::Crash:
            EXPECT_TRUE(contains(all, "the driver crashed (SIGSEGV) in vkQueueSubmit")) << all;
            break;
        case Kind::Stall:
            EXPECT_TRUE(contains(all, "vkCreateComputePipelines did not return within 10 s")) << all;
            break;
        case Kind::MissingLibrary:  // the loader found no driver: lavapipe, installed, was not tested
            EXPECT_TRUE(contains(all, "libvulkan_radeon.so: cannot open shared object file")) << all;
            EXPECT_FALSE(contains(all, "--- results ---")) << all;
            break;
        case Kind::Api10:
            EXPECT_TRUE(contains(all, "Vulkan 1.0 device; blade needs 1.1")) << all;
            break;
        case Kind::OtherDriver:
            EXPECT_TRUE(contains(all, "--expect-driver 'radv'")) << all;
            break;
        case Kind::BuildFails:  // the previous revision's manifest is still in build/: never run
            EXPECT_TRUE(contains(r.err, "the build failed (exit 1)")) << all;
            EXPECT_FALSE(ran) << all;
            break;
        case Kind::DropsDispatch:
            EXPECT_TRUE(contains(all, "--- BUG REPRODUCED")) << all;
            break;
        case Kind::Slow:
            break;
    }
    if (k != Kind::BuildFails) {
        EXPECT_TRUE(ran) << all;
    }
}

TEST(BisectStep, EachKindOfRevisionGetsItsStatus) {
    REQUIRE_LAVAPIPE(lavapipe());
    const std::vector<Kind> kinds = {Kind::Good,  Kind::BuildFails,     Kind::Bug,   Kind::Crash,
                                     Kind::Stall, Kind::MissingLibrary, Kind::Api10, Kind::OtherDriver};
    Scratch dir("kinds");
    FakeMesa mesa(dir.path(), lavapipe(), kinds);
    for (size_t i = 0; i < kinds.size(); ++i) {
        SCOPED_TRACE(spec(kinds[i]).name);
        git(mesa.checkout(), {"checkout", "-q", mesa.shas()[i]});
        const ProcessResult r = runStep(mesa, stepArgs(mesa, false));
        EXPECT_EQ(r.status, spec(kinds[i]).status) << shown(r);
        expectStepSays(kinds[i], r);
    }
}

TEST(BisectStep, InvertTurnsReproducedAndNotReproducedAroundAndLeavesTheRest) {
    REQUIRE_LAVAPIPE(lavapipe());
    const std::vector<Kind> kinds = {Kind::Good, Kind::Bug, Kind::Crash, Kind::Api10};
    Scratch dir("invert");
    FakeMesa mesa(dir.path(), lavapipe(), kinds);
    for (size_t i = 0; i < kinds.size(); ++i) {
        SCOPED_TRACE(spec(kinds[i]).name);
        git(mesa.checkout(), {"checkout", "-q", mesa.shas()[i]});
        const ProcessResult r = runStep(mesa, stepArgs(mesa, true));
        EXPECT_EQ(r.status, spec(kinds[i]).invertedStatus) << shown(r);
    }
}

// The loader skips a driver whose library is missing and loads the others it is given, so
// a VK_DRIVER_FILES with lavapipe beside the build's broken manifest (what `meson devenv`
// makes when VK_DRIVER_FILES was already set, or a build tree with lavapipe built too)
// tests lavapipe. --expect-driver stops that. REPRO_SIMULATE is empty here: the layer's
// identity would rename every device, lavapipe included.
TEST(BisectStep, ABrokenBuildBesideAnInstalledDriverIsNotTestedOnThatDriver) {
    REQUIRE_LAVAPIPE(lavapipe());
    Scratch dir("beside");
    FakeMesa mesa(dir.path(), lavapipe(), {Kind::MissingLibrary});
    std::vector<std::string> env = bisectEnv();
    env.push_back("VK_DRIVER_FILES=" + (mesa.checkout() / "manifest.json").string() + ":" + lavapipe());
    // -v: the verbose header's "driverName" field names the driver the run was on.
    const std::vector<std::string> args = {"-v", "--preset", "tiny", "-n", "7", "--mode", "all"};
    const ProcessResult unchecked = runProcess(REPRO_EXECUTABLE, args, env, 120);
    EXPECT_EQ(unchecked.status, 0) << shown(unchecked);
    EXPECT_TRUE(contains(unchecked.out, "driverName llvmpipe")) << "the run was on lavapipe\n" << shown(unchecked);
    std::vector<std::string> checkedArgs = args;
    checkedArgs.insert(checkedArgs.end(), {"--expect-driver", "radv"});
    const ProcessResult checked = runProcess(REPRO_EXECUTABLE, checkedArgs, env, 120);
    EXPECT_EQ(checked.status, 125) << shown(checked);
    EXPECT_TRUE(contains(checked.err, "--expect-driver 'radv': the device that would run is llvmpipe"))
        << shown(checked);
}

TEST(BisectStep, ARunPastTheLimitIsSkipped) {
    REQUIRE_LAVAPIPE(lavapipe());
    Scratch dir("limit");
    FakeMesa mesa(dir.path(), lavapipe(), {Kind::Slow});
    const ProcessResult r = runStep(mesa, stepArgs(mesa, false, "1"));
    EXPECT_EQ(r.status, 125) << shown(r);
    EXPECT_TRUE(contains(r.err, "repro did not finish within 1 (timeout exit 124)")) << shown(r);
    EXPECT_LT(r.seconds, 30) << "SIGTERM at 1 s; repro stops after the submit it waits for";
}

// Without --build-cmd and --icd: `ninja -C build`, then RADV's devenv manifest. The build
// tree is configured once, outside the history (as `meson setup build` is): here a
// build.ninja whose one rule installs the revision's manifest where Mesa's build writes it.
TEST(BisectStep, TheDefaultsBuildWithNinjaAndLoadRadvsDevenvManifest) {
    REQUIRE_LAVAPIPE(lavapipe());
    if (runProcess("ninja", {"--version"}, {}, 30).status != 0) GTEST_SKIP() << "needs ninja";
    Scratch dir("defaults");
    FakeMesa mesa(dir.path(), lavapipe(), {Kind::Bug});
    const std::vector<std::string> args = {"--repro", mesa.launcher().string(), "--",  "--preset", "tiny", "-n",
                                           "7",       "--expect-driver",        "radv"};
    const ProcessResult unconfigured = runStep(mesa, args);
    EXPECT_EQ(unconfigured.status, 255) << shown(unconfigured);
    EXPECT_TRUE(contains(unconfigured.err, "is not a configured build tree")) << shown(unconfigured);

    const std::string manifest = "src/amd/vulkan/radeon_devenv_icd.fake-arch.json";
    fs::create_directories(mesa.checkout() / "build");
    writeFile(mesa.checkout() / "build/build.ninja",
              "rule install\n  command = mkdir -p src/amd/vulkan && cp $in $out\nbuild " + manifest +
                  ": install ../manifest.json\n");
    const ProcessResult r = runStep(mesa, args);
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, "building: ninja -C " + (mesa.checkout() / "build").string())) << shown(r);
    EXPECT_TRUE(contains(r.err, "VK_DRIVER_FILES=" + (mesa.checkout() / "build" / manifest).string())) << shown(r);
}

// A mistake in the step's own set-up, or in repro's options, is the same on every revision:
// the step stops the bisect (255) instead of marking revisions, and before building where it can.
TEST(BisectStep, AMistakeInTheCommandStopsTheBisect) {
    REQUIRE_LAVAPIPE(lavapipe());
    Scratch dir("mistake");
    FakeMesa mesa(dir.path(), lavapipe(), {Kind::Good, Kind::Good, Kind::Bug});
    std::vector<std::string> typo = stepArgs(mesa, false);
    typo.push_back("--mdoe");
    git(mesa.checkout(), {"bisect", "start", mesa.shas()[2], mesa.shas()[0]});
    std::vector<std::string> run = {"-C", mesa.checkout().string(), "bisect", "run", REPRO_BISECT_STEP};
    run.insert(run.end(), typo.begin(), typo.end());
    const ProcessResult r = runProcess("git", run, bisectEnv(), 120);
    EXPECT_NE(r.status, 0) << shown(r);
    EXPECT_TRUE(contains(r.out + r.err, "bisect run failed: exit code 255")) << shown(r);
    EXPECT_TRUE(contains(r.err, "repro: unknown option '--mdoe'")) << shown(r);
    EXPECT_FALSE(fs::exists(mesa.checkout() / "build")) << "stopped before building";
    git(mesa.checkout(), {"bisect", "reset"});

    std::vector<std::string> noRepro = stepArgs(mesa, false);
    noRepro[5] = (dir.path() / "no-such-repro").string();
    const ProcessResult missing = runStep(mesa, noRepro);
    EXPECT_EQ(missing.status, 255) << shown(missing);
    EXPECT_TRUE(contains(missing.err, "is not an executable file")) << shown(missing);

    std::vector<std::string> badValue = stepArgs(mesa, false);
    *std::find(badValue.begin(), badValue.end(), "all") = "bogus";  // --mode bogus: found by the run, after the build
    const ProcessResult value = runStep(mesa, badValue);
    EXPECT_EQ(value.status, 255) << shown(value);
    EXPECT_TRUE(contains(value.err, "repro exited 1, a usage error")) << shown(value);
}

// ---- whole bisects -----------------------------------------------------------------------

struct History {
    const char* name;
    std::vector<Kind> kinds;       // oldest first: kinds.front() is given as old, kinds.back() as new
    std::vector<size_t> firstNew;  // the first new revision; several: git cannot tell, and lists exactly these
    bool fix = false;              // bisect the fix: --invert and the terms broken (old) / fixed (new)
};

void PrintTo(const History& h, std::ostream* os) { *os << h.name; }

// (term, sha) of every revision the bisect log records as marked.
std::vector<std::pair<std::string, std::string>> markedRevisions(const std::string& log) {
    static const std::regex entry(R"(^# (\w+): \[([0-9a-f]{40})\])");
    std::vector<std::pair<std::string, std::string>> marked;
    for (const std::string& line : lines(log)) {
        std::smatch m;
        if (std::regex_search(line, m, entry)) marked.emplace_back(m[1], m[2]);
    }
    return marked;
}

// The commits after git's "The first bad commit could be any of:".
std::set<std::string> couldBeAnyOf(const std::string& out) {
    std::set<std::string> shas;
    bool listing = false;
    for (const std::string& line : lines(out)) {
        if (contains(line, "commit could be any of:")) {
            listing = true;
        } else if (listing && std::regex_match(line, std::regex("[0-9a-f]{40}"))) {
            shas.insert(line);
        } else if (listing) {
            break;
        }
    }
    return shas;
}

ProcessResult bisect(const FakeMesa& mesa, const History& h, const std::vector<std::string>& step) {
    std::vector<std::string> start = {"bisect", "start"};
    if (h.fix) start.insert(start.end(), {"--term-old", "broken", "--term-new", "fixed"});
    start.insert(start.end(), {mesa.shas().back(), mesa.shas().front()});
    git(mesa.checkout(), start);
    std::vector<std::string> run = {"-C", mesa.checkout().string(), "bisect", "run", REPRO_BISECT_STEP};
    run.insert(run.end(), step.begin(), step.end());
    return runProcess("git", run, bisectEnv(), 300);
}

// Every revision git marked was marked as its kind says; returns "r3 build-fails skip, ...".
std::string checkMarks(const FakeMesa& mesa, const History& h, const std::string& log) {
    std::string visited;
    for (const auto& [term, sha] : markedRevisions(log)) {
        const auto at = std::find(mesa.shas().begin(), mesa.shas().end(), sha);
        const Kind k = mesa.kindOf().at(sha);
        const std::string got = term == "skip" ? "skip" : (term == "good" || term == "broken") ? "old" : "new";
        const std::string name = "r" + std::to_string(at - mesa.shas().begin()) + " " + spec(k).name;
        EXPECT_EQ(got, gitClass(k, h.fix)) << name << " was marked " << term << "\n" << log;
        visited += (visited.empty() ? "" : ", ") + name + " " + term;
    }
    return visited;
}

// git's conclusion, with the revisions it names, for the test's log.
void printConclusion(const FakeMesa& mesa, const std::string& out) {
    for (const std::string& line : lines(out)) {
        if (!contains(line, " is the first ") && !contains(line, "could be any of") &&
            !std::regex_match(line, std::regex("[0-9a-f]{40}"))) {
            continue;
        }
        const auto at = std::find_if(mesa.shas().begin(), mesa.shas().end(),
                                     [&](const std::string& sha) { return contains(line, sha); });
        std::cout << "[ git      ] " << line;
        if (at != mesa.shas().end()) {
            std::cout << "   (r" << (at - mesa.shas().begin()) << " " << spec(mesa.kindOf().at(*at)).name << ")";
        }
        std::cout << "\n";
    }
}

class Bisect : public ::testing::TestWithParam<History> {};

TEST_P(Bisect, NamesTheRevisionThatChangedItAndNeverStopsEarly) {
    const History& h = GetParam();
    REQUIRE_LAVAPIPE(lavapipe());
    Scratch dir(h.name);
    FakeMesa mesa(dir.path(), lavapipe(), h.kinds);
    const ProcessResult r = bisect(mesa, h, stepArgs(mesa, h.fix));
    ASSERT_FALSE(r.timedOut) << shown(r);
    EXPECT_FALSE(contains(r.out + r.err, "bisect run failed")) << "the bisect stopped early\n" << shown(r);
    const std::string log = git(mesa.checkout(), {"bisect", "log"});
    const std::string newTerm = h.fix ? "fixed" : "bad";
    if (h.firstNew.size() == 1) {
        const std::string& sha = mesa.shas()[h.firstNew[0]];
        EXPECT_EQ(r.status, 0) << shown(r);
        EXPECT_TRUE(contains(r.out, sha + " is the first " + newTerm + " commit"))
            << "expected r" << h.firstNew[0] << "\n"
            << shown(r);
        EXPECT_TRUE(contains(log, "# first " + newTerm + " commit: [" + sha + "]")) << log;
    } else {
        std::set<std::string> expected;
        for (const size_t i : h.firstNew) expected.insert(mesa.shas()[i]);
        EXPECT_TRUE(contains(r.out, "There are only 'skip'ped commits left to test.")) << shown(r);
        EXPECT_EQ(couldBeAnyOf(r.out), expected) << shown(r);
    }
    std::cout << "[ visited  ] " << checkMarks(mesa, h, log) << " (" << r.seconds << " s)\n";
    printConclusion(mesa, r.out);
}

using K = Kind;
INSTANTIATE_TEST_SUITE_P(
    Histories, Bisect,
    ::testing::Values(
        History{"BugEarlyCrashAndBuildFailureAfter",
                {K::Good, K::Good, K::Bug, K::Bug, K::Crash, K::Bug, K::BuildFails, K::Bug, K::Crash, K::Bug},
                {2}},
        History{"BugLateUntestableRevisionsBefore",
                {K::Good, K::BuildFails, K::Good, K::Good, K::Good, K::Api10, K::OtherDriver, K::Good, K::Bug,
                 K::BuildFails, K::Bug, K::Bug},
                {8}},
        History{"CrashRightAfterTheFirstBad",
                {K::Good, K::Good, K::Good, K::Bug, K::Crash, K::Crash, K::MissingLibrary, K::Bug, K::Bug},
                {3}},
        History{
            "StallAtTheMidpoint",
            {K::Good, K::Good, K::Good, K::Good, K::Good, K::Stall, K::Good, K::Good, K::Bug, K::Crash, K::Bug, K::Bug},
            {8}},
        History{"UntestableRightBeforeTheFirstBadIsAmbiguous",
                {K::Good, K::Good, K::Good, K::BuildFails, K::MissingLibrary, K::Bug, K::Bug, K::Bug},
                {3, 4, 5}},
        History{"FixWithInvert",
                {K::Bug, K::Bug, K::BuildFails, K::Bug, K::Bug, K::Good, K::Api10, K::Good, K::Good},
                {5},
                true}),
    [](const ::testing::TestParamInfo<History>& p) { return std::string(p.param.name); });

// A scenario bisected as the chain is (docs/scenarios.md, "Bisecting with a scenario"): the
// shipped kompute-196 file, three increments of one buffer with a barrier between each
// pair, on a history whose driver starts dropping a command buffer's dispatches after its
// first, with an untestable revision before and a crash after.
TEST(BisectScenario, NamesTheRevisionWhereTheFileTurnsWrong) {
    REQUIRE_LAVAPIPE(lavapipe());
    const History h{
        "scenario", {K::Good, K::Good, K::BuildFails, K::Good, K::DropsDispatch, K::Crash, K::DropsDispatch}, {4}};
    Scratch dir(h.name);
    FakeMesa mesa(dir.path(), lavapipe(), h.kinds);
    const std::vector<std::string> step = {"--build-cmd",
                                           "sh build.sh",
                                           "--icd",
                                           "build/fake_devenv_icd.json",
                                           "--repro",
                                           mesa.launcher().string(),
                                           "--limit",
                                           "120",
                                           "--",
                                           "--scenario",
                                           REPRO_SOURCE_DIR "/scenarios/kompute-196-increment-chain.toml",
                                           "--expect-driver",
                                           "radv"};
    const ProcessResult r = bisect(mesa, h, step);
    ASSERT_FALSE(r.timedOut) << shown(r);
    EXPECT_EQ(r.status, 0) << shown(r);
    const std::string& sha = mesa.shas()[4];
    EXPECT_TRUE(contains(r.out, sha + " is the first bad commit")) << shown(r);
    const std::string log = git(mesa.checkout(), {"bisect", "log"});
    std::cout << "[ visited  ] " << checkMarks(mesa, h, log) << " (" << r.seconds << " s)\n";
}

}  // namespace
