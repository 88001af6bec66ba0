// What one child run of --matrix, --triage, --watchdog-probe or --driver-env-sweep changes
// about the user's run, as typed factors (the recording's mode, barrier, submit structure,
// memory, work, profile and driver setting), and the --matrix set built from them: every
// label and the folding of rows that record the same stream are derived from the factors,
// never from command-line text. Vulkan-free; the flags each factor becomes are
// src/children/child_run.hpp's (factorFlags).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/options.hpp"
#include "core/variant.hpp"

namespace repro {

// A driver setting as a child's environment gets it: one option of a variable's list
// (DriverSetting's variable and value). The child's value is appended to the parent's own
// value of the variable (children/child_run.hpp childEnv).
struct DriverEnv {
    std::string variable;  // "RADV_DEBUG"
    std::string value;     // "llvm"
    bool operator==(const DriverEnv&) const = default;
};

// The factors of one child run; an unset factor keeps the user's value (or the default).
struct RunFactors {
    std::optional<uint32_t> steps;           // work: -n (the user's -n is left out then)
    std::optional<Mode> mode;                // recording: --mode
    std::optional<BarrierKind> barrier;      // --barrier
    SubmitStructure submit;                  // --submit-every, --split-mib, --split-ms, --no-host-wait
    std::optional<BufferMemory> memory;      // --memory
    std::optional<uint32_t> dispatchRepeat;  // work: --dispatch-repeat
    std::optional<uint32_t> workScale;       // work: --work-scale (a file's work loops)
    std::optional<Profile> profile;          // --profile
    bool checkSteps = false;                 // --check-steps (the user's, if given, is left out)
    std::optional<DriverEnv> driverEnv;      // an environment variable set for the child
    std::optional<uint32_t> batch;           // work: --batch, more work in every dispatch
    std::optional<MutantSpec> mutant;        // --mutant: one of a file's mutants (a control)
    bool operator==(const RunFactors&) const = default;
};

// The --split-mib and --split-ms values as the flags and labels print them: MiB with three
// decimals ("26.200"), whole milliseconds ("250").
std::string splitMibText(double mib);
std::string splitMsText(double ms);

// One factor that is set, as each use of it needs it: the long names of the options it
// replaces in the user's command line, the flags it becomes (children/child_run.hpp
// factorFlags) and its words in a label (factorLabel). The driver setting has no option and
// no flag (its child's environment has it), the mode no words, and the host waits beside
// --submit-every words alone ("host-wait", the default).
struct FactorPart {
    std::vector<std::string_view> options;  // "--chain" for -n
    std::vector<std::string> flags;         // {"-n", "5"}
    std::string label;                      // "n=5"
};
// The parts of the factors that are set, in factorFlags' order (the driver setting after
// --check-steps).
std::vector<FactorPart> factorParts(const RunFactors& f);

// What the factors change, in words, without the mode: "barrier=sync2", "submit-every=2
// host-wait", "split-mib=26.200 no-host-wait", "n=1 dispatch-repeat=8", "check-steps",
// "RADV_DEBUG=llvm", "batch=16"; parts in factorFlags' order, joined by spaces; "none" for no factor. A
// submit structure that cuts says its host waits after --submit-every ("host-wait" or
// "no-host-wait") and "no-host-wait" alone otherwise.
std::string factorLabel(const RunFactors& f);

// One row of --matrix: a mode and one factor changed around blade's own stream.
struct Variant {
    RunFactors factors;   // factors.mode is always set (multipass or single)
    bool folded = false;  // the multipass row also stands for the single row (foldSameStreams)
    bool file = false;    // a row of a file's matrix: no factor is the file "as written"
    // a row of a file's matrix that keeps a control the file labels (a barrier, a wait or
    // ownership transfers left out on purpose): its results do not count, as a --barrier none row's
    bool fileControl = false;
};
// An invalid-on-purpose encoding: --barrier execution-only or none, or a file row that keeps
// the file's own controls (results not judged).
bool isControl(const Variant& v);
// --profile blade-exact: blade's own invalid usage (reported, not judged: a wrong result
// there need not be the driver's).
bool bladeQuirks(const Variant& v);
// The row's label: "multipass blade (as recorded by blade)" ("multipass as written" for a
// file's), "single barrier=sync2",
// "multipass barrier=none (control)", "single profile=blade-exact (blade's quirks)", and
// for a folded row "multipass = single barrier=sync2".
std::string label(const Variant& v);
// The label without its mode ("barrier=sync2", "blade (as recorded by blade)").
std::string labelWithoutMode(const Variant& v);

// --matrix on a file (--scenario): the rows of docs/scenarios.md "--matrix on a scenario" but the
// split-ms ones (splitMsVariants), one factor at a time around the file's own stream, for each of
// multipass and single.
std::vector<Variant> fileMatrixVariants();

// --matrix: the set of docs/experiments.md "--matrix", one factor at a time around blade's own
// stream, for each of multipass and single. `splitMiB`: the --split-mib value (MiB, printed with 3
// decimals); the caller passes 90% of one big buffer, so every conv-T passes it and closes a submit.
std::vector<Variant> matrixVariants(double splitMiB);

// --split-ms `ms` without host waits for multipass and single: the two rows --matrix adds
// once the first child has named the queue's job timeout (`ms` is half of it).
std::vector<Variant> splitMsVariants(double ms);

// With a --barrier other than blade's, multipass and single record the same stream
// (vk/experiment_recorder.cpp plays one plan for both): the single variant of such a pair
// is folded into the multipass one, which is marked folded. Returns the variants kept, in
// order, and how many were folded.
std::pair<std::vector<Variant>, size_t> foldSameStreams(const std::vector<Variant>& all);

}  // namespace repro
