// --invert's mapping of exit statuses (exit_status.hpp).
#include "core/exit_status.hpp"

namespace repro {

int invertedExitStatus(int status) {
    if (status == kExitReproduced) return kExitNotReproduced;
    if (status == kExitNotReproduced) return kExitUsage;
    if (status == kExitUsage) return kExitCannotTest;
    return status;
}

}  // namespace repro
