// --matrix and --driver-env-sweep: many runs of repro itself, each in a child process with
// its own device, read back through their JSON reports (docs/report-schema.md).
#pragma once

#include "core/options.hpp"

namespace repro {

// Runs every variant of matrixVariants() at the options' N, shape and device, prints one
// row per variant as it finishes and a verdict. Exit status over the valid variants (the
// controls never count): 3 if one hung, else 2 if one was wrong, else 125 if none could
// run, else 4 if a default-profile variant drew validation messages (with --validation),
// else 0. 130/143 when interrupted.
int runMatrix(const Options& options);

// Runs the user's command once without and once under each driver setting of
// driverSettingsFor(device's driver, --all-drivers) and says which make a reproducing run
// stop reproducing. Exit status: the run without a setting's (the driver as it is).
int runDriverEnvSweep(const Options& options);

}  // namespace repro
