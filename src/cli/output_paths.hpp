// The paths a run writes to, checked before any GPU work: -o/--output, --json, --dump-dir, and the
// temporary folder (TMPDIR) where --matrix, --triage, --driver-env-sweep and
// --watchdog-probe keep their children's logs. A path that cannot be written is a usage
// error (exit 1) at once, not a lost report after a long run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"

namespace repro {

// Whether a document can be written at `path` as writeFileAtomically writes it: opens it for
// writing (creating it when absent, then removing what it created; never truncating an
// existing file), then creates and removes the very temporary file the write goes through
// (atomicWriteProblem, core/atomic_file.hpp), so that a folder where no new file can be made
// fails here and not after the run. Returns the reason, strerror(errno), when it cannot;
// nothing when it can.
std::optional<std::string> fileWriteProblem(const std::string& path);

// Whether `dir` can hold new files: creates it (and its parents) when absent, then creates
// and removes a file in it. Returns strerror(errno) (or "not a directory") when it cannot.
std::optional<std::string> directoryWriteProblem(const std::string& dir);

// A file the run reads, for outputCollision: how a message names it ("the --scenario file",
// "kernel 'mix''s module", "the --spirv module") and its path as given or as opened.
struct InputFile {
    std::string what;
    std::string path;
};

// The inputs known from the options alone: the --scenario file, and --spirv DIR's
// conv_t.spv and slice.spv. A scenario's [[kernel]] modules are known once the file is
// parsed (scenario::UserKernel::spirv): outputCollision is then called again with them.
std::vector<InputFile> commandLineInputs(const Options& options);

// Whether two of the documents `options` writes (-o/--output, --json, --trace) name one file,
// or one of them names a file of `inputs`: one document would then replace the other, or the
// input (a scenario file replaced by its own report) without a word (hostile-input probe
// R11). Returns the one line naming both, "--json 'r.json' and --trace 'r.json' name the same
// file, ..." or "-o/--output 'x.toml' is the --scenario file 'x.toml', ...", for exit 1;
// nothing when each output is a file of its own. Two paths name one file when they resolve to
// one existing regular file (a symbolic or hard link, "./r.json" and "r.json": the same
// device and inode), or, for a path that does not exist yet, to the same absolute path with
// its folder's links resolved. An output that exists and is not a regular file (/dev/null,
// /dev/stdout, a FIFO) is written in place and collides with nothing; so does a path that
// cannot be looked up (fileWriteProblem says why). --dump-dir is a folder and is not compared.
// Reads file metadata only and writes nothing, so it may be called at any point before the
// first document is written, as often as new inputs are known: before the run with
// commandLineInputs (src/main.cpp), and again once a scenario is parsed, with its kernels'
// modules added.
std::optional<std::string> outputCollision(const Options& options, const std::vector<InputFile>& inputs);

// The folder children's logs go in: $TMPDIR when set and not empty, else /tmp
// (children/experiments.hpp makeLogDir makes them there).
std::string childLogRoot();

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
