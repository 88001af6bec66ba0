// Reading the chain's buffers back to the host after a mode.
#pragma once

#include <vector>

#include "reference/host_floats.hpp"
#include "vk/recorder.hpp"

namespace repro::vk {

// A buffer's contents on the host, or the submit that failed while copying it.
struct Readback {
    bool ok = true;
    SubmitOutcome failure;
    HostFloats values;  // elements, uninitialised until the read fills them
};

// Reads `buffer` (elements = size / 4): a host-visible buffer straight from its mapping (a
// host read of the memory the chain wrote, never a GPU copy, which would read through the
// GPU's caches and could hide a missing flush), a device-local one through the staging
// buffer in its own command buffer (G, vkCmdCopyBuffer, G, HOST_READ barrier), submitted
// and waited; the chain's own command stream is unchanged. Throws std::logic_error when a
// device-local buffer has no staging buffer.
// `into` is where the values go: a HostFloats of size / 4 elements, best with its pages
// already mapped (prefaultedHostFloats); any other size is resized first.
Readback readBuffer(const ChainResources& resources, Encoder& encoder, const WaitTimeout& timeout, const Buffer& buffer,
                    HostFloats into);

}  // namespace repro::vk
