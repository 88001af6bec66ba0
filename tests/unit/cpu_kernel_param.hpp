// A test fixture that runs its tests once per SIMD path of the CPU kernels
// (src/reference/cpu_reference.cpp, stats.cpp): the automatic choice and the forced baseline,
// through REPRO_CPU_KERNEL, restored after each test. Shared by the CPU reference and the
// verification-kernel tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace repro::test {

// The parameter is the REPRO_CPU_KERNEL value: "" (unset: the automatic choice) or
// "baseline".
class PerCpuKernel : public ::testing::TestWithParam<const char*> {
  protected:
    void SetUp() override {
        if (const char* old = std::getenv("REPRO_CPU_KERNEL")) saved_ = old;
        if (GetParam()[0] != '\0') {
            setenv("REPRO_CPU_KERNEL", GetParam(), 1);
        } else {
            unsetenv("REPRO_CPU_KERNEL");
        }
    }
    void TearDown() override {
        if (saved_) {
            setenv("REPRO_CPU_KERNEL", saved_->c_str(), 1);
        } else {
            unsetenv("REPRO_CPU_KERNEL");
        }
    }

  private:
    std::optional<std::string> saved_;
};

// The parameters and their test-name suffixes ("auto", "baseline").
inline auto cpuKernels() { return ::testing::Values("", "baseline"); }
inline std::string cpuKernelName(const ::testing::TestParamInfo<const char*>& info) {
    return std::string(info.param[0] ? info.param : "auto");
}

}  // namespace repro::test
