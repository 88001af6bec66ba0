// --mutants: after the run, each mutant of the plan (a weakened barrier: scenario/mutants.hpp for
// a file, the chain's --barrier controls for the built-in chain) in a child process of its own,
// with the user's options and --repeat, and the mutation score (docs/mutants.md; MC Mutants,
// Levine et al., ASPLOS 2023). Every mutant is a labelled control: none changes the exit status.
#pragma once

#include "cli/options.hpp"
#include "report/report.hpp"
#include "scenario/plan.hpp"

namespace repro {

// Runs every mutant of `plan` (its one-submit modes against split, --repeat R times each), prints
// one line per mutant as it ends ("mutant 3/8: step 5 (compute -> compute): execution-only:
// killed (7 of 20 wrong)") and the score ("mutation score: 5 of 8 mutants killed"), and
// returns them for the report. A mutant is killed when a run of it is wrong, hung when its child
// hung (counted as killed), not-run when its child gave no result (the reason is its last line).
// Stops, with the mutants so far, when interrupted. Never throws for a child's failure.
MutantsReport runMutants(const Options& options, const Plan& plan);

// What --mutants reports when the run as written did not come out right (`verdict`'s status is
// not 0: a reproduction, a control caught, a hang, validation errors): no mutant, since a
// mutant is told apart only from a run that is right (a hung or wrong mutant of a file that
// hangs or is wrong as written would be scored killed for the file's own failure). Prints
// the line that says so and returns the report with `withheld` set.
MutantsReport withheldMutants(const Plan& plan, const Verdict& verdict);

}  // namespace repro
