// Reading the loader's messages (see loader_log.hpp).
#include "core/loader_log.hpp"

#include <algorithm>
#include <filesystem>

namespace repro {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
    return s;
}

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
    return std::string(trim(rest));
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
        const std::string text(trim(m.text));
        if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
    }
    return out;
}

std::vector<std::string> missingDriverFiles(std::string_view value) {
    std::vector<std::string> missing;
    size_t start = 0;
    while (start <= value.size()) {
        const size_t colon = value.find(':', start);
        const std::string entry(value.substr(start, colon == std::string_view::npos ? std::string_view::npos
                                                                                     : colon - start));
        std::error_code ec;
        if (!entry.empty() && !std::filesystem::exists(entry, ec)) missing.push_back(entry);
        if (colon == std::string_view::npos) break;
        start = colon + 1;
    }
    return missing;
}

}  // namespace repro
