// libFuzzer target: command-line parsing and validation (src/cli/options.hpp). The input
// is an argument vector and the environment variable N; parseCommandLine must never throw
// and must answer either options or a status with text: help, version or the completion
// script on out with status 0, or one printable line on err with status 1 (user text in it
// quoted, so no newline, escape or other control byte gets through). Options it accepts
// must have sizes computeSizes derives without throwing (validation happened up front).
//
// Input format: the first byte's bit 0 says whether N is set; its bit 1 says where the rest
// splits into strings: at '\n' and NUL (0, so that text corpus files read as one argument a
// line), or at NUL only (1, so that arguments and N can hold newlines, escapes and any other
// byte). N's value comes first when set, then argv[1..]. At most 64 arguments, so one input
// stays fast.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options.hpp"
#include "core/shape.hpp"

namespace {

// Status 0 with text and no options: every line of it at most 80 columns (the width asked
// for) when it is the help, which is ASCII.
void checkText(const repro::ParseOutcome& o) {
    if (o.out.empty() || !o.err.empty()) std::abort();
    if (!o.out.starts_with("Usage: repro")) return;  // version or completion script
    size_t column = 0;
    for (const char c : o.out) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\n') {
            column = 0;
        } else if (byte < 0x20 || byte >= 0x7f || ++column > 80) {
            std::abort();
        }
    }
}

// Status 1: one line, "repro: " first, no control byte.
void checkUsageError(const repro::ParseOutcome& o) {
    if (!o.out.empty() || !o.err.starts_with("repro: ")) std::abort();
    for (const char c : o.err) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const bool hasEnv = data[0] & 1;
    const bool nulOnly = data[0] & 2;
    std::vector<std::string> parts;
    std::string current;
    for (size_t i = 1; i < size; ++i) {
        const char c = static_cast<char>(data[i]);
        if (c == '\0' || (c == '\n' && !nulOnly)) {
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

    const repro::ParseOutcome o = repro::parseCommandLine(static_cast<int>(argv.size()), argv.data(), env, 80);
    if (!o.options) {
        if (o.exitStatus == 0) {
            checkText(o);
        } else if (o.exitStatus == 1) {
            checkUsageError(o);
        } else {
            std::abort();
        }
        return 0;
    }
    if (o.exitStatus != 0 || !o.err.empty() || o.options->chainLength == 0 || o.options->modes.empty()) {
        std::abort();
    }
    // Accepted options have valid sizes: anything computeSizes throws escapes and is a crash.
    const repro::ChainSizes sizes = repro::computeSizes(o.options->shape);
    (void)repro::chainMemory(sizes, o.options->chainLength);
    (void)repro::submitTimeoutSeconds(o.options->timeoutSeconds, o.options->shape, o.options->chainLength, true);
    return 0;
}
