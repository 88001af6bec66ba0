// concludeTriage: each conclusion from the experiment outcomes that should give it, and the
// undetermined ones from missing or contradictory evidence.
#include "children/triage.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace repro {
namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

ExperimentOutcome run(ExperimentKind kind, const std::string& label, RunResult result) {
    return {.kind = kind, .label = label, .result = result, .detail = std::string(name(result))};
}

// A wrong baseline with `cause`, and experiments that all stay wrong unless overridden.
TriageInput wrongBaseline(const std::string& causeKind, const std::string& verdict) {
    TriageInput in;
    in.baseline = RunResult::Wrong;
    in.baselineDetail = "multipass zero, single zero (exit 2)";
    in.failingMode = "multipass";
    in.causeKind = causeKind;
    in.causeVerdict = verdict;
    return in;
}

const HypothesisFinding& finding(const TriageConclusion& c, Hypothesis h) {
    return c.hypotheses.at(static_cast<size_t>(h));
}

const char* kKilled =
    "cause: the kernel's job timeout (500 ms, gfx queue): the submit ended after 0.50 s of a predicted 0.80 s, "
    "kernel log 'ring gfx_0.0.0 timeout, but soft recovered'";
const char* kSync =
    "cause: synchronization: the submit ran its full predicted time (0.80 s of 0.80 s) and its output is wrong; "
    "no job-timeout record in the kernel log";
const char* kUndeterminedExcluded =
    "cause undetermined: the job timeout is excluded, but whether the submit did its work with correct shaders is "
    "not known (missing: a prediction above the host's timing margin)";

TEST(Triage, NotReproducedHasNothingToTriage) {
    TriageInput in;
    in.baseline = RunResult::Correct;
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::NotReproduced);
    EXPECT_EQ(c.line, "conclusion: not reproduced; nothing to triage");
}

// Experiments that are correct on a correct baseline cure nothing.
TEST(Triage, ACorrectBaselineGivesNoEvidenceForAnyCause) {
    TriageInput in;
    in.baseline = RunResult::Correct;
    in.experiments = {run(ExperimentKind::Barrier, "barrier=sync2", RunResult::Correct),
                      run(ExperimentKind::SubmitEveryWait, "submit-every=2", RunResult::Correct)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::NotReproduced);
    for (const HypothesisFinding& h : c.hypotheses) EXPECT_EQ(h.finding, Finding::NoEvidence) << code(h.hypothesis);
    for (const TriageRow& r : c.rows) EXPECT_EQ(r.finding, Finding::NoEvidence) << r.experiment;
}

TEST(Triage, OnlyBladeExactWrongIsBladesQuirks) {
    TriageInput in;
    in.baseline = RunResult::Correct;
    in.experiments = {run(ExperimentKind::BladeExact, "profile=blade-exact", RunResult::Wrong)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::BladeQuirks);
    EXPECT_EQ(finding(c, Hypothesis::BladeQuirks).finding, Finding::Supports);
}

TEST(Triage, NoBaselineResultIsUndetermined) {
    TriageInput in;
    in.baselineDetail = "cannot test (exit 125)";
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::Undetermined);
    EXPECT_EQ(c.line, "conclusion: undetermined: the baseline gave no result (cannot test (exit 125))");
}

TEST(Triage, KernelEvidenceAndSplitMsFixGiveTheJobTimeout) {
    TriageInput in = wrongBaseline("job_timeout", kKilled);
    in.experiments = {run(ExperimentKind::Barrier, "barrier=full", RunResult::Wrong),
                      run(ExperimentKind::SubmitEveryWait, "submit-every=2", RunResult::Correct),
                      run(ExperimentKind::SplitMs, "split-ms=250", RunResult::Correct),
                      run(ExperimentKind::SplitMib, "split-mib", RunResult::Correct),
                      run(ExperimentKind::OneStepRepeat, "n=1 dispatch-repeat=8", RunResult::Wrong),
                      run(ExperimentKind::CheckSteps, "check-steps", RunResult::Correct)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::JobTimeout) << c.line;
    EXPECT_EQ(c.line,
              "conclusion: the kernel's job timeout (H3) (500 ms, gfx queue): the submit ended after 0.50 s of a "
              "predicted 0.80 s, kernel log 'ring gfx_0.0.0 timeout, but soft recovered'; --split-ms at half the "
              "timeout makes it correct");
    // Shorter submits fix it, but that is not H2's evidence while H3 stands.
    EXPECT_EQ(finding(c, Hypothesis::SubmitBoundary).finding, Finding::NoEvidence);
    EXPECT_EQ(finding(c, Hypothesis::BytesPerSubmit).finding, Finding::RulesOut);
    EXPECT_EQ(finding(c, Hypothesis::ShaderCompiler).finding, Finding::RulesOut);
    EXPECT_EQ(finding(c, Hypothesis::BladeQuirks).finding, Finding::RulesOut);
}

TEST(Triage, KernelEvidenceButSplitMsStillWrongIsContradictory) {
    TriageInput in = wrongBaseline("job_timeout", kKilled);
    in.experiments = {run(ExperimentKind::SplitMs, "split-ms=250", RunResult::Wrong)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::Undetermined);
    EXPECT_TRUE(c.line.starts_with("conclusion: undetermined: contradictory evidence: H3: ")) << c.line;
}

TEST(Triage, AFullBarrierFixIsASynchronizationBug) {
    TriageInput in = wrongBaseline("undetermined", kUndeterminedExcluded);
    in.experiments = {run(ExperimentKind::Barrier, "barrier=sync2", RunResult::Wrong),
                      run(ExperimentKind::Barrier, "barrier=full", RunResult::Correct)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::Synchronization);
    EXPECT_TRUE(c.line.starts_with("conclusion: a synchronization bug (H1: barrier=full makes it correct)")) << c.line;
}

TEST(Triage, TheBaselinesSynchronizationCauseIsASynchronizationBugEvenWhenNoBarrierHelps) {
    TriageInput in = wrongBaseline("synchronization", kSync);
    in.experiments = {run(ExperimentKind::Barrier, "barrier=full", RunResult::Wrong),
                      run(ExperimentKind::CheckSteps, "check-steps", RunResult::Correct)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::Synchronization);
    EXPECT_EQ(c.line,
              "conclusion: a synchronization bug (the baseline's own evidence; no barrier or memory variant tested "
              "makes it correct): the submit ran its full predicted time (0.80 s of 0.80 s) and its output is wrong; "
              "no job-timeout record in the kernel log");
    EXPECT_EQ(finding(c, Hypothesis::JobTimeout).finding, Finding::RulesOut);
}

TEST(Triage, SynchronizationAndTheJobTimeoutTogetherAreContradictory) {
    TriageInput in = wrongBaseline("job_timeout", kKilled);
    in.experiments = {run(ExperimentKind::Barrier, "barrier=full", RunResult::Correct)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::Undetermined);
    EXPECT_NE(c.line.find("contradictory evidence"), std::string::npos) << c.line;
    EXPECT_NE(c.line.find("the kernel's job timeout (H3)"), std::string::npos) << c.line;
    EXPECT_NE(c.line.find("a synchronization bug (H1"), std::string::npos) << c.line;
}

TEST(Triage, SplitFailingItsPerDispatchCheckIsTheShaderCompiler) {
    TriageInput in = wrongBaseline("undetermined", kUndeterminedExcluded);
    in.experiments = {run(ExperimentKind::CheckSteps, "check-steps", RunResult::Wrong)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::ShaderCompiler);
    EXPECT_EQ(c.line, "conclusion: the shader compiler (H5): split fails the per-dispatch CPU check");
}

TEST(Triage, WithTheUsersModulesH5NamesTheShadersBeforeTheCompiler) {
    TriageInput in = wrongBaseline("shader_compiler", "cause: the shaders or the shader compiler: split fails");
    in.userModules = true;
    in.experiments = {run(ExperimentKind::CheckSteps, "split check-steps", RunResult::Wrong)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::ShaderCompiler);
    EXPECT_EQ(c.line,
              "conclusion: the shaders or the shader compiler (H5): split fails the per-dispatch CPU check; the "
              "--spirv modules are the user's and may be invalid (spirv-val checks only the static rules)");
    in.userModules = false;
    EXPECT_EQ(concludeTriage(in).line, "conclusion: the shader compiler (H5): split fails the per-dispatch CPU check");
}

TEST(Triage, TheOtherCompilerFixingItIsTheShaderCompiler) {
    TriageInput in = wrongBaseline("undetermined", kUndeterminedExcluded);
    in.experiments = {run(ExperimentKind::CompilerSwitch, "RADV_DEBUG=llvm", RunResult::Correct)};
    EXPECT_EQ(concludeTriage(in).kind, ConclusionKind::ShaderCompiler);
}

// RADV's template question, answered from the RADV_DEBUG=llvm child.
TEST(Triage, LlvmAnswerFollowsTheCompilerSwitchChild) {
    TriageInput in = wrongBaseline("undetermined", kUndeterminedExcluded);
    EXPECT_EQ(llvmAnswer(in), "not tested: triage ran no RADV_DEBUG=llvm child");
    in.experiments = {run(ExperimentKind::CompilerSwitch, "RADV_DEBUG=llvm", RunResult::Wrong)};
    EXPECT_EQ(llvmAnswer(in), "yes: with RADV_DEBUG=llvm it is still wrong");
    in.experiments = {run(ExperimentKind::CompilerSwitch, "RADV_DEBUG=llvm", RunResult::Correct)};
    EXPECT_EQ(llvmAnswer(in), "no: with RADV_DEBUG=llvm it is correct (correct), so ACO is the suspect");
    in.experiments = {{.kind = ExperimentKind::CompilerSwitch,
                       .label = "RADV_DEBUG=llvm",
                       .result = RunResult::NotRun,
                       .detail = "not run: the driver is MESA_LLVMPIPE, not RADV"}};
    EXPECT_EQ(llvmAnswer(in), "not tested: not run: the driver is MESA_LLVMPIPE, not RADV");
    in.baseline = RunResult::Correct;
    EXPECT_EQ(llvmAnswer(in), "");  // nothing to ask about
}

TEST(Triage, FewerBytesFixingItWithMoreWorkIsBytesPerSubmit) {
    TriageInput in = wrongBaseline("synchronization", kSync);
    in.causeKind = "undetermined";
    in.causeVerdict = kUndeterminedExcluded;
    in.experiments = {run(ExperimentKind::SplitMib, "split-mib", RunResult::Correct),
                      run(ExperimentKind::OneStepRepeat, "n=1 dispatch-repeat=8", RunResult::Correct)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::BytesPerSubmit) << c.line;
}

// The seed bug on lavapipe: a submit boundary fixes it, the timeout is excluded, but the
// baseline's timing is unmeasurable: no guess.
TEST(Triage, ASubmitBoundaryFixWithAnUndeterminedCauseStaysUndetermined) {
    TriageInput in = wrongBaseline("undetermined", kUndeterminedExcluded);
    in.causeMissing = {"a prediction above the host's timing margin"};
    in.experiments = {run(ExperimentKind::SubmitEveryWait, "submit-every=2", RunResult::Correct),
                      run(ExperimentKind::SplitMib, "split-mib", RunResult::Correct),
                      run(ExperimentKind::OneStepRepeat, "n=1 dispatch-repeat=8", RunResult::Wrong)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::Undetermined);
    EXPECT_EQ(finding(c, Hypothesis::SubmitBoundary).finding, Finding::Supports);
    EXPECT_EQ(c.line,
              "conclusion: undetermined: a submit boundary makes it correct (H2); missing: evidence that the long "
              "submit did all its work (the baseline's cause is undetermined); a prediction above the host's timing "
              "margin");
}

// A host whose sysfs names a 500 ms timeout the kernel does not apply: the 0.8 s submit ran
// in full, unkilled, so the baseline's cause is left undetermined (a contradiction), and the
// probe rules the timeout out. A submit boundary then cures a submit that did all its work:
// a synchronization bug, not the bytes alone, although fewer bytes cure it too.
TEST(Triage, ASubmitBoundaryFixAfterASubmitThatRanInFullIsASynchronizationBug) {
    TriageInput in = wrongBaseline(
        "undetermined",
        "cause undetermined: a submit that outlived the job timeout (contradicts: the submit ended after 0.80 s of a "
        "predicted 0.80 s without a job-timeout record, past the 500 ms timeout)");
    in.baselineSubmitSeconds = 0.8;
    in.baselineRanInFull = true;
    in.probe = {.result = ProbeResult::NoKill, .longestSeconds = 0.9, .detail = "no kill up to 0.90 s"};
    in.experiments = {run(ExperimentKind::SubmitEveryWait, "submit-every=2", RunResult::Correct),
                      run(ExperimentKind::SplitMib, "split-mib", RunResult::Correct),
                      run(ExperimentKind::OneStepRepeat, "n=1 dispatch-repeat=8", RunResult::Correct)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::Synchronization) << c.line;
    EXPECT_EQ(finding(c, Hypothesis::JobTimeout).finding, Finding::RulesOut);
    EXPECT_EQ(c.line,
              "conclusion: a synchronization bug (the baseline's long submit ran its full predicted time; no barrier "
              "or memory variant tested makes it correct; H2: a submit boundary every few dispatches makes it "
              "correct; H4: fewer bytes per submit fix it, and as much work with fewer bytes stays correct): "
              "multipass zero, single zero (exit 2)");
    // Without that timing fact (unmeasurable, or a submit cut short) the boundary is not
    // enough: the bytes alone remain, as before.
    for (const std::optional<bool> ranInFull : {std::optional<bool>(), std::optional<bool>(false)}) {
        in.baselineRanInFull = ranInFull;
        EXPECT_EQ(concludeTriage(in).kind, ConclusionKind::BytesPerSubmit) << concludeTriage(in).line;
    }
}

const char* kHangKilled =
    "cause: a GPU hang, ended by the kernel's job timeout (2000 ms, gfx queue): the submit was predicted to take "
    "0.01 s but ran until the timeout (2.00 s), kernel log 'ring gfx_0.0.0 timeout, but soft recovered'";

// Issue 21, item 1: a hang the watchdog only ended is not H3 (the job timeout killing long
// work), so --split-ms staying wrong does not contradict it; a submit boundary that avoids
// the hang is what the conclusion names, and --split-ms is never offered as the cure.
TEST(Triage, AHangTheWatchdogOnlyEndedIsItsOwnFindingWeighedByTheRecordingExperiments) {
    TriageInput in = wrongBaseline("hang_killed", kHangKilled);
    in.baselineSubmitSeconds = 2.0;
    in.baselineRanInFull = true;  // it ran past its prediction, but did not do its work
    in.experiments = {run(ExperimentKind::Barrier, "barrier=full", RunResult::Wrong),
                      run(ExperimentKind::SubmitEveryWait, "submit-every=2", RunResult::Correct),
                      run(ExperimentKind::SubmitEveryNoWait, "submit-every=2 no-host-wait", RunResult::Correct),
                      run(ExperimentKind::SplitMs, "split-ms=1000", RunResult::Wrong)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::GpuHang) << c.line;
    EXPECT_EQ(c.line,
              "conclusion: a GPU hang in the one-submit recording (multipass); the job timeout (2000 ms, gfx queue) "
              "only ended it: the submit was predicted to take 0.01 s but ran until the timeout (2.00 s), kernel log "
              "'ring gfx_0.0.0 timeout, but soft recovered'; a submit boundary every few dispatches avoids it (H2)");
    EXPECT_EQ(finding(c, Hypothesis::JobTimeout).finding, Finding::RulesOut);
    EXPECT_EQ(finding(c, Hypothesis::SubmitBoundary).finding, Finding::Supports);
    EXPECT_EQ(c.rows.front().finding, Finding::RulesOut);
    EXPECT_TRUE(c.rows.front().why.starts_with("the job timeout only ended a GPU hang: ")) << c.rows.front().why;
    EXPECT_EQ(c.line.find("split-ms"), std::string::npos) << c.line;
    EXPECT_EQ(name(c.kind), "gpu_hang");
    // Even if --split-ms happened to avoid it, it is not offered as the cure.
    in.experiments.back().result = RunResult::Correct;
    EXPECT_EQ(concludeTriage(in).line.find("split-ms"), std::string::npos) << concludeTriage(in).line;
    // Nothing that avoids it: said so.
    in.experiments = {run(ExperimentKind::SubmitEveryWait, "submit-every=2", RunResult::Wrong)};
    EXPECT_TRUE(concludeTriage(in).line.ends_with("; no recording experiment avoids it")) << concludeTriage(in).line;
    // A barrier that avoids it is named.
    in.experiments = {run(ExperimentKind::Barrier, "barrier=full", RunResult::Correct)};
    EXPECT_TRUE(concludeTriage(in).line.ends_with("; barrier=full avoids it (H1)")) << concludeTriage(in).line;
}

TEST(Triage, ShorterSubmitsFixingItWithoutTheKernelsEvidenceStaysUndetermined) {
    TriageInput in = wrongBaseline("undetermined", "cause undetermined: the kernel's job timeout cannot be excluded");
    in.experiments = {run(ExperimentKind::SplitMs, "split-ms=1000", RunResult::Correct)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::Undetermined);
    EXPECT_NE(c.line.find("shorter submits make it correct (H2, H3 or H4)"), std::string::npos) << c.line;
    EXPECT_EQ(finding(c, Hypothesis::JobTimeout).finding, Finding::NoEvidence);
}

TEST(Triage, ADeviceLossWithoutAKillRecordIsUndetermined) {
    TriageInput in =
        wrongBaseline("undetermined", "cause undetermined: the mode lost the device without a job-timeout record");
    in.baseline = RunResult::Hang;
    in.causeMissing = {"the kernel log (cannot read /dev/kmsg)"};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(c.kind, ConclusionKind::Undetermined);
    EXPECT_EQ(c.line,
              "conclusion: undetermined: no experiment gave a result; missing: the kernel log (cannot read "
              "/dev/kmsg)");
    // Experiments that did not run say nothing either way; one that ran and stayed wrong does.
    in.experiments = {run(ExperimentKind::Barrier, "barrier=full", RunResult::NotRun)};
    EXPECT_TRUE(contains(concludeTriage(in).line, "no experiment gave a result")) << concludeTriage(in).line;
    in.experiments.push_back(run(ExperimentKind::SubmitEveryWait, "submit-every=2", RunResult::Wrong));
    EXPECT_TRUE(contains(concludeTriage(in).line, "no experiment makes it correct")) << concludeTriage(in).line;
}

TEST(Triage, AProbeWithoutAKillPastTheBaselinesSubmitRulesOutTheTimeout) {
    TriageInput in = wrongBaseline("undetermined", "cause undetermined: the kernel's job timeout cannot be excluded");
    in.baselineSubmitSeconds = 0.3;
    in.probe = {.result = ProbeResult::NoKill, .longestSeconds = 2.5, .detail = "no kill up to 2.5 s"};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_EQ(finding(c, Hypothesis::JobTimeout).finding, Finding::RulesOut);
    ASSERT_FALSE(c.rows.empty());
    EXPECT_EQ(c.rows.back().experiment, "watchdog probe");
    EXPECT_EQ(c.rows.back().finding, Finding::RulesOut);
    in.probe.longestSeconds = 0.1;  // shorter than the baseline's submit: proves nothing
    EXPECT_EQ(finding(concludeTriage(in), Hypothesis::JobTimeout).finding, Finding::NoEvidence);
}

TEST(Triage, RowsPairEachExperimentWithItsHypothesis) {
    TriageInput in = wrongBaseline("job_timeout", kKilled);
    ExperimentOutcome memory = run(ExperimentKind::Memory, "memory=host-cached", RunResult::NoEffect);
    memory.detail = "not run: the device has one memory type";
    in.experiments = {memory, run(ExperimentKind::SubmitEveryNoWait, "submit-every=2 no-host-wait", RunResult::Wrong)};
    const TriageConclusion c = concludeTriage(in);
    ASSERT_EQ(c.rows.size(), 3u);
    EXPECT_EQ(c.rows[0].hypothesis, Hypothesis::JobTimeout);
    EXPECT_EQ(c.rows[0].finding, Finding::Supports);
    EXPECT_EQ(c.rows[1].hypothesis, Hypothesis::MissingFlush);
    EXPECT_EQ(c.rows[1].outcome, "no effect");
    EXPECT_EQ(c.rows[1].why, "the device has one memory type");
    EXPECT_EQ(c.rows[2].hypothesis, Hypothesis::SubmitBoundary);
    EXPECT_EQ(c.rows[2].finding, Finding::RulesOut);
}

// A child whose command repro built as a usage error (exit 1) is repro's own defect: its
// row says so and is no evidence, and H1's summary claims nothing of barriers that never ran.
TEST(Triage, AChildsUsageErrorIsAReproDefectNeverEvidence) {
    TriageInput in = wrongBaseline("undetermined", "cause undetermined: the kernel's job timeout cannot be excluded");
    ExperimentOutcome barrier = run(ExperimentKind::Barrier, "barrier=sync2", RunResult::NotRun);
    barrier.detail = "repro defect: the child's command was a usage error: repro: --barrier ...";
    in.experiments = {barrier};
    const TriageConclusion c = concludeTriage(in);
    ASSERT_EQ(c.rows.size(), 2u);
    EXPECT_EQ(c.rows[1].outcome, "repro defect");
    EXPECT_EQ(c.rows[1].why, "the child's command was a usage error: repro: --barrier ...");
    EXPECT_EQ(c.rows[1].finding, Finding::NoEvidence);
    EXPECT_EQ(finding(c, Hypothesis::MissingFlush).finding, Finding::NoEvidence);
    EXPECT_EQ(finding(c, Hypothesis::MissingFlush).why, "no barrier or memory variant ran");
    EXPECT_EQ(c.line.find("no barrier"), std::string::npos) << c.line;
    // Once one ran (and stayed wrong), the summary may say so.
    in.experiments.push_back(run(ExperimentKind::Barrier, "barrier=full", RunResult::Wrong));
    EXPECT_EQ(finding(concludeTriage(in), Hypothesis::MissingFlush).why,
              "no barrier or memory variant makes it correct");
}

// A hang the watchdog only ended, with no recording experiment run (split the failing
// mode): the conclusion says none ran, not that none avoids it.
TEST(Triage, AHangWithNoRecordingExperimentRunSaysNoneRan) {
    TriageInput in = wrongBaseline("hang_killed", "cause: a GPU hang, ended by the kernel's job timeout (500 ms): x");
    in.experiments = {run(ExperimentKind::CheckSteps, "split check-steps", RunResult::Correct)};
    const TriageConclusion c = concludeTriage(in);
    EXPECT_TRUE(c.line.ends_with("; no recording experiment ran")) << c.line;
}

}  // namespace
}  // namespace repro
