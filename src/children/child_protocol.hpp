// The parent's side of the supervision protocol (the child's side is src/vk/watch.hpp):
// what the supervised child last said about where it is. Vulkan-free and unit-tested.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "forensics/crash_site.hpp"

namespace repro {

struct ChildState {
    struct Call {
        std::string name;  // "vkQueueSubmit"
        double limitSeconds = 0;
        double since = 0;  // the parent's clock when it was entered, seconds
    };
    std::optional<Call> inCall;           // the call the child is in, if any
    std::string stage = "setup";          // "setup", "modes" or "teardown"
    std::string mode;                     // the mode running, when one is
    std::string what = "starting";        // what is happening, in words
    std::string report;                   // the last report the child sent (renderJson text), or ""
    bool modesBegan = false;              // a mode under test has started
    std::optional<CrashReport> crash;     // what the child's crash handler sent, if it ran
    std::string text;                     // the text report the child sent ("X" lines, unescaped), in order
    std::vector<std::string> traceLines;  // --trace: the recorder's lines (report/trace_events.hpp), in order
    // For the progress line (children/progress.hpp):
    std::optional<double> modeSince;  // the parent's clock when the current run of a mode began
    struct Prediction {
        std::string mode;    // the mode it is for
        double seconds = 0;  // its one submit's predicted GPU seconds (from split's times)
    };
    std::optional<Prediction> prediction;  // the last prediction the child sent
    struct Row {
        unsigned index = 0, total = 0;  // 1-based row of total (a --sweep length, a --repeat run,
                                        // a --matrix variant, a --triage experiment)
        std::string label;              // what the rows are and this one: "sweep N=5"
        double since = 0;               // the parent's clock when this row began
        double firstSince = 0;          // ... and when row 1 did
    };
    std::optional<Row> row;
    long rowProcess = 0;  // the process of the row running now (vk/watch.hpp rowProcess), 0: none

    // Seconds past the deadline of the call the child is in at `now`, or nothing.
    std::optional<double> overdue(double now) const;
};

// Feeds bytes the child wrote (any split: a line may come in pieces); `now` is the
// parent's clock. Unknown or malformed lines are ignored.
class ChildProtocol {
  public:
    void feed(std::string_view bytes, double now);
    const ChildState& state() const { return state_; }

  private:
    void line(std::string_view text, double now);
    std::string partial_;
    ChildState state_;
};

}  // namespace repro
