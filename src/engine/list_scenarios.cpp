// --list-scenarios (see engine/list_scenarios.hpp).
#include "engine/list_scenarios.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "core/errors.hpp"
#include "core/exit_status.hpp"
#include "core/output.hpp"
#include "core/text.hpp"
#include "scenario/scenario_parse.hpp"

namespace repro {

std::vector<std::string> scenarioFolders() {
    std::vector<std::string> out;
    std::error_code ec;
    // Beside the binary first (an install moved with --prefix or DESTDIR), then where it was
    // configured to go, then the source tree it was built from.
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path beside =
        ec ? std::filesystem::path() : exe.parent_path() / ".." / "share/repro/scenarios";
    for (const std::filesystem::path& folder :
         {beside, std::filesystem::path(REPRO_INSTALLED_SCENARIOS), std::filesystem::path(REPRO_SOURCE_SCENARIOS)}) {
        if (folder.empty() || !std::filesystem::is_directory(folder, ec)) continue;
        const std::string canonical = std::filesystem::weakly_canonical(folder, ec).string();
        if (std::find(out.begin(), out.end(), canonical) == out.end()) out.push_back(canonical);
    }
    return out;
}

std::vector<std::string> scenarioFiles(const std::string& folder, std::error_code& ec) {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
        if (entry.path().extension() == ".toml" && entry.is_regular_file(ec)) files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

int listScenarios() {
    const auto folders = scenarioFolders();
    if (folders.empty()) {
        say("no scenarios/ folder found (looked in {} and {})", REPRO_SOURCE_SCENARIOS, REPRO_INSTALLED_SCENARIOS);
        return kExitNotReproduced;
    }
    int status = kExitNotReproduced;
    for (const auto& folder : folders) {
        std::error_code ec;
        say("{}:", folder);
        for (const auto& file : scenarioFiles(folder, ec)) {
            try {
                const scenario::Scenario s = scenario::loadScenario(file);
                say("  {:<40} expected: {:<15} {}", escaped(s.name), s.expected, escaped(s.source));
            } catch (const UsageError& e) {
                sayError("repro: {}", e.what());
                status = kExitUsage;
            }
        }
    }
    return status;
}

}  // namespace repro
