// spirv-val over the user's --spirv modules (spirv_validation.hpp).
#include "core/spirv_validation.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>

#include "core/subprocess.hpp"
#include "core/text.hpp"

namespace repro {

std::filesystem::path findOnPath(const std::string& program, const std::string& path) {
    for (const std::string_view dir : split(path, ':')) {
        if (dir.empty()) continue;
        const std::filesystem::path candidate = std::filesystem::path(dir) / program;
        if (::access(candidate.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(candidate)) return candidate;
    }
    return {};
}

namespace {

// The first non-empty line of `log`, or `fallback`.
std::string firstLine(const std::filesystem::path& log, const std::string& fallback) {
    std::ifstream in(log);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty()) return line;
    }
    return fallback;
}

SpirvValidation validateOne(const std::filesystem::path& spirvVal, const std::filesystem::path& module,
                            const std::filesystem::path& log) {
    SpirvValidation v{.file = module.filename().string()};
    const ChildResult r =
        runChild({spirvVal.string(), "--target-env", kSpirvValTargetEnv, module.string()}, {}, log.string(), 30);
    if (!r.started || r.timedOut || r.signal != 0 || r.status == 127) {
        v.message = r.timedOut ? "spirv-val did not finish within 30 s"
                    : r.signal ? fmt::format("spirv-val ended by signal {}", r.signal)
                               : "spirv-val could not be run" + (r.error.empty() ? "" : ": " + r.error);
        return v;
    }
    v.state = r.status == 0 ? SpirvValidation::State::Valid : SpirvValidation::State::Invalid;
    if (r.status != 0) v.message = firstLine(log, fmt::format("spirv-val exited {}", r.status));
    return v;
}

}  // namespace

std::vector<SpirvValidation> validateModules(const std::filesystem::path& spirvVal, const std::filesystem::path& dir,
                                             const std::vector<std::string>& files,
                                             const std::filesystem::path& scratch) {
    std::vector<SpirvValidation> out;
    for (const std::string& file : files) {
        if (spirvVal.empty()) {
            out.push_back({.file = file, .message = "spirv-val not found on PATH (the spirv-tools package)"});
            continue;
        }
        std::string pattern = (scratch / "repro-spirv-val-XXXXXX").string();
        const int fd = ::mkstemp(pattern.data());
        if (fd < 0) {
            out.push_back({.file = file, .message = "no temporary file for spirv-val's output"});
            continue;
        }
        ::close(fd);
        out.push_back(validateOne(spirvVal, dir / file, pattern));
        std::error_code ignored;
        std::filesystem::remove(pattern, ignored);
    }
    return out;
}

std::string userModulesLine(const std::vector<SpirvValidation>& results) {
    std::string line = fmt::format("the SPIR-V modules are the user's (--spirv): spirv-val ({}):", kSpirvValTargetEnv);
    for (size_t i = 0; i < results.size(); ++i) {
        const SpirvValidation& v = results[i];
        line += fmt::format("{} {} ", i ? "," : "", v.file);
        if (v.state == SpirvValidation::State::Valid) {
            line += "valid";
        } else {
            line += (v.state == SpirvValidation::State::Invalid ? "INVALID: " : "not checked: ") + v.message;
        }
    }
    return line;
}

std::string checkUserModules(const std::filesystem::path& dir) {
    const char* path = std::getenv("PATH");
    const char* tmp = std::getenv("TMPDIR");
    const std::filesystem::path scratch = tmp && *tmp ? tmp : "/tmp";
    return userModulesLine(
        validateModules(findOnPath("spirv-val", path ? path : ""), dir, {"conv_t.spv", "slice.spv"}, scratch));
}

}  // namespace repro
