// What a run gathers to name the cause of a wrong result (docs/watchdog.md): the job
// timeout of the queue repro submits to, the kernel log from the run's start, and split's
// measured times, from which the GPU time of a one-submit mode is predicted before it runs.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "forensics/cause.hpp"
#include "forensics/environment.hpp"
#include "forensics/kernel_log.hpp"
#include "report/report.hpp"
#include "vk/recorder.hpp"

namespace repro {

class Evidence {
  public:
    // `kernelLog` was opened when the run started (openRunKernelLog).
    Evidence(const EnvironmentReport& environment, const DeviceReport& device, KernelLogReader kernelLog);

    const QueueWatchdog& watchdog() const { return watchdog_; }
    QueueKind queueKind() const { return queueKind_; }
    // "queue: family 0 (GRAPHICS|COMPUTE|TRANSFER) = amdgpu gfx ring ...; the kernel kills a
    // job on it after 2000 ms (...)".
    std::string queueLine() const;
    // Why the kernel log cannot be read and what to run afterwards; empty when readable.
    std::string kernelLogNote() const { return reader_.unreadableLine(); }

    // Before a mode: the log's records so far are set aside. After it: what it wrote.
    void beforeMode();
    KernelLogEvidence afterMode();

    // What split measured at point `key` (the built-in chain's length, a file's sweep value's
    // index), per work item in recording order, for the predictions of the one-submit modes
    // there.
    void recordSplit(uint32_t key, const SplitTimes& times);
    std::optional<SplitTimes> splitTimes(uint32_t key) const;
    // Drops what split measured at `key`: a split run the job timeout cut short measured the
    // kill, not its work, and would predict the other modes' time too short.
    void forgetSplit(uint32_t key) { split_.erase(key); }
    // Per work item (0-based) predicted GPU seconds at `key` for a point of `items` work items
    // (timestamps when measured, else host waits), empty when split has not been measured there.
    std::vector<double> predictedDispatchSeconds(uint32_t key, size_t items) const;

    // With --spirv: the line that says the modules are the user's and what spirv-val said
    // (core/spirv_validation.hpp userModulesLine); each cause carries it.
    void setUserModules(std::string line) { userModules_ = std::move(line); }
    const std::string& userModules() const { return userModules_; }

    // The amdgpu cards' MES firmware versions as the environment read them ("card0
    // mes_fw_version 0x00000083, mes_kiq_fw_version 0x0000006c"); empty when none were read.
    const std::string& mesFirmware() const { return mesFirmware_; }

  private:
    KernelLogReader reader_;
    QueueWatchdog watchdog_;
    QueueKind queueKind_ = QueueKind::Gfx;
    uint32_t queueFamily_ = 0;
    std::string queueFlags_;
    std::map<uint32_t, SplitTimes> split_;
    std::string userModules_;
    std::string mesFirmware_;
};

// The kernel log from now on: /dev/kmsg, or the file the test seam REPRO_TEST_KMSG names.
KernelLogReader openRunKernelLog();

// Split's times from a completed split run: the host wait of each of its submits that holds a
// work item (one each) and, with --timestamps, each work item's GPU time.
SplitTimes splitTimesOf(const vk::ModeRun& run);

// The same for a calibration of one step, repeated for a chain of `steps` steps.
SplitTimes repeatCalibration(const SplitTimes& oneStep, uint32_t steps);

// Split's times per chain dispatch, scaled for a submit that records each conv-T `repeat`
// times (--dispatch-repeat): a repeated conv-T costs `repeat` times its one recording.
SplitTimes scaled(const SplitTimes& split, uint32_t repeat);

// What decideCause needs about one run of a one-submit mode (multipass, single): its
// submits against the predictions of `split` (chain dispatches, with --dispatch-repeat
// R conv-Ts counted R times), the last finished dispatch from its timestamps, the kernel
// log during it, and how it ended.
CauseInput causeInputFor(const ModeResult& result, const vk::ModeRun& run, const std::optional<SplitTimes>& split,
                         uint32_t dispatchRepeat, const Evidence& evidence, const KernelLogEvidence& log);

}  // namespace repro
