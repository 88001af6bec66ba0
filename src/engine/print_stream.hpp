// --print-stream: the exact command stream of each selected mode, one Vulkan call per line,
// printed without running it: the device is set up as usual, then every mode is recorded
// through the tracer in swallow mode (vk/trace.hpp installCapture), so no command reaches the
// queue.
#pragma once

#include "report/report.hpp"
#include "engine/session.hpp"

namespace repro {

// Records each mode of session.options (the mode's clearing submit first, as a real run
// does) into the tracer, prints the calls (text: plain lines; --format markdown: a
// collapsible block per mode, in the report) and stores them in report.streams.
// Returns 0.
int printStreams(Session& session, RunReport& report);

}  // namespace repro
