// Runs the modes of one invocation on a device that is already set up: the reference,
// repeats, --check-steps, --sweep, and the verdict. The Vulkan calls of each mode live
// in vk/chain.cpp; this file decides what runs, in which order, and what it means.
#pragma once

#include <cstdint>

#include "core/options.hpp"
#include "core/report.hpp"
#include "core/shape.hpp"
#include "vk/chain.hpp"

namespace repro {

namespace vk {
class Device;
class Instance;
}  // namespace vk

// What the run needs, made once per invocation (for a sweep too).
struct Session {
    const Options& options;
    ChainSizes sizes;
    vk::Instance& instance;
    vk::Device& device;
    vk::Chain& chain;
    RunReport& report;  // filled with every mode's results, the reference and the verdict
    // --profile blade-exact with params declared Uniform and written through a
    // STORAGE_BUFFER descriptor: undefined behaviour, so a wrong split is not the driver's.
    bool paramsDescriptorMismatch = false;
};

// Runs options.modes at options.chainLength, prints results as they finish, prints the
// verdict and returns the exit status (SPEC §5).
int runChainLength(Session& session);

// --sweep A..B: every N in the range, a table N x mode -> classification, the smallest
// reproducing N per mode; returns the combined exit status.
int runSweep(Session& session);

}  // namespace repro
