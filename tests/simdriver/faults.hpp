// Which call a fault (crash, abort, stall, lost) happens in: the k-th call of its entry
// point, counted in this process as calls reach the layer. Pure.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "config.hpp"

namespace repro::simdriver {

// Counts the calls of each fault entry point and says when a fault is due.
//  - A wait (vkWaitSemaphores, vkQueueWaitIdle, vkDeviceWaitIdle; isWait()) counts only the
//    calls that returned VK_SUCCESS from the driver below (after the simulated clock, if
//    any, let them complete): repro waits in slices of 100 ms, so counting every slice
//    would move the fault with the machine's speed. The fault happens as that call
//    returns, before the application sees its result.
//  - Every other entry point counts every call, and the fault happens before the call
//    is passed down (crash:vkQueueSubmit:1 crashes without submitting anything).
class FaultCounter {
  public:
    FaultCounter(std::optional<Fault> processFault, std::optional<Fault> lost)
        : processFault_(processFault), lost_(lost) {}

    // A call of `call` arrived; `counts`: it counts (see above). Returns the fault due in
    // this call, if any. With lost and crash/abort/stall on different k of one entry
    // point, each happens in its own call.
    std::optional<FaultKind> onCall(FaultCall call, bool counts);
    uint64_t calls(FaultCall call) const { return counts_[static_cast<size_t>(call)]; }
    // Whether a fault is set on `call`.
    bool targets(FaultCall call) const {
        return (processFault_ && processFault_->call == call) || (lost_ && lost_->call == call);
    }

  private:
    std::optional<Fault> processFault_;
    std::optional<Fault> lost_;
    std::array<uint64_t, kFaultCallCount> counts_{};
};

}  // namespace repro::simdriver
