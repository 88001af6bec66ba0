// Checking the run's output paths before any work (see output_paths.hpp).
#include "cli/output_paths.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/atomic_file.hpp"
#include "core/output.hpp"
#include "core/text.hpp"

namespace repro {

std::optional<std::string> fileWriteProblem(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {  // it did not exist: remove what this check made
        ::close(fd);
        ::unlink(path.c_str());
    } else if (errno != EEXIST) {
        return std::string(std::strerror(errno));
    } else {
        const int existing = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
        if (existing < 0) return std::string(std::strerror(errno));
        ::close(existing);
    }
    return atomicWriteProblem(path);  // the temporary file the write goes through
}

std::optional<std::string> directoryWriteProblem(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return ec.message();
    if (!std::filesystem::is_directory(dir, ec)) return std::string("not a directory");
    std::string probe = dir + "/.repro-write-check-XXXXXX";
    const int fd = ::mkstemp(probe.data());
    if (fd < 0) return std::string(std::strerror(errno));
    ::close(fd);
    ::unlink(probe.c_str());
    return std::nullopt;
}

namespace {

// The files the run writes, each with the option that names it, in this order: -o, --json,
// --trace, --capture-gfxr (those given).
std::vector<std::pair<const char*, std::string>> outputFiles(const Options& o) {
    std::vector<std::pair<const char*, std::string>> out;
    for (const auto& [option, path] : {std::pair{"-o/--output", o.output}, std::pair{"--json", o.json},
                                       std::pair{"--trace", o.trace}, std::pair{"--capture-gfxr", o.captureGfxr}}) {
        if (path) out.emplace_back(option, *path);
    }
    return out;
}

// What a path names, for outputCollision: an existing regular file by device and inode, a
// path that does not exist by its absolute form with its folder's links resolved; nothing
// for a file written in place (a device, a FIFO) or a path that cannot be looked up.
struct FileKey {
    dev_t device = 0;
    ino_t inode = 0;
    std::string absent;
    bool operator==(const FileKey&) const = default;
};
std::optional<FileKey> fileKey(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (!S_ISREG(st.st_mode)) return std::nullopt;
        return FileKey{.device = st.st_dev, .inode = st.st_ino};
    }
    if (errno != ENOENT) return std::nullopt;
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    if (ec) return std::nullopt;
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(absolute, ec);
    if (ec) return std::nullopt;
    return FileKey{.absent = resolved.string()};
}

}  // namespace

std::vector<InputFile> commandLineInputs(const Options& o) {
    std::vector<InputFile> out;
    if (o.scenario) out.push_back({.what = "the --scenario file", .path = *o.scenario});
    if (o.spirvDir) {
        for (const char* module : {"conv_t.spv", "slice.spv"}) {
            out.push_back(
                {.what = "the --spirv module", .path = (std::filesystem::path(*o.spirvDir) / module).string()});
        }
    }
    return out;
}

std::optional<std::string> outputCollision(const Options& o, const std::vector<InputFile>& inputs) {
    struct Output {
        const char* option;
        std::string path;
        FileKey key;
    };
    std::vector<Output> outputs;
    for (const auto& [option, path] : outputFiles(o)) {
        if (const auto key = fileKey(path)) outputs.push_back({option, path, *key});
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
        for (size_t j = i + 1; j < outputs.size(); ++j) {
            if (outputs[i].key == outputs[j].key)
                return fmt::format(
                    "{} {} and {} {} name the same file, so one document would replace the other; "
                    "expected a file of its own for each",
                    outputs[i].option, quote(outputs[i].path), outputs[j].option, quote(outputs[j].path));
        }
    }
    for (const InputFile& input : inputs) {
        const auto key = fileKey(input.path);
        if (!key) continue;
        for (const Output& out : outputs) {
            if (out.key == *key)
                return fmt::format(
                    "{} {} is {} {}, which the document would replace; expected another path for "
                    "the document",
                    out.option, quote(out.path), input.what, quote(input.path));
        }
    }
    return std::nullopt;
}

std::string childLogRoot() {
    const char* tmp = std::getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

bool emitFormatDocument(const Options& o, const std::string& what, std::string_view document) {
    if (!o.output) {
        writeText(stdout, document);
        return true;
    }
    return writeDocumentFile("-o/--output", what, *o.output, document);
}

bool emitJsonFile(const Options& o, const std::string& what, std::string_view json) {
    return !o.json || writeDocumentFile("--json", what, *o.json, json);
}

bool emitTextFile(const Options& o) {
    if (!o.output || o.format != Format::Text) return true;
    return writeDocumentFile("-o/--output", "the text report", *o.output, capturedText());
}

std::optional<std::string> outputPathProblem(const Options& o) {
    for (const auto& [option, path] : outputFiles(o)) {
        if (auto why = fileWriteProblem(path))
            return fmt::format("{}: cannot write {} ({})", option, quote(path), *why);
    }
    if (o.dumpDir) {
        if (auto why = directoryWriteProblem(*o.dumpDir))
            return fmt::format("--dump-dir: cannot use {} as a directory ({})", quote(*o.dumpDir), *why);
    }
    // A scenario's --matrix runs in one process: no children's logs.
    if ((o.matrix && !o.scenario) || o.triage || o.driverEnvSweep || o.watchdogProbe) {
        const std::string root = childLogRoot();
        std::string probe = root + "/repro-check-XXXXXX";
        if (!::mkdtemp(probe.data())) {
            return fmt::format("TMPDIR: cannot create the children's log folder in {} ({})", quote(root),
                               std::strerror(errno));
        }
        ::rmdir(probe.c_str());
    }
    return std::nullopt;
}

}  // namespace repro
