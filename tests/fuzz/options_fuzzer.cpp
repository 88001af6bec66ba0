// libFuzzer target: command-line parsing and validation (src/core/options.hpp). The input
// is an argument vector and the environment variable N; parseCommandLine must never throw
// and must answer either options or a status with text, and options it accepts must have
// sizes computeSizes derives without throwing (validation happened up front).
//
// Input format: the first byte's low bit says whether N is set; the rest is split at
// '\n' (or NUL) into strings: N's value first when set, then argv[1..]. At most 64
// arguments, so one input stays fast.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/options.hpp"
#include "core/shape.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const bool hasEnv = data[0] & 1;
    std::vector<std::string> parts;
    std::string current;
    for (size_t i = 1; i < size; ++i) {
        const char c = static_cast<char>(data[i]);
        if (c == '\n' || c == '\0') {
            parts.push_back(std::move(current));
            current.clear();
            if (parts.size() > 65) return 0;
        } else {
            current += c;
        }
    }
    parts.push_back(std::move(current));

    std::optional<std::string_view> env;
    size_t first = 0;
    if (hasEnv) {
        env = parts[0];
        first = 1;
    }
    std::vector<const char*> argv{"repro"};
    for (size_t i = first; i < parts.size(); ++i) argv.push_back(parts[i].c_str());

    const repro::ParseOutcome o =
        repro::parseCommandLine(static_cast<int>(argv.size()), argv.data(), env);
    if (!o.options) {
        // Help/version (0, text on out) or one usage line on err with status 1.
        if (o.exitStatus != 0 && o.exitStatus != 1) std::abort();
        if (o.exitStatus == 1 && (o.err.empty() || o.err.find('\n') != std::string::npos)) std::abort();
        return 0;
    }
    if (o.exitStatus != 0 || o.options->chainLength == 0 || o.options->modes.empty()) std::abort();
    // Accepted options have valid sizes: anything computeSizes throws escapes and is a crash.
    const repro::ChainSizes sizes = repro::computeSizes(o.options->shape);
    (void)repro::chainMemory(sizes, o.options->chainLength);
    (void)repro::submitTimeoutSeconds(o.options->timeoutSeconds, o.options->shape,
                                      o.options->chainLength, true);
    return 0;
}
