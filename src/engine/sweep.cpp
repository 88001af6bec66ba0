// --sweep A..B: every chain length in the range on one set-up, a table N x mode and the
// smallest reproducing N per mode.
#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>

#include "report/verdict.hpp"
#include "core/output.hpp"
#include "engine/session.hpp"
#include "vk/watch.hpp"

namespace repro {
namespace {

struct SweepTable {
    std::map<uint32_t, std::vector<ModeResult>> results;
    std::map<uint32_t, int> statuses;
};

bool reproducesAt(const ModeResult& r, int status) {
    return (isWrong(r.kind) && status == kExitReproduced) || r.kind == Classification::Hang;
}

// Prints the table; returns "mode N=..." per mode for the smallest reproducing N.
std::vector<std::string> printTable(const Options& o, const SweepTable& t) {
    say("--- sweep: classification by chain length ---");
    std::string header = fmt::format("  {:>4}", "N");
    for (const Mode m : o.modes) header += fmt::format("  {:<12}", name(m));
    say("{}", header);
    std::map<Mode, std::optional<uint32_t>> smallest;
    for (const auto& [n, results] : t.results) {
        const int status = t.statuses.at(n);
        std::string row = fmt::format("  {:>4}", n);
        for (const ModeResult& r : results) {
            if (std::find(o.modes.begin(), o.modes.end(), r.mode) == o.modes.end()) continue;
            std::string cell{name(r.kind)};
            if (status == kExitCannotTest && isWrong(r.kind)) cell = "inconclusive";
            if (r.runs > 1) cell += fmt::format(" {}/{}", r.wrongRuns, r.runs);
            row += fmt::format("  {:<12}", cell);
            if (reproducesAt(r, status) && !smallest[r.mode]) smallest[r.mode] = n;
        }
        say("{}", row);
    }
    std::vector<std::string> parts;
    for (const Mode m : o.modes) {
        parts.push_back(fmt::format("{} {}", name(m), smallest[m] ? fmt::format("N={}", *smallest[m]) : "none"));
    }
    return parts;
}

int sweepStatus(const Session& s, const SweepTable& t) {
    const auto any = [&](int code) {
        return std::any_of(t.statuses.begin(), t.statuses.end(), [&](auto& kv) { return kv.second == code; });
    };
    if (any(kExitHang)) return kExitHang;
    if (any(kExitReproduced)) return kExitReproduced;
    const bool allInconclusive =
        std::all_of(t.statuses.begin(), t.statuses.end(), [](auto& kv) { return kv.second == kExitCannotTest; });
    if (allInconclusive) return kExitCannotTest;
    if (s.options.validation && s.instance.validationLog().count() > 0) return kExitValidation;
    return kExitNotReproduced;
}

const char* sweepVerdictName(int status) {
    switch (status) {
        case kExitHang:
            return "GPU HANG";
        case kExitReproduced:
            return "BUG REPRODUCED";
        case kExitCannotTest:
            return "INCONCLUSIVE at every N";
        case kExitValidation:
            return "VALIDATION messages";
        default:
            return "NOT REPRODUCED at any N";
    }
}

}  // namespace

int runSweep(Session& s, RunReport& report) {
    const auto [first, last] = *s.options.sweep;
    SweepTable table;
    bool hang = false;
    bool dumpFailed = false;
    for (uint32_t n = first; n <= last && !hang; ++n) {
        say("--- results for N={} ---", n);
        const size_t kept = report.modes.size();  // modeDone adds each run as it ends
        watch::row(n - first + 1, last - first + 1, fmt::format("sweep N={}", n));
        LengthOutcome out = runLength(s, n);
        report.modes.resize(kept);
        report.modes.insert(report.modes.end(), out.modes.begin(), out.modes.end());
        report.referenceName = out.referenceName;
        if (out.interrupted) break;
        for (const auto& line : out.verdict.lines) say("{}", line);
        dumpFailed = dumpFailed || out.dumpFailed;
        table.results[n] = out.judged;
        table.statuses[n] = out.verdict.exitStatus;
        hang = out.deviceGone;
    }
    if (const int status = interruptedStatus()) return status;
    const std::vector<std::string> smallest = printTable(s.options, table);
    say("--- smallest reproducing N: {}", join(smallest));
    printValidation(s);
    const int status = sweepStatus(s, table);
    const std::string verdict =
        fmt::format("--- sweep verdict: {}; smallest reproducing N: {}", sweepVerdictName(status), join(smallest));
    say("{}", verdict);
    report.verdict = Verdict{.exitStatus = status, .lines = {verdict}};
    // A dump that could not be written is a usage error unless a hang or a reproduction
    // says more; the results above are printed either way.
    if (dumpFailed && status != kExitHang && status != kExitReproduced) return kExitUsage;
    return status;
}

}  // namespace repro
