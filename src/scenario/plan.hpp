// What one run of repro does, made from either input form (as amber reads AmberScript or
// VkScript into one Script): the built-in chain (`repro -n N`, blade #356 made in code, whose
// scenario form is scenario/builtin_chain.hpp) or a scenario file (`repro --scenario FILE`,
// parsed). Past makePlan nothing asks which form the user wrote but the workload
// (engine/workload.hpp): the recorder (the chain's literal recorders or the step walker) and the
// check (the chain's Judge or a file's CPU model and split). Everything else, the device, the
// modes, repeats and sweeps, timeouts, causes, the verdict, the reports and the children, is
// one road (engine/run.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "cli/output_paths.hpp"
#include "scenario/scenario.hpp"

namespace repro {

enum class PlanForm {
    BuiltIn,  // the built-in chain at options.chainLength (or each N of --sweep)
    File,     // options.scenario, parsed
};

// One point a run goes through: a chain length, or one value of a file's swept parameter.
struct PlanPoint {
    uint32_t n = 0;                 // the built-in chain's length; 0 for a file
    size_t variant = 0;             // a file: which of Plan::variants (0 without --sweep)
    std::optional<uint32_t> value;  // a file's --sweep: the parameter's value here
    // "N=3", "w=65536" (a sweep's row), or "" for a run of one point.
    std::string label;
};

struct Plan {
    PlanForm form = PlanForm::BuiltIn;
    // A file: the scenario as parsed with the options applied (--barrier, --poison,
    // --reference, --memory, --work-scale), once per --sweep value (one without --sweep).
    std::vector<scenario::Scenario> variants;

    bool builtIn() const { return form == PlanForm::BuiltIn; }
    // The file at `point` (a file's plan only).
    const scenario::Scenario& file(const PlanPoint& point) const { return variants.at(point.variant); }
    scenario::Scenario& file(const PlanPoint& point) { return variants.at(point.variant); }
    // The points of the run in order: each N of --sweep, each value of a file's --sweep, or
    // the one point.
    std::vector<PlanPoint> points(const Options& options) const;
};

// The plan `options` asks for. For a file: parsed (scenario_parse.hpp loadScenario) once per
// --sweep value, with --barrier (every barrier step replaced), --memory (every buffer placed),
// --work-scale (every dispatch's work multiplied), --poison and --reference applied. Throws
// UsageError with the file's one FILE:LINE:COLUMN line, or one line naming the option that
// cannot apply to this file and why. Nothing runs on a bad plan.
Plan makePlan(const Options& options);

// The files a file's plan reads beyond the command line's (cli/output_paths.hpp
// commandLineInputs): its user kernels' modules, for the check that no output overwrites an
// input (outputCollision). Empty for the built-in chain.
std::vector<InputFile> planInputs(const Plan& plan);

// The positive controls multipass and single run under, in words (empty: none): --barrier none
// or execution-only ("--barrier none: no barrier between the dispatches of multipass and
// single"), a file's labelled controls ("the file labels step 2 barrier none (control) a
// control"), --drop-dispatch K ("dispatch K left out of multipass and single by repro
// (--drop-dispatch K)"). Wrong output under one is the control caught, never a driver bug
// (issue 35 §2); split runs under none of them.
std::vector<std::string> planControls(const Options& o, const Plan& plan);

// The controls of planControls that reach `mode`: none for split. On a file with one queue and
// no image, multipass records blade's G (ALL_COMMANDS -> ALL_COMMANDS, every memory write made
// visible) before each work step, so a weakened or removed barrier (--barrier none or
// execution-only, --mutant, a barrier the file labels a control) orders nothing there: only
// --drop-dispatch reaches it. Elsewhere every control reaches multipass and single.
std::vector<std::string> planControls(const Options& o, const Plan& plan, Mode mode);

// Whether a chain-input or chain-weight buffer of the plan still waits for its words
// (scenario_parse.hpp fillChainWords, made in the supervised child).
bool needsChainWords(const Plan& plan);

}  // namespace repro
