// The text report's blocks that are printed before the results (device, environment,
// chain, what was added to or changed in blade's stream), each a function of the report
// data or the set-up, printed through say() (output.hpp).
#pragma once

#include <vector>

#include "cli/options.hpp"
#include "scenario/plan.hpp"
#include "engine/rig.hpp"
#include "report/report.hpp"

namespace repro {

// How much of the header the text report prints (the Markdown and JSON documents always
// carry everything): -q nothing before the results, the default the short header (version,
// device and driver, queue and its job timeout, chain and shape, experiment flags), -v all
// of it (extensions, features, memory types, host, kernel driver, driver environment, notes,
// and the original repro's size and workgroup lines).
enum class HeaderDetail { None, Short, Full };

// The detail -q / -v / neither asks for.
HeaderDetail headerDetail(const Options& options);

// The widest a line of the text report is made: a longer one is wrapped (sayWrapped), a
// long list packed over several lines.
inline constexpr size_t kTextColumns = 160;

// One line of the text report; one longer than kTextColumns is wrapped at spaces, each
// continuation indented 4 spaces more than the line (a word longer than that stays whole).
void sayWrapped(const std::string& line);

// The first line: repro's version and git commit, what runs (the built-in chain, or the
// scenario by name), and the Vulkan loader's version.
void printBanner(const Options& options, const Plan& plan, const std::string& loaderVersion);

// --list-devices: one line per device with why it can or cannot run the repro.
void printDeviceList(const std::vector<vk::DeviceInfo>& devices);

// "Device: <name>" (the original's line) and one driver line; with -v also the ids, UUIDs,
// queue, driver library, extension, feature and memory lines.
void printDevice(const Options& options, const DeviceReport& device);

// -v only: the host, kernel driver, driver environment and note lines.
void printEnvironment(const Options& options, const EnvironmentReport& environment);

// The queue submitted to and how long the kernel lets a job on it run (`queueLine`, from
// forensics/watchdog.hpp's queueLine), and the kernel log's note when it cannot be read.
void printQueue(const Options& options, const std::string& queueLine, const std::string& kernelLogNote);

// "Chaining N conv-T + slice ops" (the original's line) and the shape and timeout line
// under it; with -v also the original's size and workgroup lines around it.
void printChain(const Options& options, const ChainSizes& sizes, bool cpuDevice);

// What the instrumentation adds to the stream (and what it could not add), the positive
// control, the reference.
void printAdditions(const Options& options, const Plan& plan, const vk::Instrumentation& instrumentation,
                    const std::vector<std::string>& instrumentationNotes);

// A file's block, where the built-in chain prints its "Chaining N ..." lines: the scenario, its
// source, pattern and expected verdict, its steps, kernels, shape, chain values, parameters,
// poisoned and split-only buffers, and the timeout per submit. File text is escaped
// (core/text.hpp escaped): a file may hold any bytes.
void printFilePlan(const Options& options, const Plan& plan, bool cpuDevice);

// A file's experiment settings (what --barrier, --memory, --submit-every, --split-*,
// --no-host-wait, --work-scale and --poison changed) and its labelled controls; returns them
// for the report.
ExperimentReport printFileExperiment(const Options& options, const scenario::Scenario& s);

// The experiment settings in force, blade-exact's quirks and whether the run can be
// validation-clean; returns them for the report.
ExperimentReport printExperiment(const Options& options, const Rig& rig, const ShaderSources& shaders);

// --timings: the host phase timings line.
void printTimings(const PhaseTimings& timings);

}  // namespace repro
