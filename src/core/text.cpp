// Quoting of user text for one-line messages, and the strict decimal parsers.
#include "core/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>
#include <utility>

namespace repro {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }  // ASCII digits, whatever the locale

// The length of the well-formed UTF-8 sequence at the start of `s` (Unicode 15, table 3-7,
// "Well-Formed UTF-8 Byte Sequences"), or 0 when it is not one.
size_t utf8Length(std::string_view s) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
    const auto within = [&](size_t i, unsigned lo, unsigned hi) {
        return i < s.size() && byte(i) >= lo && byte(i) <= hi;
    };
    const unsigned lead = byte(0);
    if (lead < 0x80) return 1;
    if (lead >= 0xc2 && lead <= 0xdf) return within(1, 0x80, 0xbf) ? 2 : 0;
    if (lead >= 0xe0 && lead <= 0xef) {
        const unsigned lo = lead == 0xe0 ? 0xa0 : 0x80;  // no overlong forms
        const unsigned hi = lead == 0xed ? 0x9f : 0xbf;  // no surrogates
        return within(1, lo, hi) && within(2, 0x80, 0xbf) ? 3 : 0;
    }
    if (lead >= 0xf0 && lead <= 0xf4) {
        const unsigned lo = lead == 0xf0 ? 0x90 : 0x80;  // no overlong forms
        const unsigned hi = lead == 0xf4 ? 0x8f : 0xbf;  // nothing past U+10FFFF
        return within(1, lo, hi) && within(2, 0x80, 0xbf) && within(3, 0x80, 0xbf) ? 4 : 0;
    }
    return 0;
}

// The code point of a well-formed sequence of `length` bytes.
char32_t decode(std::string_view s, size_t length) {
    const auto byte = [&](size_t i) { return static_cast<char32_t>(static_cast<unsigned char>(s[i])); };
    if (length == 1) return byte(0);
    const char32_t leadBits = length == 2 ? 0x1f : length == 3 ? 0x0f : 0x07;
    char32_t cp = byte(0) & leadBits;
    for (size_t i = 1; i < length; ++i) cp = (cp << 6) | (byte(i) & 0x3f);
    return cp;
}

// Valid code points that a terminal would not show as themselves: C1 controls, line and
// paragraph separators, the bidirectional formatting controls (Unicode UAX #9) and the
// byte-order mark.
bool hidesText(char32_t cp) {
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff;
}

// The C escape of an ASCII byte that is not printable as itself in a quoted message, or
// empty when it is.
std::string_view asciiEscape(char c) {
    static constexpr std::pair<char, std::string_view> kEscapes[] = {
        {'\n', "\\n"}, {'\t', "\\t"}, {'\r', "\\r"}, {'\0', "\\0"},  {'\a', "\\a"},
        {'\b', "\\b"}, {'\f', "\\f"}, {'\v', "\\v"}, {'\\', "\\\\"}, {'\'', "\\'"}};
    for (const auto& [byte, escape] : kEscapes) {
        if (byte == c) return escape;
    }
    return {};
}

// East Asian wide and fullwidth code points (Unicode's East Asian Width W and F, their
// common blocks): two columns on a terminal.
bool isWide(char32_t cp) {
    return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0x303e) || (cp >= 0x3041 && cp <= 0x33ff) ||
           (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xa000 && cp <= 0xa4cf) ||
           (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) ||
           (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
           (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd);
}

// What one code point (or one byte that is none) at the start of `text` prints as, the bytes
// it takes and the columns its text fills. `quoting`: backslash and ' are escaped too, as
// inside quote()'s quotes.
struct Unit {
    std::string shown;
    size_t bytes = 1;
    size_t columns = 0;
};
Unit nextUnit(std::string_view text, bool quoting) {
    const unsigned char byte = static_cast<unsigned char>(text[0]);
    const bool quoteChar = text[0] == '\\' || text[0] == '\'';
    if (const std::string_view e = asciiEscape(text[0]); !e.empty() && (quoting || !quoteChar)) {
        return {.shown = std::string(e), .bytes = 1, .columns = e.size()};
    }
    const size_t length = utf8Length(text);
    if (length == 0 || byte < 0x20 || byte == 0x7f) return {.shown = fmt::format("\\x{:02x}", byte), .columns = 4};
    const char32_t cp = decode(text, length);
    if (hidesText(cp))
        return {.shown = fmt::format("\\u{:04x}", static_cast<uint32_t>(cp)), .bytes = length, .columns = 6};
    return {.shown = std::string(text.substr(0, length)), .bytes = length, .columns = isWide(cp) ? 2u : 1u};
}

// Whether `text` is of the form parseDecimalNumber accepts (before conversion).
bool isDecimalNumber(std::string_view text) {
    size_t i = text.starts_with('-') ? 1 : 0;
    size_t mantissaDigits = 0;
    bool point = false;
    for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
        if (text[i] == '.' && !point) {
            point = true;
        } else if (isDigit(text[i])) {
            ++mantissaDigits;
        } else {
            return false;
        }
    }
    if (mantissaDigits == 0) return false;
    if (i == text.size()) return true;
    ++i;  // the 'e'
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    return i < text.size() && std::ranges::all_of(text.substr(i), isDigit);
}

// For a decimal number std::from_chars found out of range: whether it is too large (true)
// or too small (false) for double, from the decimal exponent of its first non-zero digit.
bool overflows(std::string_view text) {
    if (text.starts_with('-')) text.remove_prefix(1);
    const size_t e = std::min(text.find_first_of("eE"), text.size());
    const std::string_view mantissa = text.substr(0, e);
    std::string_view exponentText = e < text.size() ? text.substr(e + 1) : std::string_view{"0"};
    if (exponentText.starts_with('+')) exponentText.remove_prefix(1);
    const int64_t exponent = parseDecimal(exponentText).value_or(0);  // saturated
    const size_t point = std::min(mantissa.find('.'), mantissa.size());
    const size_t first = mantissa.find_first_of("123456789");
    if (first == std::string_view::npos) return false;  // zero is never out of range
    // The first non-zero digit stands for 10^lead; the value is at least 1 when
    // lead + exponent >= 0 (written so that a saturated exponent cannot overflow).
    const int64_t lead = first < point ? static_cast<int64_t>(point - first) - 1 : -static_cast<int64_t>(first - point);
    return exponent >= -lead;
}

}  // namespace

std::string escaped(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        Unit u = nextUnit(text.substr(i), /*quoting=*/true);
        out += u.shown;
        i += u.bytes;
    }
    return out;
}

std::string oneTerminalLine(std::string_view text, size_t maxColumns) {
    constexpr std::string_view kCut = "...";
    const bool marked = maxColumns >= kCut.size();
    const size_t budget = marked ? maxColumns - kCut.size() : maxColumns;  // the columns kept when cut
    std::string out;
    size_t used = 0, kept = 0;  // kept: the bytes of `out` within `budget`
    for (size_t i = 0; i < text.size();) {
        const Unit u = nextUnit(text.substr(i), /*quoting=*/false);
        if (used + u.columns > maxColumns) {
            out.resize(kept);
            return marked ? out + std::string(kCut) : out;
        }
        out += u.shown;
        used += u.columns;
        if (used <= budget) kept = out.size();
        i += u.bytes;
    }
    return out;
}

bool printsAsItself(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        const Unit u = nextUnit(text.substr(i), /*quoting=*/false);
        if (u.shown != text.substr(i, u.bytes)) return false;
        i += u.bytes;
    }
    return true;
}

std::string quote(std::string_view text) { return "'" + escaped(text) + "'"; }

std::string_view trimmed(std::string_view s) {
    const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> pieces;
    for (size_t end = text.find(separator); end != std::string_view::npos; end = text.find(separator)) {
        pieces.push_back(text.substr(0, end));
        text.remove_prefix(end + 1);
    }
    pieces.push_back(text);
    return pieces;
}

std::string wrapWords(std::string first, std::string_view text, size_t indent, size_t width) {
    std::string out;
    std::string line = std::move(first);
    bool lineHasWord = false;
    for (size_t pos = 0; pos < text.size();) {
        pos = text.find_first_not_of(' ', pos);
        if (pos == std::string_view::npos) break;
        const size_t end = std::min(text.find(' ', pos), text.size());
        const std::string_view word = text.substr(pos, end - pos);
        pos = end;
        if (lineHasWord && line.size() + 1 + word.size() > width) {
            out += line + "\n";
            line.assign(indent, ' ');
            lineHasWord = false;
        }
        if (lineHasWord) line += ' ';
        line += word;
        lineHasWord = true;
    }
    return out + line;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string errnoText(int error) { return std::generic_category().message(error); }

std::optional<int64_t> parseDecimal(std::string_view text) {
    const bool negative = !text.empty() && text.front() == '-';
    const std::string_view digits = negative ? text.substr(1) : text;
    if (digits.empty() || !std::ranges::all_of(digits, isDigit)) return std::nullopt;
    int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) {
        return negative ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
    }
    if (ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<double> parseDecimalNumber(std::string_view text) {
    if (!isDecimalNumber(text)) return std::nullopt;
    double value = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
    if (ec == std::errc::result_out_of_range) {
        const double magnitude = overflows(text) ? std::numeric_limits<double>::infinity() : 0.0;
        return text.starts_with('-') ? -magnitude : magnitude;
    }
    if (ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

}  // namespace repro
