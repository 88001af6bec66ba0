// --driver-env-sweep through the simulated driver posing as RADV (issue 37 §3): a driver
// setting that makes the bug go away is named with what that proves, and a setting the driver
// library does not know is not run and says so. The driver is lavapipe under a copy of its
// library with RADV's option name "syncshaders" added as a string of its own (a library's
// option table is such strings: core/variant.hpp optionNameInBytes), loaded through an ICD
// manifest of the test's own; the layer's `cured-by:syncshaders` withholds its seed bug when
// RADV_DEBUG names syncshaders, as a driver whose bug that toggle fixes would.
// Every run is bounded in time (bounded_process.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "bounded_process.hpp"
#include "process.hpp"

#if !defined(REPRO_EXECUTABLE) || !defined(REPRO_SIMDRIVER_LAYER_DIR)
#error "REPRO_EXECUTABLE and REPRO_SIMDRIVER_LAYER_DIR must be defined"
#endif

namespace {

namespace fs = std::filesystem;
using repro::test::BoundedResult;
using repro::test::contains;
using repro::test::describeEnd;
using repro::test::runBounded;

// Debian's lavapipe, where installed (mesa-vulkan-drivers).
const fs::path kLavapipe = "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so";

// A folder with a copy of lavapipe's library that also holds "\0syncshaders\0", and an ICD
// manifest naming the copy; removed at the end.
struct DriverKnowingSyncshaders {
    fs::path dir, manifest;
    DriverKnowingSyncshaders()
        : dir(fs::temp_directory_path() / ("repro-toggles-test-" + std::to_string(getpid()))),
          manifest(dir / "lvp_syncshaders_icd.json") {
        fs::remove_all(dir);
        fs::create_directories(dir);
        const fs::path library = dir / "libvulkan_lvp.so";
        fs::copy_file(kLavapipe, library);
        std::ofstream(library, std::ios::app | std::ios::binary) << std::string("\0syncshaders\0", 13);
        std::ofstream(manifest) << R"({"file_format_version": "1.0.0", "ICD": {"library_path": ")" << library.string()
                                << R"(", "api_version": "1.1.230"}})";
    }
    ~DriverKnowingSyncshaders() { fs::remove_all(dir); }
};

// repro through the layer set to `simulate`, on the driver of `driver`'s manifest only.
BoundedResult sweep(const DriverKnowingSyncshaders& driver, const std::string& simulate) {
    return runBounded(
        REPRO_EXECUTABLE, {"--driver-env-sweep", "--preset", "tiny", "-n", "2", "--mode", "multipass"},
        {std::string("VK_ADD_LAYER_PATH=") + REPRO_SIMDRIVER_LAYER_DIR, "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate",
         "REPRO_SIMULATE=" + simulate, "REPRO_SIMULATE_TRACE=", "VK_DRIVER_FILES=" + driver.manifest.string(),
         "VK_ICD_FILENAMES=" + driver.manifest.string(), "RADV_DEBUG=", "TMPDIR=" + driver.dir.string()},
        240);
}

// The seed bug (dispatches past the 2nd of a command buffer dropped: multipass zero at N = 2)
// goes away under RADV_DEBUG=syncshaders: that row is ok, exit 0, and the sweep names it as
// the cure with what it proves, a missing execution dependency; the baseline's exit stays 2.
TEST(DriverToggles, ASettingThatCuresTheBugIsNamedWithWhatItProves) {
    if (!fs::exists(kLavapipe)) GTEST_SKIP() << kLavapipe << " is not installed";
    const DriverKnowingSyncshaders driver;
    const BoundedResult r = sweep(driver, "identity;seed-bug:dispatches=2;cured-by:syncshaders");
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n  \(none\) +multipass zero +2 )"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n  RADV_DEBUG=syncshaders +multipass ok +0 +- +waits for )"
                                                    R"([^\n]*\n      if the outcome changes: a missing execution )"
                                                    R"(dependency)")))
        << r.out;
    EXPECT_TRUE(contains(r.out, "it disappears under: RADV_DEBUG=syncshaders\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "RADV_DEBUG=syncshaders cures it, which points at a missing execution dependency"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "RADV_DEBUG=hang itself adds synchronization (it implies syncshaders")) << r.out;
    // RADV appends " (LLVM x.y.z)" to the device name when LLVM compiles; the simulated RADV's
    // name has none, so the llvm row says it did not take effect and proves nothing.
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n  RADV_DEBUG=llvm +multipass zero +2 [^\n]*did not take )"
                                                    R"(effect: the device name names no LLVM)")))
        << r.out;
}

// A setting whose name the driver library does not hold (fullsync: RADV's 26.x tables, not this
// library) is not run: its row says so with the library's line, and the summary lists it apart
// from the settings that ran.
TEST(DriverToggles, ASettingTheDriverDoesNotKnowIsNotRunAndSaysSo) {
    if (!fs::exists(kLavapipe)) GTEST_SKIP() << kLavapipe << " is not installed";
    const DriverKnowingSyncshaders driver;
    const BoundedResult r = sweep(driver, "identity;seed-bug:dispatches=2;cured-by:syncshaders");
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(std::regex_search(
        r.out, std::regex(R"(\n  RADV_DEBUG=fullsync +not known to this driver +- +- +libvulkan_lvp\.so does not )"
                          R"(know RADV_DEBUG option 'fullsync': setting it tests nothing\n      if the outcome )"
                          R"(changes: a missing cache flush or invalidation where syncshaders alone stays wrong)")))
        << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(not run, not known to this driver: [^\n]*RADV_DEBUG=fullsync)")))
        << r.out;
    EXPECT_FALSE(std::regex_search(r.out, std::regex(R"(still reproduces under: [^\n]*RADV_DEBUG=fullsync)"))) << r.out;
}

// A bug no setting cures (the seed bug without cured-by): every setting the driver knows still
// reproduces, the baseline's exit 2 stays, and the summary says it disappears under none of them.
// (It used --drop-dispatch on plain lavapipe before: a control, which the sweep now refuses.)
TEST(DriverToggles, ABugNoSettingCuresIsReportedWithTheSettingsThatDidNotCureIt) {
    if (!fs::exists(kLavapipe)) GTEST_SKIP() << kLavapipe << " is not installed";
    const DriverKnowingSyncshaders driver;
    const BoundedResult r = sweep(driver, "identity;seed-bug:dispatches=2");
    EXPECT_EQ(r.status, 2) << shown(r);
    EXPECT_TRUE(contains(r.out, "it disappears under: none of them")) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(still reproduces under: [^\n]*RADV_DEBUG=syncshaders)")))
        << r.out;
}

}  // namespace
