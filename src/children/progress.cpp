// The progress line and the long-run note (see progress.hpp).
#include "children/progress.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace repro {
namespace {

// "9 s of ~31 s predicted" (compact: "9 s/~31 s"): the seconds the current mode has run, and
// split's prediction for it when one was sent for this mode.
std::string modeTime(const ChildState& s, double now, bool compact) {
    if (s.mode.empty() || !s.modeSince) return {};
    std::string out = fmt::format(": {}", durationText(now - *s.modeSince));
    if (s.prediction && s.prediction->mode == s.mode) {
        const std::string predicted = durationText(s.prediction->seconds);
        out += compact ? "/~" + predicted : " of ~" + predicted + " predicted";
    }
    return out;
}

// "row 3 of 8, 5 left, ~40 s" (compact: "3/8, ~40 s"): the row, the rows left including this
// one, and their time at the mean of the rows done so far (none before the first row ends).
std::string rowCounts(const ChildState::Row& row, double now, bool compact) {
    const unsigned left = row.total >= row.index ? row.total - row.index + 1 : 0;
    std::string out = compact ? fmt::format("{}/{}", row.index, row.total)
                              : fmt::format("row {} of {}, {} left", row.index, row.total, left);
    if (row.index > 1) {
        const double perRow = (row.since - row.firstSince) / (row.index - 1);
        const double remaining = std::max(0.0, perRow * left - (now - row.since));
        out += fmt::format(", ~{}", durationText(remaining));
    }
    return out;
}

// Columns of UTF-8 `text`: its code points (no wide characters in what the child sends).
size_t columnsOf(std::string_view text) {
    return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// `text` in at most `columns` columns, cut at a code point, "..." ending it when cut.
std::string elided(std::string_view text, size_t columns) {
    if (columnsOf(text) <= columns) return std::string(text);
    const size_t keep = columns > 3 ? columns - 3 : columns;
    size_t end = 0;
    for (size_t seen = 0; end < text.size(); ++end) {
        if ((text[end] & 0xC0) != 0x80 && seen++ == keep) break;
    }
    return std::string(text.substr(0, end)) + (columns > 3 ? "..." : "");
}

// The line's parts: "repro 12 s", the row's label and counts, what the child does and its time.
struct LineParts {
    std::string head, rowLabel, rowCounts, doing, time;
    std::string joined() const {
        std::string line = head;
        if (!rowCounts.empty()) line += " | " + rowLabel + ": " + rowCounts;
        if (!doing.empty()) line += " | " + doing + time;
        return line;
    }
};

LineParts lineParts(const ChildState& s, double now, bool compact) {
    LineParts p{.head = fmt::format("repro {}", durationText(now))};
    if (s.row) {
        p.rowLabel = s.row->label;
        p.rowCounts = rowCounts(*s.row, now, compact);
    }
    if (!s.what.empty()) {
        p.doing = doingText(s);
        p.time = modeTime(s, now, compact);
    }
    return p;
}

// Convolution multiply-adds of one conv-T of `shape`, as submitTimeoutSeconds scales them.
double convTWork(const Shape& shape) {
    const ChainSizes z = computeSizes(shape);
    return double(z.bigElems) * shape.channels * shape.kernelH * shape.kernelW;
}

}  // namespace

std::string doingText(const ChildState& s) {
    if (s.mode.empty() || s.what.starts_with("mode ")) return s.what;
    return fmt::format("mode {}, {}", s.mode, s.what);
}

bool progressWanted(bool stderrIsTerminal, bool quiet, const char* ci, const char* term) {
    if (!stderrIsTerminal || quiet || ci != nullptr) return false;
    return term == nullptr || std::strcmp(term, "dumb") != 0;
}

std::string durationText(double seconds) {
    const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
    if (s < 120) return fmt::format("{} s", s);
    if (s < 7200) return fmt::format("{} min {:02} s", s / 60, s % 60);
    return fmt::format("{} h {:02} min", s / 3600, (s / 60) % 60);
}

std::string progressLine(const ChildState& s, double now, size_t columns) {
    const size_t width = std::min<size_t>(std::max<size_t>(columns, 2), kProgressMaxColumns) - 1;
    const std::string verbose = lineParts(s, now, false).joined();
    if (columnsOf(verbose) <= width) return verbose;
    LineParts p = lineParts(s, now, true);
    // The row's label and what the child does share what the rest leaves, the shorter first.
    const size_t fixed = columnsOf(p.joined()) - columnsOf(p.rowLabel) - columnsOf(p.doing);
    size_t room = width > fixed ? width - fixed : 0;
    std::string* first = columnsOf(p.rowLabel) <= columnsOf(p.doing) ? &p.rowLabel : &p.doing;
    std::string* second = first == &p.rowLabel ? &p.doing : &p.rowLabel;
    *first = elided(*first, std::min(columnsOf(*first), room / 2));
    room -= columnsOf(*first);
    *second = elided(*second, room);
    return elided(p.joined(), width);
}

double cpuRunSeconds(const Options& o) {
    const double modeRuns = double(o.modes.size()) * o.repeat + (splitRunsAfter(o) ? 1 : 0);
    double steps = o.chainLength;
    if (o.sweep) {
        steps = 0;
        for (uint32_t n = o.sweep->first; n <= o.sweep->second; ++n) steps += n;
    }
    static const double kFullSize = convTWork(Shape{});
    return modeRuns * steps * o.dispatchRepeat * kCpuConvTSeconds * (convTWork(o.shape) / kFullSize);
}

std::optional<std::string> longCpuRunNote(const Options& o, bool cpuDevice) {
    if (!cpuDevice) return std::nullopt;
    const double seconds = cpuRunSeconds(o);
    if (seconds <= kLongCpuRunSeconds) return std::nullopt;
    return fmt::format(
        "repro: this run takes about {} on a CPU driver (~{:.0f} s per full-size conv-T); "
        "--preset small -n 3 takes seconds",
        durationText(seconds), kCpuConvTSeconds);
}

}  // namespace repro
