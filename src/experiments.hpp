// --matrix and --driver-env-sweep: many runs of repro itself, each in a child process with
// its own device, read back through their JSON reports (docs/report-schema.md).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/options.hpp"
#include "core/subprocess.hpp"

namespace repro {

// ---- Shared by --matrix, --driver-env-sweep, --triage and --watchdog-probe -------------

// What the parent needs to know of the device the children will pick.
struct ProbedDevice {
    std::string name;
    std::string driverId;  // VkDriverId name without "DRIVER_ID_", e.g. "MESA_RADV"
    std::string driver;    // "driverName driverInfo"
    bool cpu = false;
    uint32_t memoryTypes = 0;  // VkPhysicalDeviceMemoryProperties::memoryTypeCount
};
// Checks --spirv once, creates an instance and picks the device as the children will.
// Throws UsageError for a bad --spirv or --device, std::runtime_error without a device.
ProbedDevice probe(const Options& options);

// The user's arguments for a child: argv without the program name and the flags that made
// this process the parent (--matrix, --triage, --watchdog-probe, --driver-env-sweep,
// --all-drivers, --invert, --keep-logs, --format, --output and its value).
std::vector<std::string> baseChildArgs(const Options& options);

// A fresh folder $TMPDIR/repro-WHAT-XXXXXX (or /tmp) for the children's logs and reports.
// Throws UsageError when it cannot be created.
std::filesystem::path makeLogDir(const char* what);
// The end of a run of children: removes `dir` unless --keep-logs, else says where it is.
void finishLogDir(const Options& options, const std::filesystem::path& dir);

// How one child run went, from its exit and its JSON report.
struct ChildOutcome {
    ChildResult process;
    int status = -1;                           // the child's exit status, -1 if it did not exit
    bool report = false;                       // the JSON report was read
    std::vector<std::string> classifications;  // "multipass zero", per mode under test
    bool anyWrong = false;                     // a mode under test was wrong or hung
    std::string wrongMode;                     // the first wrong mode under test ("multipass")
    std::string reason;                        // of the first wrong mode, or the verdict's first line
    uint64_t validationMessages = 0;
    uint64_t hazards = 0;              // messages naming a SYNC-HAZARD
    std::optional<double> gpuSeconds;  // modes under test, --timestamps
    std::string memory;                // small[0] and big[0] memory types
    std::string verdictLine;           // the report's first verdict line, without "--- "
    std::string log;                   // path of the child's output
    nlohmann::json json;               // the whole report (null when not read)
};

// The time limit for one child, seconds: its modes' submit timeouts (conv-Ts scaled by
// `dispatchRepeat`), twice, plus 10 minutes for set-up and checking.
double childTimeLimit(const Options& options, bool cpu, uint32_t dispatchRepeat = 1);

// The executable every child runs: this binary (selfExecutable, core/subprocess.hpp), with
// argv[0] as given ("repro" without one) where /proc is not mounted.
std::string childExecutable(const Options& options);

// Runs `exe` with `args` (plus --output DIR/TAG.json) and `env` ("NAME=value") added to the
// environment, its output in DIR/TAG.log, for at most `limit` seconds; then reads its report.
ChildOutcome runOne(const std::string& exe, const std::vector<std::string>& args, const std::vector<std::string>& env,
                    const std::filesystem::path& dir, const std::string& tag, double limit);

// The queue's job timeout a child's report names (environment.job_watchdog.seconds),
// seconds; nullopt when none is known there (lavapipe, nvidia, nouveau, no DRM card) or
// it is disabled.
std::optional<double> reportedJobTimeout(const ChildOutcome& c);

// The result cell: what the modes under test were ("zero"; with `withModes` "multipass
// zero, single ok"), or why there is nothing ("crashed (signal 11)", "cannot test").
std::string resultText(const ChildOutcome& c, bool withModes = false);

// The --format markdown block (a heading from the summary's last line, the command, the
// device, the table and the summary lines) on stdout; nothing for other formats.
void printMarkdown(const char* what, const Options& o, const ProbedDevice& device,
                   const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                   const std::vector<std::string>& summary);

// "--- INTERRUPTED by SIGINT: ..." and 128 + the signal.
int interruptedExit();

// ---- The runs --------------------------------------------------------------------------

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
