// The GPU-relevant filter of the kernel command line (see kernel_cmdline.hpp).
#include "forensics/kernel_cmdline.hpp"

#include <array>
#include <vector>

#include <fmt/format.h>

namespace repro {
namespace {

// Prefixes of the parameters a report keeps. Sources: Linux
// Documentation/admin-guide/kernel-parameters.txt (iommu=, intel_iommu=, amd_iommu=,
// video=, pci=, modprobe.blacklist=, nomodeset) and the module parameters of
// drivers/gpu/drm/{amd/amdgpu,radeon,i915,xe,nouveau} and drm itself, which the kernel
// accepts on its command line as <module>.<parameter>=.
constexpr std::array<std::string_view, 15> kPrefixes = {
    "amdgpu.",         "radeon.", "i915.",       "xe.",       "nouveau.", "nvidia", "drm.",
    "drm_kms_helper.", "iommu",   "intel_iommu", "amd_iommu", "video=",   "pci=",   "modprobe.blacklist=",
    "nomodeset",
};

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Splits at unquoted white space; a double quote opens and closes a quoted run, as the
// kernel's own splitter treats it (Linux lib/cmdline.c, next_arg()).
std::vector<std::string_view> words(std::string_view text) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && isSpace(text[i])) ++i;
        const size_t start = i;
        bool quoted = false;
        while (i < text.size() && (quoted || !isSpace(text[i]))) {
            if (text[i] == '"') quoted = !quoted;
            ++i;
        }
        if (i > start) out.push_back(text.substr(start, i - start));
    }
    return out;
}

bool gpuRelevant(std::string_view word) {
    if (!word.empty() && word.front() == '"') word.remove_prefix(1);
    for (const std::string_view prefix : kPrefixes) {
        if (word.starts_with(prefix)) return true;
    }
    return false;
}

}  // namespace

std::string gpuKernelParameters(std::string_view cmdline) {
    const std::vector<std::string_view> all = words(cmdline);
    std::string kept;
    for (const std::string_view word : all) {
        if (!gpuRelevant(word)) continue;
        if (!kept.empty()) kept += ' ';
        kept += word;
    }
    if (kept.empty()) return fmt::format("none of {} parameters is GPU-related", all.size());
    return kept;
}

}  // namespace repro
