// repro: reproduces blade issue #356, a GPU-driver synchronization bug, with raw Vulkan, and any
// scenario file of its class.
//
// The story: options -> the plan (the built-in chain, or a scenario file: scenario/plan.hpp) ->
// the run in a supervised child (engine/run.hpp: device, set-up, each mode recorded and run,
// checked, the verdict) or, for --matrix, --triage, --watchdog-probe and --driver-env-sweep, a
// child process per row (src/children) -> the report -> the exit status (docs/contract.md).
// Results are printed and flushed as each mode finishes, so a hang or crash in a later mode
// cannot lose them.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "children/experiments.hpp"
#include "engine/gtest.hpp"
#include "children/supervisor.hpp"
#include "children/triage_run.hpp"
#include "cli/help.hpp"
#include "cli/options.hpp"
#include "cli/output_paths.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/output.hpp"
#include "engine/device_choice.hpp"
#include "engine/list_scenarios.hpp"
#include "scenario/plan.hpp"
#include "engine/run.hpp"
#include "report/merge_reports.hpp"
#include "report/verdict.hpp"
#include "scenario/builtin_chain.hpp"

namespace repro {
namespace {

// The supervised child's work: the multi-run commands (each row a child process of its own),
// or the plan's run.
int runInChild(const Options& options, Plan& plan) {
    if (options.matrix || options.driverEnvSweep || options.triage || options.watchdogProbe) {
        try {
            const int status = options.matrix          ? runMatrix(options, plan)
                               : options.triage        ? runTriage(options, plan)
                               : options.watchdogProbe ? runWatchdogProbe(options, plan)
                                                       : runDriverEnvSweep(options, plan);
            return statusAfterWrites(status);
        } catch (const UsageError& e) {
            sayError("repro: {}", e.what());
            return kExitUsage;
        } catch (const std::exception& e) {
            sayError("repro: cannot test here: {}", e.what());
            return kExitCannotTest;
        }
    }
    return runPlan(options, plan);
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

// --write-scenario FILE: the built-in chain as a scenario file (scenario/builtin_chain.hpp).
int writeScenario(const Options& o) {
    try {
        const std::string text = scenario::builtInChainText(o.shape, o.preset, o.chainLength);
        const auto problem = writeFileAtomically(*o.writeScenario, text);
        if (problem) {
            sayError("repro: --write-scenario: cannot write '{}' ({})", *o.writeScenario, *problem);
            return kExitUsage;
        }
    } catch (const UsageError& e) {
        sayError("repro: --write-scenario: {}", e.what());
        return kExitUsage;
    }
    say("repro: wrote the built-in chain (-n {}, preset {}) as a scenario file to {}", o.chainLength, o.preset,
        *o.writeScenario);
    return kExitNotReproduced;
}

// Everything after the options: the plan, the output paths, then the supervised run; the
// status --invert makes of it (said before the -o text file is written, so it is in it).
int runCommand(const Options& options) {
    if (!options.mergeReports.empty()) return runMergeReports(options.mergeReports, options.format);  // runs nothing
    if (options.listScenarios) return listScenarios();
    if (options.writeScenario) return writeScenario(options);
    if (options.gtest) return options.gtest->list ? listGtests(options) : runGtests(options);  // engine/gtest.hpp
    const auto finish = [&](int status) { return options.invert ? invertStatus(status) : status; };
    const auto refuse = [&](const std::string& problem) {  // one line, a usage error
        sayError("repro: {}", problem);
        return finish(kExitUsage);
    };
    std::vector<InputFile> inputs = commandLineInputs(options);
    if (const auto clash = outputCollision(options, inputs)) return refuse(*clash);  // before the file is even read
    Plan plan;
    try {
        plan = makePlan(options);  // a bad file is one line, before anything runs
    } catch (const UsageError& e) {
        return refuse(e.what());
    }
    if (options.driverEnvSweep && !plan.builtIn() && plan.variants.front().hasControl())
        return refuse(driverEnvSweepControlRefusal("the scenario file labels a step a control"));
    for (InputFile& kernel : planInputs(plan)) inputs.push_back(std::move(kernel));
    if (const auto clash = outputCollision(options, inputs)) return refuse(*clash);  // a user kernel's module
    if (const auto problem = outputPathProblem(options)) return refuse(*problem);    // before any GPU work
    // stdout carries only the document, unless -o takes it to a file.
    if (options.format != Format::Text && !options.output) textStream() = stderr;
    if (options.format == Format::Text && options.output) captureText();  // for the -o file
    const int status = superviseRun(
        options, [&] { return runInChild(options, plan); },
        [&](RunReport& report, int ended) {
            // --triage and --watchdog-probe write their own document (of what ran, when
            // interrupted); a run report written in its place would be a different schema.
            if (options.triage || options.watchdogProbe) return ended;
            RunReport start = startReport(options, plan);
            if (!report.scenario) report.scenario = start.scenario;
            return writeReports(options, report, ended);
        });
    const int finalStatus = finish(status);
    // -o with --format text: the text report, the --invert line included, whole or not at
    // all; a lost file is a usage error unless a hang or a reproduction says more.
    if (emitTextFile(options) || documentStatus(status) != kExitUsage) return finalStatus;
    return options.invert ? invertedExitStatus(kExitUsage) : kExitUsage;
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
    return runCommand(*parsed.options);
}
