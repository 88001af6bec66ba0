// Atomic document writes (see atomic_file.hpp).
#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/output.hpp"
#include "core/text.hpp"

namespace repro {
namespace {

// The reason of the last failed call: strerror(errno).
std::string lastError() { return std::strerror(errno); }

// Writes all of `contents` to `fd`; false with errno set when a write fails.
bool writeAll(int fd, std::string_view contents) {
    while (!contents.empty()) {
        const ssize_t n = ::write(fd, contents.data(), contents.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        contents.remove_prefix(static_cast<size_t>(n));
    }
    return true;
}

// Into an existing file that is not a regular file (a device, a FIFO): no rename possible.
std::optional<std::string> writeInPlace(const std::string& path, std::string_view contents) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return lastError();
    const bool written = writeAll(fd, contents);
    const std::string why = written ? std::string() : lastError();
    if (::close(fd) != 0 && written) return lastError();
    if (!written) return why;
    return std::nullopt;
}

// The mode the finished file gets: the replaced file's, else 0666 less the umask.
mode_t finalMode(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return st.st_mode & 07777;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

// Writes, syncs and closes the temporary file `fd`; the reason when a step fails.
std::optional<std::string> finishTemporary(int fd, std::string_view contents, mode_t mode) {
    const bool ok = writeAll(fd, contents) && ::fchmod(fd, mode) == 0 && ::fsync(fd) == 0;
    const std::string why = ok ? std::string() : lastError();
    if (::close(fd) != 0 && ok) return lastError();
    if (!ok) return why;
    return std::nullopt;
}

}  // namespace

std::optional<std::string> writeFileAtomically(const std::string& path, std::string_view contents) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path target(path);
    if (fs::is_symlink(target, ec)) {
        const fs::path resolved = fs::canonical(target, ec);
        if (!ec) target = resolved;
    }
    const fs::file_status st = fs::status(target, ec);
    if (fs::exists(st) && !fs::is_regular_file(st)) return writeInPlace(target.string(), contents);
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string temporary = (folder / ("." + target.filename().string() + ".XXXXXX")).string();
    const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
    if (fd < 0) return lastError();
    std::optional<std::string> why = finishTemporary(fd, contents, finalMode(target.string()));
    if (!why && ::rename(temporary.c_str(), target.c_str()) != 0) why = lastError();
    if (why) ::unlink(temporary.c_str());
    return why;
}

bool writeDocumentFile(std::string_view option, const std::string& what, const std::string& path,
                       std::string_view contents) {
    const std::optional<std::string> why = writeFileAtomically(path, contents);
    if (why) sayError("repro: {}: cannot write {} to {} ({})", option, what, quote(path), *why);
    return !why;
}

}  // namespace repro
