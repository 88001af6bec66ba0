// --print-stream's capture of the command stream: the tracer (vk/trace.hpp) in swallow
// mode, every call it sees kept as one line here, so no command reaches the queue. The
// device installs it (engine/rig.cpp); engine/print_stream.hpp prints what it kept.
#pragma once

#include <string>
#include <vector>

namespace repro {

// Installs the swallow-mode tracer; called by the device right after volkLoadDevice.
void installStreamPrinter();

// The lines the tracer has kept since the last clear (one Vulkan call each, in order);
// the printer clears it before each mode.
std::vector<std::string>& capturedStream();

}  // namespace repro
