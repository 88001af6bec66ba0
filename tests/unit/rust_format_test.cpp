// Unit tests for src/core/rust_format.{hpp,cpp}: Rust's `{:.4e}` and `{:.1}`.
//
// Rust formats a float with a given precision from its exact binary value, correctly
// rounded, ties to even (rust-lang/rust#70336, #102935; documented in std::fmt since
// #120967). So each expected string below follows from the exact value of the double
// (or of the f32, widened exactly), quoted in the comments. The exact values were
// obtained with Python's decimal.Decimal(float).
#include "core/rust_format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace repro {
namespace {

// ---- rustExp ----------------------------------------------------------------------------

TEST(RustExp, ZeroAndNegativeZero) {
    EXPECT_EQ(rustExp(0.0), "0.0000e0");
    EXPECT_EQ(rustExp(-0.0), "-0.0000e0");  // Rust keeps the sign of -0.0
}

TEST(RustExp, NoPlusSignAndNoZeroPaddingInTheExponent) {
    // 0.056694 = 0.0566940000000000013380... -> 5.6694e-2 (fmt/printf would say e-02).
    EXPECT_EQ(rustExp(0.056694), "5.6694e-2");
    // 12345.678 = 12345.67799999999988358... -> 1.2345|678 rounds up.
    EXPECT_EQ(rustExp(12345.678), "1.2346e4");
    // -1.5e-7 = -1.49999999999999993212...e-7 -> 1.4999|99999... rounds up to 1.5000.
    EXPECT_EQ(rustExp(-1.5e-7), "-1.5000e-7");
    EXPECT_EQ(rustExp(1.0), "1.0000e0");
    EXPECT_EQ(rustExp(-10.0), "-1.0000e1");
    EXPECT_EQ(rustExp(1e-5), "1.0000e-5");
}

TEST(RustExp, RoundingCarryIntoTheExponent) {
    // 9.99995 = 9.99995000000000011652900866... : just above the tie 9.9999|5, so it
    // rounds up, carrying into the exponent.
    EXPECT_EQ(rustExp(9.99995), "1.0000e1");
    // 9.99994 = 9.99994000000000049510... -> 9.9999|4 rounds down.
    EXPECT_EQ(rustExp(9.99994), "9.9999e0");
    // 0.99999999 -> 9.9999|999 rounds up to 10.0000e-1 = 1.0000e0.
    EXPECT_EQ(rustExp(0.99999999), "1.0000e0");
}

TEST(RustExp, ExactTiesRoundToEven) {
    // 1.03125 = 33/32 and 1.09375 = 35/32 are exact in binary, so their fifth decimal 5 is
    // an exact tie: 1.0312|5 stays (2 is even), 1.0937|5 goes up (7 is odd).
    EXPECT_EQ(rustExp(1.03125), "1.0312e0");
    EXPECT_EQ(rustExp(1.09375), "1.0938e0");
    EXPECT_EQ(rustExp(-1.03125), "-1.0312e0");
}

TEST(RustExp, ExtremeExponents) {
    // 1e300 = 1.00000000000000005250476...e300.
    EXPECT_EQ(rustExp(1e300), "1.0000e300");
    // 1e-310 is a double denormal: 9.99999999999996944932...e-311 -> rounds up to 1.0000e-310.
    EXPECT_EQ(rustExp(1e-310), "1.0000e-310");
    EXPECT_EQ(rustExp(std::numeric_limits<double>::denorm_min()), "4.9407e-324");
    EXPECT_EQ(rustExp(std::numeric_limits<double>::max()), "1.7977e308");
}

TEST(RustExp, NonFinite) {
    EXPECT_EQ(rustExp(std::nan("")), "NaN");
    EXPECT_EQ(rustExp(-std::nan("")), "NaN");  // Rust prints no sign on NaN
    EXPECT_EQ(rustExp(std::numeric_limits<double>::infinity()), "inf");
    EXPECT_EQ(rustExp(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(RustExp, WidenedF32PrintsTheF32sExactValue) {
    // 0.1f = 0.100000001490116119384765625 exactly.
    EXPECT_EQ(rustExp(0.1f), "1.0000e-1");
    // 1.2345e-4f = 0.000123449994134716689... -> 1.2344|9994 rounds up to 1.2345.
    EXPECT_EQ(rustExp(1.2345e-4f), "1.2345e-4");
    // 1e-40f is an f32 denormal: 9.99994610111475958...e-41 -> 9.9999|461 rounds down.
    EXPECT_EQ(rustExp(1e-40f), "9.9999e-41");
    // FLT_MAX = 340282346638528859811704183484516925440 -> 3.4028|2346...
    EXPECT_EQ(rustExp(std::numeric_limits<float>::max()), "3.4028e38");
    EXPECT_EQ(rustExp(std::numeric_limits<float>::infinity()), "inf");
}

TEST(RustExp, OtherPrecisions) {
    EXPECT_EQ(rustExp(0.056694, 2), "5.67e-2");
    EXPECT_EQ(rustExp(0.056694, 0), "6e-2");  // no decimal point, as Rust's {:.0e}
    EXPECT_EQ(rustExp(0.0, 1), "0.0e0");
    EXPECT_EQ(rustExp(123456.0, 7), "1.2345600e5");
}

// ---- rustFixed --------------------------------------------------------------------------

TEST(RustFixed, Basics) {
    EXPECT_EQ(rustFixed(100.0, 1), "100.0");
    EXPECT_EQ(rustFixed(0.0, 1), "0.0");
    EXPECT_EQ(rustFixed(-0.0, 1), "-0.0");
    EXPECT_EQ(rustFixed(7.0), "7.0");                           // precision defaults to 1, as {:.1}
    EXPECT_EQ(rustFixed(1e21, 1), "1000000000000000000000.0");  // never exponent notation
    EXPECT_EQ(rustFixed(2.0, 3), "2.000");
}

TEST(RustFixed, RoundingFollowsTheExactBinaryValue) {
    // 99.95f = 99.9499969482421875 exactly: below the tie, so "99.9".
    EXPECT_EQ(rustFixed(99.95f, 1), "99.9");
    // 99.95 as a double = 99.9500000000000028421709... : above the tie, so "100.0".
    EXPECT_EQ(rustFixed(99.95, 1), "100.0");
    // 0.05 = 0.05000000000000000277... -> "0.1"; 0.35 = 0.34999999999999997779... -> "0.3".
    EXPECT_EQ(rustFixed(0.05, 1), "0.1");
    EXPECT_EQ(rustFixed(0.35, 1), "0.3");
    // 100 * (1/3 as f32) in f32 = 33.33333206176757812 exactly -> "33.3".
    EXPECT_EQ(rustFixed(33.333332f, 1), "33.3");
}

TEST(RustFixed, ExactTiesRoundToEven) {
    // 0.25, 0.75, 2.5 and 0.5 are exact in binary: ties go to the even digit.
    EXPECT_EQ(rustFixed(0.25, 1), "0.2");
    EXPECT_EQ(rustFixed(0.75, 1), "0.8");
    EXPECT_EQ(rustFixed(2.5, 0), "2");
    EXPECT_EQ(rustFixed(0.5, 0), "0");  // Rust >= 1.67 (rust-lang/rust#102935)
}

TEST(RustFixed, NonFinite) {
    EXPECT_EQ(rustFixed(std::nan(""), 1), "NaN");
    EXPECT_EQ(rustFixed(std::numeric_limits<double>::infinity(), 1), "inf");
    EXPECT_EQ(rustFixed(-std::numeric_limits<double>::infinity(), 1), "-inf");
}

}  // namespace
}  // namespace repro
