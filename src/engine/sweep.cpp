// --sweep: every point of the plan (each chain length of A..B on one set-up, or each value of a
// file's parameter), a table point x mode and the smallest reproducing point per mode.
#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>

#include "children/experiments.hpp"
#include "report/verdict.hpp"
#include "core/output.hpp"
#include "engine/session.hpp"
#include "vk/instance.hpp"
#include "vk/watch.hpp"

namespace repro {
namespace {

// By row: the point's label ("N=3", "w=16"), its results and its verdict's status, in order.
struct SweepTable {
    std::vector<std::string> labels;
    std::vector<std::vector<ModeResult>> results;
    std::vector<int> statuses;
    std::string axis = "N";  // the column's name: N, or the file's parameter
};

bool reproducesAt(const ModeResult& r, int status) {
    return (isWrong(r.kind) && status == kExitReproduced) || r.kind == Classification::Hang;
}

// The value of a row's label ("N=3" -> "3").
std::string valueOf(const std::string& label) { return label.substr(label.find('=') + 1); }

// Prints the table; returns "mode N=..." per mode for the smallest reproducing point (the
// first row it reproduces in: the points run in increasing order).
std::vector<std::string> printTable(const Options& o, const SweepTable& t) {
    say("--- sweep: classification by {} ---", t.axis == "N" ? "chain length" : t.axis);
    const size_t width = std::max<size_t>(4, t.axis.size());
    std::string header = fmt::format("  {:>{}}", t.axis, width);
    for (const Mode m : o.modes) header += fmt::format("  {:<12}", name(m));
    say("{}", header);
    std::map<Mode, std::optional<std::string>> smallest;
    for (size_t k = 0; k < t.results.size(); ++k) {
        const int status = t.statuses[k];
        const std::vector<ModeResult>& results = t.results[k];
        std::string row = fmt::format("  {:>{}}", valueOf(t.labels[k]), width);
        for (const ModeResult& r : results) {
            if (std::find(o.modes.begin(), o.modes.end(), r.mode) == o.modes.end()) continue;
            std::string cell{name(r.kind)};
            if (status == kExitCannotTest && isWrong(r.kind)) cell = "inconclusive";
            if (r.runs > 1) cell += fmt::format(" {}/{}", r.wrongRuns, r.runs);
            row += fmt::format("  {:<12}", cell);
            if (reproducesAt(r, status) && !smallest[r.mode]) smallest[r.mode] = t.labels[k];
        }
        say("{}", row);
    }
    std::vector<std::string> parts;
    for (const Mode m : o.modes) {
        parts.push_back(fmt::format("{} {}", name(m), smallest[m] ? *smallest[m] : "none"));
    }
    return parts;
}

int sweepStatus(const Session& s, const SweepTable& t) {
    const auto any = [&](int code) {
        return std::any_of(t.statuses.begin(), t.statuses.end(), [&](int status) { return status == code; });
    };
    if (any(kExitHang)) return kExitHang;
    if (any(kExitReproduced)) return kExitReproduced;
    const bool allInconclusive =
        std::all_of(t.statuses.begin(), t.statuses.end(), [](int status) { return status == kExitCannotTest; });
    if (allInconclusive) return kExitCannotTest;
    if (s.options.validation && s.instance.validationLog().count() > 0) return kExitValidation;
    return kExitNotReproduced;
}

// `driver`: some point's verdict still says BUG REPRODUCED (its wrong output is not a positive
// control's); a sweep whose every reproduction a control explains says CONTROL CAUGHT.
std::string sweepVerdictName(int status, const std::string& axis, bool driver) {
    switch (status) {
        case kExitHang:
            return "GPU HANG";
        case kExitReproduced:
            return driver ? "BUG REPRODUCED" : "CONTROL CAUGHT";
        case kExitCannotTest:
            return "INCONCLUSIVE at every " + axis;
        case kExitValidation:
            return "VALIDATION messages";
        default:
            return "NOT REPRODUCED at any " + axis;
    }
}

}  // namespace

int runSweep(Session& s, RunReport& report) {
    const std::vector<PlanPoint> points = s.plan.points(s.options);
    SweepTable table;
    if (s.options.parameterSweep) table.axis = s.options.parameterSweep->parameter;
    bool hang = false;
    bool dumpFailed = false;
    bool driver = false;  // a point's BUG REPRODUCED line, not a control's CONTROL CAUGHT
    for (size_t k = 0; k < points.size() && !hang; ++k) {
        const PlanPoint& point = points[k];
        say("--- results for {} ---", point.label);
        const size_t kept = report.modes.size();  // modeDone adds each run as it ends
        watch::row(static_cast<unsigned>(k + 1), static_cast<unsigned>(points.size()),
                   fmt::format("sweep {}", point.label));
        PointOutcome out = runPoint(s, point);
        report.modes.resize(kept);
        report.modes.insert(report.modes.end(), out.modes.begin(), out.modes.end());
        report.foldedRuns.insert(report.foldedRuns.end(), out.folded.begin(), out.folded.end());
        report.referenceName = out.referenceName;
        if (out.interrupted) break;
        for (const auto& line : out.verdict.lines) {
            say("{}", line);
            driver = driver || line.starts_with("--- BUG REPRODUCED: ");
        }
        dumpFailed = dumpFailed || out.dumpFailed;
        table.labels.push_back(point.label);
        table.results.push_back(out.judged);
        table.statuses.push_back(out.verdict.exitStatus);
        hang = out.deviceGone;
    }
    if (const int status = interruptedStatus()) return status;
    const std::vector<std::string> smallest = printTable(s.options, table);
    say("--- smallest reproducing {}: {}", table.axis, join(smallest));
    printValidation(s);
    const int status = sweepStatus(s, table);
    const std::string verdict = fmt::format("--- sweep verdict: {}; smallest reproducing {}: {}",
                                            sweepVerdictName(status, table.axis, driver), table.axis, join(smallest));
    say("{}", verdict);
    report.verdict = Verdict{.exitStatus = status, .lines = {verdict}};
    // A dump that could not be written is a usage error unless a hang or a reproduction
    // says more (documentStatus); the results above are printed either way.
    return dumpFailed ? documentStatus(status) : status;
}

}  // namespace repro
