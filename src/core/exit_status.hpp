// repro's exit statuses (docs/contract.md, "Verdict and exit status") and --invert's mapping.
#pragma once

#include <span>
#include <string_view>

namespace repro {

// Exit statuses (docs/contract.md); they fit `git bisect run`: 0 good, 125 skip, 1-127 bad.
enum ExitStatus : int {
    kExitNotReproduced = 0,
    kExitUsage = 1,
    kExitReproduced = 2,
    kExitHang = 3,
    kExitValidation = 4,
    kExitCannotTest = 125,
};

// --invert, for bisecting a fix: a reproduction (2) becomes 0 and no reproduction (0)
// becomes 1; a usage error (1) becomes 125 (cannot test: git bisect run skips it), since 1
// now says "not reproduced" and a usage error never shares a status with a verdict (SPEC
// §5); every other status (3, 4, 125, 128 + signal) is returned unchanged, so a hang or an
// untestable revision means the same in both directions (docs/bisect.md).
int invertedExitStatus(int status);

// One row of the exit-status table: the status ("0", "130, 143") and what it says, plain
// text in which an option is written as typed ("--invert").
struct ExitStatusRow {
    std::string_view status, meaning;
};

// The one exit-status table: `repro --help` and docs/options.md render it (cli/help.hpp),
// and tests keep README.md's, docs/contract.md's and the man page's (cmake/repro.h2m)
// generated copies equal to it.
std::span<const ExitStatusRow> exitStatusTable();

// The sentences that go with the table everywhere it is shown: the precedence when several
// statuses apply, and --invert's mapping.
std::span<const std::string_view> exitStatusNotes();

}  // namespace repro
