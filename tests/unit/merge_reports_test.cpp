// --merge-reports (report/merge_reports.hpp): rows from run reports (the built-in chain's and
// a scenario file's) and triage documents, the problems of bad files (hostile ones too:
// issue 35's R3, R10, R13), the grouping, the three renderings, and the command line.
#include "report/merge_reports.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <sstream>

#include "cli/options.hpp"
#include "report/report_render.hpp"
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

TEST(MergeReports, TriageWithoutProbeHasNoJobTimeout) {
    json document = triageDoc();
    document["probe"] = nullptr;
    std::string problem;
    const auto row = rowOf(document, problem);
    ASSERT_TRUE(row) << problem;
    EXPECT_EQ(row->jobTimeout, "");
    EXPECT_FALSE(row->jobTimeoutSeconds);
}

MergedReports sample();

// A run report of the scenario file kompute-196 reproduced on RADV (multipass and single
// wrong): the built-in's report with the scenario section filled.
RunReport scenarioRunReport() {
    RunReport r = radvReport();
    r.chainLength = 0;
    r.modes = {mode(Mode::Split, Classification::Ok), mode(Mode::Multipass, Classification::Mismatch),
               mode(Mode::Single, Classification::Mismatch)};
    r.scenario = ScenarioFacts{.name = "kompute-196-increment-chain",
                               .file = "scenarios/kompute-196-increment-chain.toml",
                               .fileBytes = 1234,
                               .fileSha256 = "52b49c9fb342e0d43855a4667eaf40faba94b0687d7aab828bcace9339bd1010",
                               .fileText = "name = \"kompute-196-increment-chain\"\n",
                               .steps = 3};
    return r;
}

TEST(MergeReports, ScenarioRunRowNamesTheFileByNameAndHash) {
    std::string problem;
    const auto row = mergedRow(renderJson(scenarioRunReport()), "s.json", problem);
    ASSERT_TRUE(row) << problem;
    EXPECT_EQ(row->document, "repro-report");
    EXPECT_EQ(row->schemaVersion, kReportSchemaVersion);
    EXPECT_EQ(row->outcome, "reproduced");
    EXPECT_EQ(row->scenario, "kompute-196-increment-chain@52b49c9f");
    EXPECT_EQ(row->device, "AMD Radeon 890M (RADV GFX1150)");
    EXPECT_EQ(row->driver, "radv Mesa 26.0.2");
    EXPECT_EQ(row->kernel, "6.8.0-45-generic");
    ASSERT_EQ(row->modes.size(), 3u);
    EXPECT_EQ(row->modes[1].mode, "multipass");
    EXPECT_EQ(row->modes[1].classification, "mismatch");
    // The built-in chain's row names no scenario.
    EXPECT_EQ(mergedRow(renderJson(radvReport()), "b.json", problem)->scenario, "");
}

// A scenario document of the old schema is named and left out: its fields are not a run report's.
TEST(MergeReports, AnOldScenarioDocumentIsNotMerged) {
    const json old = {{"schema", "repro-scenario-report"},
                      {"schema_version", 1},
                      {"scenario", {{"name", "kompute-196-increment-chain"}, {"file_sha256", "52b49c9f"}}},
                      {"verdict", {{"line", "--- BUG REPRODUCED: ..."}, {"exit_status", 2}}}};
    std::string problem;
    EXPECT_FALSE(mergedRow(old, "old.json", problem));
    EXPECT_EQ(problem, "not merged: a repro-scenario-report (an old scenario document; rerun with this version)");
}

// A built-in run and a scenario run in one table: the scenario column names the file of the
// one and "-" for the other.
TEST(MergeReports, ABuiltInAndAScenarioRunInOneTable) {
    const test::TempFolder dir("merge-scenario");
    ASSERT_FALSE(dir.path().empty());
    const std::string builtIn = dir.write("lavapipe.json", renderJsonText(lavapipeReport()));
    const std::string scenario = dir.write("s.json", renderJsonText(scenarioRunReport()));
    const MergedReports merged = mergeReportFiles({builtIn, scenario});
    ASSERT_EQ(merged.rows.size(), 2u);
    EXPECT_TRUE(merged.problems.empty());
    EXPECT_EQ(merged.rows[0].file, scenario);  // reproduced first
    EXPECT_EQ(merged.rows[1].scenario, "");
    // The "what ran" column tells them apart: the file's name@hash, the chain's preset and N.
    const std::string text = renderMerged(merged, Format::Text);
    EXPECT_TRUE(contains(text, "  what ran  ")) << text;
    EXPECT_TRUE(contains(text, "  kompute-")) << text;  // whole in the other forms
    EXPECT_TRUE(contains(renderMerged(merged, Format::Csv), ",kompute-196-increment-chain@52b49c9f,"));
    EXPECT_TRUE(contains(text, "  chain ")) << text;
    EXPECT_TRUE(contains(renderMerged(merged, Format::Markdown), "| kompute-196-increment-chain@52b49c9f |"));
    const json doc = json::parse(renderMerged(merged, Format::Json));
    EXPECT_EQ(doc["reports"][0]["scenario"], "kompute-196-increment-chain@52b49c9f");
    EXPECT_TRUE(doc["reports"][1]["scenario"].is_null());
    // Without a scenario row the JSON says null.
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
         "not a run report or triage document (schema 'repro-device-list')"},
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
    // Narrowed to 160 columns, the modes' classifications stay whole (their causes are whole
    // in the other forms).
    EXPECT_TRUE(contains(text, "  ok/ok/killed (job_")) << text;
    EXPECT_TRUE(contains(text, "  ok/zero/not run (")) << text;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) EXPECT_LE(line.size(), kMergedTextColumns) << line;
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
    EXPECT_TRUE(md.starts_with("| outcome | what ran | device | id | driver |")) << md;
    EXPECT_TRUE(contains(md, "killed: job_timeout")) << md;
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

// A positive control's reproduction (--drop-dispatch) is no verdict on its driver: its own
// group, after every verdict, never counted among the reproductions.
TEST(MergeReports, AControlsReproductionIsItsOwnGroupAfterTheVerdicts) {
    RunReport control = radvReport();
    control.experiment.dropDispatch = 3;
    MergedReports merged;
    std::string problem;
    for (const auto& [report, file] : {std::pair{control, "control.json"}, std::pair{radvReport(), "radv.json"},
                                       std::pair{lavapipeReport(), "lavapipe.json"}}) {
        auto row = mergedRow(renderJson(report), file, problem);
        ASSERT_TRUE(row) << problem;
        merged.rows.push_back(std::move(*row));
    }
    sortMergedRows(merged.rows);
    EXPECT_EQ(merged.rows[0].file, "radv.json");
    EXPECT_EQ(merged.rows[0].outcome, "reproduced");
    EXPECT_EQ(merged.rows[1].file, "lavapipe.json");
    EXPECT_EQ(merged.rows[2].file, "control.json");
    EXPECT_EQ(merged.rows[2].outcome, "control caught");
    EXPECT_EQ(merged.rows[2].verdictKind, "control_caught");
    const std::string text = renderMerged(merged, Format::Text);
    EXPECT_TRUE(contains(text, "\nreproduced (1 report): AMD Radeon 890M")) << text;
    EXPECT_TRUE(contains(text, "\ncontrol caught (1 report): AMD Radeon 890M")) << text;
    const json doc = json::parse(renderMerged(merged, Format::Json));
    EXPECT_EQ(doc["groups"].size(), 3u);
    EXPECT_EQ(doc["reports"][2]["verdict_kind"], "control_caught");
}

// A version 2 report (flat dotted environment facts, no verdict.kind) still merges.
TEST(MergeReports, AVersionTwoReportWithDottedFactNamesIsRead) {
    json document = renderJson(radvReport());
    document["schema_version"] = 2;
    document["environment"]["host"] = {{"kernel.release", "6.1.0-18-amd64"}};
    document["verdict"].erase("kind");
    document.erase("scenario");
    std::string problem;
    const auto row = rowOf(document, problem);
    ASSERT_TRUE(row) << problem;
    EXPECT_EQ(row->kernel, "6.1.0-18-amd64");
    EXPECT_EQ(row->outcome, "reproduced");
    EXPECT_EQ(row->verdictKind, "");
}

// ---- hostile files (issue 35: R3, R10, R13) ---------------------------------------------------

// R3: a number beyond a double's range (nlohmann's out_of_range 406) anywhere in a file is that
// file's problem with its byte, never an exception.
TEST(MergeReportsHostile, ANumberBeyondADoublesRangeIsNotJson) {
    for (const std::string text :
         {"1e400", "-1e400", "[1E999]", R"({"schema": "repro-report", "schema_version": 1e400})",
          R"({"chain_length": 2, "zzz": [1e400]})"}) {
        std::string problem;
        EXPECT_FALSE(parseMergedJson(text, problem)) << text;
        EXPECT_TRUE(problem.starts_with("not JSON (a number out of range at byte ")) << problem;
    }
    std::string problem;
    EXPECT_FALSE(parseMergedJson("[1, 1e400]", problem));
    EXPECT_EQ(problem, "not JSON (a number out of range at byte 9)");  // where the number ends
    EXPECT_FALSE(parseMergedJson("{\"a\": }", problem));
    EXPECT_EQ(problem, "not JSON (a syntax error at byte 7)");
    // Nesting is bounded: no report goes deeper than a few levels.
    EXPECT_FALSE(parseMergedJson(std::string(100000, '[') + std::string(100000, ']'), problem));
    EXPECT_EQ(problem, "not JSON for a report (nested deeper than 512 levels)");
    // What parses is what nlohmann's own parser makes of it.
    const std::string report = renderJsonText(radvReport());
    const auto parsed = parseMergedJson(report, problem);
    ASSERT_TRUE(parsed) << problem;
    EXPECT_EQ(*parsed, json::parse(report));
}

TEST(MergeReportsHostile, AFileWithAnOverflowingNumberIsNamedAndTheOthersMerged) {
    const test::TempFolder dir("merge-overflow");
    ASSERT_FALSE(dir.path().empty());
    std::string text = renderJsonText(radvReport());
    const std::string ok = dir.write("ok.json", text);
    text.replace(text.find("\"chain_length\": 6"), 17, "\"chain_length\": 6, \"zzz\": [1e400]");
    const std::string bad = dir.write("h.json", text);
    const MergedReports merged = mergeReportFiles({ok, bad});
    ASSERT_EQ(merged.rows.size(), 1u);
    EXPECT_EQ(merged.rows[0].file, ok);
    ASSERT_EQ(merged.problems.size(), 1u);
    EXPECT_EQ(merged.problems[0].file, bad);
    EXPECT_TRUE(merged.problems[0].problem.starts_with("not JSON (a number out of range at byte "))
        << merged.problems[0].problem;
}

// R10: only regular files are read; a FIFO is never opened for a blocking read (it would wait
// for a writer for ever), nor a device.
TEST(MergeReportsHostile, AFifoADeviceAndAFolderAreNotRegularFiles) {
    const test::TempFolder dir("merge-fifo");
    ASSERT_FALSE(dir.path().empty());
    const std::string fifo = (dir.path() / "fifo.json").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string ok = dir.write("ok.json", renderJsonText(lavapipeReport()));
    const MergedReports merged = mergeReportFiles({fifo, ok, "/dev/null", dir.path().string()});
    ASSERT_EQ(merged.rows.size(), 1u);
    ASSERT_EQ(merged.problems.size(), 3u);
    EXPECT_EQ(merged.problems[0].problem, "cannot read (a FIFO, not a regular file)");
    EXPECT_EQ(merged.problems[1].problem, "cannot read (a character device, not a regular file)");
    EXPECT_EQ(merged.problems[2].problem, "cannot read (a directory)");
}

// R13: a document without a field the table reads, or with it of another type than the
// schema's, is not merged (a broken file must not count as a machine where nothing
// reproduced).
TEST(MergeReportsHostile, ASchemaInvalidDocumentIsNotMerged) {
    const json valid = renderJson(lavapipeReport());
    const auto with = [&](const std::function<void(json&)>& change) {
        json d = valid;
        change(d);
        return d;
    };
    const struct {
        json document;
        std::string why;
    } cases[] = {
        {json{{"schema", "repro-report"}, {"schema_version", 3}}, "an invalid repro-report (repro.version: missing)"},
        {with([](json& d) { d["verdict"] = json::array(); }), "an invalid repro-report (verdict.exit_status: missing)"},
        {with([](json& d) { d["verdict"]["exit_status"] = "x"; }),
         "an invalid repro-report (verdict.exit_status: \"x\" is not a value the schema knows)"},
        {with([](json& d) { d.erase("verdict"); }), "an invalid repro-report (verdict.exit_status: missing)"},
        {with([](json& d) { d["chain_length"] = -5; }),
         "an invalid repro-report (chain_length: -5 is outside 0 to 4294967295)"},
        {with([](json& d) { d["chain_length"] = "2"; }), "an invalid repro-report (chain_length: not an integer)"},
        {with([](json& d) { d["modes"][1]["classification"] = "bogus"; }),
         "an invalid repro-report (modes[1].classification: \"bogus\" is not a value the schema knows)"},
        {with([](json& d) { d["modes"] = "split"; }), "an invalid repro-report (modes: not an array)"},
        {with([](json& d) { d["device"] = 3; }), "an invalid repro-report (device: not an object or null)"},
        {with([](json& d) { d["device"]["device_name"] = nullptr; }),
         "an invalid repro-report (device.device_name: not a string)"},
        {with([](json& d) { d["repro"] = nullptr; }), "an invalid repro-report (repro.version: missing)"},
        {with([](json& d) { d["verdict"]["kind"] = "reproduced"; }),
         "an invalid repro-report (verdict.kind: 'reproduced' is not what exit status 0 says)"},
        {with([](json& d) {
             d["scenario"] = {{"name", "x"}};
         }),
         "an invalid repro-report (scenario.file: missing)"},
        {json{{"schema", "repro-triage"}, {"schema_version", 1}}, "an invalid repro-triage (repro.version: missing)"},
        {[] {
             json d = triageDoc();
             d["baseline"] = 5;
             return d;
         }(),
         "an invalid repro-triage (baseline.detail: missing)"},
        // An old scenario document relabelled as a run report.
        {json{{"schema", "repro-report"},
              {"schema_version", 1},
              {"repro", {{"version", "0.1.0"}, {"git", "abc"}}},
              {"modes", json::array({json{{"mode", "split"}, {"result", "ok"}}})},
              {"verdict", {{"line", "--- NOT REPRODUCED"}, {"exit_status", 0}}}},
         "an invalid repro-report (environment.host: missing)"},
    };
    for (const auto& c : cases) {
        std::string problem;
        EXPECT_FALSE(rowOf(c.document, problem)) << c.document.dump();
        EXPECT_EQ(problem, "not merged: " + c.why);
    }
}

// The same file given twice (by the same path, or another path to it) is merged once and
// said once; it is no problem.
TEST(MergeReportsHostile, TheSameFileTwiceIsMergedOnce) {
    const test::TempFolder dir("merge-twice");
    ASSERT_FALSE(dir.path().empty());
    const std::string ok = dir.write("ok.json", renderJsonText(lavapipeReport()));
    const std::string link = (dir.path() / "link.json").string();
    std::filesystem::create_symlink(ok, link);
    const MergedReports merged = mergeReportFiles({ok, ok, link});
    ASSERT_EQ(merged.rows.size(), 1u);
    EXPECT_TRUE(merged.problems.empty());
    ASSERT_EQ(merged.duplicates.size(), 2u);
    EXPECT_EQ(merged.duplicates[0].file, ok);
    EXPECT_EQ(merged.duplicates[0].sameAs, ok);
    EXPECT_EQ(merged.duplicates[1].file, link);
    EXPECT_EQ(merged.duplicates[1].sameAs, ok);
    EXPECT_TRUE(contains(renderMerged(merged, Format::Text), "\nnot reproduced (1 report): "));
    const json doc = json::parse(renderMerged(merged, Format::Json));
    EXPECT_EQ(doc["duplicates"][1]["same_as"], ok);
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
              "repro: --format: 'html' is not one of text, markdown, json, csv");
    EXPECT_EQ(parse({"--merge-reports", "a.json"}).exitStatus, 0);
    EXPECT_EQ(parse({"--merge-reports", "a.json", "-n", "3"}).exitStatus, 1);
}

}  // namespace
}  // namespace repro
