// The command stream as text: every vkBeginCommandBuffer, vkCmd*, vkEndCommandBuffer,
// vkQueueSubmit and host wait repro makes, one call per line with the arguments that matter
// (stage and access masks named, dispatch sizes, buffers and pipelines by name, submit and
// wait boundaries). It wraps entries of volk's function table, so it sees exactly the calls
// that reach the driver. `--print-stream` uses it in swallow mode (nothing reaches the
// queue); the golden stream tests use it in forward mode during real runs
// (tests/e2e/stream_test.cpp, through the fault-injection seam).
#pragma once

#include <volk.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace repro::vk::trace {

enum class Mode {
    Forward,  // log, then call the driver as usual
    Swallow,  // log only: commands are not recorded, submits not made, waits succeed at once
              // (vkBeginCommandBuffer/vkEndCommandBuffer and descriptor updates still reach
              // the driver, so every object stays valid)
};

// Replaces volk's entries for the traced calls with logging wrappers; every line goes to
// `sink` (no newline). Call after volkLoadDevice; a second call replaces the sink and mode.
void install(Mode mode, std::function<void(const std::string&)> sink);

// Whether install() was called.
bool installed();

// --print-stream's capture: install(Mode::Swallow) with every line kept in captured(), one
// Vulkan call each, in order (engine/print_stream.cpp prints and clears it before each mode).
void installCapture();
std::vector<std::string>& captured();

// The name lines show for a handle (buffers, pipelines, query pools); unnamed handles are
// shown as "buffer#1", "pipeline#1"... in the order first seen.
void nameObject(uint64_t handle, std::string name);
// nameObject for a Vulkan handle, when a trace is installed (else nothing).
template <typename Handle>
void nameHandle(Handle handle, std::string name) {
    if (installed()) nameObject(reinterpret_cast<uint64_t>(handle), std::move(name));
}

// Forgets the wait already printed, so the next wait prints even for the same value.
void breakWaitRun();

// One line of annotation ("# ...") in the stream, when a trace is installed.
void note(const std::string& text);

}  // namespace repro::vk::trace
