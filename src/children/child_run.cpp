// A child run's argv and environment, made in one place, and the run itself (see
// child_run.hpp).
#include "children/child_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include "cli/option_table.hpp"
#include "core/subprocess.hpp"
#include "report/trace_events.hpp"
#include "vk/watch.hpp"

namespace repro {
namespace {

// Flags of the parent alone (--invert applies once, to the parent's status), and the
// document flags: each child writes its own JSON report where the parent says.
constexpr std::string_view kParentOnly[] = {"--matrix",         "--mutants",      "--driver-env-sweep",
                                            "--all-drivers",    "--invert",       "--triage",
                                            "--watchdog-probe", "--keep-logs",    "--format",
                                            "--output",         "--json",         "--trace",
                                            "--capture-gfxr",   "--capture-rgp",  "--gtest_list_tests",
                                            "--gtest_filter",   "--gtest_output", "--gtest_also_run_disabled_tests",
                                            "--scenario-dir"};

// The child's log starts with the environment and the command line it ran with.
void writeChildLogHeader(const std::string& path, const std::vector<std::string>& env,
                         const std::vector<std::string>& argv) {
    std::ofstream log(path);
    log << "env:";
    for (const auto& e : env) log << ' ' << e;
    log << "\nargv:";
    for (const auto& a : argv) log << ' ' << a;
    log << "\n\n";
}

}  // namespace

std::vector<std::string> factorFlags(const RunFactors& f) {
    std::vector<std::string> out;
    for (const FactorPart& part : factorParts(f)) out.insert(out.end(), part.flags.begin(), part.flags.end());
    return out;
}

std::vector<std::string> childArgv(const ChildRun& run) {
    const Options& o = run.options;
    std::vector<std::string> argv{selfExecutable(o.commandLine.empty() ? "repro" : o.commandLine[0])};
    std::vector<std::string_view> drop{std::begin(kParentOnly), std::end(kParentOnly)};
    for (const FactorPart& part : factorParts(run.factors))  // the options the factors set
        drop.insert(drop.end(), part.options.begin(), part.options.end());
    const std::vector<std::string> user = argsWithout(o.commandLine, [&](const OptionSpec& spec) {
        return std::find(drop.begin(), drop.end(), spec.longName) != drop.end();
    });
    const std::vector<std::string> flags = factorFlags(run.factors);
    argv.insert(argv.end(), user.begin(), user.end());
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"--json", (run.dir / (run.tag + ".json")).string()});
    return argv;
}

std::vector<std::string> childEnv(const RunFactors& f) {
    if (!f.driverEnv) return {};
    std::string value = f.driverEnv->value;
    if (const char* existing = std::getenv(f.driverEnv->variable.c_str()); existing && *existing) {
        value = std::string(existing) + "," + value;
    }
    return {f.driverEnv->variable + "=" + value};
}

ChildOutcome runChild(const ChildRun& run) {
    ChildOutcome out;
    out.log = (run.dir / (run.tag + ".log")).string();
    const std::vector<std::string> argv = childArgv(run);
    std::vector<std::string> env = childEnv(run.factors);
    env.insert(env.end(), run.env.begin(), run.env.end());
    writeChildLogHeader(out.log, env, argv);
    const std::string flags = fmt::format("{}", fmt::join(factorFlags(run.factors), " "));
    trace_events::Span span(flags.empty() ? run.tag : fmt::format("{} ({})", run.tag, flags), "child",
                            trace_events::Track::Children);
    // the supervisor stops the row's process with repro on a Ctrl-Z (core/interrupt.hpp)
    out.process = runChild(argv, env, out.log, run.limitSeconds, [](pid_t pid) { watch::rowProcess(pid); });
    out.status = out.process.signal == 0 && out.process.started ? out.process.status : -1;
    readChildReport(run.dir / (run.tag + ".json"), out);
    span.args() = {{"tag", run.tag}, {"exit_status", out.status}, {"verdict", out.verdictLine}};
    if (run.factors.driverEnv) span.args()["environment"] = childEnv(run.factors);
    return out;
}

}  // namespace repro
