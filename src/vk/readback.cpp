// Readback (see readback.hpp).
#include "vk/readback.hpp"

#include <stdexcept>
#include <utility>

#include "reference/host_read.hpp"
#include "vk/barriers.hpp"
#include "vk/watch.hpp"

namespace repro::vk {

Readback readBuffer(const ChainResources& res, Encoder& encoder, const WaitTimeout& timeout, const Buffer& buffer,
                    HostFloats into) {
    Readback r;
    r.values = std::move(into);
    r.values.resize(buffer.size / sizeof(float));
    watch::detail("reading back " + buffer.name);
    const Buffer* from = &buffer;
    if (!buffer.mapped) {
        if (!res.buffers.staging) throw std::logic_error("readBuffer: no staging buffer");
        from = &*res.buffers.staging;
        encoder.begin();
        recordBladeGlobalBarrier(encoder.cmd());
        copyWhole(encoder.cmd(), buffer, *from);
        // Not blade's stream: the readback always makes the copy visible to the host.
        recordBladeGlobalBarrier(encoder.cmd());
        recordHostReadBarrier(encoder.cmd());
        encoder.end();
        const SubmitOutcome out = encoder.submitAndWait(timeout.seconds(res.shape, 0));
        if (out.status != SubmitStatus::Completed) {
            r.ok = false;
            r.failure = out;
            r.values.clear();
            return r;
        }
    }
    const watch::Scope scope("reading mapped memory", watch::kCallSeconds);
    // Streaming loads on several threads: mapped device memory is write-combined or
    // uncached, where one memcpy reads at a small fraction of the bus (reference/host_read.hpp).
    copyFromMapped(r.values.data(), from->mapped, r.values.size() * sizeof(float));
    return r;
}

}  // namespace repro::vk
