// The triage's reasoning: per-experiment findings, per-hypothesis findings, one conclusion.
#include "children/triage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "core/enum_names.hpp"
#include "core/output.hpp"

namespace repro {

namespace {

// Each hypothesis's code and words, in Hypothesis' order.
constexpr std::pair<std::string_view, std::string_view> kHypothesisWords[] = {
    {"H1", "a cache flush or invalidation the driver does not emit"},
    {"H2", "state that drains only at a submit boundary"},
    {"H3", "the kernel's job watchdog"},
    {"H4", "the bytes one submit writes"},
    {"H5", "the shader compiler"},
    {"H6", "blade's own invalid usage"},
};
static_assert(std::size(kHypothesisWords) == std::size(kHypotheses));

// Each experiment's hypothesis, and whether it changes multipass's and single's recording, in
// ExperimentKind's order.
constexpr std::pair<Hypothesis, bool> kExperiments[] = {
    {Hypothesis::MissingFlush, true},     // Barrier
    {Hypothesis::MissingFlush, false},    // Memory
    {Hypothesis::SubmitBoundary, true},   // SubmitEveryWait
    {Hypothesis::SubmitBoundary, true},   // SubmitEveryNoWait
    {Hypothesis::JobTimeout, true},       // SplitMs
    {Hypothesis::BytesPerSubmit, true},   // SplitMib
    {Hypothesis::BytesPerSubmit, true},   // OneStepRepeat
    {Hypothesis::ShaderCompiler, false},  // CheckSteps
    {Hypothesis::ShaderCompiler, false},  // CompilerSwitch
    {Hypothesis::BladeQuirks, false},     // BladeExact
};
static_assert(std::size(kExperiments) == static_cast<size_t>(ExperimentKind::BladeExact) + 1);

}  // namespace

std::string_view code(Hypothesis h) { return kHypothesisWords[static_cast<size_t>(h)].first; }

std::string_view describe(Hypothesis h) { return kHypothesisWords[static_cast<size_t>(h)].second; }

std::string_view name(RunResult r) {
    static constexpr std::string_view kNames[] = {"wrong", "correct", "hang", "not run", "no effect"};
    return nameOf(kNames, r);
}

Hypothesis hypothesisOf(ExperimentKind k) { return kExperiments[static_cast<size_t>(k)].first; }

bool changesRecording(ExperimentKind k) { return kExperiments[static_cast<size_t>(k)].second; }

std::string_view name(ProbeResult r) {
    static constexpr std::string_view kNames[] = {"not run", "soft kill", "hard kill", "no kill"};
    return nameOf(kNames, r);
}

std::string_view name(Finding f) {
    static constexpr std::string_view kNames[] = {"supports", "rules out", "no evidence"};
    return nameOf(kNames, f);
}

std::string_view name(ConclusionKind k) {
    static constexpr std::string_view kNames[] = {"not_reproduced",  "job_timeout",      "gpu_hang",
                                                  "synchronization", "bytes_per_submit", "shader_compiler",
                                                  "blade_quirks",    "undetermined"};
    return nameOf(kNames, k);
}

std::string findingLine(const HypothesisFinding& h) {
    return fmt::format("{} {}: {}{}", code(h.hypothesis), describe(h.hypothesis), name(h.finding),
                       h.why.empty() ? "" : " (" + h.why + ")");
}

namespace {

// What H5's check is: the chain's per-dispatch bound, or a file's steps against its CPU model.
std::string checkName(bool file) {
    return file ? "step-by-step check against the file's CPU model" : "per-dispatch CPU check";
}

// The finding of a correct or wrong experiment (the others are no evidence).
std::pair<Finding, std::string> ranFinding(const ExperimentOutcome& e, bool file) {
    const bool fixed = e.result == RunResult::Correct;
    switch (e.kind) {
        case ExperimentKind::Barrier:
        case ExperimentKind::Memory:
            if (fixed) return {Finding::Supports, e.label + " makes it correct"};
            return {Finding::NoEvidence, "stays wrong (the driver may miss the flush for this one too)"};
        case ExperimentKind::SubmitEveryWait:
        case ExperimentKind::SubmitEveryNoWait:
            if (fixed) return {Finding::Supports, "shorter submits make it correct (shared by H2, H3, H4)"};
            return {Finding::RulesOut, "stays wrong with a submit boundary every few dispatches"};
        case ExperimentKind::SplitMs:
            if (fixed) return {Finding::Supports, "submits under half the timeout make it correct"};
            return {Finding::RulesOut, "stays wrong with every submit under half the timeout"};
        case ExperimentKind::SplitMib:
            if (fixed) return {Finding::Supports, "fewer bytes per submit make it correct (shared by H2, H3, H4)"};
            return {Finding::RulesOut, "stays wrong with fewer bytes per submit"};
        case ExperimentKind::OneStepRepeat:
            if (fixed) return {Finding::Supports, "as much work in one submit with 1/N of the bytes stays correct"};
            return {Finding::RulesOut, "as much work in one submit with 1/N of the bytes goes wrong: the work matters"};
        case ExperimentKind::CheckSteps:
            if (fixed) return {Finding::RulesOut, "every dispatch of split passes the " + checkName(file)};
            return {Finding::Supports, "split fails the " + checkName(file)};
        case ExperimentKind::CompilerSwitch:
            if (fixed) return {Finding::Supports, "the other compiler makes it correct"};
            return {Finding::NoEvidence, "stays wrong with the other compiler"};
        case ExperimentKind::BladeExact:
            return {Finding::NoEvidence,
                    fixed ? "correct with blade's quirks" : "wrong with blade's quirks too (not judged)"};
    }
    return {Finding::NoEvidence, ""};
}

constexpr std::string_view kReproDefect = "repro defect: ";

TriageRow experimentRow(const ExperimentOutcome& e, bool file) {
    TriageRow row{.hypothesis = hypothesisOf(e.kind),
                  .experiment = e.label,
                  .outcome = e.detail.empty() ? std::string(name(e.result)) : e.detail};
    if (e.result == RunResult::Correct || e.result == RunResult::Wrong) {
        std::tie(row.finding, row.why) = ranFinding(e, file);
    } else if (e.result == RunResult::NotRun && e.detail.starts_with(kReproDefect)) {
        // A child repro itself built wrong: a defect of repro, never evidence.
        row.outcome = "repro defect";
        row.why = e.detail.substr(kReproDefect.size());
    } else if (e.result == RunResult::NoEffect ||
               (e.result == RunResult::NotRun && e.detail.starts_with("not run: "))) {
        row.outcome = name(e.result);
        row.why = e.detail.starts_with("not run: ") ? e.detail.substr(9) : e.detail;
        if (row.why.empty() || row.why == row.outcome) row.why = "changes nothing on this device";
    } else {
        row.why = e.result == RunResult::Hang ? "hung: no result to compare" : "no result";
    }
    return row;
}

// The verdict after "cause: ", or the whole line.
std::string causeText(const std::string& verdict) {
    return verdict.starts_with("cause: ") ? verdict.substr(7) : verdict;
}

bool timeoutExcludedByCause(const TriageInput& in) {
    return in.causeKind == "synchronization" || in.causeKind == "shader_compiler" ||
           in.causeVerdict.find("the job timeout is excluded") != std::string::npos;
}

// The row of the baseline's own cause (the kernel's evidence and the timing).
TriageRow causeRow(const TriageInput& in) {
    TriageRow row{.hypothesis = Hypothesis::JobTimeout,
                  .experiment = fmt::format("baseline's cause ({})", in.failingMode.empty() ? "?" : in.failingMode),
                  .outcome = in.causeKind.empty() ? "none reported" : in.causeKind};
    row.why = in.causeVerdict.empty() ? "the baseline's report names no cause" : causeText(in.causeVerdict);
    if (in.causeKind == "job_timeout") {
        row.finding = Finding::Supports;
    } else if (in.causeKind == "hang_killed") {
        // The submit was predicted far below the timeout and ran until it: the watchdog
        // ended a hang; the length of the work is not what went wrong.
        row.finding = Finding::RulesOut;
        row.why = "the job timeout only ended a GPU hang: " + row.why;
    } else if (timeoutExcludedByCause(in)) {
        row.finding = Finding::RulesOut;
    }
    return row;
}

TriageRow probeRow(const TriageInput& in) {
    const ProbeOutcome& p = in.probe;
    // Short, to fit the table's outcome column; the ladder printed above the row, and the
    // `why` of a kill, carry the detail.
    std::string outcome(name(p.result));
    if (p.result == ProbeResult::NoKill) outcome += fmt::format(" up to {:.2f} s", p.longestSeconds);
    TriageRow row{.hypothesis = Hypothesis::JobTimeout, .experiment = "watchdog probe", .outcome = outcome};
    if (p.result == ProbeResult::NoKill && in.baselineSubmitSeconds && p.longestSeconds >= *in.baselineSubmitSeconds) {
        row.finding = Finding::RulesOut;
        row.why = fmt::format("no kill up to {:.2f} s, longer than the baseline's submit ({:.2f} s)", p.longestSeconds,
                              *in.baselineSubmitSeconds);
    } else if (p.result == ProbeResult::NoKill) {
        row.why = "no kill, but not past the baseline's submit time (or it is unknown)";
    } else if (p.result == ProbeResult::SoftKill || p.result == ProbeResult::HardKill) {
        row.why = (p.detail.empty() ? std::string() : p.detail + ": ") +
                  "shows what a kill looks like here; not evidence about the baseline by itself";
    } else {
        row.why = "not run";
    }
    return row;
}

bool any(const TriageInput& in, ExperimentKind kind, RunResult result) {
    return std::any_of(in.experiments.begin(), in.experiments.end(),
                       [&](const ExperimentOutcome& e) { return e.kind == kind && e.result == result; });
}

// Whether an experiment of a kind `of` accepts ran to a result (correct or wrong).
template <typename Of>
bool ranAny(const TriageInput& in, Of of) {
    return std::any_of(in.experiments.begin(), in.experiments.end(), [&](const ExperimentOutcome& e) {
        return (e.result == RunResult::Correct || e.result == RunResult::Wrong) && of(e.kind);
    });
}

const ExperimentOutcome* firstFix(const TriageInput& in, std::initializer_list<ExperimentKind> kinds) {
    for (const ExperimentOutcome& e : in.experiments) {
        if (e.result == RunResult::Correct && std::find(kinds.begin(), kinds.end(), e.kind) != kinds.end()) return &e;
    }
    return nullptr;
}

struct Weighed {
    HypothesisFinding h[6];
    std::vector<std::string> contradictions;
    HypothesisFinding& operator[](Hypothesis x) { return h[static_cast<size_t>(x)]; }
    const HypothesisFinding& operator[](Hypothesis x) const { return h[static_cast<size_t>(x)]; }
};

void weighJobTimeout(const TriageInput& in, const std::vector<TriageRow>& rows, Weighed& w) {
    std::vector<std::string> supports, rulesOut;
    for (const TriageRow& r : rows) {
        if (r.hypothesis != Hypothesis::JobTimeout) continue;
        const std::string line = r.experiment.starts_with("baseline") ? r.why : r.experiment + ": " + r.why;
        // split-ms alone only corroborates: shorter submits fix other causes too.
        if (r.finding == Finding::Supports && r.experiment.starts_with("baseline")) supports.push_back(line);
        if (r.finding == Finding::RulesOut) rulesOut.push_back(line);
    }
    HypothesisFinding& f = w[Hypothesis::JobTimeout];
    if (!supports.empty() && !rulesOut.empty()) {
        w.contradictions.push_back(fmt::format("H3: {}; but {}", supports.front(), rulesOut.front()));
        f.why = "contradictory evidence";
    } else if (!supports.empty()) {
        f = {Hypothesis::JobTimeout, Finding::Supports, supports.front()};
    } else if (!rulesOut.empty()) {
        f = {Hypothesis::JobTimeout, Finding::RulesOut, rulesOut.front()};
    } else {
        f.why = any(in, ExperimentKind::SplitMs, RunResult::Correct)
                    ? "submits under half the timeout fix it, but nothing says the long submit was killed"
                    : "neither the kernel's evidence nor the timing decides it";
    }
}

void weighSubmitSize(const TriageInput& in, Weighed& w) {
    const bool h3Out = w[Hypothesis::JobTimeout].finding == Finding::RulesOut;
    HypothesisFinding& h2 = w[Hypothesis::SubmitBoundary];
    const bool boundaryFixes = any(in, ExperimentKind::SubmitEveryWait, RunResult::Correct) ||
                               any(in, ExperimentKind::SubmitEveryNoWait, RunResult::Correct);
    const bool boundaryWrong = any(in, ExperimentKind::SubmitEveryWait, RunResult::Wrong) ||
                               any(in, ExperimentKind::SubmitEveryNoWait, RunResult::Wrong);
    if (boundaryFixes && h3Out) {
        h2 = {Hypothesis::SubmitBoundary, Finding::Supports, "a submit boundary every few dispatches makes it correct"};
    } else if (boundaryFixes) {
        h2.why = "submit boundaries fix it, but shorter submits also stay under a job timeout (H3 not ruled out)";
    } else if (boundaryWrong) {
        h2 = {Hypothesis::SubmitBoundary, Finding::RulesOut, "stays wrong with a submit boundary every few dispatches"};
    } else {
        h2.why = "not run";
    }
    HypothesisFinding& h4 = w[Hypothesis::BytesPerSubmit];
    if (any(in, ExperimentKind::SplitMib, RunResult::Wrong)) {
        h4 = {Hypothesis::BytesPerSubmit, Finding::RulesOut, "stays wrong with fewer bytes per submit"};
    } else if (any(in, ExperimentKind::OneStepRepeat, RunResult::Wrong)) {
        h4 = {
            Hypothesis::BytesPerSubmit, Finding::RulesOut,
            "as much work in one submit with 1/N of the bytes goes wrong: the work per submit matters, not its bytes"};
    } else if (any(in, ExperimentKind::SplitMib, RunResult::Correct) &&
               any(in, ExperimentKind::OneStepRepeat, RunResult::Correct)) {
        h4 = {Hypothesis::BytesPerSubmit, Finding::Supports,
              "fewer bytes per submit fix it, and as much work with fewer bytes stays correct"};
    } else {
        h4.why = "fewer bytes per submit were not tested against more work per submit";
    }
}

void weighOthers(const TriageInput& in, Weighed& w) {
    HypothesisFinding& h1 = w[Hypothesis::MissingFlush];
    if (const ExperimentOutcome* fix = firstFix(in, {ExperimentKind::Barrier, ExperimentKind::Memory})) {
        h1 = {Hypothesis::MissingFlush, Finding::Supports, fix->label + " makes it correct"};
    } else {
        h1.why = ranAny(in, [](ExperimentKind k) { return hypothesisOf(k) == Hypothesis::MissingFlush; })
                     ? "no barrier or memory variant makes it correct"
                     : "no barrier or memory variant ran";
    }
    HypothesisFinding& h5 = w[Hypothesis::ShaderCompiler];
    const bool fails = any(in, ExperimentKind::CheckSteps, RunResult::Wrong) || in.causeKind == "shader_compiler";
    const bool llvmFixes = any(in, ExperimentKind::CompilerSwitch, RunResult::Correct);
    const bool passes = any(in, ExperimentKind::CheckSteps, RunResult::Correct);
    if (fails && passes) w.contradictions.push_back("H5: split both fails and passes the " + checkName(in.file));
    if (fails) {
        h5 = {Hypothesis::ShaderCompiler, Finding::Supports, "split fails the " + checkName(in.file)};
    } else if (llvmFixes) {
        h5 = {Hypothesis::ShaderCompiler, Finding::Supports, "the other shader compiler makes it correct"};
    } else if (passes) {
        h5 = {Hypothesis::ShaderCompiler, Finding::RulesOut,
              "every dispatch of split passes the " + checkName(in.file)};
    } else {
        h5.why = "the " + checkName(in.file) + " did not run";
    }
    HypothesisFinding& h6 = w[Hypothesis::BladeQuirks];
    if (in.file) {
        h6.why = "the built-in chain's question; a file's recording is its own";
    } else if (in.baseline == RunResult::Wrong || in.baseline == RunResult::Hang) {
        h6 = {Hypothesis::BladeQuirks, Finding::RulesOut, "the default profile, valid Vulkan, reproduces"};
    } else if (in.baseline == RunResult::Correct && any(in, ExperimentKind::BladeExact, RunResult::Wrong)) {
        h6 = {Hypothesis::BladeQuirks, Finding::Supports, "only blade's own set-up goes wrong"};
    } else {
        h6.why = "not decided";
    }
}

struct Candidate {
    ConclusionKind kind;
    std::string line;
};

// H5's conclusion. With the user's --spirv modules a module with undefined behaviour is
// as likely as the compiler, so the shaders come first and the compiler is not blamed.
std::string shaderCompilerLine(const TriageInput& in, const Weighed& w) {
    if (in.userModules) {
        return "the shaders or the shader compiler (H5): " + w[Hypothesis::ShaderCompiler].why +
               "; the --spirv modules are the user's and may be invalid (spirv-val checks only the static rules)";
    }
    return "the shader compiler (H5): " + w[Hypothesis::ShaderCompiler].why;
}

// A GPU hang the job timeout only ended: what ran, and what the recording experiments say
// about avoiding it. Never --split-ms: the submit's predicted work was far below the
// timeout, so shorter submits by time are no cure.
Candidate hangCandidate(const TriageInput& in, const Weighed& w) {
    static constexpr std::string_view kPrefix = "a GPU hang, ended by the kernel's job timeout ";
    std::string cause = causeText(in.causeVerdict);
    std::string timeout = "the job timeout";
    if (cause.starts_with(kPrefix) && cause.find("): ") != std::string::npos) {
        const size_t close = cause.find("): ");
        timeout += " " + cause.substr(kPrefix.size(), close + 1 - kPrefix.size());
        cause = cause.substr(close + 3);
    }
    std::string line = fmt::format("a GPU hang in the one-submit recording ({}); {} only ended it: {}",
                                   in.failingMode.empty() ? "?" : in.failingMode, timeout, cause);
    if (w[Hypothesis::SubmitBoundary].finding == Finding::Supports)
        line += "; a submit boundary every few dispatches avoids it (H2)";
    if (w[Hypothesis::MissingFlush].finding == Finding::Supports)
        line += "; " + w[Hypothesis::MissingFlush].why.substr(0, w[Hypothesis::MissingFlush].why.rfind(" makes")) +
                " avoids it (H1)";
    if (w[Hypothesis::SubmitBoundary].finding != Finding::Supports &&
        w[Hypothesis::MissingFlush].finding != Finding::Supports)
        line += ranAny(in, changesRecording) ? "; no recording experiment avoids it" : "; no recording experiment ran";
    return {ConclusionKind::GpuHang, line};
}

// The causes the findings support, each with its conclusion line.
std::vector<Candidate> candidates(const TriageInput& in, const Weighed& w) {
    std::vector<Candidate> out;
    if (in.causeKind == "hang_killed") {
        out.push_back(hangCandidate(in, w));
        if (w[Hypothesis::ShaderCompiler].finding == Finding::Supports)
            out.push_back({ConclusionKind::ShaderCompiler, shaderCompilerLine(in, w)});
        return out;
    }
    const std::string cause = causeText(in.causeVerdict);
    if (w[Hypothesis::JobTimeout].finding == Finding::Supports) {
        std::string rest = cause.starts_with("the kernel's job timeout") ? cause.substr(24) : ": " + cause;
        if (any(in, ExperimentKind::SplitMs, RunResult::Correct))
            rest += "; --split-ms at half the timeout makes it correct";
        out.push_back({ConclusionKind::JobTimeout, "the kernel's job timeout (H3)" + rest});
    }
    const bool h1 = w[Hypothesis::MissingFlush].finding == Finding::Supports;
    const bool ownCause = in.causeKind == "synchronization";
    // A submit boundary cures it (H2: H3 is ruled out) and the long submit did all its work.
    const bool boundaryAfterFullRun =
        w[Hypothesis::SubmitBoundary].finding == Finding::Supports && in.baselineRanInFull.value_or(false);
    if (h1 || ownCause || boundaryAfterFullRun) {
        std::string which = h1         ? "H1: " + w[Hypothesis::MissingFlush].why
                            : ownCause ? std::string("the baseline's own evidence")
                                       : std::string("the baseline's long submit ran its full predicted time");
        if (!h1) which += "; no barrier or memory variant tested makes it correct";
        if (w[Hypothesis::SubmitBoundary].finding == Finding::Supports)
            which += "; H2: " + w[Hypothesis::SubmitBoundary].why;
        if (w[Hypothesis::BytesPerSubmit].finding == Finding::Supports)
            which += "; H4: " + w[Hypothesis::BytesPerSubmit].why;
        const std::string reason = in.causeKind == "synchronization" && cause.starts_with("synchronization: ")
                                       ? cause.substr(17)
                                       : in.baselineDetail;
        out.push_back({ConclusionKind::Synchronization, fmt::format("a synchronization bug ({}): {}", which, reason)});
    }
    if (w[Hypothesis::BytesPerSubmit].finding == Finding::Supports && !h1 && !ownCause && !boundaryAfterFullRun) {
        out.push_back(
            {ConclusionKind::BytesPerSubmit, "the bytes one submit writes (H4): " + w[Hypothesis::BytesPerSubmit].why});
    }
    if (w[Hypothesis::ShaderCompiler].finding == Finding::Supports) {
        out.push_back({ConclusionKind::ShaderCompiler, shaderCompilerLine(in, w)});
    }
    return out;
}

// Nothing decides it: what is known and what is missing.
std::string undeterminedLine(const TriageInput& in, const Weighed& w) {
    std::vector<std::string> known, missing = in.causeMissing;
    if (w[Hypothesis::SubmitBoundary].finding == Finding::Supports) {
        known.push_back("a submit boundary makes it correct (H2)");
        missing.insert(missing.begin(), "evidence that the long submit did all its work (the baseline's cause is " +
                                            (in.causeKind.empty() ? std::string("not reported") : in.causeKind) + ")");
    } else if (firstFix(in, {ExperimentKind::SubmitEveryWait, ExperimentKind::SubmitEveryNoWait,
                             ExperimentKind::SplitMs, ExperimentKind::SplitMib})) {
        known.push_back("shorter submits make it correct (H2, H3 or H4)");
        missing.insert(missing.begin(), "evidence that tells them apart (a kernel-log kill record, or a timed submit)");
    }
    // "no experiment makes it correct" only where some experiment ran to a result (issue 35's
    // leftovers: it was said when every experiment was not run, interrupted or of no effect).
    const bool anyResult = std::any_of(in.experiments.begin(), in.experiments.end(), [](const ExperimentOutcome& e) {
        return e.result == RunResult::Wrong || e.result == RunResult::Correct || e.result == RunResult::Hang;
    });
    if (known.empty()) known.push_back(anyResult ? "no experiment makes it correct" : "no experiment gave a result");
    if (missing.empty())
        missing.push_back("a cause the baseline's evidence supports (" + causeText(in.causeVerdict) + ")");
    return "undetermined: " + join(known, "; ") + "; missing: " + join(missing, "; ");
}

}  // namespace

std::string llvmAnswer(const TriageInput& in) {
    if (in.baseline != RunResult::Wrong && in.baseline != RunResult::Hang) return {};
    for (const ExperimentOutcome& e : in.experiments) {
        if (e.kind != ExperimentKind::CompilerSwitch) continue;
        switch (e.result) {
            case RunResult::Wrong:
            case RunResult::Hang:
                return "yes: with RADV_DEBUG=llvm it is still " + e.detail;
            case RunResult::Correct:
                return "no: with RADV_DEBUG=llvm it is correct (" + e.detail + "), so ACO is the suspect";
            case RunResult::NotRun:
            case RunResult::NoEffect:
                return "not tested: " + e.detail;
        }
    }
    return "not tested: triage ran no RADV_DEBUG=llvm child";
}

TriageConclusion concludeTriage(const TriageInput& in) {
    TriageConclusion out;
    const bool failed = in.baseline == RunResult::Wrong || in.baseline == RunResult::Hang;
    if (failed) out.rows.push_back(causeRow(in));
    for (const ExperimentOutcome& e : in.experiments) out.rows.push_back(experimentRow(e, in.file));
    if (in.probe.result != ProbeResult::NotRun) out.rows.push_back(probeRow(in));
    Weighed w;
    for (Hypothesis h : kHypotheses) w[h].hypothesis = h;
    if (!failed) {
        // Nothing to cure: an experiment that is correct too says nothing about a cause.
        for (TriageRow& r : out.rows) {
            if (r.hypothesis == Hypothesis::BladeQuirks) continue;
            r.finding = Finding::NoEvidence;
            r.why = "the baseline is not wrong either";
        }
    }
    weighJobTimeout(in, out.rows, w);
    weighSubmitSize(in, w);
    weighOthers(in, w);
    if (!failed) {
        for (HypothesisFinding& h : w.h) {
            if (h.hypothesis != Hypothesis::BladeQuirks)
                h = {h.hypothesis, Finding::NoEvidence, "nothing failed to explain"};
        }
    }
    out.hypotheses.assign(std::begin(w.h), std::end(w.h));
    auto conclude = [&](ConclusionKind kind, std::string text) {
        out.kind = kind;
        out.line = "conclusion: " + text;
        return out;
    };
    if (in.baseline == RunResult::NotRun || in.baseline == RunResult::NoEffect) {
        return conclude(ConclusionKind::Undetermined,
                        "undetermined: the baseline gave no result (" + in.baselineDetail + ")");
    }
    if (in.baseline == RunResult::Correct) {
        if (w[Hypothesis::BladeQuirks].finding == Finding::Supports) {
            return conclude(ConclusionKind::BladeQuirks,
                            "not reproduced with valid Vulkan; only --profile blade-exact goes "
                            "wrong: blade's own invalid usage (H6), not the driver");
        }
        return conclude(ConclusionKind::NotReproduced, "not reproduced; nothing to triage");
    }
    const std::vector<Candidate> found = candidates(in, w);
    if (!w.contradictions.empty() || found.size() > 1) {
        std::vector<std::string> parts = w.contradictions;
        for (const Candidate& c : found) parts.push_back(c.line);
        return conclude(ConclusionKind::Undetermined, "undetermined: contradictory evidence: " + join(parts, " | "));
    }
    if (found.size() == 1) return conclude(found[0].kind, found[0].line);
    return conclude(ConclusionKind::Undetermined, undeterminedLine(in, w));
}

nlohmann::json triageDocument(const TriageRunFacts& f, const TriageInput& in, const TriageConclusion& t) {
    using nlohmann::json;
    json experiments = json::array(), rows = json::array(), hypotheses = json::array();
    for (const ExperimentOutcome& e : in.experiments) {
        experiments.push_back({{"hypothesis", code(hypothesisOf(e.kind))},
                               {"experiment", e.label},
                               {"result", name(e.result)},
                               {"detail", e.detail}});
    }
    for (const TriageRow& r : t.rows) {
        rows.push_back({{"hypothesis", code(r.hypothesis)},
                        {"experiment", r.experiment},
                        {"outcome", r.outcome},
                        {"points_to", name(r.finding)},
                        {"why", r.why}});
    }
    for (const HypothesisFinding& h : t.hypotheses) {
        hypotheses.push_back({{"hypothesis", code(h.hypothesis)},
                              {"description", describe(h.hypothesis)},
                              {"finding", name(h.finding)},
                              {"why", h.why}});
    }
    json probe = nullptr;
    if (in.probe.result != ProbeResult::NotRun) {
        probe = {{"result", name(in.probe.result)},
                 {"detail", in.probe.detail},
                 {"longest_seconds", in.probe.longestSeconds},
                 {"timeout_seconds", f.timeoutSeconds ? json(*f.timeoutSeconds) : json(nullptr)},
                 {"timeout_source", f.timeoutSource}};
    }
    return {{"schema", "repro-triage"},
            {"schema_version", 1},
            {"repro", {{"version", f.version}, {"git", f.git}}},
            {"command_line", f.commandLine},
            {"device", {{"name", f.deviceName}, {"driver", f.driver}, {"driver_id", f.driverId}}},
            {"chain_length", f.chainLength},
            {"baseline",
             {{"result", name(in.baseline)},
              {"detail", in.baselineDetail},
              {"failing_mode", in.failingMode},
              {"cause_kind", in.causeKind},
              {"cause_verdict", in.causeVerdict}}},
            {"experiments", experiments},
            {"probe", probe},
            {"rows", rows},
            {"hypotheses", hypotheses},
            {"conclusion", {{"kind", name(t.kind)}, {"line", t.line}}},
            {"exit_status", f.exitStatus},
            {"interrupted", f.interrupted}};
}

nlohmann::json watchdogProbeDocument(const TriageRunFacts& f, const std::vector<ProbeRung>& rungs,
                                     const ProbeOutcome& outcome, const std::string& verdict) {
    using nlohmann::json;
    const auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    json ladder = json::array();
    for (const ProbeRung& r : rungs) {
        ladder.push_back({{"conv_ts", r.convTs},
                          {"steps", r.steps},
                          {"repeat", r.repeat},
                          {"predicted_seconds", opt(r.predictedSeconds)},
                          {"measured_seconds", opt(r.measuredSeconds)},
                          {"outcome", r.outcome}});
    }
    return {{"schema", "repro-watchdog-probe"},
            {"schema_version", 1},
            {"repro", {{"version", f.version}, {"git", f.git}}},
            {"command_line", f.commandLine},
            {"device", {{"name", f.deviceName}, {"driver", f.driver}, {"driver_id", f.driverId}}},
            {"timeout_seconds", opt(f.timeoutSeconds)},
            {"timeout_source", f.timeoutSource},
            {"rungs", ladder},
            {"result", name(outcome.result)},
            {"detail", outcome.detail},
            {"longest_seconds", outcome.longestSeconds},
            {"verdict", verdict},
            {"exit_status", f.exitStatus},
            {"interrupted", f.interrupted}};
}

}  // namespace repro
