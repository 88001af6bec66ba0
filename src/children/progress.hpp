// The progress line of a long run (issue 23, "Progress on long work"): when stderr is a
// terminal, the supervising parent (src/children/supervisor.cpp) redraws one line in place from what
// the child last said (children/child_protocol.hpp): the mode, the submit or step, the seconds
// the mode has run and those split predicted for it, and for --sweep, --repeat, --matrix and
// --triage the row, the rows left and an estimate. And the note before a run that will take
// minutes on a CPU driver. Vulkan-free and unit-tested.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "children/child_protocol.hpp"
#include "cli/options.hpp"

namespace repro {

// Seconds a run goes on before its progress line first shows, and between redraws.
inline constexpr double kProgressAfterSeconds = 2.0;
inline constexpr double kProgressEverySeconds = 0.25;

// Whether a run draws the progress line on stderr: only when stderr is a terminal, not with
// -q, not when CI is set (to anything, as CI services set it) and not when TERM is "dumb"
// (a terminal that cannot clear to the end of a line). `ci`, `term`: the variables' values,
// nullptr when unset.
bool progressWanted(bool stderrIsTerminal, bool quiet, const char* ci, const char* term);

// The widest a progress line is drawn, whatever the terminal's width: it stays on one line
// of the classic 80-column terminal, and looks the same on every terminal.
inline constexpr size_t kProgressMaxColumns = 80;

// The line for `state` at `now` (the parent's clock, seconds since the child started), at
// most min(`columns`, kProgressMaxColumns) - 1 columns (a full line would wrap, and "\r"
// would redraw only its last part), without the "\r" before it and the "\x1b[K" (clear to
// the end of the line) after it: "repro 12 s | sweep N=7: row 3 of 8, 5 left, ~40 s | mode
// multipass, submit 1 of 1 (all 7 steps): 9 s of ~31 s predicted". Parts not known yet are
// left out. A line too wide is compacted ("sweep N=7: 3/8, ~40 s", "9 s/~31 s"), then the
// row's label and what the child does are cut short with "...", never the counts and
// times; a column is a UTF-8 code point.
std::string progressLine(const ChildState& state, double now, size_t columns);

// What the child is doing, in words: "mode multipass, submit 1 of 1 (all 7 steps)" (what it
// said, after its mode unless that names the mode already). The progress line's, and the
// supervisor's for a child it ended.
std::string doingText(const ChildState& state);

// "9 s", "4 min 05 s", "1 h 02 min": a duration in seconds, for people.
std::string durationText(double seconds);

// About how many seconds the run `options` asks for takes on a CPU driver: its conv-T
// dispatches (every mode it runs, the split reference included, each run of --repeat, each
// length of --sweep, each --dispatch-repeat copy) at kCpuConvTSeconds each for the
// full-size shape, scaled with the shape's multiply-adds (the slices are negligible).
double cpuRunSeconds(const Options& options);

// Seconds one full-size conv-T takes on lavapipe: docs/figures.md measures 130 to 175 s.
inline constexpr double kCpuConvTSeconds = 150.0;

// Runs estimated to take longer than this on a CPU driver get the note below.
inline constexpr double kLongCpuRunSeconds = 180.0;

// The one line before a run on a CPU driver that will take more than kLongCpuRunSeconds:
// about how long, and how to make it quick (--preset small); nullopt for a GPU or a short
// run.
std::optional<std::string> longCpuRunNote(const Options& options, bool cpuDevice);

}  // namespace repro
