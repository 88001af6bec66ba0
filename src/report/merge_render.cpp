// renderMerged (report/merge_reports.hpp): the merged rows as an aligned text table, a
// Markdown table, CSV or the "repro-merged-reports" JSON document.
#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "report/merge_reports.hpp"
#include "report/report_render.hpp"
#include "core/text.hpp"
#include "repro_version.h"

namespace repro {
namespace {

using nlohmann::json;

const std::vector<std::string> kHeader = {"outcome", "what ran", "device",      "id",    "driver",
                                          "version", "kernel",   "job timeout", "split", "multipass",
                                          "single",  "triage",   "repro",       "file"};

std::string orDash(const std::string& text) { return text.empty() ? "-" : text; }

// "ok", "zero: job_timeout", "-" when the report has no such mode.
std::string modeCell(const MergedRow& row, std::string_view mode) {
    for (const MergedMode& m : row.modes) {
        if (m.mode == mode) return m.classification + (m.causeKind.empty() ? "" : ": " + m.causeKind);
    }
    return "-";
}

// A row's cells under kHeader; a positive control's "what ran" starts with "control: ".
std::vector<std::string> cells(const MergedRow& row) {
    return {row.outcome,
            (row.control ? "control: " : "") + orDash(row.whatRan),
            orDash(row.device),
            orDash(row.deviceIds),
            orDash(row.driver),
            orDash(row.driverVersion),
            orDash(row.kernel),
            orDash(row.jobTimeout),
            modeCell(row, "split"),
            modeCell(row, "multipass"),
            modeCell(row, "single"),
            orDash(row.conclusionKind),
            orDash(row.reproGit),
            row.file};
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

// The text table's columns: fewer than the other forms' (the driver's name and version,
// the modes in one cell), so that a row reads at 160 columns.
const std::vector<std::string> kTextHeader = {"outcome", "what ran", "device",      "id",
                                              "driver",  "kernel",   "job timeout", "split/multipass/single",
                                              "triage",  "repro",    "file"};

// "ok/zero/zero (job_timeout)": each mode's classification, then the causes' kinds.
std::string modesCell(const MergedRow& row) {
    std::string out, causes;
    for (const std::string_view mode : {"split", "multipass", "single"}) {
        const auto m = std::find_if(row.modes.begin(), row.modes.end(), [&](const auto& x) { return x.mode == mode; });
        out += (out.empty() ? "" : "/") + (m == row.modes.end() ? std::string("-") : m->classification);
        if (m != row.modes.end() && !m->causeKind.empty() && causes.find(m->causeKind) == std::string::npos)
            causes += (causes.empty() ? "" : ",") + m->causeKind;
    }
    return causes.empty() ? out : out + " (" + causes + ")";
}

std::vector<std::string> textCells(const MergedRow& row) {
    const std::string name = row.driver.substr(0, row.driver.find(' '));
    return {row.outcome,
            (row.control ? "control: " : "") + orDash(row.whatRan),
            orDash(row.device),
            orDash(row.deviceIds),
            orDash(name + (row.driverVersion.empty() ? "" : " " + row.driverVersion)),
            orDash(row.kernel),
            orDash(row.jobTimeout),
            modesCell(row),
            orDash(row.conclusionKind),
            orDash(row.reproGit.substr(0, 8)),
            row.file};
}

// The columns' widths: each its widest cell's, then, while the line is wider than
// kMergedTextColumns, the file (never below 24), then the widest of what ran, device,
// kernel, repro and file narrowed by one (never below 12), then the widest but the outcome
// (never below 6). --format csv and markdown keep every cell whole.
std::vector<size_t> fittedWidths(const std::vector<std::vector<std::string>>& table) {
    std::vector<size_t> widths(table.front().size(), 0);
    for (const auto& r : table) {
        for (size_t i = 0; i < r.size(); ++i) widths[i] = std::max(widths[i], r[i].size());
    }
    size_t total = 2 * (widths.size() - 1);
    for (const size_t w : widths) total += w;
    // First the descriptive columns, down to 12; then any but the outcome, down to 6.
    const auto narrow = [&](std::initializer_list<size_t> columns, size_t floor) {
        while (total > kMergedTextColumns) {
            size_t widest = *columns.begin();
            for (const size_t i : columns) widest = widths[i] > widths[widest] ? i : widest;
            if (widths[widest] <= floor) return;
            --widths[widest];
            --total;
        }
    };
    narrow({10}, 24);
    narrow({1, 2, 5, 9, 10}, 12);
    narrow({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 6);
    return widths;
}

// `cell` in `width` bytes: cut with "..." at its end, or at its start for a file's path
// (whose name is at the end).
std::string fitted(const std::string& cell, size_t width, bool keepEnd) {
    if (cell.size() <= width) return cell;
    if (width <= 3) return cell.substr(0, width);
    return keepEnd ? "..." + cell.substr(cell.size() - (width - 3)) : cell.substr(0, width - 3) + "...";
}

std::string renderText(const MergedReports& merged) {
    if (merged.rows.empty()) return "no report merged\n";
    std::vector<std::vector<std::string>> table = {kTextHeader};
    for (const MergedRow& row : merged.rows) {
        std::vector<std::string> c = textCells(row);
        for (std::string& cell : c) cell = escaped(cell);
        table.push_back(std::move(c));
    }
    const std::vector<size_t> widths = fittedWidths(table);
    std::string out;
    for (const auto& r : table) {
        std::string line;
        for (size_t i = 0; i < r.size(); ++i) {
            const bool last = i + 1 == r.size();
            line += fmt::format("{:<{}}", fitted(r[i], widths[i], last), last ? 0 : widths[i] + 2);
        }
        out += fitted(line, kMergedTextColumns, false) + "\n";  // the columns could not narrow enough
    }
    out += "\n";
    for (const std::string& line : groupLines(merged.rows))
        out += fitted(escaped(line), kMergedTextColumns, false) + "\n";
    return out;
}

// One CSV field (RFC 4180): quoted, its quotes doubled, when it holds a comma, a quote, CR
// or LF.
std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string renderCsv(const MergedReports& merged) {
    const std::vector<std::string> header = {
        "outcome",   "exit_status",    "what_ran",  "control",       "device",      "vendor_device",
        "driver",    "driver_version", "driver_id", "kernel",        "job_timeout", "split",
        "multipass", "single",         "triage",    "repro_version", "repro_git",   "file"};
    std::vector<std::vector<std::string>> records = {header};
    for (const MergedRow& row : merged.rows) {
        records.push_back({row.outcome, std::to_string(row.exitStatus), row.whatRan, row.control ? "yes" : "no",
                           row.device, row.deviceIds, row.driver, row.driverVersion, row.driverId, row.kernel,
                           row.jobTimeout, modeCell(row, "split"), modeCell(row, "multipass"), modeCell(row, "single"),
                           row.conclusionKind, row.reproVersion, row.reproGit, row.file});
    }
    std::string out;
    for (const auto& record : records) {
        for (size_t i = 0; i < record.size(); ++i) out += (i == 0 ? "" : ",") + csvField(record[i]);
        out += "\r\n";
    }
    return out;
}

std::string renderMarkdownTable(const MergedReports& merged) {
    if (merged.rows.empty()) return "No report merged.\n";
    std::vector<std::vector<std::string>> rows;
    for (const MergedRow& row : merged.rows) rows.push_back(cells(row));
    // With rows, groupLines is never empty (bulletList's "none" cannot show).
    return markdownTable(kHeader, rows) + "\n" + markdown::bulletList(groupLines(merged.rows));
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
        {"what_ran", row.whatRan},
        {"control", row.control},
        {"vendor_device", nullIfEmpty(row.deviceIds)},
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
        case Format::Csv:
            return renderCsv(merged);
        case Format::Text:
            break;
    }
    return renderText(merged);
}

}  // namespace repro
