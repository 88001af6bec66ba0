// --merge-reports: read each file -> one row per document -> sorted, grouped rows -> text,
// Markdown or JSON.
#include "report/merge_reports.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include <array>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <limits>
#include <system_error>
#include <tuple>

#include "forensics/environment.hpp"
#include "core/output.hpp"
#include "report/report_render.hpp"
#include "report/scenario_report.hpp"
#include "core/text.hpp"
#include "report/verdict.hpp"
#include "forensics/watchdog.hpp"

namespace repro {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 3> kModeNames = {"split", "multipass", "single"};

// The string at `key` of `object`; empty when absent or not a string.
std::string textAt(const json& object, std::string_view key) {
    if (!object.is_object()) return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

// The integer at `key` of `object`; nullopt when absent or not an integer.
std::optional<int64_t> integerAt(const json& object, std::string_view key) {
    if (!object.is_object()) return std::nullopt;
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<int64_t>();
}

const json& objectAt(const json& object, std::string_view key) {
    static const json kNull;
    if (!object.is_object()) return kNull;
    const auto it = object.find(key);
    return it != object.end() ? *it : kNull;
}

// The queue's job timeout in the table's words, from a run report's environment and device.
void setJobTimeout(const RunReport& report, MergedRow& row) {
    const QueueTimeout t = queueWatchdog(report.environment, report.device ? &*report.device : nullptr).timeout;
    if (t.kind == TimeoutKind::Limit) {
        row.jobTimeoutSeconds = t.seconds();
        row.jobTimeout = fmt::format("{:g} s{}", t.seconds(), t.fromParameter ? "" : " (default)");
    } else {
        row.jobTimeout = t.kind == TimeoutKind::NoLimit ? "none" : "unknown";
    }
}

std::string hostFact(const RunReport& report, std::string_view name) {
    for (const auto& [key, value] : report.environment.host) {
        if (key == name) return value;
    }
    return {};
}

MergedRow runRow(const json& document) {
    const RunReport report = parseReport(document);
    MergedRow row;
    row.document = "repro-report";
    row.exitStatus = report.verdict.exitStatus;
    if (report.device) {
        row.device = report.device->deviceName;
        row.driver =
            report.device->driverName + (report.device->driverInfo.empty() ? "" : " " + report.device->driverInfo);
        row.driverVersion = report.device->driverVersion;
        row.driverId = report.device->driverId;
    }
    row.kernel = hostFact(report, "kernel.release");
    setJobTimeout(report, row);
    row.chainLength = report.chainLength;
    for (const ModeReport& m : report.modes) {
        row.modes.push_back({std::string(name(m.result.mode)), std::string(name(m.result.kind)), m.result.causeKind});
    }
    row.reproVersion = report.version;
    row.reproGit = report.gitHash;
    return row;
}

// The baseline's modes from its detail, "split ok, multipass killed, single killed (exit 2)";
// the first wrong mode (failing_mode) carries the baseline's cause_kind. A mode the detail
// does not name is left out.
std::vector<MergedMode> triageModes(const json& baseline) {
    const std::string detail = textAt(baseline, "detail");
    const std::string failing = textAt(baseline, "failing_mode");
    std::vector<MergedMode> modes;
    for (const std::string_view mode : kModeNames) {
        const std::string word = std::string(mode) + " ";
        const size_t at = detail.find(word);
        if (at == std::string::npos || (at > 0 && detail[at - 1] != ' ')) continue;
        const size_t begin = at + word.size();
        std::string classification = detail.substr(begin, detail.find_first_of(",(", begin) - begin);
        while (!classification.empty() && classification.back() == ' ') classification.pop_back();
        const bool wrong = mode == failing && classification != "ok";
        modes.push_back({std::string(mode), classification, wrong ? textAt(baseline, "cause_kind") : ""});
    }
    return modes;
}

MergedRow triageRow(const json& document) {
    MergedRow row;
    row.document = "repro-triage";
    row.exitStatus = static_cast<int>(integerAt(document, "exit_status").value_or(kExitCannotTest));
    const json& device = objectAt(document, "device");
    row.device = textAt(device, "name");
    row.driver = textAt(device, "driver");
    row.driverId = textAt(device, "driver_id");
    const json& probe = objectAt(document, "probe");
    const json& seconds = objectAt(probe, "timeout_seconds");
    if (seconds.is_number()) {
        row.jobTimeoutSeconds = seconds.get<double>();
        row.jobTimeout = fmt::format("{:g} s", *row.jobTimeoutSeconds);
    }
    row.chainLength = static_cast<uint32_t>(
        std::clamp<int64_t>(integerAt(document, "chain_length").value_or(0), 0, std::numeric_limits<uint32_t>::max()));
    row.modes = triageModes(objectAt(document, "baseline"));
    row.conclusionKind = textAt(objectAt(document, "conclusion"), "kind");
    row.conclusionLine = textAt(objectAt(document, "conclusion"), "line");
    row.reproVersion = textAt(objectAt(document, "repro"), "version");
    row.reproGit = textAt(objectAt(document, "repro"), "git");
    return row;
}

// A scenario document (report/scenario_report.hpp): its verdict, device and each mode's result
// ("ok", "mismatch", "hang", "failed", "not run"); the scenario named with its file's hash.
MergedRow scenarioRow(const json& document) {
    MergedRow row;
    row.document = "repro-scenario-report";
    row.exitStatus =
        static_cast<int>(integerAt(objectAt(document, "verdict"), "exit_status").value_or(kExitCannotTest));
    const json& device = objectAt(document, "device");
    row.device = textAt(device, "name");
    const std::string driverName = textAt(device, "driver_name"), driverInfo = textAt(device, "driver_info");
    row.driver = driverName + (driverInfo.empty() || driverName.empty() ? "" : " ") + driverInfo;
    const json& scenario = objectAt(document, "scenario");
    row.scenario = textAt(scenario, "name");
    if (const std::string sha = textAt(scenario, "file_sha256"); !sha.empty()) row.scenario += "@" + sha.substr(0, 12);
    const auto modes = document.find("modes");
    if (modes != document.end() && modes->is_array()) {
        for (const json& m : *modes) {
            if (m.is_object()) row.modes.push_back({textAt(m, "mode"), textAt(m, "result"), ""});
        }
    }
    row.reproVersion = textAt(objectAt(document, "repro"), "version");
    row.reproGit = textAt(objectAt(document, "repro"), "git");
    return row;
}

// The group an outcome sorts into: the bug's symptoms first.
int groupRank(int exitStatus) {
    constexpr std::array<int, 5> order = {kExitReproduced, kExitHang, kExitNotReproduced, kExitValidation,
                                          kExitCannotTest};
    const auto it = std::find(order.begin(), order.end(), exitStatus);
    return static_cast<int>(it - order.begin());
}

// The file's text, or nullopt with `problem` set.
std::optional<std::string> readFileText(const std::string& path, std::string& problem) {
    constexpr std::uintmax_t kLimit = 64u << 20;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        problem = "cannot read (a directory)";
        return std::nullopt;
    }
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int error = errno;
        problem = error != 0 ? fmt::format("cannot read ({})", std::generic_category().message(error)) : "cannot read";
        return std::nullopt;
    }
    std::string text;
    std::array<char, 65536> buffer{};
    while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0) {
        text.append(buffer.data(), static_cast<size_t>(in.gcount()));
        if (text.size() > kLimit) {
            problem = "too large to be a report (over 64 MiB)";
            return std::nullopt;
        }
    }
    if (in.bad()) {
        problem = "cannot read (a read error)";
        return std::nullopt;
    }
    return text;
}

}  // namespace

std::string outcomeName(int exitStatus) {
    switch (exitStatus) {
        case kExitReproduced:
            return "reproduced";
        case kExitHang:
            return "hang";
        case kExitNotReproduced:
            return "not reproduced";
        case kExitValidation:
            return "validation";
        case kExitCannotTest:
            return "cannot test";
        case kExitUsage:
            return "usage error";
        case 130:
        case 143:
            return "interrupted";
        default:
            return fmt::format("exit {}", exitStatus);
    }
}

std::optional<MergedRow> mergedRow(const json& document, const std::string& file, std::string& problem) {
    const std::string schema = textAt(document, "schema");
    const bool run = schema == "repro-report", triage = schema == "repro-triage";
    const bool scenario = schema == "repro-scenario-report";
    if (!run && !triage && !scenario) {
        problem = !document.is_object() ? "not a repro report (the JSON is not an object)"
                  : schema.empty()
                      ? "not a repro report (no \"schema\" property)"
                      : fmt::format("not a run report, triage or scenario document (schema {})", quote(schema));
        return std::nullopt;
    }
    const auto version = integerAt(document, "schema_version");
    const int newest = run ? kReportSchemaVersion : triage ? kNewestTriageSchemaRead : kScenarioReportSchemaVersion;
    if (!version || *version < 1) {
        problem = fmt::format("not a repro report ({} without a schema_version of 1 or more)", schema);
        return std::nullopt;
    }
    if (*version > newest) {
        problem = fmt::format("{} schema_version {} is newer than this repro reads (1 to {}); merge with a newer repro",
                              schema, *version, newest);
        return std::nullopt;
    }
    try {
        MergedRow row = run ? runRow(document) : triage ? triageRow(document) : scenarioRow(document);
        row.file = file;
        row.schemaVersion = static_cast<int>(*version);
        row.outcome = outcomeName(row.exitStatus);
        return row;
    } catch (const std::exception& e) {  // not expected: every reader above checks types
        problem = fmt::format("not a repro report ({})", escaped(e.what()));
        return std::nullopt;
    }
}

MergedReports mergeReportFiles(const std::vector<std::string>& files) {
    MergedReports merged;
    for (const std::string& file : files) {
        std::string problem;
        const std::optional<std::string> text = readFileText(file, problem);
        if (text) {
            json document;
            try {
                document = json::parse(*text);
            } catch (const json::parse_error& e) {
                problem = fmt::format("not JSON (a syntax error at byte {})", e.byte);
            }
            if (problem.empty()) {
                if (auto row = mergedRow(document, file, problem)) {
                    merged.rows.push_back(std::move(*row));
                    continue;
                }
            }
        }
        merged.problems.push_back({file, problem});
    }
    sortMergedRows(merged.rows);
    return merged;
}

void sortMergedRows(std::vector<MergedRow>& rows) {
    std::stable_sort(rows.begin(), rows.end(), [](const MergedRow& a, const MergedRow& b) {
        const int ga = groupRank(a.exitStatus), gb = groupRank(b.exitStatus);
        return std::tie(ga, a.exitStatus, a.device, a.driver, a.driverVersion, a.kernel, a.file) <
               std::tie(gb, b.exitStatus, b.device, b.driver, b.driverVersion, b.kernel, b.file);
    });
}

int runMergeReports(const std::vector<std::string>& files, Format format) {
    const MergedReports merged = mergeReportFiles(files);
    for (const MergeProblem& p : merged.problems) sayError("repro: --merge-reports: {}: {}", quote(p.file), p.problem);
    writeText(stdout, renderMerged(merged, format));
    if (writeFailed()) {
        sayError("repro: the merged table could not be written to {}", failedStream());
        return kExitUsage;
    }
    return merged.problems.empty() ? kExitNotReproduced : kExitUsage;
}

}  // namespace repro
