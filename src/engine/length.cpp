// The run of one point (a chain length, a file's sweep value), runPoint, as engine/stages.hpp's
// pipeline of stages: the same road for the built-in chain and a file.
#include "engine/session.hpp"

#include <algorithm>

#include "children/experiments.hpp"
#include "core/interrupt.hpp"
#include "core/output.hpp"
#include "engine/stages.hpp"
#include "engine/workload.hpp"
#include "report/trace_events.hpp"
#include "report/verdict.hpp"
#include "vk/instance.hpp"

namespace repro {
namespace {

// One run of one mode from fresh state: its settings, its submits and readback, its
// judgement; streamed to the parent as soon as it has its result.
void runOnce(const run::Length& length, run::Runs& runs, const run::PlannedRun& planned) {
    // --trace: the run as one slice on the host track, its phases nested in it.
    const std::string title = run::traceTitle(length, planned);
    trace_events::Span span(title, "mode");
    run::Submitted submitted = length.session.workload.submit(length, planned, runs);
    const run::RunRecord* record = nullptr;
    {
        trace_events::Span verification("verification", "phase");
        record = &run::judgeRun(length, runs, planned, std::move(submitted));
        verification.args() = {{"result", name(record->result.kind)}};
    }
    span.args() = {{"mode", name(planned.mode)},
                   {"point", length.point.label},
                   {"run", planned.index},
                   {"result", name(record->result.kind)},
                   {"submits", record->submitted.run.submits}};
    if (!run::listed(runs, *record)) {
        run::foldLastRun(length, runs);  // counted, not kept (stages.hpp kListedRuns)
        return;
    }
    if (length.session.modeDone) length.session.modeDone(run::toModeReport(*record, length.options(), length.point));
}

// Every mode under test, options.repeat times each, until the device is gone.
void runModesUnderTest(const run::Length& length, run::Runs& runs) {
    const Options& o = length.options();
    for (const Mode mode : o.modes) {
        for (uint32_t r = 1; r <= o.repeat && !runs.deviceGone; ++r) runOnce(length, runs, {.mode = mode, .index = r});
        const bool ran = std::any_of(runs.records.begin(), runs.records.end(),
                                     [&](const run::RunRecord& rec) { return rec.mode() == mode; });
        if (runs.deviceGone && !ran)
            run::reportNotRun(mode,
                              runs.interrupted ? "interrupted before it started" : "an earlier mode lost the device");
    }
}

// The runs that waited for a reference that came after them (split run last).
void judgeWaiting(const run::Length& length, run::Runs& runs) {
    for (run::RunRecord& record : runs.records) {
        if (record.waitsForReference) length.session.workload.judgeWaiting(length, record);
    }
}

}  // namespace

void printValidation(const Session& s) {
    if (!s.options.validation) return;
    const auto& log = s.instance.validationLog();
    say("validation: {} message{} ({} errors, {} warnings), synchronization validation on", log.count(),
        log.count() == 1 ? "" : "s", log.errors, log.warnings);
}

PointOutcome runPoint(Session& session, const PlanPoint& point) {
    const run::Length length{.session = session, .point = point, .n = point.n};
    run::Runs runs;
    session.workload.beginPoint(length);
    runModesUnderTest(length, runs);
    if (splitRunsAfter(session.options) && !runs.deviceGone) {
        runOnce(length, runs, {.mode = Mode::Split, .index = 1, .referenceOnly = true});
    }
    judgeWaiting(length, runs);
    run::finishFolded(runs);
    run::decideCauses(length, runs);
    return run::reportPoint(length, runs);
}

int interruptedStatus() {
    const int signal = interruptSignal();
    if (signal == 0) return 0;
    say("--- INTERRUPTED by {}: the results above are complete for the modes that finished; no verdict",
        interruptName(signal));
    return 128 + signal;
}

int runSinglePoint(Session& s, RunReport& report) {
    say("--- results ---");
    const size_t first = report.modes.size();  // modeDone adds each run as it ends
    PointOutcome out = runPoint(s, s.plan.points(s.options).front());
    printValidation(s);
    report.modes.resize(first);  // replaced by the final classifications
    report.modes.insert(report.modes.end(), out.modes.begin(), out.modes.end());
    report.foldedRuns = out.folded;
    report.referenceName = out.referenceName;
    report.verdict = out.verdict;
    if (const int status = interruptedStatus()) {
        report.verdict.lines = {"--- INTERRUPTED: no verdict"};
        return status;
    }
    for (const auto& line : out.verdict.lines) say("{}", line);
    // A dump that could not be written is a usage error unless a hang or a reproduction
    // says more (documentStatus); the results above are printed either way.
    return out.dumpFailed ? documentStatus(out.verdict.exitStatus) : out.verdict.exitStatus;
}

}  // namespace repro
