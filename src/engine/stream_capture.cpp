// --print-stream's capture (see engine/stream_capture.hpp).
#include "engine/stream_capture.hpp"

#include "vk/trace.hpp"

namespace repro {

std::vector<std::string>& capturedStream() {
    static std::vector<std::string> lines;
    return lines;
}

void installStreamPrinter() {
    vk::trace::install(vk::trace::Mode::Swallow, [](const std::string& line) { capturedStream().push_back(line); });
}

}  // namespace repro
