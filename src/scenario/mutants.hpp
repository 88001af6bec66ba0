// A file's mutants (--mutant, --mutants; docs/mutants.md): each barrier step, and each semaphore
// wait's stage, weakened one way at a time (core/variant.hpp Weakening), after MC Mutants
// (Levine et al., ASPLOS 2023). A mutant is a labelled control: its result is never a driver's
// fault. Vulkan-free: the recorder records the weakened Barrier as any other.
#pragma once

#include <string>
#include <vector>

#include "core/variant.hpp"
#include "scenario/scenario.hpp"

namespace repro::scenario {

// One mutant of a file.
struct Mutant {
    MutantSpec spec;
    std::string what;  // the step as weakened: "step 5 (compute -> compute)" (a barrier), "step 4 wait s (compute)"
};

// Every mutant of `s`, in step order and kWeakenings' order: for each barrier step that is not a
// control already, each weakening that differs from the barrier as written and from the ones
// before it; for each wait that is not a control, dst-stage-misses when a work step follows it on
// its queue. The steps a `repeat` made from one barrier or wait of the file are one mutant,
// weakened together (", 99 times" in `what`). `skipped` (when given) gets one line per weakening left out and why
// ("step 5 no-src-access: its source access mask is empty already"). Pure.
std::vector<Mutant> mutantsOf(const Scenario& s, std::vector<std::string>* skipped = nullptr);

// --mutant: step m.step of `s` weakened by m.weakening and labelled a control (its label says
// "mutant KIND"). Throws repro::UsageError, one line naming the value, when the file has no such
// step, the step is no barrier or wait, is a later copy a `repeat` made (the first copy's number
// stands for all: every copy is weakened, but one with no work after it), is a control already, or the weakening cannot apply to it
// (a wait's one weakening is dst-stage-misses; one equal to the step as written).
void applyMutant(Scenario& s, const MutantSpec& m);

}  // namespace repro::scenario
