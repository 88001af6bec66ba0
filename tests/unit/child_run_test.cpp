// One child run (src/children/child_run.hpp, child_outcome.hpp): the argv and environment
// made from the parent's options and the factors, and the child's report read back through
// parseReport; and the labels and folding of the factors (children/run_factors.hpp).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <string>
#include <vector>

#include "children/child_run.hpp"
#include "report/report_render.hpp"
#include "children/run_factors.hpp"
#include "temp_folder.hpp"

namespace repro {
namespace {

using Args = std::vector<std::string>;

Options withCommandLine(Args commandLine) {
    Options o;
    o.commandLine = std::move(commandLine);
    return o;
}

// argv without argv[0] (this binary's path) and the trailing "--json FILE".
Args middle(const Args& argv) {
    EXPECT_GE(argv.size(), 3u);
    return Args(argv.begin() + 1, argv.end() - 2);
}

TEST(ChildArgv, TheParentsOwnFlagsAreLeftOutInEveryForm) {
    const Options o = withCommandLine({"repro",
                                       "--matrix",
                                       "-n",
                                       "3",
                                       "--format",
                                       "markdown",
                                       "--output=r.json",
                                       "--keep-logs",
                                       "-or2.json",
                                       "--validation",
                                       "--invert",
                                       "-o",
                                       "r3.json",
                                       "--format=json",
                                       "--all-drivers",
                                       "--triage",
                                       "--watchdog-probe",
                                       "--driver-env-sweep",
                                       "--json=r4.json",
                                       "--json",
                                       "r5.json"});
    EXPECT_EQ(middle(childArgv({.options = o})), (Args{"-n", "3", "--validation"}));
}

// --trace is the parent's: a child given it would overwrite the parent's timeline.
TEST(ChildArgv, TheTraceFileStaysWithTheParent) {
    const Options o =
        withCommandLine({"repro", "--watchdog-probe", "--trace", "t.json", "--timestamps", "--trace=u.json"});
    EXPECT_EQ(middle(childArgv({.options = o})), (Args{"--timestamps"}));
}

// The captures are the parent's: --capture-rgp's child is the capture (it would start one of
// its own), and a child given --capture-gfxr would write over the parent's file.
TEST(ChildArgv, TheCapturesStayWithTheParent) {
    const Options o = withCommandLine(
        {"repro", "--capture-rgp", "--capture-gfxr", "c.gfxr", "--timestamps", "--capture-gfxr=d.gfxr", "-n", "2"});
    EXPECT_EQ(middle(childArgv({.options = o})), (Args{"--timestamps", "-n", "2"}));
    const ChildRun run{.options = o, .factors = {.mode = Mode::Multipass}, .dir = "/logs", .tag = "rgp-multipass"};
    EXPECT_EQ(middle(childArgv(run)), (Args{"--timestamps", "-n", "2", "--mode", "multipass"}));
}

// --stress is the run's, not the parent's: every child of --matrix or --triage on a file runs
// stressed, with the factors of its row after it.
TEST(ChildArgv, StressGoesToEveryChild) {
    const Options o = withCommandLine({"repro", "--matrix", "--scenario", "f.toml", "--stress"});
    EXPECT_EQ(middle(childArgv({.options = o})), (Args{"--scenario", "f.toml", "--stress"}));
    const ChildRun run{.options = o, .factors = {.mode = Mode::Single}, .dir = "/logs", .tag = "single"};
    EXPECT_EQ(middle(childArgv(run)), (Args{"--scenario", "f.toml", "--stress", "--mode", "single"}));
}

TEST(ChildArgv, AKeptOptionsValueIsNeverReadAsAnOption) {
    const Options o = withCommandLine({"repro", "--dump-dir", "--matrix", "--preset", "small"});
    EXPECT_EQ(middle(childArgv({.options = o})), (Args{"--dump-dir", "--matrix", "--preset", "small"}));
}

TEST(ChildArgv, FactorsComeAfterTheUsersArgumentsAndReplaceTheOptionsTheySet) {
    const Options o = withCommandLine({"repro", "--watchdog-probe", "-n", "7", "--chain=8", "-n9", "--check-steps",
                                       "--preset", "small", "--timestamps"});
    const ChildRun run{.options = o,
                       .factors = {.steps = 1, .mode = Mode::Single, .dispatchRepeat = 4, .checkSteps = true},
                       .dir = "/logs",
                       .tag = "probe-4"};
    const Args argv = childArgv(run);
    EXPECT_EQ(argv[0], selfExecutable("repro"));
    EXPECT_EQ(middle(argv), (Args{"--preset", "small", "--timestamps", "-n", "1", "--mode", "single",
                                  "--dispatch-repeat", "4", "--check-steps"}));
    EXPECT_EQ(Args(argv.end() - 2, argv.end()), (Args{"--json", "/logs/probe-4.json"}));
}

TEST(ChildArgv, EveryFactorInItsOrder) {
    const RunFactors f{.steps = 2,
                       .mode = Mode::Multipass,
                       .barrier = BarrierKind::Sync2,
                       .submit = {.every = 3, .splitMiB = 0.9, .splitMs = 250.4, .hostWait = false},
                       .memory = BufferMemory::HostCached,
                       .dispatchRepeat = 8,
                       .profile = Profile::BladeExact,
                       .checkSteps = true};
    EXPECT_EQ(factorFlags(f), (Args{"-n",
                                    "2",
                                    "--mode",
                                    "multipass",
                                    "--barrier",
                                    "sync2",
                                    "--submit-every",
                                    "3",
                                    "--split-mib",
                                    "0.900",
                                    "--split-ms",
                                    "250",
                                    "--no-host-wait",
                                    "--memory",
                                    "host-cached",
                                    "--dispatch-repeat",
                                    "8",
                                    "--profile",
                                    "blade-exact",
                                    "--check-steps"}));
    EXPECT_EQ(factorLabel(f),
              "n=2 barrier=sync2 submit-every=3 split-mib=0.900 split-ms=250 no-host-wait memory=host-cached "
              "dispatch-repeat=8 profile=blade-exact check-steps");
    EXPECT_TRUE(factorFlags({}).empty());
}

TEST(ChildEnv, TheSettingIsAppendedToTheVariablesValue) {
    const RunFactors f{.driverEnv = DriverEnv{.variable = "REPRO_TEST_CHILD_ENV", .value = "llvm"}};
    ::unsetenv("REPRO_TEST_CHILD_ENV");
    EXPECT_EQ(childEnv(f), (Args{"REPRO_TEST_CHILD_ENV=llvm"}));
    ::setenv("REPRO_TEST_CHILD_ENV", "nocompute", 1);
    EXPECT_EQ(childEnv(f), (Args{"REPRO_TEST_CHILD_ENV=nocompute,llvm"}));
    ::unsetenv("REPRO_TEST_CHILD_ENV");
    EXPECT_TRUE(childEnv({}).empty());
    EXPECT_EQ(factorLabel(f), "REPRO_TEST_CHILD_ENV=llvm");
}

ModeReport mode(Mode m, Classification kind, std::string role, std::string reason = "") {
    ModeReport r;
    r.result.mode = m;
    r.result.kind = kind;
    r.result.reason = std::move(reason);
    r.role = std::move(role);
    return r;
}

// A report as a child writes it: split as the reference, multipass zero with a cause,
// single ok; two validation messages, one a hazard; the memory of small[0] and big[0].
RunReport childReport() {
    RunReport r;
    r.modes = {mode(Mode::Multipass, Classification::Zero, "under test", "all zero"),
               mode(Mode::Single, Classification::Ok, "under test"),
               mode(Mode::Split, Classification::Ok, "reference (run after)")};
    r.modes[0].modeGpuSeconds = 0.002;
    r.modes[1].modeGpuSeconds = 0.001;
    r.modes[0].result.wallSeconds = 1.5;
    r.modes[0].result.cause = "cause: the kernel's job timeout";
    r.modes[0].result.causeKind = "job_timeout";
    r.modes[0].result.causeJson =
        R"({"kind":"job_timeout","verdict":"cause: the kernel's job timeout","missing":["kernel log"],)"
        R"("decisive_submit":{"measured_seconds":2.5,"ran_in_full":false},"timeout":{"kind":"limit","ms":2000}})";
    r.modes[2].result.perDispatchCheckJson = R"({"state":"passed"})";
    r.validation = {.enabled = true, .errors = 1, .warnings = 1, .messages = {"SYNC-HAZARD-READ-AFTER-WRITE x", "y"}};
    r.verdict = {.exitStatus = kExitReproduced, .lines = {"--- BUG REPRODUCED: multipass", "--- more"}};
    DeviceReport d;
    d.memory = {{.buffer = "small[0]", .typeIndex = 2, .typeFlags = "HOST_VISIBLE"},
                {.buffer = "small[N]", .typeIndex = 1, .typeFlags = "DEVICE_LOCAL"},
                {.buffer = "big[0]", .typeIndex = 1, .typeFlags = "DEVICE_LOCAL"}};
    r.device = d;
    return r;
}

TEST(ChildReport, ReadOnceIntoTheReportTypesAndTheTablesFacts) {
    test::TempFolder dir("child-report");
    const std::string path = dir.write("child.json", renderJsonText(childReport()));
    ChildOutcome c{.process = {.started = true, .status = kExitReproduced}, .status = kExitReproduced};
    readChildReport(path, c);
    ASSERT_TRUE(c.report.has_value());
    EXPECT_EQ(c.report->modes.size(), 3u);
    EXPECT_EQ(c.classifications, (Args{"multipass zero", "single ok"}));
    EXPECT_TRUE(c.anyWrong);
    EXPECT_EQ(c.wrongMode, "multipass");
    EXPECT_EQ(c.reason, "all zero");
    EXPECT_EQ(c.validationMessages, 2u);
    EXPECT_EQ(c.hazards, 1u);
    ASSERT_TRUE(c.gpuSeconds.has_value());
    EXPECT_DOUBLE_EQ(*c.gpuSeconds, 0.003);
    EXPECT_EQ(c.memory, "small[0]: type 2 HOST_VISIBLE; big[0]: type 1 DEVICE_LOCAL");
    EXPECT_EQ(c.verdictLine, "BUG REPRODUCED: multipass");
    EXPECT_EQ(resultText(c), "zero, ok");
    EXPECT_EQ(outcomeText(c), "multipass zero, single ok (exit 2)");
    EXPECT_EQ(childRunResult(c), RunResult::Wrong);
    EXPECT_FALSE(reportedJobTimeout(c).has_value());  // no DRM card in the report
    const ModeReport* split = modeEntry(c, "split");
    ASSERT_NE(split, nullptr);
    EXPECT_EQ(perDispatchCheckState(split->result), "passed");
    EXPECT_EQ(perDispatchCheckState(modeEntry(c, "single")->result), "");

    TriageInput in;
    readTriageBaseline(c, in);
    EXPECT_EQ(in.baseline, RunResult::Wrong);
    EXPECT_EQ(in.failingMode, "multipass");
    EXPECT_EQ(in.causeKind, "job_timeout");
    EXPECT_EQ(in.causeVerdict, "cause: the kernel's job timeout");
    EXPECT_EQ(in.causeMissing, (Args{"kernel log"}));
    EXPECT_EQ(in.baselineSubmitSeconds, 2.5);
    EXPECT_EQ(in.baselineRanInFull, false);
    EXPECT_EQ(causeFacts(modeEntry(c, "multipass")->result).timeoutSeconds, 2.0);
}

TEST(ChildReport, AMissingOrMalformedReportIsNoReport) {
    test::TempFolder dir("child-report");
    for (const char* text : {"not json", "[1, 2]"}) {
        ChildOutcome c{.process = {.started = true, .status = 0}, .status = 0};
        readChildReport(dir.write("bad.json", text), c);
        EXPECT_FALSE(c.report.has_value()) << text;
        EXPECT_EQ(resultText(c), "no report (exit 0)") << text;
        EXPECT_EQ(childRunResult(c), RunResult::NotRun) << text;
        // The exit is named once (issue 21, 6c: "(exit 2) (exit 2)").
        EXPECT_EQ(outcomeText(c), "no report (exit 0)") << text;
    }
    ChildOutcome missing;
    readChildReport(dir.path() / "absent.json", missing);
    EXPECT_FALSE(missing.report.has_value());
}

TEST(MatrixLabels, DerivedFromTheFactors) {
    const std::vector<Variant> all = matrixVariants(26.2);
    EXPECT_EQ(label(all[0]), "multipass blade (as recorded by blade)");
    EXPECT_EQ(label(all[4]), "multipass barrier=execution-only (control)");
    EXPECT_EQ(label(all[6]), "multipass submit-every=2 host-wait");
    EXPECT_EQ(label(all[7]), "multipass submit-every=2 no-host-wait");
    EXPECT_EQ(label(all[8]), "multipass split-mib=26.200 no-host-wait");
    EXPECT_EQ(label(all[12]), "multipass dispatch-repeat=4");
    EXPECT_EQ(label(all[27]), "single profile=blade-exact (blade's quirks)");
    const std::vector<Variant> ms = splitMsVariants(250.0);
    ASSERT_EQ(ms.size(), 2u);
    EXPECT_EQ(label(ms[0]), "multipass split-ms=250 no-host-wait");
    EXPECT_EQ(factorFlags(ms[1].factors), (Args{"--mode", "single", "--split-ms", "250", "--no-host-wait"}));
}

TEST(MatrixFolding, TheSingleRowOfEachOwnBarrierIsFoldedIntoMultipass) {
    const auto [kept, folded] = foldSameStreams(matrixVariants(26.2));
    EXPECT_EQ(folded, 5u);  // sync2, buffer, full and the two controls
    EXPECT_EQ(kept.size(), 23u);
    std::vector<std::string> labels;
    for (const Variant& v : kept) labels.push_back(label(v));
    for (const char* want : {"multipass = single barrier=sync2", "multipass = single barrier=none (control)",
                             "single blade (as recorded by blade)", "single submit-every=2 host-wait"}) {
        EXPECT_NE(std::find(labels.begin(), labels.end(), want), labels.end()) << want;
    }
    for (const Variant& v : kept) EXPECT_FALSE(v.factors.mode == Mode::Single && v.factors.barrier) << label(v);
    // The triage weighs a folded row under its factor alone.
    EXPECT_TRUE(kept[1].folded);
    EXPECT_EQ(labelWithoutMode(kept[1]), "barrier=sync2");
}

}  // namespace
}  // namespace repro
