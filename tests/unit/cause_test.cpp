// Unit tests for src/core/cause.{hpp,cpp}: every rule of decideCause (job timeout, a hang
// the timeout ended, synchronization, shader compiler, blade's quirks), the thresholds at
// their edges, contradictions and missing evidence, predictions, the warning and JSON.
#include "forensics/cause.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

#include "gpu_event_builder.hpp"

namespace repro {
namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

bool anyContains(const std::vector<std::string>& lines, std::string_view part) {
    for (const auto& l : lines) {
        if (contains(l, part)) return true;
    }
    return false;
}

QueueTimeout limitMs(int64_t ms) {
    return {TimeoutKind::Limit, ms, false, "kernel default for Linux 6.19+: 2000 ms (lockup_timeout empty)"};
}

GpuEvent event(std::string_view line, std::optional<int64_t> pid = std::nullopt) { return test::gpuEvent(line, pid); }

SubmitEvidence submit(std::optional<double> measured, std::optional<double> predicted,
                      PredictionBasis basis = PredictionBasis::Timestamps, uint32_t summed = 14) {
    SubmitEvidence s;
    s.measuredSeconds = measured;
    if (predicted) s.predicted = Prediction{*predicted, basis, summed};
    s.dispatches = summed;
    return s;
}

KernelLogEvidence cleanLog() {
    KernelLogEvidence log;
    log.readable = true;
    return log;
}

KernelLogEvidence unreadableLog() {
    KernelLogEvidence log;
    log.problem =
        "cannot read the kernel log /dev/kmsg: Operation not permitted (with kernel.dmesg_restrict = 1 only "
        "root or CAP_SYSLOG may read it)";
    log.command = "`sudo journalctl -k --since '2026-09-02 09:32:41'`";
    return log;
}

// The original's multipass at N = 7 on a 6.19+ kernel: zeros, the submit ended at the
// 2 s timeout of its predicted 2.9 s, and the log has the soft recovery.
CauseInput killedMultipass() {
    CauseInput in;
    in.mode = "multipass";
    in.output = OutputVerdict::Zero;
    in.submits = {submit(2.00, 2.90)};
    in.timeout = limitMs(2000);
    in.kernelLog = cleanLog();
    in.kernelLog.events = {event("amdgpu 0000:03:00.0: ring gfx_0.0.0 timeout, but soft recovered")};
    in.ownPid = 4242;
    return in;
}

CauseInput synchronizedMultipass() {
    CauseInput in;
    in.output = OutputVerdict::Zero;
    in.submits = {submit(0.31, 0.30)};
    in.timeout = limitMs(2000);
    in.kernelLog = cleanLog();
    return in;
}

TEST(Cause, JobTimeoutFromTheLogAndTheTime) {
    const CauseInput in = killedMultipass();
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::JobTimeout);
    EXPECT_TRUE(c.killed);
    EXPECT_EQ(
        c.verdict,
        "cause: the kernel's job timeout (2000 ms, gfx queue): the submit ended after 2.00 s of a predicted 2.90 s, "
        "kernel log 'ring gfx_0.0.0 timeout, but soft recovered'");
    EXPECT_TRUE(c.contradictions.empty());
    EXPECT_TRUE(c.missing.empty());
    EXPECT_EQ(c.decisiveSubmit, 0u);
    EXPECT_TRUE(anyContains(c.evidence, "69% of the prediction, from timestamps")) << c.evidence[0];
}

TEST(Cause, JobTimeoutWithARingResetAndOwnProcess) {
    CauseInput in = killedMultipass();
    in.kernelLog.events = {
        event("amdgpu 0000:c2:00.0: ring gfx_0.0.0 timeout, signaled seq=166926, emitted seq=166928", 4242),
        event("amdgpu 0000:c2:00.0: Starting gfx_0.0.0 ring reset"),
        event("amdgpu 0000:c2:00.0: Ring gfx_0.0.0 reset succeeded"),
    };
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::JobTimeout);
    EXPECT_TRUE(contains(c.verdict,
                         "kernel log 'ring gfx_0.0.0 timeout, signaled seq=166926, emitted seq=166928', "
                         "'Starting gfx_0.0.0 ring reset' and 1 more"))
        << c.verdict;
}

// How the kernel recovered, from the mode's log (issue 35 §3): a soft recovery of repro's; a
// timeout of repro's followed by a reset (hard, guilty); a reset after another process's
// timeout (innocent); no record (not known). A lost device carries the line as evidence.
TEST(Cause, RecoveryIsReadFromTheKillRecords) {
    CauseInput in = killedMultipass();
    EXPECT_EQ(recoveryOf(in), Recovery::Soft);
    in.kernelLog.events = {event("amdgpu: ring gfx_0.0.0 timeout, signaled seq=9, emitted seq=10", 4242),
                           event("amdgpu: GPU reset begin!")};
    EXPECT_EQ(recoveryOf(in), Recovery::Hard);
    in.kernelLog.events = {event("amdgpu: ring gfx_0.0.0 timeout, signaled seq=9, emitted seq=10", 777),
                           event("amdgpu: GPU reset begin!")};
    EXPECT_EQ(recoveryOf(in), Recovery::Innocent);
    in.kernelLog.events.clear();
    EXPECT_EQ(recoveryOf(in), Recovery::Unknown);
    in.deviceLost = true;
    in.canaryLost = true;
    const Cause c = decideCause(in);
    EXPECT_TRUE(anyContains(c.evidence, "at repro's canary"));
    EXPECT_TRUE(anyContains(c.evidence, "recovery: not known (no kill record in the kernel log during the mode)"));
    in = killedMultipass();
    in.deviceLost = true;
    EXPECT_TRUE(anyContains(decideCause(in).evidence, "recovery: soft"));
    EXPECT_FALSE(anyContains(decideCause(in).evidence, "canary"));
}

// The amdgpu MES wedge in the mode's log: the firmware, before any job-timeout reading (the
// submit ended at the timeout too), with the signature's records and the firmware versions as
// evidence; without the versions the cause says they are missing.
TEST(Cause, AMesThatStoppedAnsweringIsTheFirmware) {
    CauseInput in = killedMultipass();
    in.kernelLog.events = {
        event("amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE"),
        event("amdgpu 0000:c5:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00800932"),
        event("amdgpu 0000:c5:00.0: amdgpu: MODE2 reset"),
        event("amdgpu 0000:c5:00.0: [drm] device wedged, but recovered through reset"),
    };
    in.firmware = "card0 mes_fw_version 0x00000083, mes_kiq_fw_version 0x0000006c";
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Firmware);
    EXPECT_EQ(name(c.kind), "firmware");
    EXPECT_TRUE(c.killed);
    EXPECT_EQ(c.verdict,
              "cause: the GPU's scheduler firmware (amdgpu MES) stopped answering the kernel ('MES failed to respond "
              "to msg=REMOVE_QUEUE'), firmware card0 mes_fw_version 0x00000083, mes_kiq_fw_version 0x0000006c: a "
              "firmware fault that the kernel recovers by resetting the GPU, not this command stream's; compare the "
              "MES firmware version with a known-good one");
    EXPECT_TRUE(anyContains(c.evidence,
                            "kernel log during the mode: 'MES failed to respond to msg=REMOVE_QUEUE', "
                            "'GCVM_L2_PROTECTION_FAULT_STATUS:0x00800932', 'MODE2 reset', 'device wedged, "
                            "but recovered through reset'"));
    EXPECT_TRUE(anyContains(c.evidence, "firmware: card0 mes_fw_version 0x00000083"));
    EXPECT_TRUE(c.missing.empty());
    in.firmware.clear();
    const Cause unread = decideCause(in);
    EXPECT_EQ(unread.kind, CauseKind::Firmware);
    EXPECT_TRUE(anyContains(unread.missing, "the MES firmware version")) << unread.verdict;
    // Without the MES record the same log is the job timeout's.
    in.kernelLog.events.erase(in.kernelLog.events.begin());
    in.kernelLog.events.insert(in.kernelLog.events.begin(),
                               event("amdgpu 0000:03:00.0: ring gfx_0.0.0 timeout, but soft recovered"));
    EXPECT_EQ(decideCause(in).kind, CauseKind::JobTimeout);
}

TEST(Cause, AnotherProcessesTimeoutIsNotRepros) {
    CauseInput in = killedMultipass();
    in.kernelLog.events = {event("amdgpu: ring gfx_0.0.0 timeout, signaled seq=9, emitted seq=10", 777),
                           event("amdgpu: Ring gfx_0.0.0 reset succeeded")};
    in.kernelLog.events[0].process = "gnome-shell";
    const Cause c = decideCause(in);
    // It still ended at the timeout, and the readable log has no record of repro's.
    EXPECT_EQ(c.kind, CauseKind::Undetermined);
    EXPECT_FALSE(c.killed);
    EXPECT_TRUE(anyContains(c.evidence, "for another process (gnome-shell pid 777), not repro"));
    EXPECT_TRUE(anyContains(c.contradictions, "readable kernel log has no job-timeout record for repro"));
}

TEST(Cause, HangEndedByTheTimeout) {
    CauseInput in = killedMultipass();
    in.submits = {submit(2.05, 0.30)};
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::HangKilled);
    EXPECT_TRUE(c.killed);
    EXPECT_EQ(
        c.verdict,
        "cause: a GPU hang, ended by the kernel's job timeout (2000 ms, gfx queue): the submit was predicted to take "
        "0.30 s but ran until the timeout (2.05 s), kernel log 'ring gfx_0.0.0 timeout, but soft recovered'");
}

// Under a positive control, wrong output is the control's, unless the kernel log names the job
// timeout (a kill record of repro's, the submit predicted past the timeout) or the firmware: that
// explains it whatever the control removed. A mode that never finished otherwise (a hang the
// timeout ended, or one with no kill record) may be the control's or the file's own, and only the
// mode run without the control tells: the cause says both and what is missing.
TEST(Cause, UnderAControlTheJobTimeoutAndTheFirmwareComeFirst) {
    CauseInput sync = synchronizedMultipass();
    sync.control = "--barrier none: no barrier between the dispatches of multipass and single";
    const Cause caught = decideCause(sync);
    EXPECT_EQ(caught.kind, CauseKind::Control);
    EXPECT_EQ(caught.verdict,
              "cause: the control (--barrier none: no barrier between the dispatches of multipass and single): the "
              "control was caught, not the driver");
    CauseInput in = killedMultipass();  // zeros, the submit ended at the timeout, a soft recovery
    in.control = sync.control;
    const Cause timeout = decideCause(in);
    EXPECT_EQ(timeout.kind, CauseKind::JobTimeout) << timeout.verdict;
    EXPECT_TRUE(timeout.killed);
    EXPECT_TRUE(anyContains(timeout.evidence, "the mode runs under a positive control: --barrier none"));
    in.deviceLost = true;
    EXPECT_EQ(decideCause(in).kind, CauseKind::JobTimeout);
    in.submits = {submit(2.05, 0.30)};  // predicted well under the timeout: a hang it ended
    const Cause hang = decideCause(in);
    EXPECT_EQ(hang.kind, CauseKind::Control);
    EXPECT_EQ(hang.verdict,
              "cause: the control (--barrier none: no barrier between the dispatches of multipass and single) or the "
              "file itself: the mode did not finish under the control, and this run did not run it without the "
              "control (missing: multipass run without the control, which tells whether the file hangs as written)");
    EXPECT_TRUE(anyContains(hang.missing, "multipass run without the control"));
    in.deviceLost = false;
    in.waitTimedOut = true;
    in.kernelLog.events.clear();  // no kill record: repro's own wait gave up
    EXPECT_EQ(decideCause(in).kind, CauseKind::Control);
    EXPECT_TRUE(contains(decideCause(in).verdict, ") or the file itself: "));
    in.kernelLog.events = {event("amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE")};
    EXPECT_EQ(decideCause(in).kind, CauseKind::Firmware);
}

TEST(Cause, SynchronizationWhenTheSubmitRanItsFullTime) {
    const Cause c = decideCause(synchronizedMultipass());
    EXPECT_EQ(c.kind, CauseKind::Synchronization);
    EXPECT_FALSE(c.killed);
    EXPECT_EQ(
        c.verdict,
        "cause: synchronization: the submit ran its full predicted time (0.31 s of 0.30 s) and its output is wrong; "
        "no job-timeout record in the kernel log");
    EXPECT_TRUE(anyContains(c.evidence, "split runs the same shaders, one dispatch per submit"));
}

TEST(Cause, SynchronizationNeedsNoLogWhenTheTimeoutCannotHaveFired) {
    CauseInput in = synchronizedMultipass();
    in.kernelLog = unreadableLog();
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Synchronization);
    EXPECT_TRUE(contains(c.verdict, "every submit completed before the 2000 ms timeout could fire")) << c.verdict;
    EXPECT_TRUE(c.missing.empty());
}

TEST(Cause, SynchronizationWithOverlappedDispatches) {
    CauseInput in = synchronizedMultipass();
    in.submits = {submit(0.18, 0.30)};
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Synchronization);
    EXPECT_TRUE(contains(c.verdict, "the submit ran 60% of its predicted time (0.18 s of 0.30 s;")) << c.verdict;
}

TEST(Cause, PerSubmitOverheadOnTinyShapesIsNotShort) {
    // Split's 14 host waits of about 1.4 ms each over-count what one submit takes: neither
    // cut short nor a full run can be read from such times, so the cause stays open and
    // says what would decide it.
    CauseInput in = synchronizedMultipass();
    in.submits = {submit(0.004, 0.020, PredictionBasis::HostWaits, 14)};
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Undetermined) << c.verdict;
    EXPECT_FALSE(c.killed);
    ASSERT_EQ(c.missing.size(), 1u);
    EXPECT_NE(c.missing[0].find("a prediction above the host's timing margin"), std::string::npos) << c.missing[0];
    // A prediction the host can measure decides it: the full time points at synchronization.
    in.submits = {submit(0.30, 0.32, PredictionBasis::HostWaits, 14)};
    EXPECT_EQ(decideCause(in).kind, CauseKind::Synchronization);
}

TEST(Cause, ShortSubmitWithNoErrorIsUndeterminedButKilled) {
    CauseInput in = synchronizedMultipass();
    in.submits = {submit(0.01, 0.30)};
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Undetermined);
    EXPECT_TRUE(c.killed);
    EXPECT_EQ(
        c.verdict,
        "cause undetermined: the submit ended after 0.01 s of a predicted 0.30 s with no error, with no job-timeout "
        "record: its work did not all run, and the job timeout cannot have fired that early");
}

// --drop-dispatch: the run itself left a dispatch out, so the same short submit is no kill;
// the evidence says why the short time was not taken as one.
TEST(Cause, AShortSubmitWithADispatchLeftOutOnPurposeIsNoKill) {
    CauseInput in = synchronizedMultipass();
    in.submits = {submit(0.01, 0.30)};
    in.droppedDispatch = 3;
    const Cause c = decideCause(in);
    EXPECT_FALSE(c.killed) << c.verdict;
    EXPECT_TRUE(std::find(c.evidence.begin(), c.evidence.end(),
                          "dispatch 3 was left out on purpose (--drop-dispatch): the submit's shorter time is the "
                          "experiment's own, no evidence of a kill") != c.evidence.end())
        << c.verdict;
}

TEST(Cause, ShortThresholdEdges) {
    // Timestamps, margin 0.01 s: short up to 0.5 * 0.30 - 0.01 = 0.14 s, full from
    // 0.75 * 0.30 - 0.01 = 0.215 s.
    CauseInput in = synchronizedMultipass();
    in.submits = {submit(0.139, 0.30)};
    EXPECT_TRUE(decideCause(in).killed);
    in.submits = {submit(0.141, 0.30)};
    EXPECT_FALSE(decideCause(in).killed);
    in.submits = {submit(0.214, 0.30)};
    EXPECT_TRUE(contains(decideCause(in).verdict, "% of its predicted time"));
    in.submits = {submit(0.216, 0.30)};
    EXPECT_TRUE(contains(decideCause(in).verdict, "ran its full predicted time"));
    // Host waits of 14 submits, margin 0.05 + 0.028 s: short up to 0.15 - 0.078 = 0.072 s.
    in.submits = {submit(0.071, 0.30, PredictionBasis::HostWaits, 14)};
    EXPECT_TRUE(decideCause(in).killed);
    in.submits = {submit(0.073, 0.30, PredictionBasis::HostWaits, 14)};
    EXPECT_FALSE(decideCause(in).killed);
}

TEST(Cause, UnfinishedBreadcrumbsMeanCutShort) {
    CauseInput in = synchronizedMultipass();
    in.submits[0].lastFinishedDispatch = 5;
    in.submits[0].lastFinishedSeconds = 0.12;
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Undetermined);
    EXPECT_TRUE(c.killed);
    EXPECT_TRUE(anyContains(c.evidence,
                            "breadcrumbs: the last dispatch that finished was 5 of 14, 0.12 s after the submit began"));
}

TEST(Cause, KillRecordButCompletedBeforeTheTimeoutContradicts) {
    CauseInput in = synchronizedMultipass();
    in.kernelLog.events = {event("amdgpu: ring gfx_0.0.0 timeout, but soft recovered")};
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Undetermined);
    EXPECT_FALSE(c.killed);
    EXPECT_TRUE(anyContains(c.contradictions, "every submit completed before the 2000 ms timeout could fire"));
    EXPECT_TRUE(
        c.verdict.starts_with("cause undetermined: a job-timeout record of repro's during the mode (contradicts: "))
        << c.verdict;
}

TEST(Cause, KillRecordButEveryBreadcrumbFinishedContradicts) {
    CauseInput in = killedMultipass();
    in.submits[0].lastFinishedDispatch = 14;
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Undetermined);
    EXPECT_TRUE(anyContains(c.contradictions, "breadcrumbs say every dispatch finished"));
}

TEST(Cause, EndedAtTheTimeoutWithACleanLogContradicts) {
    CauseInput in = killedMultipass();
    in.kernelLog.events.clear();
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Undetermined);
    EXPECT_FALSE(c.killed);
    EXPECT_EQ(
        c.verdict,
        "cause undetermined: the submit ended after 2.00 s of a predicted 2.90 s, at the 2000 ms timeout, which points "
        "at the kernel's job timeout (contradicts: the submit ended at the 2000 ms timeout, but the readable kernel "
        "log "
        "has no job-timeout record for repro)");
}

TEST(Cause, EndedAtTheTimeoutWithTheLogUnreadableIsMissing) {
    CauseInput in = killedMultipass();
    in.kernelLog = unreadableLog();
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Undetermined);
    EXPECT_TRUE(c.killed);
    EXPECT_EQ(
        c.verdict,
        "cause undetermined: the submit ended after 2.00 s of a predicted 2.90 s, at the 2000 ms timeout, which points "
        "at the kernel's job timeout (missing: the kernel log (cannot read the kernel log /dev/kmsg: Operation not "
        "permitted (with kernel.dmesg_restrict = 1 only root or CAP_SYSLOG may read it); run `sudo journalctl -k "
        "--since '2026-09-02 09:32:41'`))");
    // Lost records count as a log that cannot be trusted to be complete.
    CauseInput lost = killedMultipass();
    lost.kernelLog.events.clear();
    lost.kernelLog.lost = 1;
    const Cause l = decideCause(lost);
    EXPECT_TRUE(l.killed);
    EXPECT_TRUE(anyContains(l.missing, "records were overwritten before repro read them"));
}

TEST(Cause, NearTimeoutWindowEdges) {
    // T = 2 s: window 0.3 s. T = 0.5 s: the 0.1 s floor.
    CauseInput in = killedMultipass();
    in.kernelLog = unreadableLog();
    in.submits = {submit(1.71, 2.90)};
    EXPECT_TRUE(decideCause(in).killed);
    in.submits = {submit(2.29, 2.90)};
    EXPECT_TRUE(decideCause(in).killed);
    in.submits = {submit(1.69, 2.90)};
    EXPECT_FALSE(decideCause(in).killed);
    in.timeout = limitMs(500);
    in.submits = {submit(0.41, 0.60)};
    EXPECT_TRUE(decideCause(in).killed);
    in.submits = {submit(0.39, 0.60)};
    EXPECT_FALSE(decideCause(in).killed);
}

TEST(Cause, OutlivingTheTimeoutWithoutARecordContradicts) {
    CauseInput in = synchronizedMultipass();
    in.submits = {submit(8.0, 7.5)};
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Undetermined);
    EXPECT_TRUE(anyContains(c.contradictions, "past the 2000 ms timeout"));
    // A full GPU reset makes the wait longer; that still is the job timeout.
    CauseInput reset = killedMultipass();
    reset.submits = {submit(5.5, 2.90)};
    reset.kernelLog.events = {event("amdgpu: ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=2"),
                              event("amdgpu: GPU reset begin!"), event("amdgpu: GPU reset(1) succeeded!")};
    EXPECT_EQ(decideCause(reset).kind, CauseKind::JobTimeout);
}

TEST(Cause, UnknownTimeoutNeedsTheLog) {
    CauseInput in = synchronizedMultipass();
    in.timeout = QueueTimeout{TimeoutKind::Unknown, 0, false, "lockup_timeout unreadable (Permission denied)"};
    in.kernelLog = unreadableLog();
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Undetermined);
    EXPECT_TRUE(anyContains(c.missing, "the gfx queue's job timeout (lockup_timeout unreadable (Permission denied))"));
    EXPECT_TRUE(anyContains(c.missing, "the kernel log ("));
    // A readable, complete log with no kill record excludes the timeout on its own.
    in.kernelLog = cleanLog();
    EXPECT_EQ(decideCause(in).kind, CauseKind::Synchronization);
}

TEST(Cause, NoPredictionIsMissing) {
    CauseInput in = synchronizedMultipass();
    in.submits = {submit(0.31, std::nullopt)};
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Undetermined);
    EXPECT_TRUE(anyContains(c.missing, "a prediction of the submit's GPU time"));
    // Breadcrumbs that say every dispatch finished stand in for it.
    in.submits[0].lastFinishedDispatch = 14;
    const Cause crumbs = decideCause(in);
    EXPECT_EQ(crumbs.kind, CauseKind::Synchronization);
    EXPECT_TRUE(contains(crumbs.verdict, "every dispatch finished (breadcrumbs)"));
}

TEST(Cause, NoTimeoutOnThisQueue) {
    CauseInput in = synchronizedMultipass();
    in.timeout = QueueTimeout{TimeoutKind::NoLimit, 0, true, "read from ... '-1'"};
    in.kernelLog = unreadableLog();
    EXPECT_TRUE(contains(decideCause(in).verdict, "no job timeout applies to the gfx queue"));
    in.kernelLog = cleanLog();
    in.kernelLog.events = {event("amdgpu: ring gfx_0.0.0 timeout, but soft recovered")};
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Undetermined);
    EXPECT_TRUE(anyContains(c.contradictions, "no job timeout applies to the gfx queue"));
}

TEST(Cause, ShaderCompilerWhenSplitFailsItsOwnStepCheck) {
    CauseInput in = synchronizedMultipass();
    in.splitStepCheck = StepCheckState::Failed;
    in.splitStepCheckDetail = "conv-T 3: max |gpu - cpu| 2.1e-03 of allowed 4.5e-07";
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::ShaderCompiler);
    EXPECT_TRUE(contains(c.verdict, "(conv-T 3: max |gpu - cpu| 2.1e-03 of allowed 4.5e-07)")) << c.verdict;
}

// Issue 21, item 6e: with the user's --spirv modules the shaders may be invalid (undefined
// behaviour passes spirv-val), so the cause names them before the compiler, with spirv-val's
// answer.
TEST(Cause, TheUsersModulesAreNamedBeforeTheCompiler) {
    CauseInput in = synchronizedMultipass();
    in.splitStepCheck = StepCheckState::Failed;
    in.splitStepCheckDetail = "conv-T 1: max |gpu - cpu| 2.1e-03 of allowed 4.5e-07";
    in.userModules = "the SPIR-V modules are the user's (--spirv): spirv-val (vulkan1.3): conv_t.spv valid";
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::ShaderCompiler);
    EXPECT_TRUE(
        c.verdict.starts_with("cause: the shaders or the shader compiler: split, one dispatch per submit, "
                              "fails the per-dispatch CPU check (conv-T 1: "))
        << c.verdict;
    EXPECT_TRUE(contains(c.verdict, "spirv-val (vulkan1.3): conv_t.spv valid; the modules may be invalid"))
        << c.verdict;
    EXPECT_FALSE(contains(c.verdict, "(or the device's arithmetic)")) << c.verdict;
}

TEST(Cause, CpuReferenceNeedsTheStepCheck) {
    CauseInput in = synchronizedMultipass();
    in.reference = JudgedAgainst::Cpu;
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::Undetermined);
    EXPECT_TRUE(anyContains(c.missing, "split's per-dispatch CPU check"));
    in.splitStepCheck = StepCheckState::Passed;
    EXPECT_EQ(decideCause(in).kind, CauseKind::Synchronization);
}

TEST(Cause, BladeExactQuirksUnlessKilled) {
    CauseInput in = synchronizedMultipass();
    in.bladeExact = true;
    EXPECT_EQ(decideCause(in).kind, CauseKind::BladeQuirks);
    CauseInput killed = killedMultipass();
    killed.bladeExact = true;
    EXPECT_EQ(decideCause(killed).kind, CauseKind::JobTimeout);
}

TEST(Cause, CancelledAfterAnEarlierKill) {
    CauseInput in = synchronizedMultipass();
    in.mode = "single";
    in.deviceLost = true;
    in.earlierKill = true;
    in.submits = {submit(0.001, 0.30)};
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::JobTimeout);
    EXPECT_TRUE(c.killed);
    EXPECT_TRUE(contains(c.verdict, "in an earlier mode")) << c.verdict;
    // Without the earlier kill, a lost device with a clean log is not explained.
    in.earlierKill = false;
    in.submits = {submit(0.31, 0.30)};
    EXPECT_EQ(decideCause(in).kind, CauseKind::Undetermined);
}

TEST(Cause, CorrectOutputNeedsNoCause) {
    CauseInput in = killedMultipass();
    in.output = OutputVerdict::Correct;
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::NoFailure);
    EXPECT_FALSE(c.killed);
    EXPECT_EQ(c.verdict, "cause: none (the output is correct)");
    EXPECT_TRUE(anyContains(c.evidence, "kernel log during the mode: 'ring gfx_0.0.0 timeout, but soft recovered'"));
}

TEST(Cause, TheLongestSubmitDecides) {
    CauseInput in = killedMultipass();
    in.submits = {submit(0.50, 0.9), submit(2.00, 2.9), submit(0.40, 0.8)};
    const Cause c = decideCause(in);
    EXPECT_EQ(c.decisiveSubmit, 1u);
    EXPECT_TRUE(contains(c.verdict, "submit 2 of 3 ended after 2.00 s of a predicted 2.90 s")) << c.verdict;
}

TEST(Prediction, TimestampsFirstThenHostWaits) {
    const SplitTimes both{{0.1, 0.001, 0.1, 0.001}, {0.2, 0.01, 0.2, 0.01}};
    const auto p = predictSubmit(both, 0, 4);
    ASSERT_TRUE(p);
    EXPECT_DOUBLE_EQ(p->seconds, 0.202);
    EXPECT_EQ(p->basis, PredictionBasis::Timestamps);
    EXPECT_EQ(p->summed, 4u);
    const SplitTimes waits{{}, {0.2, 0.01, 0.2, 0.01}};
    const auto w = predictSubmit(waits, 2, 2);
    ASSERT_TRUE(w);
    EXPECT_DOUBLE_EQ(w->seconds, 0.21);
    EXPECT_EQ(w->basis, PredictionBasis::HostWaits);
    EXPECT_FALSE(predictSubmit(waits, 3, 2));
    EXPECT_FALSE(predictSubmit(waits, 0, 0));
    EXPECT_FALSE(predictSubmit(SplitTimes{{}, {0.1, -1.0}}, 0, 2));
    EXPECT_EQ(name(PredictionBasis::HostWaits), "host waits");
}

TEST(Prediction, WarningNearTheLimit) {
    const QueueTimeout t = limitMs(2000);
    EXPECT_EQ(
        predictionWarning("multipass", {2.9, PredictionBasis::Timestamps, 14}, "gfx", t),
        "multipass will keep the gfx queue busy about 2.9 s in one submit; this kernel kills a job after 2000 ms");
    EXPECT_EQ(
        predictionWarning("single", {1.2, PredictionBasis::HostWaits, 14}, "gfx", t),
        "single will keep the gfx queue busy about 1.2 s in one submit, 60% of the 2000 ms after which this kernel "
        "kills a job (an upper bound: split's host waits)");
    EXPECT_FALSE(predictionWarning("multipass", {0.9, PredictionBasis::Timestamps, 14}, "gfx", t));
    EXPECT_FALSE(predictionWarning("multipass", {9.0, PredictionBasis::Timestamps, 14}, "gfx",
                                   QueueTimeout{TimeoutKind::Unknown, 0, false, "?"}));
}

TEST(CauseJson, StringsNumbersAndNulls) {
    const CauseInput in = killedMultipass();
    const nlohmann::json j = causeJson(decideCause(in), in);
    EXPECT_EQ(j["kind"], "job_timeout");
    EXPECT_EQ(j["killed"], true);
    EXPECT_TRUE(j["verdict"].is_string());
    EXPECT_TRUE(j["evidence"].is_array());
    EXPECT_TRUE(j["missing"].empty());
    EXPECT_EQ(j["timeout"]["kind"], "limit");
    EXPECT_EQ(j["timeout"]["ms"], 2000);
    EXPECT_EQ(j["decisive_submit"]["index"], 0);
    EXPECT_DOUBLE_EQ(j["decisive_submit"]["measured_seconds"].get<double>(), 2.0);
    EXPECT_EQ(j["decisive_submit"]["basis"], "timestamps");
    EXPECT_EQ(j["kernel_log"]["kill_records"][0], "amdgpu 0000:03:00.0: ring gfx_0.0.0 timeout, but soft recovered");
    CauseInput none;
    none.timeout = QueueTimeout{TimeoutKind::Unknown, 0, false, "unknown"};
    const nlohmann::json n = causeJson(decideCause(none), none);
    EXPECT_TRUE(n["decisive_submit"].is_null());
    EXPECT_TRUE(n["timeout"]["ms"].is_null());
    EXPECT_EQ(n["kind"], "no_failure");
}

}  // namespace
}  // namespace repro

namespace repro {
namespace {

// split's own submits (issue 21, 2): one dispatch alone past the 2 s timeout, its
// submit ended there, the soft recovery logged. No prediction exists for split (its
// times are what predicts) and none is asked for: the job timeout, named for one dispatch.
TEST(Cause, SplitsOwnKillIsTheJobTimeoutWithoutAPrediction) {
    CauseInput in = killedMultipass();
    in.mode = "split";
    in.reference = JudgedAgainst::None;
    in.submits = {submit(2.01, std::nullopt, PredictionBasis::Timestamps, 1),
                  submit(0.02, std::nullopt, PredictionBasis::Timestamps, 1)};
    const Cause c = decideCause(in);
    EXPECT_EQ(c.kind, CauseKind::JobTimeout);
    EXPECT_TRUE(c.killed);
    EXPECT_EQ(c.verdict,
              "cause: the kernel's job timeout (2000 ms, gfx queue): one dispatch alone outlives it (split, one "
              "dispatch per submit): submit 1 of 2 ended after 2.01 s, kernel log 'ring gfx_0.0.0 timeout, but soft "
              "recovered'");
    EXPECT_TRUE(c.missing.empty()) << c.missing.front();
    // Wrong with the timeout excluded: no barrier inside a submit is involved, and never
    // a synchronization verdict.
    CauseInput clean = in;
    clean.kernelLog = cleanLog();
    clean.submits = {submit(0.02, std::nullopt, PredictionBasis::Timestamps, 1)};
    const Cause u = decideCause(clean);
    EXPECT_EQ(u.kind, CauseKind::Undetermined);
    EXPECT_FALSE(u.killed);
    EXPECT_TRUE(contains(u.verdict, "no barrier inside a submit is involved")) << u.verdict;
    EXPECT_TRUE(anyContains(u.missing, "split's per-dispatch CPU check")) << u.verdict;
}

}  // namespace
}  // namespace repro
