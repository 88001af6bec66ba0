// The names of an enum's values, from a table in the enum's declaration order: the one
// lookup behind repro's name() functions and the parsers of those names.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>

namespace repro {

// names[e] for a table of N names in `Enum`'s declaration order; "?" for a value past the
// table (a number cast to the enum, or an enumerator added without its name), never a read
// past its end.
template <typename Enum, std::size_t N>
constexpr std::string_view nameOf(const std::string_view (&names)[N], Enum e) {
    const auto i = static_cast<std::size_t>(e);
    return i < N ? names[i] : std::string_view("?");
}

// The value of Enum whose name in `names` is `text`; nullopt when no name is.
template <typename Enum, std::size_t N>
std::optional<Enum> parseName(std::string_view text, const std::string_view (&names)[N]) {
    const auto i = static_cast<std::size_t>(std::ranges::find(names, text) - names);
    return i < N ? std::optional(static_cast<Enum>(i)) : std::nullopt;
}

}  // namespace repro
