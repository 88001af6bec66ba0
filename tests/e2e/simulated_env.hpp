// The environment that puts the simulated driver (tests/simdriver, VK_LAYER_REPRO_simulate)
// between repro and the machine's driver. For the test targets that define
// REPRO_SIMDRIVER_LAYER_DIR (the folder the build writes the layer and its manifest to).
#pragma once

#include <string>
#include <vector>

namespace repro::test {

// The layer's folder, the layer enabled by name, REPRO_SIMULATE=`spec` (tests/README.md
// lists the faults) and no tracing: the layer then prints nothing of its own but a bad spec's line.
inline std::vector<std::string> simulated(const std::string& spec) {
    return {std::string("VK_ADD_LAYER_PATH=") + REPRO_SIMDRIVER_LAYER_DIR, "VK_INSTANCE_LAYERS=VK_LAYER_REPRO_simulate",
            "REPRO_SIMULATE=" + spec, "REPRO_SIMULATE_TRACE="};
}

}  // namespace repro::test
