// The progress line and the long-run note (see progress.hpp).
#include "children/progress.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace repro {
namespace {

// "mode multipass, submit 1 of 1 (all 7 steps)": the mode and what it is doing.
std::string doing(const ChildState& s) {
    if (s.mode.empty() || s.what.starts_with("mode ")) return s.what;
    return fmt::format("mode {}, {}", s.mode, s.what);
}

// "9 s of ~31 s predicted": the seconds the current mode has run, and split's prediction
// for it when one was sent for this mode.
std::string modeTime(const ChildState& s, double now) {
    if (s.mode.empty() || !s.modeSince) return {};
    std::string out = fmt::format(": {}", durationText(now - *s.modeSince));
    if (s.prediction && s.prediction->mode == s.mode) {
        out += fmt::format(" of ~{} predicted", durationText(s.prediction->seconds));
    }
    return out;
}

// "sweep N=7: row 3 of 8, 5 left, ~40 s": the row, the rows left including this one, and
// their time at the mean of the rows done so far (none before the first row ends).
std::string rowText(const ChildState::Row& row, double now) {
    const unsigned left = row.total >= row.index ? row.total - row.index + 1 : 0;
    std::string out = fmt::format("{}: row {} of {}, {} left", row.label, row.index, row.total, left);
    if (row.index > 1) {
        const double perRow = (row.since - row.firstSince) / (row.index - 1);
        const double remaining = std::max(0.0, perRow * left - (now - row.since));
        out += fmt::format(", ~{}", durationText(remaining));
    }
    return out;
}

// Convolution multiply-adds of one conv-T of `shape`, as submitTimeoutSeconds scales them.
double convTWork(const Shape& shape) {
    const ChainSizes z = computeSizes(shape);
    return double(z.bigElems) * shape.channels * shape.kernelH * shape.kernelW;
}

}  // namespace

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
    std::string line = fmt::format("repro {}", durationText(now));
    if (s.row) line += " | " + rowText(*s.row, now);
    if (!s.what.empty()) line += " | " + doing(s) + modeTime(s, now);
    const size_t width = std::max<size_t>(columns, 2) - 1;
    if (line.size() > width) line.resize(width);
    return line;
}

double cpuRunSeconds(const Options& o) {
    const bool splitAsked = std::find(o.modes.begin(), o.modes.end(), Mode::Split) != o.modes.end();
    const bool splitAfter = !splitAsked && (o.reference == ReferenceKind::Auto || o.reference == ReferenceKind::Split);
    const double modeRuns = double(o.modes.size()) * o.repeat + (splitAfter ? 1 : 0);
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
