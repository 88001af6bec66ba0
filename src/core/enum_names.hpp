// The names of an enum's values, from a table in the enum's declaration order: the one
// lookup behind repro's name() functions.
#pragma once

#include <cstddef>
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

}  // namespace repro
