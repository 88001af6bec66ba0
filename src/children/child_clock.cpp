// The watched clock (child_clock.hpp).
#include "children/child_clock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace repro {

double WatchedClock::sample(double wallSeconds, bool childStopped) {
    if (lastWall_ && !childStopped && !lastStopped_) {
        watched_ += std::clamp(wallSeconds - *lastWall_, 0.0, kMaxWatchedStepSeconds);
    }
    lastWall_ = wallSeconds;
    lastStopped_ = childStopped;
    return watched_;
}

std::optional<char> processStateOf(std::string_view statLine) {
    const size_t paren = statLine.rfind(')');
    if (paren == std::string_view::npos) return std::nullopt;
    const size_t state = statLine.find_first_not_of(' ', paren + 1);
    if (state == std::string_view::npos) return std::nullopt;
    return statLine[state];
}

bool processStopped(pid_t pid) {
    const std::string path = "/proc/" + std::to_string(pid) + "/stat";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buffer[1024];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    ::close(fd);
    if (n <= 0) return false;
    const auto state = processStateOf(std::string_view(buffer, static_cast<size_t>(n)));
    return state == 'T' || state == 't';
}

}  // namespace repro
