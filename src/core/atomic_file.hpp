// Writing a document to a file so that a failure (a full filesystem, a quota, an I/O
// error) leaves no truncated file: the text goes to a temporary file in the same folder,
// which is renamed over the destination once it is complete and synced (rename(2) replaces
// it atomically), and removed when any step fails. Used by every document writer: the
// -o/--output and --json documents, the triage and watchdog-probe documents, the device list.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace repro {

// Writes `contents` to `path`: through a temporary file (temporaryPattern) and a rename when
// `path` is absent or a regular file (a symbolic link is followed: the file it names is
// replaced), straight into it when it exists and is something else (/dev/full, /dev/stdout, a FIFO),
// which cannot be replaced. A new file gets mode 0666 less the umask, a replaced one keeps
// its mode. Returns strerror(errno) of the step that failed, nothing on success; never
// throws, never leaves the temporary file behind.
std::optional<std::string> writeFileAtomically(const std::string& path, std::string_view contents);

// The mkstemp(3) pattern of the temporary file beside `path` (the file written: a symbolic
// link already followed): "<folder>/.<name>.XXXXXX", the name cut at its end so that the whole fits the
// folder's NAME_MAX (pathconf, 255 on Linux's file systems): a name of up to NAME_MAX bytes,
// valid for `path` itself, gives a valid temporary name too (hostile-input probe R12: names
// of 248-255 bytes lost their document after the run). Pure but for pathconf.
std::string temporaryPattern(const std::string& path);

// What writeFileAtomically(path, ...) would need, tried before any work: where it writes in
// place (an existing device or FIFO), opening it for writing (O_NONBLOCK: a FIFO without a
// reader does not block); else creating, then removing, the very temporary file it would
// write and rename (the same pattern, the same folder: a folder where no new file can be
// made, read-only or immutable, fails here). strerror(errno) of the step that failed, or
// nothing. Whether the rename itself would succeed is not tried (it would replace the file).
std::optional<std::string> atomicWriteProblem(const std::string& path);

// writeFileAtomically, saying on failure one line on stderr: "repro: OPTION: cannot write
// WHAT to 'PATH' (REASON)" (`option`: "-o/--output" or "--json"; `what`: "the JSON report").
// Whether it was written.
bool writeDocumentFile(std::string_view option, const std::string& what, const std::string& path,
                       std::string_view contents);

}  // namespace repro
