// `repro --scenario FILE` and `--list-scenarios` (engine/scenario_run.hpp).
#include "engine/scenario_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/output.hpp"
#include "cli/output_paths.hpp"
#include "core/parallel.hpp"
#include "scenario/scenario_chain.hpp"
#include "scenario/scenario_cpu.hpp"
#include "scenario/scenario_parse.hpp"
#include "report/scenario_report.hpp"
#include "scenario/scenario_sync.hpp"
#include "core/variant.hpp"
#include "report/verdict.hpp"
#include "engine/device_choice.hpp"
#include "engine/stream_capture.hpp"
#include "vk/check.hpp"
#include "vk/device.hpp"
#include "vk/instance.hpp"
#include "vk/physical_device.hpp"
#include "vk/scenario_recorder.hpp"
#include "vk/trace.hpp"
#include "vk/watch.hpp"
#include "core/subprocess.hpp"
#include "children/triage.hpp"
#include "children/supervisor.hpp"
#include "children/triage_run.hpp"
#include "vk/describe.hpp"
#include "repro_version.h"

namespace repro {
namespace {

namespace sc = repro::scenario;

// Each submit's wait when --timeout is not given: the kernel set's dispatches are short.
constexpr double kScenarioTimeoutSeconds = 60;

// Which step of `s` last wrote byte `byte` of `buffer` in the CPU model, for a mismatch line.
// With `before`, only the steps before index `before` count (a host read there).
std::string writtenBy(const sc::Scenario& s, const std::string& buffer, size_t byte, size_t before = ~size_t{0}) {
    const auto step = sc::lastWriter(s, buffer, byte, before);
    if (!step) return "written by no step (its initial contents)";
    return "last written by " + s.steps[*step].label;
}

// The first difference of `got` from `want` for buffer `name`, or nothing when equal; it
// names the step before index `before` that last wrote the first differing byte (writtenBy).
std::optional<std::string> firstDifference(const sc::Scenario& s, const std::string& name,
                                           const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                                           std::string_view against, size_t before = ~size_t{0}) {
    if (got == want) return std::nullopt;
    size_t first = 0;
    while (first < got.size() && got[first] == want[first]) ++first;
    const size_t word = first / 4;
    uint32_t g = 0, w = 0;
    for (size_t b = 0; b < 4 && word * 4 + b < got.size(); ++b) {
        g |= uint32_t{got[word * 4 + b]} << (8 * b);
        w |= uint32_t{want[word * 4 + b]} << (8 * b);
    }
    size_t wrongWords = 0;
    for (size_t i = 0; i + 3 < got.size(); i += 4) {
        if (!std::equal(got.begin() + i, got.begin() + i + 4, want.begin() + i)) ++wrongWords;
    }
    const sc::BufferSpec* spec = s.buffer(name);
    const bool poison = spec && spec->poisoned && g == spec->value;  // --poison: the sentinel survived
    return fmt::format(
        "buffer '{}' differs from {} at byte {} (word {}: 0x{:08x}{}, {} 0x{:08x}), {}; {} of {} words differ", name,
        against, first, word, g, poison ? " (still the poison value: never written)" : "", against, w,
        writtenBy(s, name, first, before), wrongWords, got.size() / 4);
}

// The first difference of any checked buffer.
std::optional<std::string> compare(const sc::Scenario& s, const sc::Contents& got, const sc::Contents& want,
                                   std::string_view against) {
    for (const auto& [name, bytes] : got) {
        const auto w = want.find(name);
        if (w == want.end()) continue;  // a buffer compared with split only (splitOnlyBuffers)
        if (auto d = firstDifference(s, name, bytes, w->second, against)) return d;
    }
    return std::nullopt;
}

using HostReads = std::map<size_t, std::vector<uint8_t>>;  // by the host read's step index

// The first host read (in step order) of `got` that differs from `want`'s read at the same
// step ("step 3 host-read h: buffer 'h' differs from ..."); reads `want` lacks are skipped.
std::optional<std::string> hostReadDifference(const sc::Scenario& s, const HostReads& got, const HostReads& want,
                                              std::string_view against) {
    for (const auto& [index, bytes] : got) {
        const auto w = want.find(index);
        if (w == want.end()) continue;  // the CPU model cannot know it there: split only
        const std::string& buffer = std::get<sc::HostRead>(s.steps[index].body).buffer;
        if (auto d = firstDifference(s, buffer, bytes, w->second, against, index))
            return s.steps[index].label + ": " + *d;
    }
    return std::nullopt;
}

// The checked buffers the word-by-word CPU model cannot know that hold a value of the
// built-in chain at the end (scenario/scenario_chain.hpp: small[k] or big[k], written by conv-t
// and slice from chain-input and chain-weight): the CPU model compares them within its float32
// tolerance, unless s.cpuChain is off (--reference split, or auto past its size). Buffer name ->
// the value. checkedChainValues: the same whether or not the CPU chain is on.
sc::ChainValues checkedChainValues(const sc::Scenario& s) {
    const auto unmodelled = sc::unmodelledBuffers(s);
    sc::ChainValues out;
    for (const auto& [name, v] : sc::finalChainValues(s)) {
        const sc::BufferSpec* b = s.buffer(name);
        if (b && b->checked && unmodelled.count(name) && v.kind != sc::ChainValue::Kind::Weight) out.emplace(name, v);
    }
    return out;
}
sc::ChainValues chainChecked(const sc::Scenario& s) { return s.cpuChain ? checkedChainValues(s) : sc::ChainValues{}; }

// The checked buffers the CPU model cannot know (a user kernel's output, a float kernel's
// output that holds no value of the chain, or what a step made of either: scenario/scenario_cpu.hpp
// unmodelledBuffers less chainChecked), in file order; splitOnlyBuffers quotes and joins them:
// "'acc', 'out'" ("" when none). They are compared with split only.
std::vector<std::string> splitOnlyList(const sc::Scenario& s) {
    const auto unmodelled = sc::unmodelledBuffers(s);
    const auto chain = chainChecked(s);
    std::vector<std::string> out;
    for (const auto& b : s.buffers) {
        if (b.checked && unmodelled.count(b.name) && !chain.count(b.name)) out.push_back(b.name);
    }
    return out;
}
// chainChecked in file order, each value described ("small[3]"), as the report keeps it.
std::vector<std::pair<std::string, std::string>> chainValueList(const sc::Scenario& s) {
    const sc::ChainValues chain = chainChecked(s);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& b : s.buffers) {
        if (const auto v = chain.find(b.name); v != chain.end()) out.emplace_back(b.name, sc::describe(v->second));
    }
    return out;
}
std::string splitOnlyBuffers(const sc::Scenario& s) {
    std::string out;
    for (const auto& name : splitOnlyList(s)) out += fmt::format("{}'{}'", out.empty() ? "" : ", ", name);
    return out;
}

// The checked buffers of `s` the CPU model computes (those not in splitOnlyList).
std::vector<std::string> modelledChecked(const sc::Scenario& s) {
    const auto unmodelled = sc::unmodelledBuffers(s);
    std::vector<std::string> out;
    for (const auto& b : s.buffers) {
        if (b.checked && !unmodelled.count(b.name)) out.push_back(b.name);
    }
    return out;
}

bool hasHostRead(const sc::Scenario& s) {
    return std::any_of(s.steps.begin(), s.steps.end(),
                       [](const sc::Step& step) { return std::holds_alternative<sc::HostRead>(step.body); });
}

// Whether the CPU model compares anything in `s` bit for bit: a checked buffer it computes
// word by word, or a host read.
bool modelComparesExactly(const sc::Scenario& s) { return hasHostRead(s) || !modelledChecked(s).empty(); }
// Whether the CPU model compares anything in `s`: exactly, or a chain value within its
// tolerance (what cpuReferences gives it to compare).
bool modelCompares(const sc::Scenario& s) { return modelComparesExactly(s) || !chainChecked(s).empty(); }

// "'small[3]'" or "'small[3]', 'out'": the chain-checked buffers, quoted.
std::string chainBuffers(const sc::Scenario& s) {
    std::string out;
    for (const auto& [name, v] : chainChecked(s)) out += fmt::format("{}'{}'", out.empty() ? "" : ", ", name);
    return out;
}

// What a right mode's checked bytes were compared with, as the ok and verdict lines say it:
// "bit-identical to the CPU model", with " and to split" when `withSplit`; for chain values
// (chainChecked) "within the CPU model's float32 tolerance" (alone, or for the named buffers
// after "bit-identical to the CPU model"); where the model compares nothing (modelCompares),
// "bit-identical to split", or for split itself "completed" (splitOnlyNote says its bytes are
// the reference). A run with neither is refused before it starts (prepareScenario).
std::string identicalTo(const sc::Scenario& s, bool withSplit) {
    const bool exact = modelComparesExactly(s), chain = !chainChecked(s).empty();
    std::string model;
    if (exact && chain)
        model = fmt::format("bit-identical to the CPU model ({}: within its float32 tolerance)", chainBuffers(s));
    else if (exact)
        model = "bit-identical to the CPU model";
    else if (chain)
        model = "within the CPU model's float32 tolerance";
    if (model.empty()) return withSplit ? "bit-identical to split" : "completed";
    if (!withSplit) return model;
    return model + (exact ? " and to split" : " and bit-identical to split");
}

// " (the checked buffers and 2 host reads)" when a mode read buffers at host points; "" else.
std::string hostReadNote(size_t reads) {
    return reads == 0 ? "" : fmt::format(" (the checked buffers and {} host read{})", reads, reads == 1 ? "" : "s");
}

// What the CPU model cannot compute in `s`: "a user kernel", "conv-t or slice (float
// kernels) outside the chain's values", or both (scenario/scenario.hpp cpuModelled): a conv-t or slice counts
// when its output holds no value of the built-in chain after it (scenario/scenario_chain.hpp).
std::string unmodelledKernels(const sc::Scenario& s) {
    bool user = false, chain = false;
    sc::ChainValues values = sc::initialChainValues(s);
    for (const auto& step : s.steps) {
        sc::chainValuesAfter(step, s, values);
        const auto* d = std::get_if<sc::Dispatch>(&step.body);
        if (d && !d->user.empty()) user = true;
        if (d && d->user.empty() && sc::isChainKernel(d->kernel) && (!s.cpuChain || !values.count(d->bindings.back())))
            chain = true;
    }
    // Without a user kernel, whatever the model cannot know comes from conv-t or slice (one
    // whose output held a value of the chain until a later partial write, say).
    if (!user) chain = true;
    if (user && chain) return "a user kernel, conv-t or slice";
    if (!chain) return "a user kernel";
    return s.cpuChain ? "conv-t or slice (float kernels) outside the chain's values"
                      : "conv-t or slice (float kernels; the CPU chain is off)";
}

bool hasSplit(const Options& o) { return std::find(o.modes.begin(), o.modes.end(), Mode::Split) != o.modes.end(); }
// Whether modes other than split are compared with split: split and another mode asked for.
bool comparedWithSplit(const Options& o) { return hasSplit(o) && o.modes.size() > 1; }

// What an ok line and the verdict add for the split-only buffers `names` (splitOnlyBuffers):
// "" when none.
std::string splitOnlyNote(const sc::Scenario& s, const std::string& names, const Options& o, bool isSplit) {
    if (names.empty()) return "";
    const std::string by = unmodelledKernels(s);
    if (isSplit) return fmt::format("; {} (written by {}): split's bytes are the reference", names, by);
    return fmt::format("; {} (written by {}): {}", names, by,
                       hasSplit(o) ? "compared with split only" : "compared with nothing (no split in --mode)");
}

// One chain value's comparison with the CPU chain (compareWithTolerance), for the lines.
struct ChainCheck {
    std::string buffer;
    sc::ChainValue value;
    ToleranceReport report;
};

// The mismatch line of a chain value outside the tolerance, or nothing: "buffer 'small[3]'
// (the chain's small[3]) is outside the CPU model's float32 tolerance at 7680 of 7680
// elements; the worst at byte 0: 0 (0x00000000), the CPU model 1.04 (0x3f853a1c), allowed
// difference 2.3e-07, last written by step 11 dispatch slice". `got` is what
// sc::comparedFloats gave, `cpu` and `tolerance` the reference's.
std::optional<std::string> chainDifference(const sc::Scenario& s, const ChainCheck& c, std::span<const float> got,
                                           std::span<const float> cpu, const Tolerance& tolerance,
                                           size_t before = ~size_t{0}) {
    const ToleranceReport& r = c.report;
    if (r.ok()) return std::nullopt;
    const size_t j = r.worstIndex;
    const uint64_t byte = sc::bufferFloatIndex(*s.shape, c.value, j) * 4;
    uint32_t gotBits = 0, cpuBits = 0;
    std::memcpy(&gotBits, &got[j], 4);
    std::memcpy(&cpuBits, &cpu[j], 4);
    const bool big = c.value.kind == sc::ChainValue::Kind::Big;
    return fmt::format(
        "buffer '{}' (the chain's {}{}) is outside the CPU model's float32 tolerance at {} of {} elements{}; the "
        "worst at byte {}: {:.9g} (0x{:08x}), the CPU model {:.9g} (0x{:08x}), allowed difference {:.3g}, {}",
        c.buffer, sc::describe(c.value), big ? ", its crop at (1, 1)" : "", r.exceeded, r.checked,
        r.nonfinite ? fmt::format(" ({} not finite)", r.nonfinite) : "", byte, got[j], gotBits, cpu[j], cpuBits,
        tolerance.allowed(j, cpu[j]), writtenBy(s, c.buffer, byte, before));
}

// --check-steps (docs/scenarios.md): split's steps, each compared after its submit with the
// CPU model's bytes after that step (vk::StepReadback hands over what the step wrote), or
// for a buffer that then holds a value of the chain (scenario/scenario_chain.hpp), with the CPU
// chain at that depth within its tolerance (a CpuStepper advanced alongside). A step is
// checked when it writes a buffer the model knows there; a step whose every written buffer a
// user kernel's output (or a float kernel's off the chain) reaches (unmodelledAfter) is not
// checked.
class StepChecker {
  public:
    explicit StepChecker(const sc::Scenario& s)
        : s_(s), model_(sc::initialContents(s)), values_(s.cpuChain ? sc::initialChainValues(s) : sc::ChainValues{}) {}
    void operator()(size_t index, const sc::Contents& written) {
        for (; applied_ <= index; ++applied_) {
            sc::applyStep(s_.steps[applied_], model_);
            sc::unmodelledAfter(s_.steps[applied_], s_, unmodelled_);
            sc::chainValuesAfter(s_.steps[applied_], s_, values_);
        }
        bool compared = false;
        std::optional<std::string> wrong;
        for (const auto& [name, bytes] : written) {
            if (unmodelled_.count(name)) {
                const auto d = compareChainValue(name, bytes, index);
                if (!d) continue;
                compared = true;
                if (!wrong) wrong = *d;
                continue;
            }
            compared = true;
            if (!wrong) wrong = firstDifference(s_, name, bytes, model_.at(name), "the CPU model", index + 1);
        }
        if (!compared) return result_.notChecked.push_back(index);
        ++result_.checked;
        if (!wrong) return;
        ++result_.wrong;
        if (!result_.firstWrong) result_.firstWrong = index, result_.firstDetail = *wrong;
    }
    struct Result {
        uint64_t checked = 0, wrong = 0;
        std::vector<size_t> notChecked;    // step indices
        std::optional<size_t> firstWrong;  // step index
        std::string firstDetail;           // its mismatch line (firstDifference)
    };
    const Result& result() const { return result_; }

  private:
    // Buffer `name` against the CPU chain when it holds a value of it after step `index`: its
    // mismatch line or nothing; not compared (nullopt) when it holds none, or one shallower
    // than one compared before (the stepper does not go back).
    std::optional<std::optional<std::string>> compareChainValue(const std::string& name,
                                                                const std::vector<uint8_t>& bytes, size_t index) {
        const auto v = values_.find(name);
        if (v == values_.end() || v->second.kind == sc::ChainValue::Kind::Weight) return std::nullopt;
        const uint32_t depth = sc::referenceDepth(v->second);
        if (!stepper_) stepper_.emplace(*s_.shape);
        if (stepper_->steps() > depth) return std::nullopt;
        while (stepper_->steps() < depth) stepper_->advance();
        const Tolerance tolerance = stepper_->tolerance();
        const std::vector<float> floats = sc::comparedFloats(*s_.shape, v->second, bytes);
        const ChainCheck check{
            .buffer = name, .value = v->second, .report = compareWithTolerance(floats, stepper_->small(), tolerance)};
        return chainDifference(s_, check, floats, stepper_->small(), tolerance, index + 1);
    }

    const sc::Scenario& s_;
    sc::Contents model_;
    std::set<std::string> unmodelled_;
    sc::ChainValues values_;
    std::optional<CpuStepper> stepper_;  // made at the first chain value a step writes
    size_t applied_ = 0;
    Result result_;
};

struct ModeOutcome {
    Mode mode;
    vk::ScenarioModeRun run;
    std::optional<std::string> wrong;          // why it is wrong
    uint64_t messages = 0;                     // validation messages while it ran
    std::optional<StepChecker::Result> steps;  // split with --check-steps
    std::string chainNote;                     // judge: its chain values' figures (chainNote), when right
};

// "step 2 dispatch mix (user SPIR-V), step 4 copy acc -> out": the labels of `indices`, the
// first kListedNames of them and then how many in all.
constexpr size_t kListedNames = 6;
std::string stepLabels(const sc::Scenario& s, const std::vector<size_t>& indices) {
    std::string out;
    for (size_t i = 0; i < indices.size() && i < kListedNames; ++i)
        out += (out.empty() ? "" : ", ") + s.steps[indices[i]].label;
    if (indices.size() > kListedNames) out += fmt::format(", ... ({} in all)", indices.size());
    return out;
}

// The --check-steps lines under split's result.
void printStepCheck(const sc::Scenario& s, const ModeOutcome& m) {
    const StepChecker::Result& r = *m.steps;
    if (r.firstWrong) {
        say("    check-steps: first wrong step: {}: {}; {} of {} checked step(s) differ", s.steps[*r.firstWrong].label,
            r.firstDetail, r.wrong, r.checked);
    } else {
        say("    check-steps: {} {} checked step(s) matched the CPU model after their submit ({} readback "
            "submit(s))",
            m.run.completed ? "all" : "before the run ended,", r.checked, m.run.stepReadbacks);
    }
    if (!r.notChecked.empty())
        say("    check-steps: not checked (the CPU model cannot know what they write: {}): {}",
            unmodelledKernels(s) == "a user kernel" ? "a user kernel's output"
                                                    : "the output of " + unmodelledKernels(s),
            stepLabels(s, r.notChecked));
}

// The steps' labels joined by "; ", the first kListedSteps of them and then how many in all
// (a repeat makes hundreds).
constexpr size_t kListedSteps = 12;
std::string stepList(const sc::Scenario& s) {
    std::string steps;
    for (size_t i = 0; i < s.steps.size() && i < kListedSteps; ++i)
        steps += (steps.empty() ? "" : "; ") + s.steps[i].label;
    if (s.steps.size() > kListedSteps) steps += fmt::format("; ... ({} steps in all)", s.steps.size());
    return steps;
}

void printHeader(const sc::Scenario& s, const vk::DeviceInfo& device, const Options& o) {
    say("repro: scenario '{}' ({})", s.name, s.file);
    say("  source:   {}", s.source);
    say("  pattern:  {}", s.pattern);
    say("  expected on a correct driver: {}", s.expected);
    say("  device:   {} ({})", device.properties.deviceName,
        device.hasDriverProperties ? device.driver.driverInfo : "no driver properties");
    say("  steps:    {}", stepList(s));
    if (s.submitEvery > 0) {
        const size_t work = sc::workSteps(s);
        say("  submits:  multipass and single end a submit after every {} work step(s), the host waiting for it "
            "(--submit-every {}){}",
            s.submitEvery, s.submitEvery,
            work <= s.submitEvery ? fmt::format("; the file has {}, so they still submit once", work) : "");
    }
    if (s.hasControl())
        say("  note: {} is labelled a control (insufficient on purpose): a wrong result proves nothing "
            "about the driver",
            s.controlSteps());
    for (const auto& k : s.kernels)
        say("  kernel:   {} (user SPIR-V {}, entry {}, {} binding(s), local size {}x{}x{})", k.name, k.spirv, k.entry,
            k.writes.size(), k.localSize[0], k.localSize[1], k.localSize[2]);
    if (s.shape)
        say("  shape:    {} ({}; conv-T {} workgroups, slice {}; the built-in chain's --preset {})", s.shapeName,
            describe(*s.shape), fmt::join(computeSizes(*s.shape).convWorkgroups, "x"),
            fmt::join(computeSizes(*s.shape).sliceWorkgroups, "x"), s.shapeName);
    if (const sc::ChainValues off = s.cpuChain ? sc::ChainValues{} : checkedChainValues(s); !off.empty()) {
        const std::string why =
            o.reference == ReferenceKind::Split
                ? std::string("--reference split")
                : fmt::format("{:.2g} multiply-adds, past --reference auto's {:.2g}; --reference cpu computes it",
                              double(sc::chainReferenceCost(*s.shape, off)), double(sc::kAutoChainMultiplyAdds));
        for (const auto& [buffer, v] : off)
            say("  chain:    '{}' holds the chain's {}; the CPU chain is off ({}): compared with split only", buffer,
                sc::describe(v), why);
    }
    for (const auto& [buffer, v] : chainChecked(s))
        say("  chain:    '{}' holds the chain's {}{}: compared with the CPU model's float64 chain within a float32 "
            "tolerance derived from the shaders' summation (src/reference/cpu_reference.hpp)",
            buffer, sc::describe(v), v.kind == sc::ChainValue::Kind::Big ? " (its crop at (1, 1))" : "");
    std::string parameters;
    for (const auto& [n, v] : s.parameters)
        parameters += fmt::format("{}{} = {}", parameters.empty() ? "" : ", ", n, v);
    if (!parameters.empty())
        say("  parameters: {}{}", parameters,
            o.scenarioSweep ? fmt::format(" (--sweep {})", o.scenarioSweep->parameter) : "");
    std::string poisoned;
    for (const auto& b : s.buffers) {
        if (b.poisoned) poisoned += fmt::format("{}'{}'", poisoned.empty() ? "" : ", ", b.name);
    }
    if (!poisoned.empty())
        say("  poison:   {} start as 0x{:08x} words in every mode and in the CPU model (--poison: init undefined "
            "or written before read)",
            poisoned, kPoisonPattern);
    if (const std::string names = splitOnlyBuffers(s); !names.empty())
        say("  note: the CPU model cannot compute {}: checked buffer(s) {} are compared with split only{}",
            unmodelledKernels(s), names, hasSplit(o) ? "" : ", and --mode has no split: with nothing");
}

std::string plural(uint64_t n, std::string_view word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// What one run needs besides the scenario: the device, the instance whose validation log
// counts each mode's messages (with --validation), and the timings every run adds to.
struct RunTarget {
    vk::Device& device;
    const vk::Instance& instance;
    ScenarioTimings& timings;  // the phases, added to by every run
};

// Adds one mode run's host phases to the run's timings.
void addPhases(ScenarioTimings& t, const vk::ScenarioModeRun& run) {
    t.buffersAndUpload += run.buffersAndUpload;
    t.recording += run.recording;
    t.gpuWait += run.gpuWait;
    t.readback += run.readback;
}

using ChainReferences = std::map<std::string, sc::ChainExpected>;

// What each mode is compared with from the CPU model: its checked buffers and host reads
// (and, in judge, split's once it completed).
struct References {
    sc::Contents expected;  // the CPU model's bytes of the checked buffers it knows
    HostReads hostModel;    // the CPU model's host reads (hostReadContents)
    // The chain values among the checked buffers (chainChecked), computed beside the modes;
    // not valid() when there are none.
    std::shared_future<ChainReferences> chain;
};

// The CPU chain's references for `values` at `shape` (sc::chainReferences), started on a
// thread of its own (startInBackground) the first time they are asked for and shared after:
// a --sweep or --matrix prepares each variant, and at the full shape one reference is
// seconds of host work (bench/RESULTS.md). The thread runs while the GPU runs the modes;
// judge waits for it.
std::shared_future<ChainReferences> chainReferencesFor(const Shape& shape, const sc::ChainValues& values) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_future<ChainReferences>> started;
    std::string key =
        fmt::format("{} {} {} {} {} {} {} {} {} {}", shape.batch, shape.channels, shape.height, shape.width,
                    shape.kernelH, shape.kernelW, shape.strideH, shape.strideW, shape.padH, shape.padW);
    for (const auto& [name, v] : values) key += fmt::format(" {}={}", name, sc::describe(v));
    const std::lock_guard lock(mutex);
    auto& future = started[key];
    if (!future.valid())
        future = startInBackground([shape, values] { return sc::chainReferences(shape, values); }).share();
    return future;
}

// The CPU model runs only when something is compared with it: a checked buffer it can know,
// or a host read (at the blade file's full shape, a model that knows nothing still copied
// 165 MB of buffers: bench/RESULTS.md, round 9).
References cpuReferences(const sc::Scenario& s) {
    References r;
    if (const sc::ChainValues chain = chainChecked(s); !chain.empty()) r.chain = chainReferencesFor(*s.shape, chain);
    if (const std::vector<std::string> modelled = modelledChecked(s); !modelled.empty()) {
        const sc::Contents model = sc::runCpuModel(s);
        for (const auto& name : modelled) r.expected.emplace(name, model.at(name));
    }
    if (hasHostRead(s)) r.hostModel = sc::hostReadContents(s);
    return r;
}

// What the ok line adds for chain values that were within the tolerance: "; 'small[3]': the
// largest difference 3.1e-09, 0.0012 of the allowed", with ", the bound admits zero at 12 of
// 7680 elements" where it is that loose (ToleranceReport::uninformative: there the check
// could not tell a right value from a lost one).
std::string chainNote(const std::vector<ChainCheck>& checks) {
    std::string out;
    for (const ChainCheck& c : checks) {
        out += fmt::format("; '{}': the largest difference {:.2g}, {:.2g} of the allowed", c.buffer,
                           c.report.maxAbsDiff, c.report.worstRatio);
        if (c.report.uninformative)
            out +=
                fmt::format(", the bound admits zero at {} of {} elements", c.report.uninformative, c.report.checked);
    }
    return out;
}

// The checked chain values of mode `m` against the CPU chain (waiting for it): the first
// outside the tolerance as a mismatch line, else nothing, with every comparison in `checks`.
std::optional<std::string> compareChain(const sc::Scenario& s, const References& r, const ModeOutcome& m,
                                        std::vector<ChainCheck>& checks) {
    if (!r.chain.valid()) return std::nullopt;
    for (const auto& [name, expected] : r.chain.get()) {
        const auto got = m.run.checked.find(name);
        if (got == m.run.checked.end()) continue;
        const std::vector<float> floats = sc::comparedFloats(*s.shape, expected.value, got->second);
        checks.push_back({.buffer = name,
                          .value = expected.value,
                          .report = compareWithTolerance(floats, expected.small, expected.tolerance)});
        if (auto d = chainDifference(s, checks.back(), floats, expected.small, expected.tolerance)) return d;
    }
    return std::nullopt;
}

// Why completed mode `m` is wrong, or nothing: its host reads, then its checked buffers, each
// against the CPU model (chain values within its tolerance: compareChain, their figures in
// m.chainNote when right) and then against `split` (split's completed run of the same round,
// or nullptr); then (split with --check-steps) its first wrong step.
std::optional<std::string> judge(const sc::Scenario& s, const References& r, const ModeOutcome* split, ModeOutcome& m) {
    auto wrong = hostReadDifference(s, m.run.hostReads, r.hostModel, "the CPU model");
    if (!wrong && split) wrong = hostReadDifference(s, m.run.hostReads, split->run.hostReads, "split");
    if (!wrong) wrong = compare(s, m.run.checked, r.expected, "the CPU model");
    if (!wrong) {
        std::vector<ChainCheck> checks;
        wrong = compareChain(s, r, m, checks);
        if (!wrong) m.chainNote = chainNote(checks);
    }
    if (!wrong && split) wrong = compare(s, m.run.checked, split->run.checked, "split");
    if (!wrong && m.steps && m.steps->firstWrong)
        wrong = fmt::format("check-steps: {}: {}", s.steps[*m.steps->firstWrong].label, m.steps->firstDetail);
    return wrong;
}

// What every run of one scenario shares: the kernels' pipelines, the CPU model's bytes and
// the buffers, made once (for --repeat, all K runs; for --sweep, once per value). `s` must
// outlive it (the buffers keep it).
struct Prepared {
    vk::ScenarioPipelines pipelines;
    References refs;
    std::unique_ptr<vk::ScenarioBuffers> buffers;
};

Prepared prepare(vk::Device& device, const sc::Scenario& s, const Options& o, ScenarioTimings& timings) {
    auto begin = Clock::now();
    vk::ScenarioPipelines pipelines = vk::createScenarioPipelines(device, s);
    timings.pipelines += secondsSince(begin);
    begin = Clock::now();
    References refs = cpuReferences(s);
    timings.cpuModel += secondsSince(begin);
    begin = Clock::now();
    auto buffers = std::make_unique<vk::ScenarioBuffers>(device, s, o.checkSteps && hasSplit(o));
    timings.buffersAndUpload += secondsSince(begin);
    return {.pipelines = std::move(pipelines), .refs = std::move(refs), .buffers = std::move(buffers)};
}

// One run of `mode`, split with --check-steps reading back each step (StepChecker).
ModeOutcome runOneMode(const RunTarget& t, const Prepared& p, const sc::Scenario& s, const Options& o, Mode mode) {
    const uint64_t before = t.instance.validationLog().count();
    std::optional<StepChecker> checker;  // the model's copy of every buffer: only when asked for
    vk::StepReadback readback;
    if (o.checkSteps && mode == Mode::Split) readback.onStep = std::ref(checker.emplace(s));
    const double timeout = o.timeoutSeconds.value_or(kScenarioTimeoutSeconds);
    // For the supervisor: a driver that fails from here on failed the modes under test.
    watch::stage(watch::Stage::Modes, fmt::format("mode {}", name(mode)), name(mode));
    ModeOutcome m{
        .mode = mode,
        .run = vk::runScenarioMode(t.device, p.pipelines, *p.buffers, s, mode, timeout, o.timestamps, readback),
        .wrong = {}};
    m.messages = t.instance.validationLog().count() - before;
    if (checker) m.steps = checker->result();
    addPhases(t.timings, m.run);
    return m;
}

// Runs the modes (split first when asked for, as the reference) and prints each (with
// `print`; otherwise only failures, for --repeat).
std::vector<ModeOutcome> runModes(const RunTarget& t, const Prepared& p, const sc::Scenario& s, const Options& o,
                                  bool print = true,
                                  const std::function<void(const std::vector<ModeOutcome>&)>& onMode = {}) {
    const std::string splitOnly = splitOnlyBuffers(s);
    std::vector<ModeOutcome> out;
    std::optional<size_t> splitAt;  // split's completed outcome in `out`, the later modes' reference
    for (const Mode mode : o.modes) {
        ModeOutcome m = runOneMode(t, p, s, o, mode);
        if (print) say("  mode={:<9} {} submit(s)", name(mode), m.run.submits);
        if (!m.run.completed) {
            say("    -> {}{}: {}", print ? "" : fmt::format("mode={} ", name(mode)), m.run.hang ? "HANG" : "FAILED",
                m.run.failure);
            if (print && m.steps) printStepCheck(s, m);
            out.push_back(std::move(m));
            if (onMode) onMode(out);
            if (out.back().run.hang) break;  // a timed-out device is abandoned already
            continue;
        }
        const auto phase = Clock::now();
        m.wrong = judge(s, p.refs, splitAt ? &out[*splitAt] : nullptr, m);
        t.timings.verification += secondsSince(phase);
        if (print)
            say("    -> {}", m.wrong ? "MISMATCH: " + *m.wrong
                                     : fmt::format("ok: {}{}{}{}", identicalTo(s, splitAt.has_value()),
                                                   hostReadNote(m.run.hostReads.size()), m.chainNote,
                                                   splitOnlyNote(s, splitOnly, o, mode == Mode::Split)));
        if (print && m.steps) printStepCheck(s, m);
        if (print && o.validation) say("    validation: {} in this mode", plural(m.messages, "message"));
        if (print && o.timestamps)
            say("    GPU time: {}", m.run.gpuSeconds ? fmt::format("{:.3f} ms (timestamps around each of its submits)",
                                                                   *m.run.gpuSeconds * 1e3)
                                                     : std::string("not measured (no timestamps on this queue)"));
        out.push_back(std::move(m));
        if (mode == Mode::Split) splitAt = out.size() - 1;
        if (onMode) onMode(out);
    }
    return out;
}

// The verdict's status and line (printed by the caller, kept in the report).
struct ScenarioVerdict {
    int status = kExitNotReproduced;
    std::string line;
};

ScenarioVerdict verdict(const sc::Scenario& s, const std::vector<ModeOutcome>& modes,
                        const std::string& splitOnlyNote) {
    for (const auto& m : modes) {
        if (m.run.hang) return {kExitHang, fmt::format("--- GPU HANG: mode {}: {}", name(m.mode), m.run.failure)};
    }
    for (const auto& m : modes) {
        if (m.wrong)
            return {kExitReproduced, fmt::format("--- BUG REPRODUCED: mode {} is wrong: {}", name(m.mode), *m.wrong)};
        if (!m.run.completed)
            return {kExitCannotTest, fmt::format("--- CANNOT TEST HERE: mode {}: {}", name(m.mode), m.run.failure)};
    }
    return {kExitNotReproduced,
            fmt::format("--- NOT REPRODUCED: every mode's checked buffers are {}{}",
                        identicalTo(s, modes.size() > 1 &&
                                           std::any_of(modes.begin(), modes.end(),
                                                       [](const ModeOutcome& m) { return m.mode == Mode::Split; })),
                        splitOnlyNote)};
}

// Adds run `run` (1-based) of the modes to the report's per-mode results (one entry per mode
// of `o.modes`, made by the first call); a mode the run did not reach is "not run".
void accumulate(std::vector<ScenarioModeReport>& acc, const std::vector<ModeOutcome>& modes, const Options& o,
                uint32_t run, bool partial = false) {
    if (acc.empty()) {
        for (const Mode mode : o.modes) acc.push_back({.mode = std::string(name(mode)), .result = "ok", .runs = 0});
    }
    const std::string prefix = o.repeat > 1 ? fmt::format("run {}: ", run) : "";
    for (size_t i = 0; i < acc.size(); ++i) {
        ScenarioModeReport& r = acc[i];
        if (i >= modes.size()) {
            if (partial) continue;  // a run still going: the modes after `modes` keep their counts
            r.result = "not run";
            r.detail = prefix + "an earlier mode hung; the device is abandoned";
            continue;
        }
        const ModeOutcome& m = modes[i];
        r.submits = m.run.submits;
        if (m.run.gpuSeconds) r.gpuSeconds = r.gpuSeconds.value_or(0) + *m.run.gpuSeconds;
        if (o.validation) r.validationMessages = r.validationMessages.value_or(0) + m.messages;
        if (!m.run.completed) {
            r.result = m.run.hang ? "hang" : "failed";
            r.detail = prefix + m.run.failure;
            continue;
        }
        ++r.runs;
        if (m.wrong && r.wrongRuns++ == 0) {
            r.result = "mismatch";
            r.detail = prefix + *m.wrong;
        }
    }
}

// For the supervisor: the document with run `run`'s modes so far counted in (`report` holds
// the earlier runs, values or rows, and --sweep's or --matrix's current row), published after
// each mode, so that a driver that crashes or stalls later leaves what finished in the document
// the parent writes (runScenarioCommand reads it back with readScenarioProgress, and
// markUnfinished marks where it ended). A mode no run has reached yet is not in it.
void publishSoFar(const ScenarioReport& report, const std::vector<ModeOutcome>& modes, const Options& o,
                  uint32_t run = 1) {
    ScenarioReport partial = report;
    const bool firstRun = partial.modes.empty();
    accumulate(partial.modes, modes, o, run, /*partial=*/true);
    if (firstRun) partial.modes.resize(modes.size());  // the modes not reached yet are not in it
    watch::publishReport(nlohmann::json::parse(renderScenarioJson(partial)).dump());
}

// The report's check_steps from split's outcome (nullopt without --check-steps or split).
std::optional<ScenarioStepCheckReport> stepCheckReport(const sc::Scenario& s, const std::vector<ModeOutcome>& modes) {
    for (const ModeOutcome& m : modes) {
        if (!m.steps) continue;
        ScenarioStepCheckReport r{.checked = m.steps->checked,
                                  .wrong = m.steps->wrong,
                                  .readbacks = m.run.stepReadbacks,
                                  .completed = m.run.completed};
        for (const size_t i : m.steps->notChecked) r.notChecked.push_back(s.steps[i].label);
        if (m.steps->firstWrong) {
            r.firstWrongStep = *m.steps->firstWrong + 1;
            r.firstWrongLabel = s.steps[*m.steps->firstWrong].label;
            r.firstWrongDetail = m.steps->firstDetail;
            r.wrongRuns = 1;
            r.firstWrongRun = 1;
        }
        return r;
    }
    return std::nullopt;
}

// --check-steps under --repeat: each run's split checked; a line for each run with a wrong
// step, and at the end one over all runs. The report keeps the first run with a wrong step
// (else the last run), with the runs counted.
class RepeatedStepChecks {
  public:
    // Run `run`'s check (nullopt: none, without --check-steps or split).
    void add(std::optional<ScenarioStepCheckReport> r, uint32_t run) {
        if (!r) return;
        ++runs_;
        if (r->firstWrongStep) {
            say("  run {}: check-steps: first wrong step: {}: {}", run, r->firstWrongLabel, r->firstWrongDetail);
            if (wrongRuns_++ == 0) {
                r->firstWrongRun = run;
                kept_ = std::move(r);
            }
        } else if (wrongRuns_ == 0) {
            kept_ = std::move(r);
        }
    }
    // The report's check_steps, and the line over all runs.
    std::optional<ScenarioStepCheckReport> finish() {
        if (!kept_) return std::nullopt;
        kept_->runs = runs_;
        kept_->wrongRuns = wrongRuns_;
        if (wrongRuns_)
            say("  check-steps: split had a wrong step in {} of {} run(s); the first in run {}: {}", wrongRuns_, runs_,
                *kept_->firstWrongRun, kept_->firstWrongLabel);
        else
            say("  check-steps: every checked step matched the CPU model after its submit in each of {} run(s) ({} "
                "checked step(s) a run)",
                runs_, kept_->checked);
        return kept_;
    }

  private:
    uint32_t runs_ = 0, wrongRuns_ = 0;
    std::optional<ScenarioStepCheckReport> kept_;
};

// --repeat K: the modes K times on one device, each mode with its buffers reset; a count of wrong
// runs per mode, the first wrong run's difference, and the verdict over all K. A hang or a
// failed mode ends the runs there.
ScenarioVerdict runRepeated(const RunTarget& t, const sc::Scenario& s, const Options& o, ScenarioReport& report) {
    const Prepared p = prepare(t.device, s, o, t.timings);
    uint32_t runs = 0;
    RepeatedStepChecks steps;
    for (; runs < o.repeat; ++runs) {
        const std::vector<ModeOutcome> modes = runModes(t, p, s, o, false, [&](const std::vector<ModeOutcome>& soFar) {
            publishSoFar(report, soFar, o, runs + 1);
        });
        accumulate(report.modes, modes, o, runs + 1);
        steps.add(stepCheckReport(s, modes), runs + 1);
        const bool ended =
            std::any_of(modes.begin(), modes.end(), [](const ModeOutcome& m) { return !m.run.completed; });
        if (ended) {
            say("  run {} of {} did not complete; the runs end here", runs + 1, o.repeat);
            report.checkSteps = steps.finish();
            return verdict(s, modes, splitOnlyNote(s, splitOnlyBuffers(s), o, false));
        }
    }
    report.checkSteps = steps.finish();
    for (const ScenarioModeReport& m : report.modes) {
        say("  mode={:<9} wrong in {} of {} runs{}{}", m.mode, m.wrongRuns, runs,
            m.wrongRuns ? " (first: " + *m.detail + ")" : "",
            m.validationMessages ? "; " + plural(*m.validationMessages, "validation message") : "");
    }
    for (const ScenarioModeReport& m : report.modes) {
        if (m.wrongRuns == 0) continue;
        return {kExitReproduced, fmt::format("--- BUG REPRODUCED: mode {} is wrong in {} of {} runs; {}", m.mode,
                                             m.wrongRuns, runs, *m.detail)};
    }
    return {kExitNotReproduced,
            fmt::format("--- NOT REPRODUCED: in all {} runs every mode's checked buffers are {}{}", runs,
                        identicalTo(s, comparedWithSplit(o)), splitOnlyNote(s, splitOnlyBuffers(s), o, false))};
}

// A mode's result word for a --sweep row (the JSON report's result values).
std::string resultWord(const std::vector<ModeOutcome>& modes, size_t i) {
    if (i >= modes.size()) return "not run";
    if (!modes[i].run.completed) return modes[i].run.hang ? "hang" : "failed";
    return modes[i].wrong ? "mismatch" : "ok";
}

std::string sweepCells(const std::vector<std::string>& cells) {
    std::string out;
    for (const auto& c : cells) out += fmt::format("{:<11}", c);
    return out.substr(0, out.find_last_not_of(' ') + 1);
}

// One row of --sweep or --matrix, run `run`: every mode of `s` on the device, its buffers reset
// before each. `results` (the row's, one per asked mode) say "not run" until each mode
// finishes; after each, `rowsIntoReport` copies the rows into `report` and publishSoFar
// publishes it (a crash later leaves the row so far in the document). Returns the modes'
// outcomes, counted into report.modes, with `results` their result words (resultWord).
std::vector<ModeOutcome> runRow(const RunTarget& t, const sc::Scenario& s, const Options& o, uint32_t run,
                                std::vector<std::string>& results, const std::function<void()>& rowsIntoReport,
                                ScenarioReport& report) {
    results.assign(o.modes.size(), "not run");
    const auto onMode = [&](const std::vector<ModeOutcome>& soFar) {
        for (size_t i = 0; i < soFar.size(); ++i) results[i] = resultWord(soFar, i);
        rowsIntoReport();
        publishSoFar(report, soFar, o, run);
    };
    onMode({});
    std::vector<ModeOutcome> modes = runModes(t, prepare(t.device, s, o, t.timings), s, o, false, onMode);
    accumulate(report.modes, modes, o, run);
    for (size_t i = 0; i < results.size(); ++i) results[i] = resultWord(modes, i);
    return modes;
}

// The verdict over a sweep: the mode wrong at the smallest value (ties: mode order), or none.
ScenarioVerdict sweepVerdict(const sc::Scenario& s, const ScenarioSweepReport& r,
                             const std::vector<std::string>& details, const Options& o, const std::string& splitOnly) {
    std::optional<size_t> worst;
    for (size_t i = 0; i < r.smallestWrong.size(); ++i) {
        if (r.smallestWrong[i] && (!worst || *r.smallestWrong[i] < *r.smallestWrong[*worst])) worst = i;
    }
    if (!worst)
        return {
            kExitNotReproduced,
            fmt::format("--- NOT REPRODUCED: at each of the {} value(s) of {} every mode's checked buffers are {}{}",
                        r.rows.size(), r.parameter, identicalTo(s, comparedWithSplit(o)), splitOnly)};
    size_t wrongValues = 0;
    for (const auto& row : r.rows) wrongValues += row.results[*worst] == "mismatch" ? 1 : 0;
    return {kExitReproduced,
            fmt::format("--- BUG REPRODUCED: mode {} is wrong at {} = {}, the smallest value where it is (wrong at {} "
                        "of {} values); there: {}",
                        name(o.modes[*worst]), r.parameter, *r.smallestWrong[*worst], wrongValues, r.rows.size(),
                        details[*worst])};
}

// --sweep NAME=...: the scenario once per value (`variants`: the file parsed with each), every
// mode each time on one device, buffers reset before each mode; a row of results per value, the smallest
// value at which each mode is wrong, and sweepVerdict. A hang or a failure ends the sweep there
// with that value's verdict.
ScenarioVerdict runSwept(const RunTarget& t, const std::vector<sc::Scenario>& variants, const Options& o,
                         ScenarioReport& report) {
    const ScenarioSweep& sw = *o.scenarioSweep;
    ScenarioSweepReport r{.parameter = sw.parameter, .rows = {}, .smallestWrong = {}};
    r.smallestWrong.resize(o.modes.size());
    std::vector<std::string> details(o.modes.size());  // each mode's line at its smallest wrong value
    std::vector<std::string> names;
    for (const Mode m : o.modes) names.emplace_back(name(m));
    say("  --sweep {}: {} value(s), every mode at each on this device, buffers reset before each mode", sw.parameter,
        sw.values.size());
    say("  {:<14}{}", sw.parameter, sweepCells(names));
    for (size_t k = 0; k < variants.size(); ++k) {
        r.rows.push_back({.value = sw.values[k], .results = {}});
        const std::vector<ModeOutcome> modes = runRow(
            t, variants[k], o, static_cast<uint32_t>(k + 1), r.rows.back().results, [&] { report.sweep = r; }, report);
        const ScenarioSweepReport::Row& row = r.rows.back();
        for (size_t i = 0; i < o.modes.size(); ++i) {
            const auto& best = r.smallestWrong[i];
            if (row.results[i] == "mismatch" && (!best || sw.values[k] < *best))
                r.smallestWrong[i] = sw.values[k], details[i] = *modes[i].wrong;
        }
        say("  {:<14}{}", fmt::format("{} = {}", sw.parameter, sw.values[k]), sweepCells(row.results));
        if (std::any_of(modes.begin(), modes.end(), [](const ModeOutcome& m) { return !m.run.completed; })) {
            say("  the sweep ends at {} = {}: a mode did not complete", sw.parameter, sw.values[k]);
            report.sweep = r;
            return verdict(variants[k], modes, "");
        }
    }
    std::string smallest;
    for (size_t i = 0; i < names.size(); ++i)
        smallest += fmt::format("{}{} {}", i ? ", " : "", names[i],
                                r.smallestWrong[i] ? std::to_string(*r.smallestWrong[i]) : "none");
    say("  smallest {} at which each mode is wrong: {}", sw.parameter, smallest);
    report.sweep = r;
    return sweepVerdict(variants.front(), r, details, o,
                        splitOnlyNote(variants.front(), splitOnlyBuffers(variants.front()), o, false));
}

// One row of --matrix: the file with its barrier steps, or its buffers' memory, as the row says.
struct MatrixVariant {
    std::string label;                          // "as written", "--barrier full", "memory=host-visible", ...
    std::optional<repro::BarrierKind> barrier;  // nullopt: the file's own barriers
    std::optional<sc::Placement> memory;        // nullopt: the file's own placements
    std::optional<uint32_t> submitEvery;        // nullopt: the file's own submits
    std::optional<uint32_t> workFactor;         // nullopt: the file's own work
    sc::Scenario scenario;
};

// The built-in matrix's submit-structure and work factors on a scenario: --submit-every 2
// (docs/experiments.md, H2) and four times each dispatch's work, as its --dispatch-repeat 4
// makes conv-T four times as long with the same bytes written.
constexpr uint32_t kMatrixSubmitEvery = 2;
constexpr uint32_t kMatrixWorkFactor = 4;

// --matrix's submit-every row and --triage's H2 experiment: kMatrixSubmitEvery applied to `s`
// where it changes its submits; else `why` it was not (and `noEffect` when it would change
// nothing, rather than not apply): queues, whose semaphores set the batches, or at most
// kMatrixSubmitEvery work steps, which multipass and single would still submit once.
struct SubmitEveryApplied {
    std::string why;  // "" when applied
    bool noEffect = false;
};
SubmitEveryApplied applySubmitEvery(sc::Scenario& s) {
    if (s.usesQueues()) return {.why = "the file has queues, whose semaphores set its batches"};
    if (const size_t work = sc::workSteps(s); work <= kMatrixSubmitEvery)
        return {.why = fmt::format("the file has {} work step(s), which multipass and single would still submit once",
                                   work),
                .noEffect = true};
    s.submitEvery = kMatrixSubmitEvery;
    return {};
}

// --matrix: the file as written; with every barrier step replaced by blade's G and by the full
// synchronization2 barrier; with every buffer device-local, then host-visible (but those a
// host point names: scenario/scenario.hpp replacePlacements), as the built-in matrix's memory
// rows; then the controls, every barrier step execution-only and none (last: a control that
// hangs the device ends the matrix after the valid rows). A barrier row is left out, with a
// note, when the file has no barrier step, or needs synchronization2 on a device without it;
// a memory row when it moves no buffer. After the memory rows, the submit-structure row
// (submit-every=2: multipass and single end a submit after every second work step, the host
// waiting; left out for a file with queues, whose batches follow its semaphores, or with at
// most two work steps) and the work row (work x4: sc::multiplyWork; left out when no dispatch
// takes work).
std::vector<MatrixVariant> matrixVariants(const sc::Scenario& s, bool synchronization2,
                                          std::vector<std::string>& notes) {
    std::vector<MatrixVariant> out = {{.label = "as written", .barrier = std::nullopt, .scenario = s}};
    const bool barriers = std::any_of(s.steps.begin(), s.steps.end(), [](const sc::Step& step) {
        return std::holds_alternative<sc::Barrier>(step.body);
    });
    if (!barriers)
        notes.push_back(
            "--matrix: the file has no barrier step, so each --barrier row would be the file as written: "
            "those rows are left out");
    const auto structureRows = [&] {
        MatrixVariant every{.label = fmt::format("submit-every={}", kMatrixSubmitEvery),
                            .submitEvery = kMatrixSubmitEvery,
                            .scenario = s};
        if (const SubmitEveryApplied a = applySubmitEvery(every.scenario); !a.why.empty()) {
            notes.push_back(fmt::format("--matrix: row {} left out: {}", every.label, a.why));
        } else {
            out.push_back(std::move(every));
        }
        MatrixVariant work{
            .label = fmt::format("work x{}", kMatrixWorkFactor), .workFactor = kMatrixWorkFactor, .scenario = s};
        if (sc::multiplyWork(work.scenario, kMatrixWorkFactor) == 0) {
            notes.push_back(
                fmt::format("--matrix: row {} left out: no dispatch takes work (the work kernel's is "
                            "what it writes; the indirect-writer, conv-t and slice have no work loop)",
                            work.label));
        } else {
            out.push_back(std::move(work));
        }
    };
    const auto memoryRows = [&] {
        for (const sc::Placement p : {sc::Placement::DeviceLocal, sc::Placement::HostVisible}) {
            MatrixVariant v{.label = fmt::format("memory={}", name(p)), .memory = p, .scenario = s};
            if (sc::replacePlacements(v.scenario, p) == 0) {
                notes.push_back(fmt::format("--matrix: row {} left out: every buffer it could move is {} already",
                                            v.label, name(p)));
                continue;
            }
            out.push_back(std::move(v));
        }
    };
    for (const repro::BarrierKind b : {repro::BarrierKind::Blade, repro::BarrierKind::Full,
                                       repro::BarrierKind::ExecutionOnly, repro::BarrierKind::None}) {
        if (b == repro::BarrierKind::ExecutionOnly) {  // the valid rows before the controls
            memoryRows();
            structureRows();
        }
        if (!barriers) continue;
        MatrixVariant v{.label = fmt::format("--barrier {}", name(b)), .barrier = b, .scenario = s};
        if (const std::string why = sc::replaceBarriers(v.scenario, b); !why.empty()) throw UsageError(why);
        if (v.scenario.usesSync2() && !synchronization2) {
            notes.push_back(
                fmt::format("--matrix: row {} left out: it records synchronization2 barriers and the "
                            "device lacks synchronization2",
                            v.label));
            continue;
        }
        out.push_back(std::move(v));
    }
    return out;
}

// The verdict over the matrix's valid rows (the controls never count); the controls that were
// caught are named either way.
ScenarioVerdict matrixVerdict(const sc::Scenario& s, const ScenarioMatrixReport& r,
                              const std::vector<std::string>& wrongLines, const Options& o) {
    std::vector<std::string> valid, caught;
    std::optional<size_t> firstWrong;
    for (size_t k = 0; k < r.rows.size(); ++k) {
        const auto& row = r.rows[k];
        const bool wrong = std::find(row.results.begin(), row.results.end(), "mismatch") != row.results.end();
        if (row.control) {
            if (wrong) caught.push_back(row.label);
            continue;
        }
        valid.push_back(row.label);
        if (wrong && !firstWrong) firstWrong = k;
    }
    const std::string controls =
        caught.empty() ? "no control was caught" : fmt::format("caught controls: {}", fmt::join(caught, ", "));
    if (firstWrong) {
        const auto& row = r.rows[*firstWrong];
        const std::string under = row.barrier       ? "under --barrier " + *row.barrier
                                  : row.memory      ? "with every buffer " + *row.memory
                                  : row.submitEvery ? fmt::format("with --submit-every {}", *row.submitEvery)
                                  : row.workFactor  ? fmt::format("with every dispatch's work x{}", *row.workFactor)
                                                    : "under the file's own barriers";
        return {kExitReproduced,
                fmt::format("--- BUG REPRODUCED: {}: {} ({})", under, wrongLines[*firstWrong], controls)};
    }
    return {kExitNotReproduced,
            fmt::format("--- NOT REPRODUCED: in each valid row ({}) every mode's checked buffers are {} ({})",
                        fmt::join(valid, ", "), identicalTo(s, comparedWithSplit(o)), controls)};
}

// --matrix on a scenario: every mode under each of `variants`, buffers reset before each mode on one
// device; a row of results per variant and matrixVerdict. A mode that does not complete ends
// the matrix there with that row's verdict.
ScenarioVerdict runMatrixRows(const RunTarget& t, const std::vector<MatrixVariant>& variants, const Options& o,
                              ScenarioReport& report) {
    ScenarioMatrixReport r;
    std::vector<std::string> names, wrongLines;
    for (const Mode m : o.modes) names.emplace_back(name(m));
    say("  --matrix: the file in {} variants (barrier encodings, memory placements, submit structure and work), "
        "every mode of each on this "
        "device, buffers reset before each mode; the controls do not count",
        variants.size());
    say("  {:<38}{}", "row", sweepCells(names));
    for (size_t k = 0; k < variants.size(); ++k) {
        const MatrixVariant& v = variants[k];
        r.rows.push_back(
            {.label = v.label,
             .barrier = v.barrier ? std::optional<std::string>(std::string(name(*v.barrier))) : std::nullopt,
             .memory = v.memory ? std::optional<std::string>(std::string(name(*v.memory))) : std::nullopt,
             .submitEvery = v.submitEvery,
             .workFactor = v.workFactor,
             .control = v.scenario.hasControl(),
             .results = {}});
        const std::vector<ModeOutcome> modes = runRow(
            t, v.scenario, o, static_cast<uint32_t>(k + 1), r.rows.back().results, [&] { report.matrix = r; }, report);
        const ScenarioMatrixReport::Row& row = r.rows.back();
        std::string wrongLine;
        for (size_t i = 0; i < modes.size() && wrongLine.empty(); ++i) {
            if (modes[i].wrong) wrongLine = fmt::format("mode {} is wrong: {}", name(modes[i].mode), *modes[i].wrong);
        }
        say("  {:<38}{}", v.label + (row.control ? " (control)" : ""), sweepCells(row.results));
        wrongLines.push_back(wrongLine);
        if (std::any_of(modes.begin(), modes.end(), [](const ModeOutcome& m) { return !m.run.completed; })) {
            say("  the matrix ends at {}: a mode did not complete", v.label);
            report.matrix = r;
            return verdict(v.scenario, modes, "");
        }
    }
    report.matrix = r;
    return matrixVerdict(variants.front().scenario, r, wrongLines, o);
}

// ---- --triage on a scenario (docs/scenarios.md "--triage on a scenario") -------------------

// One experiment of a scenario's --triage: the file changed one way (children/triage.hpp's
// ExperimentKind), run in this process on the failing mode after split.
struct TriageVariant {
    ExperimentKind kind = ExperimentKind::Barrier;
    std::string label;  // "barrier=full", "memory=device-local", "split check-steps"
    sc::Scenario scenario;
    std::string skip;  // not run, and why
    bool noEffect = false;
};

// H1: the file's barriers replaced by blade's G and by the full barrier, every buffer
// device-local and host-visible; H5: split's steps checked against the CPU model; H2: the
// failing mode with --submit-every 2 (host waits); an H6 row that says why a scenario has no
// such experiment.
std::vector<TriageVariant> triageVariants(const sc::Scenario& s, Mode failing, bool synchronization2) {
    std::vector<TriageVariant> out;
    const bool barriers = std::any_of(s.steps.begin(), s.steps.end(), [](const sc::Step& step) {
        return std::holds_alternative<sc::Barrier>(step.body);
    });
    for (const repro::BarrierKind b : {repro::BarrierKind::Blade, repro::BarrierKind::Full}) {
        TriageVariant v{.label = fmt::format("barrier={}", name(b)), .scenario = s};
        if (failing == Mode::Split || !barriers) {
            v.skip = failing == Mode::Split ? "no effect: split records no barrier step"
                                            : "no effect: the file has no barrier step to replace";
            v.noEffect = true;
        } else if (const std::string why = sc::replaceBarriers(v.scenario, b); !why.empty()) {
            v.skip = "not run: " + why;
        } else if (v.scenario.usesSync2() && !synchronization2) {
            v.skip = "not run: it records synchronization2 barriers and the device lacks synchronization2";
        }
        out.push_back(std::move(v));
    }
    for (const sc::Placement p : {sc::Placement::DeviceLocal, sc::Placement::HostVisible}) {
        TriageVariant v{.kind = ExperimentKind::Memory, .label = fmt::format("memory={}", sc::name(p)), .scenario = s};
        if (sc::replacePlacements(v.scenario, p) == 0) {
            v.skip = fmt::format("no effect: every buffer is {} already (or named by a host point)", sc::name(p));
            v.noEffect = true;
        }
        out.push_back(std::move(v));
    }
    out.push_back({.kind = ExperimentKind::CheckSteps, .label = "split check-steps", .scenario = s});
    // H2: the failing mode with a submit boundary after every second work step, the host waiting
    TriageVariant every{.kind = ExperimentKind::SubmitEveryWait,
                        .label = fmt::format("submit-every={}", kMatrixSubmitEvery),
                        .scenario = s};
    if (failing == Mode::Split) {
        every.skip = "no effect: split submits each step on its own";
        every.noEffect = true;
    } else if (const SubmitEveryApplied a = applySubmitEvery(every.scenario); !a.why.empty()) {
        every.skip = fmt::format("{}: {}", a.noEffect ? "no effect" : "not run", a.why);
        every.noEffect = a.noEffect;
    }
    out.push_back(std::move(every));
    out.push_back({.kind = ExperimentKind::BladeExact,
                   .label = "profile=blade-exact",
                   .scenario = s,
                   .skip = "not run: blade's profile belongs to the built-in chain (repro --triage without a "
                           "scenario)"});
    return out;
}

// split's steps against the CPU model (--check-steps): wrong when one differs, correct when
// every checked step matched, not run when none could be checked.
ExperimentOutcome checkStepsOutcome(const sc::Scenario& s, const std::vector<ModeOutcome>& modes, ExperimentOutcome e) {
    if (modes.empty() || !modes.front().steps) {
        e.detail = "split did not run";
        return e;
    }
    const StepChecker::Result& r = *modes.front().steps;
    if (r.firstWrong) {
        e.result = RunResult::Wrong;
        e.detail = fmt::format("{} differs from the CPU model after its submit", s.steps[*r.firstWrong].label);
    } else if (!modes.front().run.completed) {
        e.result = modes.front().run.hang ? RunResult::Hang : RunResult::NotRun;
        e.detail = modes.front().run.failure;
    } else if (r.checked == 0) {
        e.detail = "no step checked: the CPU model cannot compute " + unmodelledKernels(s);
    } else {
        e.result = RunResult::Correct;
        e.detail = fmt::format("{} checked step(s) matched the CPU model", r.checked);
    }
    return e;
}

ExperimentOutcome runTriageVariant(const RunTarget& t, const TriageVariant& v, Mode failing, const Options& o) {
    ExperimentOutcome e{.kind = v.kind, .label = v.label};
    if (!v.skip.empty()) {
        e.result = v.noEffect ? RunResult::NoEffect : RunResult::NotRun;
        e.detail = v.skip;
        return e;
    }
    Options eo = o;
    eo.checkSteps = v.kind == ExperimentKind::CheckSteps;
    eo.modes = eo.checkSteps || failing == Mode::Split ? std::vector<Mode>{Mode::Split}
                                                       : std::vector<Mode>{Mode::Split, failing};
    const std::vector<ModeOutcome> modes =
        runModes(t, prepare(t.device, v.scenario, eo, t.timings), v.scenario, eo, false);
    if (eo.checkSteps) return checkStepsOutcome(v.scenario, modes, e);
    const auto m = std::find_if(modes.begin(), modes.end(), [&](const ModeOutcome& x) { return x.mode == failing; });
    if (m == modes.end() || !m->run.completed) {
        const ModeOutcome& ended = m == modes.end() ? modes.back() : *m;
        e.result = ended.run.hang ? RunResult::Hang : RunResult::NotRun;
        e.detail = fmt::format("mode {}: {}", name(ended.mode), ended.run.failure);
    } else {
        e.result = m->wrong ? RunResult::Wrong : RunResult::Correct;
        e.detail = fmt::format("{} {}", name(failing), m->wrong ? "mismatch" : "ok");
    }
    return e;
}

// H5's other experiment: the failing mode again in a child process with RADV_DEBUG=llvm
// (RADV's other shader compiler; appended to a RADV_DEBUG already set), on RADV only.
ExperimentOutcome compilerSwitch(const Options& o, const vk::DeviceInfo& d, Mode failing) {
    ExperimentOutcome e{.kind = ExperimentKind::CompilerSwitch, .label = "RADV_DEBUG=llvm"};
    if (!d.hasDriverProperties || d.driver.driverID != VK_DRIVER_ID_MESA_RADV) {
        e.detail = fmt::format("not run: the driver is {}, not RADV",
                               d.hasDriverProperties ? vk::driverIdName(d.driver.driverID) : "unknown");
        return e;
    }
    std::vector<std::string> argv = {selfExecutable(o.commandLine.empty() ? "repro" : o.commandLine.front()),
                                     "--scenario", *o.scenario, "--mode", std::string(name(failing))};
    if (o.device) argv.insert(argv.end(), {"--device", *o.device});
    const char* radvDebug = std::getenv("RADV_DEBUG");
    const std::string env =
        fmt::format("RADV_DEBUG={}llvm", radvDebug && *radvDebug ? std::string(radvDebug) + "," : "");
    const std::string log =
        (std::filesystem::temp_directory_path() / fmt::format("repro-triage-llvm-{}.log", getpid())).string();
    const ChildResult c = runChild(argv, {env}, log, o.timeoutSeconds.value_or(kScenarioTimeoutSeconds) * 4 + 60);
    std::filesystem::remove(log);
    e.result = c.status == kExitReproduced                                     ? RunResult::Wrong
               : c.status == kExitNotReproduced || c.status == kExitValidation ? RunResult::Correct
               : c.status == kExitHang || c.signal != 0 || c.timedOut          ? RunResult::Hang
                                                                               : RunResult::NotRun;
    e.detail = c.timedOut ? "killed at its time limit"
               : c.signal ? fmt::format("ended by signal {}", c.signal)
                          : fmt::format("exit {}", c.status);
    return e;
}

// One experiment as it finishes: "  barrier=full             correct  multipass ok" (a skipped
// one's detail says "not run" or "no effect" itself).
void sayExperiment(const ExperimentOutcome& e) {
    const bool skipped = e.detail.starts_with("not run") || e.detail.starts_with("no effect");
    say("  {:<24} {}", e.label, skipped ? e.detail : fmt::format("{:<8} {}", name(e.result), e.detail));
}

// The baseline's result for children/triage.hpp: wrong (its first wrong mode failing), a hang, or
// correct; "split ok, multipass mismatch, single mismatch".
TriageInput triageBaseline(const std::vector<ModeOutcome>& modes) {
    TriageInput in;
    in.baseline = RunResult::Correct;
    for (const ModeOutcome& m : modes) {
        const std::string word = !m.run.completed ? (m.run.hang ? "hang" : "failed") : m.wrong ? "mismatch" : "ok";
        in.baselineDetail += fmt::format("{}{} {}", in.baselineDetail.empty() ? "" : ", ", name(m.mode), word);
        if (!m.run.completed && in.baseline == RunResult::Correct)
            in.baseline = m.run.hang ? RunResult::Hang : RunResult::NotRun;
        if (m.wrong && in.failingMode.empty()) in.failingMode = std::string(name(m.mode));
    }
    if (!in.failingMode.empty() && in.baseline == RunResult::Correct) in.baseline = RunResult::Wrong;
    return in;
}

void keepTriage(const TriageInput& in, const TriageConclusion& t, ScenarioReport& report) {
    ScenarioTriageReport r{.failingMode = in.failingMode};
    for (const ExperimentOutcome& e : in.experiments)
        r.experiments.push_back(
            {std::string(code(hypothesisOf(e.kind))), e.label, std::string(name(e.result)), e.detail});
    for (const TriageRow& row : t.rows)
        r.rows.push_back(
            {std::string(code(row.hypothesis)), row.experiment, row.outcome, std::string(name(row.finding)), row.why});
    for (const HypothesisFinding& h : t.hypotheses)
        r.hypotheses.push_back({std::string(code(h.hypothesis)), std::string(describe(h.hypothesis)),
                                std::string(name(h.finding)), h.why});
    r.conclusionKind = std::string(name(t.kind));
    r.conclusionLine = t.line;
    report.triage = std::move(r);
}

// --triage on a scenario: the baseline (every mode, printed as a plain run prints it), then,
// when it was wrong, each experiment on its failing mode, the table, the findings and one
// conclusion line (children/triage.hpp concludeTriage), all in this process on one device.
ScenarioVerdict runScenarioTriage(const RunTarget& t, const sc::Scenario& s, const vk::DeviceInfo& device,
                                  const Options& o, ScenarioReport& report) {
    say("  --triage: the baseline (every mode), then, if it is wrong, one experiment per hypothesis on its "
        "failing mode after split, buffers reset before each mode on this device");
    const std::vector<ModeOutcome> modes = runModes(t, prepare(t.device, s, o, t.timings), s, o, true);
    accumulate(report.modes, modes, o, 1);
    TriageInput in = triageBaseline(modes);
    // A scenario run has no cause analysis of its own (no prediction, no kernel-log kill
    // record): what would decide is an experiment that makes it correct.
    in.causeMissing = {
        "a measured cause (a scenario run has no prediction or kernel-log kill record; the "
        "built-in chain's --triage reads those)"};
    say("  baseline: {}", in.baselineDetail);
    if (in.baseline == RunResult::Wrong) {
        const Mode failing = *parseModes(in.failingMode)->begin();
        say("--- triage on mode {} ---", in.failingMode);
        for (const TriageVariant& v : triageVariants(s, failing, device.supported.synchronization2)) {
            in.experiments.push_back(runTriageVariant(t, v, failing, o));
            sayExperiment(in.experiments.back());
        }
        in.experiments.push_back(compilerSwitch(o, device, failing));
        sayExperiment(in.experiments.back());
    }
    const TriageConclusion conclusion = concludeTriage(in);
    if (!conclusion.rows.empty()) say("--- triage ---");
    for (const TriageRow& row : conclusion.rows) sayTriageRow(row);
    (void)sayTriageConclusion(conclusion, llvmAnswer(in));
    keepTriage(in, conclusion, report);
    // the conclusion is printed; the verdict line and status are the baseline's, as a plain run
    // gives them (2 reproduced, 0 not, 3 a hang)
    return verdict(s, modes, splitOnlyNote(s, splitOnlyBuffers(s), o, false));
}

// --print-stream: each mode recorded under the swallowing tracer (engine/stream_capture.hpp), so
// nothing reaches the queue, and its calls printed; exit 0.
ScenarioVerdict printScenarioStreams(vk::Device& device, const sc::Scenario& s, const Options& o) {
    say("--- command stream (--print-stream: recorded, not submitted) ---");
    say("  each mode starts with repro's upload submit (buffers that start as zeros filled, device-local ones "
        "copied from their host twins) and ends with its readback submit; # G marks blade's global barrier");
    const vk::ScenarioPipelines pipelines = vk::createScenarioPipelines(device, s);
    vk::ScenarioBuffers buffers(device, s, o.checkSteps);
    for (const Mode mode : o.modes) {
        capturedStream().clear();
        vk::StepReadback readback;  // --check-steps: split's readback submits shown, nothing compared
        if (o.checkSteps && mode == Mode::Split) readback.onStep = [](size_t, const sc::Contents&) {};
        (void)vk::runScenarioMode(device, pipelines, buffers, s, mode,
                                  o.timeoutSeconds.value_or(kScenarioTimeoutSeconds), o.timestamps, readback);
        vk::trace::breakWaitRun();
        say("## mode {}: scenario '{}' (src/vk/scenario_recorder.cpp)", name(mode), s.name);
        for (const std::string& line : capturedStream()) say("{}", line);
    }
    return {.status = kExitNotReproduced, .line = "--- command stream printed; nothing was run (--print-stream)"};
}

// --validation: the layer's count (printed as the built-in run prints it) and, when nothing
// worse happened, the VALIDATION verdict (exit 4, docs/contract.md).
ScenarioVerdict withValidation(const vk::Instance& instance, const sc::Scenario& s, ScenarioVerdict v,
                               ScenarioReport& report) {
    const vk::ValidationLog& log = instance.validationLog();
    report.validationErrors = log.errors;
    report.validationWarnings = log.warnings;
    report.validationMessages = log.messages;
    say("validation: {} ({} errors, {} warnings), synchronization validation on", plural(log.count(), "message"),
        log.errors, log.warnings);
    if (v.status != kExitNotReproduced || log.count() == 0) return v;
    v.status = kExitValidation;
    v.line = s.hasControl()
                 ? fmt::format(
                       "--- VALIDATION: {} (see stderr); {} is labelled a control (insufficient on "
                       "purpose), so its hazards are deliberate and the results say nothing about the driver",
                       plural(log.count(), "validation message"), s.controlSteps())
                 : fmt::format(
                       "--- VALIDATION: the scenario's Vulkan usage drew {} (see stderr); results are not "
                       "trustworthy until they are fixed",
                       plural(log.count(), "validation message"));
    return v;
}

// The extra queues the scenario's [[queue]] tables ask for, in order: another family or the
// main one's, needing compute when a dispatch is put on it.
std::vector<vk::ExtraQueueRequest> queueRequests(const sc::Scenario& s) {
    std::vector<vk::ExtraQueueRequest> out;
    for (uint32_t q = 1; q < s.queues.size(); ++q) {
        const bool dispatches = std::any_of(s.steps.begin(), s.steps.end(), [&](const sc::Step& step) {
            return step.queue == q && std::holds_alternative<sc::Dispatch>(step.body);
        });
        out.push_back({.otherFamily = s.queues[q].family == sc::QueueFamilyChoice::Other,
                       .needs = static_cast<VkQueueFlags>(dispatches ? VK_QUEUE_COMPUTE_BIT : VK_QUEUE_TRANSFER_BIT)});
    }
    return out;
}

// One line per [[queue]] (where it landed, or its fallback), printed and kept in the report,
// and the notes on split and on the order of the steps.
void describeQueues(const vk::Device& device, const sc::Scenario& s, ScenarioReport& report) {
    if (!s.usesQueues()) return;
    say("  queue:    main: family {}, queue 0", device.queueFamily());
    for (size_t q = 1; q < s.queues.size(); ++q) {
        const vk::ExtraQueue& e = device.extraQueues().at(q - 1);
        report.queues.push_back(
            fmt::format("{} (family \"{}\"): {}", s.queues[q].name, sc::name(s.queues[q].family), e.note));
        say("  queue:    {}", report.queues.back());
    }
    std::vector<uint32_t> families{device.queueFamily()};
    for (const vk::ExtraQueue& e : device.extraQueues()) families.push_back(e.family);
    const std::vector<sc::OwnershipTransfer> transfers = sc::ownershipTransfers(s, families);
    if (!transfers.empty()) {
        std::set<std::string> moved;
        for (const auto& t : transfers) moved.insert(t.buffer);
        say("  ownership: {} exclusive buffer(s) change queue family ({}): {} queue family ownership transfer(s), a "
            "release and an acquire each, recorded in every mode (docs/scenarios.md \"Queue family ownership\")",
            moved.size(), fmt::join(moved, ", "), transfers.size());
    }
    // ownership_transfers = false (a control): the buffers that change family without them
    std::set<std::string> leftOut;
    for (const auto& t : sc::ownershipTransfers(s, families, /*withLeftOut=*/true)) {
        if (!s.buffer(t.buffer)->ownershipTransfers) leftOut.insert(t.buffer);
    }
    if (!leftOut.empty())
        say("  ownership: {} exclusive buffer(s) change queue family without their ownership transfers ({}): "
            "ownership_transfers = false, a control",
            leftOut.size(), fmt::join(leftOut, ", "));
    say("  note: split submits each step on its queue and waits for it, so it records no signal or wait step; "
        "multipass and single submit one batch per signal/wait boundary with the file's semaphores");
    if (s.reordered)
        say("  note: the steps run in an order the semaphores allow (a timeline wait comes before its signal in "
            "the file), as the steps line lists them");
}

void describeDevice(const vk::DeviceInfo& d, ScenarioReport& report) {
    report.deviceName = d.properties.deviceName;
    report.vendorId = d.properties.vendorID;
    report.deviceId = d.properties.deviceID;
    if (!d.hasDriverProperties) return;
    report.driverName = d.driver.driverName;
    report.driverInfo = d.driver.driverInfo;
}

// `chainWords` (when valid) is making the chain-input and chain-weight words of `s` and
// `variants`, which nothing reads before it is joined here, once the device exists.
ScenarioVerdict runLoaded(const Options& o, const sc::Scenario& s, const std::vector<sc::Scenario>& variants,
                          ScenarioReport& report, std::future<void>& chainWords) {
    const auto begin = Clock::now();
    watch::stage(watch::Stage::Setup, "set-up");
    vk::Instance instance(o.validation);
    const auto devices = vk::enumerateDevices(instance);
    std::vector<std::string> notes;
    const vk::DeviceInfo chosen = selectDevice(instance, devices, o, notes);
    describeDevice(chosen, report);
    if (s.usesSync2() && !chosen.supported.synchronization2)
        throw CannotTest("the scenario records synchronization2 barriers and the device lacks synchronization2");
    // --matrix's full barrier is a synchronization2 one: asked for wherever the device has it.
    vk::Device device(
        instance, chosen,
        {.synchronization2 = s.usesSync2() || ((o.matrix || o.triage) && chosen.supported.synchronization2),
         .afterLoad = o.printStream ? std::function<void()>(installStreamPrinter) : std::function<void()>(),
         .extraQueues = queueRequests(s)});
    report.timings.instanceAndDevice = secondsSince(begin);
    if (chainWords.valid()) chainWords.get();  // rethrows what the thread threw
    printHeader(s, chosen, o);
    describeQueues(device, s, report);
    publishSoFar(report, {}, o);  // the device, should the driver fail in the first mode
    for (const auto& note : notes) say("  note: {}", note);
    if (o.printStream) return printScenarioStreams(device, s, o);
    if (o.repeat > 1)
        say("  --repeat {}: every mode {} times on this device, buffers reset before each mode", o.repeat, o.repeat);
    const RunTarget target{.device = device, .instance = instance, .timings = report.timings};
    ScenarioVerdict v;
    if (o.triage) {
        v = runScenarioTriage(target, s, chosen, o, report);
    } else if (o.matrix) {
        std::vector<std::string> matrixNotes;
        const std::vector<MatrixVariant> rows = matrixVariants(s, chosen.supported.synchronization2, matrixNotes);
        for (const auto& note : matrixNotes) say("  note: {}", note);
        v = runMatrixRows(target, rows, o, report);
    } else if (!variants.empty()) {
        v = runSwept(target, variants, o, report);
    } else if (o.repeat > 1) {
        v = runRepeated(target, s, o, report);
    } else {
        const std::vector<ModeOutcome> modes =
            runModes(target, prepare(device, s, o, report.timings), s, o, true,
                     [&](const std::vector<ModeOutcome>& soFar) { publishSoFar(report, soFar, o); });
        accumulate(report.modes, modes, o, 1);
        report.checkSteps = stepCheckReport(s, modes);
        v = verdict(s, modes, splitOnlyNote(s, splitOnlyBuffers(s), o, false));
    }
    watch::stage(watch::Stage::Teardown, "waiting for the device to go idle and destroying it");
    if (!device.abandoned()) vkDeviceWaitIdle(device.get());
    report.timings.total = secondsSince(begin);
    return o.validation ? withValidation(instance, s, v, report) : v;
}

std::vector<std::string> askedModes(const Options& o) {
    std::vector<std::string> out;
    for (const Mode m : o.modes) out.emplace_back(name(m));
    return out;
}

// The report's facts from the options and the file, before anything runs.
ScenarioReport startReport(const Options& o, const sc::Scenario& s) {
    std::vector<std::string> poisoned;
    for (const auto& b : s.buffers) {
        if (b.poisoned) poisoned.push_back(b.name);
    }
    return {
        .version = kReproVersion,
        .gitHash = kReproGitHash,
        .commandLine = o.commandLine,
        .name = s.name,
        .source = s.source,
        .pattern = s.pattern,
        .expected = s.expected,
        .file = s.file,
        .fileSha256 = s.fileSha256,
        .fileText = s.fileText,
        .fileBytes = s.fileBytes,
        .steps = s.steps.size(),
        .barrier = o.scenarioBarrier ? std::optional<std::string>(std::string(name(*o.scenarioBarrier))) : std::nullopt,
        .controls = s.hasControl(),
        .controlSteps = s.controlSteps(),
        .splitOnly = splitOnlyList(s),
        .chainValues = chainValueList(s),
        .poisoned = poisoned,
        .parameters = {s.parameters.begin(), s.parameters.end()},
        .repeat = o.repeat,
        .askedModes = askedModes(o),
        .validation = o.validation};
}

// --timings: the host phases, as the JSON report's "timings" has them.
void printScenarioTimings(const ScenarioTimings& t) {
    say("timings (s): instance and device {:.3f}, pipelines {:.3f}, CPU model {:.3f}, buffers and upload {:.3f}, "
        "recording {:.3f}, GPU wait {:.3f}, readback {:.3f}, verification {:.3f}, total {:.3f}, teardown {:.3f}",
        t.instanceAndDevice, t.pipelines, t.cpuModel, t.buffersAndUpload, t.recording, t.gpuWait, t.readback,
        t.verification, t.total, t.teardown);
}

// The run, every failure turned into its verdict (printed, and kept in `report`).
int runScenarioGuarded(const Options& options, const sc::Scenario& s, const std::vector<sc::Scenario>& variants,
                       ScenarioReport& report, std::future<void>& chainWords) {
    ScenarioVerdict v;
    try {
        const auto begin = Clock::now();
        v = runLoaded(options, s, variants, report, chainWords);
        // runLoaded's device and instance are destroyed by now; `total` ended before that.
        if (report.timings.total > 0)
            report.timings.teardown = std::max(0.0, secondsSince(begin) - report.timings.total);
    } catch (const UsageError& e) {
        sayError("repro: {}", e.what());
        return kExitUsage;
    } catch (const CannotTest& e) {
        v = {kExitCannotTest, fmt::format("--- CANNOT TEST HERE: {}", e.what())};
    } catch (const vk::VulkanError& e) {
        const bool lost = e.result == VK_ERROR_DEVICE_LOST;
        v = {lost ? kExitHang : kExitCannotTest,
             fmt::format("--- {}: {}", lost ? "GPU HANG" : "CANNOT TEST HERE", e.what())};
    } catch (const std::exception& e) {
        v = {kExitCannotTest, fmt::format("--- CANNOT TEST HERE: internal error: {}", e.what())};
    }
    say("{}", v.line);
    if (options.timings) printScenarioTimings(report.timings);
    report.verdict = v.line;
    report.exitStatus = v.status;
    return v.status;
}

// The JSON document to --json FILE and, with --format json, to stdout or -o FILE (with
// --format markdown, the Markdown report there instead); with -o
// and --format text, the text report. A lost write is exit 1 unless a hang or a
// reproduction says more; the results are printed either way.
int writeScenarioReports(const Options& o, const ScenarioReport& report, int status) {
    const std::string json = renderScenarioJson(report);
    bool written = true;
    if (o.format == Format::Json) written = emitFormatDocument(o, "the scenario report", json);
    if (o.format == Format::Markdown)
        written = emitFormatDocument(o, "the scenario report", renderScenarioMarkdown(report));
    written = emitJsonFile(o, "the scenario report", json) && written;
    written = emitTextFile(o) && written;
    const bool stronger = status == kExitHang || status == kExitReproduced || status > 125;
    if (writeFailed() && !stronger) {
        sayError("repro: the report could not be written to {}", failedStream());
        return kExitUsage;
    }
    return written || stronger ? status : kExitUsage;
}

// After a driver crash or stall during the modes: the first asked mode the document lacks is
// the one it ended ("hang" for a stall, else "failed", with the verdict line), the rest "not
// run". Before the modes (125) every mode stays out. Under --sweep and --matrix the last row
// the child published has "not run" for the modes it did not finish: the first of them is
// where it ended. Under --repeat, --sweep and --matrix, once every mode finished a first run
// (value, row), the mode it ended in is the first with fewer finished runs than the most, or
// the first mode when none has fewer (the next run had just begun); when every mode finished
// all --repeat runs, it ended after them and no mode is marked.
void markUnfinished(ScenarioReport& report, const std::string& line, int status) {
    if (status == kExitCannotTest) return;
    const std::string why = line.rfind("--- ", 0) == 0 ? line.substr(4) : line;
    const std::string ended = line.rfind("--- GPU HANG", 0) == 0 ? "hang" : "failed";
    std::optional<std::string> where;  // --sweep's value or --matrix's row it ended in
    std::optional<size_t> inRow;       // the mode it ended in, from that row
    const auto endRow = [&](std::vector<std::string>& results) {
        const auto it = std::find(results.begin(), results.end(), "not run");
        if (it == results.end()) return false;
        *it = ended;
        inRow = static_cast<size_t>(it - results.begin());
        return true;
    };
    if (report.sweep && !report.sweep->rows.empty() && endRow(report.sweep->rows.back().results))
        where = fmt::format("{} = {}", report.sweep->parameter, report.sweep->rows.back().value);
    if (report.matrix && !report.matrix->rows.empty() && endRow(report.matrix->rows.back().results))
        where = report.matrix->rows.back().label;
    if (!report.modes.empty() && report.modes.size() == report.askedModes.size()) {
        uint32_t most = 0;
        for (const auto& m : report.modes) most = std::max(most, m.runs);
        size_t at = 0;
        while (at < report.modes.size() && report.modes[at].runs == most) ++at;
        if (at == report.modes.size()) {
            if (!where && (report.repeat <= 1 || most >= report.repeat)) return;  // it ended after the runs
            at = 0;
        }
        if (inRow) at = *inRow;
        ScenarioModeReport& m = report.modes[at];
        m.result = ended;
        m.detail = where               ? fmt::format("at {}: {}", *where, why)
                   : report.repeat > 1 ? fmt::format("run {}: {}", m.runs + 1, why)
                                       : why;
        return;
    }
    bool first = true;
    for (size_t i = report.modes.size(); i < report.askedModes.size(); ++i) {
        report.modes.push_back({.mode = report.askedModes[i],
                                .result = first ? (line.rfind("--- GPU HANG", 0) == 0 ? "hang" : "failed") : "not run",
                                .detail = first ? why : "the run ended in an earlier mode",
                                .runs = 0});
        first = false;
    }
}

}  // namespace

// The file parsed with `overrides`, --barrier and --poison applied. Throws UsageError.
sc::Scenario prepareScenario(const Options& options, const sc::ParameterValues& overrides = {}) {
    sc::Scenario s = sc::loadScenario(*options.scenario, overrides);  // nothing runs on a bad file
    if (options.scenarioBarrier) {
        if (const std::string why = sc::replaceBarriers(s, *options.scenarioBarrier); !why.empty())
            throw UsageError(why);
    }
    if (options.poison) (void)sc::poisonBuffers(s, kPoisonPattern);
    if (options.reference == ReferenceKind::Split)
        s.cpuChain = false;
    else if (options.reference == ReferenceKind::Auto && s.shape)
        s.cpuChain = sc::chainReferenceCost(*s.shape, checkedChainValues(s)) <= sc::kAutoChainMultiplyAdds;
    if (options.submit.every > 0) {
        if (s.usesQueues())
            throw UsageError(
                fmt::format("--submit-every: {} has queues or semaphores, whose batches set its submits; "
                            "expected a file on one queue",
                            s.file));
        s.submitEvery = options.submit.every;
    }
    if (!hasSplit(options) && !options.triage && !options.printStream && !modelCompares(s))
        throw UsageError(
            fmt::format("--mode without split: {}'s checked buffers ({}) are written by {}, which the CPU "
                        "model does not compute, and split is their only reference, so nothing would be "
                        "compared; expected split among the modes",
                        s.file, splitOnlyBuffers(s), unmodelledKernels(s)));
    return s;
}

// --sweep NAME=...: the file parsed once per value, before anything runs; a value that makes
// the file bad is its one line, with the value named.
std::vector<sc::Scenario> sweepVariants(const Options& options, const sc::Scenario& s) {
    std::vector<sc::Scenario> out;
    if (!options.scenarioSweep) return out;
    const ScenarioSweep& sw = *options.scenarioSweep;
    if (!s.parameters.count(sw.parameter)) (void)prepareScenario(options, {{sw.parameter, 0}});  // its error line
    for (const uint32_t v : sw.values) {
        try {
            out.push_back(prepareScenario(options, {{sw.parameter, v}}));
        } catch (const UsageError& e) {
            throw UsageError(fmt::format("{} (with --sweep {} = {})", e.what(), sw.parameter, v));
        }
    }
    return out;
}

namespace {

// Whether a chain-input or chain-weight buffer of `s` or `variants` has no words yet.
bool needsChainWords(const sc::Scenario& s, const std::vector<sc::Scenario>& variants) {
    const auto needs = [](const sc::Scenario& one) {
        return std::any_of(one.buffers.begin(), one.buffers.end(), sc::awaitsChainWords);
    };
    return needs(s) || std::any_of(variants.begin(), variants.end(), needs);
}

}  // namespace

int runScenarioCommand(const Options& options) {
    sc::Scenario s;
    std::vector<sc::Scenario> variants;
    try {
        s = prepareScenario(options);
        variants = sweepVariants(options, s);
    } catch (const UsageError& e) {
        sayError("repro: {}", e.what());
        return kExitUsage;
    }
    if (const auto problem = outputPathProblem(options)) {  // before any GPU work
        sayError("repro: {}", *problem);
        return kExitUsage;
    }
    // stdout carries only the document, unless -o takes it to a file.
    if (options.format != Format::Text && !options.output) textStream() = stderr;
    if (options.format == Format::Text && options.output) captureText();  // for the -o file
    // The run in a supervised child (children/supervisor.hpp), as the built-in chain's: a driver that
    // crashes, aborts or stalls ends as one line naming the call, with status 125 (set-up)
    // or 3 (the modes). The document the parent writes then has the file's facts, that
    // verdict, and the device and modes the child published (publishSoFar).
    return superviseRun(
        options,
        [&] {
            // The chain-input and chain-weight words (3.7 M sinf calls at the full shape) on a
            // thread while the driver creates the instance and device, as the built-in chain
            // makes its input (engine/rig.hpp startChainInputs); this child's copies of the files.
            std::future<void> chainWords;
            if (needsChainWords(s, variants)) {
                chainWords = startInBackground([&] {
                    std::vector<sc::Scenario*> all{&s};
                    for (sc::Scenario& v : variants) all.push_back(&v);
                    sc::fillChainWords(all);
                });
            }
            ScenarioReport report = startReport(options, s);
            const int status = runScenarioGuarded(options, s, variants, report, chainWords);
            return status == kExitUsage ? status : writeScenarioReports(options, report, status);
        },
        [&](const RunReport& ended, int status, const std::string& published) {
            ScenarioReport report = startReport(options, s);
            // The device and the modes that finished, as the child published them.
            const nlohmann::json progress = nlohmann::json::parse(published, nullptr, /*allow_exceptions=*/false);
            if (!progress.is_discarded()) readScenarioProgress(progress, report);
            markUnfinished(report, ended.verdict.lines.empty() ? std::string() : ended.verdict.lines.front(), status);
            report.verdict = ended.verdict.lines.empty() ? std::string() : ended.verdict.lines.front();
            report.exitStatus = status;
            return writeScenarioReports(options, report, status);
        });
}

std::vector<std::string> scenarioFolders() {
    std::vector<std::string> out;
    std::error_code ec;
    // Beside the binary first (an install moved with --prefix or DESTDIR), then where it was
    // configured to go, then the source tree it was built from.
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path beside =
        ec ? std::filesystem::path() : exe.parent_path() / ".." / "share/repro/scenarios";
    for (const std::filesystem::path& folder :
         {beside, std::filesystem::path(REPRO_INSTALLED_SCENARIOS), std::filesystem::path(REPRO_SOURCE_SCENARIOS)}) {
        if (folder.empty() || !std::filesystem::is_directory(folder, ec)) continue;
        const std::string canonical = std::filesystem::weakly_canonical(folder, ec).string();
        if (std::find(out.begin(), out.end(), canonical) == out.end()) out.push_back(canonical);
    }
    return out;
}

int listScenarios() {
    const auto folders = scenarioFolders();
    if (folders.empty()) {
        say("no scenarios/ folder found (looked in {} and {})", REPRO_SOURCE_SCENARIOS, REPRO_INSTALLED_SCENARIOS);
        return kExitNotReproduced;
    }
    for (const auto& folder : folders) {
        std::vector<std::string> files;
        for (const auto& entry : std::filesystem::directory_iterator(folder)) {
            if (entry.path().extension() == ".toml") files.push_back(entry.path().string());
        }
        std::sort(files.begin(), files.end());
        say("{}:", folder);
        for (const auto& file : files) {
            try {
                const sc::Scenario s = sc::loadScenario(file);
                say("  {:<40} expected: {:<15} {}", s.name, s.expected, s.source);
            } catch (const UsageError& e) {
                sayError("repro: {}", e.what());
                return kExitUsage;
            }
        }
    }
    return kExitNotReproduced;
}

}  // namespace repro
