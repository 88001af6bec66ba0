// CLI11 option table and up-front validation of every value.
#include "core/options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <charconv>
#include <limits>

#include "repro_version.h"

namespace repro {
namespace {

constexpr std::string_view kExitTable = R"(Exit status (fits `git bisect run`: 0 good, 125 skip, others bad):
  0    ran; no mode was wrong (not reproduced)
  1    usage error: bad flag or value (one line says which and why)
  2    reproduced: at least one mode's output is wrong (zero, mismatch, nonfinite,
       unwritten)
  3    GPU hang: device lost or a wait timed out (completed results still printed)
  4    with --validation: the repro's own Vulkan usage drew validation messages
  125  cannot test here: no Vulkan loader, no usable device, missing feature,
       not enough device memory, or an inconclusive (underflowed) reference
  130, 143  interrupted by SIGINT or SIGTERM (completed results printed, no verdict)
Precedence when several apply: 3, 2, 125 (inconclusive), 4, 0.
--matrix: the same statuses over its valid variants only (the two --barrier controls and
--profile blade-exact are reported, never counted). --driver-env-sweep: the status of the
run without a driver setting. --profile blade-exact: 125 when split is wrong too (its
params descriptor mismatch is undefined behaviour).

Where blade's stream is invalid Vulkan the default takes the nearest valid form:
`params` is a read-only storage block (blade binds a Uniform block through a
STORAGE_BUFFER descriptor), and the last command buffer of each mode ends with a
barrier to HOST_READ before the host reads small[N] (blade has none).)";

// Parses a signed decimal integer; nullopt unless the whole text is one.
std::optional<int64_t> parseInteger(std::string_view text) {
    int64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc{} || ptr != end || text.empty()) return std::nullopt;
    return value;
}

// Range-checks a signed value read for an unsigned field.
uint32_t checkCount(int64_t value, std::string_view flag, int64_t minimum) {
    if (value < minimum) {
        throw UsageError(fmt::format("{}: must be at least {} (got {})", flag, minimum, value));
    }
    if (value > std::numeric_limits<uint32_t>::max()) {
        throw UsageError(fmt::format("{}: {} is too large (at most {})", flag, value,
                                     std::numeric_limits<uint32_t>::max()));
    }
    return static_cast<uint32_t>(value);
}

}  // namespace

std::string_view name(Mode m) {
    switch (m) {
        case Mode::Split: return "split";
        case Mode::Multipass: return "multipass";
        case Mode::Single: return "single";
    }
    return "?";
}

std::string_view name(Format f) {
    switch (f) {
        case Format::Text: return "text";
        case Format::Markdown: return "markdown";
        case Format::Json: return "json";
    }
    return "?";
}

std::string_view name(ReferenceKind k) {
    switch (k) {
        case ReferenceKind::Auto: return "auto";
        case ReferenceKind::Split: return "split";
        case ReferenceKind::Cpu: return "cpu";
        case ReferenceKind::None: return "none";
    }
    return "?";
}

// "A..B" with 1 <= A <= B; UsageError otherwise.
std::pair<uint32_t, uint32_t> parseSweep(std::string_view text) {
    const auto dots = text.find("..");
    const auto first = dots == std::string_view::npos ? std::nullopt : parseInteger(text.substr(0, dots));
    const auto last = dots == std::string_view::npos ? std::nullopt : parseInteger(text.substr(dots + 2));
    if (!first || !last) {
        throw UsageError(fmt::format("--sweep: '{}' is not a range A..B of chain lengths", text));
    }
    const uint32_t a = checkCount(*first, "--sweep start", 1);
    const uint32_t b = checkCount(*last, "--sweep end", 1);
    if (a > b) throw UsageError(fmt::format("--sweep: start {} is after end {}", a, b));
    return {a, b};
}

std::optional<std::vector<Mode>> parseModes(std::string_view text) {
    if (text == "split") return std::vector{Mode::Split};
    if (text == "multipass") return std::vector{Mode::Multipass};
    if (text == "single") return std::vector{Mode::Single};
    // `single` runs last: it is the one most likely to hang the GPU (SPEC §2).
    if (text == "all") return std::vector{Mode::Split, Mode::Multipass, Mode::Single};
    return std::nullopt;
}

ParseOutcome parseCommandLine(int argc, const char* const* argv,
                              std::optional<std::string_view> envChain) {
    ParseOutcome outcome;
    Options o;
    for (int i = 0; i < argc; ++i) o.commandLine.emplace_back(argv[i]);

    CLI::App app{"Reproduces a GPU-driver synchronization bug (blade issue #356): a chain of N\n"
                 "conv-T + slice compute dispatches recorded three ways the Vulkan spec calls\n"
                 "equivalent, checked, with a verdict in words and in the exit status.",
                 "repro"};
    app.get_formatter()->column_width(34);

    std::string modeText = "all";
    int64_t chain = o.chainLength;
    std::string preset = o.preset;
    // Shape fields: read as signed so "-3" is reported as negative, not wrapped.
    std::optional<int64_t> batch, channels, height, width, kernelH, kernelW, strideH, strideW,
        padH, padW;
    std::optional<int64_t> dropDispatch;

    app.add_option("--mode", modeText,
                   "split | multipass | single | all (all runs split, multipass, single)")
        ->default_val("all")
        ->check(CLI::IsMember({"split", "multipass", "single", "all"}));
    auto* chainOption = app.add_option(
        "-n,--chain", chain,
        "chain length N: conv-T + slice steps (environment N is honoured; the flag wins)");
    chainOption->default_val(6);
    app.add_option("--preset", preset, "shape preset: spectrostream (the original's) | small | tiny")
        ->default_val("spectrostream");
    auto shapeGroup = "Shape (each overrides the preset)";
    app.add_option("--batch", batch, "batch (spectrostream: 1)")->group(shapeGroup);
    app.add_option("--channels", channels, "channels C (128)")->group(shapeGroup);
    app.add_option("--height", height, "small height H (60)")->group(shapeGroup);
    app.add_option("--width", width, "small width W (480)")->group(shapeGroup);
    app.add_option("--kernel-h", kernelH, "conv-T kernel height (3)")->group(shapeGroup);
    app.add_option("--kernel-w", kernelW, "conv-T kernel width (4)")->group(shapeGroup);
    app.add_option("--stride-h", strideH, "conv-T stride in h (1)")->group(shapeGroup);
    app.add_option("--stride-w", strideW, "conv-T stride in w (2)")->group(shapeGroup);
    app.add_option("--pad-h", padH, "conv-T padding in h (0)")->group(shapeGroup);
    app.add_option("--pad-w", padW, "conv-T padding in w (0)")->group(shapeGroup);
    app.add_option("--device", o.device,
                   "device index from --list-devices, or a case-insensitive name substring "
                   "(default: the first usable device, blade's rule)");
    app.add_flag("--list-devices", o.listDevices, "list Vulkan devices and whether each can run");
    app.add_option("--timeout", o.timeoutSeconds,
                   "seconds to wait for one submit before calling it a GPU hang "
                   "(default auto: 120 s + per full-size-equivalent conv-T in the submit 60 s "
                   "on a GPU, 1800 s on a CPU driver)");
    app.add_flag("--validation", o.validation,
                 "enable the Khronos validation layer with synchronization validation; "
                 "messages are counted and printed");
    app.add_option("--drop-dispatch", dropDispatch,
                   "positive control: leave dispatch K (1-based; step s's conv-T is 2s-1, its "
                   "slice 2s) out of multipass and single, so the checker must report them");
    app.add_option("--dump-dir", o.dumpDir,
                   "write each mode's final small[N] to DIR/<mode>.f32 (raw little-endian "
                   "float32; DIR is created if missing)");
    std::string referenceText = "auto";
    app.add_option("--reference", referenceText,
                   "what each mode is compared with: auto (split; run after the others when not "
                   "asked for) | split | cpu (host float64 chain, derived float32 tolerance) | "
                   "none (zero and non-finite checks only)")
        ->default_val("auto")
        ->check(CLI::IsMember({"auto", "split", "cpu", "none"}));
    app.add_flag("--check-steps", o.checkSteps,
                 "after each mode, read back every intermediate buffer (separate submits) and "
                 "name the first dispatch whose output differs from the reference");
    app.add_flag("--poison", o.poison,
                 "fill every buffer the chain writes with a NaN sentinel (0x7fc0dead) before "
                 "each mode, so unwritten output is told apart from zeros");
    int64_t repeat = 1;
    app.add_option("--repeat", repeat, "run each mode R times: reproduction rate and whether "
                                       "the results are bit-identical across runs")
        ->default_val(1);
    std::optional<std::string> sweepText;
    app.add_option("--sweep", sweepText,
                   "A..B: every chain length from A to B with the chosen modes; a table and the "
                   "smallest reproducing N per mode (overrides -n)");
    std::string formatText = "text";
    auto reportGroup = "Report and forensics";
    app.add_option("--format", formatText,
                   "text | markdown (a block to paste into a Mesa issue) | json (docs/report-schema.md); "
                   "with markdown or json the progress lines go to stderr")
        ->default_val("text")
        ->check(CLI::IsMember({"text", "markdown", "json"}))
        ->group(reportGroup);
    app.add_option("--output", o.output, "also write the JSON report to FILE")->group(reportGroup);
    app.add_flag("--timings", o.timings, "host phase timings in the text report (always in JSON)")
        ->group(reportGroup);
    app.add_flag("--timestamps", o.timestamps,
                 "GPU time per dispatch, submit and mode from timestamp queries (adds query "
                 "commands to the stream)")
        ->group(reportGroup);
    app.add_flag("--breadcrumbs", o.breadcrumbs,
                 "write a marker after every dispatch (VK_AMD_buffer_marker) and, on a hang, "
                 "name the last dispatch the GPU finished; queries VK_EXT_device_fault on loss")
        ->group(reportGroup);
    app.add_flag("--labels", o.labels,
                 "name every object and wrap every dispatch and barrier in a VK_EXT_debug_utils "
                 "label, for captures and hang dumps")
        ->group(reportGroup);
    auto experimentGroup = "Workaround and hypothesis experiments (multipass and single; split stays the reference)";
    std::string barrierText = "blade";
    app.add_option("--barrier", barrierText,
                   "what orders each dispatch after the one before: blade (G in multipass, C in "
                   "single) | sync2 (vkCmdPipelineBarrier2, COMPUTE_SHADER, SHADER_STORAGE_WRITE -> "
                   "SHADER_STORAGE_READ|WRITE) | buffer (VkBufferMemoryBarrier on the buffer just "
                   "written) | full (sync2 ALL_COMMANDS, MEMORY_WRITE -> MEMORY_READ|WRITE) | "
                   "execution-only, none (INVALID on purpose: controls)")
        ->default_val("blade")
        ->check(CLI::IsMember({"blade", "sync2", "buffer", "full", "execution-only", "none"}))
        ->group(experimentGroup);
    std::optional<int64_t> submitEvery;
    app.add_option("--submit-every", submitEvery,
                   "K: close and submit the command buffer after every K chain dispatches "
                   "(blade's G at its start and end)")
        ->group(experimentGroup);
    std::optional<double> splitMiB;
    app.add_option("--split-mib", splitMiB,
                   "X: close and submit once the bytes written since the last submit pass X MiB")
        ->group(experimentGroup);
    app.add_flag("--host-wait,!--no-host-wait", o.submit.hostWait,
                 "between the submits of --submit-every/--split-mib, the host waits for each "
                 "(default) or only for the last")
        ->group(experimentGroup);
    std::string memoryText = "blade";
    app.add_option("--memory", memoryText,
                   "where small[0..N] and big[] live: blade (its Shared/Device classes) | "
                   "device-local | host-visible (write-combined where offered) | host-cached; "
                   "the memory types chosen are printed")
        ->default_val("blade")
        ->check(CLI::IsMember({"blade", "device-local", "host-visible", "host-cached"}))
        ->group(experimentGroup);
    int64_t dispatchRepeat = 1;
    app.add_option("--dispatch-repeat", dispatchRepeat,
                   "R: record each conv-T R times (same output): more GPU time per submit, "
                   "same bytes written")
        ->default_val(1)
        ->group(experimentGroup);
    std::string profileText = "default";
    app.add_option("--profile", profileText,
                   "default (valid Vulkan) | blade-exact (blade 72c30c1's set-up with its "
                   "quirks, listed when it runs; not validation-clean)")
        ->default_val("default")
        ->check(CLI::IsMember({"default", "blade-exact"}))
        ->group(experimentGroup);
    app.add_option("--spirv", o.spirvDir,
                   "DIR: load conv_t.spv and slice.spv from DIR (e.g. naga's output for the "
                   "original WGSL) instead of the built-in SPIR-V; checked before use")
        ->group(experimentGroup);
    app.add_flag("--matrix", o.matrix,
                 "run the documented variant set (mode x barrier x submit structure x memory x "
                 "profile) as child processes at -n N and print variant -> classification")
        ->group(experimentGroup);
    app.add_flag("--driver-env-sweep", o.driverEnvSweep,
                 "re-run as child processes under each driver setting known to change "
                 "synchronization for this device's driver, and say which make the bug disappear")
        ->group(experimentGroup);
    app.add_flag("--all-drivers", o.allDrivers,
                 "with --driver-env-sweep: every driver's settings, not only this device's")
        ->group(experimentGroup);
    app.add_flag("--print-stream", o.printStream,
                 "print the exact command stream of each selected mode, one Vulkan call per line, "
                 "and exit without running it")
        ->group(reportGroup);
    app.set_version_flag("--version",
                         fmt::format("repro {} (git {})", kReproVersion, kReproGitHash));
    app.footer(std::string{kExitTable});

    try {
        app.parse(argc, argv);
        const bool chainGiven = chainOption->count() > 0;
        if (!chainGiven && envChain) {
            const auto value = parseInteger(*envChain);
            if (!value) {
                throw UsageError(fmt::format(
                    "environment N='{}': not a chain length (a whole number >= 1)", *envChain));
            }
            chain = *value;
            o.chainLength = checkCount(chain, "environment N", 1);
        } else {
            o.chainLength = checkCount(chain, "-n/--chain", 1);
        }
        o.modes = *parseModes(modeText);
        o.reference = referenceText == "split" ? ReferenceKind::Split
                      : referenceText == "cpu" ? ReferenceKind::Cpu
                      : referenceText == "none" ? ReferenceKind::None
                                                : ReferenceKind::Auto;
        o.repeat = checkCount(repeat, "--repeat", 1);
        o.format = formatText == "markdown" ? Format::Markdown
                   : formatText == "json"   ? Format::Json
                                            : Format::Text;
        if (o.output && o.output->empty()) throw UsageError("--output: empty path");
        if (sweepText) {
            o.sweep = parseSweep(*sweepText);
            o.chainLength = o.sweep->second;  // buffers are made once, for the longest chain
        }
        o.preset = preset;
        o.shape = presetShape(preset);
        const std::pair<std::optional<int64_t>&, std::pair<uint32_t*, std::string_view>> fields[] = {
            {batch, {&o.shape.batch, "--batch"}},       {channels, {&o.shape.channels, "--channels"}},
            {height, {&o.shape.height, "--height"}},    {width, {&o.shape.width, "--width"}},
            {kernelH, {&o.shape.kernelH, "--kernel-h"}}, {kernelW, {&o.shape.kernelW, "--kernel-w"}},
            {strideH, {&o.shape.strideH, "--stride-h"}}, {strideW, {&o.shape.strideW, "--stride-w"}},
            {padH, {&o.shape.padH, "--pad-h"}},          {padW, {&o.shape.padW, "--pad-w"}},
        };
        for (const auto& [given, target] : fields) {
            if (!given) continue;
            const bool isPadding = target.second.starts_with("--pad");
            *target.first = checkCount(*given, target.second, isPadding ? 0 : 1);
        }
        const ChainSizes sizes = computeSizes(o.shape);  // throws UsageError
        (void)sizes;
        if (o.timeoutSeconds && (!(*o.timeoutSeconds > 0.0) || *o.timeoutSeconds > 1e9)) {
            throw UsageError(fmt::format("--timeout: must be a number of seconds in (0, 1e9] (got {})",
                                         *o.timeoutSeconds));
        }
        if (dropDispatch) {
            // Every chain of a sweep must contain the dispatch.
            const uint64_t dispatches = 2 * uint64_t{o.sweep ? o.sweep->first : o.chainLength};
            if (*dropDispatch < 1 || uint64_t(*dropDispatch) > dispatches) {
                throw UsageError(fmt::format("--drop-dispatch: {} is outside 1..{} (2 dispatches per step)",
                                             *dropDispatch, dispatches));
            }
            o.dropDispatch = static_cast<uint32_t>(*dropDispatch);
        }
        if (o.device && o.device->empty()) throw UsageError("--device: empty name");
        o.barrier = *parseBarrier(barrierText);
        o.memory = *parseBufferMemory(memoryText);
        o.profile = *parseProfile(profileText);
        o.dispatchRepeat = checkCount(dispatchRepeat, "--dispatch-repeat", 1);
        if (o.dispatchRepeat > 64) {
            throw UsageError(fmt::format("--dispatch-repeat: at most 64 (got {})", o.dispatchRepeat));
        }
        if (submitEvery) o.submit.every = checkCount(*submitEvery, "--submit-every", 1);
        if (splitMiB) {
            if (!(*splitMiB > 0.0) || *splitMiB > 1e9) {
                throw UsageError(fmt::format("--split-mib: must be a number of MiB in (0, 1e9] (got {})",
                                             *splitMiB));
            }
            o.submit.splitMiB = *splitMiB;
        }
        if (!o.submit.hostWait && !o.submit.cuts()) {
            throw UsageError("--no-host-wait: there is only one submit to wait for; add "
                             "--submit-every K or --split-mib X");
        }
        const bool onlySplit = o.modes.size() == 1 && o.modes[0] == Mode::Split;
        const bool recordingChanged = o.barrier != BarrierKind::Blade || o.submit.cuts() ||
                                      o.dispatchRepeat > 1;
        if (onlySplit && recordingChanged) {
            throw UsageError("--barrier, --submit-every, --split-mib and --dispatch-repeat change "
                             "multipass and single; --mode split is the reference and keeps "
                             "blade's stream");
        }
        if (o.spirvDir && o.spirvDir->empty()) throw UsageError("--spirv: empty path");
        if (o.allDrivers && !o.driverEnvSweep) {
            throw UsageError("--all-drivers: only with --driver-env-sweep");
        }
        if (o.matrix || o.driverEnvSweep) {
            const char* what = o.matrix ? "--matrix" : "--driver-env-sweep";
            if (o.matrix && o.driverEnvSweep) {
                throw UsageError("--matrix and --driver-env-sweep: choose one");
            }
            if (o.sweep) throw UsageError(fmt::format("{}: not with --sweep", what));
            if (o.format == Format::Json || o.output) {
                throw UsageError(fmt::format("{}: prints a table (text, or --format markdown); "
                                             "--format json and --output are for single runs",
                                             what));
            }
            if (o.listDevices) throw UsageError(fmt::format("{}: not with --list-devices", what));
            if (o.dumpDir) throw UsageError(fmt::format("{}: not with --dump-dir", what));
        }
        if (o.matrix) {
            const bool variantFlags = modeText != "all" || o.barrier != BarrierKind::Blade ||
                                      o.submit.cuts() || !o.submit.hostWait ||
                                      o.memory != BufferMemory::Blade || o.dispatchRepeat > 1 ||
                                      o.profile != Profile::Default;
            if (variantFlags) {
                throw UsageError("--matrix: chooses --mode, --barrier, --submit-every, --split-mib, "
                                 "--no-host-wait, --memory, --dispatch-repeat and --profile itself");
            }
        }
        if (o.dumpDir && o.dumpDir->empty()) throw UsageError("--dump-dir: empty path");
    } catch (const CLI::CallForHelp&) {
        outcome.out = app.help();
        return outcome;
    } catch (const CLI::CallForVersion& e) {
        outcome.out = std::string{e.what()} + "\n";
        return outcome;
    } catch (const CLI::ParseError& e) {
        outcome.exitStatus = 1;
        outcome.err = fmt::format("repro: {} (see --help)", e.what());
        return outcome;
    } catch (const UsageError& e) {
        outcome.exitStatus = 1;
        outcome.err = fmt::format("repro: {}", e.what());
        return outcome;
    }
    outcome.options = std::move(o);
    return outcome;
}

}  // namespace repro
