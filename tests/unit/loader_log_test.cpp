// Unit tests for src/core/loader_log.{hpp,cpp}: the driver-list variables as the loader
// reads them, --expect-driver against a library path, and driver manifests that are not
// JSON (which the loader reports as VK_ERROR_OUT_OF_HOST_MEMORY).
#include "forensics/loader_log.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "temp_folder.hpp"

namespace repro {
namespace {

using Folder = test::TempFolder;

TEST(DriverVariables, EmptyDriverFilesNamesTheVariable) {
    EXPECT_EQ(driverVariableProblem("", nullptr).value_or(""),
              "VK_DRIVER_FILES is set but empty: the loader loads no driver (unset it to use the installed drivers, "
              "or name a driver manifest)");
    EXPECT_TRUE(driverVariableProblem(":", nullptr).has_value()) << "only separators is empty too";
}

TEST(DriverVariables, IcdFilenamesCountsOnlyWithoutDriverFiles) {
    Folder f("loader-log");
    const std::string manifest = f.write("icd.json", "{}");
    EXPECT_EQ(driverVariableProblem(nullptr, "").value_or("").rfind("VK_ICD_FILENAMES is set but empty", 0), 0u);
    // The loader reads VK_DRIVER_FILES when it is set; VK_ICD_FILENAMES is then ignored.
    EXPECT_FALSE(driverVariableProblem(manifest.c_str(), "").has_value());
    EXPECT_FALSE(driverVariableProblem(nullptr, nullptr).has_value());
}

TEST(DriverVariables, MissingFileIsNamedQuoted) {
    const auto problem = driverVariableProblem("/nonexistent-repro/a\nb.json", nullptr);
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(problem->rfind("VK_DRIVER_FILES names '/nonexistent-repro/a\\nb.json', which does not exist", 0), 0u)
        << *problem;
}

TEST(LibraryMatches, PartOfThePathCaseInsensitiveOrTheSameFile) {
    EXPECT_TRUE(libraryMatches("libvulkan_lvp", "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"));
    EXPECT_TRUE(libraryMatches("LIBVULKAN_LVP.SO", "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"));
    EXPECT_FALSE(libraryMatches("libvulkan_radeon", "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"));
    EXPECT_FALSE(libraryMatches("", "/usr/lib/libvulkan_lvp.so"));
    EXPECT_FALSE(libraryMatches("lvp", ""));
    Folder f("loader-log");
    const std::string real = f.write("libvulkan_built.so", "");
    std::filesystem::create_symlink(real, f.path() / "link.so");
    // A symbolic link to the library the manifest names is the same driver.
    EXPECT_TRUE(libraryMatches((f.path() / "link.so").string(), real));
}

TEST(DriverLibraries, FromTheLoadersSearchLines) {
    const std::vector<LoaderMessage> log = {
        {.text = "Found ICD manifest file /m/lvp.json, version \"1.0.0\""},
        {.text = "Searching for ICD drivers named /lib/libvulkan_lvp.so"},
        {.text = "Found ICD manifest file /m/radeon.json, version \"1.0.0\""},
        {.text = "Searching for ICD drivers named /lib/libvulkan_radeon.so"},
        {.severity = LoaderMessage::Severity::Error, .text = "loader_icd_scan: failed\n"},
    };
    EXPECT_EQ(driverLibraries(log), (std::vector<std::string>{"/lib/libvulkan_lvp.so", "/lib/libvulkan_radeon.so"}));
    EXPECT_EQ(manifestOf(log, "/lib/libvulkan_radeon.so").value_or(""), "/m/radeon.json");
    EXPECT_EQ(loaderProblems(log), (std::vector<std::string>{"loader_icd_scan: failed"}));
}

TEST(UnreadableManifests, CorruptJsonIsNamedWithWhereItBreaks) {
    Folder f("loader-log");
    const std::string good = f.write("good.json", R"({"file_format_version": "1.0.0", "ICD": {}})");
    const std::string bad = f.write("bad.json", R"({"file_format_version": "1.0.0", "ICD": )");
    const std::string empty = f.write("empty.json", "");
    EXPECT_TRUE(unreadableDriverManifests(good).empty());
    const auto one = unreadableDriverManifests(good + ":" + bad);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].rfind("'" + bad + "' is not valid JSON (parse error at byte ", 0), 0u) << one[0];
    // A folder is read as the loader reads it: every *.json in it.
    const auto all = unreadableDriverManifests(f.path().string());
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0], "'" + bad + "' is not valid JSON (parse error at byte 41)");  // past its 40 bytes
    EXPECT_EQ(all[1], "'" + empty + "' is not valid JSON (the file is empty)");
}

// VK_DRIVER_FILES may name anything: a FIFO blocked the check's open, /dev/zero filled memory
// (R9). Neither is read now; each is named with what it is.
TEST(UnreadableManifests, ADeviceOrAFifoIsNamedWithoutBeingRead) {
    Folder f("loader-log");
    const std::string fifo = (f.path() / "fifo.json").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto bad = unreadableDriverManifests("/dev/zero:" + fifo + ":" + f.path().string() + "/missing.json");
    ASSERT_EQ(bad.size(), 2u) << "a missing file is the loader's to name";
    EXPECT_EQ(bad[0], "'/dev/zero' cannot be read (a character device, not a regular file)");
    EXPECT_EQ(bad[1], "'" + fifo + "' cannot be read (a FIFO, not a regular file)");
}

TEST(UnreadableManifests, DefaultFoldersAreTheLoadersLinuxOnes) {
    const std::string path = defaultDriverManifestPath();
    EXPECT_NE(path.find("/etc/vulkan/icd.d"), std::string::npos) << path;  // SYSCONFDIR, whatever XDG_* say
    EXPECT_EQ(path.find("::"), std::string::npos) << path;
}

}  // namespace
}  // namespace repro
