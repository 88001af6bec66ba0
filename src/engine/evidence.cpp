// The evidence a run gathers (see engine/evidence.hpp).
#include "engine/evidence.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>

namespace repro {
namespace {

OutputVerdict outputOf(Classification kind) {
    switch (kind) {
        case Classification::Zero:
            return OutputVerdict::Zero;
        case Classification::Mismatch:
            return OutputVerdict::Mismatch;
        case Classification::NonFinite:
            return OutputVerdict::NonFinite;
        case Classification::Unwritten:
        // A hung mode's output was never read back: it is not known to be correct, and a
        // cause must still be decided from the timing and the kernel log.
        case Classification::Hang:
            return OutputVerdict::Unwritten;
        default:
            return OutputVerdict::Correct;
    }
}

}  // namespace

SplitTimes scaled(const SplitTimes& split, uint32_t repeat) {
    SplitTimes out = split;
    for (size_t d = 0; d < out.dispatchGpuSeconds.size(); d += 2) out.dispatchGpuSeconds[d] *= repeat;
    for (size_t d = 0; d < out.submitWaitSeconds.size(); d += 2) out.submitWaitSeconds[d] *= repeat;
    return out;
}

KernelLogReader openRunKernelLog() {
    const char* seam = std::getenv("REPRO_TEST_KMSG");
    return KernelLogReader(seam && *seam ? seam : "/dev/kmsg", std::chrono::system_clock::now());
}

Evidence::Evidence(const EnvironmentReport& environment, const DeviceReport& device, KernelLogReader kernelLog)
    : reader_(std::move(kernelLog)),
      watchdog_(queueWatchdog(environment, &device)),
      queueKind_(queueKindFromFlags(device.queueFlags)),
      queueFamily_(device.queueFamily),
      queueFlags_(device.queueFlags) {
    // "card0.fw.mes_fw_version" = "0x00000083" (forensics/environment.cpp captureAmdgpuCard)
    for (const auto& [key, value] : environment.kernelDriver) {
        const size_t fw = key.find(".fw.mes");
        if (fw == std::string::npos) continue;
        const std::string card = key.substr(0, fw);
        mesFirmware_ += fmt::format("{}{} {}", mesFirmware_.empty() ? card + " " : ", ", key.substr(fw + 4), value);
    }
}

std::string Evidence::queueLine() const {
    return repro::queueLine(queueFamily_, queueFlags_, watchdog_.ring, watchdog_.timeout);
}

void Evidence::beforeMode() { (void)reader_.readNew(); }

KernelLogEvidence Evidence::afterMode() {
    KernelLogEvidence log{
        .readable = reader_.readable(), .problem = reader_.problem(), .command = reader_.afterwardsCommand()};
    if (!log.readable) return log;
    const KernelReadResult read = reader_.readNew();
    log.lost = read.lost;
    if (!read.problem.empty()) log.problem = read.problem;
    log.events = gpuEvents(read.records);
    return log;
}

void Evidence::recordSplit(uint32_t key, const SplitTimes& times) { split_[key] = times; }

std::optional<SplitTimes> Evidence::splitTimes(uint32_t key) const {
    const auto it = split_.find(key);
    if (it == split_.end()) return std::nullopt;
    return it->second;
}

std::vector<double> Evidence::predictedDispatchSeconds(uint32_t key, size_t dispatches) const {
    const std::optional<SplitTimes> split = splitTimes(key);
    if (!split) return {};
    if (split->dispatchGpuSeconds.size() == dispatches) return split->dispatchGpuSeconds;
    if (split->submitWaitSeconds.size() == dispatches) return split->submitWaitSeconds;
    return {};
}

SplitTimes splitTimesOf(const vk::ModeRun& run) {
    SplitTimes t;
    for (const auto& s : run.submitRecords) {
        if (s.firstDispatch > 0) t.submitWaitSeconds.push_back(s.hostSeconds);  // not a host read's own submit
    }
    bool all = !run.gpu.dispatches.empty();
    for (const auto& d : run.gpu.dispatches) all = all && d.finished;
    if (all && run.gpu.dispatches.size() == t.submitWaitSeconds.size()) {
        for (const auto& d : run.gpu.dispatches) t.dispatchGpuSeconds.push_back(d.seconds);
    }
    return t;
}

SplitTimes repeatCalibration(const SplitTimes& oneStep, uint32_t steps) {
    SplitTimes out;
    for (auto times : {&SplitTimes::dispatchGpuSeconds, &SplitTimes::submitWaitSeconds}) {
        const std::vector<double>& one = oneStep.*times;
        for (uint32_t i = 0; i < steps && one.size() == 2; ++i)
            (out.*times).insert((out.*times).end(), one.begin(), one.end());
    }
    return out;
}

CauseInput causeInputFor(const ModeResult& result, const vk::ModeRun& run, const std::optional<SplitTimes>& split,
                         uint32_t dispatchRepeat, const Evidence& evidence, const KernelLogEvidence& log) {
    CauseInput in{.mode = std::string(name(result.mode)),
                  .output = outputOf(result.kind),
                  .deviceLost = run.failure.status == vk::SubmitStatus::DeviceLost,
                  .waitTimedOut = run.failure.status == vk::SubmitStatus::Timeout,
                  .canaryLost = run.canary && run.canary->status == vk::SubmitStatus::DeviceLost,
                  .timeout = evidence.watchdog().timeout,
                  .queue = std::string(name(evidence.queueKind())),
                  .kernelLog = log,
                  .ownPid = static_cast<int64_t>(::getpid()),
                  .userModules = evidence.userModules(),
                  .firmware = evidence.mesFirmware()};
    const std::optional<SplitTimes> times =
        split ? std::optional<SplitTimes>(scaled(*split, dispatchRepeat)) : std::nullopt;
    for (size_t i = 0; i < run.submitRecords.size(); ++i) {
        const vk::SubmitRecord& s = run.submitRecords[i];
        SubmitEvidence e;
        if (s.firstDispatch > 0) {
            e.dispatches = s.lastDispatch - s.firstDispatch + 1;
            if (times) e.predicted = predictSubmit(*times, s.firstDispatch - 1, e.dispatches);
        }
        if (s.hostWaited) e.measuredSeconds = s.hostSeconds;
        // The last dispatch whose end timestamp was written, within this command buffer.
        uint32_t position = 0;
        for (const auto& d : run.gpu.dispatches) {
            if (d.commandBuffer != i) continue;
            ++position;
            if (d.finished) {
                e.lastFinishedDispatch = position;
                e.lastFinishedSeconds = d.endSinceStart;
            }
        }
        if (!run.gpu.dispatches.empty() && !e.lastFinishedDispatch) e.lastFinishedDispatch = 0;
        in.submits.push_back(e);
    }
    return in;
}

}  // namespace repro
