// --invert's mapping of exit statuses and the exit-status table (exit_status.hpp).
#include "core/exit_status.hpp"

namespace repro {

int invertedExitStatus(int status) {
    if (status == kExitReproduced) return kExitNotReproduced;
    if (status == kExitNotReproduced) return kExitUsage;
    if (status == kExitUsage) return kExitCannotTest;
    return status;
}

namespace {

constexpr ExitStatusRow kExitStatusRows[] = {
    {"0", "ran; no mode was wrong (not reproduced); --merge-reports: every file merged"},
    {"1",
     "usage error: a bad option or value, or an output path (-o, --json, --dump-dir, TMPDIR) that cannot be "
     "written; --merge-reports: a file that could not be merged (the table of the others is printed); one line "
     "on stderr says which and why"},
    {"2", "reproduced: at least one mode's output is wrong (zero, mismatch, nonfinite, unwritten, killed)"},
    {"3",
     "GPU hang: the device was lost or a wait timed out, or the driver crashed or stalled during the modes' "
     "submits, waits or readback (completed results are still printed)"},
    {"4", "with --validation: repro's own Vulkan usage drew validation messages, and nothing above applies"},
    {"125",
     "cannot test here: no Vulkan loader, no usable device, a missing feature or entry point, not enough "
     "memory, an inconclusive (underflowed) reference, or a driver that crashed, aborted or stalled before the "
     "first submit of the modes under test; also repro's own crash, a crash that cannot be placed, and with "
     "--invert a usage error"},
    {"130, 143",
     "interrupted by SIGINT or SIGTERM (SIGHUP counts as SIGTERM): completed results are printed, no verdict"},
};

constexpr std::string_view kExitStatusNotes[] = {
    "Precedence when several apply: 3, 2, 125, 4, 0. The statuses fit git bisect run: 0 good, 125 skip, any "
    "other up to 127 bad.",
    "--invert bisects a fix: a reproduction (2) exits 0, no reproduction (0) exits 1, a usage error exits 125 "
    "(never 1), and every other status is unchanged (git bisect start --term-old broken --term-new fixed "
    "FIXED BROKEN; docs/bisect.md).",
};

}  // namespace

std::span<const ExitStatusRow> exitStatusTable() { return kExitStatusRows; }

std::span<const std::string_view> exitStatusNotes() { return kExitStatusNotes; }

}  // namespace repro
