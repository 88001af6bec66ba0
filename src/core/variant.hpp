// The workaround and hypothesis dimensions of a run: which instruction orders
// one dispatch after another, how the chain is cut into submits, where the chain's
// buffers live, and how closely blade's own set-up is followed, and the driver settings
// the sweep tries (with a check that the installed driver knows their names); the --matrix
// set built from them is children/run_factors.hpp's. Vulkan-free: the Vulkan calls each value
// stands for are in vk/barriers.hpp, vk/stream_plan.cpp and vk/memory.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace repro {

// --barrier: what every dependency between two dispatches of one command buffer is.
enum class BarrierKind {
    Blade,          // blade's own: G before every dispatch (multipass), C between (single)
    Sync2,          // vkCmdPipelineBarrier2, COMPUTE_SHADER, SHADER_STORAGE_WRITE ->
                    // SHADER_STORAGE_READ|SHADER_STORAGE_WRITE (VkMemoryBarrier2)
    Buffer,         // VkBufferMemoryBarrier on exactly the buffer the dispatch before wrote,
                    // COMPUTE_SHADER, SHADER_WRITE -> SHADER_READ|SHADER_WRITE
    Full,           // vkCmdPipelineBarrier2, ALL_COMMANDS, MEMORY_WRITE -> MEMORY_READ|MEMORY_WRITE
    ExecutionOnly,  // control: COMPUTE_SHADER -> COMPUTE_SHADER with no memory barrier (invalid)
    None,           // control: nothing at all (invalid)
};
std::string_view name(BarrierKind b);  // "blade", "sync2", "buffer", "full", "execution-only", "none"
std::optional<BarrierKind> parseBarrier(std::string_view text);
// True for the two encodings the Vulkan memory model calls insufficient: their results
// prove nothing about the driver, and validation must flag them.
bool isControl(BarrierKind b);

// --mutant, --mutants: one way to weaken one barrier step (or a semaphore wait's stage) of a
// file, after MC Mutants (Levine et al., ASPLOS 2023); each mutant is run as a labelled control
// (docs/mutants.md). A new weakening (an image barrier's "layout transition kept, no memory
// dependency") is one more value here, in kWeakenings and in scenario/mutants.cpp applyWeakening.
enum class Weakening {
    Removed,         // the barrier not recorded
    ExecutionOnly,   // its stages kept, no memory barrier (no access scopes)
    NoSrcAccess,     // srcAccessMask 0: the writes are never made available
    DstStageMisses,  // dstStageMask (a wait's stage) that misses the command after it
};
inline constexpr Weakening kWeakenings[] = {Weakening::Removed, Weakening::ExecutionOnly, Weakening::NoSrcAccess,
                                            Weakening::DstStageMisses};
std::string_view name(Weakening w);  // "removed", "execution-only", "no-src-access", "dst-stage-misses"
std::optional<Weakening> parseWeakening(std::string_view text);

// --mutant STEP:KIND: step STEP of the file (1-based, as its step labels print it) weakened by KIND.
struct MutantSpec {
    uint32_t step = 0;
    Weakening weakening = Weakening::Removed;
    bool operator==(const MutantSpec&) const = default;
};
std::string mutantText(const MutantSpec& m);  // "4:execution-only", the --mutant value

// --memory: where small[0..N] and big[0..N) live (params and weight stay blade's Shared).
enum class BufferMemory {
    Blade,        // blade's classes: small[0] and small[N] Shared, the rest Device
    DeviceLocal,  // all DEVICE_LOCAL, preferring types that are not HOST_VISIBLE
    HostVisible,  // all HOST_VISIBLE|HOST_COHERENT, preferring not HOST_CACHED (write-combined)
                  // and then not DEVICE_LOCAL (system memory)
    HostCached,   // all HOST_VISIBLE|HOST_COHERENT|HOST_CACHED, preferring not DEVICE_LOCAL
};
std::string_view name(BufferMemory m);  // "blade", "device-local", "host-visible", "host-cached"
std::optional<BufferMemory> parseBufferMemory(std::string_view text);

// --profile: the repro's valid default, or blade 72c30c1's set-up with its quirks.
enum class Profile { Default, BladeExact };
std::string_view name(Profile p);  // "default", "blade-exact"
std::optional<Profile> parseProfile(std::string_view text);

// How multipass and single are cut into submits (split keeps its 2N waited submits: it is
// the reference). Empty (every == 0, no splitMiB, no splitMs): one submit, as blade records
// them.
struct SubmitStructure {
    uint32_t every = 0;              // --submit-every K: at most K chain dispatches per command buffer
    std::optional<double> splitMiB;  // --split-mib X: close once the bytes written pass X MiB
    // --split-ms T, in milliseconds, (0, 1e9]: close once the predicted GPU time of the
    // dispatches recorded since the last submit passes T.
    std::optional<double> splitMs;
    bool hostWait = true;  // --host-wait (default) / --no-host-wait between the submits
    bool cuts() const { return every > 0 || splitMiB.has_value() || splitMs.has_value(); }
    bool operator==(const SubmitStructure&) const = default;
};

// Where command buffers end, for a chain whose dispatch d (0-based, chain order) writes
// writtenBytes[d] bytes and is predicted to take predictedSeconds[d] seconds of GPU time
// (with --dispatch-repeat, all its repeats; finite, >= 0): the indices d after which a
// command buffer is closed and submitted. The last dispatch always closes one. A command
// buffer closes after dispatch d when it holds `every` dispatches (every > 0), when the
// bytes written since the last submit are more than splitMiB * 2^20, or when the predicted
// time since the last submit is more than splitMs milliseconds; a dispatch that alone
// passes a limit gets a command buffer end of its own. Bytes count what a dispatch writes
// once, whatever --dispatch-repeat is: repeating a conv-T rewrites the same bytes.
// predictedSeconds may be empty when splitMs is unset; otherwise it must be as long as
// writtenBytes (std::invalid_argument if not). Never empty when writtenBytes is not.
std::vector<size_t> commandBufferEnds(std::span<const uint64_t> writtenBytes, std::span<const double> predictedSeconds,
                                      const SubmitStructure& structure);
// The same without predictions, for a structure with no splitMs (std::invalid_argument if
// it has one).
std::vector<size_t> commandBufferEnds(std::span<const uint64_t> writtenBytes, const SubmitStructure& structure);

// Said wherever timestamps or breadcrumbs are added: they can hide the race they measure.
// Measured (bench/h200-experiments/control-none-repeat5*.txt): on the H200 with NVIDIA
// 580.159.04, --barrier none at N=7 was wrong in 10 of 10 runs without instrumentation and
// in 0 of 10 with --timestamps or with --breadcrumbs.
inline constexpr const char* kInstrumentationCaveat =
    "timestamp and marker writes at BOTTOM_OF_PIPE can wait for earlier work and hide a race: "
    "on the H200 (NVIDIA 580.159.04) --barrier none went wrong in 10/10 runs without them and "
    "0/10 with either; if the bug disappears with them, that is a clue, not a fix";

// --driver-env-sweep: one driver setting documented to change synchronization or the
// code the driver emits for this workload.
struct DriverSetting {
    std::string driver;    // the VkDriverId name it is for, e.g. "MESA_RADV"
    std::string variable;  // environment variable
    std::string value;     // one option of the variable's list (Mesa parses comma-separated names)
    std::string effect;    // what the driver documents it to do, one line
    std::string source;    // where that is documented
    // The Mesa releases whose option table has this name, as far as read (e.g. "Mesa 22.3.6
    // (Debian 12's library) to the 26.x tables; renamed noibchaining in 26.x"); Mesa's
    // parser ignores a name it does not know, so a stale name silently tests nothing
    // (optionKnownToLibrary checks the installed driver).
    std::string releases;
    std::string proves;  // what a change of outcome under it proves, one line
};
// Every known setting, in a fixed order (RADV, ACO, ANV, NVK).
const std::vector<DriverSetting>& driverSettings();
// The settings for `driverId` (a VkDriverId name without VK_DRIVER_ID_, e.g. "MESA_RADV",
// "INTEL_OPEN_SOURCE_MESA", "MESA_NVK"); all of them when
// `all` is true.
std::vector<DriverSetting> driverSettingsFor(std::string_view driverId, bool all);

// A driver's known limit that makes a correct shader compute something else: typed driver
// knowledge, never a verdict against the driver. lavapipe (MESA_LLVMPIPE) ends every shader
// loop after 65,535 iterations (gallivm's loop limiter: LP_MAX_TGSI_LOOP_ITERATIONS in Mesa's
// gallivm lp_bld_limits.h, counted down per loop in lp_bld_ir_common.c), so a
// scenario `work` loop of 65,536 or more rounds writes other words than the CPU model's.
struct ShaderLoopLimit {
    std::string driver;       // the VkDriverId name without VK_DRIVER_ID_, e.g. "MESA_LLVMPIPE"
    uint32_t iterations = 0;  // the most iterations one loop runs there
    std::string source;       // where that is written
};
// The loop limit of `driverId` (same naming as driverSettingsFor), or nullopt where none is known.
std::optional<ShaderLoopLimit> shaderLoopLimit(std::string_view driverId);

// Whether a driver library knows an option name. Mesa keeps each debug table's names as
// NUL-terminated C strings in the library's read-only data (struct debug_control in
// util/u_debug.h, parsed by parse_debug_string), so a name the library parses is found as
// "\0name\0". Its presence is necessary, not sufficient (the bytes could belong to another
// string); its absence proves the library does not parse that name.
enum class OptionPresence {
    Known,       // found as a whole NUL-terminated string
    TailOnly,    // found only as the tail of a longer string ("syncshaders" in
                 // "nosyncshaders"): the linker merges a string into a longer one's tail,
                 // so it may still be there; undecided
    NotKnown,    // not in the library at all
    Unreadable,  // the library could not be read
};
std::string_view name(OptionPresence p);  // "known", "tail only", "not known", "unreadable"

// The search over a library's bytes. An empty option is NotKnown.
OptionPresence optionNameInBytes(std::string_view bytes, std::string_view option);

struct LibraryOptionCheck {
    OptionPresence presence = OptionPresence::Unreadable;
    std::string detail;  // "libvulkan_radeon.so knows RADV_DEBUG option 'syncshaders'", or why unreadable
};
// Reads `libraryPath` (mmap, read-only; at most 1 GiB) and searches it for `option`, the
// name of one of `variable`'s options (for the detail line). Never throws.
LibraryOptionCheck optionKnownToLibrary(const std::string& libraryPath, std::string_view variable,
                                        std::string_view option);

}  // namespace repro
