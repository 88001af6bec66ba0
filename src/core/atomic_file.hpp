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

// Writes `contents` to `path`: through "<folder>/.<name>.XXXXXX" and rename when `path` is
// absent or a regular file (a symbolic link is followed: the file it names is replaced),
// straight into it when it exists and is something else (/dev/full, /dev/stdout, a FIFO),
// which cannot be replaced. A new file gets mode 0666 less the umask, a replaced one keeps
// its mode. Returns strerror(errno) of the step that failed, nothing on success; never
// throws, never leaves the temporary file behind.
std::optional<std::string> writeFileAtomically(const std::string& path, std::string_view contents);

// writeFileAtomically, saying on failure one line on stderr: "repro: OPTION: cannot write
// WHAT to 'PATH' (REASON)" (`option`: "-o/--output" or "--json"; `what`: "the JSON report").
// Whether it was written.
bool writeDocumentFile(std::string_view option, const std::string& what, const std::string& path,
                       std::string_view contents);

}  // namespace repro
