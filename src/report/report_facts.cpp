// Facts derived from a RunReport (see report_facts.hpp).
#include "report/report_facts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace repro {

bool hasGpuTimes(const ModeReport& m) {
    return !m.dispatchGpuSeconds.empty() || !m.submitGpuSeconds.empty() || m.modeGpuSeconds.has_value();
}

std::string hangEvidenceDriver(const RunReport& r) {
    if (r.device && !r.device->driverName.empty()) return r.device->driverName;
    if (r.device) {
        if (const DrmCard* card = findDrmCard(r.environment, *r.device)) return card->driver;
    }
    for (const auto& card : r.environment.drmCards) {
        if (!card.driver.empty()) return card.driver;
    }
    return "";
}

std::optional<JobWatchdog> reportJobWatchdog(const RunReport& r) {
    return jobWatchdogSeconds(r.environment, r.device ? &*r.device : nullptr);
}

std::vector<std::string> watchdogWarnings(const RunReport& r) {
    std::vector<std::string> out;
    const auto watchdog = reportJobWatchdog(r);
    if (!watchdog || !watchdog->seconds || !(*watchdog->seconds > 0)) return out;
    const double limit = *watchdog->seconds;
    const std::string what = fmt::format("the {} job watchdog ({:g} s, {})", watchdog->driver, limit, watchdog->source);
    for (const auto& m : r.modes) {
        const std::string_view mode = name(m.result.mode);
        for (size_t i = 0; i < m.submitGpuSeconds.size(); ++i) {
            const double s = m.submitGpuSeconds[i];
            if (s >= 0.5 * limit) {
                out.push_back(
                    fmt::format("WARNING: mode {} submit {} ran {:.3f} s on the GPU, {:.0f}% of {}: near it the "
                                "kernel resets the GPU and the mode reports a hang that is the watchdog's, not the "
                                "bug's; try a shorter chain (-n) or a smaller --preset",
                                mode, i + 1, s, 100.0 * s / limit, what));
            }
        }
        if (m.result.kind == Classification::Hang && m.submitGpuSeconds.empty() &&
            m.result.wallSeconds >= 0.5 * limit) {
            out.push_back(
                fmt::format("WARNING: mode {} lost the device after {:.2f} s (wall time of all its submits), at "
                            "least half of {}: the hang may be the watchdog ending a long submit; rerun with "
                            "--timestamps or a shorter chain (-n)",
                            mode, m.result.wallSeconds, what));
        }
    }
    return out;
}

std::vector<std::string> reportControls(const RunReport& r) {
    std::vector<std::string> out;
    const ExperimentReport& e = r.experiment;
    // The barrier's control (experiment.control also covers a file's own labelled controls and
    // --drop-dispatch, named below).
    if (e.control && e.barrier == "none")
        out.push_back(
            "--barrier none: no barrier between the dispatches of multipass and single (invalid Vulkan on "
            "purpose)");
    if (e.control && e.barrier == "execution-only")
        out.push_back(
            "--barrier execution-only: execution dependencies without memory dependencies (invalid "
            "Vulkan on purpose)");
    if (e.dropDispatch)
        out.push_back(
            fmt::format("--drop-dispatch {0}: dispatch {0} left out of multipass and single", *e.dropDispatch));
    if (r.scenario && !r.scenario->controlSteps.empty())
        out.push_back(
            fmt::format("the scenario file labels {} a control (insufficient on purpose)", r.scenario->controlSteps));
    return out;
}

VerdictKind reportVerdictKind(const RunReport& r) {
    // A reproduction is the control's only where no mode's line still says BUG REPRODUCED (split,
    // which runs under no control, a mode the job timeout cut short, or a mode the control does
    // not reach, a file's multipass: engine/outcome_stages.cpp markControl),
    // nor a --sweep's verdict (engine/sweep.cpp: CONTROL CAUGHT where no point's line said it).
    const bool driverLine = std::any_of(r.verdict.lines.begin(), r.verdict.lines.end(), [](const std::string& l) {
        return l.starts_with("--- BUG REPRODUCED: ") || l.starts_with("--- sweep verdict: BUG REPRODUCED");
    });
    return verdictKind(r.verdict.exitStatus, !reportControls(r).empty() && !driverLine);
}

}  // namespace repro
