// The two error kinds every layer of repro may throw before the modes run, and the exit
// status main() gives each (docs/contract.md, "Exit status"). Calls where the bug itself
// can show (submits, waits, readback) never throw: they return outcomes.
#pragma once

#include <stdexcept>

namespace repro {

// A usage error: bad flag, value or shape. Its message is one line saying what is
// wrong; main() prints it and exits with status 1.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// This machine, driver or revision cannot run the repro (no loader, no usable device, a
// missing feature or extension, not enough memory): exit status 125 with this one-line
// message, so `git bisect run` skips the revision.
struct CannotTest : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace repro
