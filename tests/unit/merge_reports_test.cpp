// --merge-reports (report/merge_reports.hpp): rows from run reports, triage and scenario documents,
// the problems of bad files, the grouping, the three renderings, and the command line.
#include "report/merge_reports.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/options.hpp"
#include "report/report_render.hpp"
#include "report/scenario_report.hpp"
#include "temp_folder.hpp"

namespace repro {
namespace {

using nlohmann::json;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

ModeReport mode(Mode m, Classification kind, std::string causeKind = {}) {
    ModeReport r;
    r.result.mode = m;
    r.result.kind = kind;
    if (!causeKind.empty()) r.result.causeJson = nlohmann::json{{"kind", causeKind}}.dump();
    r.result.causeKind = std::move(causeKind);
    r.role = "under test";
    return r;
}

// A RADV run on amdgpu (Linux 6.8, lockup_timeout 10000: the gfx ring's 10 s, read) in
// which single was killed by the job timeout.
RunReport radvReport(int exitStatus = kExitReproduced) {
    RunReport r;
    r.version = "0.1.0";
    r.gitHash = "abc123456789";
    r.environment.host = {{"kernel.release", "6.8.0-45-generic"}};
    r.environment.kernelDriver = {{"amdgpu.lockup_timeout", "10000"},
                                  {"card0", "pci 0000:03:00.0, vendor 0x1002, device 0x73bf, driver amdgpu"}};
    r.environment.drmCards.push_back(DrmCard{
        .name = "card0", .pciSlot = "0000:03:00.0", .vendorId = 0x1002, .deviceId = 0x73bf, .driver = "amdgpu"});
    DeviceReport d;
    d.deviceName = "AMD Radeon 890M (RADV GFX1150)";
    d.deviceType = "INTEGRATED_GPU";
    d.driverVersion = "26.0.2";
    d.vendorId = 0x1002;
    d.deviceId = 0x73bf;
    d.driverId = "DRIVER_ID_MESA_RADV";
    d.driverName = "radv";
    d.driverInfo = "Mesa 26.0.2";
    d.pciBus = "0000:03:00.0";
    d.queueFlags = "GRAPHICS|COMPUTE|TRANSFER";
    r.device = d;
    r.chainLength = 6;
    r.modes = {mode(Mode::Split, Classification::Ok), mode(Mode::Multipass, Classification::Ok),
               mode(Mode::Single, Classification::Killed, "job_timeout")};
    r.verdict.exitStatus = exitStatus;
    return r;
}

// lavapipe (a CPU device: no job timeout) where every mode was correct.
RunReport lavapipeReport() {
    RunReport r;
    r.version = "0.1.0";
    r.gitHash = "def456";
    r.environment.host = {{"kernel.release", "6.1.0-18-amd64"}};
    DeviceReport d;
    d.deviceName = "llvmpipe (LLVM 15.0.6, 256 bits)";
    d.deviceType = "CPU";
    d.driverVersion = "22.3.6";
    d.driverName = "llvmpipe";
    d.driverInfo = "Mesa 22.3.6 (LLVM 15.0.6)";
    r.device = d;
    r.chainLength = 2;
    r.modes = {mode(Mode::Split, Classification::Ok), mode(Mode::Multipass, Classification::Ok),
               mode(Mode::Single, Classification::Ok)};
    r.verdict.exitStatus = kExitNotReproduced;
    return r;
}

// A triage document as docs/report-schema.md "The triage document" describes it.
json triageDoc() {
    return {
        {"schema", "repro-triage"},
        {"schema_version", 1},
        {"repro", {{"version", "0.1.0"}, {"git", "0123abcd"}}},
        {"command_line", {"repro", "--triage", "-n", "7"}},
        {"device",
         {{"name", "AMD Radeon RX 6800 (RADV NAVI21)"}, {"driver", "radv Mesa 24.0.5"}, {"driver_id", "MESA_RADV"}}},
        {"chain_length", 7},
        {"baseline",
         {{"result", "wrong"},
          {"detail", "split ok, multipass zero, single not run (exit 2)"},
          {"failing_mode", "multipass"},
          {"cause_kind", "synchronization"},
          {"cause_verdict", "cause: synchronization"}}},
        {"probe", {{"result", "soft kill"}, {"timeout_seconds", 2.0}, {"timeout_source", "read"}}},
        {"conclusion", {{"kind", "synchronization"}, {"line", "conclusion: a synchronization bug"}}},
        {"exit_status", 2}};
}

std::optional<MergedRow> rowOf(const json& document, std::string& problem) {
    return mergedRow(document, "report.json", problem);
}

TEST(MergeReports, RunReportRowHasDeviceDriverKernelTimeoutModesAndCommit) {
    std::string problem;
    const auto row = rowOf(renderJson(radvReport()), problem);
    ASSERT_TRUE(row) << problem;
    EXPECT_EQ(row->document, "repro-report");
    EXPECT_EQ(row->schemaVersion, kReportSchemaVersion);
    EXPECT_EQ(row->outcome, "reproduced");
    EXPECT_EQ(row->device, "AMD Radeon 890M (RADV GFX1150)");
    EXPECT_EQ(row->driver, "radv Mesa 26.0.2");
    EXPECT_EQ(row->driverVersion, "26.0.2");
    EXPECT_EQ(row->kernel, "6.8.0-45-generic");
    EXPECT_EQ(row->jobTimeoutSeconds, 10.0);
    EXPECT_EQ(row->jobTimeout, "10 s");
    EXPECT_EQ(row->chainLength, 6u);
    ASSERT_EQ(row->modes.size(), 3u);
    EXPECT_EQ(row->modes[2].mode, "single");
    EXPECT_EQ(row->modes[2].classification, "killed");
    EXPECT_EQ(row->modes[2].causeKind, "job_timeout");
    EXPECT_EQ(row->modes[0].causeKind, "");
    EXPECT_EQ(row->reproGit, "abc123456789");
    EXPECT_EQ(row->file, "report.json");
    EXPECT_TRUE(row->conclusionKind.empty());
}

TEST(MergeReports, CpuDeviceHasNoJobTimeout) {
    std::string problem;
    const auto row = rowOf(renderJson(lavapipeReport()), problem);
    ASSERT_TRUE(row) << problem;
    EXPECT_EQ(row->jobTimeout, "none");
    EXPECT_FALSE(row->jobTimeoutSeconds);
    EXPECT_EQ(row->outcome, "not reproduced");
}

TEST(MergeReports, SchemaVersionOneRunReportIsRead) {
    json document = renderJson(lavapipeReport());
    document["schema_version"] = 1;
    std::string problem;
    const auto row = rowOf(document, problem);
    ASSERT_TRUE(row) << problem;
    EXPECT_EQ(row->schemaVersion, 1);
}

TEST(MergeReports, TriageRowHasConclusionBaselineModesAndProbeTimeout) {
    std::string problem;
    const auto row = rowOf(triageDoc(), problem);
    ASSERT_TRUE(row) << problem;
    EXPECT_EQ(row->document, "repro-triage");
    EXPECT_EQ(row->outcome, "reproduced");
    EXPECT_EQ(row->device, "AMD Radeon RX 6800 (RADV NAVI21)");
    EXPECT_EQ(row->driver, "radv Mesa 24.0.5");
    EXPECT_EQ(row->driverId, "MESA_RADV");
    EXPECT_EQ(row->kernel, "");
    EXPECT_EQ(row->jobTimeoutSeconds, 2.0);
    EXPECT_EQ(row->jobTimeout, "2 s");
    EXPECT_EQ(row->chainLength, 7u);
    ASSERT_EQ(row->modes.size(), 3u);
    EXPECT_EQ(row->modes[0].classification, "ok");
    EXPECT_EQ(row->modes[1].classification, "zero");
    EXPECT_EQ(row->modes[1].causeKind, "synchronization");
    EXPECT_EQ(row->modes[2].classification, "not run");
    EXPECT_EQ(row->modes[2].causeKind, "");
    EXPECT_EQ(row->conclusionKind, "synchronization");
    EXPECT_EQ(row->conclusionLine, "conclusion: a synchronization bug");
    EXPECT_EQ(row->reproGit, "0123abcd");
}

TEST(MergeReports, TriageWithoutProbeOrDetailKeepsWhatItHas) {
    json document = triageDoc();
    document["probe"] = nullptr;
    document["baseline"] = 5;  // a wrong type is "not held", never a throw
    std::string problem;
    const auto row = rowOf(document, problem);
    ASSERT_TRUE(row) << problem;
    EXPECT_EQ(row->jobTimeout, "");
    EXPECT_TRUE(row->modes.empty());
}

MergedReports sample();

// A scenario document as renderScenarioJson writes it: the kompute-196 file reproduced on
// RADV (multipass and single wrong).
json scenarioDocument() {
    ScenarioReport r;
    r.version = "0.1.0";
    r.gitHash = "abc123456789";
    r.name = "kompute-196-increment-chain";
    r.fileSha256 = "52b49c9fb342e0d43855a4667eaf40faba94b0687d7aab828bcace9339bd1010";
    r.deviceName = "AMD Radeon 890M (RADV GFX1150)";
    r.driverName = "radv";
    r.driverInfo = "Mesa 26.0.2";
    for (const char* m : {"split", "multipass", "single"})
        r.modes.push_back({.mode = m, .result = std::string(m) == "split" ? "ok" : "mismatch"});
    r.verdict = "--- BUG REPRODUCED: mode multipass is wrong: ...";
    r.exitStatus = kExitReproduced;
    return json::parse(renderScenarioJson(r));
}

TEST(MergeReports, ScenarioRowHasTheScenarioDeviceDriverAndModes) {
    std::string problem;
    const auto row = mergedRow(scenarioDocument(), "s.json", problem);
    ASSERT_TRUE(row) << problem;
    EXPECT_EQ(row->document, "repro-scenario-report");
    EXPECT_EQ(row->exitStatus, kExitReproduced);
    EXPECT_EQ(row->outcome, "reproduced");
    EXPECT_EQ(row->scenario, "kompute-196-increment-chain@52b49c9fb342");
    EXPECT_EQ(row->device, "AMD Radeon 890M (RADV GFX1150)");
    EXPECT_EQ(row->driver, "radv Mesa 26.0.2");
    ASSERT_EQ(row->modes.size(), 3u);
    EXPECT_EQ(row->modes[1].mode, "multipass");
    EXPECT_EQ(row->modes[1].classification, "mismatch");
    EXPECT_EQ(row->reproGit, "abc123456789");
}

// What a supervisor reads back from a scenario child's published document after a crash.
TEST(ScenarioProgress, ReadsBackTheDeviceAndTheModesOfAScenarioDocumentOnly) {
    ScenarioReport back;
    readScenarioProgress(scenarioDocument(), back);
    EXPECT_EQ(back.deviceName, "AMD Radeon 890M (RADV GFX1150)");
    EXPECT_EQ(back.driverName, "radv");
    ASSERT_EQ(back.modes.size(), 3u);
    EXPECT_EQ(back.modes[0].result, "ok");
    EXPECT_EQ(back.modes[1].mode, "multipass");
    EXPECT_EQ(back.modes[1].result, "mismatch");
    EXPECT_EQ(back.modes[1].runs, 1u);
    ScenarioReport untouched;
    readScenarioProgress(json{{"schema", "repro-report"}, {"modes", json::array({json{{"mode", "split"}}})}},
                         untouched);
    EXPECT_TRUE(untouched.modes.empty());
    readScenarioProgress(json::array(), untouched);
    EXPECT_FALSE(untouched.deviceName);
}

// A matrix row's factors survive the child's published document: the supervisor rebuilds the
// rows of a matrix that ended in a crash with what each applied.
TEST(ScenarioProgress, ReadsBackTheMatrixRowsWithTheirFactors) {
    ScenarioReport r;
    r.askedModes = {"split", "multipass", "single"};
    r.matrix = ScenarioMatrixReport{};
    r.matrix->rows.push_back({.label = "submit-every=2", .submitEvery = 2u, .results = {"ok", "mismatch", "ok"}});
    r.matrix->rows.push_back({.label = "work x4", .workFactor = 4u, .results = {"ok", "ok", "not run"}});
    const json document = json::parse(renderScenarioJson(r));
    EXPECT_EQ(document["matrix"]["rows"][0]["submit_every"], 2);
    EXPECT_TRUE(document["matrix"]["rows"][0]["work_factor"].is_null());
    EXPECT_EQ(document["matrix"]["rows"][1]["work_factor"], 4);
    ScenarioReport back;
    back.askedModes = r.askedModes;
    readScenarioProgress(document, back);
    ASSERT_TRUE(back.matrix);
    ASSERT_EQ(back.matrix->rows.size(), 2u);
    EXPECT_EQ(back.matrix->rows[0].submitEvery, std::optional<uint32_t>(2));
    EXPECT_FALSE(back.matrix->rows[0].workFactor);
    EXPECT_EQ(back.matrix->rows[1].workFactor, std::optional<uint32_t>(4));
    EXPECT_EQ(back.matrix->rows[1].results[2], "not run");
}

TEST(MergeReports, AScenarioRowAddsTheScenarioColumn) {
    std::string problem;
    MergedReports merged;
    merged.rows.push_back(*mergedRow(scenarioDocument(), "s.json", problem));
    const std::string text = renderMerged(merged, Format::Text);
    EXPECT_TRUE(contains(text, "  scenario  ")) << text;
    EXPECT_TRUE(contains(text, "kompute-196-increment-chain@52b49c9fb342  s.json")) << text;
    EXPECT_TRUE(contains(renderMerged(merged, Format::Markdown), "| scenario | file |"));
    const json doc = json::parse(renderMerged(merged, Format::Json));
    EXPECT_EQ(doc["reports"][0]["scenario"], "kompute-196-increment-chain@52b49c9fb342");
    // Without a scenario row the table is as it was; the JSON says null.
    EXPECT_FALSE(contains(renderMerged(sample(), Format::Text), "scenario"));
    EXPECT_TRUE(json::parse(renderMerged(sample(), Format::Json))["reports"][0]["scenario"].is_null());
}

TEST(MergeReports, DocumentsThatAreNotReportsAreProblems) {
    const struct {
        json document;
        std::string problem;
    } cases[] = {
        {json::array({1, 2}), "not a repro report (the JSON is not an object)"},
        {json{{"name", "x"}}, "not a repro report (no \"schema\" property)"},
        {json{{"schema", "repro-device-list"}, {"schema_version", 1}},
         "not a run report, triage or scenario document (schema 'repro-device-list')"},
        {json{{"schema", "repro-report"}}, "not a repro report (repro-report without a schema_version of 1 or more)"},
        {json{{"schema", "repro-report"}, {"schema_version", kReportSchemaVersion + 1}},
         "repro-report schema_version 4 is newer than this repro reads (1 to 3); merge with a newer repro"},
        {json{{"schema", "repro-triage"}, {"schema_version", 2}},
         "repro-triage schema_version 2 is newer than this repro reads (1 to 1); merge with a newer repro"},
    };
    for (const auto& c : cases) {
        std::string problem;
        EXPECT_FALSE(rowOf(c.document, problem)) << c.document.dump();
        EXPECT_EQ(problem, c.problem);
    }
}

TEST(MergeReports, OutcomeNames) {
    EXPECT_EQ(outcomeName(0), "not reproduced");
    EXPECT_EQ(outcomeName(2), "reproduced");
    EXPECT_EQ(outcomeName(3), "hang");
    EXPECT_EQ(outcomeName(4), "validation");
    EXPECT_EQ(outcomeName(125), "cannot test");
    EXPECT_EQ(outcomeName(143), "interrupted");
    EXPECT_EQ(outcomeName(77), "exit 77");
}

// The rows of the reproducing machines come first, whatever order the files were given in.
TEST(MergeReports, FilesMergedGroupedAndBadFilesNamed) {
    const test::TempFolder dir("merge");
    ASSERT_FALSE(dir.path().empty());
    const std::string lavapipe = dir.write("lavapipe.json", renderJsonText(lavapipeReport()));
    const std::string radv = dir.write("radv.json", renderJsonText(radvReport()));
    const std::string hang = dir.write("hang.json", renderJsonText(radvReport(kExitHang)));
    const std::string triage = dir.write("triage.json", triageDoc().dump());
    const std::string text = dir.write("notes.txt", "not json {");
    const std::string missing = (dir.path() / "missing.json").string();
    const MergedReports merged = mergeReportFiles({lavapipe, text, radv, missing, hang, triage, dir.path().string()});
    ASSERT_EQ(merged.rows.size(), 4u);
    EXPECT_EQ(merged.rows[0].file, radv);  // reproduced: RX 6800 (triage) sorts after 890M
    EXPECT_EQ(merged.rows[1].file, triage);
    EXPECT_EQ(merged.rows[2].file, hang);
    EXPECT_EQ(merged.rows[3].file, lavapipe);
    ASSERT_EQ(merged.problems.size(), 3u);
    EXPECT_EQ(merged.problems[0].file, text);
    EXPECT_EQ(merged.problems[0].problem, "not JSON (a syntax error at byte 2)");
    EXPECT_EQ(merged.problems[1].file, missing);
    EXPECT_EQ(merged.problems[1].problem, "cannot read (No such file or directory)");
    EXPECT_EQ(merged.problems[2].problem, "cannot read (a directory)");
}

MergedReports sample() {
    MergedReports merged;
    std::string problem;
    merged.rows.push_back(*mergedRow(renderJson(lavapipeReport()), "a.json", problem));
    merged.rows.push_back(*mergedRow(renderJson(radvReport()), "b.json", problem));
    merged.rows.push_back(*mergedRow(triageDoc(), "c|d.json", problem));
    sortMergedRows(merged.rows);
    merged.problems.push_back({"bad.json", "not JSON (a syntax error at byte 1)"});
    return merged;
}

TEST(MergeReports, TextTableAndOneLinePerOutcome) {
    const std::string text = renderMerged(sample(), Format::Text);
    EXPECT_TRUE(text.starts_with("outcome ")) << text;
    EXPECT_TRUE(contains(text, "killed: job_timeout")) << text;
    EXPECT_TRUE(contains(text, "zero: synchronization")) << text;
    EXPECT_LT(text.find("b.json"), text.find("a.json")) << text;  // reproduced before not reproduced
    EXPECT_TRUE(contains(text,
                         "\nreproduced (2 reports): AMD Radeon 890M (RADV GFX1150) with radv Mesa 26.0.2; "
                         "AMD Radeon RX 6800 (RADV NAVI21) with radv Mesa 24.0.5\n"))
        << text;
    EXPECT_TRUE(contains(text,
                         "\nnot reproduced (1 report): llvmpipe (LLVM 15.0.6, 256 bits) with llvmpipe Mesa "
                         "22.3.6 (LLVM 15.0.6)\n"))
        << text;
    EXPECT_EQ(renderMerged(MergedReports{}, Format::Text), "no report merged\n");
}

TEST(MergeReports, MarkdownTableEscapesCells) {
    const std::string md = renderMerged(sample(), Format::Markdown);
    EXPECT_TRUE(md.starts_with("| outcome | device | driver |")) << md;
    EXPECT_TRUE(contains(md, "c\\|d.json")) << md;
    EXPECT_TRUE(contains(md, "\n- reproduced (2 reports): ")) << md;
}

TEST(MergeReports, JsonDocumentHasSchemaRowsGroupsAndProblems) {
    const json doc = json::parse(renderMerged(sample(), Format::Json));
    EXPECT_EQ(doc["schema"], "repro-merged-reports");
    EXPECT_EQ(doc["schema_version"], kMergedReportsSchemaVersion);
    ASSERT_EQ(doc["reports"].size(), 3u);
    const json& radv = doc["reports"][0];
    EXPECT_EQ(radv["file"], "b.json");
    EXPECT_EQ(radv["outcome"], "reproduced");
    EXPECT_EQ(radv["exit_status"], 2);
    EXPECT_EQ(radv["job_timeout_seconds"], 10.0);
    EXPECT_EQ(radv["modes"][2]["cause_kind"], "job_timeout");
    EXPECT_TRUE(radv["modes"][0]["cause_kind"].is_null());
    EXPECT_TRUE(radv["conclusion"].is_null());
    EXPECT_EQ(radv["repro"]["git"], "abc123456789");
    const json& triage = doc["reports"][1];
    EXPECT_TRUE(triage["kernel"].is_null());
    EXPECT_EQ(triage["conclusion"]["kind"], "synchronization");
    ASSERT_EQ(doc["groups"].size(), 2u);
    EXPECT_EQ(doc["groups"][0]["outcome"], "reproduced");
    EXPECT_EQ(doc["groups"][0]["reports"], 2);
    EXPECT_EQ(doc["groups"][1]["devices"][0]["reports"], 1);
    ASSERT_EQ(doc["problems"].size(), 1u);
    EXPECT_EQ(doc["problems"][0]["file"], "bad.json");
}

ParseOutcome parse(std::vector<std::string> args) {
    args.insert(args.begin(), "repro");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    return parseCommandLine(static_cast<int>(argv.size()), argv.data(), std::nullopt, 80);
}

TEST(MergeReportsOption, TakesTheFilesThatFollowAndFormat) {
    const ParseOutcome p = parse({"--merge-reports", "a.json", "--format", "markdown", "b.json", "--", "-c.json"});
    ASSERT_TRUE(p.options) << p.err;
    EXPECT_EQ(p.options->mergeReports, (std::vector<std::string>{"a.json", "b.json", "-c.json"}));
    EXPECT_EQ(p.options->format, Format::Markdown);
}

TEST(MergeReportsOption, Rejected) {
    EXPECT_EQ(parse({"a.json"}).err, "repro: unexpected argument 'a.json' (see --help)");
    EXPECT_EQ(parse({"--merge-reports"}).err, "repro: --merge-reports: no files given (--merge-reports FILE...)");
    EXPECT_EQ(parse({"--merge-reports", "-n", "3", "a.json"}).err,
              "repro: --merge-reports: not with -n/--chain (it runs nothing; only --format applies)");
    EXPECT_EQ(parse({"--merge-reports", "-o", "x.json", "a.json"}).err,
              "repro: --merge-reports: not with -o/--output (it runs nothing; only --format applies)");
    EXPECT_EQ(parse({"--merge-reports", "--format", "html", "a.json"}).err,
              "repro: --format: 'html' is not one of text, markdown, json");
    EXPECT_EQ(parse({"--merge-reports", "a.json"}).exitStatus, 0);
    EXPECT_EQ(parse({"--merge-reports", "a.json", "-n", "3"}).exitStatus, 1);
}

}  // namespace
}  // namespace repro
