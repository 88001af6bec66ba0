// repro: reproduces blade issue #356, a GPU-driver synchronization bug, with raw Vulkan.
//
// The story: options -> device -> buffers and pipelines -> record and run each mode ->
// check -> report -> exit status (docs/contract.md). Results are printed and flushed as
// each mode finishes, so a hang or crash in a later mode cannot lose them.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <future>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "forensics/environment.hpp"
#include "cli/help.hpp"
#include "core/interrupt.hpp"
#include "report/merge_reports.hpp"
#include "cli/options.hpp"
#include "report/report.hpp"
#include "report/report_render.hpp"
#include "core/spirv_validation.hpp"
#include "report/trace_events.hpp"
#include "report/verdict.hpp"
#include "children/experiments.hpp"
#include "children/triage_run.hpp"
#include "core/output.hpp"
#include "children/progress.hpp"
#include "cli/output_paths.hpp"
#include "engine/print_stream.hpp"
#include "repro_version.h"
#include "engine/device_choice.hpp"
#include "engine/evidence.hpp"
#include "engine/rig.hpp"
#include "engine/scenario_run.hpp"
#include "engine/session.hpp"
#include "children/supervisor.hpp"
#include "engine/text_report.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "engine/version_info.hpp"
#include "vk/watch.hpp"

namespace repro {
namespace {

// Makes sure --dump-dir exists and is a directory before any GPU work starts.
void prepareDumpDir(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir)) {
        throw UsageError(
            fmt::format("--dump-dir: cannot use '{}' as a directory ({})", dir, ec ? ec.message() : "not a directory"));
    }
}

// The device and environment blocks of the header; the report gets the device.
// `selectionNotes` (which driver was taken, drivers that failed to load) are shown in the
// short header too: under a bisect they say that the build under test was not the one run.
void printDeviceHeader(const Options& o, const Rig& rig, const vk::Instance& instance,
                       const std::vector<std::string>& selectionNotes, RunReport& report) {
    report.device = rig.describeDevice(instance.loaderMessages());
    printDevice(o, *report.device);
    if (headerDetail(o) == HeaderDetail::Short) {
        for (const auto& note : selectionNotes) say("  note: {}", note);
    }
    for (const auto& note : hangEvidenceNotes(report.device->driverName)) {
        report.environment.notes.push_back("hang evidence: " + note);
    }
    printEnvironment(o, report.environment);
}

// The rest of the header: queue and job timeout, chain, what the run adds to or changes in
// blade's stream.
void printRunHeader(const Options& o, const Rig& rig, const ShaderSources& shaders, const Evidence& evidence,
                    RunReport& report) {
    printQueue(o, evidence.queueLine(), evidence.kernelLogNote());
    printChain(o, report.sizes, rig.device.info().isCpu());
    // A run of minutes on a CPU driver says so first, and how to make it quick.
    if (const auto note = longCpuRunNote(o, rig.device.info().isCpu()); note && !o.quiet) sayError("{}", *note);
    printAdditions(o, rig);
    report.experiment = printExperiment(o, rig, shaders);
}

// Teardown starts by waiting for the queue; a device lost there is still a hang.
int checkTeardown(Rig& rig, int status, RunReport& report) {
    if (rig.device.abandoned()) return status;
    const VkResult idle = vkDeviceWaitIdle(rig.device.get());
    if (idle == VK_ERROR_DEVICE_LOST && status != kExitHang) {
        const std::string line =
            "--- GPU HANG: vkDeviceWaitIdle returned VK_ERROR_DEVICE_LOST at teardown, "
            "after the results above";
        say("{}", line);
        report.verdict.lines.push_back(line);
        if (status < 128) status = kExitHang;  // an interrupt's 130/143 stays
    } else if (idle != VK_SUCCESS) {
        say("--- warning: vkDeviceWaitIdle returned {} at teardown", vk::resultName(idle));
    }
    return status;
}

void recordValidation(const vk::Instance& instance, const Options& o, RunReport& report) {
    report.validation.enabled = o.validation;
    report.validation.errors = instance.validationLog().errors;
    report.validation.warnings = instance.validationLog().warnings;
    report.validation.messages = instance.validationLog().messages;
}

// --trace: the set-up phase as a slice (from the run's start to the first mode), the
// device's facts and the job timeout for the markers on long submits.
void traceSetUp(const Rig& rig, const Evidence& evidence, Clock::time_point begin) {
    if (!trace_events::attached()) return;
    const vk::DeviceInfo& info = rig.device.info();
    trace_events::fact("device", info.properties.deviceName);
    trace_events::fact("timestamp_period_ns", fmt::format("{}", info.properties.limits.timestampPeriod));
    const QueueTimeout& timeout = evidence.watchdog().timeout;
    const bool known = timeout.kind == TimeoutKind::Limit;
    trace_events::fact("job_timeout", known ? fmt::format("{} ms ({})", timeout.milliseconds, timeout.source)
                                            : "not known (" + timeout.source + "): no job-timeout markers");
    trace_events::setJobTimeout(known ? std::optional<double>(timeout.seconds()) : std::nullopt, timeout.source);
    if (rig.instrumentation.timestamps()) {
        trace_events::nameTrack(trace_events::Track::Gpu,
                                fmt::format("GPU: {}, queue family {} (--timestamps)", info.properties.deviceName,
                                            rig.device.queueFamily()));
    } else {
        trace_events::fact("gpu_track", "none: run with --timestamps for each dispatch's GPU interval");
    }
    trace_events::slice("set-up", "phase", trace_events::Track::Host, trace_events::nanos(begin), trace_events::now(),
                        {{"what", "loader, instance, device, buffers, pipelines, the chain's inputs, the header"}});
}

// The run from the instance on: device -> set-up -> the modes -> verdict, timed from
// `begin`. The device and everything made on it are destroyed when it returns.
int runOnDevice(const Options& o, RunReport& report, vk::Instance& instance, const std::vector<vk::DeviceInfo>& devices,
                const ShaderSources& shaders, KernelLogReader kernelLog, Clock::time_point begin) {
    report.loader = describeLoader(instance);
    std::vector<std::string> selectionNotes;
    const vk::DeviceInfo chosen = selectDevice(instance, devices, o, selectionNotes);
    report.environment.notes.insert(report.environment.notes.end(), selectionNotes.begin(), selectionNotes.end());
    if (o.dumpDir) prepareDumpDir(*o.dumpDir);
    checkDeviceFits(chosen, report.sizes, o.chainLength);
    printBanner(o, report.loader.version);
    std::future<ChainInputs> inputs = startChainInputs(report.sizes);  // while the driver creates the device
    report.timings.instanceAndDevice = secondsSince(begin);
    Rig rig(instance, chosen, o, shaders, report.timings, std::move(inputs));
    printDeviceHeader(o, rig, instance, selectionNotes, report);
    checkExpectedDriver(o, *report.device);
    Evidence evidence(report.environment, *report.device, std::move(kernelLog));
    if (o.spirvDir) evidence.setUserModules(checkUserModules(*o.spirvDir));
    printRunHeader(o, rig, shaders, evidence, report);
    if (o.spirvDir) say("  {}", evidence.userModules());
    watch::publishReport(renderJsonLine(report));
    // Each run of a mode goes into the report as soon as it has a result, and to the
    // supervising parent, so neither a crash nor an exception later can lose it.
    Session session{.options = o,
                    .sizes = report.sizes,
                    .instance = instance,
                    .rig = rig,
                    .timings = report.timings,
                    .modeDone =
                        [&report](const ModeReport& m) {
                            report.modes.push_back(m);
                            watch::publishReport(renderJsonLine(report));
                        },
                    .evidence = &evidence};
    traceSetUp(rig, evidence, begin);
    if (o.printStream) return printStreams(session, report);
    int status = o.sweep ? runSweep(session, report) : runChainLength(session, report);
    watch::stage(watch::Stage::Teardown, "waiting for the device to go idle and destroying it");
    status = checkTeardown(rig, status, report);
    recordValidation(instance, o, report);
    report.timings.total = secondsSince(begin);
    for (const auto& warning : watchdogWarnings(report)) say("--- warning: {}", warning);
    if (o.timings) printTimings(report.timings);
    return status;
}

// The run: options -> device -> set-up -> the modes -> verdict. Returns the exit status;
// set-up failures throw (runGuarded turns them into statuses).
int runRepro(const Options& o, RunReport& report) {
    const auto begin = Clock::now();
    const ShaderSources shaders = loadShaders(o, profileSettings(o.profile));  // --spirv: usage errors first
    KernelLogReader kernelLog = openRunKernelLog();                            // from the run's start
    report.environment = captureEnvironment(processEnvironmentSources());
    watch::detail("loading the Vulkan loader and creating the instance");
    vk::Instance instance(o.validation);
    watch::detail("enumerating the physical devices");
    const auto devices = vk::enumerateDevices(instance);
    if (o.listDevices) return listDevices(instance, devices, o);
    const int status = runOnDevice(o, report, instance, devices, shaders, std::move(kernelLog), begin);
    // The device is gone; the instance (and with it the driver) goes when this returns.
    if (report.timings.total > 0)
        report.timings.teardownDevice = std::max(0.0, secondsSince(begin) - report.timings.total);
    return status;
}

// runRepro with every set-up failure turned into its status and one line (docs/contract.md).
// After a set-up failure or an exception mid-run: the modes that did not run, said so with
// the reason, and the verdict line, in the text report and the report's data.
int failedRun(const Options& o, RunReport& report, int status, const std::string& headline, const std::string& reason) {
    sayError("repro: {}: {}",
             status == kExitHang ? "GPU hang during set-up"
             : status > 128      ? "interrupted"
                                 : "cannot test here",
             reason);
    // The run was under way (or an interrupt stopped the CPU reference before the first
    // mode): the text report gets the ending too.
    if (!report.modes.empty() || status > 128) {
        for (const Mode mode : o.modes) {
            const bool ran = std::any_of(report.modes.begin(), report.modes.end(),
                                         [&](const ModeReport& m) { return m.result.mode == mode; });
            if (ran) continue;
            const ModeResult notRun{.mode = mode, .kind = Classification::NotRun, .reason = reason};
            say("  mode={:<9} not run", name(mode));
            say("{}", classificationLine(notRun));
            report.modes.push_back({.result = notRun, .role = "under test"});
        }
        say("--- {}: {}", headline, reason);
    }
    report.verdict.lines.push_back(fmt::format("--- {}: {}", headline, reason));
    return status;
}

// runRepro with every set-up failure turned into its status and one line (docs/contract.md).
int runGuarded(const Options& o, RunReport& report) {
    try {
        report.sizes = computeSizes(o.shape);
        const auto start = Clock::now();
        const int status = runRepro(o, report);
        // runRepro's Vulkan objects are destroyed by now; `total` ended before that.
        if (report.timings.total > 0)
            report.timings.teardown = std::max(0.0, secondsSince(start) - report.timings.total);
        return status;
    } catch (const UsageError& e) {
        sayError("repro: {}", e.what());
        return kExitUsage;
    } catch (const Interrupted& e) {  // answered in a long host loop (the CPU reference)
        return failedRun(o, report, 128 + interruptSignal(),
                         interruptSignal() == SIGTERM ? "INTERRUPTED by SIGTERM" : "INTERRUPTED by SIGINT",
                         e.where() + "; the results above are complete for the modes that finished; no verdict");
    } catch (const CannotTest& e) {
        return failedRun(o, report, kExitCannotTest, "CANNOT TEST HERE", e.what());
    } catch (const vk::VulkanError& e) {
        const bool lost = e.result == VK_ERROR_DEVICE_LOST;
        return failedRun(o, report, lost ? kExitHang : kExitCannotTest, lost ? "GPU HANG" : "CANNOT TEST HERE",
                         e.what());
    } catch (const std::bad_alloc&) {
        return failedRun(o, report, kExitCannotTest, "CANNOT TEST HERE", "out of host memory");
    } catch (const std::exception& e) {
        return failedRun(o, report, kExitCannotTest, "CANNOT TEST HERE", fmt::format("internal error: {}", e.what()));
    }
}

// The Markdown or JSON document on stdout (or in the -o file) and the --json file, after
// the run; a failed write of the report is exit 1 unless a hang or a reproduction says more,
// and a lost stdout document is one line on stderr whatever the status.
int writeReports(const Options& o, RunReport& report, int status) {
    report.verdict.exitStatus = status;
    bool written = true;
    if (o.format == Format::Markdown) {
        written = emitFormatDocument(o, "the Markdown report", renderMarkdown(report));
    } else if (o.format == Format::Json) {
        written = emitFormatDocument(o, "the JSON report", renderJsonText(report));
    }
    // An unwritable -o or --json is a usage error unless a hang or a reproduction says more;
    // every result is printed either way.
    written = emitJsonFile(o, "the JSON report", renderJsonText(report)) && written;
    const bool outputFailed = !written;
    const bool strongerStatus = status == kExitHang || status == kExitReproduced || status > 125;
    // A lost stdout document is said in every case (a reproduction keeps its 2).
    if (writeFailed()) sayError("repro: the report could not be written to {}", failedStream());
    if ((writeFailed() || outputFailed) && !strongerStatus) return kExitUsage;
    return status;
}

// The supervised child's work: everything that touches Vulkan.
int runInChild(const Options& options) {
    watch::stage(watch::Stage::Setup, "set-up");
    if (options.matrix || options.driverEnvSweep || options.triage || options.watchdogProbe) {
        try {
            const int status = options.matrix          ? runMatrix(options)
                               : options.triage        ? runTriage(options)
                               : options.watchdogProbe ? runWatchdogProbe(options)
                                                       : runDriverEnvSweep(options);
            return statusAfterWrites(status);
        } catch (const UsageError& e) {
            sayError("repro: {}", e.what());
            return kExitUsage;
        } catch (const std::exception& e) {
            sayError("repro: cannot test here: {}", e.what());
            return kExitCannotTest;
        }
    }
    RunReport report{.version = kReproVersion,
                     .gitHash = kReproGitHash,
                     .commandLine = options.commandLine,
                     .preset = options.preset,
                     .shape = options.shape,
                     .chainLength = options.chainLength};
    const int status = runGuarded(options, report);
    if (options.listDevices) return statusAfterWrites(status);
    return writeReports(options, report, status);
}

// --invert, applied to the final status and said in one line (the report keeps the
// uninverted status in verdict.exit_status).
int invertStatus(int status) {
    const int inverted = invertedExitStatus(status);
    if (inverted != status) {
        say("--- --invert: exit {} for exit {} ({})", inverted, status,
            status == kExitReproduced      ? "the bug reproduced: the old behaviour"
            : status == kExitNotReproduced ? "not reproduced: the new behaviour"
                                           : "a usage error, no verdict: 1 would say not reproduced");
    }
    return inverted;
}

// Whether the command line asks for --invert, for a usage error found before the options
// are parsed in full (the error is then mapped as --invert maps it).
bool invertOnCommandLine(int argc, char** argv) {
    return std::any_of(argv + 1, argv + argc, [](const char* arg) { return std::string_view(arg) == "--invert"; });
}

}  // namespace
}  // namespace repro

int main(int argc, char** argv) {
    using namespace repro;
    ensureStandardStreams();
    const char* envChain = std::getenv("N");
    ParseOutcome parsed =
        parseCommandLine(argc, argv, envChain ? std::optional<std::string_view>(envChain) : std::nullopt);
    if (!parsed.options) {
        if (parsed.version) parsed.out = versionText(loaderVersionText());
        // --help and --version: a lost write (`repro --help > /dev/full`) is exit 1, not 0.
        if (!parsed.out.empty() && !writeText(stdout, parsed.out)) {
            sayError("repro: the output could not be written to stdout");
            return kExitUsage;
        }
        if (!parsed.err.empty()) sayError("{}", parsed.err);
        const bool invertUsage = parsed.exitStatus == kExitUsage && invertOnCommandLine(argc, argv);
        return invertUsage ? invertStatus(kExitUsage) : parsed.exitStatus;
    }
    installInterruptHandlers();
    const Options& options = *parsed.options;
    if (!options.mergeReports.empty()) return runMergeReports(options.mergeReports, options.format);  // runs nothing
    if (options.listScenarios) return listScenarios();
    if (const auto clash = outputCollision(options, commandLineInputs(options))) {  // before anything runs
        sayError("repro: {}", *clash);
        return options.invert ? invertStatus(kExitUsage) : kExitUsage;
    }
    if (options.scenario) {  // supervised as the chain is
        const int status = runScenarioCommand(options);
        return options.invert ? invertStatus(status) : status;
    }
    if (const auto problem = outputPathProblem(options)) {  // before any GPU work
        sayError("repro: {}", *problem);
        return options.invert ? invertStatus(kExitUsage) : kExitUsage;
    }
    // stdout carries only the document, unless -o takes it to a file.
    if (options.format != Format::Text && !options.output) textStream() = stderr;
    if (options.format == Format::Text && options.output) captureText();  // for the -o file
    const int runStatus = superviseRun(
        options, [&] { return runInChild(options); },
        [&](RunReport& report, int status, const std::string&) {
            // --triage and --watchdog-probe write their own document (of what ran, when
            // interrupted); a run report written in its place would be a different schema.
            return options.triage || options.watchdogProbe ? status : writeReports(options, report, status);
        });
    const int finalStatus = options.invert ? invertStatus(runStatus) : runStatus;
    // -o with --format text: the text report, the --invert line included, whole or not at
    // all; a lost file is a usage error unless a hang or a reproduction says more.
    if (emitTextFile(options) || runStatus == kExitHang || runStatus == kExitReproduced || runStatus > 125)
        return finalStatus;
    return options.invert ? invertedExitStatus(kExitUsage) : kExitUsage;
}
