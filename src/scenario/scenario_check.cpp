// What a file's run is compared with (see scenario/scenario_check.hpp).
#include "scenario/scenario_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <mutex>
#include <variant>

#include "core/parallel.hpp"

namespace repro::scenario {
namespace {

// Which step of `s` last wrote byte `byte` of `buffer` in the CPU model, for a mismatch line.
// With `before`, only the steps before index `before` count (a host read there).
std::string writtenBy(const Scenario& s, const std::string& buffer, size_t byte, size_t before = ~size_t{0}) {
    const auto step = lastWriter(s, buffer, byte, before);
    if (!step) return "written by no step (its initial contents)";
    return "last written by " + s.steps[*step].label;
}

}  // namespace

std::optional<std::string> firstDifference(const Scenario& s, const std::string& name, const std::vector<uint8_t>& got,
                                           const std::vector<uint8_t>& want, std::string_view against, size_t before) {
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
    const BufferSpec* spec = s.buffer(name);
    const bool poison = spec && spec->poisoned && g == spec->value;          // --poison: the sentinel survived
    const ImageSpec* image = spec && spec->image ? &*spec->image : nullptr;  // its words are texels, row-major
    const std::string at =
        image ? fmt::format("texel ({}, {})", word % image->width, word / image->width) : fmt::format("word {}", word);
    const char* sentinel = " (still the poison value: never written, or written from words that still held it)";
    return fmt::format("{} '{}' differs from {} at byte {} ({}: 0x{:08x}{}, {} 0x{:08x}), {}; {} of {} {} differ",
                       image ? "image" : "buffer", name, against, first, at, g, poison ? sentinel : "", against, w,
                       writtenBy(s, name, first, before), wrongWords, got.size() / 4, image ? "texels" : "words");
}

std::optional<std::string> compare(const Scenario& s, const Contents& got, const Contents& want,
                                   std::string_view against) {
    for (const BufferSpec& b : s.buffers) {
        const auto g = got.find(b.name), w = want.find(b.name);
        if (g == got.end() || w == want.end()) continue;  // not read, or compared with split only (splitOnlyBuffers)
        if (auto d = firstDifference(s, b.name, g->second, w->second, against)) return d;
    }
    return std::nullopt;
}

std::optional<std::string> hostReadDifference(const Scenario& s, const HostReads& got, const HostReads& want,
                                              std::string_view against) {
    for (const auto& [index, bytes] : got) {
        const auto w = want.find(index);
        if (w == want.end()) continue;  // the CPU model cannot know it there: split only
        const std::string& buffer = std::get<HostRead>(s.steps[index].body).buffer;
        if (auto d = firstDifference(s, buffer, bytes, w->second, against, index))
            return s.steps[index].label + ": " + *d;
    }
    return std::nullopt;
}

ChainValues checkedChainValues(const Scenario& s) {
    const auto unmodelled = unmodelledBuffers(s);
    ChainValues out;
    for (const auto& [name, v] : finalChainValues(s)) {
        const BufferSpec* b = s.buffer(name);
        if (b && b->checked && unmodelled.count(name) && v.kind != ChainValue::Kind::Weight) out.emplace(name, v);
    }
    return out;
}
ChainValues chainChecked(const Scenario& s) { return s.cpuChain ? checkedChainValues(s) : ChainValues{}; }

std::vector<std::string> splitOnlyList(const Scenario& s) {
    const auto unmodelled = unmodelledBuffers(s);
    const auto chain = chainChecked(s);
    std::vector<std::string> out;
    for (const auto& b : s.buffers) {
        if (b.checked && unmodelled.count(b.name) && !chain.count(b.name)) out.push_back(b.name);
    }
    return out;
}
std::vector<std::pair<std::string, std::string>> chainValueList(const Scenario& s) {
    const ChainValues chain = chainChecked(s);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& b : s.buffers) {
        if (const auto v = chain.find(b.name); v != chain.end()) out.emplace_back(b.name, describe(v->second));
    }
    return out;
}
std::string splitOnlyBuffers(const Scenario& s) {
    std::string out;
    for (const auto& name : splitOnlyList(s)) out += fmt::format("{}'{}'", out.empty() ? "" : ", ", name);
    return out;
}

std::vector<std::string> modelledChecked(const Scenario& s) {
    const auto unmodelled = unmodelledBuffers(s);
    std::vector<std::string> out;
    for (const auto& b : s.buffers) {
        if (b.checked && !unmodelled.count(b.name)) out.push_back(b.name);
    }
    return out;
}

bool hasHostRead(const Scenario& s) {
    return std::any_of(s.steps.begin(), s.steps.end(),
                       [](const Step& step) { return std::holds_alternative<HostRead>(step.body); });
}

bool modelComparesExactly(const Scenario& s) { return hasHostRead(s) || !modelledChecked(s).empty(); }
bool modelCompares(const Scenario& s) { return modelComparesExactly(s) || !chainChecked(s).empty(); }

// "'small[3]'" or "'small[3]', 'out'": the chain-checked buffers, quoted.
std::string chainBuffers(const Scenario& s) {
    std::string out;
    for (const auto& [name, v] : chainChecked(s)) out += fmt::format("{}'{}'", out.empty() ? "" : ", ", name);
    return out;
}

// A run where the model compares nothing and split is not run is refused before it starts
// (prepareScenario).
std::string identicalTo(const Scenario& s, bool withSplit, bool splitAlone) {
    const bool exact = modelComparesExactly(s), chain = !chainChecked(s).empty();
    std::string model;
    if (exact && chain)
        model = fmt::format("bit-identical to the CPU model ({}: within its float32 tolerance)", chainBuffers(s));
    else if (exact)
        model = "bit-identical to the CPU model";
    else if (chain)
        model = "within the CPU model's float32 tolerance";
    if (model.empty())
        return withSplit    ? "bit-identical to split"
               : splitAlone ? "completed, with nothing to compare them with (the CPU model cannot compute them "
                              "and split ran alone)"
                            : "completed";
    if (!withSplit) return model;
    return model + (exact ? " and to split" : " and bit-identical to split");
}

std::string hostReadNote(size_t reads) {
    return reads == 0 ? "" : fmt::format(" (the checked buffers and {} host read{})", reads, reads == 1 ? "" : "s");
}

// A conv-t or slice counts when its output holds no value of the built-in chain after it
// (scenario/scenario_chain.hpp).
std::string unmodelledKernels(const Scenario& s) {
    bool user = false, chain = false;
    ChainValues values = initialChainValues(s);
    for (const auto& step : s.steps) {
        chainValuesAfter(step, s, values);
        const auto* d = std::get_if<Dispatch>(&step.body);
        if (d && !d->user.empty()) user = true;
        if (d && d->user.empty() && isChainKernel(d->kernel) && (!s.cpuChain || !values.count(d->bindings.back())))
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

std::string splitOnlyNote(const Scenario& s, bool isSplit) {
    const std::string names = splitOnlyBuffers(s);
    if (names.empty()) return "";
    const std::string by = unmodelledKernels(s);
    if (isSplit) return fmt::format("; {} (written by {}): split's bytes are the reference", names, by);
    return fmt::format("; {} (written by {}): compared with split only", names, by);
}

// The mismatch line of a chain value outside the tolerance, or nothing: "buffer 'small[3]'
// (the chain's small[3]) is outside the CPU model's float32 tolerance at 7680 of 7680
// elements; the worst at byte 0: 0 (0x00000000), the CPU model 1.04 (0x3f853a1c), allowed
// difference 2.3e-07, last written by step 11 dispatch slice". `got` is what
// comparedFloats gave, `cpu` and `tolerance` the reference's.
std::optional<std::string> chainDifference(const Scenario& s, const ChainCheck& c, std::span<const float> got,
                                           std::span<const float> cpu, const Tolerance& tolerance,
                                           size_t before = ~size_t{0}) {
    const ToleranceReport& r = c.report;
    if (r.ok()) return std::nullopt;
    const size_t j = r.worstIndex;
    const uint64_t byte = bufferFloatIndex(*s.shape, c.value, j) * 4;
    const bool big = c.value.kind == ChainValue::Kind::Big;
    return fmt::format(
        "buffer '{}' (the chain's {}{}) is outside the CPU model's float32 tolerance at {} of {} elements{}; the "
        "worst at byte {}: {:.9g} (0x{:08x}), the CPU model {:.9g} (0x{:08x}), allowed difference {:.3g}, {}",
        c.buffer, describe(c.value), big ? ", its crop at (1, 1)" : "", r.exceeded, r.checked,
        r.nonfinite ? fmt::format(" ({} not finite)", r.nonfinite) : "", byte, got[j], std::bit_cast<uint32_t>(got[j]),
        cpu[j], std::bit_cast<uint32_t>(cpu[j]), tolerance.allowed(j, cpu[j]), writtenBy(s, c.buffer, byte, before));
}

StepChecker::StepChecker(const Scenario& s)
    : s_(s), model_(initialContents(s)), values_(s.cpuChain ? initialChainValues(s) : ChainValues{}) {}

void StepChecker::operator()(size_t index, const Contents& written) {
    for (; applied_ <= index; ++applied_) {
        applyStep(s_.steps[applied_], model_);
        unmodelledAfter(s_.steps[applied_], s_, unmodelled_);
        chainValuesAfter(s_.steps[applied_], s_, values_);
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

// Buffer `name` against the CPU chain when it holds a value of it after step `index`: its
// mismatch line or nothing; not compared (nullopt) when it holds none, or one shallower than
// one compared before (the stepper does not go back).
std::optional<std::optional<std::string>> StepChecker::compareChainValue(const std::string& name,
                                                                         const std::vector<uint8_t>& bytes,
                                                                         size_t index) {
    const auto v = values_.find(name);
    if (v == values_.end() || v->second.kind == ChainValue::Kind::Weight) return std::nullopt;
    const uint32_t depth = referenceDepth(v->second);
    if (!stepper_) stepper_.emplace(*s_.shape);
    if (stepper_->steps() > depth) return std::nullopt;
    while (stepper_->steps() < depth) stepper_->advance();
    const Tolerance tolerance = stepper_->tolerance();
    const std::vector<float> floats = comparedFloats(*s_.shape, v->second, bytes);
    const ChainCheck check{
        .buffer = name, .value = v->second, .report = compareWithTolerance(floats, stepper_->small(), tolerance)};
    return chainDifference(s_, check, floats, stepper_->small(), tolerance, index + 1);
}

namespace {

// The labels of steps indices[0..count) (every step when `indices` is null) joined by
// `separator`, the first `listed` of them and then how many in all, `what` naming them (a
// repeat makes hundreds).
std::string joinLabels(const Scenario& s, const std::vector<size_t>* indices, size_t listed, std::string_view separator,
                       std::string_view what) {
    const size_t count = indices ? indices->size() : s.steps.size();
    std::string out;
    for (size_t i = 0; i < count && i < listed; ++i)
        out += fmt::format("{}{}", out.empty() ? "" : separator, s.steps[indices ? (*indices)[i] : i].label);
    if (count > listed) out += fmt::format("{}... ({}{} in all)", separator, count, what);
    return out;
}

}  // namespace

std::string stepLabels(const Scenario& s, const std::vector<size_t>& indices) {
    return joinLabels(s, &indices, 6, ", ", "");
}

std::string stepList(const Scenario& s) { return joinLabels(s, nullptr, 12, "; ", " steps"); }

// The CPU chain's references for `values` at `shape` (chainReferences), started on a
// thread of its own (startInBackground) the first time they are asked for and shared after:
// a --sweep or --matrix prepares each variant, and at the full shape one reference is
// seconds of host work (bench/RESULTS.md). The thread runs while the GPU runs the modes;
// judge waits for it.
using ChainReferences = std::map<std::string, ChainExpected>;

std::shared_future<ChainReferences> chainReferencesFor(const Shape& shape, const ChainValues& values) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_future<ChainReferences>> started;
    std::string key = describe(shape);  // every field of the shape
    for (const auto& [name, v] : values) key += fmt::format(" {}={}", name, describe(v));
    const std::lock_guard lock(mutex);
    auto& future = started[key];
    if (!future.valid()) future = startInBackground([shape, values] { return chainReferences(shape, values); }).share();
    return future;
}

// At the blade file's full shape, a model that knows nothing still copied 165 MB of buffers
// (bench/RESULTS.md, round 9).
References cpuReferences(const Scenario& s) {
    References r;
    if (const ChainValues chain = chainChecked(s); !chain.empty()) r.chain = chainReferencesFor(*s.shape, chain);
    if (const std::vector<std::string> modelled = modelledChecked(s); !modelled.empty()) {
        const Contents model = runCpuModel(s);
        for (const auto& name : modelled) r.expected.emplace(name, model.at(name));
    }
    if (hasHostRead(s)) r.hostModel = hostReadContents(s);
    return r;
}

// ToleranceReport::uninformative: where the bound admits zero, the check could not tell a
// right value from a lost one.
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
std::optional<std::string> compareChain(const Scenario& s, const References& r, const ModeBytes& m,
                                        std::vector<ChainCheck>& checks) {
    if (!r.chain.valid()) return std::nullopt;
    for (const auto& [name, expected] : r.chain.get()) {
        const auto got = m.checked.find(name);
        if (got == m.checked.end()) continue;
        const std::vector<float> floats = comparedFloats(*s.shape, expected.value, got->second);
        checks.push_back({.buffer = name,
                          .value = expected.value,
                          .report = compareWithTolerance(floats, expected.small, expected.tolerance)});
        if (auto d = chainDifference(s, checks.back(), floats, expected.small, expected.tolerance)) return d;
    }
    return std::nullopt;
}

Judgement judgeBytes(const Scenario& s, const References& r, const ModeBytes* split, const ModeBytes& m,
                     const StepChecker::Result* steps) {
    Judgement out;
    std::optional<std::string>& wrong = out.wrong;
    wrong = hostReadDifference(s, m.hostReads, r.hostModel, "the CPU model");
    if (!wrong && split) wrong = hostReadDifference(s, m.hostReads, split->hostReads, "split");
    if (!wrong) wrong = compare(s, m.checked, r.expected, "the CPU model");
    if (!wrong) {
        std::vector<ChainCheck> checks;
        wrong = compareChain(s, r, m, checks);
        if (!wrong) out.chainNote = chainNote(checks);
    }
    if (!wrong && split) wrong = compare(s, m.checked, split->checked, "split");
    if (!wrong && steps && steps->firstWrong)
        wrong = fmt::format("check-steps: {}: {}", s.steps[*steps->firstWrong].label, steps->firstDetail);
    return out;
}

}  // namespace repro::scenario
