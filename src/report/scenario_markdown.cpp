// The scenario run's Markdown report and its rerun command (scenario_report.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <span>
#include <string_view>

#include "report/markdown.hpp"
#include "report/scenario_report.hpp"

namespace repro {
namespace {

namespace md = repro::markdown;

// The verdict line's headline: "BUG REPRODUCED" from "--- BUG REPRODUCED: ...".
std::string headline(const std::string& verdict) {
    std::string h = verdict.rfind("--- ", 0) == 0 ? verdict.substr(4) : verdict;
    const size_t colon = h.find(':');
    return colon == std::string::npos ? h : h.substr(0, colon);
}

std::string modesTable(const ScenarioReport& r) {
    md::Table t{.header = {"mode", "submits", "result", "runs", "wrong runs", "GPU time", "detail"}, .rows = {}};
    for (const ScenarioModeReport& m : r.modes) {
        t.rows.push_back({md::codeSpan(m.mode), std::to_string(m.submits), md::escapeText(m.result),
                          std::to_string(m.runs), std::to_string(m.wrongRuns),
                          m.gpuSeconds ? fmt::format("{:.3f} ms", *m.gpuSeconds * 1e3) : "not measured",
                          m.detail ? md::escapeText(*m.detail) : ""});
    }
    return t.render();
}

// --matrix: one row per variant (barrier encoding, memory placement), a column per mode.
std::string matrixTable(const ScenarioReport& r) {
    md::Table t{.header = {"row"}, .rows = {}};
    for (const ScenarioModeReport& m : r.modes) t.header.push_back(m.mode);
    for (const auto& row : r.matrix->rows) {
        std::vector<std::string> cells = {md::escapeText(row.label + (row.control ? " (control)" : ""))};
        for (size_t i = 0; i < r.modes.size(); ++i) cells.push_back(i < row.results.size() ? row.results[i] : "");
        t.rows.push_back(std::move(cells));
    }
    return t.render();
}

// --triage: hypothesis -> experiment -> outcome -> points to, then the conclusion.
std::string triageTable(const ScenarioReport& r) {
    md::Table t{.header = {"", "experiment", "outcome", "points to", "why"}, .rows = {}};
    for (const auto& row : r.triage->rows)
        t.rows.push_back({row.hypothesis, md::escapeText(row.experiment), md::escapeText(row.outcome), row.pointsTo,
                          md::escapeText(row.why)});
    return t.render() + "\n" + md::escapeText(r.triage->conclusionLine) + "\n";
}

std::string factsTable(const ScenarioReport& r) {
    md::Table t{.header = {"", ""}, .rows = {}};
    t.rows.push_back({"scenario", md::codeSpan(r.name) + ": " + md::escapeText(r.pattern)});
    t.rows.push_back({"source", md::escapeText(r.source)});
    t.rows.push_back({"expected on a correct driver", md::escapeText(r.expected)});
    t.rows.push_back({"device", r.deviceName ? md::codeSpan(*r.deviceName) +
                                                   (r.driverInfo ? " (" + md::codeSpan(*r.driverInfo) + ")" : "")
                                             : "none chosen"});
    t.rows.push_back({"repro", md::codeSpan(r.version + " (" + r.gitHash + ")")});
    std::string command;
    for (const std::string& a : r.commandLine) command += (command.empty() ? "" : " ") + a;
    t.rows.push_back({"command", md::codeSpan(command)});
    std::string references;
    for (const auto& [buffer, value] : r.chainValues)
        references += fmt::format("{}{} (the chain's {}): within the CPU chain's float32 tolerance",
                                  references.empty() ? "" : "; ", md::codeSpan(buffer), md::escapeText(value));
    for (const std::string& buffer : r.splitOnly)
        references += fmt::format("{}{}: split only", references.empty() ? "" : "; ", md::codeSpan(buffer));
    if (!references.empty()) t.rows.push_back({"checked buffers", references});
    t.rows.push_back(
        {"steps", std::to_string(r.steps) +
                      (r.barrier ? ", every barrier replaced by " + md::codeSpan(*r.barrier) : "") +
                      (r.controls ? "; " + (r.controlSteps.empty() ? std::string("a step") : r.controlSteps) +
                                        " is labelled a control (insufficient on purpose)"
                                  : "")});
    if (r.validation)
        t.rows.push_back({"validation", fmt::format("{} errors, {} warnings (synchronization validation on)",
                                                    r.validationErrors, r.validationWarnings)});
    const ScenarioTimings& s = r.timings;
    t.rows.push_back(
        {"timings (s)", fmt::format("total {:.3f}: instance and device {:.3f}, GPU wait {:.3f}, "
                                    "recording {:.3f}, readback {:.3f}; teardown {:.3f}",
                                    s.total, s.instanceAndDevice, s.gpuWait, s.recording, s.readback, s.teardown)});
    return t.render();
}

// The file in a collapsed block, with what to save it as and the command that reruns it.
std::string rerunBlock(const ScenarioReport& r) {
    const std::string base = std::filesystem::path(r.file).filename().string();
    std::string body = fmt::format("Save this as {} ({} bytes, SHA-256 {}) and run {}\n\n", md::codeSpan(base),
                                   r.fileBytes, md::codeSpan(r.fileSha256), md::codeSpan(rerunCommand(r)));
    body += md::codeBlock(r.fileText, "toml");
    return md::details(fmt::format("The scenario file, to rerun it: {}", base), body);
}

}  // namespace

std::string rerunCommand(const ScenarioReport& r) {
    static constexpr std::string_view withValue[] = {"--mode",         "--barrier", "--repeat", "--reference",
                                                     "--submit-every", "--sweep",   "--timeout"};
    static constexpr std::string_view flags[] = {"--validation", "--matrix",      "--triage",
                                                 "--poison",     "--check-steps", "--timestamps"};
    const auto among = [](std::string_view name, std::span<const std::string_view> names) {
        return std::find(names.begin(), names.end(), name) != names.end();
    };
    std::string command = "repro --scenario " + std::filesystem::path(r.file).filename().string();
    for (size_t i = 1; i < r.commandLine.size(); ++i) {
        const std::string& arg = r.commandLine[i];
        const std::string name = arg.substr(0, arg.find('='));
        if (among(name, withValue)) {
            if (name != arg) {
                command += " " + arg;
            } else if (i + 1 < r.commandLine.size()) {
                command += " " + arg + " " + r.commandLine[++i];
            }
        } else if (among(arg, flags)) {
            command += " " + arg;
        }
    }
    return command;
}

std::string renderScenarioMarkdown(const ScenarioReport& r) {
    std::string out =
        fmt::format("### repro scenario {}: {}\n\n", md::codeSpan(r.name), md::escapeText(headline(r.verdict)));
    out += md::codeBlock(r.verdict + fmt::format("\nexit status {}", r.exitStatus), "text") + "\n";
    out += factsTable(r) + "\n";
    out += r.modes.empty() ? "No mode's results: the run ended before one was recorded (a driver that crashed or "
                             "stalled; the text output has what finished).\n\n"
                           : modesTable(r) + "\n";
    if (r.matrix) out += matrixTable(r) + "\n";
    if (r.triage) out += triageTable(r) + "\n";
    if (!r.validationMessages.empty()) {
        const size_t shown = std::min<size_t>(r.validationMessages.size(), 20);
        std::vector<std::string> first(r.validationMessages.begin(), r.validationMessages.begin() + shown);
        out += md::details(fmt::format("Validation messages ({} of {})", shown, r.validationMessages.size()),
                           md::bulletList(first)) +
               "\n";
    }
    out += rerunBlock(r);
    return out;
}

}  // namespace repro
