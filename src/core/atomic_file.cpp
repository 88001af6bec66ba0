// Atomic document writes (see atomic_file.hpp).
#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
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

// The mode the finished file gets: the replaced file's, else 0666 less the umask.
mode_t finalMode(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return st.st_mode & 07777;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

// Writes `contents` to `fd` and closes it; a temporary file (`mode` given) gets that mode and
// is synced before it is closed. The reason when a step fails.
std::optional<std::string> writeAndClose(int fd, std::string_view contents, std::optional<mode_t> mode) {
    const bool ok = writeAll(fd, contents) && (!mode || (::fchmod(fd, *mode) == 0 && ::fsync(fd) == 0));
    const std::string why = ok ? std::string() : lastError();
    if (::close(fd) != 0 && ok) return lastError();
    if (!ok) return why;
    return std::nullopt;
}

// The file a write to `path` lands on: a symbolic link is followed (the file it names is
// replaced, the link stays).
std::filesystem::path writeTarget(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path target(path);
    if (fs::is_symlink(target, ec)) {
        const fs::path resolved = fs::canonical(target, ec);
        if (!ec) target = resolved;
    }
    return target;
}

// Whether `target` exists and is something a rename cannot replace (a device, a FIFO).
bool writtenInPlace(const std::filesystem::path& target) {
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::status(target, ec);
    return std::filesystem::exists(st) && !std::filesystem::is_regular_file(st);
}

// Creates the temporary file of a write to `target` (temporaryPattern), open for writing;
// -1 with errno set when it cannot, `name` then unchanged in meaning.
int makeTemporary(const std::filesystem::path& target, std::string& name) {
    name = temporaryPattern(target.string());
    return ::mkostemp(name.data(), O_CLOEXEC);
}

}  // namespace

std::string temporaryPattern(const std::string& path) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const long most = ::pathconf(folder.c_str(), _PC_NAME_MAX);
    const size_t nameMax = most > 0 ? static_cast<size_t>(most) : NAME_MAX;
    constexpr size_t kAdded = std::string_view(".").size() + std::string_view(".XXXXXX").size();
    std::string name = target.filename().string();
    if (name.size() + kAdded > nameMax) name.resize(nameMax > kAdded ? nameMax - kAdded : 0);
    return (folder / ("." + name + ".XXXXXX")).string();
}

std::optional<std::string> atomicWriteProblem(const std::string& path) {
    const std::filesystem::path target = writeTarget(path);
    if (writtenInPlace(target)) {
        const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) return lastError();
        ::close(fd);
        return std::nullopt;
    }
    std::string temporary;
    const int fd = makeTemporary(target, temporary);
    if (fd < 0) return lastError();
    ::close(fd);
    ::unlink(temporary.c_str());
    return std::nullopt;
}

std::optional<std::string> writeFileAtomically(const std::string& path, std::string_view contents) {
    const std::filesystem::path target = writeTarget(path);
    if (writtenInPlace(target)) {  // a device or a FIFO: written into, no rename possible
        const int fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
        return fd < 0 ? std::optional(lastError()) : writeAndClose(fd, contents, std::nullopt);
    }
    std::string temporary;
    const int fd = makeTemporary(target, temporary);
    if (fd < 0) return lastError();
    std::optional<std::string> why = writeAndClose(fd, contents, finalMode(target.string()));
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
