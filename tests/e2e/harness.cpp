// The shared end-to-end harness (see harness.hpp).
#include "harness.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

#if !defined(REPRO_EXECUTABLE) || !defined(REPRO_FAULTY_EXECUTABLE)
#error "REPRO_EXECUTABLE and REPRO_FAULTY_EXECUTABLE must name the built binaries"
#endif

namespace repro::test {

ProcessResult runRepro(const std::vector<std::string>& args, const std::vector<std::string>& env, double limitSeconds) {
    return runProcess(REPRO_EXECUTABLE, args, env, limitSeconds);
}

ProcessResult runFaulty(const std::vector<std::string>& args, const std::vector<std::string>& env,
                        double limitSeconds) {
    return runProcess(REPRO_FAULTY_EXECUTABLE, args, env, limitSeconds);
}

TempDir::TempDir(const std::string& tag) {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("repro-test-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::string readText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool onLavapipe() {
    static const bool lavapipe = [] {
        const ProcessResult r = runRepro({"--list-devices"}, {}, 60);
        // The first usable device is the one repro takes (blade's rule).
        for (const std::string& line : lines(r.out)) {
            if (line.find(" usable") == std::string::npos || line.find("NOT usable") != std::string::npos) continue;
            return line.find("llvmpipe") != std::string::npos;
        }
        return false;
    }();
    return lavapipe;
}

}  // namespace repro::test
