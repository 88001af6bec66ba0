// The shared end-to-end harness: running the real executables (repro, and repro_faulty, its
// test build with the fault and trace seams) with a time limit, temporary folders, and the
// driver check that lets lavapipe-only tests skip with a reason on a real GPU. The chain
// the tests compute themselves is in independent_chain.hpp.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "independent_chain.hpp"
#include "process.hpp"

namespace repro::test {

// repro with `args` and `env` ("NAME=value") added; killed after `limitSeconds` (then
// `timedOut` says so), so no test can hang.
ProcessResult runRepro(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                       double limitSeconds = 600);
// The same with repro_faulty (REPRO_FAULT, REPRO_TRACE).
ProcessResult runFaulty(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                        double limitSeconds = 600);

// A fresh, empty folder under the system's temporary directory, removed with its contents
// when the object goes.
class TempDir {
  public:
    explicit TempDir(const std::string& tag);
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

  private:
    std::filesystem::path path_;
};

// The text of a file ("" when it cannot be read).
std::string readText(const std::filesystem::path& path);

// Whether the device repro picks by default is lavapipe (asked once per test process).
bool onLavapipe();

}  // namespace repro::test

// Skips the current test with a reason unless the default device is lavapipe: for tests
// whose expectations are lavapipe's (its memory types, speed, exact messages).
#define REPRO_REQUIRE_LAVAPIPE()                                                                                   \
    do {                                                                                                           \
        if (!::repro::test::onLavapipe()) GTEST_SKIP() << "needs lavapipe (the default device is another driver)"; \
    } while (0)
