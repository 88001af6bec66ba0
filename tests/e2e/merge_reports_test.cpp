// --merge-reports end to end: two real reports written by repro on this machine's driver
// (one correct run, one with the positive control --drop-dispatch, which reproduces: a
// control caught), merged with bad files: each bad file gets one line naming it, the good
// ones are still merged, and the exit status is 1; with good files only, 0. Hostile files
// (issue 35: a number beyond a double's range, a FIFO, a schema-invalid document, the same
// file twice) end the same way, never by an abort or a wait.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <cstdio>
#include <fstream>

#include "harness.hpp"

namespace repro::test {
namespace {

size_t countOf(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
    return n;
}

class MergeReports : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = new TempDir("merge-e2e");
        const ProcessResult ok =
            runRepro({"--preset", "tiny", "-n", "2", "-q", "--json", (*dir_ / "ok.json").string()});
        ASSERT_EQ(ok.status, 0) << ok.out << ok.err;
        const ProcessResult wrong = runRepro(
            {"--preset", "tiny", "-n", "2", "-q", "--drop-dispatch", "3", "--json", (*dir_ / "wrong.json").string()});
        ASSERT_EQ(wrong.status, 2) << wrong.out << wrong.err;
        std::ofstream(*dir_ / "notes.txt") << "a note, not JSON\n";
        std::ofstream(*dir_ / "other.json") << R"({"name": "not a report", "schema_version": 1})";
        nlohmann::json newer = nlohmann::json::parse(readText(*dir_ / "ok.json"));
        newer["schema_version"] = 99;
        std::ofstream(*dir_ / "newer.json") << newer.dump();
    }
    static void TearDownTestSuite() {
        delete dir_;
        dir_ = nullptr;
    }
    static std::string file(const std::string& name) { return (*dir_ / name).string(); }
    static TempDir* dir_;
};

TempDir* MergeReports::dir_ = nullptr;

TEST_F(MergeReports, GoodAndBadFiles) {
    const ProcessResult r = runRepro({"--merge-reports", file("ok.json"), file("notes.txt"), file("wrong.json"),
                                      file("other.json"), file("newer.json"), "--format", "json"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_FALSE(r.signaled);
    EXPECT_EQ(countOf(r.err, "\n"), 3u) << r.err;
    EXPECT_EQ(countOf(r.err, "repro: --merge-reports: '" + file("notes.txt") + "': not JSON (a syntax error at byte "),
              1u)
        << r.err;
    EXPECT_EQ(countOf(r.err, "repro: --merge-reports: '" + file("other.json") +
                                 "': not a repro report (no \"schema\" property)\n"),
              1u)
        << r.err;
    EXPECT_EQ(countOf(r.err, "repro: --merge-reports: '" + file("newer.json") +
                                 "': repro-report schema_version 99 is newer than this repro reads (1 to 3)"),
              1u)
        << r.err;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["schema"], "repro-merged-reports");
    ASSERT_EQ(doc["reports"].size(), 2u) << r.out;
    // The verdict on the driver first; the positive control's reproduction is its own group.
    EXPECT_EQ(doc["reports"][0]["file"], file("ok.json"));
    EXPECT_EQ(doc["reports"][0]["outcome"], "not reproduced");
    EXPECT_EQ(doc["reports"][1]["file"], file("wrong.json"));
    EXPECT_EQ(doc["reports"][1]["outcome"], "control caught");
    EXPECT_EQ(doc["reports"][1]["verdict_kind"], "control_caught");
    const nlohmann::json ok = nlohmann::json::parse(readText(file("ok.json")));
    EXPECT_EQ(doc["reports"][0]["device"], ok["device"]["device_name"]);
    EXPECT_EQ(doc["reports"][0]["repro"]["git"], ok["repro"]["git"]);
    EXPECT_EQ(doc["reports"][0]["kernel"], ok["environment"]["host"]["kernel"]["release"]);
    EXPECT_EQ(doc["problems"].size(), 3u);
}

TEST_F(MergeReports, GoodFilesOnlyExitZeroInEveryFormat) {
    const ProcessResult text = runRepro({"--merge-reports", file("ok.json"), file("wrong.json")});
    EXPECT_EQ(text.status, 0) << text.err;
    EXPECT_EQ(text.err, "");
    EXPECT_TRUE(text.out.starts_with("outcome ")) << text.out;
    EXPECT_LT(text.out.find("ok.json"), text.out.find("wrong.json")) << text.out;
    EXPECT_NE(text.out.find("\nnot reproduced (1 report): "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("\ncontrol caught (1 report): "), std::string::npos) << text.out;
    const ProcessResult md = runRepro({"--merge-reports", "--format", "markdown", file("ok.json"), file("wrong.json")});
    EXPECT_EQ(md.status, 0) << md.err;
    EXPECT_TRUE(md.out.starts_with("| outcome | what ran | device | id | driver | version | kernel |")) << md.out;
}

// Like is compared with like: every row says what ran (a control marked), the vendor:device
// ID, the driver version and the kernel, and no line of the text table is over 160 columns,
// even with a path that alone is longer.
TEST_F(MergeReports, EveryRowSaysWhatRanOnWhichDeviceDriverAndKernelInAtMost160Columns) {
    const std::filesystem::path deep = *dir_ / std::string(150, 'd');
    std::filesystem::create_directories(deep);
    std::filesystem::copy_file(file("ok.json"), deep / "copy.json", std::filesystem::copy_options::overwrite_existing);
    const ProcessResult r =
        runRepro({"--merge-reports", file("ok.json"), file("wrong.json"), (deep / "copy.json").string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json ok = nlohmann::json::parse(readText(file("ok.json")));
    char ids[32];
    std::snprintf(ids, sizeof ids, "%04x:%04x", ok["device"]["vendor_id"].get<unsigned>(),
                  ok["device"]["device_id"].get<unsigned>());
    const std::string version = ok["device"]["driver_version"].get<std::string>();
    const std::string kernel = ok["environment"]["host"]["kernel"]["release"].get<std::string>();
    std::vector<std::string> rows;
    for (const std::string& line : lines(r.out)) {
        EXPECT_LE(line.size(), 160u) << line;
        if (line.starts_with("not reproduced  ") || line.starts_with("control caught  ")) rows.push_back(line);
    }
    ASSERT_EQ(rows.size(), 3u) << r.out;
    for (const std::string& row : rows) {
        EXPECT_TRUE(contains(row, std::string(ids))) << row;
        EXPECT_TRUE(contains(row, " " + version + "  ")) << row;  // the driver's name and version
        EXPECT_TRUE(contains(row, kernel.substr(0, 8))) << row;
    }
    EXPECT_TRUE(contains(rows[0], "  chain tiny")) << rows[0];
    EXPECT_TRUE(contains(rows[0], "...") && rows[0].ends_with("/copy.json")) << rows[0];
    EXPECT_TRUE(contains(rows[2], "  control: ")) << rows[2];
}

// A chain whose shape option changed the preset's field is not that preset: the report's
// shape.preset is "custom" and the merged row names the shape (it said "chain tiny N=2", like
// a tiny run's, and so compared unlike with like).
TEST_F(MergeReports, AChangedShapeIsNotItsPreset) {
    const std::string path = file("wide.json");
    const ProcessResult wide = runRepro({"--preset", "tiny", "--width", "20", "-n", "2", "-q", "--json", path});
    ASSERT_EQ(wide.status, 0) << wide.out << wide.err;
    EXPECT_EQ(nlohmann::json::parse(readText(path)).at("shape").at("preset"), "custom");
    const ProcessResult r = runRepro({"--merge-reports", "--format", "csv", file("ok.json"), path});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "\r\nnot reproduced,0,chain tiny N=2,no,")) << r.out;
    EXPECT_EQ(countOf(r.out, "chain tiny N=2"), 1u) << r.out;
    EXPECT_TRUE(contains(r.out, ",\"chain batch 2 x channels 4 x 5x20, kernel 3x4, stride 1x2, padding 0x0 N=2\",no,"))
        << r.out;
    std::filesystem::remove(path);
}

// --format csv: RFC 4180, a header record and one per report, CRLF line ends, a field with
// a comma or a quote quoted and its quotes doubled.
TEST_F(MergeReports, CsvIsQuotedAsRfc4180Says) {
    const std::string odd = file("a,\"b\".json");
    std::filesystem::copy_file(file("wrong.json"), odd, std::filesystem::copy_options::overwrite_existing);
    const ProcessResult r = runRepro({"--merge-reports", "--format", "csv", file("ok.json"), odd});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(countOf(r.out, "\r\n"), 3u) << r.out;
    EXPECT_EQ(countOf(r.out, "\n"), 3u) << r.out;
    EXPECT_TRUE(r.out.starts_with("outcome,exit_status,what_ran,control,device,vendor_device,driver,driver_version,"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "\r\nnot reproduced,0,chain tiny N=2,no,")) << r.out;
    EXPECT_TRUE(contains(r.out, "\r\ncontrol caught,2,chain tiny N=2 --drop-dispatch 3,yes,")) << r.out;
    const std::string quoted = "\"" + file("a,\"\"b\"\".json") + "\"\r\n";
    EXPECT_TRUE(r.out.ends_with(quoted)) << r.out;
    // csv is the merged table's alone.
    const ProcessResult run = runRepro({"--preset", "tiny", "-n", "1", "--format", "csv"});
    EXPECT_EQ(run.status, 1);
    EXPECT_EQ(run.err, "repro: --format csv: only with --merge-reports (a run's report is text, markdown or json)\n");
}

// Issue 35 R3, R10, R13: each hostile file is one line, the others are merged, and the exit
// status is 1 (never 134 from an uncaught exception, never a wait on a FIFO).
TEST_F(MergeReports, HostileFilesAreNamedOnceAndTheOthersMerged) {
    std::string text = readText(file("ok.json"));
    const size_t at = text.find("\"chain_length\": 2");
    ASSERT_NE(at, std::string::npos) << text;
    text.insert(at, "\"zzz\": [1e400], ");
    std::ofstream(file("overflow.json")) << text;
    std::ofstream(file("stub.json")) << R"({"schema": "repro-report", "schema_version": 3})";
    nlohmann::json negative = nlohmann::json::parse(readText(file("ok.json")));
    negative["chain_length"] = -5;
    std::ofstream(file("negative.json")) << negative.dump();
    std::filesystem::remove(file("fifo.json"));
    ASSERT_EQ(::mkfifo(file("fifo.json").c_str(), 0600), 0);
    const ProcessResult r = runRepro({"--merge-reports", file("ok.json"), file("overflow.json"), file("fifo.json"),
                                      file("stub.json"), file("negative.json"), file("ok.json"), "--format", "json"},
                                     {}, 60);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_FALSE(r.signaled);
    EXPECT_EQ(countOf(r.err, "\n"), 5u) << r.err;
    EXPECT_EQ(countOf(r.err, "'" + file("overflow.json") + "': not JSON (a number out of range at byte "), 1u) << r.err;
    EXPECT_EQ(countOf(r.err, "'" + file("fifo.json") + "': cannot read (a FIFO, not a regular file)\n"), 1u) << r.err;
    EXPECT_EQ(
        countOf(r.err, "'" + file("stub.json") + "': not merged: an invalid repro-report (repro.version: missing)"), 1u)
        << r.err;
    EXPECT_EQ(
        countOf(r.err, "'" + file("negative.json") +
                           "': not merged: an invalid repro-report (chain_length: -5 is outside 0 to 4294967295)"),
        1u)
        << r.err;
    EXPECT_EQ(countOf(r.err, "'" + file("ok.json") + "': the same file as '" + file("ok.json") + "', merged once\n"),
              1u)
        << r.err;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    ASSERT_EQ(doc["reports"].size(), 1u) << r.out;
    EXPECT_EQ(doc["reports"][0]["file"], file("ok.json"));
    EXPECT_EQ(doc["problems"].size(), 4u);
    EXPECT_EQ(doc["duplicates"].size(), 1u);
}

TEST_F(MergeReports, OnlyBadFilesStillPrintsAnEmptyTable) {
    const ProcessResult r = runRepro({"--merge-reports", file("missing.json")});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err,
              "repro: --merge-reports: '" + file("missing.json") + "': cannot read (No such file or directory)\n");
    EXPECT_EQ(r.out, "no report merged\n");
}

}  // namespace
}  // namespace repro::test
