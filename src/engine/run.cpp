// One run of a plan (see engine/run.hpp): options -> device -> set-up -> the points -> verdict
// -> report, the same road for the built-in chain and a file; the set-up and the header are
// where the two forms differ, the workload (engine/workload.hpp) is how.
#include "engine/run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <future>
#include <new>
#include <set>
#include <variant>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/output.hpp"
#include "core/shape.hpp"
#include "children/experiments.hpp"
#include "children/mutants.hpp"
#include "children/progress.hpp"
#include "cli/output_paths.hpp"
#include "core/parallel.hpp"
#include "core/text.hpp"
#include "core/spirv_validation.hpp"
#include "engine/captures.hpp"
#include "engine/chain_workload.hpp"
#include "engine/device_choice.hpp"
#include "engine/evidence.hpp"
#include "engine/file_workload.hpp"
#include "engine/print_stream.hpp"
#include "engine/rig.hpp"
#include "engine/session.hpp"
#include "engine/stages.hpp"
#include "engine/text_report.hpp"
#include "forensics/environment.hpp"
#include "report/report_facts.hpp"
#include "report/report_render.hpp"
#include "report/trace_events.hpp"
#include "report/verdict.hpp"
#include "repro_version.h"
#include "scenario/scenario_check.hpp"
#include "scenario/scenario_parse.hpp"
#include "scenario/scenario_sync.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/device_report.hpp"
#include "vk/instance.hpp"
#include "vk/instrumentation.hpp"
#include "vk/trace.hpp"
#include "vk/watch.hpp"

namespace repro {
namespace {

namespace sc = repro::scenario;

// What every form's run needs from the part before the device.
struct RunStart {
    const Options& o;
    Plan& plan;
    RunReport& report;
    vk::Instance& instance;
    const vk::DeviceInfo& chosen;
    std::vector<std::string> selectionNotes;
    KernelLogReader& kernelLog;
    Clock::time_point begin;
};

// The device and environment blocks of the header; the report gets the device.
// `selectionNotes` (which driver was taken, drivers that failed to load) are shown in the
// short header too: under a bisect they say that the build under test was not the one run.
void printDeviceHeader(const RunStart& r, DeviceReport device) {
    r.report.device = std::move(device);
    printDevice(r.o, *r.report.device);
    if (headerDetail(r.o) == HeaderDetail::Short) {
        for (const auto& note : r.selectionNotes) say("  note: {}", note);
    }
    for (const auto& note : hangEvidenceNotes(r.report.device->driverName)) {
        r.report.environment.notes.push_back("hang evidence: " + note);
    }
    printEnvironment(r.o, r.report.environment);
}

// Teardown starts by waiting for the queue; a device lost there is still a hang.
int checkTeardown(vk::Device& device, int status, RunReport& report) {
    if (device.abandoned()) return status;
    const VkResult idle = vkDeviceWaitIdle(device.get());
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
void traceSetUp(const vk::Device& device, const vk::Instrumentation& instrumentation, const Evidence& evidence,
                Clock::time_point begin) {
    if (!trace_events::attached()) return;
    const vk::DeviceInfo& info = device.info();
    trace_events::fact("device", info.properties.deviceName);
    trace_events::fact("timestamp_period_ns", fmt::format("{}", info.properties.limits.timestampPeriod));
    const QueueTimeout& timeout = evidence.watchdog().timeout;
    const bool known = timeout.kind == TimeoutKind::Limit;
    trace_events::fact("job_timeout", known ? fmt::format("{} ms ({})", timeout.milliseconds, timeout.source)
                                            : "not known (" + timeout.source + "): no job-timeout markers");
    trace_events::setJobTimeout(known ? std::optional<double>(timeout.seconds()) : std::nullopt, timeout.source);
    if (instrumentation.timestamps()) {
        trace_events::nameTrack(
            trace_events::Track::Gpu,
            fmt::format("GPU: {}, queue family {} (--timestamps)", info.properties.deviceName, device.queueFamily()));
    } else {
        trace_events::fact("gpu_track", "none: run with --timestamps for each dispatch's GPU interval");
    }
    trace_events::slice("set-up", "phase", trace_events::Track::Host, trace_events::nanos(begin), trace_events::now(),
                        {{"what", "loader, instance, device, buffers, pipelines, the inputs, the header"}});
}

// Everything after the set-up, for either form: the evidence, the session, the points, the
// teardown. `header` prints the plan's block of the header after the queue line.
int runSession(const RunStart& r, vk::Device& device, const vk::Instrumentation& instrumentation, Workload& workload,
               const std::function<void(const Evidence&)>& header) {
    const Options& o = r.o;
    RunReport& report = r.report;
    checkExpectedDriver(o, *report.device);
    Evidence evidence(report.environment, *report.device, std::move(r.kernelLog));
    if (o.spirvDir) evidence.setUserModules(checkUserModules(*o.spirvDir));
    printQueue(o, evidence.queueLine(), evidence.kernelLogNote());
    header(evidence);
    if (o.spirvDir) say("  {}", evidence.userModules());
    watch::publishReport(renderJsonLine(report));
    // Each run of a mode goes into the report as soon as it has a result, and to the
    // supervising parent, so neither a crash nor an exception later can lose it.
    Session session{.options = o,
                    .plan = r.plan,
                    .instance = r.instance,
                    .device = device,
                    .workload = workload,
                    .timings = report.timings,
                    .modeDone =
                        [&report](const ModeReport& m) {
                            report.modes.push_back(m);
                            watch::publishReport(renderJsonLine(report));
                        },
                    .evidence = &evidence};
    traceSetUp(device, instrumentation, evidence, r.begin);
    if (o.printStream) return printStreams(session, report);
    int status = r.plan.points(o).size() > 1 ? runSweep(session, report) : runSinglePoint(session, report);
    watch::stage(watch::Stage::Teardown, "waiting for the device to go idle and destroying it");
    status = checkTeardown(device, status, report);
    recordValidation(r.instance, o, report);
    report.timings.total = secondsSince(r.begin);
    for (const auto& warning : watchdogWarnings(report)) say("--- warning: {}", warning);
    if (o.timings) printTimings(report.timings);
    return status;
}

// The built-in chain: its Rig (device, pipelines, buffers), its header lines, its workload.
int runChain(const RunStart& r, const ShaderSources& shaders) {
    const Options& o = r.o;
    checkDeviceFits(r.chosen, r.report.sizes, o.chainLength);
    printBanner(o, r.plan, r.report.loader.version);
    std::future<ChainInputs> inputs = startChainInputs(r.report.sizes);  // while the driver creates the device
    r.report.timings.instanceAndDevice = secondsSince(r.begin);
    Rig rig(r.instance, r.chosen, o, shaders, r.report.timings, std::move(inputs));
    printDeviceHeader(r, rig.describeDevice(r.instance.loaderMessages()));
    ChainWorkload workload(rig, r.report.sizes);
    return runSession(r, rig.device, rig.instrumentation, workload, [&](const Evidence&) {
        printChain(o, r.report.sizes, rig.device.info().isCpu());
        // A run of minutes on a CPU driver says so first, and how to make it quick.
        if (const auto note = longCpuRunNote(o, rig.device.info().isCpu()); note && !o.quiet) sayError("{}", *note);
        printAdditions(o, r.plan, rig.instrumentation, rig.instrumentationNotes);
        r.report.experiment = printExperiment(o, rig, shaders);
    });
}

// The extra queues a file's [[queue]] tables ask for, in order: another family or the main
// one's, needing compute when a dispatch is put on it.
std::vector<vk::ExtraQueueRequest> queueRequests(const sc::Scenario& s) {
    std::vector<vk::ExtraQueueRequest> out;
    for (uint32_t q = 1; q < s.queues.size(); ++q) {
        const bool dispatches = std::any_of(s.steps.begin(), s.steps.end(), [&](const sc::Step& step) {
            return step.queue == q && std::holds_alternative<sc::Dispatch>(step.body);
        });
        out.push_back({.otherFamily = s.queues[q].family == sc::QueueFamilyChoice::Other,
                       .needs = static_cast<VkQueueFlags>(dispatches ? VK_QUEUE_COMPUTE_BIT : VK_QUEUE_TRANSFER_BIT)});
    }
    return out;
}

// "1 exclusive buffer(s) and 1 exclusive image(s) change queue family`what` (out, img)": the
// exclusive buffers and images `names` of `s`, each kind counted where there is one, buffers first.
std::string changeFamily(const sc::Scenario& s, const std::set<std::string>& names, std::string_view what) {
    std::vector<std::string> buffers, images, counts;
    for (const auto& n : names) (s.buffer(n)->image ? images : buffers).push_back(n);
    if (!buffers.empty()) counts.push_back(fmt::format("{} exclusive buffer(s)", buffers.size()));
    if (!images.empty()) counts.push_back(fmt::format("{} exclusive image(s)", images.size()));
    buffers.insert(buffers.end(), images.begin(), images.end());
    return fmt::format("{} change queue family{} ({})", fmt::join(counts, " and "), what, fmt::join(buffers, ", "));
}

// One line per [[queue]] (where it landed, or its fallback), printed and kept in the report,
// and the notes on split, on ownership transfers and on the order of the steps.
void describeQueues(const vk::Device& device, const sc::Scenario& s, ScenarioFacts& facts) {
    if (!s.usesQueues()) return;
    say("  queue: main: family {}, queue 0", device.queueFamily());
    for (size_t q = 1; q < s.queues.size(); ++q) {
        const vk::ExtraQueue& e = device.extraQueues().at(q - 1);
        facts.queues.push_back(
            fmt::format("{} (family \"{}\"): {}", s.queues[q].name, sc::name(s.queues[q].family), e.note));
        say("  queue: {}", escaped(facts.queues.back()));
    }
    std::vector<uint32_t> families{device.queueFamily()};
    for (const vk::ExtraQueue& e : device.extraQueues()) families.push_back(e.family);
    std::set<std::string> moved, leftOut;
    const auto transfers = sc::ownershipTransfers(s, families);
    for (const auto& t : transfers) moved.insert(t.buffer);
    if (!transfers.empty())
        say("  ownership: {}: {} queue family ownership transfer(s), a release and an acquire each, recorded in "
            "every mode (docs/scenarios.md \"Queue family ownership\")",
            changeFamily(s, moved, ""), transfers.size());
    for (const auto& t : sc::ownershipTransfers(s, families, /*withLeftOut=*/true)) {
        if (!s.buffer(t.buffer)->ownershipTransfers) leftOut.insert(t.buffer);
    }
    if (!leftOut.empty())
        say("  ownership: {}: ownership_transfers = false, a control",
            changeFamily(s, leftOut, " without their ownership transfers"));
    say("  note: split submits each step on its queue and waits for it, so it records no signal or wait step; "
        "multipass and single submit one batch per signal/wait boundary with the file's semaphores");
    if (s.reordered)
        say("  note: the steps run in an order the semaphores allow (a timeline wait comes before its signal in "
            "the file), as the steps line lists them");
}

// The most work steps of any of the plan's files, for the instrumentation's query pool.
uint32_t mostWorkSteps(const Plan& plan) {
    size_t most = 1;
    for (const sc::Scenario& s : plan.variants) most = std::max(most, sc::workSteps(s));
    return static_cast<uint32_t>(most);
}

// A file: the chain words made while the driver creates the device (with the queues the file
// asks for), the instrumentation, the header, the workload.
int runFile(const RunStart& r) {
    const Options& o = r.o;
    Plan& plan = r.plan;
    const sc::Scenario& first = plan.variants.front();
    const bool sync2 =
        std::any_of(plan.variants.begin(), plan.variants.end(), [](const sc::Scenario& s) { return s.usesSync2(); });
    if (sync2 && !r.chosen.supported.synchronization2)
        throw CannotTest("the scenario records synchronization2 barriers and the device lacks synchronization2");
    printBanner(o, plan, r.report.loader.version);
    std::future<void> chainWords;  // 3.7 M sinf calls at the full shape, while the driver creates the device
    if (needsChainWords(plan)) {
        chainWords = startInBackground([&plan] {
            std::vector<sc::Scenario*> all;
            for (sc::Scenario& s : plan.variants) all.push_back(&s);
            sc::fillChainWords(all);
        });
    }
    watch::detail("creating the device");  // as the chain's rig says it (engine/rig.cpp)
    vk::Device device(
        r.instance, r.chosen,
        {.deviceFault = true,  // the fault query after a lost device (engine/stages.cpp)
         .synchronization2 = sync2,
         .calibratedTimestamps = o.trace.has_value() && o.timestamps,
         .afterLoad = o.printStream ? std::function<void()>(vk::trace::installCapture) : std::function<void()>(),
         .extraQueues = queueRequests(first)});
    r.report.timings.instanceAndDevice = secondsSince(r.begin);
    if (chainWords.valid()) chainWords.get();  // rethrows what the thread threw
    std::vector<std::string> notes;
    vk::Instrumentation instrumentation(device,
                                        {.timestamps = o.timestamps, .breadcrumbs = o.breadcrumbs, .labels = o.labels},
                                        mostWorkSteps(plan) / 2 + 1, 1, notes);
    printDeviceHeader(r, vk::describeDevice(device, r.instance.loaderMessages(), {}));
    FileWorkload workload(device, instrumentation);
    const int status = runSession(r, device, instrumentation, workload, [&](const Evidence&) {
        printFilePlan(o, plan, device.info().isCpu());
        describeQueues(device, first, *r.report.scenario);
        printAdditions(o, plan, instrumentation, notes);
        r.report.experiment = printFileExperiment(o, first);
    });
    if (!device.abandoned()) vkDeviceWaitIdle(device.get());
    return status;
}

// The run: options -> device -> set-up -> the modes -> verdict. Returns the exit status;
// set-up failures throw (runGuarded turns them into statuses).
int runOnInstance(const Options& o, Plan& plan, RunReport& report) {
    const auto begin = Clock::now();
    const ShaderSources shaders =
        plan.builtIn() ? loadShaders(o, profileSettings(o.profile)) : ShaderSources{};  // --spirv: usage errors first
    KernelLogReader kernelLog = openRunKernelLog();                                     // from the run's start
    report.environment = captureEnvironment(processEnvironmentSources());
    watch::detail("loading the Vulkan loader and creating the instance");
    vk::Instance instance(o.validation, o.captureGfxr);
    if (o.captureGfxr)
        report.captures.push_back({.tool = "gfxreconstruct",
                                   .path = *o.captureGfxr,
                                   .note = "the whole run, set-up included, by VK_LAYER_LUNARG_gfxreconstruct"});
    watch::detail("enumerating the physical devices");
    const auto devices = vk::enumerateDevices(instance);
    if (o.listDevices) return listDevices(instance, devices, o);
    report.loader = describeLoader(instance);
    std::vector<std::string> selectionNotes;
    const vk::DeviceInfo chosen = selectDevice(instance, devices, o, selectionNotes);
    report.environment.notes.insert(report.environment.notes.end(), selectionNotes.begin(), selectionNotes.end());
    // --dump-dir again, as outputPathProblem checked it (main.cpp): it may have gone since.
    if (const auto why = o.dumpDir ? directoryWriteProblem(*o.dumpDir) : std::nullopt)
        throw UsageError(fmt::format("--dump-dir: cannot use {} as a directory ({})", quote(*o.dumpDir), *why));
    const RunStart start{.o = o,
                         .plan = plan,
                         .report = report,
                         .instance = instance,
                         .chosen = chosen,
                         .selectionNotes = selectionNotes,
                         .kernelLog = kernelLog,
                         .begin = begin};
    const int status = plan.builtIn() ? runChain(start, shaders) : runFile(start);
    // The device is gone; the instance (and with it the driver) goes when this returns.
    if (report.timings.total > 0)
        report.timings.teardownDevice = std::max(0.0, secondsSince(begin) - report.timings.total);
    return status;
}

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
            if (!ran) report.modes.push_back({.result = run::reportNotRun(mode, reason), .role = "under test"});
        }
        say("--- {}: {}", headline, reason);
    }
    report.verdict.lines.push_back(fmt::format("--- {}: {}", headline, reason));
    return status;
}

// runOnInstance with every set-up failure turned into its status and one line (docs/contract.md).
int runGuarded(const Options& o, Plan& plan, RunReport& report) {
    try {
        const auto start = Clock::now();
        const int status = runOnInstance(o, plan, report);
        // runOnInstance's Vulkan objects are destroyed by now; `total` ended before that.
        if (report.timings.total > 0)
            report.timings.teardown = std::max(0.0, secondsSince(start) - report.timings.total);
        return status;
    } catch (const UsageError& e) {
        sayError("repro: {}", e.what());
        return kExitUsage;
    } catch (const Interrupted& e) {  // answered in a long host loop (the CPU reference)
        return failedRun(o, report, 128 + interruptSignal(), fmt::format("INTERRUPTED by {}", interruptName()),
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

// A file's scenario section: what the file is and what repro made of it.
ScenarioFacts scenarioFacts(const sc::Scenario& s) {
    ScenarioFacts f{.name = s.name,
                    .source = s.source,
                    .pattern = s.pattern,
                    .expected = s.expected,
                    .file = s.file,
                    .fileBytes = s.fileBytes,
                    .fileSha256 = s.fileSha256,
                    .fileText = s.fileText,
                    .steps = s.steps.size(),
                    .controlSteps = s.controlSteps(),
                    .splitOnly = sc::splitOnlyList(s),
                    .chainValues = sc::chainValueList(s),
                    .parameters = {s.fileParameters.begin(),
                                   s.fileParameters.end()}};  // the file's own: a sweep's values are its points
    for (const auto& b : s.buffers) {
        if (b.poisoned) f.poisoned.push_back(b.name);
        if (b.image)
            f.images.push_back(fmt::format("{}: {}x{} {}, {} tiling, {}", b.name, b.image->width, b.image->height,
                                           sc::name(b.image->format), b.image->linear ? "linear" : "optimal",
                                           b.checked ? "checked" : "not checked"));
    }
    return f;
}

}  // namespace

RunReport startReport(const Options& o, const Plan& plan) {
    RunReport report{.version = kReproVersion,
                     .gitHash = kReproGitHash,
                     .commandLine = o.commandLine,
                     // "custom" once a shape option changes the preset's field, as for a file's [shape]
                     .preset = !plan.builtIn()                    ? std::string()
                               : o.shape == presetShape(o.preset) ? o.preset
                                                                  : std::string("custom"),
                     .shape = o.shape,
                     .chainLength = plan.builtIn() ? o.chainLength : 0};
    if (plan.builtIn()) {
        report.sizes = computeSizes(o.shape);
    } else {
        report.scenario = scenarioFacts(plan.variants.front());
        if (const auto& shape = plan.variants.front().shape) {
            report.shape = *shape;
            report.preset = plan.variants.front().shapeName;
            report.sizes = computeSizes(*shape);
        }
    }
    return report;
}

int runPlan(const Options& o, Plan& plan) {
    RunReport report = startReport(o, plan);
    const int status = runGuarded(o, plan, report);
    if (o.listDevices) return statusAfterWrites(status);
    // --mutants: after the run's own verdict, which keeps its exit status (controls never count);
    // only a run that came out right has mutants to tell apart from it
    if (o.mutants && status != kExitCannotTest && interruptSignal() == 0)
        report.mutants = status == kExitNotReproduced ? runMutants(o, plan) : withheldMutants(plan, report.verdict);
    finishCaptures(o, plan, report);
    return writeReports(o, report, status);
}

int writeReports(const Options& o, RunReport& report, int status) {
    report.verdict.exitStatus = status;
    bool written = true;
    if (o.format == Format::Markdown) {
        written = emitFormatDocument(o, "the Markdown report", renderMarkdown(report));
    } else if (o.format == Format::Json) {
        written = emitFormatDocument(o, "the JSON report", renderJsonText(report));
    }
    // An unwritable -o or --json is a usage error unless a hang or a reproduction says more
    // (documentStatus); every result is printed either way.
    written = emitJsonFile(o, "the JSON report", renderJsonText(report)) && written;
    // A lost stdout document is said in every case (a reproduction keeps its 2).
    if (writeFailed()) sayError("repro: the report could not be written to {}", failedStream());
    return written && !writeFailed() ? status : documentStatus(status);
}

}  // namespace repro
