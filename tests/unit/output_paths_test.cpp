// Unit tests for src/core/output_paths.{hpp,cpp}: the pre-flight check of --output,
// --dump-dir and the children's TMPDIR, with the reason strerror gives.
#include "cli/output_paths.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/atomic_file.hpp"
#include "temp_folder.hpp"

namespace repro {
namespace {

using Folder = test::TempFolder;

// Sets an environment variable for one test and restores it after.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value, 1);
    }
    ~ScopedEnv() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(OutputPaths, FileInAMissingFolderIsNamedWithStrerror) {
    EXPECT_EQ(fileWriteProblem("/nonexistent-repro-dir/r.json").value_or(""), "No such file or directory");
}

TEST(OutputPaths, CheckingLeavesNoFileAndKeepsAnExistingOne) {
    Folder f("output-paths");
    const std::string fresh = (f.path() / "r.json").string();
    EXPECT_FALSE(fileWriteProblem(fresh).has_value());
    EXPECT_FALSE(std::filesystem::exists(fresh)) << "the check must not leave the file it made";
    const std::string kept = (f.path() / "kept.json").string();
    std::ofstream(kept) << "old report";
    EXPECT_FALSE(fileWriteProblem(kept).has_value());
    std::stringstream text;
    text << std::ifstream(kept).rdbuf();
    EXPECT_EQ(text.str(), "old report") << "the check must not truncate";
}

TEST(OutputPaths, DumpDirIsCreatedOrRefusedWithTheReason) {
    Folder f("output-paths");
    const std::string nested = (f.path() / "a" / "b").string();
    EXPECT_FALSE(directoryWriteProblem(nested).has_value());
    EXPECT_TRUE(std::filesystem::is_directory(nested));
    EXPECT_TRUE(std::filesystem::is_empty(nested)) << "the write probe is removed";
    EXPECT_EQ(directoryWriteProblem("/dev/null/x").value_or(""), "Not a directory");
    std::ofstream(f.path() / "file") << "x";
    EXPECT_EQ(directoryWriteProblem((f.path() / "file").string()).value_or(""), "Not a directory");
}

TEST(OutputPaths, OptionsNameTheFirstUnwritablePathQuoted) {
    Options o;
    EXPECT_FALSE(outputPathProblem(o).has_value());
    o.output = "/nonexistent-repro-dir/a\nb.json";
    EXPECT_EQ(outputPathProblem(o).value_or(""),
              "-o/--output: cannot write '/nonexistent-repro-dir/a\\nb.json' (No such file or directory)");
    o.output.reset();
    o.dumpDir = "/dev/null/x";
    EXPECT_EQ(outputPathProblem(o).value_or(""),
              "--dump-dir: cannot use '/dev/null/x' as a directory (Not a directory)");
}

TEST(OutputPaths, TmpdirIsCheckedOnlyForChildProcesses) {
    const ScopedEnv tmp("TMPDIR", "/nonexistent-repro-tmp");
    Options o;
    EXPECT_FALSE(outputPathProblem(o).has_value()) << "a single run starts no children";
    for (bool Options::*flag :
         {&Options::matrix, &Options::triage, &Options::driverEnvSweep, &Options::watchdogProbe}) {
        Options children;
        children.*flag = true;
        EXPECT_EQ(outputPathProblem(children).value_or(""),
                  "TMPDIR: cannot create the children's log folder in '/nonexistent-repro-tmp' (No such file or "
                  "directory)");
    }
}

// ---- issue 35, section 4: what the atomic write needs, and outputs that collide ----------

// The write's temporary ".NAME.XXXXXX" is cut to the folder's NAME_MAX, so that any valid
// name can be written (R12: 248..255-byte names lost their document after the run).
TEST(OutputPaths, TheTemporaryNameFitsForEveryValidName) {
    Folder f("output-paths");
    for (const size_t length : {size_t{1}, size_t{240}, size_t{247}, size_t{248}, size_t{255}}) {
        const std::string path = (f.path() / std::string(length, 'L')).string();
        const std::string pattern = temporaryPattern(path);
        EXPECT_LE(std::filesystem::path(pattern).filename().string().size(), 255u) << length;
        EXPECT_TRUE(pattern.ends_with(".XXXXXX")) << pattern;
        EXPECT_EQ(std::filesystem::path(pattern).parent_path(), f.path());
        EXPECT_FALSE(fileWriteProblem(path).has_value()) << length;
        EXPECT_FALSE(writeFileAtomically(path, "{}\n").has_value()) << length;
        std::stringstream text;
        text << std::ifstream(path).rdbuf();
        EXPECT_EQ(text.str(), "{}\n") << length;
    }
    EXPECT_EQ(std::filesystem::path(temporaryPattern((f.path() / "r.json").string())).filename(), ".r.json.XXXXXX");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(f.path()), std::filesystem::directory_iterator()), 5)
        << "the five documents, no temporary file";
}

// An existing, writable file in a folder where no new file can be made (read-only, immutable;
// /proc/self here, for any user): the write's temporary file fails, so the check must (R12).
TEST(OutputPaths, AFolderWhereTheTemporaryFileCannotBeMadeFailsTheCheck) {
    EXPECT_EQ(fileWriteProblem("/proc/self/comm").value_or(""), "No such file or directory");
    EXPECT_FALSE(fileWriteProblem("/dev/null").has_value()) << "a device is written in place";
}

// Two documents on one file, or a document on an input (R11).
TEST(OutputCollision, TwoOutputsOnOneFileAreNamedTogether) {
    Folder f("output-collision");
    Options o;
    o.json = (f.path() / "r.json").string();
    o.trace = (f.path() / "t.json").string();
    EXPECT_FALSE(outputCollision(o, {}).has_value());
    o.trace = (f.path() / "." / "r.json").string();  // not there yet: the same path spelled otherwise
    EXPECT_EQ(outputCollision(o, {}).value_or(""),
              "--json '" + *o.json + "' and --trace '" + *o.trace +
                  "' name the same file, so one document would replace the other; expected a file of its own for "
                  "each");
    // An existing file through a symbolic link, and -o against --json.
    o = Options{};
    const std::string real = f.write("real.md", "old");
    std::filesystem::create_symlink(real, f.path() / "link.md");
    o.output = real;
    o.json = (f.path() / "link.md").string();
    EXPECT_TRUE(outputCollision(o, {}).value_or("").starts_with("-o/--output '" + real + "' and --json '")) << *o.json;
    // Devices are written in place: no collision.
    o = Options{};
    o.json = "/dev/null";
    o.trace = "/dev/null";
    EXPECT_FALSE(outputCollision(o, {}).has_value());
}

TEST(OutputCollision, AnOutputOnAnInputIsNamedWithTheInput) {
    Folder f("output-collision");
    Options o;
    o.scenario = f.write("s.toml", "name = \"s\"\n");
    o.spirvDir = f.path().string();
    EXPECT_EQ(commandLineInputs(o).size(), 3u) << "the scenario file and --spirv's two modules";
    o.output = *o.scenario;
    EXPECT_EQ(outputCollision(o, commandLineInputs(o)).value_or(""),
              "-o/--output '" + *o.scenario + "' is the --scenario file '" + *o.scenario +
                  "', which the document would replace; expected another path for the document");
    o.output.reset();
    o.json = (f.path() / "mix.spv").string();
    EXPECT_FALSE(outputCollision(o, commandLineInputs(o)).has_value());
    // A kernel's module, known once the file is parsed, passed by the caller.
    const std::vector<InputFile> withKernel = {{.what = "kernel 'mix''s module", .path = *o.json}};
    EXPECT_EQ(outputCollision(o, withKernel).value_or(""),
              "--json '" + *o.json + "' is kernel 'mix''s module '" + *o.json +
                  "', which the document would replace; expected another path for the document");
    EXPECT_FALSE(std::filesystem::exists(*o.json)) << "the check creates nothing";
}

}  // namespace
}  // namespace repro
