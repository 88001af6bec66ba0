// Number formatting that matches Rust's, so repro's lines diff cleanly against the
// original Rust repro's output (blade issue #356 prints with `{:.4e}` and `{:.1}`).
#pragma once

#include <string>

namespace repro {

// Rust's `format!("{:.4e}", x)` for an f64 (an f32 widened to f64 prints the same
// digits): correctly rounded mantissa with `precision` decimals, 'e', the exponent
// with no plus sign and no zero padding: 5.6694e-2, 0.0000e0, -1.0000e1. NaN prints
// "NaN", infinities "inf" and "-inf", negative zero "-0.0000e0", as Rust does.
std::string rustExp(double x, int precision = 4);

// Rust's `format!("{:.1}", x)`: fixed notation, `precision` decimals.
std::string rustFixed(double x, int precision = 1);

}  // namespace repro
