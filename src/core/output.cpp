// Checked writes to the standard streams (see output.hpp).
#include "core/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "core/exit_status.hpp"

namespace repro {

namespace {

bool gClearStdout = false;  // clearProgressBeforeWrites: stdout / stderr is a terminal
bool gClearStderr = false;
bool gFailed = false;
std::string gFailedStream;
bool gCapture = false;
void (*gTap)(std::string_view) = nullptr;

}  // namespace

void clearProgressBeforeWrites(bool on) {
    gClearStdout = on && ::isatty(STDOUT_FILENO) == 1;
    gClearStderr = on && ::isatty(STDERR_FILENO) == 1;
}

FILE*& textStream() {
    static FILE* stream = stdout;
    return stream;
}

void captureText() { gCapture = true; }

std::string& capturedText() {
    static std::string text;
    return text;
}

void setTextTap(void (*tap)(std::string_view text)) { gTap = tap; }

bool writeText(FILE* stream, std::string_view text) {
    if (gCapture && stream == textStream()) {
        capturedText().append(text);
        if (gTap) gTap(text);
    }
    std::string cleared;
    if ((stream == stdout && gClearStdout) || (stream == stderr && gClearStderr)) {
        cleared = "\r\x1b[K" + std::string(text);  // one write: no redraw between
        text = cleared;
    }
    const size_t written = std::fwrite(text.data(), 1, text.size(), stream);
    const bool ok = written == text.size() && std::fflush(stream) == 0 && !std::ferror(stream);
    if (!ok && !gFailed) {
        gFailed = true;
        gFailedStream = stream == stdout ? "stdout" : stream == stderr ? "stderr" : "a stream";
    }
    if (!ok) std::clearerr(stream);
    return ok;
}

bool writeFailed() { return gFailed; }

std::string failedStream() { return gFailedStream; }

int statusAfterWrites(int status) {
    if (!gFailed) return status;
    writeText(stderr, "repro: the report could not be written to " + gFailedStream + "\n");
    return status == kExitNotReproduced ? kExitUsage : status;
}

void ensureStandardStreams() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        const int opened = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (opened >= 0 && opened != fd) {
            dup2(opened, fd);
            close(opened);
        }
    }
}

}  // namespace repro
