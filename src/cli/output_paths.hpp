// The paths a run writes to, checked before any GPU work: -o/--output, --json, --dump-dir, and the
// temporary folder (TMPDIR) where --matrix, --triage, --driver-env-sweep and
// --watchdog-probe keep their children's logs. A path that cannot be written is a usage
// error (exit 1) at once, not a lost report after a long run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "cli/options.hpp"

namespace repro {

// Whether a file can be written at `path`: opens it for writing (creating it when absent,
// then removing what it created; never truncating an existing file). Returns the reason,
// strerror(errno), when it cannot; nothing when it can.
std::optional<std::string> fileWriteProblem(const std::string& path);

// Whether `dir` can hold new files: creates it (and its parents) when absent, then creates
// and removes a file in it. Returns strerror(errno) (or "not a directory") when it cannot.
std::optional<std::string> directoryWriteProblem(const std::string& dir);

// The folder children's logs go in: $TMPDIR when set and not empty, else /tmp (as
// mkdtemp(3) callers in src/children/experiments.cpp choose it).
std::string childLogRoot();

// The children's log folder of a --matrix, --triage, --driver-env-sweep or --watchdog-probe
// run, for a run that ends early: an interrupt (SIGINT/SIGTERM/SIGHUP) or an exception.
// When it goes out of scope after the run ended early (an interrupt, or an exception on its
// way out), the folder, if it is still there, is removed, or with --keep-logs kept and
// named on the text report ("  logs and reports kept in DIR (--keep-logs)"). After a normal
// end it does nothing: finishLogDir has removed the folder, or kept it and said why.
class ChildLogFolder {
  public:
    ChildLogFolder(const Options& options, std::filesystem::path dir);
    ~ChildLogFolder();
    ChildLogFolder(const ChildLogFolder&) = delete;
    ChildLogFolder& operator=(const ChildLogFolder&) = delete;

  private:
    bool keep_;
    std::filesystem::path dir_;
    int exceptions_;  // std::uncaught_exceptions() when made
};

// A --format document (Markdown or JSON) where it goes: to -o FILE when given (whole or
// not at all, atomic_file.hpp), else on stdout. False when the file could not be written
// (one line on stderr says why); a failed stdout write is writeFailed()'s (output.hpp).
bool emitFormatDocument(const Options& options, const std::string& what, std::string_view document);

// The JSON document to --json FILE, whole or not at all; true when written or not asked for.
bool emitJsonFile(const Options& options, const std::string& what, std::string_view json);

// -o FILE with --format text: the text report (capturedText(), output.hpp) to FILE; true
// when written or not asked for.
bool emitTextFile(const Options& options);

// The first unwritable path among those `options` writes to, as the one line to print
// ("--output: cannot write 'PATH' (REASON)"); nothing when all can be written. TMPDIR is
// checked only for the options that start child processes.
std::optional<std::string> outputPathProblem(const Options& options);

}  // namespace repro
