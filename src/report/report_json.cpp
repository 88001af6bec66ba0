// The report's JSON (see report_json.hpp): one table of fields, `fields(io, x)` for each
// report type, names each JSON field once; JsonWriter walks it to write the object and
// JsonReader walks the same table to read one back, so a field cannot be written without
// being read. A field's C++ type says how it is encoded (a float as a number or "NaN",
// "inf", "-inf"; an optional as null when empty; an enum by its name); the few that the
// type does not say carry a tag (NullWhenEmpty{}, NullWhenZero{}, EmbeddedJson{}, FactTree{},
// BufferValues{}, kHostDecimals, GpuSeconds{}, PortableCommandLine{}).
#include "report/report_json.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <type_traits>
#include <utility>

#include "forensics/environment.hpp"
#include "core/json_number.hpp"
#include "core/text.hpp"
#include "report/command_line.hpp"
#include "report/report_facts.hpp"

namespace repro {
namespace {

using nlohmann::json;
using Pairs = std::vector<std::pair<std::string, std::string>>;

// ---------------------------------------------------------------- encodings

struct NullWhenEmpty {};  // a string: "" is null
struct NullWhenZero {};   // a count: 0 is null
// A string holding a JSON object's text: the object, its durations rounded as host times
// (roundDurations); "" is null.
struct EmbeddedJson {};
struct FactTree {};             // name -> value facts with dotted names: nested objects (factTree)
struct BufferValues {};         // buffer name -> value pairs: a list of {"buffer", "value"} objects
struct GpuSeconds {};           // a GPU duration: rounded to the timestamp period (gpuDecimals)
struct PortableCommandLine {};  // argv: written through portableCommandLine

// Host durations come from std::chrono::steady_clock, whose nanoseconds say more than a
// phase of a run can repeat: they are written to the microsecond (6 decimals of a second).
constexpr int kHostDecimals = 6;

// The key of a fact tree's object that holds the value of the fact named by the object's
// own path ("os" beside "os.id"; factTree).
constexpr const char* kOwnValue = "value";

// What the writer needs beyond the report: the folders command_line is shortened against
// and the decimals of the GPU times (gpuDecimals of the report's device).
struct WriteContext {
    CommandLineContext commandLine;
    int gpuDecimals = 9;
};
const WriteContext kNoContext{};

constexpr Mode kModes[] = {Mode::Split, Mode::Multipass, Mode::Single};
constexpr Classification kClassifications[] = {
    Classification::Ok,        Classification::Zero,         Classification::Mismatch,
    Classification::NonFinite, Classification::Unwritten,    Classification::Hang,
    Classification::NotRun,    Classification::Inconclusive, Classification::Killed};

template <typename T>
json toJson(const T& value) {
    return json(value);  // strings, integers, bools, lists of strings, workgroup counts
}
json toJson(double x) { return jsonNumber(x); }
// A float32: its shortest decimal form that reads back as the same float32 (0.00031, not
// the widened 0.0003100000030826777), or the strings above.
json toJson(float x) {
    if (!std::isfinite(x)) return jsonNumber(x);
    return std::strtod(fmt::format("{}", x).c_str(), nullptr);
}
json toJson(Mode m) { return std::string(name(m)); }
json toJson(Classification c) { return std::string(name(c)); }
// Name -> value pairs (strings, or integers) as an object; of a repeated name, the first value.
template <typename V>
json toJson(const std::vector<std::pair<std::string, V>>& pairs) {
    json out = json::object();
    for (const auto& [k, v] : pairs) {
        if (!out.contains(k)) out[k] = v;
    }
    return out;
}
json toJson(const std::string& s, NullWhenEmpty) { return s.empty() ? json(nullptr) : json(s); }
json toJson(uint32_t n, NullWhenZero) { return n ? json(n) : json(nullptr); }

// `x` to `decimals` decimals of a second: the double nearest to the decimal k / 10^decimals,
// which JSON writes in its shortest form (0.013289, not 0.013288680999999998). Non-finite
// values and values too large to round are kept.
double roundedSeconds(double x, int decimals) {
    const double scale = std::pow(10.0, decimals);
    if (!std::isfinite(x) || std::fabs(x) * scale > 9.0e15) return x;
    return std::round(x * scale) / scale;
}
json toJson(double x, int decimals) { return toJson(roundedSeconds(x, decimals)); }
json toJson(const std::vector<double>& xs, int decimals) {
    json out = json::array();
    for (const double x : xs) out.push_back(toJson(x, decimals));
    return out;
}
template <typename T, typename... Tag>
json toJson(const std::optional<T>& v, Tag... tag) {
    return v ? toJson(*v, tag...) : json(nullptr);
}

// Every float under a key "seconds" or "..._seconds" in `j` (an element of such a list too),
// at any depth, rounded as a host duration.
void roundDurations(json& j) {
    if (j.is_array()) {
        for (json& v : j) roundDurations(v);
        return;
    }
    if (!j.is_object()) return;
    for (auto& [key, value] : j.items()) {
        const bool duration = key == "seconds" || key.ends_with("_seconds");
        if (duration && value.is_number_float()) {
            value = toJson(value.get<double>(), kHostDecimals);
        } else if (duration && value.is_array()) {
            for (json& x : value) {
                if (x.is_number_float()) x = toJson(x.get<double>(), kHostDecimals);
            }
        } else {
            roundDurations(value);
        }
    }
}
json toJson(const std::string& text, EmbeddedJson) {
    if (text.empty()) return nullptr;
    json object = json::parse(text, nullptr, false);
    roundDurations(object);
    return object;
}

// Facts named by dotted paths as nested objects, one level per name part: "kernel.release"
// is {"kernel": {"release": ...}}. Every first-level entry is an object, and where a fact's
// name is also the path of others' object ("os" beside "os.id", "card0" beside
// "card0.revision") its value is that object's kOwnValue: {"os": {"value": "Debian 12",
// "id": "debian"}}. Of a name given twice, the first value.
json toJson(const Pairs& facts, FactTree) {
    json out = json::object();
    for (const auto& [name, value] : facts) {
        const std::vector<std::string_view> parts = split(name, '.');
        json* node = &out;
        for (size_t i = 0; i + 1 < parts.size(); ++i) {
            json& next = (*node)[parts[i]];
            if (next.is_string()) next = json{{kOwnValue, next}};  // a fact that now has facts below it
            if (!next.is_object()) next = json::object();
            node = &next;
        }
        json& leaf = (*node)[parts.back()];
        const bool firstLevel = parts.size() == 1;
        if (leaf.is_null()) {
            leaf = firstLevel ? json{{kOwnValue, value}} : json(value);
        } else if (leaf.is_object() && !leaf.contains(kOwnValue)) {
            leaf[kOwnValue] = value;
        }
    }
    return out;
}
// A list of {"buffer": name, "value": value} objects, in the pairs' order.
json toJson(const Pairs& pairs, BufferValues) {
    json out = json::array();
    for (const auto& [buffer, value] : pairs) out.push_back({{"buffer", buffer}, {"value", value}});
    return out;
}

// Each fromJson sets `out` from `j` and says true when `j` holds a value of its type;
// otherwise `out` keeps what it had (its default).
template <typename T>
bool fromJson(const json& j, T& out) {
    try {
        out = j.get<T>();
        return true;
    } catch (const json::exception&) {
        return false;
    }
}
bool fromJson(const json& j, double& out) {
    if (j.is_number()) {
        out = j.get<double>();
        return true;
    }
    for (const double x : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {  // "NaN", "inf", "-inf"
        if (j == jsonNumber(x)) {
            out = x;
            return true;
        }
    }
    return false;
}
bool fromJson(const json& j, float& out) {
    double x = 0;
    if (!fromJson(j, x)) return false;
    out = static_cast<float>(x);
    return true;
}
template <typename Enum, size_t N>
bool enumFromJson(const json& j, Enum& out, const Enum (&values)[N]) {
    for (const Enum v : values) {
        if (j.is_string() && name(v) == j.get<std::string>()) {
            out = v;
            return true;
        }
    }
    return false;
}
bool fromJson(const json& j, Mode& out) { return enumFromJson(j, out, kModes); }
bool fromJson(const json& j, Classification& out) { return enumFromJson(j, out, kClassifications); }
// An element that is not a float reads as 0, so the list keeps its length.
bool fromJson(const json& j, std::vector<double>& out) {
    if (!j.is_array()) return false;
    out.clear();
    for (const json& v : j) fromJson(v, out.emplace_back(0.0));
    return true;
}
// A value that is not a string is kept as its JSON text.
bool fromJson(const json& j, Pairs& out) {
    if (!j.is_object()) return false;
    out.clear();
    for (const auto& [k, v] : j.items()) out.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    return true;
}
template <typename T>
bool fromJson(const json& j, std::optional<T>& out) {
    T value{};
    if (j.is_null() || !fromJson(j, value)) return false;
    out = std::move(value);
    return true;
}
template <typename T, typename Tag>
bool fromJson(const json& j, T& out, Tag) {
    return fromJson(j, out);  // null reads as the default, which writes as null
}
bool fromJson(const json& j, std::string& text, EmbeddedJson) {
    if (!j.is_object()) return false;
    text = j.dump();
    return true;
}
// An integer from 0 to 2^32 - 1 under each name; other values are left out.
bool fromJson(const json& j, std::vector<std::pair<std::string, uint32_t>>& out) {
    if (!j.is_object()) return false;
    out.clear();
    for (const auto& [k, v] : j.items()) {
        if (v.is_number_unsigned() && v.get<uint64_t>() <= UINT32_MAX) out.emplace_back(k, v.get<uint32_t>());
    }
    return true;
}
// The facts of a tree below `path`, each named by its path joined with dots; objects deeper
// than kMaxFactDepth (no fact's name has that many parts) are left out.
constexpr int kMaxFactDepth = 32;
void readFactTree(const json& node, const std::string& path, Pairs& out, int depth = 0) {
    for (const auto& [key, value] : node.items()) {
        const bool own = key == kOwnValue && !path.empty();
        const std::string name = own ? path : path.empty() ? key : path + "." + key;
        if (value.is_object()) {
            if (depth < kMaxFactDepth) readFactTree(value, name, out, depth + 1);
        } else if (value.is_structured()) {
            out.emplace_back(name, value.is_array() && value.empty() ? "[]" : "(a list)");
        } else {
            out.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
        }
    }
}
// toJson(FactTree)'s inverse, the facts in name order (as a flat object of the dotted names,
// which schema version 2 wrote, reads too).
bool fromJson(const json& j, Pairs& out, FactTree) {
    if (!j.is_object()) return false;
    out.clear();
    readFactTree(j, "", out);
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return true;
}
// toJson(BufferValues)'s inverse; an element without a string "buffer" is left out.
bool fromJson(const json& j, Pairs& out, BufferValues) {
    if (!j.is_array()) return false;
    out.clear();
    for (const json& e : j) {
        if (!e.is_object() || !e.contains("buffer") || !e["buffer"].is_string()) continue;
        const json& value = e.contains("value") ? e["value"] : json();
        out.emplace_back(e["buffer"].get<std::string>(), value.is_string() ? value.get<std::string>() : "");
    }
    return true;
}

// ---------------------------------------------------------------- the walkers

// Writes each field it is shown into one JSON object.
class JsonWriter {
  public:
    static constexpr bool kWrites = true;

    explicit JsonWriter(json& out, const WriteContext& context = kNoContext) : out_(out), context_(context) {
        out_ = json::object();
    }

    template <typename T, typename... Tag>
    void operator()(const char* key, const T& value, Tag... tag) {
        out_[key] = toJson(value, tag...);
    }
    template <typename T>
    void operator()(const char* key, const T& value, GpuSeconds) {
        out_[key] = toJson(value, context_.gpuDecimals);
    }
    void operator()(const char* key, const std::vector<std::string>& argv, PortableCommandLine) {
        out_[key] = portableCommandLine(argv, context_.commandLine);
    }
    // A report type as a nested object, through its own fields().
    template <typename T>
    void object(const char* key, const T& value) {
        JsonWriter nested(out_[key], context_);
        fields(nested, value);
    }
    template <typename T>
    void object(const char* key, const std::optional<T>& value) {
        if (!value) {
            out_[key] = nullptr;
            return;
        }
        object(key, *value);
    }
    template <typename T>
    void objects(const char* key, const std::vector<T>& values) {
        json& list = out_[key] = json::array();
        for (const T& value : values) {
            JsonWriter element(list.emplace_back(), context_);
            fields(element, value);
        }
    }
    // A nested object whose fields `describe(io)` names; null when not `present`.
    template <typename F>
    void group(const char* key, F&& describe, bool present = true) {
        if (!present) {
            out_[key] = nullptr;
            return;
        }
        JsonWriter nested(out_[key], context_);
        describe(nested);
    }
    // A field derived from the report, written and never read back.
    template <typename F>
    void derived(const char* key, F&& value) {
        out_[key] = value();
    }

  private:
    json& out_;
    const WriteContext& context_;
};

// Reads each field it is shown from one JSON object; a field the object lacks, or holds
// with another type, keeps its default.
class JsonReader {
  public:
    static constexpr bool kWrites = false;

    explicit JsonReader(const json& in) : in_(in) {}

    template <typename T, typename... Tag>
    void operator()(const char* key, T& value, Tag... tag) {
        if (const json* j = find(key)) fromJson(*j, value, tag...);
    }
    template <typename T>
    void object(const char* key, T& value) {
        JsonReader nested(member(key));
        fields(nested, value);
    }
    template <typename T>
    void object(const char* key, std::optional<T>& value) {
        if (!member(key).is_object()) return;
        object(key, value.emplace());
    }
    // Every element of the list, an element that is not an object as a default one.
    template <typename T>
    void objects(const char* key, std::vector<T>& values) {
        const json& list = member(key);
        if (!list.is_array()) return;
        values.clear();
        for (const json& j : list) {
            JsonReader element(j);
            fields(element, values.emplace_back());
        }
    }
    template <typename F>
    void group(const char* key, F&& describe, bool /*present*/ = true) {
        JsonReader nested(member(key));
        describe(nested);
    }
    template <typename F>
    void derived(const char*, F&&) {}

  private:
    const json* find(const char* key) const {
        if (!in_.is_object()) return nullptr;
        const auto it = in_.find(key);
        return it == in_.end() ? nullptr : &*it;
    }
    const json& member(const char* key) const {
        static const json none;
        const json* j = find(key);
        return j ? *j : none;
    }

    const json& in_;
};

// ---------------------------------------------------------------- the fields, each named once

// T as the walker Io sees it: const for the writer, to be filled for the reader.
template <typename T, typename Io>
using Of = std::conditional_t<Io::kWrites, const T, T>;

template <typename Io>
void fields(Io& io, Of<MemoryPlacement, Io>& m) {
    io("buffer", m.buffer);
    io("memory_class", m.memoryClass);
    io("type_index", m.typeIndex);
    io("type_flags", m.typeFlags);
    io("heap_index", m.heapIndex);
    io("heap_bytes", m.heapBytes);
    io("heap_flags", m.heapFlags);
}

template <typename Io>
void fields(Io& io, Of<DeviceReport, Io>& d) {
    io("index", d.index);
    io("device_name", d.deviceName);
    io("device_type", d.deviceType);
    io("api_version", d.apiVersion);
    io("driver_version", d.driverVersion);
    io("driver_version_raw", d.driverVersionRaw);
    io("vendor_id", d.vendorId);
    io("device_id", d.deviceId);
    io("driver_id", d.driverId, NullWhenEmpty{});
    io("driver_name", d.driverName);
    io("driver_info", d.driverInfo);
    io("conformance_version", d.conformanceVersion);
    io("device_uuid", d.deviceUuid);
    io("driver_uuid", d.driverUuid);
    io("pci_bus", d.pciBus);
    io("queue_family", d.queueFamily);
    io("queue_flags", d.queueFlags);
    io("queue_note", d.queueNote);
    io("extensions", d.extensions);
    io("features", d.features);
    io.objects("memory", d.memory);
    io("driver_library", d.driverLibrary);
    io("driver_manifest", d.driverManifest);
    io("timestamp_period_ns", d.timestampPeriodNs);
}

template <typename Io>
void fields(Io& io, Of<DrmCard, Io>& c) {
    io("name", c.name);
    io("pci_slot", c.pciSlot, NullWhenEmpty{});
    io("vendor_id", c.vendorId);
    io("device_id", c.deviceId);
    io("driver", c.driver, NullWhenEmpty{});
}

// Written only: environment.job_watchdog.
template <typename Io>
void fields(Io& io, Of<JobWatchdog, Io>& w) {
    io("driver", w.driver);
    io("seconds", w.seconds);
    io("read", w.read);
    io("source", w.source);
}

template <typename Io>
void fields(Io& io, Of<EnvironmentReport, Io>& e) {
    io("host", e.host, FactTree{});
    io("kernel_driver", e.kernelDriver, FactTree{});
    io.objects("drm_cards", e.drmCards);
    io("variables", e.variables);
    io("notes", e.notes);
}

template <typename Io>
void fields(Io& io, Of<LoaderReport, Io>& l) {
    io("version", l.version);
    io("driver_libraries", l.driverLibraries);
    io("problems", l.problems);
}

template <typename Io>
void fields(Io& io, Of<Shape, Io>& s) {
    io("batch", s.batch);
    io("channels", s.channels);
    io("height", s.height);
    io("width", s.width);
    io("kernel_h", s.kernelH);
    io("kernel_w", s.kernelW);
    io("stride_h", s.strideH);
    io("stride_w", s.strideW);
    io("pad_h", s.padH);
    io("pad_w", s.padW);
}

template <typename Io>
void fields(Io& io, Of<ChainSizes, Io>& z) {
    io("big_height", z.bigHeight);
    io("big_width", z.bigWidth);
    io("small_elements", z.smallElems);
    io("big_elements", z.bigElems);
    io("weight_elements", z.weightElems);
    io("small_bytes", z.smallBytes);
    io("big_bytes", z.bigBytes);
    io("weight_bytes", z.weightBytes);
    io("conv_workgroups", z.convWorkgroups);
    io("slice_workgroups", z.sliceWorkgroups);
}

template <typename Io>
void fields(Io& io, Of<ExperimentReport, Io>& e) {
    io("barrier", e.barrier);
    io("control", e.control);
    io("submit_every", e.submitEvery, NullWhenZero{});
    io("split_mib", e.splitMiB);
    io("split_ms", e.splitMs);
    io("host_wait", e.hostWait);
    io("memory", e.memory);
    io("dispatch_repeat", e.dispatchRepeat);
    io("profile", e.profile);
    io("spirv_dir", e.spirvDir);
    io("drop_dispatch", e.dropDispatch);
    io("changes", e.changes);
    io("quirks", e.quirks);
    io("stress", e.stress);
}

template <typename Io>
void fields(Io& io, Of<BufferStats, Io>& s) {
    io("elements", s.elements);
    io("non_zero", s.nonZero);
    io("non_finite", s.nonFinite);
    io("denormal", s.denormal);
    io("poisoned", s.poisoned);
    io("sum", s.sum);
    io("max_abs", s.maxAbs);
}

template <typename Io>
void fields(Io& io, Of<ModeReport, Io>& m) {
    auto& r = m.result;
    io("mode", r.mode);
    io("role", m.role);
    io("classification", r.kind);
    io("reason", r.reason);
    io.object("stats", r.stats);
    io("submits", r.submits);
    io("wall_seconds", r.wallSeconds, kHostDecimals);
    io("runs", r.runs);
    io("wrong_runs", r.wrongRuns);
    io("identical_across_runs", r.identicalAcrossRuns);
    io.group(
        "gpu",
        [&](auto& gpu) {
            gpu("dispatch_seconds", m.dispatchGpuSeconds, GpuSeconds{});
            gpu("submit_seconds", m.submitGpuSeconds, GpuSeconds{});
            gpu("mode_seconds", m.modeGpuSeconds, GpuSeconds{});
        },
        hasGpuTimes(m));
    io("canary", m.canary);
    io("cause", r.causeJson, EmbeddedJson{});
    io("per_dispatch_check", r.perDispatchCheckJson, EmbeddedJson{});
    io("step_check", r.stepCheckJson, EmbeddedJson{});
}

template <typename Io>
void fields(Io& io, Of<FoldedRuns, Io>& f) {
    io("mode", f.mode);
    io("point", f.point, NullWhenEmpty{});
    io("first_run", f.firstRun);
    io("runs", f.runs);
    io("wrong_runs", f.wrongRuns);
    io("identical_to_first_run", f.identical);
}

template <typename Io>
void fields(Io& io, Of<ValidationSummary, Io>& v) {
    io("enabled", v.enabled);
    io("errors", v.errors);
    io("warnings", v.warnings);
    io("messages", v.messages);
}

template <typename Io>
void fields(Io& io, Of<PhaseTimings, Io>& p) {
    io("instance_and_device", p.instanceAndDevice, kHostDecimals);
    io("reference", p.reference, kHostDecimals);
    io("pipelines", p.pipelines, kHostDecimals);
    io("buffers_and_upload", p.buffersAndUpload, kHostDecimals);
    io("recording", p.recording, kHostDecimals);
    io("gpu_wait", p.gpuWait, kHostDecimals);
    io("readback", p.readback, kHostDecimals);
    io("verification", p.verification, kHostDecimals);
    io("total", p.total, kHostDecimals);
    io("teardown", p.teardown, kHostDecimals);
    io("teardown_device", p.teardownDevice, kHostDecimals);
    // Of the rounded parts, so that teardown_device + teardown_instance is teardown.
    io.derived("teardown_instance", [&] {
        const PhaseTimings rounded{.teardown = roundedSeconds(p.teardown, kHostDecimals),
                                   .teardownDevice = roundedSeconds(p.teardownDevice, kHostDecimals)};
        return toJson(rounded.teardownInstance(), kHostDecimals);
    });
}

template <typename Io>
void fields(Io& io, Of<Verdict, Io>& v) {
    io("exit_status", v.exitStatus);
    io("lines", v.lines);
}

template <typename Io>
void fields(Io& io, Of<StreamReport, Io>& s) {
    io("title", s.title);
    io("calls", s.calls);
}

template <typename Io>
void fields(Io& io, Of<CaptureReport, Io>& c) {
    io("tool", c.tool);
    io("path", c.path, NullWhenEmpty{});
    io("files", c.files);
    io("note", c.note);
}

template <typename Io>
void fields(Io& io, Of<MutantReport, Io>& m) {
    io("step", m.step);
    io("what", m.what);
    io("weakening", m.weakening);
    io("rerun", m.rerun);
    io("runs", m.runs);
    io("wrong", m.wrong);
    io("outcome", m.outcome);
    io("reason", m.reason, NullWhenEmpty{});
}

template <typename Io>
void fields(Io& io, Of<MutantsReport, Io>& s) {
    io.objects("mutants", s.mutants);
    io("skipped", s.skipped);
    io("killed", s.killed);
    io("not_run", s.notRun);
    io("withheld", s.withheld, NullWhenEmpty{});
    io.derived("score", [&] {
        return s.withheld.empty() ? json(fmt::format("{} of {}", s.killed, s.mutants.size())) : json(nullptr);
    });
}

template <typename Io>
void fields(Io& io, Of<ScenarioFacts, Io>& f) {
    io("name", f.name);
    io("source", f.source);
    io("pattern", f.pattern);
    io("expected", f.expected);
    io("file", f.file);
    io("file_bytes", f.fileBytes);
    io("file_sha256", f.fileSha256);
    io("file_text", f.fileText);
    io("steps", f.steps);
    io("control_steps", f.controlSteps, NullWhenEmpty{});
    io("split_only", f.splitOnly);
    io("chain_values", f.chainValues, BufferValues{});
    io("queues", f.queues);
    io("images", f.images);
    io("poisoned", f.poisoned);
    io("parameters", f.parameters);
}

template <typename Io>
void fields(Io& io, Of<RunReport, Io>& r) {
    io.derived("schema", [] { return json("repro-report"); });
    io.derived("schema_version", [] { return json(kReportSchemaVersion); });
    io.group("repro", [&](auto& repro) {
        repro("version", r.version);
        repro("git", r.gitHash);
    });
    io("command_line", r.commandLine, PortableCommandLine{});
    io.group("environment", [&](auto& e) {
        fields(e, r.environment);
        e.derived("job_watchdog", [&] {
            const std::optional<JobWatchdog> w = reportJobWatchdog(r);
            json out = nullptr;
            if (w) {
                JsonWriter writer(out);
                fields(writer, *w);
            }
            return out;
        });
        e.derived("hang_evidence", [&] { return json(hangEvidenceNotes(hangEvidenceDriver(r))); });
    });
    io.object("loader", r.loader);
    io.object("device", r.device);
    io.group("shape", [&](auto& shape) {
        shape("preset", r.preset, NullWhenEmpty{});
        fields(shape, r.shape);
    });
    io.object("sizes", r.sizes);
    io("chain_length", r.chainLength);
    io.group("experiment", [&](auto& e) {
        fields(e, r.experiment);
        e.derived("controls", [&] { return json(reportControls(r)); });
    });
    io("reference", r.referenceName, NullWhenEmpty{});
    io.objects("modes", r.modes);
    io.objects("folded_runs", r.foldedRuns);
    io.object("validation", r.validation);
    io.object("timings", r.timings);
    io.derived("warnings", [&] { return json(watchdogWarnings(r)); });
    io.group("verdict", [&](auto& v) {
        fields(v, r.verdict);
        v.derived("kind", [&] { return json(std::string(name(reportVerdictKind(r)))); });
    });
    io.objects("streams", r.streams);
    io.object("scenario", r.scenario);
    io.objects("captures", r.captures);
    io.object("mutants", r.mutants);
}

// The decimals of a second that the device's timestamp period resolves: those of the
// largest power of ten at or below one tick (1 ns: 9; 10 ns or 52.08 ns: 8); 9, a
// nanosecond (the unit timestampPeriod counts in), when the period is unknown.
int gpuDecimals(const std::optional<DeviceReport>& device) {
    if (!device || !device->timestampPeriodNs) return 9;
    const double period = *device->timestampPeriodNs;
    if (!std::isfinite(period) || !(period > 0)) return 9;
    return std::clamp(9 - static_cast<int>(std::floor(std::log10(period))), 0, 12);
}

}  // namespace

json renderJson(const RunReport& r, const CommandLineContext& context) {
    json out;
    const WriteContext write{.commandLine = context, .gpuDecimals = gpuDecimals(r.device)};
    JsonWriter writer(out, write);
    fields(writer, r);
    return out;
}

std::string renderJsonLine(const RunReport& r, const CommandLineContext& context) {
    return renderJson(r, context).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string renderJsonText(const RunReport& r, const CommandLineContext& context) {
    return renderJson(r, context).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

RunReport parseReport(const json& object) {
    RunReport r;
    JsonReader reader(object);
    fields(reader, r);
    // A mode's cause line and kind are its cause object's "verdict" and "kind".
    for (ModeReport& m : r.modes) {
        if (m.result.causeJson.empty()) continue;
        const json cause = json::parse(m.result.causeJson, nullptr, false);
        JsonReader causeReader(cause);
        causeReader("verdict", m.result.cause);
        causeReader("kind", m.result.causeKind);
    }
    return r;
}

}  // namespace repro
