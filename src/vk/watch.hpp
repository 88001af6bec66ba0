// The supervised child's side of the supervision (src/children/supervisor.hpp): every Vulkan call
// that can reach the driver is bracketed by a message to the parent ("entering vkQueueSubmit,
// which must return within 20 s"; "left"), so the parent can name the call a crashing or
// stalling driver was in and enforce a deadline on it; the run's stage (set-up, the modes,
// teardown) and its report so far are sent too. The brackets wrap entries of volk's
// function table, so no call site can forget them. Without attach() nothing is sent.
#pragma once

#include <string>
#include <string_view>

namespace repro::watch {

// Seconds a set-up call, a submit, a recording call or a readback may take before the
// parent calls it a stall. A wait's own timeout is added for the waits. Generous: a
// pipeline compile or a device creation takes well under a second here (lavapipe) and on
// the H200, and a debug build of Mesa a few times that; and well inside the 60 s of a
// `timeout 60 repro ...` in a bisect script.
inline constexpr double kCallSeconds = 10.0;

// Where the run is: before the first submit of the modes (a driver failure there means this
// revision cannot be tested: 125), during the modes (3), or tearing down after them (3).
enum class Stage { Setup, Modes, Teardown };
std::string_view name(Stage stage);  // "setup", "modes", "teardown"

// Messages go to `fd` (a pipe to the supervising parent) from now on.
void attach(int fd);

// The stage, and what is happening in words ("creating the device", "mode multipass:
// submit 1 of 1 (all 7 steps)"); `mode` names the mode running, when one is.
void stage(Stage stage, std::string_view what, std::string_view mode = {});
// What is happening, within the current stage.
void detail(std::string_view what);

// The report so far (renderJson's object as one line of text).
void publishReport(const std::string& json);

// One line of --trace (report/trace_events.hpp: an event, a fact or a track's name).
void publishTrace(const std::string& json);

// A piece of the text report, for the parent's copy (-o FILE with --format text): sent as
// "X\t" and the text with '\\', newline, tab and CR escaped as \\, \n, \t and \r
// (children/child_protocol.hpp unescapes it).
void sendText(std::string_view text);

// For the parent's progress line (children/progress.hpp): the predicted GPU seconds of the next
// run of `mode` (from split's times), and the start of row `index` (from 1) of `total` of a
// --sweep, --repeat, --matrix or --triage ("sweep N=5", "matrix --barrier sync2").
void predict(std::string_view mode, double seconds);
void row(unsigned index, unsigned total, std::string_view label);

// The process of the row running now (a child repro of --matrix, --triage, the probe or
// --driver-env-sweep, in a process group of its own), 0 when none: the supervisor passes a
// SIGTSTP and its SIGCONT on to it (core/interrupt.hpp forwardStopsToGrandchild).
void rowProcess(long pid);

// A watched stretch of host work that can fault on a driver's memory (reading a mapping).
class Scope {
  public:
    Scope(const char* call, double seconds);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
};

// Wraps volk's entries after each of its loads (0: global, 1: instance, 2: device), when
// attached.
void wrapVolk(int stage);

}  // namespace repro::watch
