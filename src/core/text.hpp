// Text helpers for messages and for reading numbers the user typed: quoting user text so
// an error stays one printable line, and strict decimal parsers shared by every integer
// and decimal option and by the environment variable N.
#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace repro {

// `text` with C-style escapes, safe to print inside one line of a message: \n \t \r \0 \a
// \b \f \v, backslash as \\, ' as \', other control bytes and DEL as \xHH, every byte of an
// invalid UTF-8 sequence (overlong, surrogate, past U+10FFFF, cut short) as \xHH, and the
// valid code points that move or hide text (C1 controls U+0080..U+009F, U+2028, U+2029, the
// bidirectional controls U+200E, U+200F, U+202A..U+202E, U+2066..U+2069, U+FEFF) as \uHHHH.
// Printable ASCII and other valid UTF-8 pass through unchanged. The result holds no byte
// below 0x20 and no 0x7f.
std::string escaped(std::string_view text);

// escaped(text) between single quotes, for user text in a message: quote("3\nx") is the
// 7 characters '3\nx' (not std::quoted, which does not escape control bytes).
std::string quote(std::string_view text);

// Free text from a file (a scenario's source, pattern, expected) made safe for one line of a
// terminal, at most `maxColumns` columns wide: control bytes and DEL, invalid UTF-8 and the
// code points that move or hide text are escaped as escaped() escapes them (\n, \x1b,
// \u202e); backslash and ' stay as they are (no quotes around it, so nothing to escape
// them from; "a\nb" as typed and an escaped newline then look alike: for display only).
// When the text is wider it is cut after the last whole character (never inside an escape)
// that leaves room for the marker "...", which ends it; the result with the marker is at most
// `maxColumns` columns (below 3 columns, no marker). A column is one code point, or one
// character of an escape; East Asian wide and fullwidth characters count two, combining
// marks one (so a line may show narrower, never wider). Pure.
std::string oneTerminalLine(std::string_view text, size_t maxColumns);

// Whether oneTerminalLine would print `text` as itself (leaving the cut aside): no control
// byte, no DEL, no invalid UTF-8, no code point that moves or hides text. For names that
// must read the same in a message as in the file. Pure.
bool printsAsItself(std::string_view text);

// A plain decimal integer: an optional '-', then one or more ASCII digits, and nothing else
// (no '+', no spaces, no 0x/0b prefixes, no separators). Leading zeros are decimal ("010" is
// 10). A value beyond int64_t saturates at INT64_MIN or INT64_MAX, so a range check reports
// it as too large or too small. nullopt when the text is not of that form.
std::optional<int64_t> parseDecimal(std::string_view text);

// The decimal digits at the start of `s` as a T, `s` moved past them; nullopt, `s` kept, when
// there are none or their value does not fit in T.
template <std::unsigned_integral T>
std::optional<T> takeNumber(std::string_view& s) {
    T value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{}) return std::nullopt;
    s.remove_prefix(static_cast<size_t>(end - s.data()));
    return value;
}

// All of `text` as a T in `base`: digits only, after a '-' for a signed T (no '+', prefix or
// space); nullopt when it is anything else or does not fit in T.
template <typename T>
std::optional<T> parseWhole(std::string_view text, int base = 10) {
    T value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// `text` cut at every `separator`, the pieces in order without it: "a,,b" gives "a", "",
// "b"; "a," gives "a", ""; "" gives one empty piece. Views into `text`.
std::vector<std::string_view> split(std::string_view text, char separator);

// `s` without the white space (std::isspace: blanks, tabs, line ends) at either end.
std::string_view trimmed(std::string_view s);

// `text`'s words (runs of non-spaces) after `first`, one space between them, broken into
// lines of at most `width` columns: each line after the first starts with `indent` spaces
// and a word longer than a line gets a line of its own. The lines joined by '\n', without a
// last one. Used by --help and by the text report's long lines.
std::string wrapWords(std::string first, std::string_view text, size_t indent, size_t width);

// `s` with ASCII letters in lower case (std::tolower in the C locale); other bytes kept.
std::string lower(std::string_view s);

// The words of an errno value ("No such file or directory"); thread-safe, unlike strerror.
std::string errnoText(int error);

// A plain decimal number: an optional '-', digits with at most one '.', at least one digit,
// then optionally 'e' or 'E', an optional sign and digits ("2.5", ".5", "1e9", "1e-3").
// Rejected: '+' in front, spaces, hex floats, inf, nan and trailing text (nullopt). A value
// too large for double is +-infinity and one too small is 0, so range checks report it.
std::optional<double> parseDecimalNumber(std::string_view text);

}  // namespace repro
