// --mutants: each mutant in a child process, and the score (see children/mutants.hpp).
#include "children/mutants.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "children/child_run.hpp"
#include "children/experiments.hpp"
#include "cli/output_paths.hpp"
#include "core/exit_status.hpp"
#include "core/interrupt.hpp"
#include "core/output.hpp"
#include "reference/stats.hpp"
#include "scenario/mutants.hpp"
#include "scenario/plan.hpp"
#include "vk/watch.hpp"

namespace repro {
namespace {

// One mutant to run: the factor its child gets and its words.
struct MutantRow {
    RunFactors factors;
    MutantReport report;
};

// A file's mutants (scenario/mutants.hpp), or the chain's two: every barrier between
// dispatches execution-only or removed (--barrier execution-only, none), the only weakenings
// the chain's literal recorders take without changing their streams.
std::vector<MutantRow> mutantRows(const Plan& plan, std::vector<std::string>& skipped) {
    std::vector<MutantRow> out;
    if (plan.builtIn()) {
        const std::string what = "every barrier between dispatches (blade's G in multipass, C in single)";
        for (const BarrierKind b : {BarrierKind::ExecutionOnly, BarrierKind::None}) {
            const Weakening w = b == BarrierKind::None ? Weakening::Removed : Weakening::ExecutionOnly;
            out.push_back({.factors = {.barrier = b},
                           .report = {.step = "every",
                                      .what = what,
                                      .weakening = std::string(name(w)),
                                      .rerun = fmt::format("--barrier {}", name(b))}});
        }
        skipped.push_back(
            "no-src-access and dst-stage-misses: the chain's recorders take no such barrier; a file of the "
            "chain (--write-scenario FILE) has them");
        return out;
    }
    for (const scenario::Mutant& m : scenario::mutantsOf(plan.variants.front(), &skipped)) {
        out.push_back({.factors = {.mutant = m.spec},
                       .report = {.step = std::to_string(m.spec.step),
                                  .what = m.what,
                                  .weakening = std::string(name(m.spec.weakening)),
                                  .rerun = "--mutant " + mutantText(m.spec)}});
    }
    return out;
}

// The child's runs (listed and folded) of the modes its mutant reaches, and the wrong ones among
// them: never split, nor a file's multipass, where blade's G precedes every step (planControls).
void countRuns(const RunReport& r, const std::vector<Mode>& reached, MutantReport& m) {
    const auto counted = [&](Mode mode) { return std::find(reached.begin(), reached.end(), mode) != reached.end(); };
    for (const ModeReport& mode : r.modes) {
        if (!counted(mode.result.mode) || mode.result.kind == Classification::NotRun) continue;
        ++m.runs;
        if (isWrong(mode.result.kind)) ++m.wrong;
    }
    for (const FoldedRuns& f : r.foldedRuns) {
        if (!counted(f.mode)) continue;
        m.runs += f.runs;
        m.wrong += f.wrongRuns;
    }
}

// The child's outcome into `m`: killed, survived, hung or not-run.
void judgeMutant(const ChildOutcome& c, const std::vector<Mode>& reached, MutantReport& m) {
    if (c.report) countRuns(*c.report, reached, m);
    if (c.status == kExitHang || c.process.timedOut) {
        m.outcome = "hung";
        m.reason = c.verdictLine.empty() ? resultText(c) : c.verdictLine;
    } else if (m.wrong > 0) {
        m.outcome = "killed";
    } else if (!c.report || m.runs == 0 || c.process.signal != 0 || c.status == kExitCannotTest ||
               c.status == kExitUsage) {
        m.outcome = "not-run";
        const std::string line = lastOutputLine(c);
        m.reason = line.empty() ? outcomeText(c) : line;
    } else {
        m.outcome = "survived";
    }
}

// "killed (7 of 20 wrong)", "hung (counted as killed: ...)", "not run: ...".
std::string outcomeLine(const MutantReport& m) {
    if (m.outcome == "hung") return "hung, counted as killed (" + m.reason + ")";
    if (m.outcome == "not-run") return "not run: " + m.reason;
    return fmt::format("{} ({} of {} wrong)", m.outcome, m.wrong, m.runs);
}

// The score line: "mutation score: 5 of 8 mutants killed", and the hung and not run.
std::string scoreLine(const MutantsReport& r) {
    if (r.mutants.empty()) return "mutation score: no mutants (no barrier step or wait that is not a control)";
    size_t hung = 0;
    for (const MutantReport& m : r.mutants) hung += m.outcome == "hung" ? 1 : 0;
    std::string extra;
    if (hung) extra += fmt::format(", {} of them by a hang", hung);
    if (r.notRun) extra += fmt::format("; {} not run", r.notRun);
    return fmt::format("mutation score: {} of {} mutants killed{}", r.killed, r.mutants.size(), extra);
}

}  // namespace

MutantsReport runMutants(const Options& o, const Plan& plan) {
    MutantsReport out;
    std::vector<MutantRow> rows = mutantRows(plan, out.skipped);
    say("--- mutants: each barrier weakened one way, alone, as a control in a child of its own ---");
    Options mutated = o;  // the modes a mutant reaches (planControls: the file's, not the mutant's)
    if (!rows.empty()) mutated.mutant = rows.front().factors.mutant;
    std::vector<Mode> reached;
    for (const Mode mode : {Mode::Multipass, Mode::Single})
        if (plan.builtIn() || !planControls(mutated, plan, mode).empty()) reached.push_back(mode);
    say("  {} mutant(s), {} run(s) each of {} against split (docs/mutants.md)", rows.size(), o.repeat,
        reached.size() == 2 ? "the one-submit modes" : "single");
    if (reached.size() < 2) say("  multipass not counted: blade's G precedes its every step, so no mutant reaches it");
    say("  a mutant is killed when one run is wrong; no mutant changes the exit status");
    for (const std::string& s : out.skipped) say("  left out: {}", s);
    const auto dir = makeLogDir("mutants");
    const ChildLogFolder logs(o, dir);  // removed (or kept and named) when interrupted
    const double limit = childTimeLimit(o, plan, true);
    std::string keepWhy;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (interruptSignal() != 0) break;
        MutantReport& m = rows[i].report;
        watch::row(static_cast<unsigned>(i + 1), static_cast<unsigned>(rows.size()), "mutant " + m.rerun);
        const ChildOutcome c = runChild({.options = o,
                                         .factors = rows[i].factors,
                                         .dir = dir,
                                         .tag = fmt::format("mutant-{:02}", i + 1),
                                         .limitSeconds = limit});
        if (c.process.interrupted) break;
        judgeMutant(c, reached, m);
        if (m.outcome == "killed" || m.outcome == "hung") ++out.killed;
        if (m.outcome == "not-run") ++out.notRun, keepWhy = "a mutant was not run; its log says why";
        say("  mutant {}/{}: {}: {}: {}", i + 1, rows.size(), m.what, m.weakening, outcomeLine(m));
        out.mutants.push_back(m);
    }
    say("--- {}", scoreLine(out));
    finishLogDir(o, dir, keepWhy);
    return out;
}

MutantsReport withheldMutants(const Plan& plan, const Verdict& verdict) {
    MutantsReport out;
    std::string ended = fmt::format("exit {}", verdict.exitStatus);
    if (!verdict.lines.empty() && verdict.lines.front().starts_with("--- "))
        ended += ": " + verdict.lines.front().substr(4);
    out.withheld = fmt::format("{} as written ended {}, and a mutant is told apart only from a run that is right",
                               plan.builtIn() ? "the chain" : "the file", ended);
    say("--- mutants: none run: {} (docs/mutants.md)", out.withheld);
    return out;
}

}  // namespace repro
