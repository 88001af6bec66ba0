// Printing for the report: every line is flushed at once, so a hang or crash later in
// the run cannot lose what was already said (docs/contract.md, "Output").
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace repro {

// Where the text report goes: stdout, or stderr when --format markdown/json owns stdout.
inline FILE*& textStream() {
    static FILE* stream = stdout;
    return stream;
}

template <typename... Args>
void say(fmt::format_string<Args...> format, Args&&... args) {
    FILE* out = textStream();
    fmt::print(out, format, std::forward<Args>(args)...);
    std::fputc('\n', out);
    std::fflush(out);
}

inline std::string join(const std::vector<std::string>& items, std::string_view separator = ", ") {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
    return out.empty() ? "none" : out;
}

}  // namespace repro
