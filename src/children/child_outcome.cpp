// A child's report, read once by parseReport, and what the parents ask of it (see
// child_outcome.hpp).
#include "children/child_outcome.hpp"

#include <nlohmann/json.hpp>

#include <fstream>

#include "forensics/environment.hpp"
#include "core/output.hpp"
#include "report/report_render.hpp"
#include "report/verdict.hpp"

namespace repro {
namespace {

using nlohmann::json;

// The modes under test: their classifications, the first wrong one's reason, GPU time; and a
// reference run that hung (the row's exit 3 is its doing).
void readModes(const RunReport& r, ChildOutcome& out) {
    for (const ModeReport& m : r.modes) {
        if (!m.role.starts_with("under test") && m.result.kind != Classification::Hang) continue;
        const std::string_view kind = name(m.result.kind);
        out.classifications.push_back(fmt::format("{} {}", name(m.result.mode), kind));
        const bool wrong = kind != "ok" && kind != "not run";
        if (wrong && !out.anyWrong) {
            out.anyWrong = true;
            out.wrongMode = name(m.result.mode);
            out.reason = m.result.reason;
        }
        if (m.modeGpuSeconds) out.gpuSeconds = out.gpuSeconds.value_or(0.0) + *m.modeGpuSeconds;
    }
}

// Validation message counts, and how many name a SYNC-HAZARD.
void readValidation(const RunReport& r, ChildOutcome& out) {
    out.validationMessages = r.validation.errors + r.validation.warnings;
    for (const std::string& message : r.validation.messages) {
        if (message.find("SYNC-HAZARD") != std::string::npos) ++out.hazards;
    }
}

// The verdict's first line (without "--- "), and the memory types of small[0] and big[0] (a
// file's: every buffer's).
void readVerdictAndMemory(const RunReport& r, ChildOutcome& out) {
    if (!r.verdict.lines.empty()) {
        out.verdictLine = r.verdict.lines.front();
        if (out.verdictLine.starts_with("--- ")) out.verdictLine = out.verdictLine.substr(4);
    }
    if (out.reason.empty()) out.reason = out.verdictLine;
    if (!r.device) return;
    std::vector<std::string> types;
    for (const MemoryPlacement& m : r.device->memory) {
        // the chain's small[0] and big[0]; every buffer of a file
        if (r.scenario || m.buffer == "small[0]" || m.buffer == "big[0]")
            types.push_back(fmt::format("{}: type {} {}", m.buffer, m.typeIndex, m.typeFlags));
    }
    if (!types.empty()) out.memory = join(types, "; ");
}

// A JSON object kept as text in a report type (causeJson, perDispatchCheckJson); null
// when empty or not an object.
json objectOf(const std::string& text) {
    if (text.empty()) return nullptr;
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    return j.is_object() ? j : json(nullptr);
}

}  // namespace

void readChildReport(const std::filesystem::path& path, ChildOutcome& out) {
    std::ifstream in(path);
    if (!in) return;
    const json r = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (r.is_discarded() || !r.is_object()) return;
    out.report = parseReport(r);
    readModes(*out.report, out);
    readValidation(*out.report, out);
    readVerdictAndMemory(*out.report, out);
}

const ModeReport* modeEntry(const ChildOutcome& c, std::string_view mode) {
    if (!c.report) return nullptr;
    for (const ModeReport& m : c.report->modes) {
        if (name(m.result.mode) == mode) return &m;
    }
    return nullptr;
}

std::optional<JobWatchdog> reportedJobWatchdog(const ChildOutcome& c) {
    return c.report ? reportJobWatchdog(*c.report) : std::nullopt;
}

std::optional<double> reportedJobTimeout(const ChildOutcome& c) {
    const std::optional<JobWatchdog> w = reportedJobWatchdog(c);
    return w ? w->seconds : std::nullopt;
}

CauseFacts causeFacts(const ModeResult& mode) {
    CauseFacts f;
    const json cause = objectOf(mode.causeJson);
    if (cause.is_null()) return f;
    for (const json& x : cause.value("missing", json::array())) {
        if (x.is_string()) f.missing.push_back(x.get<std::string>());
    }
    const json& d = cause.value("decisive_submit", json(nullptr));
    if (d.is_object() && d.contains("measured_seconds") && d["measured_seconds"].is_number())
        f.decisiveSubmitSeconds = d["measured_seconds"].get<double>();
    if (d.is_object() && d.contains("ran_in_full") && d["ran_in_full"].is_boolean())
        f.decisiveSubmitRanInFull = d["ran_in_full"].get<bool>();
    const json& t = cause.value("timeout", json(nullptr));
    if (t.is_object() && t.value("kind", "") == "limit" && t.contains("ms") && t["ms"].is_number())
        f.timeoutSeconds = t["ms"].get<double>() / 1000.0;
    return f;
}

std::string perDispatchCheckState(const ModeResult& mode) {
    const json check = objectOf(mode.perDispatchCheckJson);
    return check.is_null() ? std::string() : check.value("state", "");
}

std::string fileStepCheckState(const ModeResult& mode) {
    const json check = objectOf(mode.stepCheckJson);
    if (!check.is_object()) return "";
    if (check.value("wrong", 0) > 0) return "failed";
    return check.value("checked", 0) > 0 ? "passed" : "";
}

std::string resultText(const ChildOutcome& c, bool withModes) {
    if (!c.process.started) return "did not start: " + c.process.error;
    if (c.process.timedOut) return fmt::format("killed after {:.0f} s", c.process.seconds);
    if (c.process.signal) return fmt::format("crashed (signal {})", c.process.signal);
    if (c.status == kExitCannotTest) return "cannot test";
    if (c.status == kExitUsage) return "usage error";
    if (!c.report) return fmt::format("no report (exit {})", c.status);
    if (withModes) return join(c.classifications, ", ");
    std::vector<std::string> kinds;
    for (const auto& k : c.classifications) kinds.push_back(k.substr(k.find(' ') + 1));
    return join(kinds, ", ");
}

RunResult childRunResult(const ChildOutcome& c) {
    if (c.process.timedOut || c.status == kExitHang) return RunResult::Hang;
    if (c.process.signal != 0 || !c.report) return RunResult::NotRun;  // a crash of this binary: no result
    if (c.status == kExitReproduced && c.anyWrong) return RunResult::Wrong;
    if ((c.status == kExitNotReproduced || c.status == kExitValidation) && !c.anyWrong) return RunResult::Correct;
    return RunResult::NotRun;
}

std::string outcomeText(const ChildOutcome& c) {
    const std::string text = resultText(c, true);
    if (c.status < 0) return text;
    const std::string exit = fmt::format("(exit {})", c.status);
    return text.ends_with(exit) ? text : text + " " + exit;  // "no report (exit 2)" names it already
}

std::string lastOutputLine(const ChildOutcome& c) {
    std::ifstream in(c.log);
    std::string line, last;
    bool body = false;  // past the header's blank line
    while (std::getline(in, line)) {
        if (!body) {
            body = line.empty();
            continue;
        }
        if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
    }
    return last;
}

void readTriageBaseline(const ChildOutcome& b, TriageInput& in) {
    in.baseline = childRunResult(b);
    in.baselineDetail = outcomeText(b);
    in.failingMode = b.wrongMode.empty() ? "multipass" : b.wrongMode;
    const ModeReport* m = modeEntry(b, in.failingMode);
    if (!m || objectOf(m->result.causeJson).is_null()) return;
    in.causeKind = m->result.causeKind;
    in.causeVerdict = m->result.cause;
    const CauseFacts cause = causeFacts(m->result);
    in.causeMissing.insert(in.causeMissing.end(), cause.missing.begin(), cause.missing.end());
    if (cause.decisiveSubmitSeconds) in.baselineSubmitSeconds = cause.decisiveSubmitSeconds;
    if (cause.decisiveSubmitRanInFull) in.baselineRanInFull = cause.decisiveSubmitRanInFull;
}

}  // namespace repro
