// How long the host waits for a file's submit, and where --submit-every, --split-mib and
// --split-ms cut a file's submits in multipass and single. Vulkan-free; the step walker
// (vk/scenario_recorder.hpp) takes both as its settings.
#pragma once

#include <vector>

#include "core/variant.hpp"
#include "scenario/scenario.hpp"

namespace repro {

// Seconds of host wait each step of `s` may need, by step index (0 for barriers, host points,
// signals and waits), so that a submit's timeout is a base plus the sum over its work steps
// (vk::ScenarioRunSettings): a dispatch its invocations times its work loop's iterations
// (at least one; a private-array's words; a user kernel counted as kUserKernelIterations,
// since its work is unknown) at a generous rate per iteration, conv-t and slice as the
// built-in chain's per-conv-T budget (core/shape.hpp submitTimeoutSeconds), a transfer its
// bytes. The rates are 20 to 100 times slower than lavapipe on two cores and a GPU
// (docs/scenarios.md "Timeouts"), so a slow device that is still working is never called hung.
std::vector<double> submitBudgets(const scenario::Scenario& s, bool cpuDevice);
inline constexpr double kCpuSecondsPerIteration = 6e-9;
inline constexpr double kGpuSecondsPerIteration = 1e-10;
inline constexpr double kCpuSecondsPerByte = 1e-8;
inline constexpr double kGpuSecondsPerByte = 1e-10;
inline constexpr double kUserKernelIterations = 1000;

// multipass and single's cuts for --submit-every, --split-mib and --split-ms (core/variant.hpp
// commandBufferEnds over the file's work steps: the bytes each writes and its predicted time),
// by step index; empty without them. `predicted` is per work step (empty: no prediction,
// when --split-ms then cuts nothing).
std::vector<bool> fileCuts(const scenario::Scenario& s, const SubmitStructure& submit,
                           const std::vector<double>& predicted);

}  // namespace repro
