// Bounded reads of regular files (see bounded_file.hpp).
#include "core/bounded_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace repro {
namespace {

// What a file that is not a regular file is, for "a FIFO, not a regular file".
const char* kindOf(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a plain file";
}

}  // namespace

BoundedRead readRegularFile(const std::string& path, uint64_t maxBytes) {
    const auto tooLarge = [maxBytes](BoundedRead& out, uint64_t size) {
        out.tooLarge = true;
        out.size = size;
        out.problem = fmt::format("{} bytes, more than the {} MiB allowed", size, maxBytes >> 20);
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        const int error = errno;
        return {.problem = std::strerror(error), .error = error};
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        const int error = errno;
        ::close(fd);
        return {.problem = std::strerror(error), .error = error};
    }
    BoundedRead out{.identity = std::pair{info.st_dev, info.st_ino}};
    if (!S_ISREG(info.st_mode)) {
        ::close(fd);
        out.directory = S_ISDIR(info.st_mode);
        out.problem =
            out.directory ? std::strerror(EISDIR) : fmt::format("{}, not a regular file", kindOf(info.st_mode));
        return out;
    }
    if (static_cast<uint64_t>(info.st_size) > maxBytes) {
        ::close(fd);
        tooLarge(out, static_cast<uint64_t>(info.st_size));
        return out;
    }
    out.bytes.resize(static_cast<size_t>(info.st_size));
    size_t got = 0;
    for (;;) {
        if (got == out.bytes.size()) {  // at the size fstat gave: one more read sees the end (or growth)
            if (got > maxBytes) break;
            out.bytes.resize(got + 4096);
        }
        const ssize_t n = ::read(fd, out.bytes.data() + got, out.bytes.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            out.error = errno;
            ::close(fd);
            out.bytes.clear();
            out.problem = std::strerror(out.error);
            return out;
        }
        if (n == 0) break;
        got += static_cast<size_t>(n);
    }
    ::close(fd);
    out.bytes.resize(got > maxBytes ? 0 : got);
    if (got > maxBytes) tooLarge(out, got);
    return out;
}

}  // namespace repro
