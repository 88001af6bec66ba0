// Reading --breadcrumbs markers after a hang. Vulkan-free, so the logic is unit-tested
// with synthetic marker values.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace repro {

// The marker buffer has one uint32 slot per dispatch number (1-based, chain order: step
// s's conv-T is 2s-1, its slice 2s; slot 0 is unused). After the GPU finishes dispatch k
// of the run with id `runId` it writes `runId` into slot k (VK_AMD_buffer_marker at
// BOTTOM_OF_PIPE). Slots are reset to 0 on the host before each run.
struct BreadcrumbReading {
    std::optional<uint32_t> lastFinished;     // highest dispatch number whose slot holds runId
    uint32_t finished = 0;                    // slots holding runId
    std::optional<uint32_t> firstUnfinished;  // lowest dispatch number whose slot does not
    bool inOrder = true;                      // every finished dispatch comes before every unfinished one
};

// `slots` as read back; `dispatches` = how many dispatches the run recorded (2N).
BreadcrumbReading readBreadcrumbs(std::span<const uint32_t> slots, uint32_t dispatches, uint32_t runId);

// "dispatch 5 (step 3 conv-T)".
std::string describeDispatch(uint32_t dispatchNumber);

// One line for the report: what the GPU finished before the hang.
std::string describeBreadcrumbs(const BreadcrumbReading& reading, uint32_t dispatches);

}  // namespace repro
