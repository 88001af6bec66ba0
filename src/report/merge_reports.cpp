// --merge-reports: read each regular file -> parse it (every parser error a value) -> check
// the fields the table needs -> one row per document -> sorted, grouped rows -> text,
// Markdown or JSON.
#include "report/merge_reports.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include <array>
#include <limits>
#include <tuple>
#include <utility>

#include "core/bounded_file.hpp"
#include "core/output.hpp"
#include "core/text.hpp"
#include "forensics/environment.hpp"
#include "forensics/watchdog.hpp"
#include "report/report_render.hpp"
#include "report/verdict.hpp"

namespace repro {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 3> kModeNames = {"split", "multipass", "single"};

// The value at `key` of `object`; null when absent or `object` is no object.
const json& objectAt(const json& object, std::string_view key) {
    static const json kNull;
    if (!object.is_object()) return kNull;
    const auto it = object.find(key);
    return it != object.end() ? *it : kNull;
}

// The string at `key` of `object`; empty when absent or not a string.
std::string textAt(const json& object, std::string_view key) {
    const json& value = objectAt(object, key);
    return value.is_string() ? value.get<std::string>() : std::string{};
}

// The integer at `key` of `object`; nullopt when absent or not an integer.
std::optional<int64_t> integerAt(const json& object, std::string_view key) {
    const json& value = objectAt(object, key);
    return value.is_number_integer() ? std::optional(value.get<int64_t>()) : std::nullopt;
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

// "chain tiny N=2 --barrier sync2", "kompute-196@52b49c9f": what a run report ran.
std::string whatRan(const RunReport& report, const std::string& scenario) {
    std::string out = !scenario.empty()                                     ? scenario
                      : !report.preset.empty() && report.preset != "custom" ? "chain " + report.preset
                                                                            : "chain " + describe(report.shape);
    if (scenario.empty()) out += fmt::format(" N={}", report.chainLength);  // a file's steps are its own
    for (const std::string& change : report.experiment.changes) out += " " + change;
    return out;
}

MergedRow runRow(const json& document) {
    const RunReport report = parseReport(document);
    MergedRow row;
    row.document = "repro-report";
    row.exitStatus = report.verdict.exitStatus;
    row.verdictKind = textAt(objectAt(document, "verdict"), "kind");
    if (report.device) {
        row.device = report.device->deviceName;
        row.driver =
            report.device->driverName + (report.device->driverInfo.empty() ? "" : " " + report.device->driverInfo);
        row.driverVersion = report.device->driverVersion;
        row.driverId = report.device->driverId;
        row.deviceIds = fmt::format("{:04x}:{:04x}", report.device->vendorId, report.device->deviceId);
    }
    if (const std::string* kernel = factValue(report.environment.host, "kernel.release")) row.kernel = *kernel;
    setJobTimeout(report, row);
    row.chainLength = report.chainLength;
    for (const ModeReport& m : report.modes) {
        row.modes.push_back({std::string(name(m.result.mode)), std::string(name(m.result.kind)), m.result.causeKind});
    }
    row.reproVersion = report.version;
    row.reproGit = report.gitHash;
    if (report.scenario) row.scenario = report.scenario->name + "@" + report.scenario->fileSha256.substr(0, 8);
    row.whatRan = whatRan(report, row.scenario);
    row.control = report.experiment.control;
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
    row.whatRan = fmt::format("triage chain N={}", row.chainLength);
    row.conclusionKind = textAt(objectAt(document, "conclusion"), "kind");
    row.conclusionLine = textAt(objectAt(document, "conclusion"), "line");
    row.reproVersion = textAt(objectAt(document, "repro"), "version");
    row.reproGit = textAt(objectAt(document, "repro"), "git");
    return row;
}

// The group an outcome sorts into: the bug's symptoms first, a control's reproduction after
// every verdict on a driver.
int groupRank(const std::string& outcome) {
    constexpr std::array<std::string_view, 6> order = {"reproduced", "hang",        "not reproduced",
                                                       "validation", "cannot test", "control caught"};
    const auto it = std::find(order.begin(), order.end(), outcome);
    return static_cast<int>(it - order.begin());
}

// ---------------------------------------------------------------- reading a file

constexpr uint64_t kReadLimit = uint64_t{64} << 20;

// The bytes of `path` when it is a regular file of at most kReadLimit bytes (core/bounded_file.hpp:
// never blocking on a FIFO); else nullopt with `problem` set. `identity` gets the file's device
// and inode as soon as they are known (for a duplicate).
std::optional<std::string> readReportFile(const std::string& path, std::string& problem,
                                          std::optional<std::pair<dev_t, ino_t>>& identity) {
    BoundedRead read = readRegularFile(path, kReadLimit);
    identity = read.identity;
    if (read.problem.empty()) return std::move(read.bytes);
    problem = read.tooLarge ? std::string("too large to be a report (over 64 MiB)")
                            : fmt::format("cannot read ({})", read.directory ? "a directory" : read.problem);
    return std::nullopt;
}

// ---------------------------------------------------------------- parsing

constexpr size_t kMaxDepth = 512;

// The DOM of a document, built from nlohmann's SAX events so that every error the parser
// finds (a syntax error, a number beyond a double's range) comes back as a value with its
// byte, and nesting is bounded.
class DomBuilder : public nlohmann::json_sax<json> {
  public:
    explicit DomBuilder(json& root) : root_(root) {}

    bool null() override { return add(nullptr) != nullptr; }
    bool boolean(bool v) override { return add(v) != nullptr; }
    bool number_integer(number_integer_t v) override { return add(v) != nullptr; }
    bool number_unsigned(number_unsigned_t v) override { return add(v) != nullptr; }
    bool number_float(number_float_t v, const string_t& /*text*/) override { return add(v) != nullptr; }
    bool string(string_t& v) override { return add(std::move(v)) != nullptr; }
    bool binary(binary_t& v) override { return add(json::binary(std::move(v))) != nullptr; }
    bool start_object(std::size_t /*elements*/) override { return open(json::object()); }
    bool key(string_t& k) override {
        key_ = std::move(k);
        return true;
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t /*elements*/) override { return open(json::array()); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t position, const std::string& /*token*/, const json::exception& e) override {
        problem_ = e.id == 406 ? fmt::format("not JSON (a number out of range at byte {})", position)
                               : fmt::format("not JSON (a syntax error at byte {})", position);
        return false;
    }

    const std::string& problem() const { return problem_; }

  private:
    json* add(json value) {
        if (stack_.empty()) {
            root_ = std::move(value);
            return &root_;
        }
        json& parent = *stack_.back();
        if (parent.is_array()) {
            parent.push_back(std::move(value));
            return &parent.back();
        }
        json& slot = parent[key_];
        slot = std::move(value);
        return &slot;
    }
    bool open(json container) {
        if (stack_.size() >= kMaxDepth) {
            problem_ = fmt::format("not JSON for a report (nested deeper than {} levels)", kMaxDepth);
            return false;
        }
        stack_.push_back(add(std::move(container)));
        return true;
    }
    bool close() {
        if (!stack_.empty()) stack_.pop_back();
        return true;
    }

    json& root_;
    std::vector<json*> stack_;  // the open containers, outermost first
    std::string key_;
    std::string problem_;
};

// ---------------------------------------------------------------- the fields the table needs

// The first field of a document that the table needs and that is missing or of another type
// than docs/report.schema.json gives it, as "PATH: why"; each check does nothing once one
// failed.
class FieldCheck {
  public:
    // `prefix` goes before every path in the problem ("modes[1].").
    explicit FieldCheck(const json& document, std::string prefix = {})
        : document_(document), prefix_(std::move(prefix)) {}

    const std::string& problem() const { return problem_; }

    // The value at `path` (names joined by '.'); nullptr, with the problem set, when it is
    // missing or not an object on the way.
    const json* at(std::string_view path) {
        if (!problem_.empty()) return nullptr;
        const json* node = &document_;
        for (const std::string_view key : split(path, '.')) {
            if (!node->is_object() || !node->contains(key)) {
                fail(path, "missing");
                return nullptr;
            }
            node = &(*node)[key];
        }
        return node;
    }
    void string(std::string_view path) { kind(path, at(path), json::value_t::string, "a string"); }
    void object(std::string_view path) { kind(path, at(path), json::value_t::object, "an object"); }
    void array(std::string_view path) { kind(path, at(path), json::value_t::array, "an array"); }
    void boolean(std::string_view path) { kind(path, at(path), json::value_t::boolean, "true or false"); }
    void strings(std::initializer_list<std::string_view> paths) {
        for (const std::string_view path : paths) string(path);
    }
    // Whether the value at `path` is an object; null passes too, anything else fails.
    bool objectOrNull(std::string_view path) {
        const json* v = at(path);
        if (v && !v->is_object() && !v->is_null()) fail(path, "not an object or null");
        return v && v->is_object();
    }
    void stringOrNull(std::string_view path) {
        if (const json* v = at(path); v && !v->is_string() && !v->is_null()) fail(path, "not a string or null");
    }
    // An integer in [minimum, maximum].
    void integer(std::string_view path, int64_t minimum, int64_t maximum) {
        const json* v = at(path);
        if (!v) return;
        if (!v->is_number_integer()) {
            fail(path, "not an integer");
        } else if (v->is_number_unsigned() ? v->get<uint64_t>() > static_cast<uint64_t>(maximum)
                                           : v->get<int64_t>() < minimum || v->get<int64_t>() > maximum) {
            fail(path, fmt::format("{} is outside {} to {}", v->dump(), minimum, maximum));
        }
    }
    // One of `values` (strings, or integers).
    template <typename T, size_t N>
    void oneOf(std::string_view path, const std::array<T, N>& values) {
        const json* v = at(path);
        if (!v) return;
        if (std::find(values.begin(), values.end(), *v) == values.end())
            fail(path, fmt::format("{} is not a value the schema knows", escaped(v->dump())));
    }
    void fail(std::string_view path, std::string_view why) {
        if (problem_.empty()) problem_ = fmt::format("{}{}: {}", prefix_, path, why);
    }
    // Another check's problem, as this one's.
    void adopt(const std::string& problem) {
        if (problem_.empty()) problem_ = problem;
    }

  private:
    void kind(std::string_view path, const json* v, json::value_t type, const char* what) {
        if (v && v->type() != type) fail(path, fmt::format("not {}", what));
    }

    const json& document_;
    std::string prefix_;
    std::string problem_;
};

constexpr std::array<std::string_view, 9> kClassifications = {
    "ok", "zero", "mismatch", "nonfinite", "unwritten", "hang", "not run", "inconclusive", "killed"};
constexpr std::array<int, 8> kExitStatuses = {0, 1, 2, 3, 4, 125, 130, 143};
constexpr std::array<std::string_view, 8> kVerdictKinds = {
    "not_reproduced", "reproduced", "hang", "validation", "cannot_test", "control_caught", "interrupted", "usage"};

// The run report's device: null, or an object with the names and ids the table reads.
void checkDevice(FieldCheck& c) {
    if (c.objectOrNull("device")) {
        c.strings({"device.device_name", "device.driver_name", "device.driver_info", "device.driver_version"});
        c.stringOrNull("device.driver_id");
        c.integer("device.vendor_id", 0, UINT32_MAX);
        c.integer("device.device_id", 0, UINT32_MAX);
    }
}

// Each mode: an object with a known mode and classification, its cause an object or null.
void checkModes(FieldCheck& c, const json& d) {
    c.array("modes");
    if (!c.problem().empty()) return;
    const json& modes = d["modes"];
    for (size_t i = 0; i < modes.size() && c.problem().empty(); ++i) {
        if (!modes[i].is_object()) {
            c.fail(fmt::format("modes[{}]", i), "not an object");
            return;
        }
        FieldCheck m(modes[i], fmt::format("modes[{}].", i));
        m.oneOf("mode", kModeNames);
        m.oneOf("classification", kClassifications);
        if (modes[i].contains("cause") && !modes[i]["cause"].is_object() && !modes[i]["cause"].is_null())
            m.fail("cause", "not an object or null");
        c.adopt(m.problem());
    }
}

// Version 3's own fields: verdict.kind, one its exit status gives (under a control or not),
// the experiment's control flag, and the scenario section (null, or its name, file and hash).
void checkVersionThree(FieldCheck& c, const json& d) {
    c.oneOf("verdict.kind", kVerdictKinds);
    if (c.problem().empty()) {
        const int status = d["verdict"]["exit_status"].get<int>();
        const std::string kind = d["verdict"]["kind"].get<std::string>();
        if (kind != name(verdictKind(status, false)) && kind != name(verdictKind(status, true)))
            c.fail("verdict.kind", fmt::format("'{}' is not what exit status {} says", kind, status));
    }
    c.boolean("experiment.control");
    if (c.objectOrNull("scenario")) c.strings({"scenario.name", "scenario.file", "scenario.file_sha256"});
}

// Where a run report of `version` lacks a field the table reads, or holds it with another
// type; "" when it has them all.
std::string runReportProblem(const json& d, int64_t version) {
    FieldCheck c(d);
    c.strings({"repro.version", "repro.git"});
    c.object("environment.host");
    c.object("environment.kernel_driver");
    c.array("environment.drm_cards");
    checkDevice(c);
    c.integer("chain_length", 0, UINT32_MAX);
    checkModes(c, d);
    c.oneOf("verdict.exit_status", kExitStatuses);
    c.array("verdict.lines");
    if (version >= 3) checkVersionThree(c, d);
    return c.problem();
}

// Where a triage document lacks a field the table reads, or holds it with another type.
std::string triageProblem(const json& d) {
    FieldCheck c(d);
    c.strings({"repro.version", "repro.git", "device.name", "device.driver", "device.driver_id"});
    c.integer("chain_length", 1, UINT32_MAX);
    c.strings({"baseline.detail", "baseline.failing_mode", "baseline.cause_kind"});
    if (c.objectOrNull("probe")) {
        const json& probe = d["probe"];
        if (probe.contains("timeout_seconds") && !probe["timeout_seconds"].is_number() &&
            !probe["timeout_seconds"].is_null())
            c.fail("probe.timeout_seconds", "not a number or null");
    }
    c.strings({"conclusion.kind", "conclusion.line"});
    c.integer("exit_status", 0, 255);
    return c.problem();
}

}  // namespace

std::string outcomeName(int exitStatus) {
    static constexpr std::pair<int, std::string_view> kNames[] = {
        {kExitReproduced, "reproduced"},        {kExitHang, "hang"},
        {kExitNotReproduced, "not reproduced"}, {kExitValidation, "validation"},
        {kExitCannotTest, "cannot test"},       {kExitUsage, "usage error"}};
    for (const auto& [status, word] : kNames) {
        if (status == exitStatus) return std::string(word);
    }
    if (exitStatus == 130 || exitStatus == 143) return "interrupted";
    return fmt::format("exit {}", exitStatus);
}

std::optional<MergedRow> mergedRow(const json& document, const std::string& file, std::string& problem) {
    const std::string schema = textAt(document, "schema");
    const bool run = schema == "repro-report", triage = schema == "repro-triage";
    if (schema == "repro-scenario-report") {
        problem = "not merged: a repro-scenario-report (an old scenario document; rerun with this version)";
        return std::nullopt;
    }
    if (!run && !triage) {
        problem = !document.is_object() ? "not a repro report (the JSON is not an object)"
                  : schema.empty()      ? "not a repro report (no \"schema\" property)"
                                        : fmt::format("not a run report or triage document (schema {})", quote(schema));
        return std::nullopt;
    }
    const auto version = integerAt(document, "schema_version");
    const int newest = run ? kReportSchemaVersion : kNewestTriageSchemaRead;
    if (!version || *version < 1) {
        problem = fmt::format("not a repro report ({} without a schema_version of 1 or more)", schema);
        return std::nullopt;
    }
    if (*version > newest) {
        problem = fmt::format("{} schema_version {} is newer than this repro reads (1 to {}); merge with a newer repro",
                              schema, *version, newest);
        return std::nullopt;
    }
    if (const std::string why = run ? runReportProblem(document, *version) : triageProblem(document); !why.empty()) {
        problem = fmt::format("not merged: an invalid {} ({})", schema, why);
        return std::nullopt;
    }
    try {
        MergedRow row = run ? runRow(document) : triageRow(document);
        row.file = file;
        row.schemaVersion = static_cast<int>(*version);
        row.outcome = row.verdictKind == "control_caught" ? "control caught" : outcomeName(row.exitStatus);
        return row;
    } catch (const std::exception& e) {  // not expected: the fields were checked above
        problem = fmt::format("not a repro report ({})", escaped(e.what()));
        return std::nullopt;
    }
}

std::optional<json> parseMergedJson(const std::string& text, std::string& problem) {
    json document;
    DomBuilder builder(document);
    try {
        if (json::sax_parse(text, &builder, json::input_format_t::json, /*strict=*/true)) return document;
        problem = builder.problem().empty() ? std::string("not JSON") : builder.problem();
    } catch (const json::exception& e) {  // not expected: the SAX interface reports errors
        problem = fmt::format("not JSON ({})", escaped(e.what()));
    } catch (const std::bad_alloc&) {
        problem = "not JSON (out of memory while parsing it)";
    }
    return std::nullopt;
}

MergedReports mergeReportFiles(const std::vector<std::string>& files) {
    MergedReports merged;
    std::vector<std::pair<std::pair<dev_t, ino_t>, std::string>> seen;  // each file's identity, its first path
    for (const std::string& file : files) {
        std::string problem;
        std::optional<std::pair<dev_t, ino_t>> identity;
        const std::optional<std::string> read = readReportFile(file, problem, identity);
        if (identity) {
            const auto same =
                std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == *identity; });
            if (same != seen.end()) {
                merged.duplicates.push_back({file, same->second});
                continue;
            }
            seen.emplace_back(*identity, file);
        }
        if (read) {
            if (const std::optional<json> document = parseMergedJson(*read, problem)) {
                if (auto row = mergedRow(*document, file, problem)) {
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
        const int ga = groupRank(a.outcome), gb = groupRank(b.outcome);
        return std::tie(ga, a.exitStatus, a.outcome, a.device, a.driver, a.driverVersion, a.kernel, a.file) <
               std::tie(gb, b.exitStatus, b.outcome, b.device, b.driver, b.driverVersion, b.kernel, b.file);
    });
}

int runMergeReports(const std::vector<std::string>& files, Format format) {
    const MergedReports merged = mergeReportFiles(files);
    for (const MergeProblem& p : merged.problems) sayError("repro: --merge-reports: {}: {}", quote(p.file), p.problem);
    for (const MergeDuplicate& d : merged.duplicates)
        sayError("repro: --merge-reports: {}: the same file as {}, merged once", quote(d.file), quote(d.sameAs));
    writeText(stdout, renderMerged(merged, format));
    if (writeFailed()) {
        sayError("repro: the merged table could not be written to {}", failedStream());
        return kExitUsage;
    }
    return merged.problems.empty() ? kExitNotReproduced : kExitUsage;
}

}  // namespace repro
