// Scenario files to the model (scenario/scenario_parse.hpp). toml++ is used header-only here
// (TOML_HEADER_ONLY, src/CMakeLists.txt) so that repro needs no shared library at run time.
#include "scenario/scenario_parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <ranges>
#include <set>
#include <span>
#include <utility>

#include "reference/cpu_reference.hpp"
#include "core/bounded_file.hpp"
#include "core/errors.hpp"
#include "scenario/scenario_cpu.hpp"
#include "scenario/scenario_sync.hpp"
#include "core/sha256.hpp"
#include "core/spirv_module.hpp"
#include "core/spirv_validation.hpp"
#include "core/text.hpp"
#include "scenario/scenario_parse_images.hpp"
#include "scenario/scenario_parse_steps.hpp"
#include "scenario/scenario_races.hpp"
#include "scenario/toml_reader.hpp"

namespace repro::scenario {
namespace {

using namespace parse;

// `shape = "small"` (a --preset name), or a table of the chain's shape fields, each replacing
// one of `preset`'s (spectrostream by default), as the command line's shape options do:
// [shape] preset = "small", channels = 32, ... The shape must be one the chain can have
// (core/shape.hpp computeSizes); its name is the preset's, or "custom" when a field differs.
void parseShape(const Parser& p, const toml::table& root, Scenario& s) {
    const toml::node* node = root.get("shape");
    if (!node) return;
    const auto preset = [&](const toml::node& where, const std::string& name) {
        const auto& presets = presetNames();
        if (std::find(presets.begin(), presets.end(), name) == presets.end())
            p.fail(where,
                   fmt::format("unknown shape '{}'; expected small, tiny or spectrostream (--preset's names)", name));
        return presetShape(name);
    };
    if (!node->is_table()) {
        s.shapeName = p.text(root, "shape", false, "");
        s.shape = preset(*node, s.shapeName);
        return;
    }
    const toml::table& t = *node->as_table();
    p.onlyKeys(t,
               {"preset", "batch", "channels", "height", "width", "kernel_h", "kernel_w", "stride_h", "stride_w",
                "pad_h", "pad_w"},
               "the shape");
    s.shapeName = p.text(t, "preset", false, "");
    Shape shape =
        preset(t.get("preset") ? *t.get("preset") : *node, s.shapeName.empty() ? "spectrostream" : s.shapeName);
    const Shape base = shape;
    const std::pair<const char*, uint32_t Shape::*> fields[] = {
        {"batch", &Shape::batch},      {"channels", &Shape::channels}, {"height", &Shape::height},
        {"width", &Shape::width},      {"kernel_h", &Shape::kernelH},  {"kernel_w", &Shape::kernelW},
        {"stride_h", &Shape::strideH}, {"stride_w", &Shape::strideW},  {"pad_h", &Shape::padH},
        {"pad_w", &Shape::padW}};
    for (const auto& [key, field] : fields)
        shape.*field = static_cast<uint32_t>(p.integer(t, key, shape.*field, UINT32_MAX));
    try {
        (void)computeSizes(shape);
    } catch (const UsageError& e) {
        p.fail(*node, e.what());
    }
    if (s.shapeName.empty() || !(shape == base))
        s.shapeName = shape == presetShape("spectrostream") ? "spectrostream" : "custom";
    s.shape = shape;
}

void parseHeader(const Parser& p, const toml::table& root, Scenario& s) {
    p.onlyKeys(root,
               {"name", "source", "pattern", "expected", "check", "buffer", "kernel", "step", "shuffle", "queue",
                "semaphore", "shape", "image"},
               "the scenario");
    s.name = p.name(root, "name", true, "the scenario", "the scenario's");
    s.source = p.text(root, "source", true, "the scenario");
    s.pattern = p.text(root, "pattern", true, "the scenario");
    s.expected = p.text(root, "expected", true, "the scenario");
    if (s.expected != "not reproduced" && s.expected != "reproduced")
        p.fail(*root.get("expected"),
               fmt::format("expected = '{}'; expected \"not reproduced\" or \"reproduced\"", s.expected));
    parseShape(p, root, s);
}

// [[image]] tables, then [[buffer]] tables (at least one of either): one name space.
void parseBuffers(const Parser& p, const toml::table& root, Scenario& s) {
    for (const std::string_view key : {"image", "buffer"}) {
        p.eachTable(root, key, [&](const toml::table& t) {
            std::optional<ImageSpec> image;
            if (key == "image") image = parseImageKeys(p, t);
            BufferSpec b = parseBuffer(p, t, s, image ? uint64_t{image->width} * image->height * 4 : 0);
            if (image) finishImage(p, t, *image, b);
            if (s.buffer(b.name))
                p.fail(t, fmt::format("'{}' is declared twice (buffers and images share one name space)", b.name));
            s.buffers.push_back(std::move(b));
        });
    }
    // a [[buffer]] list that is there and not empty has added one or failed
    if (s.buffers.empty()) p.fail(root, "the scenario has no [[buffer]] or [[image]] tables; expected at least one");
}

// The module's bindings against what repro binds: set 0, bindings 0..n-1, one storage-buffer
// or 2D storage-image variable each, and at most sizeof(KernelParams) bytes of push constants.
void checkUserModule(const Parser& p, const toml::table& t, const SpirvModule& m, UserKernel& k) {
    const std::string what = fmt::format("kernel '{}' ({})", k.name, k.spirv);
    if (m.entryPoint != k.entry)
        p.fail(at(t, t.get("entry") ? "entry" : "spirv"),
               fmt::format("{}: its GLCompute entry point is \"{}\", not \"{}\"; expected entry = "
                           "\"{}\"",
                           what, m.entryPoint, k.entry, m.entryPoint));
    for (const SpirvBinding& b : m.bindings) {
        if (b.set != 0)
            p.fail(at(t, "spirv"), fmt::format("{}: set {} binding {} is in descriptor set {}; repro binds set 0 only",
                                               what, b.set, b.binding, b.set));
        if (b.kind != SpirvResourceKind::StorageBuffer && b.kind != SpirvResourceKind::StorageImage)
            p.fail(at(t, "spirv"), fmt::format("{}: binding {} is a {} descriptor; repro binds storage buffers and "
                                               "2D storage images only",
                                               what, b.binding, name(b.kind)));
    }
    for (size_t i = 0; i < m.bindings.size(); ++i) {
        const SpirvBinding& b = m.bindings[i];
        if (b.binding != i)
            p.fail(at(t, "spirv"),
                   fmt::format("{}: binding {} {}; expected bindings 0..{} with no gap, one variable each", what, i,
                               b.binding < i ? "is declared twice" : "is missing", m.bindings.size() - 1));
        k.writes.push_back(!b.nonWritable);
        k.reads.push_back(!b.nonReadable);
        k.images.push_back(b.kind == SpirvResourceKind::StorageImage ? std::optional(b.imageFormat) : std::nullopt);
    }
    if (m.bindings.empty())
        p.fail(
            at(t, "spirv"),
            fmt::format("{}: the module has no storage-buffer or storage-image binding; expected at least one", what));
    if (m.pushConstantBytes > sizeof(KernelParams))
        p.fail(at(t, "spirv"), fmt::format("{}: its push-constant block is {} bytes; repro pushes {} (count, add, "
                                           "work, zero)",
                                           what, m.pushConstantBytes, sizeof(KernelParams)));
}

// The module through spirv-val, as --spirv's modules (core/spirv_validation.hpp): a module it
// rejects is a bad file at the kernel's `spirv`, before a driver is given it (an invalid
// module may crash the driver, which would say nothing about the driver). Where spirv-val
// cannot run (not on PATH, no temporary file), the module is used as repro's own reader
// found it, and `k.validation` says why it was not checked.
void checkWithSpirvVal(const Parser& p, const toml::node& spirv, UserKernel& k) {
    const char* path = std::getenv("PATH");
    const char* tmp = std::getenv("TMPDIR");
    const std::filesystem::path module(k.spirv);
    const std::filesystem::path folder = module.has_parent_path() ? module.parent_path() : ".";
    const SpirvValidation v = validateModules(findOnPath("spirv-val", path ? path : ""), folder,
                                              {module.filename().string()}, tmp && *tmp ? tmp : "/tmp")
                                  .front();
    if (v.state == SpirvValidation::State::Invalid)
        p.fail(spirv, fmt::format("kernel '{}': {}: spirv-val ({}) rejects the module ({}); expected a module that "
                                  "passes spirv-val",
                                  k.name, quote(k.spirv), kSpirvValTargetEnv, v.message));
    k.validation = v.state == SpirvValidation::State::Valid ? fmt::format("spirv-val ({}): valid", kSpirvValTargetEnv)
                                                            : fmt::format("not checked by spirv-val: {}", v.message);
}

// One [[kernel]]: name, spirv (a path relative to the scenario file's folder), entry.
UserKernel parseUserKernel(const Parser& p, const toml::table& t, const Scenario& s) {
    p.onlyKeys(t, {"name", "spirv", "entry"}, "a [[kernel]]");
    UserKernel k{.name = p.name(t, "name", true, "a [[kernel]]", "kernel"), .place = placeOf(t)};
    if (parseKernel(k.name) || s.kernel(k.name))
        p.fail(*t.get("name"), fmt::format("kernel '{}' is {}; expected a name of its own", k.name,
                                           parseKernel(k.name) ? "a built-in kernel's name" : "declared twice"));
    const std::filesystem::path spirv = p.text(t, "spirv", true, fmt::format("kernel '{}'", k.name));
    k.spirv = (spirv.is_absolute() ? spirv : std::filesystem::path(p.file()).parent_path() / spirv).string();
    if (t.get("entry")) k.entry = p.text(t, "entry", true, "");
    SpirvModule m;
    try {
        m = loadSpirvFile(k.spirv);
    } catch (const UsageError& e) {
        p.fail(*t.get("spirv"), fmt::format("kernel '{}': {}", k.name, e.what()));
    }
    checkWithSpirvVal(p, *t.get("spirv"), k);
    checkUserModule(p, t, m, k);
    k.localSize = m.localSize;
    k.words = std::move(m.words);
    return k;
}

void parseKernels(const Parser& p, const toml::table& root, Scenario& s) {
    p.eachTable(root, "kernel", [&](const toml::table& t) { s.kernels.push_back(parseUserKernel(p, t, s)); });
}

// [[queue]] tables (name, family = "same" or "other") and [[semaphore]] tables (name, type =
// "binary" or "timeline"), each name unique; "main" is the main queue's.
void parseQueuesAndSemaphores(const Parser& p, const toml::table& root, Scenario& s) {
    for (const std::string_view key : {"queue", "semaphore"}) {
        p.eachTable(root, key, [&](const toml::table& t) {
            const bool queue = key == "queue";
            p.onlyKeys(t, {"name", queue ? "family" : "type"}, queue ? "a [[queue]]" : "a [[semaphore]]");
            const std::string name =
                p.name(t, "name", true, queue ? "a [[queue]]" : "a [[semaphore]]", queue ? "queue" : "semaphore");
            const std::string kind = p.text(t, queue ? "family" : "type", true, fmt::format("{} '{}'", key, name));
            const bool twice = queue ? std::any_of(s.queues.begin(), s.queues.end(),
                                                   [&](const QueueSpec& q) { return q.name == name; })
                                     : std::any_of(s.semaphores.begin(), s.semaphores.end(),
                                                   [&](const SemaphoreSpec& x) { return x.name == name; });
            if (twice)
                p.fail(t, name == "main" && queue ? "queue 'main' is the main queue, which needs no [[queue]]"
                                                  : fmt::format("{} '{}' is declared twice", key, name));
            const toml::node& kindNode = *t.get(queue ? "family" : "type");
            if (queue && kind != "same" && kind != "other")
                p.fail(kindNode, fmt::format("unknown family '{}'; expected \"same\" (a second queue of the main "
                                             "queue's family) or \"other\" (another family)",
                                             kind));
            if (!queue && kind != "binary" && kind != "timeline")
                p.fail(kindNode, fmt::format("unknown type '{}'; expected \"binary\" or \"timeline\"", kind));
            if (queue) {
                s.queues.push_back({.name = name,
                                    .family = kind == "same" ? QueueFamilyChoice::Same : QueueFamilyChoice::Other,
                                    .place = placeOf(t)});
            } else {
                s.semaphores.push_back({.name = name, .timeline = kind == "timeline", .place = placeOf(t)});
            }
        });
    }
}

void parseCheck(const Parser& p, const toml::table& root, Scenario& s) {
    const auto names = p.strings(root, "check");
    const bool images = std::any_of(s.buffers.begin(), s.buffers.end(), [](const BufferSpec& b) { return b.checked; });
    if (names.empty() && !images)
        p.fail(root,
               "the scenario has no 'check'; expected check = [\"buffer name\", ...] or check = true on an "
               "[[image]]");
    for (size_t i = 0; i < names.size(); ++i) {
        auto it =
            std::find_if(s.buffers.begin(), s.buffers.end(), [&](const BufferSpec& b) { return b.name == names[i]; });
        if (it == s.buffers.end())
            p.fail((*root.get("check")->as_array())[i], fmt::format("check names '{}', which is no buffer", names[i]));
        it->checked = true;
    }
}

// shuffle = SEED: the steps that are not barriers, signals or waits change places among themselves (a
// Fisher-Yates shuffle drawing from randomWords(SEED)); the barriers stay where they are.
// Labels are renumbered in the new order and name the step's place in the file.
void shuffleSteps(const Parser& p, const toml::table& root, Scenario& s) {
    if (!root.get("shuffle")) return;
    const auto seed = static_cast<uint32_t>(p.integer(root, "shuffle", 0, 0xffffffffULL));
    std::vector<size_t> slots;  // the positions of the steps that are not barriers
    for (size_t i = 0; i < s.steps.size(); ++i)
        if (isWork(s.steps[i])) slots.push_back(i);
    std::vector<Step> work;
    for (const size_t i : slots) work.push_back(s.steps[i]);
    const auto draws = randomWords(seed, work.size());
    for (size_t i = work.size(); i > 1; --i) std::swap(work[i - 1], work[draws[i - 1] % i]);
    for (size_t k = 0; k < slots.size(); ++k) s.steps[slots[k]] = std::move(work[k]);
    for (size_t i = 0; i < s.steps.size(); ++i) {
        std::string& label = s.steps[i].label;
        const size_t at = label.find(' ', 5);  // after "step N"
        const std::string fileStep = label.substr(5, at - 5);
        label = fmt::format("step {} {}", i + 1, label.substr(at + 1));
        if (fileStep != std::to_string(i + 1)) label += fmt::format(" (file step {})", fileStep);
    }
}

// Host points end the main queue's submit; with a second queue the batches would have to end
// there too, which the recorder does not do yet: one line at the first host point.
void refuseHostPointsWithQueues(const Parser& p, const Scenario& s) {
    if (!s.usesQueues()) return;
    for (const Step& step : s.steps) {
        if (!isHostPoint(step)) continue;
        p.failAt(step,
                 "in a file with [[queue]] or [[semaphore]] tables: host points and a second queue do not go "
                 "together yet; expected one or the other");
    }
}

toml::table parseToml(const Parser& p, std::string_view text, const std::string& file) {
    try {
        return toml::parse(text, file);
    } catch (const toml::parse_error& e) {
        p.fail(e.source(), fmt::format("TOML syntax: {}", e.description()));
    }
}

bool isParameterName(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

// [parameters]: its values, `overrides` applied (docs/scenarios.md "Parameters").
ParameterValues readParameters(const Parser& p, const toml::table& root, const ParameterValues& overrides,
                               const std::string& file) {
    ParameterValues out;
    if (const toml::node* node = root.get("parameters")) {
        const toml::table* t = node->as_table();
        if (!t) p.fail(*node, "'parameters' must be a table; expected [parameters] with name = integer");
        for (const auto& [key, value] : *t) {
            if (!isParameterName(key.str()))
                p.fail(value, fmt::format("parameter name {}; expected letters, digits and '_'", quote(key.str())));
            out[std::string(key.str())] = static_cast<uint32_t>(p.integer(*t, key.str(), 0, 0xffffffffULL));
        }
    }
    for (const auto& [name, value] : overrides) {
        if (!out.count(name))
            throw UsageError(
                fmt::format("--sweep: {} has no parameter '{}' ({})", file, name,
                            out.empty() ? "it has no [parameters] table"
                                        : fmt::format("its [parameters]: {}", fmt::join(std::views::keys(out), ", "))));
        out[name] = value;
    }
    return out;
}

// `text` with every string "$name" of a parameter replaced by its value, padded with spaces
// to the string's length so that the columns after it stay (a longer number shifts them).
// A "$name" that is no parameter fails at its line and column.
std::string substituteParameters(const Parser& p, std::string_view text, const ParameterValues& params) {
    std::string out;
    uint32_t line = 1, column = 1;
    for (size_t i = 0; i < text.size();) {
        if (text[i] == '"' && i + 1 < text.size() && text[i + 1] == '$') {
            const size_t close = text.find('"', i + 2);
            const std::string_view name =
                close == std::string_view::npos ? std::string_view() : text.substr(i + 2, close - i - 2);
            if (isParameterName(name)) {
                const auto it = params.find(std::string(name));
                if (it == params.end())
                    p.fail(toml::source_region{.begin = {line, column}, .end = {line, column}},
                           fmt::format("unknown parameter '${}'; expected one of the names in [parameters]", name));
                std::string value = std::to_string(it->second);
                value.resize(std::max(value.size(), close + 1 - i), ' ');
                out += value;
                column += static_cast<uint32_t>(close + 1 - i);
                i = close + 1;
                continue;
            }
        }
        out += text[i];
        column = text[i] == '\n' ? 1 : column + 1;
        line += text[i] == '\n' ? 1 : 0;
        ++i;
    }
    return out;
}

// Each dispatch_indirect's group counts as the CPU model has them in its args when the step
// runs (indirectGroups), kept in its `groups` for writtenRanges; a count past kMaxGroups (the
// required minimum of maxComputeWorkGroupCount, Vulkan spec "Required Limits") is an error.
// 0 is allowed: Vulkan lets an indirect dispatch have no workgroups. Runs the CPU model once,
// only for a scenario with an indirect dispatch.
void resolveIndirectGroups(const Parser& p, Scenario& s) {
    const bool any = std::any_of(s.steps.begin(), s.steps.end(), [](const Step& step) {
        const auto* d = std::get_if<Dispatch>(&step.body);
        return d && d->indirect;
    });
    if (!any) return;
    fillChainWords(std::span<Scenario* const>({&s}));  // the args may come from them
    Contents contents = initialContents(s);
    std::set<std::string> unmodelled;
    for (Step& step : s.steps) {
        if (auto* d = std::get_if<Dispatch>(&step.body); d && d->indirect) {
            if (unmodelled.count(d->indirect->buffer))
                p.failAt(step, fmt::format("reads its group counts from buffer '{}', which a user kernel wrote before "
                                           "(the CPU model cannot know them); expected args that no user kernel's "
                                           "output reaches",
                                           d->indirect->buffer));
            const auto g = indirectGroups(*d, contents);
            if (std::any_of(g.begin(), g.end(), [](uint32_t n) { return n > kMaxGroups; }))
                p.failAt(step, fmt::format("reads group counts ({}, {}, {}) from buffer '{}' at byte {} (as the CPU "
                                           "model has it there); expected each 0..{}",
                                           g[0], g[1], g[2], d->indirect->buffer, d->indirect->offset, kMaxGroups));
            std::copy(g.begin(), g.end(), d->groups);
            if (const auto why = indexWraps(*d, d->groups))
                throw UsageError(oneTerminalLine(
                    fmt::format("{}:{}:{}: {} reads group counts ({}, {}, {}) from buffer '{}' at byte {} (as the "
                                "CPU model has it there), which make {}",
                                p.file(), step.place.line, step.place.column, step.label, g[0], g[1], g[2],
                                d->indirect->buffer, d->indirect->offset, *why),
                    std::string::npos));
        }
        applyStep(step, contents);
        unmodelledAfter(step, s, unmodelled);
    }
}

}  // namespace

void fillChainWords(std::span<Scenario* const> scenarios) {
    // made once per shape and kind, into the first buffer that takes them; copied into the
    // others (a --sweep's variants)
    std::map<std::pair<std::string, InitKind>, const std::vector<uint32_t>*> made;
    for (Scenario* s : scenarios) {
        for (BufferSpec& b : s->buffers) {
            if (!awaitsChainWords(b)) continue;
            auto [at, fresh] = made.try_emplace({describe(*s->shape), b.init}, &b.words);
            if (!fresh) {
                b.words = *at->second;
                continue;
            }
            const ChainSizes sizes = computeSizes(*s->shape);
            // makeInput on the worker pool: 3.7 M sinf calls at the full shape
            const std::vector<float> floats = b.init == InitKind::ChainInput ? makeInput(sizes) : makeWeight(sizes);
            b.words.resize(floats.size());
            std::memcpy(b.words.data(), floats.data(), floats.size() * sizeof(float));
        }
    }
}

Scenario parseScenario(std::string_view text, const std::string& file, const ParameterValues& overrides,
                       RaceCheck races) {
    const Parser p(file);
    toml::table root = parseToml(p, text, file);
    const ParameterValues params = readParameters(p, root, overrides, file);
    const ParameterValues own = overrides.empty() ? params : readParameters(p, root, {}, file);
    if (root.get("parameters")) {
        root = parseToml(p, substituteParameters(p, text, params), file);
        root.erase("parameters");
    }
    Scenario s;
    s.file = file;
    s.parameters = params;
    s.fileParameters = own;
    parseHeader(p, root, s);
    parseBuffers(p, root, s);
    parseKernels(p, root, s);
    parseCheck(p, root, s);
    parseQueuesAndSemaphores(p, root, s);
    toml::node* node = root.get("step");
    toml::array* steps = node ? node->as_array() : nullptr;
    if (!steps || steps->empty()) p.fail(root, "the scenario has no [[step]] tables; expected at least one");
    RepeatSeen biggest;
    for (auto& e : *steps) {
        toml::table* t = e.as_table();
        if (!t) p.fail(e, "'step' must be [[step]] tables");
        appendSteps(p, *t, s, biggest);
    }
    shuffleSteps(p, root, s);
    refuseHostPointsWithQueues(p, s);
    checkAndOrderSemaphores(s);
    checkReadBeforeWrite(p, s);
    checkImageLayouts(p, s);
    resolveIndirectGroups(p, s);
    if (races == RaceCheck::Refuse) checkOneQueueRaces(s);  // after the indirect counts: writtenRanges needs them
    return s;
}

Scenario loadScenario(const std::string& path, const ParameterValues& overrides) {
    BoundedRead file = readRegularFile(path, kMaxScenarioBytes);
    if (!file.problem.empty())
        throw UsageError(fmt::format("--scenario: cannot read {} ({})", quote(path), file.problem));
    if (file.bytes.empty())
        throw UsageError(
            fmt::format("--scenario: {} is empty (0 bytes); expected a scenario (docs/scenarios.md)", quote(path)));
    const std::string bytes = std::move(file.bytes);
    Scenario s = parseScenario(bytes, path, overrides);
    s.fileBytes = bytes.size();
    s.fileSha256 = sha256Hex(bytes);  // of the very bytes parsed, not a second read
    s.fileText = bytes;
    return s;
}

}  // namespace repro::scenario
