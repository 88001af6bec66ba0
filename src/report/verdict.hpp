// Per-mode results, the verdict and the exit status (docs/contract.md, "Verdict and exit
// status"). Vulkan-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options.hpp"
#include "core/exit_status.hpp"
#include "reference/stats.hpp"
#include "reference/underflow.hpp"

namespace repro {

struct ModeResult {
    Mode mode = Mode::Split;
    Classification kind = Classification::NotRun;
    std::string reason;
    std::optional<BufferStats> stats;  // when the mode completed
    uint64_t submits = 0;
    double wallSeconds = 0;
    // Why it is wrong (forensics/cause.hpp): the verdict's "cause: ..." line, and the cause as a
    // JSON object's text (causeJson), for the report; empty when not decided.
    std::string cause;
    std::string causeKind;  // forensics/cause.hpp name(CauseKind): "job_timeout", "synchronization", ...
    std::string causeJson;
    // --check-steps: the per-dispatch CPU check as the report's JSON object's text
    // (perDispatchCheckJson, reference/step_check.hpp); empty when it did not run.
    std::string perDispatchCheckJson;
    // --check-steps on a file: split's steps against the CPU model as the report's JSON
    // object's text (engine/file_workload.cpp's stepCheckJson); empty when it did not run.
    std::string stepCheckJson;
    // --repeat: how many runs there were, how many of them were wrong, and whether
    // every run's final buffer was bit-identical to the first's.
    uint32_t runs = 1;
    uint32_t wrongRuns = 0;
    bool identicalAcrossRuns = true;
};

struct Verdict {
    int exitStatus = kExitNotReproduced;
    std::vector<std::string> lines;  // each starts with "--- "
};

// What a run's exit status says, as a closed set a program can switch on (the JSON report's
// verdict.kind, docs/report-schema.md). ControlCaught is a reproduction under a positive
// control (a dependency left out on purpose: --drop-dispatch, --barrier none|execution-only,
// a step a file labels a control): the checker caught what it was meant to catch, which
// says nothing about the driver.
enum class VerdictKind {
    NotReproduced,  // 0
    Reproduced,     // 2, not under a control
    Hang,           // 3 (a hang or a driver crash)
    Validation,     // 4
    CannotTest,     // 125, or a status no verdict gives
    ControlCaught,  // 2 under a positive control
    Interrupted,    // 130 (SIGINT), 143 (SIGTERM, SIGHUP)
    Usage,          // 1: a usage error or an output that could not be written
};

// "not_reproduced", "reproduced", "hang", "validation", "cannot_test", "control_caught",
// "interrupted", "usage".
std::string_view name(VerdictKind kind);

// The kind of a run that ended with `exitStatus` (the uninverted status; docs/contract.md
// "Exit status"), `control` when the run was a positive control. A hang under a control is
// a hang, and a control whose output was right is not reproduced: only a reproduction
// changes with `control`. A status outside the contract's set is CannotTest (no verdict).
VerdictKind verdictKind(int exitStatus, bool control);

// Decides from the modes' results, in the precedence 3 (hang), 2 (a mode is zero,
// mismatch or nonfinite), 125 (the reference underflowed: inconclusive), 4 (validation
// messages), 0. `referenceName` names the reference ("split") or is empty when none
// ran; `referenceUnderflowed` says it is all zero or denormal. Without a reference,
// all-zero modes are inconclusive only when `underflow` (reference/underflow.hpp) says a correct
// device may return zeros at this chain length; otherwise they reproduce the bug, as in the
// original (whose multipass is all zero at N = 7).
Verdict decideVerdict(const std::vector<ModeResult>& results, const std::string& referenceName,
                      bool referenceUnderflowed, uint64_t validationMessages, const UnderflowEstimate& underflow = {});

// The cause that cuts a mode short whatever the run removed or kept, from the cause's JSON name
// (forensics/cause.hpp name(CauseKind)): "the kernel's job timeout" for job_timeout, "the GPU's
// scheduler firmware" for firmware, "" for any other. Under a positive control such a mode's
// wrong output says nothing of the control (engine/outcome_stages.cpp, children/experiments.cpp).
std::string_view cutShortBy(std::string_view causeKind);

// The original's result line: `  mode=split     nz=3686400/3686400 (100.0%) sum=…
// max_abs=…`, Rust number formats, 9-wide left-aligned mode column.
std::string modeLine(Mode mode, const BufferStats& stats);

// The line under it: `    -> ok: bit-identical to split (2 submits, 1.23 s)`.
std::string classificationLine(const ModeResult& result);

}  // namespace repro
