// renderMerged (report/merge_reports.hpp): the merged rows as an aligned text table, a
// Markdown table or the "repro-merged-reports" JSON document.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "report/merge_reports.hpp"
#include "report/report_render.hpp"
#include "core/text.hpp"
#include "repro_version.h"

namespace repro {
namespace {

using nlohmann::json;

const std::vector<std::string> kHeader = {"outcome", "device",    "driver", "version", "kernel", "job timeout", "N",
                                          "split",   "multipass", "single", "triage",  "repro",  "file"};

std::string orDash(const std::string& text) { return text.empty() ? "-" : text; }

// "ok", "zero: job_timeout", "-" when the report has no such mode.
std::string modeCell(const MergedRow& row, std::string_view mode) {
    for (const MergedMode& m : row.modes) {
        if (m.mode == mode) return m.classification + (m.causeKind.empty() ? "" : ": " + m.causeKind);
    }
    return "-";
}

std::vector<std::string> cellsWithoutScenario(const MergedRow& row) {
    return {row.outcome,
            orDash(row.device),
            orDash(row.driver),
            orDash(row.driverVersion),
            orDash(row.kernel),
            orDash(row.jobTimeout),
            row.chainLength > 0 ? std::to_string(row.chainLength) : "-",
            modeCell(row, "split"),
            modeCell(row, "multipass"),
            modeCell(row, "single"),
            orDash(row.conclusionKind),
            orDash(row.reproGit),
            row.file};
}

// Whether any row is a scenario's: the table then has a "scenario" column before "file".
bool anyScenario(const std::vector<MergedRow>& rows) {
    return std::any_of(rows.begin(), rows.end(), [](const MergedRow& r) { return !r.scenario.empty(); });
}

std::vector<std::string> header(const std::vector<MergedRow>& rows) {
    std::vector<std::string> h = kHeader;
    if (anyScenario(rows)) h.insert(h.end() - 1, "scenario");
    return h;
}

std::vector<std::string> cells(const MergedRow& row, bool scenarioColumn) {
    std::vector<std::string> c = cellsWithoutScenario(row);
    if (scenarioColumn) c.insert(c.end() - 1, orDash(row.scenario));
    return c;
}

// One group of rows with the same outcome: how many, and each device and driver with its count.
struct Group {
    std::string outcome;
    int exitStatus = 0;
    size_t reports = 0;
    std::vector<std::pair<std::string, size_t>> devices;  // "llvmpipe (...) with llvmpipe Mesa 22.3.6"
};

// The rows are sorted (sortMergedRows), so each outcome's rows are together.
std::vector<Group> groups(const std::vector<MergedRow>& rows) {
    std::vector<Group> out;
    for (const MergedRow& row : rows) {
        if (out.empty() || out.back().exitStatus != row.exitStatus || out.back().outcome != row.outcome)
            out.push_back({row.outcome, row.exitStatus, 0, {}});
        Group& g = out.back();
        ++g.reports;
        const std::string device = orDash(row.device) + " with " + orDash(row.driver);
        const auto it =
            std::find_if(g.devices.begin(), g.devices.end(), [&](const auto& d) { return d.first == device; });
        if (it == g.devices.end()) {
            g.devices.emplace_back(device, 1);
        } else {
            ++it->second;
        }
    }
    return out;
}

// "reproduced (2 reports): Radeon 890M with radv Mesa 26.0.2 (2); ..."
std::vector<std::string> groupLines(const std::vector<MergedRow>& rows) {
    std::vector<std::string> lines;
    for (const Group& g : groups(rows)) {
        std::string line = fmt::format("{} ({} report{}): ", g.outcome, g.reports, g.reports == 1 ? "" : "s");
        for (size_t i = 0; i < g.devices.size(); ++i) {
            line += (i == 0 ? "" : "; ") + g.devices[i].first;
            if (g.devices[i].second > 1) line += fmt::format(" ({})", g.devices[i].second);
        }
        lines.push_back(std::move(line));
    }
    return lines;
}

std::string renderText(const MergedReports& merged) {
    if (merged.rows.empty()) return "no report merged\n";
    const bool scenarioColumn = anyScenario(merged.rows);
    std::vector<std::vector<std::string>> table = {header(merged.rows)};
    for (const MergedRow& row : merged.rows) {
        std::vector<std::string> c = cells(row, scenarioColumn);
        for (std::string& cell : c) cell = escaped(cell);
        table.push_back(std::move(c));
    }
    std::vector<size_t> widths(table.front().size(), 0);
    for (const auto& r : table) {
        for (size_t i = 0; i < r.size(); ++i) widths[i] = std::max(widths[i], r[i].size());
    }
    std::string out;
    for (const auto& r : table) {
        std::string line;
        for (size_t i = 0; i < r.size(); ++i)
            line += fmt::format("{:<{}}", r[i], i + 1 == r.size() ? 0 : widths[i] + 2);
        out += line + "\n";
    }
    out += "\n";
    for (const std::string& line : groupLines(merged.rows)) out += escaped(line) + "\n";
    return out;
}

std::string renderMarkdownTable(const MergedReports& merged) {
    if (merged.rows.empty()) return "No report merged.\n";
    std::vector<std::vector<std::string>> rows;
    const bool scenarioColumn = anyScenario(merged.rows);
    for (const MergedRow& row : merged.rows) rows.push_back(cells(row, scenarioColumn));
    std::string out = markdownTable(header(merged.rows), rows) + "\n";
    for (const std::string& line : groupLines(merged.rows)) out += "- " + markdownText(line) + "\n";
    return out;
}

json nullIfEmpty(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json rowJson(const MergedRow& row) {
    json modes = json::array();
    for (const MergedMode& m : row.modes) {
        modes.push_back(
            {{"mode", m.mode}, {"classification", m.classification}, {"cause_kind", nullIfEmpty(m.causeKind)}});
    }
    return {
        {"file", row.file},
        {"document", row.document},
        {"schema_version", row.schemaVersion},
        {"exit_status", row.exitStatus},
        {"outcome", row.outcome},
        {"device", nullIfEmpty(row.device)},
        {"driver", nullIfEmpty(row.driver)},
        {"driver_version", nullIfEmpty(row.driverVersion)},
        {"driver_id", nullIfEmpty(row.driverId)},
        {"kernel", nullIfEmpty(row.kernel)},
        {"job_timeout", nullIfEmpty(row.jobTimeout)},
        {"job_timeout_seconds", row.jobTimeoutSeconds ? json(*row.jobTimeoutSeconds) : json(nullptr)},
        {"chain_length", row.chainLength},
        {"modes", modes},
        {"conclusion",
         row.conclusionKind.empty() ? json(nullptr) : json{{"kind", row.conclusionKind}, {"line", row.conclusionLine}}},
        {"repro", {{"version", row.reproVersion}, {"git", row.reproGit}}},
        {"scenario", nullIfEmpty(row.scenario)},
        {"verdict_kind", nullIfEmpty(row.verdictKind)}};
}

std::string renderJsonDocument(const MergedReports& merged) {
    json reports = json::array(), grouped = json::array(), problems = json::array(), duplicates = json::array();
    for (const MergedRow& row : merged.rows) reports.push_back(rowJson(row));
    for (const Group& g : groups(merged.rows)) {
        json devices = json::array();
        for (const auto& [device, count] : g.devices) devices.push_back({{"device", device}, {"reports", count}});
        grouped.push_back(
            {{"outcome", g.outcome}, {"exit_status", g.exitStatus}, {"reports", g.reports}, {"devices", devices}});
    }
    for (const MergeProblem& p : merged.problems) problems.push_back({{"file", p.file}, {"problem", p.problem}});
    for (const MergeDuplicate& d : merged.duplicates) duplicates.push_back({{"file", d.file}, {"same_as", d.sameAs}});
    const json document = {{"schema", "repro-merged-reports"},
                           {"schema_version", kMergedReportsSchemaVersion},
                           {"repro", {{"version", kReproVersion}, {"git", kReproGitHash}}},
                           {"reports", reports},
                           {"groups", grouped},
                           {"problems", problems},
                           {"duplicates", duplicates}};
    return document.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string renderMerged(const MergedReports& merged, Format format) {
    switch (format) {
        case Format::Markdown:
            return renderMarkdownTable(merged);
        case Format::Json:
            return renderJsonDocument(merged);
        case Format::Text:
            break;
    }
    return renderText(merged);
}

}  // namespace repro
