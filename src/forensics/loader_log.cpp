// Reading the loader's messages (see loader_log.hpp).
#include "forensics/loader_log.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iterator>

#include "core/bounded_file.hpp"
#include "core/text.hpp"

namespace repro {
namespace {

// The text after `prefix` up to `end` (or the end of the line when `end` is empty).
std::optional<std::string> after(std::string_view line, std::string_view prefix, std::string_view end = {}) {
    const size_t at = line.find(prefix);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view rest = line.substr(at + prefix.size());
    if (!end.empty()) {
        const size_t stop = rest.find(end);
        if (stop == std::string_view::npos) return std::nullopt;
        rest = rest.substr(0, stop);
    }
    return std::string(trimmed(rest));
}

// The ':'-separated entries of `value`, empty ones left out.
std::vector<std::string> entriesOf(std::string_view value) {
    std::vector<std::string> out;
    for (const std::string_view entry : split(value, ':')) {
        if (!entry.empty()) out.emplace_back(entry);
    }
    return out;
}

// Why `path` is not a JSON document, as "is not valid JSON (REASON)" or "cannot be read
// (REASON)", or "" when it is one. Only a regular file of at most kMaxManifestBytes is read
// (core/bounded_file.hpp): a FIFO would block the open, /dev/zero fill memory. A file that
// does not exist is left to the loader, which says so itself.
std::string jsonProblem(const std::filesystem::path& path) {
    const BoundedRead file = readRegularFile(path.string(), kMaxManifestBytes);
    if (file.error == ENOENT) return "";
    if (!file.problem.empty()) return fmt::format("cannot be read ({})", file.problem);
    try {
        const nlohmann::json parsed = nlohmann::json::parse(file.bytes);
        return parsed.is_object() ? "" : "is not valid JSON (not a JSON object)";
    } catch (const nlohmann::json::parse_error& e) {
        return file.bytes.empty() ? std::string("is not valid JSON (the file is empty)")
                                  : fmt::format("is not valid JSON (parse error at byte {})", e.byte);
    }
}

}  // namespace

std::optional<std::string> driverLibraryInUse(const std::vector<LoaderMessage>& log) {
    std::optional<std::string> found;
    for (const auto& m : log) {
        if (m.text.find("Using \"") == std::string::npos) continue;
        if (auto lib = after(m.text, "with driver: \"", "\"")) found = lib;
    }
    return found;
}

std::optional<std::string> manifestOf(const std::vector<LoaderMessage>& log, std::string_view library) {
    std::optional<std::string> manifest;
    for (const auto& m : log) {
        if (auto path = after(m.text, "Found ICD manifest file ", ",")) {
            manifest = path;
        } else if (auto lib = after(m.text, "Searching for ICD drivers named ")) {
            if (*lib == library && manifest) return manifest;
        }
    }
    return std::nullopt;
}

std::vector<std::string> driverLibraries(const std::vector<LoaderMessage>& log) {
    std::vector<std::string> out;
    for (const auto& m : log) {
        auto lib = after(m.text, "Searching for ICD drivers named ");
        if (lib && std::find(out.begin(), out.end(), *lib) == out.end()) out.push_back(*lib);
    }
    return out;
}

std::vector<std::string> loaderProblems(const std::vector<LoaderMessage>& log) {
    std::vector<std::string> out;
    for (const auto& m : log) {
        if (m.severity != LoaderMessage::Severity::Error) continue;
        const std::string text(trimmed(m.text));
        if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
    }
    return out;
}

std::optional<std::string> driverVariableProblem(const char* driverFiles, const char* icdFilenames) {
    const char* variable = driverFiles ? "VK_DRIVER_FILES" : "VK_ICD_FILENAMES";
    const char* value = driverFiles ? driverFiles : icdFilenames;
    if (!value) return std::nullopt;
    if (entriesOf(value).empty()) {
        return fmt::format(
            "{} is set but empty: the loader loads no driver (unset it to use the installed drivers, "
            "or name a driver manifest)",
            variable);
    }
    // The first entry that names no existing file or directory.
    for (const std::string& entry : entriesOf(value)) {
        std::error_code ec;
        if (std::filesystem::exists(entry, ec)) continue;
        return fmt::format(
            "{} names {}, which does not exist: the loader would load no driver from it (check the "
            "path; for a Mesa build tree, the absolute path of its *_devenv_icd.*.json)",
            variable, quote(entry));
    }
    return std::nullopt;
}

bool libraryMatches(std::string_view expected, std::string_view library) {
    if (expected.empty() || library.empty()) return false;
    if (lower(library).find(lower(expected)) != std::string::npos) return true;
    std::error_code ec;
    return std::filesystem::equivalent(std::filesystem::path(expected), std::filesystem::path(library), ec) && !ec;
}

std::vector<std::string> unreadableDriverManifests(std::string_view searchPath) {
    std::vector<std::string> out;
    auto checkFile = [&](const std::filesystem::path& file) {
        if (const std::string why = jsonProblem(file); !why.empty()) {
            out.push_back(fmt::format("{} {}", quote(file.string()), why));
        }
    };
    for (const std::string& entry : entriesOf(searchPath)) {
        std::error_code ec;
        if (!std::filesystem::is_directory(entry, ec)) {
            checkFile(entry);
            continue;
        }
        std::vector<std::filesystem::path> files;
        for (const auto& f : std::filesystem::directory_iterator(entry, ec)) {
            if (f.path().extension() == ".json") files.push_back(f.path());
        }
        std::sort(files.begin(), files.end());
        for (const auto& f : files) checkFile(f);
    }
    return out;
}

std::string defaultDriverManifestPath() {
    auto env = [](const char* name, const char* fallback) {
        const char* v = std::getenv(name);
        return std::string(v && *v ? v : fallback);
    };
    const char* home = std::getenv("HOME");
    std::vector<std::string> roots;
    if (const char* c = std::getenv("XDG_CONFIG_HOME"); c && *c) {
        roots.emplace_back(c);
    } else if (home) {
        roots.push_back(std::string(home) + "/.config");
    }
    for (const auto& d : entriesOf(env("XDG_CONFIG_DIRS", "/etc/xdg"))) roots.push_back(d);
    roots.emplace_back("/etc");
    if (const char* d = std::getenv("XDG_DATA_HOME"); d && *d) {
        roots.emplace_back(d);
    } else if (home) {
        roots.push_back(std::string(home) + "/.local/share");
    }
    for (const auto& d : entriesOf(env("XDG_DATA_DIRS", "/usr/local/share:/usr/share"))) roots.push_back(d);
    std::string path;
    for (const auto& r : roots) path += (path.empty() ? "" : ":") + r + "/vulkan/icd.d";
    return path;
}

}  // namespace repro
