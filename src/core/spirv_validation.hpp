// spirv-val (SPIRV-Tools' validator, the distribution's spirv-tools package) over the SPIR-V
// modules a user gives with --spirv: a module that breaks the SPIR-V or Vulkan rules makes
// a wrong result the application's, not the driver's. spirv-val checks the static rules
// only; undefined behaviour at run time (a barrier() reached by only some invocations after
// a non-uniform return, an out-of-bounds access) passes it, so "valid" never clears a module.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace repro {

struct SpirvValidation {
    enum class State { Valid, Invalid, NotChecked };
    std::string file;  // the module's file name, "conv_t.spv"
    State state = State::NotChecked;
    std::string message;  // Invalid: spirv-val's first line; NotChecked: why not
};

// The target environment the modules are checked for (spirv-val --target-env).
inline constexpr const char* kSpirvValTargetEnv = "vulkan1.3";

// The first executable file named `program` in the directories of `path` (PATH's
// colon-separated form); empty when there is none.
std::filesystem::path findOnPath(const std::string& program, const std::string& path);

// Runs `spirvVal` (a path; empty: not found) on each of `files` in `dir`, at most 30 s
// each, its output in a temporary file under `scratch`. Never throws: a validator that
// cannot run leaves the module NotChecked with the reason.
std::vector<SpirvValidation> validateModules(const std::filesystem::path& spirvVal, const std::filesystem::path& dir,
                                             const std::vector<std::string>& files,
                                             const std::filesystem::path& scratch);

// One line for the header and the cause: "the SPIR-V modules are the user's (--spirv):
// spirv-val (vulkan1.3): conv_t.spv valid, slice.spv invalid: error: ...".
std::string userModulesLine(const std::vector<SpirvValidation>& results);

// --spirv DIR's conv_t.spv and slice.spv through the spirv-val found on PATH, its output
// under TMPDIR (else /tmp): userModulesLine of the results.
std::string checkUserModules(const std::filesystem::path& dir);

}  // namespace repro
