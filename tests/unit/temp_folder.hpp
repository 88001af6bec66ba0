// A fresh folder under the system's temporary directory for a unit test that needs real
// files (manifests, output paths), removed with its contents when the object goes.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace repro::test {

class TempFolder {
  public:
    // `tag` names the folder: repro-TAG-XXXXXX. path() is empty when mkdtemp fails.
    explicit TempFolder(const std::string& tag) {
        std::string pattern = (std::filesystem::temp_directory_path() / ("repro-" + tag + "-XXXXXX")).string();
        if (::mkdtemp(pattern.data())) path_ = pattern;
    }
    ~TempFolder() {
        std::error_code ec;
        if (!path_.empty()) std::filesystem::remove_all(path_, ec);
    }
    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;

    const std::filesystem::path& path() const { return path_; }

    // Writes `text` to the file `name` in the folder; returns its path.
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(path_ / name) << text;
        return (path_ / name).string();
    }

  private:
    std::filesystem::path path_;
};

}  // namespace repro::test
