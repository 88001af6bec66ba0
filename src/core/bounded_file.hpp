// Reading a file the user named (a scenario, a driver manifest) without trusting what it is:
// only a regular file is read, opened so that a FIFO cannot block the open (O_NONBLOCK) and
// checked with fstat before a byte is read, and only up to a size the caller bounds, so that
// /dev/zero or a huge file cannot fill memory (hostile-input probe R9).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace repro {

struct BoundedRead {
    std::string bytes;    // the whole file, when `problem` is empty
    std::string problem;  // why it was not read, "" when it was
    int error = 0;        // errno of the open, fstat or read that failed; 0 otherwise
    // The file's device and inode once fstat gave them, whatever the file is (a file given
    // again under another path has the same); nullopt when the open or fstat failed.
    std::optional<std::pair<dev_t, ino_t>> identity;
    bool directory = false;  // not read: a directory ("Is a directory")
    bool tooLarge = false;   // not read: more than maxBytes ("N bytes, more than ...")
    uint64_t size = 0;       // tooLarge: the N bytes found (fstat's size, or those read)
};

// Reads all of `path` (symbolic links followed) when it is a regular file of at most
// `maxBytes` bytes. `problem` then says why not, worded to follow "cannot read 'PATH'" in
// parentheses: strerror(errno) of the open or read that failed ("No such file or directory",
// "Too many levels of symbolic links", "Permission denied"), "Is a directory", "a FIFO, not
// a regular file" (a character device, a block device, a socket), or "N bytes, more than
// the M MiB allowed" (M = maxBytes in MiB, rounded down). An empty file is read (0 bytes):
// the caller says what that means. Never blocks on a FIFO; throws only std::bad_alloc.
BoundedRead readRegularFile(const std::string& path, uint64_t maxBytes);

}  // namespace repro
