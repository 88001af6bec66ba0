// The command line: a syntax check, CLI11 reading every option of the table as text, then
// the values of each group of options, then the rules between options.
#include "cli/options.hpp"

// GCC 12 at -O2 reports a null dereference inside CLI11's own CLI::detail::split (a vector of
// strings growing: a false positive of -Wnull-dereference in inlined library code, where the
// system-header exemption no longer reaches); the pragma covers CLI11's code only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#pragma GCC diagnostic pop
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "cli/help.hpp"
#include "cli/option_table.hpp"
#include "core/enum_names.hpp"
#include "core/output.hpp"
#include "core/text.hpp"
#include "repro_version.h"

namespace repro {
namespace {

[[noreturn]] void fail(const std::string& message) { throw UsageError(message); }

// ---- numbers and names -------------------------------------------------------------------

// Range-checks `value`, which the user wrote as `text` (plain decimal), for an unsigned
// 32-bit field named `label`.
uint32_t checkCount(int64_t value, std::string_view text, std::string_view label, int64_t minimum) {
    if (value < minimum) fail(fmt::format("{}: must be at least {} (got {})", label, minimum, text));
    if (value > std::numeric_limits<uint32_t>::max()) {
        fail(fmt::format("{}: {} is too large (at most {})", label, text, std::numeric_limits<uint32_t>::max()));
    }
    return static_cast<uint32_t>(value);
}

// A whole number of at least `minimum` and at most `maximum` (UINT32_MAX unless an option has
// a smaller one) in plain decimal.
uint32_t readCount(std::string_view text, std::string_view label, int64_t minimum,
                   uint32_t maximum = std::numeric_limits<uint32_t>::max()) {
    const auto value = parseDecimal(text);
    if (!value) fail(fmt::format("{}: {} is not a whole number (decimal digits only)", label, quote(text)));
    const uint32_t count = checkCount(*value, text, label, minimum);
    if (count > maximum) fail(fmt::format("{}: at most {} (got {})", label, maximum, count));
    return count;
}

// A plain decimal number (text.hpp parseDecimalNumber) of `unit`s.
double readNumber(std::string_view text, std::string_view label, std::string_view unit) {
    const auto value = parseDecimalNumber(text);
    if (!value) fail(fmt::format("{}: {} is not a decimal number of {}", label, quote(text), unit));
    return *value;
}

// A decimal number of `unit`s in (0, 1e9].
double readPositive(std::string_view text, std::string_view label, std::string_view unit) {
    const double value = readNumber(text, label, unit);
    if (!(value > 0.0) || value > 1e9) {
        fail(fmt::format("{}: must be a number of {} in (0, 1e9] (got {})", label, unit, text));
    }
    return value;
}

// Each enum's names, in the order of its values (name(), parseName).
constexpr std::string_view kModeNames[] = {"split", "multipass", "single"};
constexpr std::string_view kFormatNames[] = {"text", "markdown", "json", "csv"};
constexpr std::string_view kReferenceNames[] = {"auto", "split", "cpu", "none"};

// "A..B" (or "N=A..B") with 1 <= A <= B: the built-in chain's lengths.
std::pair<uint32_t, uint32_t> parseSweep(std::string_view text) {
    if (text.starts_with("N=")) text.remove_prefix(2);
    const auto dots = text.find("..");
    const auto first = dots == std::string_view::npos ? std::nullopt : parseDecimal(text.substr(0, dots));
    const auto last = dots == std::string_view::npos ? std::nullopt : parseDecimal(text.substr(dots + 2));
    if (!first || !last) {
        fail(fmt::format("--sweep: {} is not a range A..B of chain lengths", quote(text)));
    }
    const uint32_t a = checkCount(*first, text.substr(0, dots), "--sweep start", 1);
    const uint32_t b = checkCount(*last, text.substr(dots + 2), "--sweep end", 1);
    if (a > b) fail(fmt::format("--sweep: start {} is after end {}", a, b));
    return {a, b};
}

// --sweep on a file: "NAME=A..B" (A <= B) or "NAME=V1,V2,..." (decimal, 0..2^32-1).
ParameterSweep parseParameterSweep(std::string_view text) {
    const auto bad = [&]() {
        fail(fmt::format("--sweep: {} on a file is NAME=A..B or NAME=V1,V2,... over one of its [parameters]",
                         quote(text)));
    };
    const auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) bad();
    ParameterSweep out{.parameter = std::string(text.substr(0, eq)), .values = {}};
    const std::string_view rest = text.substr(eq + 1);
    const auto number = [&](std::string_view v) {
        const auto n = parseDecimal(v);
        if (!n || *n < 0 || *n > 0xffffffffLL) bad();
        return static_cast<uint32_t>(*n);
    };
    if (const auto dots = rest.find(".."); dots != std::string_view::npos) {
        const uint32_t a = number(rest.substr(0, dots)), b = number(rest.substr(dots + 2));
        if (a > b) fail(fmt::format("--sweep: start {} is after end {}", a, b));
        if (uint64_t{b} - a >= kMaxParameterSweepValues)
            fail(fmt::format("--sweep: {} values; at most {}", uint64_t{b} - a + 1, kMaxParameterSweepValues));
        for (uint64_t v = a; v <= b; ++v) out.values.push_back(static_cast<uint32_t>(v));
        return out;
    }
    for (const std::string_view value : split(rest, ',')) out.values.push_back(number(value));
    if (out.values.size() > kMaxParameterSweepValues)
        fail(fmt::format("--sweep: {} values; at most {}", out.values.size(), kMaxParameterSweepValues));
    return out;
}

QueueChoice parseQueue(std::string_view text) {
    if (text == "gfx") return {.kind = QueueChoice::Kind::Gfx};
    if (text == "compute") return {.kind = QueueChoice::Kind::Compute};
    if (!parseDecimal(text)) {
        fail(fmt::format("--queue: {} is not gfx, compute or a queue family index", quote(text)));
    }
    return {.kind = QueueChoice::Kind::Index, .index = readCount(text, "--queue", 0)};
}

// ---- syntax ------------------------------------------------------------------------------

// CLI11's test for the character after "-" or "--" (CLI/StringTools.hpp valid_first_char).
bool validFirstChar(char c) { return c != '-' && c != '!' && c != ' ' && c != '\n'; }

// A long option "--name[=value]": the number of following arguments it takes (0 or 1).
size_t checkLong(std::string_view arg, bool valueFollows) {
    const size_t eq = arg.find('=');
    const OptionSpec* spec = findLongOption(arg.substr(0, eq));
    if (spec == nullptr) fail(fmt::format("unknown option {} (see --help)", quote(arg)));
    const std::string label = optionLabel(*spec);
    if (spec->flag != nullptr) {
        if (eq != std::string_view::npos) fail(fmt::format("{}: takes no value (got {})", label, quote(arg)));
        return 0;
    }
    if (eq != std::string_view::npos) {
        if (eq + 1 == arg.size()) fail(fmt::format("{}: empty value (expected {})", label, spec->placeholder));
        return 0;
    }
    if (!valueFollows) fail(fmt::format("{}: missing value (expected {})", label, spec->placeholder));
    return 1;
}

// Walks the arguments as CLI11 2.x reads them (CLI/App.hpp _recognize and _parse_arg):
// "--name", "--name=value", "-x", "-xVALUE", clusters of short flags ("-vq", read as "-v"
// then "-q"); an option's value is the next argument whatever it looks like; "--" ends
// the options. Throws UsageError for the first argument CLI11 would reject or would read
// otherwise than meant: an unknown option, a stray argument, a value missing at the end,
// an empty "--name=" (CLI11 would take the next argument instead), a value on a flag.
// Arguments that are not options (every one after "--" too) are the files of
// --merge-reports, and a stray argument without it.
void checkSyntax(std::vector<std::string> pending) {  // in reverse: the next one is last
    std::vector<std::string> operands;
    bool merging = false;
    while (!pending.empty()) {
        const std::string arg = std::move(pending.back());
        pending.pop_back();
        if (arg == "--") {
            operands.insert(operands.end(), pending.rbegin(), pending.rend());
            break;
        }
        if (arg.size() > 2 && arg.starts_with("--") && validFirstChar(arg[2])) {
            merging = merging || arg == "--merge-reports";
            if (checkLong(arg, !pending.empty()) == 1) pending.pop_back();
            continue;
        }
        const bool isShort = arg.size() > 1 && arg[0] == '-' && validFirstChar(arg[1]) &&
                             (findShortOption(arg[1]) != nullptr || arg[1] < '0' || arg[1] > '9');
        if (!isShort) {
            operands.push_back(arg);
            continue;
        }
        const OptionSpec* spec = findShortOption(arg[1]);
        if (spec == nullptr) fail(fmt::format("unknown option {} (see --help)", quote(arg.substr(0, 2))));
        const std::string rest = arg.substr(2);
        if (spec->flag != nullptr) {
            if (!rest.empty()) pending.push_back("-" + rest);  // the rest of a cluster
        } else if (rest.empty()) {
            if (pending.empty()) {
                fail(fmt::format("{}: missing value (expected {})", optionLabel(*spec), spec->placeholder));
            }
            pending.pop_back();
        }
    }
    if (!operands.empty() && !merging)
        fail(fmt::format("unexpected argument {} (see --help)", quote(operands.front())));
}

// ---- CLI11 -------------------------------------------------------------------------------

// The value of one option as CLI11 collected it, checked for what is syntax for every
// option: given at most once, and not empty.
std::optional<std::string> singleValue(const OptionSpec& spec, const CLI::Option& option) {
    const std::vector<std::string>& results = option.results();
    if (results.empty()) return std::nullopt;
    const std::string label = optionLabel(spec);
    if (results.size() > 1) fail(fmt::format("{}: given {} times; give it once", label, results.size()));
    if (results.front().empty()) fail(fmt::format("{}: empty value (expected {})", label, spec.placeholder));
    return results.front();
}

// Whether the command line gave the option (a value, or the flag).
bool given(const RawArgs& raw, const OptionSpec& spec) {
    return spec.value != nullptr ? (raw.*(spec.value)).has_value() : raw.*(spec.flag);
}
bool given(const RawArgs& raw, std::string_view longName) { return given(raw, *findLongOption(longName)); }

// Every value of an option that takes only the words of its `choices` is one of them.
void checkChoices(const RawArgs& raw) {
    for (const OptionSpec* spec : allOptions()) {
        if (spec->value == nullptr || spec->choices.empty() || !spec->onlyChoices) continue;
        const std::optional<std::string>& value = raw.*(spec->value);
        if (!value || std::find(spec->choices.begin(), spec->choices.end(), *value) != spec->choices.end()) continue;
        const std::string known = join({spec->choices.begin(), spec->choices.end()});
        fail(fmt::format("{}: {} is not one of {}", optionLabel(*spec), quote(*value), known));
    }
}

// Registers every option of the table with CLI11, parses `args` (argv without the program
// name) and reads each option's text back.
RawArgs readRawArgs(const std::vector<std::string>& args) {
    CLI::App app{"", "repro"};
    app.set_help_flag();  // -h/--help is an ordinary flag of the table
    std::vector<std::pair<const OptionSpec*, CLI::Option*>> registered;
    for (const OptionSpec* spec : allOptions()) {
        std::string names(spec->longName);
        if (spec->shortName != 0) names = std::string{'-', spec->shortName} + "," + names;
        CLI::Option* option = spec->value != nullptr
                                  ? app.add_option(names)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
                                  : app.add_flag(names);
        registered.emplace_back(spec, option);
    }
    RawArgs raw;
    app.add_option("FILE", raw.files)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);  // --merge-reports
    app.parse(std::vector<std::string>(args.rbegin(), args.rend()));  // CLI11 wants them reversed
    for (const auto& [spec, option] : registered) {
        if (spec->flag != nullptr) {
            raw.*(spec->flag) = option->count() > 0;
        } else {
            raw.*(spec->value) = singleValue(*spec, *option);
        }
    }
    return raw;
}

// ---- each group's values -----------------------------------------------------------------

using R = RawArgs;
using O = Options;

// The options an Options field keeps as given: a flag's presence, a value's text. A table laid
// out by hand, not by clang-format.
// clang-format off
constexpr std::pair<bool R::*, bool O::*> kFlagsKept[] = {
    {&R::listDevices, &O::listDevices}, {&R::validation, &O::validation}, {&R::checkSteps, &O::checkSteps},
    {&R::poison, &O::poison}, {&R::stress, &O::stress}, {&R::printStream, &O::printStream},
    {&R::invert, &O::invert}, {&R::timings, &O::timings}, {&R::timestamps, &O::timestamps},
    {&R::breadcrumbs, &O::breadcrumbs}, {&R::labels, &O::labels}, {&R::captureRgp, &O::captureRgp},
    {&R::verbose, &O::verbose}, {&R::quiet, &O::quiet}, {&R::matrix, &O::matrix}, {&R::triage, &O::triage},
    {&R::watchdogProbe, &O::watchdogProbe}, {&R::driverEnvSweep, &O::driverEnvSweep},
    {&R::allDrivers, &O::allDrivers}, {&R::keepLogs, &O::keepLogs}, {&R::mutants, &O::mutants},
    {&R::listScenarios, &O::listScenarios}};
constexpr std::pair<std::optional<std::string> R::*, std::optional<std::string> O::*> kValuesKept[] = {
    {&R::device, &O::device}, {&R::expectDriver, &O::expectDriver}, {&R::dumpDir, &O::dumpDir},
    {&R::output, &O::output}, {&R::json, &O::json}, {&R::trace, &O::trace}, {&R::captureGfxr, &O::captureGfxr},
    {&R::spirv, &O::spirvDir}, {&R::scenario, &O::scenario}, {&R::writeScenario, &O::writeScenario}};
// clang-format on

void readChainAndShape(const RawArgs& raw, std::optional<std::string_view> envChain, Options& o) {
    if (raw.mode) o.modes = *parseModes(*raw.mode);
    if (raw.chain) {
        o.chainLength = readCount(*raw.chain, "-n/--chain", 1);
    } else if (envChain) {
        const auto value = parseDecimal(*envChain);
        if (!value) {
            fail(fmt::format("environment N={}: not a chain length (a whole number >= 1)", quote(*envChain)));
        }
        o.chainLength = checkCount(*value, *envChain, "environment N", 1);
    }
    if (raw.preset) o.preset = *raw.preset;
    o.shape = presetShape(o.preset);
    for (const ShapeOption& f : shapeOptions()) {
        const std::optional<std::string>& text = raw.*(f.value);
        if (text) o.shape.*(f.field) = readCount(*text, f.longName, f.longName.starts_with("--pad") ? 0 : 1);
    }
    (void)computeSizes(o.shape);  // UsageError for a shape the chain cannot have
}

double readTimeout(std::string_view text) {
    const double seconds = readNumber(text, "--timeout", "seconds");
    if (!(seconds >= 1.0)) {
        fail(
            fmt::format("--timeout: must be at least 1 second (got {}): a shorter wait calls a submit "
                        "that is still running a GPU hang",
                        text));
    }
    if (seconds > 1e9) fail(fmt::format("--timeout: must be at most 1e9 seconds (got {})", text));
    return seconds;
}

void readRun(const RawArgs& raw, Options& o) {
    if (raw.reference) o.reference = *parseName<ReferenceKind>(*raw.reference, kReferenceNames);
    if (raw.scenario && o.reference == ReferenceKind::None)
        fail(
            "--reference none: not with --scenario: the zero and non-finite checks alone are the built-in chain's; a "
            "file is compared with the CPU model and split (expected auto, split or cpu)");
    if (raw.repeat) o.repeat = readCount(*raw.repeat, "--repeat", 1);
    if (raw.sweep && raw.scenario) {
        o.parameterSweep = parseParameterSweep(*raw.sweep);
    } else if (raw.sweep) {
        o.sweep = parseSweep(*raw.sweep);
        o.chainLength = o.sweep->second;  // buffers are made once, for the longest chain
    }
    if (raw.timeout) o.timeoutSeconds = readTimeout(*raw.timeout);
    if (raw.dropDispatch) {
        const auto value = parseDecimal(*raw.dropDispatch);
        if (!value)
            fail(fmt::format("--drop-dispatch: {} is not a whole number (decimal digits only)",
                             quote(*raw.dropDispatch)));
        // Every chain of a sweep must contain the dispatch; a file's dispatches are counted
        // once it is read (scenario/plan.cpp).
        const int64_t dispatches =
            raw.scenario ? int64_t{UINT32_MAX} : 2 * int64_t{o.sweep ? o.sweep->first : o.chainLength};
        if (*value < 1 || *value > dispatches) {
            fail(fmt::format("--drop-dispatch: {} is outside 1..{} (2 dispatches per step)", *raw.dropDispatch,
                             dispatches));
        }
        o.dropDispatch = static_cast<uint32_t>(*value);
    }
}

// --mutant STEP:KIND (the step is checked against the file in scenario/mutants.cpp).
MutantSpec readMutant(const std::string& text) {
    const size_t colon = text.find(':');
    const auto step = parseDecimal(text.substr(0, colon));
    if (colon == std::string::npos || !step || *step < 1 || *step > UINT32_MAX)
        fail(fmt::format("--mutant: {} is not STEP:KIND (a step number from 1, e.g. 4:execution-only)", quote(text)));
    const auto kind = parseWeakening(text.substr(colon + 1));
    if (!kind)
        fail(
            fmt::format("--mutant {}: unknown weakening {}; expected removed, execution-only, no-src-access or "
                        "dst-stage-misses",
                        text, quote(text.substr(colon + 1))));
    return {.step = static_cast<uint32_t>(*step), .weakening = *kind};
}

void readExperiments(const RawArgs& raw, Options& o) {
    if (raw.barrier) o.barrier = *parseBarrier(*raw.barrier);
    o.barrierGiven = raw.barrier.has_value();
    if (raw.submitEvery) o.submit.every = readCount(*raw.submitEvery, "--submit-every", 1);
    if (raw.workScale) o.workScale = readCount(*raw.workScale, "--work-scale", 1, 4096);
    if (raw.splitMib) o.submit.splitMiB = readPositive(*raw.splitMib, "--split-mib", "MiB");
    if (raw.splitMs) o.submit.splitMs = readPositive(*raw.splitMs, "--split-ms", "milliseconds");
    o.submit.hostWait = !raw.noHostWait;
    if (raw.memory) o.memory = *parseBufferMemory(*raw.memory);
    if (raw.dispatchRepeat) o.dispatchRepeat = readCount(*raw.dispatchRepeat, "--dispatch-repeat", 1, 64);
    if (raw.profile) o.profile = *parseProfile(*raw.profile);
    if (raw.mutant) o.mutant = readMutant(*raw.mutant);
}

// ---- rules between options ---------------------------------------------------------------

// The options --matrix, --triage and --watchdog-probe choose for each of their runs.
constexpr std::string_view kVariantOptions[] = {
    "--mode",      "--barrier",      "--submit-every", "--split-mib",       "--split-ms",
    "--host-wait", "--no-host-wait", "--memory",       "--dispatch-repeat", "--profile"};

// --matrix, --triage, --watchdog-probe: they choose the variant options themselves.
void checkChoosesVariants(const RawArgs& raw, std::string_view what) {
    const auto* chosen = std::ranges::find_if(kVariantOptions, [&](std::string_view o) { return given(raw, o); });
    if (chosen == std::end(kVariantOptions)) return;
    std::string list;
    for (size_t i = 0; i < std::size(kVariantOptions); ++i) {
        list += (i == 0 ? "" : i + 1 == std::size(kVariantOptions) ? " and " : ", ") + std::string(kVariantOptions[i]);
    }
    fail(fmt::format("{}: chooses {} itself; leave out {}", what, list, *chosen));
}

// The runs made of child processes: at most one, and what none of them goes with.
void checkMultiRunRules(const RawArgs& raw, const Options& o) {
    constexpr std::string_view runs[] = {"--matrix", "--triage", "--watchdog-probe", "--driver-env-sweep", "--mutants"};
    const auto isGiven = [&](std::string_view name) { return given(raw, name); };
    const auto* run = std::ranges::find_if(runs, isGiven);
    if (run == std::end(runs)) return;
    if (const auto* other = std::find_if(run + 1, std::end(runs), isGiven); other != std::end(runs))
        fail(fmt::format("{} and {}: choose one", *run, *other));
    const std::string_view what = *run;
    if (o.sweep || o.parameterSweep) fail(fmt::format("{}: not with --sweep", what));
    if (o.listDevices) fail(fmt::format("{}: not with --list-devices", what));
    if (o.printStream) fail(fmt::format("--print-stream: not with {}", what));
    if (o.dumpDir && !o.watchdogProbe) fail(fmt::format("{}: not with --dump-dir", what));
    if (o.captureGfxr)
        fail(fmt::format("--capture-gfxr: captures one run; not with {}, which runs a child per row", what));
    if (o.captureRgp)
        fail(fmt::format("--capture-rgp: runs a wrong mode again; not with {}, which runs a child per row", what));
    if ((o.matrix || o.driverEnvSweep) && (o.format == Format::Json || o.json)) {
        fail(
            fmt::format("{}: prints a table (text, or --format markdown); --format json and --json "
                        "are for single runs, --triage and --watchdog-probe",
                        what));
    }
    // A setting is judged by whether it removes the baseline's failure: a control's is not the driver's.
    if (o.driverEnvSweep &&
        (o.dropDispatch || o.mutant || o.barrier == BarrierKind::None || o.barrier == BarrierKind::ExecutionOnly))
        fail(driverEnvSweepControlRefusal("--barrier none or execution-only, --drop-dispatch, --mutant"));
    if (!o.driverEnvSweep && !o.mutants) checkChoosesVariants(raw, what);
}

// --mutants and --mutant: what they weaken, and what must run for a mutant to show.
void checkMutantRules(const Options& o, bool onlySplit) {
    if (o.mutants && o.mutant) fail("--mutants and --mutant: choose one (--mutants runs every --mutant)");
    const char* what = o.mutants ? "--mutants" : "--mutant";
    if (!o.mutants && !o.mutant) return;
    if (o.barrierGiven) fail(fmt::format("{}: weakens the barriers itself; leave out --barrier", what));
    if (onlySplit) fail(fmt::format("{}: weakens multipass and single; --mode split runs neither", what));
}

// How multipass and single are recorded, and what split (the reference) keeps.
void checkRecordingRules(const RawArgs& raw, const Options& o) {
    if (raw.hostWait && raw.noHostWait) fail("--host-wait and --no-host-wait: choose one");
    if (!o.submit.hostWait && !o.submit.cuts()) {
        fail(
            "--no-host-wait: there is only one submit to wait for; add --submit-every K, "
            "--split-mib MIB or --split-ms MS");
    }
    const bool onlySplit = o.modes.size() == 1 && o.modes[0] == Mode::Split;
    checkMutantRules(o, onlySplit);
    if (!onlySplit) return;
    if (o.barrier != BarrierKind::Blade || o.submit.cuts() || o.dispatchRepeat > 1) {
        fail(
            "--barrier, --submit-every, --split-mib, --split-ms and --dispatch-repeat change "
            "multipass and single; --mode split is the reference and keeps blade's stream");
    }
    if (o.dropDispatch) {
        fail(
            "--drop-dispatch: leaves a dispatch out of multipass and single; --mode split is the "
            "reference and runs every dispatch");
    }
}

void checkOtherRules(const Options& o) {
    if (o.verbose && o.quiet) fail("-v/--verbose and -q/--quiet: choose one");
    if (o.printStream) {
        if (o.sweep || o.parameterSweep) fail("--print-stream: not with --sweep");
        if (o.listDevices) fail("--print-stream: not with --list-devices");
        if (o.repeat > 1) fail("--print-stream: not with --repeat above 1 (every run records the same stream)");
    }
    if (o.invert && o.listDevices) fail("--invert: not with --list-devices (nothing runs, nothing reproduces)");
    if ((o.captureGfxr || o.captureRgp) && (o.printStream || o.listDevices)) {
        fail(fmt::format("{}: captures a run; not with {} (nothing runs)",
                         o.captureGfxr ? "--capture-gfxr" : "--capture-rgp",
                         o.printStream ? "--print-stream" : "--list-devices"));
    }
    if (o.invert && o.printStream) fail("--invert: not with --print-stream (nothing runs, nothing reproduces)");
    if (o.keepLogs && !(o.matrix || o.triage || o.driverEnvSweep || o.watchdogProbe || o.gtest || o.mutants)) {
        fail(
            "--keep-logs: only with --matrix, --triage, --driver-env-sweep, --watchdog-probe, --mutants or "
            "--gtest_filter");
    }
    if (o.allDrivers && !o.driverEnvSweep) fail("--all-drivers: only with --driver-env-sweep");
}

// --merge-reports FILE...: reads reports, runs nothing; only --format goes with it.
Options readMergeOptions(const RawArgs& raw) {
    if (raw.files.empty()) fail("--merge-reports: no files given (--merge-reports FILE...)");
    for (const OptionSpec* spec : allOptions()) {
        if (spec->longName != "--merge-reports" && spec->longName != "--format" && given(raw, *spec))
            fail(fmt::format("--merge-reports: not with {} (it runs nothing; only --format applies)",
                             optionLabel(*spec)));
    }
    checkChoices(raw);
    Options o;
    if (raw.format) o.format = *parseName<Format>(*raw.format, kFormatNames);
    o.mergeReports = raw.files;
    return o;
}

// --gtest_output's value: "xml" (test_detail.xml, as GoogleTest), "xml:FILE" or "xml:DIR/"
// (DIR/repro.xml).
std::string gtestXmlFile(const std::string& value) {
    if (value == "xml") return "test_detail.xml";
    if (!value.starts_with("xml:") || value.size() == 4)
        fail(fmt::format("--gtest_output: {} is not xml or xml:FILE (repro writes GoogleTest's XML only)",
                         quote(value)));
    const std::string path = value.substr(4);
    return path.ends_with('/') ? path + "repro.xml" : path;
}

// The options that cannot go with the GoogleTest protocol: each test chooses its file and
// mode, and the protocol's lines are the output.
void readGtest(const RawArgs& raw, Options& o) {
    if (!(raw.gtestListTests || raw.gtestFilter || raw.gtestOutput)) {
        if (raw.scenarioDir) fail("--scenario-dir: only with --gtest_list_tests, --gtest_filter or --gtest_output");
        if (raw.gtestAlsoRunDisabled) fail("--gtest_also_run_disabled_tests: only with --gtest_filter");
        return;
    }
    const std::string_view refused[] = {
        "--scenario",         "--mode",        "--matrix",       "--triage",         "--watchdog-probe",
        "--driver-env-sweep", "--all-drivers", "--print-stream", "--write-scenario", "--list-scenarios",
        "--format",           "--output",      "--json",         "--trace",          "--invert",
        "--capture-gfxr",     "--capture-rgp", "--sweep",        "--list-devices"};
    for (const std::string_view name : refused) {
        const OptionSpec& spec = *findLongOption(name);
        if (given(raw, spec))
            fail(
                fmt::format("{}: not with the GoogleTest protocol (each test is one file or the chain in one "
                            "mode, reported in GoogleTest's lines)",
                            optionLabel(spec)));
    }
    o.gtest = Options::Gtest{.list = raw.gtestListTests,
                             .filter = raw.gtestFilter.value_or("*"),
                             .xmlFile = raw.gtestOutput ? std::optional(gtestXmlFile(*raw.gtestOutput)) : std::nullopt,
                             .scenarioDir = raw.scenarioDir};
    if (o.gtest->list && o.gtest->xmlFile) fail("--gtest_output: not with --gtest_list_tests (nothing runs)");
}

// An option that cannot mean anything for the plan's form: one line saying why, from the
// option table (notForFile, notForChain); and --list-scenarios goes alone.
void checkFormRules(const RawArgs& raw) {
    // The GoogleTest protocol runs files and the chain: each test's child gets its form's options.
    const bool gtest = raw.gtestListTests || raw.gtestFilter || raw.gtestOutput;
    for (const OptionSpec* spec : allOptions()) {
        if (!given(raw, *spec)) continue;
        if (raw.listScenarios && spec->longName != "--list-scenarios")
            fail(fmt::format("--list-scenarios: not with {} (it lists the shipped files and exits)",
                             optionLabel(*spec)));
        if (gtest) continue;
        if (raw.scenario && !spec->notForFile.empty())
            fail(fmt::format("{}: not with --scenario: {}", optionLabel(*spec), spec->notForFile));
        if (!raw.scenario && !spec->notForChain.empty())
            fail(fmt::format("{}: only with --scenario: {}", optionLabel(*spec), spec->notForChain));
    }
}

Options readOptions(const RawArgs& raw, std::optional<std::string_view> envChain) {
    checkFormRules(raw);
    checkChoices(raw);
    Options o;
    // A file's steps are its own: the environment's N is the built-in chain's.
    readChainAndShape(raw, raw.scenario ? std::nullopt : envChain, o);
    for (const auto& [from, to] : kFlagsKept) o.*to = raw.*from;
    for (const auto& [from, to] : kValuesKept) o.*to = raw.*from;
    if (raw.queue) o.queue = parseQueue(*raw.queue);
    readRun(raw, o);
    if (raw.format) o.format = *parseName<Format>(*raw.format, kFormatNames);
    if (o.format == Format::Csv)
        fail("--format csv: only with --merge-reports (a run's report is text, markdown or json)");
    readExperiments(raw, o);
    readGtest(raw, o);
    checkOtherRules(o);
    checkMultiRunRules(raw, o);
    checkRecordingRules(raw, o);
    return o;
}

ParseOutcome usageError(std::string line) {
    ParseOutcome outcome;
    outcome.exitStatus = 1;
    outcome.err = std::move(line);
    return outcome;
}

}  // namespace

std::string_view name(Mode m) { return nameOf(kModeNames, m); }

std::string_view name(Format f) { return nameOf(kFormatNames, f); }

std::string_view name(ReferenceKind k) { return nameOf(kReferenceNames, k); }

std::optional<std::vector<Mode>> parseModes(std::string_view text) {
    if (const auto m = parseName<Mode>(text, kModeNames)) return std::vector{*m};
    // `single` runs last: it is the one most likely to hang the GPU.
    if (text == "all") return std::vector{Mode::Split, Mode::Multipass, Mode::Single};
    return std::nullopt;
}

std::string driverEnvSweepControlRefusal(std::string_view which) {
    return fmt::format(
        "--driver-env-sweep: not with a positive control ({}): a setting is judged against the driver's own "
        "failure, and a control's wrong output is not the driver's",
        which);
}

bool splitAsked(const Options& o) { return std::find(o.modes.begin(), o.modes.end(), Mode::Split) != o.modes.end(); }

bool splitRunsAfter(const Options& o) {
    return !splitAsked(o) && (o.reference == ReferenceKind::Auto || o.reference == ReferenceKind::Split);
}

ParseOutcome parseCommandLine(int argc, const char* const* argv, std::optional<std::string_view> envChain,
                              std::optional<int> helpWidth) {
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    try {
        checkSyntax(std::vector<std::string>(args.rbegin(), args.rend()));
        const RawArgs raw = readRawArgs(args);
        ParseOutcome outcome;
        if (raw.help) {
            // --help is the complete text; -h alone (or in a cluster, "-vh") the one screen.
            const auto options = std::find(args.begin(), args.end(), "--");
            const bool full = std::find(args.begin(), options, "--help") != options;
            outcome.out = full ? renderHelp(helpWidth.value_or(helpColumns())) : renderShortHelp();
        } else if (raw.version) {
            outcome.out = versionText(std::nullopt);
            outcome.version = true;
        } else if (raw.bashCompletion) {
            outcome.out = renderBashCompletion();
        } else {
            outcome.options = raw.mergeReports ? readMergeOptions(raw) : readOptions(raw, envChain);
            for (int i = 0; i < argc; ++i) outcome.options->commandLine.emplace_back(argv[i]);
        }
        return outcome;
    } catch (const UsageError& e) {
        return usageError(fmt::format("repro: {}", e.what()));
    } catch (const CLI::ParseError& e) {  // not reached: checkSyntax rejects what CLI11 would
        return usageError(fmt::format("repro: {} (see --help)", escaped(e.what())));
    } catch (const std::exception& e) {
        return usageError(fmt::format("repro: internal error reading the command line: {}", escaped(e.what())));
    }
}

}  // namespace repro
