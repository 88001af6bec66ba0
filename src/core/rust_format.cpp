// Rust-compatible float formatting on top of fmt's correctly rounded output.
#include "core/rust_format.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace repro {

std::string rustExp(double x, int precision) {
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    // fmt prints C-style "5.6694e-02"; Rust drops the '+' and the zero padding.
    std::string s = fmt::format("{:.{}e}", x, precision);
    const auto e = s.find('e');
    const int exponent = std::atoi(s.c_str() + e + 1);
    s.resize(e + 1);
    s += fmt::to_string(exponent);
    return s;
}

std::string rustFixed(double x, int precision) {
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    return fmt::format("{:.{}f}", x, precision);
}

}  // namespace repro
