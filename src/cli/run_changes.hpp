// What a run changes about blade's stream, decided once from the options: the header's
// "experiment:" lines, the Markdown report's experiment row and the JSON report's
// experiment.changes all come from here, so none of them can leave a flag out (issue 21,
// item 6d: --split-ms and --drop-dispatch were missing from some). Vulkan-free.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"

namespace repro {

struct RunChanges {
    // Flags that change how multipass and single are recorded (split stays blade's stream):
    // "--barrier sync2", "--submit-every 2", "--split-mib 26.2", "--split-ms 250",
    // "--no-host-wait", "--dispatch-repeat 4", "--drop-dispatch 3".
    std::vector<std::string> recording;
    // Flags that change the set-up of every mode, split included: "--memory host-cached",
    // "--profile blade-exact", "--spirv DIR".
    std::vector<std::string> setup;
    bool none() const { return recording.empty() && setup.empty(); }
    // Both lists, recording first: the JSON report's experiment.changes.
    std::vector<std::string> all() const;
};

// The flags of `o` that differ from blade's stream, each as the user would type it. Never
// throws.
RunChanges runChanges(const Options& o);

}  // namespace repro
