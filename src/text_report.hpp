// The text report's blocks that are printed before the results (device, environment,
// chain, what was added to or changed in blade's stream), each a function of the report
// data or the set-up, printed through say() (output.hpp).
#pragma once

#include <vector>

#include "core/options.hpp"
#include "core/report.hpp"
#include "rig.hpp"

namespace repro {

// --list-devices: one line per device with why it can or cannot run the repro.
void printDeviceList(const std::vector<vk::DeviceInfo>& devices);

// "Device: <name>" (the original's line) and the driver, queue, extension, feature and
// memory lines under it.
void printDevice(const DeviceReport& device);

// The host, kernel driver, driver environment and note lines.
void printEnvironment(const EnvironmentReport& environment);

// The original's chain lines (sizes, "Chaining N conv-T + slice ops", workgroups) and the
// shape and timeout line under them.
void printChain(const Options& options, const ChainSizes& sizes, bool cpuDevice);

// What the instrumentation adds to blade's stream, the positive control, the reference.
void printAdditions(const Options& options, const Rig& rig);

// The experiment settings in force, blade-exact's quirks and whether the run can be
// validation-clean; returns them for the report.
ExperimentReport printExperiment(const Options& options, const Rig& rig, const ShaderSources& shaders);

// --timings: the host phase timings line.
void printTimings(const PhaseTimings& timings);

}  // namespace repro
