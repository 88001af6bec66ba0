// What the Vulkan loader says about itself while repro creates the instance and the device
// (its "Loader Message"s, received through VK_EXT_debug_utils messengers without any
// VK_LOADER_DEBUG setting): which driver manifests it found, which driver library the
// device runs on, and why a driver failed to load. Vulkan-free; the messages are plain text.
// The forms read here are the Khronos loader's (KhronosGroup/Vulkan-Loader, loader.c and
// loader_linux.c, 1.3.2xx): `Found ICD manifest file <path>, version "<v>"`, `Searching for
// ICD drivers named <library>`, `Using "<device>" with driver: "<library>"`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace repro {

struct LoaderMessage {
    enum class Severity { Verbose, Info, Warning, Error };
    Severity severity = Severity::Info;
    std::string text;
};

// The driver library the loader says the device runs on (the last `Using ... with driver`
// line), or nothing.
std::optional<std::string> driverLibraryInUse(const std::vector<LoaderMessage>& log);

// The manifest that named `library` (`Found ICD manifest file` followed by `Searching for
// ICD drivers named <library>`), or nothing.
std::optional<std::string> manifestOf(const std::vector<LoaderMessage>& log, std::string_view library);

// The distinct libraries the loader searched for (one per driver manifest it read).
std::vector<std::string> driverLibraries(const std::vector<LoaderMessage>& log);

// The errors, in order, each once: the loader's own words for a driver that failed to
// load, a manifest it could not read, a missing file. (Its warnings are notes such as
// "env var 'VK_INSTANCE_LAYERS' defined and adding layers ...", not problems.)
std::vector<std::string> loaderProblems(const std::vector<LoaderMessage>& log);

// Why the loader would load no driver from its driver-list variables, as one line naming
// the variable; nothing when they are unset or name existing files. `driverFiles` and
// `icdFilenames` are the values of VK_DRIVER_FILES and VK_ICD_FILENAMES (null: unset). The
// loader reads VK_DRIVER_FILES when it is set, even to "" (then it loads no driver), and
// VK_ICD_FILENAMES only otherwise (Vulkan-Loader docs/LoaderInterfaceArchitecture.md,
// "Table of Debug Environment Variables"; loader.c, loader_icd_scan, 1.3.239).
std::optional<std::string> driverVariableProblem(const char* driverFiles, const char* icdFilenames);

// Whether `expected` (--expect-driver) names `library`: a case-insensitive part of its path,
// or a path to the same file.
bool libraryMatches(std::string_view expected, std::string_view library);

// The largest driver manifest read: 16 MiB (a manifest is a few hundred bytes).
inline constexpr uint64_t kMaxManifestBytes = uint64_t{16} << 20;

// The driver manifests (*.json) the loader would read that are not valid JSON, each as
// "'PATH' is not valid JSON (REASON)", or that cannot be read, "'PATH' cannot be read
// (REASON)": not a regular file ("a FIFO, not a regular file", "a character device, not a
// regular file": such an entry is never opened in a way that blocks, nor read whole),
// larger than kMaxManifestBytes, or unreadable (errno's text). `searchPath`: the VK_DRIVER_FILES or
// VK_ICD_FILENAMES value in use (':'-separated files or folders), or the loader's default
// folders when empty. Loader 1.3.239 reports such a file only as
// VK_ERROR_OUT_OF_HOST_MEMORY ("loader_get_json: Failed to parse JSON file ..., this is
// usually because something ran out of memory"; loader.c, loader_get_json).
std::vector<std::string> unreadableDriverManifests(std::string_view searchPath);

// The loader's default driver-manifest folders on Linux, in its order: XDG_CONFIG_DIRS
// (default /etc/xdg), SYSCONFDIR (/etc), XDG_DATA_HOME's parent folders and XDG_DATA_DIRS
// (default /usr/local/share:/usr/share), each with vulkan/icd.d appended
// (Vulkan-Loader docs/LoaderDriverInterface.md, "Driver Discovery on Linux").
std::string defaultDriverManifestPath();

}  // namespace repro
