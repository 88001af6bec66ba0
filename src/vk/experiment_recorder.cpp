// The experiment recorder: multipass and single under --barrier, --submit-every,
// --split-mib, --split-ms, --no-host-wait, --dispatch-repeat and --drop-dispatch, played
// from the Vulkan-free plan of vk/stream_plan.hpp, one plan step per recorder call.
#include "vk/modes.hpp"

namespace repro::vk {

ModeRun recordPlan(Recorder& r, std::span<const PlanStep> plan) {
    for (const PlanStep& step : plan) {
        switch (step.kind) {
            case PlanStep::Kind::Begin:
                r.begin();
                break;
            case PlanStep::Kind::Barrier:
                r.barrier(step.barrier, step.dispatch);
                break;
            case PlanStep::Kind::Dispatch:
                r.dispatch(step.dispatch);
                break;
            case PlanStep::Kind::Finish:
                r.finish(step.hostReads);
                break;
            case PlanStep::Kind::Submit: {
                const bool ok =
                    step.hostWait ? r.submitAndWait(step.what, step.convTsSinceWait) : r.submitNoWait(step.what);
                if (!ok) return r.stopped();
                break;
            }
        }
    }
    return r.completed();
}

}  // namespace repro::vk
