// Unit tests for src/core/text.{hpp,cpp}: quoting user text for one-line messages, and the
// strict decimal parsers every integer and decimal option uses; and core/enum_names.hpp,
// the table lookup behind the name() functions.
#include "core/text.hpp"
#include "core/enum_names.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace repro {
namespace {

enum class Colour { Red, Green, Blue };

TEST(EnumNames, NamesEachValueInDeclarationOrderAndNeverReadsPastTheTable) {
    static constexpr std::string_view kNames[] = {"red", "green"};  // Blue's name missing
    EXPECT_EQ(nameOf(kNames, Colour::Red), "red");
    EXPECT_EQ(nameOf(kNames, Colour::Green), "green");
    EXPECT_EQ(nameOf(kNames, Colour::Blue), "?");
    EXPECT_EQ(nameOf(kNames, static_cast<Colour>(-1)), "?");
}

// ---- escaped / quote ---------------------------------------------------------------------

TEST(Quote, PrintableTextIsOnlyQuoted) {
    EXPECT_EQ(quote("huge"), "'huge'");
    EXPECT_EQ(quote(""), "''");
    EXPECT_EQ(quote("a b/c-d_e.f=1..3"), "'a b/c-d_e.f=1..3'");
    EXPECT_EQ(escaped("llvmpipe (LLVM 15.0.6, 256 bits)"), "llvmpipe (LLVM 15.0.6, 256 bits)");
}

TEST(Quote, ControlCharactersGetCEscapes) {
    EXPECT_EQ(quote("3\nx"), "'3\\nx'");
    EXPECT_EQ(escaped("\t\r\a\b\f\v"), "\\t\\r\\a\\b\\f\\v");
    EXPECT_EQ(escaped(std::string("a\0b", 3)), "a\\0b");
    EXPECT_EQ(escaped("\x1b[31mred"), "\\x1b[31mred");  // a terminal colour sequence
    EXPECT_EQ(escaped("\x01\x1f\x7f"), "\\x01\\x1f\\x7f");
}

TEST(Quote, BackslashAndQuoteAreEscaped) {
    EXPECT_EQ(quote("it's"), "'it\\'s'");
    EXPECT_EQ(escaped("a\\nb"), "a\\\\nb");  // a real backslash, not a newline
    EXPECT_EQ(escaped("\"x\""), "\"x\"");
}

TEST(Quote, ValidUtf8PassesThrough) {
    EXPECT_EQ(escaped("Radeon\xe2\x84\xa2 890M"), "Radeon\xe2\x84\xa2 890M");  // U+2122
    EXPECT_EQ(escaped("caf\xc3\xa9"), "caf\xc3\xa9");                          // U+00E9
    EXPECT_EQ(escaped("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");                // U+1F600
    EXPECT_EQ(escaped("\xf4\x8f\xbf\xbf"), "\xf4\x8f\xbf\xbf");                // U+10FFFF
}

TEST(Quote, InvalidUtf8BytesAreHexEscaped) {
    EXPECT_EQ(escaped("\xff"), "\\xff");
    EXPECT_EQ(escaped("a\x80z"), "a\\x80z");                         // a lone continuation byte
    EXPECT_EQ(escaped("\xc3"), "\\xc3");                             // cut short at the end
    EXPECT_EQ(escaped("\xc3z"), "\\xc3z");                           // cut short before ASCII
    EXPECT_EQ(escaped("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
    EXPECT_EQ(escaped("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong, three bytes
    EXPECT_EQ(escaped("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a UTF-16 surrogate
    EXPECT_EQ(escaped("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
    EXPECT_EQ(escaped("\xf5\x80\x80\x80"), "\\xf5\\x80\\x80\\x80");
}

TEST(Quote, CodePointsThatMoveOrHideTextAreEscaped) {
    EXPECT_EQ(escaped("\xc2\x85"), "\\u0085");  // NEL, a C1 control
    EXPECT_EQ(escaped("\xc2\x9b"
                      "31m"),
              "\\u009b31m");  // CSI, a C1 control
    EXPECT_EQ(escaped("a\xe2\x80\xa8"
                      "b"),
              "a\\u2028b");  // line separator
    EXPECT_EQ(escaped("\xe2\x80\xa9"), "\\u2029");
    EXPECT_EQ(escaped("\xe2\x80\xae"
                      "evil"),
              "\\u202eevil");  // right-to-left override
    EXPECT_EQ(escaped("\xe2\x81\xa6"), "\\u2066");
    EXPECT_EQ(escaped("\xe2\x80\x8f"), "\\u200f");
    EXPECT_EQ(escaped("\xef\xbb\xbf"
                      "x"),
              "\\ufeffx");
    EXPECT_EQ(escaped("\xc2\xa0"), "\xc2\xa0");  // no-break space is printable
}

TEST(Quote, EveryByteGivesPrintableOutput) {
    for (int b = 0; b < 256; ++b) {
        const std::string one(1, static_cast<char>(b));
        for (const char c : escaped(one)) {
            const auto u = static_cast<unsigned char>(c);
            EXPECT_TRUE(u >= 0x20 && u != 0x7f) << "byte " << b << " gives " << escaped(one);
        }
    }
}

// ---- oneTerminalLine / printsAsItself -----------------------------------------------------

TEST(OneTerminalLine, PrintableTextPassesWhole) {
    EXPECT_EQ(oneTerminalLine("one increment dispatch, then a copy", 200), "one increment dispatch, then a copy");
    EXPECT_EQ(oneTerminalLine("", 10), "");
    EXPECT_EQ(oneTerminalLine("blade's \\ chain", 200), "blade's \\ chain") << "no quotes: ' and \\ stay";
    EXPECT_EQ(oneTerminalLine("caf\xc3\xa9", 4), "caf\xc3\xa9") << "four code points, four columns";
}

TEST(OneTerminalLine, ControlCharactersAreEscapedAsQuoteEscapesThem) {
    // the hostile probe's name (R15): a screen clear, a colour, a newline, a CR and a bell
    const std::string evil = "evil\x1b[2J\x1b[31mRED\nsecond line\r\x07";
    EXPECT_EQ(oneTerminalLine(evil, 200), "evil\\x1b[2J\\x1b[31mRED\\nsecond line\\r\\a");
    EXPECT_EQ(oneTerminalLine("a\tb\x7f", 200), "a\\tb\\x7f");
    EXPECT_EQ(oneTerminalLine("\xff", 200), "\\xff");  // invalid UTF-8
    EXPECT_EQ(oneTerminalLine("\xe2\x80\xae"
                              "evil",
                              200),
              "\\u202eevil");  // right-to-left override
    for (int b = 0; b < 256; ++b) {
        for (const char c : oneTerminalLine(std::string(1, static_cast<char>(b)), 200)) {
            const auto u = static_cast<unsigned char>(c);
            EXPECT_TRUE(u >= 0x20 && u != 0x7f) << "byte " << b;
        }
    }
}

TEST(OneTerminalLine, LongTextIsCutWithTheMarkerWithinTheColumns) {
    EXPECT_EQ(oneTerminalLine("abcdefghij", 10), "abcdefghij") << "exactly the width: no cut";
    EXPECT_EQ(oneTerminalLine("abcdefghijk", 10), "abcdefg...");
    EXPECT_EQ(oneTerminalLine(std::string(10'000'000, 'p'), 200), std::string(197, 'p') + "...");
    // never inside an escape: "\x1b" is four columns, kept whole or left out
    EXPECT_EQ(oneTerminalLine("abcd\x1bxyz", 9), "abcd...");
    EXPECT_EQ(oneTerminalLine("abc\x1bxyzzz", 10), "abc\\x1b...");
    // a wide character counts two columns and is never split
    const std::string han = "\xe6\xbc\xa2";  // U+6F22
    EXPECT_EQ(oneTerminalLine(han + han + han, 6), han + han + han);
    EXPECT_EQ(oneTerminalLine(han + han + han + "x", 6), han + "...");
    // below the marker's width: the text cut bare
    EXPECT_EQ(oneTerminalLine("abcdef", 2), "ab");
    EXPECT_EQ(oneTerminalLine("abcdef", 0), "");
}

TEST(PrintsAsItself, OnlyTextWithNothingToEscape) {
    EXPECT_TRUE(printsAsItself("data_0 (copy) caf\xc3\xa9 it's a\\b"));
    EXPECT_TRUE(printsAsItself(""));
    for (const std::string bad : {"da\nta", "x\x1b[31m", "bell\x07", "cr\r", "tab\t", "del\x7f", "\xff",
                                  "\xe2\x80\xae"
                                  "x"}) {
        EXPECT_FALSE(printsAsItself(bad)) << escaped(bad);
    }
}

// ---- parseDecimal ------------------------------------------------------------------------

TEST(ParseDecimal, PlainDigitsWithAnOptionalMinus) {
    EXPECT_EQ(parseDecimal("0"), 0);
    EXPECT_EQ(parseDecimal("7"), 7);
    EXPECT_EQ(parseDecimal("-3"), -3);
    EXPECT_EQ(parseDecimal("4294967296"), 4294967296);
    EXPECT_EQ(parseDecimal("9223372036854775807"), std::numeric_limits<int64_t>::max());
}

TEST(ParseDecimal, LeadingZerosAreDecimalNotOctal) {
    EXPECT_EQ(parseDecimal("010"), 10);
    EXPECT_EQ(parseDecimal("08"), 8);
    EXPECT_EQ(parseDecimal("-007"), -7);
    EXPECT_EQ(parseDecimal("000"), 0);
}

TEST(ParseDecimal, EverythingElseIsRejected) {
    for (const char* bad : {"",      "-",     "+5",    " 7",  "7 ",  "7\n", "0x3", "0X3", "0b1", "0o7",
                            "1_000", "1,000", "1'000", "1.0", "1e3", "--3", "- 3", "x",   "7x",  "\xd9\xa3"}) {
        EXPECT_EQ(parseDecimal(bad), std::nullopt) << '"' << bad << '"';
    }
}

TEST(ParseDecimal, OutOfRangeSaturates) {
    EXPECT_EQ(parseDecimal("9223372036854775808"), std::numeric_limits<int64_t>::max());
    EXPECT_EQ(parseDecimal("99999999999999999999999"), std::numeric_limits<int64_t>::max());
    EXPECT_EQ(parseDecimal("-99999999999999999999999"), std::numeric_limits<int64_t>::min());
}

// ---- parseDecimalNumber ------------------------------------------------------------------

TEST(ParseDecimalNumber, DecimalForms) {
    EXPECT_EQ(parseDecimalNumber("2"), 2.0);
    EXPECT_EQ(parseDecimalNumber("2.5"), 2.5);
    EXPECT_EQ(parseDecimalNumber(".5"), 0.5);
    EXPECT_EQ(parseDecimalNumber("5."), 5.0);
    EXPECT_EQ(parseDecimalNumber("-1"), -1.0);
    EXPECT_EQ(parseDecimalNumber("1e9"), 1e9);
    EXPECT_EQ(parseDecimalNumber("1E+3"), 1e3);
    EXPECT_EQ(parseDecimalNumber("25e-3"), 0.025);
    EXPECT_EQ(parseDecimalNumber("010"), 10.0);
}

TEST(ParseDecimalNumber, EverythingElseIsRejected) {
    for (const char* bad :
         {"",     ".",     "-",    "+2",    " 2",  "2 ",   "2s",       "1,5", "1e",  "1e+",   "e5",
          "1..2", "1.2.3", "0x10", "0x1p3", "inf", "-inf", "infinity", "nan", "NaN", "1e5e5", "1_0"}) {
        EXPECT_EQ(parseDecimalNumber(bad), std::nullopt) << '"' << bad << '"';
    }
}

TEST(ParseDecimalNumber, OutOfRangeIsInfinityOrZero) {
    EXPECT_EQ(parseDecimalNumber("1e999"), std::numeric_limits<double>::infinity());
    EXPECT_EQ(parseDecimalNumber("-1e999"), -std::numeric_limits<double>::infinity());
    EXPECT_EQ(parseDecimalNumber("123456e9223372036854775807"), std::numeric_limits<double>::infinity());
    EXPECT_EQ(parseDecimalNumber("1e-999"), 0.0);
    EXPECT_EQ(parseDecimalNumber("0.0001e-999"), 0.0);
    EXPECT_EQ(parseDecimalNumber("1000e-99999999999999999999"), 0.0);
    EXPECT_EQ(parseDecimalNumber("0e999999"), 0.0);
}

// ---- split / lower -----------------------------------------------------------------------

TEST(Split, KeepsEveryPieceEmptyOnesToo) {
    using V = std::vector<std::string_view>;
    EXPECT_EQ(split("a,,b", ','), (V{"a", "", "b"}));
    EXPECT_EQ(split("a,", ','), (V{"a", ""}));
    EXPECT_EQ(split(",a", ','), (V{"", "a"}));
    EXPECT_EQ(split("", ','), (V{""}));
    EXPECT_EQ(split("one line", '\n'), (V{"one line"}));
}

TEST(Lower, AsciiLettersOnly) {
    EXPECT_EQ(lower("RADV NAVI21 Ä"), "radv navi21 Ä");
    EXPECT_EQ(lower(""), "");
}

}  // namespace
}  // namespace repro
