// The scenario run's JSON document (scenario_report.hpp; docs/scenarios.md "The JSON report").
#include "report/scenario_report.hpp"

#include <nlohmann/json.hpp>

namespace repro {
namespace {

using nlohmann::json;

template <typename T>
json orNull(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

json modeJson(const ScenarioModeReport& m) {
    return json{{"mode", m.mode},
                {"submits", m.submits},
                {"result", m.result},
                {"detail", orNull(m.detail)},
                {"runs", m.runs},
                {"wrong_runs", m.wrongRuns},
                {"validation_messages", orNull(m.validationMessages)},
                {"gpu_seconds", orNull(m.gpuSeconds)}};
}

json timingsJson(const ScenarioTimings& t) {
    return json{{"instance_and_device", t.instanceAndDevice},
                {"pipelines", t.pipelines},
                {"cpu_model", t.cpuModel},
                {"buffers_and_upload", t.buffersAndUpload},
                {"recording", t.recording},
                {"gpu_wait", t.gpuWait},
                {"readback", t.readback},
                {"verification", t.verification},
                {"total", t.total},
                {"teardown", t.teardown}};
}

json deviceJson(const ScenarioReport& r) {
    if (!r.deviceName) return nullptr;
    return json{{"name", *r.deviceName},
                {"driver_name", orNull(r.driverName)},
                {"driver_info", orNull(r.driverInfo)},
                {"vendor_id", r.vendorId},
                {"device_id", r.deviceId}};
}

json checkStepsJson(const std::optional<ScenarioStepCheckReport>& c) {
    if (!c) return nullptr;
    json first = nullptr;
    if (c->firstWrongStep)
        first = json{{"step", *c->firstWrongStep},
                     {"label", c->firstWrongLabel},
                     {"detail", c->firstWrongDetail},
                     {"run", orNull(c->firstWrongRun)}};
    return json{{"checked", c->checked}, {"wrong", c->wrong},         {"not_checked", c->notChecked},
                {"first_wrong", first},  {"readbacks", c->readbacks}, {"completed", c->completed},
                {"runs", c->runs},       {"wrong_runs", c->wrongRuns}};
}

// The name of mode i of a sweep's or a matrix's rows: the asked modes' (a document published
// while the first row runs has fewer modes than that), else the modes'.
std::optional<std::string> rowMode(const ScenarioReport& r, size_t i) {
    if (i < r.askedModes.size()) return r.askedModes[i];
    if (i < r.modes.size()) return r.modes[i].mode;
    return std::nullopt;
}

// A row's results keyed by mode name (rowMode).
json rowResults(const ScenarioReport& r, const std::vector<std::string>& results) {
    json out = json::object();
    for (size_t i = 0; i < results.size(); ++i) {
        if (const auto mode = rowMode(r, i)) out[*mode] = results[i];
    }
    return out;
}

// The results of a row read back (rowResults' inverse), in the asked modes' order.
std::vector<std::string> readRowResults(const ScenarioReport& r, const json& results) {
    std::vector<std::string> out;
    for (size_t i = 0; const auto mode = rowMode(r, i); ++i) {
        const auto it = results.find(*mode);
        out.push_back(it != results.end() && it->is_string() ? it->get<std::string>() : "not run");
    }
    return out;
}

json sweepJson(const ScenarioReport& r) {
    if (!r.sweep) return nullptr;
    json rows = json::array(), smallest = json::object();
    for (const auto& row : r.sweep->rows)
        rows.push_back(json{{"value", row.value}, {"results", rowResults(r, row.results)}});
    for (size_t i = 0; i < r.sweep->smallestWrong.size(); ++i) {
        if (const auto mode = rowMode(r, i)) smallest[*mode] = orNull(r.sweep->smallestWrong[i]);
    }
    return json{{"parameter", r.sweep->parameter}, {"values", rows}, {"smallest_wrong", smallest}};
}

json matrixJson(const ScenarioReport& r) {
    if (!r.matrix) return nullptr;
    json rows = json::array();
    for (const auto& row : r.matrix->rows) {
        rows.push_back(json{{"label", row.label},
                            {"barrier", orNull(row.barrier)},
                            {"memory", orNull(row.memory)},
                            {"submit_every", orNull(row.submitEvery)},
                            {"work_factor", orNull(row.workFactor)},
                            {"control", row.control},
                            {"results", rowResults(r, row.results)}});
    }
    return json{{"rows", rows}};
}

json triageJson(const ScenarioReport& r) {
    if (!r.triage) return nullptr;
    const ScenarioTriageReport& t = *r.triage;
    json experiments = json::array(), rows = json::array(), hypotheses = json::array();
    for (const auto& e : t.experiments)
        experiments.push_back(
            json{{"hypothesis", e.hypothesis}, {"experiment", e.label}, {"result", e.result}, {"detail", e.detail}});
    for (const auto& row : t.rows)
        rows.push_back(json{{"hypothesis", row.hypothesis},
                            {"experiment", row.experiment},
                            {"outcome", row.outcome},
                            {"points_to", row.pointsTo},
                            {"why", row.why}});
    for (const auto& h : t.hypotheses)
        hypotheses.push_back(
            json{{"hypothesis", h.hypothesis}, {"description", h.description}, {"finding", h.finding}, {"why", h.why}});
    return json{{"failing_mode", t.failingMode.empty() ? json(nullptr) : json(t.failingMode)},
                {"experiments", experiments},
                {"rows", rows},
                {"hypotheses", hypotheses},
                {"conclusion", {{"kind", t.conclusionKind}, {"line", t.conclusionLine}}}};
}

}  // namespace

void readScenarioProgress(const json& document, ScenarioReport& report) {
    if (!document.is_object() || document.value("schema", "") != "repro-scenario-report") return;
    const auto text = [](const json& o, const char* key) -> std::optional<std::string> {
        const auto it = o.find(key);
        return it != o.end() && it->is_string() ? std::optional<std::string>(it->get<std::string>()) : std::nullopt;
    };
    const auto number = [](const json& o, const char* key) -> std::optional<uint64_t> {
        const auto it = o.find(key);
        return it != o.end() && it->is_number_unsigned() ? std::optional<uint64_t>(it->get<uint64_t>()) : std::nullopt;
    };
    const auto word = [&](const json& o, const char* key) -> std::optional<uint32_t> {
        const auto n = number(o, key);
        return n ? std::optional<uint32_t>(static_cast<uint32_t>(*n)) : std::nullopt;
    };
    const auto device = document.find("device");
    if (device != document.end() && device->is_object()) {
        report.deviceName = text(*device, "name");
        report.driverName = text(*device, "driver_name");
        report.driverInfo = text(*device, "driver_info");
        report.vendorId = static_cast<uint32_t>(number(*device, "vendor_id").value_or(0));
        report.deviceId = static_cast<uint32_t>(number(*device, "device_id").value_or(0));
    }
    const auto modes = document.find("modes");
    if (modes == document.end() || !modes->is_array()) return;
    report.modes.clear();
    for (const json& m : *modes) {
        if (!m.is_object()) continue;
        ScenarioModeReport r{.mode = text(m, "mode").value_or(""),
                             .submits = number(m, "submits").value_or(0),
                             .result = text(m, "result").value_or(""),
                             .detail = text(m, "detail"),
                             .runs = static_cast<uint32_t>(number(m, "runs").value_or(0)),
                             .wrongRuns = static_cast<uint32_t>(number(m, "wrong_runs").value_or(0)),
                             .validationMessages = number(m, "validation_messages"),
                             .gpuSeconds = std::nullopt};
        const auto gpu = m.find("gpu_seconds");
        if (gpu != m.end() && gpu->is_number()) r.gpuSeconds = gpu->get<double>();
        report.modes.push_back(std::move(r));
    }
    // --sweep's and --matrix's rows so far (their results in the asked modes' order)
    const auto sweep = document.find("sweep");
    if (sweep != document.end() && sweep->is_object()) {
        ScenarioSweepReport s{.parameter = text(*sweep, "parameter").value_or(""), .rows = {}, .smallestWrong = {}};
        const auto values = sweep->find("values");
        for (const json& row : values != sweep->end() && values->is_array() ? *values : json::array()) {
            if (!row.is_object() || !row.contains("results")) continue;
            s.rows.push_back({.value = static_cast<uint32_t>(number(row, "value").value_or(0)),
                              .results = readRowResults(report, row["results"])});
        }
        const auto smallest = sweep->find("smallest_wrong");
        for (size_t i = 0; const auto mode = rowMode(report, i); ++i) {
            const auto value = smallest != sweep->end() && smallest->is_object() ? number(*smallest, mode->c_str())
                                                                                 : std::optional<uint64_t>();
            s.smallestWrong.push_back(value ? std::optional<uint32_t>(static_cast<uint32_t>(*value)) : std::nullopt);
        }
        report.sweep = std::move(s);
    }
    const auto matrix = document.find("matrix");
    if (matrix != document.end() && matrix->is_object()) {
        ScenarioMatrixReport m;
        const auto rows = matrix->find("rows");
        for (const json& row : rows != matrix->end() && rows->is_array() ? *rows : json::array()) {
            if (!row.is_object() || !row.contains("results")) continue;
            const auto control = row.find("control");
            m.rows.push_back({.label = text(row, "label").value_or(""),
                              .barrier = text(row, "barrier"),
                              .memory = text(row, "memory"),
                              .submitEvery = word(row, "submit_every"),
                              .workFactor = word(row, "work_factor"),
                              .control = control != row.end() && control->is_boolean() && control->get<bool>(),
                              .results = readRowResults(report, row["results"])});
        }
        report.matrix = std::move(m);
    }
}

std::string renderScenarioJson(const ScenarioReport& r) {
    json modes = json::array();
    for (const auto& m : r.modes) modes.push_back(modeJson(m));
    json parameters = json::object();
    for (const auto& [name, value] : r.parameters) parameters[name] = value;
    json chainValues = json::object();
    for (const auto& [name, value] : r.chainValues) chainValues[name] = value;
    const json doc{
        {"schema", "repro-scenario-report"},
        {"schema_version", kScenarioReportSchemaVersion},
        {"repro", {{"version", r.version}, {"git", r.gitHash}}},
        {"command_line", r.commandLine},
        {"scenario",
         {{"name", r.name},
          {"source", r.source},
          {"pattern", r.pattern},
          {"expected", r.expected},
          {"file", r.file},
          {"file_bytes", r.fileBytes},
          {"file_sha256", r.fileSha256},
          {"file_text", r.fileText},
          {"steps", r.steps},
          {"barrier", orNull(r.barrier)},
          {"controls", r.controls},
          {"split_only", r.splitOnly},
          {"chain_values", chainValues},
          {"queues", r.queues},
          {"poisoned", r.poisoned},
          {"parameters", parameters}}},
        {"repeat", r.repeat},
        {"device", deviceJson(r)},
        {"modes", modes},
        {"timings", timingsJson(r.timings)},
        {"check_steps", checkStepsJson(r.checkSteps)},
        {"sweep", sweepJson(r)},
        {"matrix", matrixJson(r)},
        {"triage", triageJson(r)},
        {"validation",
         {{"enabled", r.validation},
          {"errors", r.validationErrors},
          {"warnings", r.validationWarnings},
          {"messages", r.validationMessages}}},
        {"verdict", {{"line", r.verdict}, {"exit_status", r.exitStatus}}},
    };
    return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace repro
