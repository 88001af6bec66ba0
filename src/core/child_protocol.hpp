// The parent's side of the supervision protocol (the child's side is src/vk/watch.hpp):
// what the supervised child last said about where it is. Vulkan-free and unit-tested.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/crash_site.hpp"

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
    std::vector<std::string> traceLines;  // --trace: the recorder's lines (core/trace_events.hpp), in order

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
