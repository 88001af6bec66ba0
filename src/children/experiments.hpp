// --matrix and --driver-env-sweep: many runs of repro itself, each in a child process with
// its own device (children/child_run.hpp), read back through their JSON reports
// (docs/report-schema.md); and what every parent of children shares (--triage and
// --watchdog-probe too, children/triage_run.hpp).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "children/child_run.hpp"
#include "cli/options.hpp"
#include "scenario/plan.hpp"

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

// A fresh folder $TMPDIR/repro-WHAT-XXXXXX (or /tmp) for the children's logs and reports.
// Throws UsageError when it cannot be created.
std::filesystem::path makeLogDir(const char* what);
// The children's log folder of a --matrix, --triage, --driver-env-sweep or --watchdog-probe
// run: when it goes out of scope after the run ended early (an interrupt, SIGINT/SIGTERM/SIGHUP,
// or an exception on its way out), the folder, if it is still there, is removed, or with
// --keep-logs kept and named on the text report ("  logs and reports kept in DIR (--keep-logs)").
// After a normal end it does nothing: finishLogDir has removed the folder, or kept it and said why.
class ChildLogFolder {
  public:
    ChildLogFolder(const Options& options, std::filesystem::path dir);
    ~ChildLogFolder();
    ChildLogFolder(const ChildLogFolder&) = delete;
    ChildLogFolder& operator=(const ChildLogFolder&) = delete;

  private:
    const Options& options_;
    std::filesystem::path dir_;
    int exceptions_;  // std::uncaught_exceptions() when made
};

// The end of a run of children: removes `dir` unless --keep-logs or `keepWhy` (a clause
// saying why a log matters, "the baseline gave no result; its log is F"), else says where
// it is and why.
void finishLogDir(const Options& options, const std::filesystem::path& dir, const std::string& keepWhy = {});

// The first lines of a parent of children: "repro V (git H): RAN" (what runs: "--matrix at
// N=6, ..."), the device, and the folder of the children's logs and reports, `dirNote` after it.
void printChildrenHeader(const std::string& ran, const ProbedDevice& device, const std::filesystem::path& dir,
                         const std::string& dirNote = {});

// The time limit for one child, seconds: its modes' submit timeouts (the built-in chain's
// conv-Ts, a file's work steps' budgets: scenario/submit_budget.hpp), scaled by `scale`
// (--dispatch-repeat, --work-scale), twice, plus 10 minutes for set-up and checking.
double childTimeLimit(const Options& options, const Plan& plan, bool cpu, uint32_t scale = 1);

// What the children run, for their parent's first line: "at N=6, preset spectrostream (batch
// 1 x ...)", or "on scenario 'name' (FILE)".
std::string planLine(const Options& options, const Plan& plan);

// The work items of the plan (the built-in chain's 2N dispatches, a file's dispatches and
// transfers): what --submit-every cuts.
size_t planWorkItems(const Options& options, const Plan& plan);

// The options a child with `factors` runs with, as far as a file's plan depends on them
// (--barrier, --memory, --work-scale, the submit structure): for the check that its file
// takes them.
Options withFactors(const Options& options, const RunFactors& factors);
// Why makePlan (scenario/plan.hpp) refuses the options with `factors` (a memory placement
// that moves no buffer, --work-scale where no dispatch has a work loop, a submit structure
// on a file with queues): its UsageError's words, or "" when it takes them.
std::string planRefusal(const Options& options, const RunFactors& factors);
// Whether a file has a barrier step (what a --barrier row or experiment replaces).
bool hasBarrierStep(const scenario::Scenario& s);

// The status after a document that could not be written: 1 (kExitUsage) unless `status`
// says more (a reproduction, a hang, an interrupt).
int documentStatus(int status);

// What a parent's Markdown document says besides its table: what ran (the Description's
// first sentences), the RADV_DEBUG=llvm answer when an experiment gave one, and whether the
// run hung (the hang note under Log files).
struct ChildrenStory {
    std::string ran;
    std::optional<std::string> llvmAnswer;
    bool hang = false;
};

// The --format markdown document, in RADV's issue template (report/issue_markdown.hpp): a
// heading from the summary's last line, Description (`story`'s words and the verdict),
// System information (the device, the host), Steps to reproduce (the source, the build,
// the command), Results (the table and the summary lines), the RADV_DEBUG=llvm answer,
// Regression and Log files; on stdout or in the -o file; nothing for other formats. False
// when the -o file could not be written (one line on stderr said why).
bool printMarkdown(const char* what, const Options& o, const ProbedDevice& device,
                   const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                   const std::vector<std::string>& summary, const ChildrenStory& story = {});

// "--- INTERRUPTED by SIGINT: ..." and 128 + the signal.
int interruptedExit();
// What ran before the interrupt: "interrupted by SIGINT after 3 rows" (`noun` "row", with an
// "s" for any count but 1).
std::string interruptedAfter(size_t count, std::string_view noun);

// ---- The runs --------------------------------------------------------------------------

// Runs every variant of matrixVariants() at the options' N, shape and device (a file: every
// variant of fileMatrixVariants() that applies to it), prints one row per variant as it
// finishes and a verdict. Exit status over the valid variants (the controls never count):
// docs/experiments.md "--matrix"; 130/143 when interrupted.
int runMatrix(const Options& options, const Plan& plan);

// Runs the user's command once without and once under each driver setting of
// driverSettingsFor(device's driver, --all-drivers) and says which make a reproducing run
// stop reproducing. Exit status: the run without a setting's (the driver as it is).
int runDriverEnvSweep(const Options& options, const Plan& plan);

}  // namespace repro
