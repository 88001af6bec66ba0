// Printing for the report. Every line is flushed at once, so a hang or crash later in the
// run cannot lose what was already said (docs/contract.md, "Output"). No write throws: a
// failed write (a closed pipe, a full disk, a closed stdout) is remembered, and the run
// ends with exit status 1 after it has done its work (writeFailed()).
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace repro {

// Where the text report goes: stdout, or stderr when --format markdown/json owns stdout.
FILE*& textStream();

// -o FILE with --format text: from captureText() on, every write to textStream() is also
// kept (capturedText(), written to FILE at the end) and handed to the tap, when one is set
// (the supervised child's tap sends it to the parent, children/supervisor.cpp).
void captureText();
std::string& capturedText();
void setTextTap(void (*tap)(std::string_view text));

// Writes `text` to `stream` and flushes; false (and writeFailed() from then on) when the
// write or the flush fails. Never throws.
bool writeText(FILE* stream, std::string_view text);

// Whether a write to stdout or stderr has failed, and which stream it was ("stdout").
bool writeFailed();
std::string failedStream();

// The status of a run whose text and documents are all out: after a failed write to
// stdout or stderr (writeFailed()), one line on stderr, "repro: the report could not be
// written to STREAM", whatever the status (docs/contract.md "Output": in every mode); exit 0
// becomes exit 1, any other status stays (it says more: a reproduction is still 2).
int statusAfterWrites(int status);

// Makes file descriptors 0, 1 and 2 valid (/dev/null for a closed one), so that no file
// repro opens later lands on a standard stream. Call first in main.
void ensureStandardStreams();

// One line of the text report.
template <typename... Args>
void say(fmt::format_string<Args...> format, Args&&... args) {
    writeText(textStream(), fmt::format(format, std::forward<Args>(args)...) + "\n");
}

// One line on stderr ("repro: ..." messages).
template <typename... Args>
void sayError(fmt::format_string<Args...> format, Args&&... args) {
    writeText(stderr, fmt::format(format, std::forward<Args>(args)...) + "\n");
}

// "a, b, c" ("none" for an empty list).
inline std::string join(const std::vector<std::string>& items, std::string_view separator = ", ") {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
    return out.empty() ? "none" : out;
}

// With `on`, every later write of the text report (core/output.hpp writeText) to stdout or
// stderr, where that stream is a terminal, starts with "\r\x1b[K" (carriage return, clear
// to the end of the line) in the same write(2): it erases the progress line the supervisor
// redraws there, and the text starts at column 0. Inherited by a forked child.
void clearProgressBeforeWrites(bool on);

}  // namespace repro
