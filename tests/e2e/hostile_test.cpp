// End-to-end tests of repro in the environments a bisect meets: --expect-driver against a
// driver library path, the loader's problems in the text header, a corrupt driver manifest,
// output paths checked before any GPU work, --list-devices as JSON, and interrupts answered
// inside the CPU reference and during --repeat (with a JSON report the schema accepts).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "../unit/schema_checker.hpp"
#include "harness.hpp"

#ifndef REPRO_SOURCE_DIR
#error "REPRO_SOURCE_DIR must name the source tree (tests/CMakeLists.txt)"
#endif

namespace {

using nlohmann::json;
using repro::test::contains;
using repro::test::lines;
using repro::test::ProcessResult;
using repro::test::readText;
using repro::test::runProcess;
using repro::test::runRepro;
using repro::test::TempDir;

// The errors of `document` against docs/report.schema.json (`definition`: one of its
// $defs, or the run report when empty).
std::string schemaErrors(const json& document, const std::string& definition = "") {
    const json schema = repro::test::loadReportSchema(REPRO_SOURCE_DIR);
    repro::test::SchemaChecker checker(schema);
    return repro::test::joinErrors(definition.empty() ? checker.check(document)
                                                      : checker.checkDefinition(definition, document));
}

// The lavapipe library and manifest as the loader names them, from a tiny run's report.
struct LavapipeDriver {
    std::string library, manifest;
};
LavapipeDriver lavapipeDriver() {
    const ProcessResult r = runRepro({"--preset", "tiny", "-n", "1", "--mode", "split", "--format", "json"}, {}, 120);
    const json j = json::parse(r.out);
    return {j.at("device").value("driver_library", ""), j.at("device").value("driver_manifest", "")};
}

TEST(ExpectDriver, LavapipesLibraryMatchesByPartOrByPath) {
    REPRO_REQUIRE_LAVAPIPE();
    const LavapipeDriver lvp = lavapipeDriver();
    ASSERT_TRUE(contains(lvp.library, "libvulkan_lvp")) << lvp.library;
    for (const std::string& expected : {std::string("libvulkan_lvp"), lvp.library}) {
        const ProcessResult r =
            runRepro({"--preset", "tiny", "-n", "1", "--mode", "split", "--expect-driver", expected}, {}, 120);
        EXPECT_EQ(r.status, 0) << expected << "\n" << r.out << r.err;
        EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << r.out;
    }
}

TEST(ExpectDriver, AnotherLibraryPathIs125WithTheDeviceList) {
    REPRO_REQUIRE_LAVAPIPE();
    const ProcessResult r = runRepro({"--preset", "tiny", "-n", "1", "--expect-driver",
                                      "/nonexistent-mesa-build/src/amd/vulkan/libvulkan_radeon.so"},
                                     {}, 120);
    EXPECT_EQ(r.status, 125) << r.out << r.err;
    ASSERT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_TRUE(contains(r.err, "the device that would run is llvmpipe")) << r.err;
    EXPECT_TRUE(contains(r.err, "; devices: 0: llvmpipe")) << r.err;
    EXPECT_TRUE(contains(r.err, "libvulkan_lvp.so'")) << "the libraries the loader read are listed: " << r.err;
    EXPECT_FALSE(contains(r.out, "--- results ---")) << r.out;
}

TEST(LoaderProblems, ADriverThatFailedToLoadIsInTheTextHeader) {
    REPRO_REQUIRE_LAVAPIPE();
    const LavapipeDriver lvp = lavapipeDriver();
    ASSERT_FALSE(lvp.manifest.empty());
    TempDir dir("loader-problems");
    std::ofstream(dir / "missing.json")
        << R"({"file_format_version": "1.0.0", "ICD": {"library_path": "/nonexistent-repro/libvulkan_gone.so", )"
        << R"("api_version": "1.3.0"}})";
    const ProcessResult r = runRepro({"--preset", "tiny", "-n", "1", "--mode", "split"},
                                     {"VK_DRIVER_FILES=" + lvp.manifest + ":" + (dir / "missing.json").string()}, 120);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    size_t noted = 0;
    for (const std::string& line : lines(r.out)) {
        noted += line.rfind("  note: the Vulkan loader reports: ", 0) == 0 && contains(line, "libvulkan_gone.so");
    }
    EXPECT_GE(noted, 1u) << r.out;
}

// The host's OpenSSL configuration is not repro's to apply: a scenario file's SHA-256 (for the
// report) once made OpenSSL read openssl.cnf, and one naming a provider that is not installed
// (a FIPS set-up without its module, say) made every file run abort with exit 134.
TEST(HostProblems, AnOpenSslConfigurationThatCannotLoadDoesNotStopAFileRun) {
    TempDir dir("openssl-conf");
    std::ofstream(dir / "openssl.cnf") << "openssl_conf = init\n[init]\nproviders = providers\n"
                                          "[providers]\nnot_installed = not_installed\n[not_installed]\nactivate = 1\n";
    const ProcessResult r =
        runRepro({"--scenario", REPRO_SOURCE_DIR "/scenarios/blade-356-conv-t-slice-chain.toml", "--mode", "split"},
                 {"OPENSSL_CONF=" + (dir / "openssl.cnf").string()}, 120);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "--- NOT REPRODUCED")) << r.out << r.err;
}

TEST(LoaderProblems, CorruptManifestIsExplainedNotOutOfMemoryAlone) {
    TempDir dir("corrupt-manifest");
    const std::string manifest = (dir / "radeon_devenv_icd.x86_64.json").string();
    std::ofstream(manifest) << R"({"file_format_version": "1.0.0", "ICD": {"library_path": )";
    const ProcessResult r = runRepro({"--preset", "tiny"}, {"VK_DRIVER_FILES=" + manifest}, 120);
    EXPECT_EQ(r.status, 125) << r.out << r.err;
    ASSERT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_TRUE(contains(r.err, "driver manifest '" + manifest + "' is not valid JSON (parse error at byte ")) << r.err;
    EXPECT_TRUE(contains(r.err, "\"Failed to parse JSON file\"")) << r.err;
}

TEST(OutputPaths, UnwritableOutputIsRefusedBeforeAnyWork) {
    const ProcessResult r = runRepro({"--preset", "tiny", "-n", "2", "--output", "/nonexistent-repro-dir/r.json"});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_EQ(r.err, "repro: -o/--output: cannot write '/nonexistent-repro-dir/r.json' (No such file or directory)\n");
    EXPECT_EQ(r.out, "") << "nothing ran";
}

TEST(ListDevices, JsonOnStdoutAndInTheJsonFileValidate) {
    TempDir dir("list-devices");
    const std::string file = (dir / "devices.json").string();
    const ProcessResult r = runRepro({"--list-devices", "--format", "json", "--json", file}, {}, 60);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const json j = json::parse(r.out);  // stdout is the document alone
    EXPECT_EQ(schemaErrors(j, "device_list"), "");
    EXPECT_EQ(j.at("schema"), "repro-device-list");
    ASSERT_FALSE(j.at("devices").empty()) << j.dump(2);
    EXPECT_TRUE(contains(r.err, "0: " + j["devices"][0]["device_name"].get<std::string>())) << "text list on stderr";
    EXPECT_EQ(json::parse(readText(file)), j);
    // --json alone: the text list stays on stdout, the document goes to the file.
    const ProcessResult text = runRepro({"--list-devices", "--json", file}, {}, 60);
    EXPECT_EQ(text.status, 0) << text.err;
    EXPECT_TRUE(contains(text.out, " usable")) << text.out;
    EXPECT_EQ(schemaErrors(json::parse(readText(file)), "device_list"), "");
    // -o with --format json: the document in the file in place of stdout, the text list on stdout.
    const std::string out = (dir / "o.json").string();
    const ProcessResult o = runRepro({"--list-devices", "--format", "json", "-o", out}, {}, 60);
    EXPECT_EQ(o.status, 0) << o.err;
    EXPECT_TRUE(contains(o.out, " usable")) << o.out;
    EXPECT_EQ(schemaErrors(json::parse(readText(out)), "device_list"), "");
}

// repro with `args` under /bin/sh: once its `stream` ("out" or "err") has a line
// containing `waitFor`, waits `delay` seconds and sends `signal`; stdout and stderr as
// repro wrote them.
ProcessResult signalledAfter(const std::string& args, const std::string& stream, const std::string& waitFor,
                             double delay, const std::string& signal, const TempDir& dir) {
    const std::string out = (dir / "out.txt").string(), err = (dir / "err.txt").string();
    const std::string watched = stream == "out" ? out : err;
    const std::string script = std::string("ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" \"") +
                               REPRO_EXECUTABLE + "\" " + args + " >'" + out + "' 2>'" + err + "' & pid=$!; " +
                               "until grep -qF -e '" + waitFor + "' '" + watched +
                               "' || ! kill -0 $pid 2>/dev/null; do " + "sleep 0.05; done; sleep " +
                               std::to_string(delay) + "; kill -" + signal + " $pid; wait $pid";
    ProcessResult r = runProcess("/bin/sh", {"-c", script}, {}, 300);
    r.out = readText(out);
    r.err = readText(err);
    return r;
}

TEST(Interrupt, SigtermDuringTheCpuReferenceIsAnsweredThere) {
    REPRO_REQUIRE_LAVAPIPE();
    // The full-size chain's float64 reference takes 8-16 s on this 2-core machine
    // before the first submit; the signal lands 1 s into it. Without the checks inside
    // the reference it would finish and print its "reference: cpu (...)" line first.
    TempDir dir("interrupt-reference");
    const std::string jsonPath = (dir / "r.json").string();
    const ProcessResult r = signalledAfter("--mode split -n 1 --reference cpu --json '" + jsonPath + "'", "out",
                                           "--- results ---", 1.0, "TERM", dir);
    EXPECT_EQ(r.status, 143) << r.out << r.err;
    EXPECT_FALSE(contains(r.out, "  reference: cpu (")) << "the reference ran to its end: " << r.out;
    EXPECT_TRUE(contains(r.out, "--- INTERRUPTED by SIGTERM: during the host's float64 conv-T")) << r.out;
    EXPECT_TRUE(contains(r.out, "  mode=split     not run")) << r.out;
    EXPECT_LT(r.seconds, 60.0) << "generous: the reference alone takes 8-16 s, the split run minutes";
    const nlohmann::json report = nlohmann::json::parse(readText(jsonPath));
    EXPECT_EQ(report.at("verdict").at("exit_status"), 143);
    EXPECT_EQ(schemaErrors(report), "");
}

TEST(Interrupt, RepeatCountsCompletedRunsAndTheJsonReportValidates) {
    // Runs of multipass take about 0.3 s each at --preset small; SIGTERM lands after the
    // third, most likely inside a later run, which must not count. --reference none
    // classifies each run as it ends (a reference run after the modes would hold them).
    TempDir dir("interrupt-repeat");
    const ProcessResult late =
        signalledAfter("--preset small -n 3 --mode multipass --repeat 500 --reference none --format json", "err",
                       "[run 3/500]", 0.1, "TERM", dir);
    EXPECT_EQ(late.status, 143) << late.err;
    // The text report is on stderr with --format json.
    size_t completed = 0;
    for (const std::string& line : lines(late.err)) completed += contains(line, "-> ok:") && contains(line, "/500]");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(late.err, m, std::regex(R"(  multipass: 0/(\d+) runs wrong)"))) << late.err;
    EXPECT_EQ(std::stoul(m[1]), completed) << late.err;
    EXPECT_GT(completed, 0u) << late.err;
    const nlohmann::json report = nlohmann::json::parse(late.out);
    EXPECT_EQ(report.at("verdict").at("exit_status"), 143);
    EXPECT_EQ(schemaErrors(report), "");
}

TEST(Interrupt, SighupCountsAsSigtermAndTheOutputFileIsWritten) {
    // A terminal closing under a long sweep: exit 143 as for SIGTERM, with --json written
    // from the lengths that finished.
    TempDir dir("sighup");
    const std::string file = (dir / "r.json").string();
    const ProcessResult r = signalledAfter("--preset small --sweep 1..2000 --mode split --json '" + file + "'", "out",
                                           "--- results for N=2 ---", 0.2, "HUP", dir);
    EXPECT_EQ(r.status, 143) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "--- INTERRUPTED by SIGTERM")) << r.out;
    const json j = json::parse(readText(file));
    EXPECT_EQ(j.at("verdict").at("exit_status"), 143);
    EXPECT_FALSE(j.at("modes").empty());
    EXPECT_EQ(schemaErrors(j), "");
}

// `command` under /bin/sh, with "REPRO" standing for the executable.
ProcessResult shell(std::string command) {
    for (size_t at; (at = command.find("REPRO")) != std::string::npos;) {
        command.replace(at, 5, std::string("\"") + REPRO_EXECUTABLE + "\"");
    }
    return runProcess("/bin/sh", {"-c", command}, {}, 120);
}

TEST(UnwritableStreams, EveryLostWriteIsExitOneNeverAnAbort) {
    // --help and --version to a full device, a report to a full device in both forms, and
    // a closed stderr with a usage error.
    for (const std::string& command :
         {std::string("REPRO --help > /dev/full"), std::string("REPRO --version > /dev/full"),
          std::string("REPRO --preset tiny -n 1 --mode split > /dev/full"),
          std::string("REPRO --preset tiny -n 1 --mode split --format json > /dev/full"),
          std::string("REPRO -n 0 2>&-")}) {
        const ProcessResult r = shell(command);
        EXPECT_EQ(r.status, 1) << command << "\n" << r.err;
    }
    EXPECT_EQ(shell("REPRO --help > /dev/full").err, "repro: the output could not be written to stdout\n");
}

TEST(UnwritableStreams, AClosedPipeStillWritesTheOutputFile) {
    // `| head -1` closes the pipe after the first line: SIGPIPE is ignored, the write error
    // is exit 1, and --json is still written.
    TempDir dir("closed-pipe");
    const std::string file = (dir / "r.json").string(), status = (dir / "status").string();
    const ProcessResult r =
        shell("{ REPRO --preset tiny -n 2 --json '" + file + "'; echo $? > '" + status + "'; } | head -1");
    EXPECT_EQ(readText(status), "1\n") << r.err;
    const json j = json::parse(readText(file));
    EXPECT_EQ(j.at("verdict").at("exit_status"), 0);
    EXPECT_EQ(j.at("modes").size(), 3u);
}

TEST(SweepDumps, AreNamedPerChainLength) {
    TempDir dir("sweep-dumps");
    const ProcessResult r = runRepro(
        {"--preset", "tiny", "--sweep", "1..3", "--mode", "split", "--dump-dir", (dir / "d").string()}, {}, 120);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    for (const char* name : {"split-n1.f32", "split-n2.f32", "split-n3.f32"}) {
        EXPECT_TRUE(std::filesystem::is_regular_file(dir / "d" / name)) << name;
    }
}

// ---- issue 35, section 4: hostile inputs on the built-in chain ----------------------------

// Two documents to one file: the second replaced the first without a word (R11), for any
// spelling of the path. Refused before anything runs, and --spirv's modules are inputs.
TEST(OutputPaths, TwoDocumentsOrADocumentAndAnInputOnOneFileAreRefusedBeforeAnyWork) {
    TempDir dir("output-collision");
    const std::string r = (dir / "r.json").string(), md = (dir / "r.md").string();
    const ProcessResult traced = runRepro({"--preset", "tiny", "-n", "2", "--trace", r, "--json", r, "-q"});
    EXPECT_EQ(traced.status, 1) << traced.out << traced.err;
    EXPECT_EQ(traced.err, "repro: --json '" + r + "' and --trace '" + r +
                              "' name the same file, so one document would replace the other; expected a file of "
                              "its own for each\n");
    EXPECT_EQ(traced.out, "") << "nothing ran";
    const std::string spelled = (dir.path() / "." / "r.md").string();
    const ProcessResult markdown =
        runRepro({"--preset", "tiny", "-n", "2", "--format", "markdown", "-o", md, "--json", spelled, "-q"});
    EXPECT_EQ(markdown.status, 1) << markdown.out << markdown.err;
    EXPECT_EQ(markdown.err, "repro: -o/--output '" + md + "' and --json '" + spelled +
                                "' name the same file, so one document would replace the other; expected a file of "
                                "its own for each\n");
    EXPECT_FALSE(std::filesystem::exists(md)) << "nothing was written";
    // A copy of the built modules as --spirv DIR, and -o over one of them.
    for (const char* module : {"conv_t.spv", "slice.spv"})
        std::filesystem::copy_file(std::filesystem::path(REPRO_BUILT_SPIRV_DIR) / module, dir / module);
    const std::string slice = (dir / "slice.spv").string();
    const std::string before = readText(slice);
    const ProcessResult spirv = runRepro({"--preset", "tiny", "-n", "2", "--spirv", dir.path().string(), "-o", slice});
    EXPECT_EQ(spirv.status, 1) << spirv.out << spirv.err;
    EXPECT_EQ(spirv.err, "repro: -o/--output '" + slice + "' is the --spirv module '" + slice +
                             "', which the document would replace; expected another path for the document\n");
    EXPECT_EQ(readText(slice), before) << "the module is untouched";
    // Devices are written in place: two documents to /dev/null are no collision.
    const ProcessResult nulls =
        runRepro({"--preset", "tiny", "-n", "2", "--json", "/dev/null", "--trace", "/dev/null"});
    EXPECT_EQ(nulls.status, 0) << nulls.out << nulls.err;
}

// A name of 248..255 bytes is valid, but its temporary ".NAME.XXXXXX" was not: the document
// was lost after the run (R12). The temporary name is cut to fit, so the document is written.
TEST(OutputPaths, ADocumentWithALongValidNameIsWritten) {
    TempDir dir("long-name");
    const std::string name = std::string(250, 'L') + ".json";  // 255 bytes, NAME_MAX
    const ProcessResult r = runRepro({"--preset", "tiny", "-n", "2", "--format", "json", "-o", (dir / name).string()});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(r.err, "");
    const json j = json::parse(readText(dir / name), nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "the document is whole";
    EXPECT_EQ(j.at("verdict").at("exit_status"), 0);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1)
        << "no temporary file left";
}

// A writable file in a folder where no new file can be made (read-only or immutable; here
// /proc/self, as any user): the file passed the check, the run happened, then the write's
// temporary file failed and the document was lost (R12). Now refused before the run.
TEST(OutputPaths, AFolderWhereTheTemporaryFileCannotBeMadeIsRefusedBeforeAnyWork) {
    const ProcessResult r = runRepro({"--preset", "tiny", "-n", "2", "-o", "/proc/self/comm"});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_EQ(r.err, "repro: -o/--output: cannot write '/proc/self/comm' (No such file or directory)\n");
    EXPECT_EQ(r.out, "") << "nothing ran";
}

// A reproduced run whose stdout document is lost keeps its 2, and says the document is lost
// (N12: the line came only when the status was 0).
TEST(UnwritableStreams, AReproducedRunSaysItsDocumentWasLostAndKeepsItsStatus) {
    const ProcessResult r = shell("REPRO --preset tiny -n 2 --drop-dispatch 2 --format json > /dev/full");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "--- CONTROL CAUGHT")) << r.err;
    EXPECT_EQ(repro::test::count(r.err, "repro: the report could not be written to stdout\n"), 1u) << r.err;
}

// VK_DRIVER_FILES naming /dev/zero or a FIFO beside a corrupt manifest: the manifest check
// read /dev/zero until memory ran out (R9). Now each is named without being read.
TEST(LoaderProblems, AManifestThatIsADeviceOrAFifoIsNamedWithoutReadingIt) {
    TempDir dir("manifest-device");
    const std::string broken = (dir / "broken.json").string(), fifo = (dir / "fifo.json").string();
    std::ofstream(broken) << R"({"file_format_version": "1.0.0", "ICD": )";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const ProcessResult r = runProcess(
        "/bin/sh", {"-c", std::string("ulimit -v 4194304; exec '") + REPRO_EXECUTABLE + "' --preset tiny -n 1"},
        {"VK_DRIVER_FILES=" + broken + ":/dev/zero:" + fifo}, 60);
    EXPECT_EQ(r.status, 125) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "driver manifest '/dev/zero' cannot be read (a character device, not a regular file)"))
        << r.err;
    EXPECT_TRUE(contains(r.err, "driver manifest '" + fifo + "' cannot be read (a FIFO, not a regular file)")) << r.err;
}

}  // namespace
