// The plan of a run (see scenario/plan.hpp).
#include "scenario/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "core/errors.hpp"
#include "scenario/mutants.hpp"
#include "scenario/scenario_chain.hpp"
#include "scenario/scenario_check.hpp"
#include "scenario/scenario_cpu.hpp"
#include "scenario/scenario_parse.hpp"

namespace repro {
namespace {

namespace sc = repro::scenario;

// --memory on a file: the placement every buffer takes (scenario.hpp replacePlacements).
sc::Placement filePlacement(BufferMemory m, const std::string& file) {
    switch (m) {
        case BufferMemory::DeviceLocal:
            return sc::Placement::DeviceLocal;
        case BufferMemory::HostVisible:
            return sc::Placement::HostVisible;
        default:
            throw UsageError(
                fmt::format("--memory {}: {}'s buffers are device-local, host-visible or shared; "
                            "expected device-local or host-visible on a file",
                            name(m), file));
    }
}

size_t dispatchCount(const sc::Scenario& s) {
    return static_cast<size_t>(std::count_if(s.steps.begin(), s.steps.end(), [](const sc::Step& step) {
        return std::holds_alternative<sc::Dispatch>(step.body);
    }));
}

// With --reference cpu and no split among the modes, split does not run: a checked buffer only
// split can judge (the CPU model cannot compute it), or --check-steps (split's steps), would
// be judged by nothing, so the run is refused rather than called correct.
void refuseWhatNothingCompares(const Options& o, const sc::Scenario& s) {
    if (splitAsked(o) || o.reference != ReferenceKind::Cpu) return;
    if (const std::string only = sc::splitOnlyBuffers(s); !only.empty())
        throw UsageError(
            fmt::format("--reference cpu: the CPU model cannot compute {} ({}) and split does not run "
                        "without --mode split, so nothing would be compared; expected --reference auto "
                        "or split, or split among the modes",
                        only, sc::unmodelledKernels(s)));
    if (o.checkSteps)
        throw UsageError(
            "--check-steps: checks split's steps, and split does not run with --reference cpu without --mode split; "
            "expected --reference auto, or split among the modes");
}

// What the options change in the file (scenario/plan.hpp makePlan), in the order a reader would
// apply them by hand.
void applyOptions(const Options& o, sc::Scenario& s) {
    if (o.mutant) sc::applyMutant(s, *o.mutant);
    if (o.barrierGiven) {
        if (const std::string why = sc::replaceBarriers(s, o.barrier); !why.empty()) throw UsageError(why);
    }
    if (o.memory != BufferMemory::Blade) {
        if (sc::replacePlacements(s, filePlacement(o.memory, s.file)) == 0)
            throw UsageError(fmt::format("--memory {}: every buffer of {} it could move is {} already", name(o.memory),
                                         s.file, name(o.memory)));
    }
    if (o.workScale > 1 && sc::multiplyWork(s, o.workScale) == 0)
        throw UsageError(
            fmt::format("--work-scale {}: no dispatch of {} takes work (the work kernel's is what it "
                        "writes; the indirect-writer, conv-t and slice have no work loop)",
                        o.workScale, s.file));
    if (o.poison) (void)sc::poisonBuffers(s, kPoisonPattern);
    if (o.reference == ReferenceKind::Split)
        s.cpuChain = false;
    else if (o.reference == ReferenceKind::Auto && s.shape)
        s.cpuChain = sc::chainReferenceCost(*s.shape, sc::checkedChainValues(s)) <= sc::kAutoChainMultiplyAdds;
    if (s.usesQueues() && o.submit.cuts())
        throw UsageError(
            fmt::format("{}: {} has queues or semaphores, whose batches set its submits; expected a "
                        "file on one queue",
                        o.submit.every     ? "--submit-every"
                        : o.submit.splitMs ? "--split-ms"
                                           : "--split-mib",
                        s.file));
    refuseWhatNothingCompares(o, s);
    if (o.dropDispatch && *o.dropDispatch > dispatchCount(s))
        throw UsageError(fmt::format("--drop-dispatch {}: {} has {} dispatch step(s); expected 1..{}", *o.dropDispatch,
                                     s.file, dispatchCount(s), dispatchCount(s)));
}

sc::Scenario prepareFile(const Options& o, const sc::ParameterValues& overrides = {}) {
    sc::Scenario s = sc::loadScenario(*o.scenario, overrides);  // nothing runs on a bad file
    applyOptions(o, s);
    return s;
}

}  // namespace

std::vector<PlanPoint> Plan::points(const Options& o) const {
    std::vector<PlanPoint> out;
    if (builtIn()) {
        if (!o.sweep) return {{.n = o.chainLength}};
        for (uint64_t n = o.sweep->first; n <= o.sweep->second; ++n)
            out.push_back({.n = static_cast<uint32_t>(n), .label = fmt::format("N={}", n)});
        return out;
    }
    if (!o.parameterSweep) return {{}};
    for (size_t k = 0; k < o.parameterSweep->values.size(); ++k) {
        const uint32_t v = o.parameterSweep->values[k];
        out.push_back({.variant = k, .value = v, .label = fmt::format("{}={}", o.parameterSweep->parameter, v)});
    }
    return out;
}

Plan makePlan(const Options& o) {
    Plan plan;
    if (!o.scenario) return plan;
    plan.form = PlanForm::File;
    if (!o.parameterSweep) {
        plan.variants.push_back(prepareFile(o));
        return plan;
    }
    // --sweep NAME=...: the file parsed once per value, before anything runs; a value that
    // makes the file bad is its one line, with the value named.
    const ParameterSweep& sw = *o.parameterSweep;
    for (const uint32_t v : sw.values) {
        try {
            plan.variants.push_back(prepareFile(o, {{sw.parameter, v}}));
        } catch (const UsageError& e) {
            throw UsageError(fmt::format("{} (with --sweep {} = {})", e.what(), sw.parameter, v));
        }
    }
    return plan;
}

std::vector<std::string> planControls(const Options& o, const Plan& plan) {
    std::vector<std::string> out;
    const bool barrierControl = (plan.builtIn() || o.barrierGiven) && isControl(o.barrier);
    if (barrierControl)
        out.push_back(o.barrier == BarrierKind::None
                          ? "--barrier none: no barrier between the dispatches of multipass and single"
                          : "--barrier execution-only: execution dependencies without memory dependencies");
    if (o.mutant)
        out.push_back(fmt::format("--mutant {}: a mutant, the file's step {} weakened on purpose",
                                  mutantText(*o.mutant), o.mutant->step));
    else if (!plan.builtIn() && !barrierControl && plan.variants.front().hasControl())
        out.push_back(fmt::format("the file labels {} a control", plan.variants.front().controlSteps()));
    if (o.dropDispatch)
        out.push_back(fmt::format("dispatch {0} left out of multipass and single by repro (--drop-dispatch {0})",
                                  *o.dropDispatch));
    return out;
}

std::vector<std::string> planControls(const Options& o, const Plan& plan, Mode mode) {
    if (mode == Mode::Split) return {};
    if (mode != Mode::Multipass || plan.builtIn()) return planControls(o, plan);
    const sc::Scenario& s = plan.variants.front();
    const bool image =
        std::any_of(s.buffers.begin(), s.buffers.end(), [](const auto& b) { return b.image.has_value(); });
    if (s.usesQueues() || image) return planControls(o, plan);
    std::vector<std::string> all = planControls(o, plan);  // multipass keeps G before every step:
    if (o.dropDispatch) return {all.back()};               // only a left-out dispatch reaches it
    return {};
}

std::vector<InputFile> planInputs(const Plan& plan) {
    std::vector<InputFile> out;
    if (plan.builtIn() || plan.variants.empty()) return out;
    for (const sc::UserKernel& k : plan.variants.front().kernels)
        out.push_back({.what = fmt::format("kernel '{}''s module", k.name), .path = k.spirv});
    return out;
}

bool needsChainWords(const Plan& plan) {
    return std::any_of(plan.variants.begin(), plan.variants.end(), [](const sc::Scenario& s) {
        return std::any_of(s.buffers.begin(), s.buffers.end(), sc::awaitsChainWords);
    });
}

}  // namespace repro
