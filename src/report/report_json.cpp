// The report's JSON (see report_json.hpp): one table of fields, `fields(io, x)` for each
// report type, names each JSON field once; JsonWriter walks it to write the object and
// JsonReader walks the same table to read one back, so a field cannot be written without
// being read. A field's C++ type says how it is encoded (a float as a number or "NaN",
// "inf", "-inf"; an optional as null when empty; an enum by its name); the few that the
// type does not say carry a tag (kNullWhenEmpty, kNullWhenZero, kEmbeddedJson).
#include "report/report_json.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <type_traits>
#include <utility>

#include "forensics/environment.hpp"
#include "core/json_number.hpp"
#include "report/report_facts.hpp"

namespace repro {
namespace {

using nlohmann::json;
using Pairs = std::vector<std::pair<std::string, std::string>>;

// ---------------------------------------------------------------- encodings

struct NullWhenEmpty {};  // a string: "" is null
struct NullWhenZero {};   // a count: 0 is null
struct EmbeddedJson {};   // a string holding a JSON object's text: the object; "" is null
constexpr NullWhenEmpty kNullWhenEmpty{};
constexpr NullWhenZero kNullWhenZero{};
constexpr EmbeddedJson kEmbeddedJson{};

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
json toJson(const std::vector<double>& xs) {
    json out = json::array();
    for (const double x : xs) out.push_back(toJson(x));
    return out;
}
// Name -> value pairs as an object; of a repeated name, the first value.
json toJson(const Pairs& pairs) {
    json out = json::object();
    for (const auto& [k, v] : pairs) {
        if (!out.contains(k)) out[k] = v;
    }
    return out;
}
template <typename T>
json toJson(const std::optional<T>& v) {
    return v ? toJson(*v) : json(nullptr);
}
json toJson(const std::string& s, NullWhenEmpty) { return s.empty() ? json(nullptr) : json(s); }
json toJson(uint32_t n, NullWhenZero) { return n ? json(n) : json(nullptr); }
json toJson(const std::string& text, EmbeddedJson) {
    return text.empty() ? json(nullptr) : json::parse(text, nullptr, false);
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

// ---------------------------------------------------------------- the walkers

// Writes each field it is shown into one JSON object.
class JsonWriter {
  public:
    static constexpr bool kWrites = true;

    explicit JsonWriter(json& out) : out_(out) { out_ = json::object(); }

    template <typename T, typename... Tag>
    void operator()(const char* key, const T& value, Tag... tag) {
        out_[key] = toJson(value, tag...);
    }
    // A report type as a nested object, through its own fields().
    template <typename T>
    void object(const char* key, const T& value) {
        JsonWriter nested(out_[key]);
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
            JsonWriter element(list.emplace_back());
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
        JsonWriter nested(out_[key]);
        describe(nested);
    }
    // A field derived from the report, written and never read back.
    template <typename F>
    void derived(const char* key, F&& value) {
        out_[key] = value();
    }

  private:
    json& out_;
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
    io("driver_id", d.driverId, kNullWhenEmpty);
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
}

template <typename Io>
void fields(Io& io, Of<DrmCard, Io>& c) {
    io("name", c.name);
    io("pci_slot", c.pciSlot, kNullWhenEmpty);
    io("vendor_id", c.vendorId);
    io("device_id", c.deviceId);
    io("driver", c.driver, kNullWhenEmpty);
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
    io("host", e.host);
    io("kernel_driver", e.kernelDriver);
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
    io("submit_every", e.submitEvery, kNullWhenZero);
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
    io("wall_seconds", r.wallSeconds);
    io("runs", r.runs);
    io("wrong_runs", r.wrongRuns);
    io("identical_across_runs", r.identicalAcrossRuns);
    io.group(
        "gpu",
        [&](auto& gpu) {
            gpu("dispatch_seconds", m.dispatchGpuSeconds);
            gpu("submit_seconds", m.submitGpuSeconds);
            gpu("mode_seconds", m.modeGpuSeconds);
        },
        hasGpuTimes(m));
    io("cause", r.causeJson, kEmbeddedJson);
    io("per_dispatch_check", r.perDispatchCheckJson, kEmbeddedJson);
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
    io("instance_and_device", p.instanceAndDevice);
    io("pipelines", p.pipelines);
    io("buffers_and_upload", p.buffersAndUpload);
    io("recording", p.recording);
    io("gpu_wait", p.gpuWait);
    io("readback", p.readback);
    io("verification", p.verification);
    io("total", p.total);
    io("teardown", p.teardown);
    io("teardown_device", p.teardownDevice);
    io.derived("teardown_instance", [&] { return toJson(p.teardownInstance()); });
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
void fields(Io& io, Of<RunReport, Io>& r) {
    io.derived("schema", [] { return json("repro-report"); });
    io.derived("schema_version", [] { return json(kReportSchemaVersion); });
    io.group("repro", [&](auto& repro) {
        repro("version", r.version);
        repro("git", r.gitHash);
    });
    io("command_line", r.commandLine);
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
        shape("preset", r.preset, kNullWhenEmpty);
        fields(shape, r.shape);
    });
    io.object("sizes", r.sizes);
    io("chain_length", r.chainLength);
    io.object("experiment", r.experiment);
    io("reference", r.referenceName, kNullWhenEmpty);
    io.objects("modes", r.modes);
    io.object("validation", r.validation);
    io.object("timings", r.timings);
    io.derived("warnings", [&] { return json(watchdogWarnings(r)); });
    io.object("verdict", r.verdict);
    io.objects("streams", r.streams);
}

}  // namespace

json renderJson(const RunReport& r) {
    json out;
    JsonWriter writer(out);
    fields(writer, r);
    return out;
}

std::string renderJsonLine(const RunReport& r) {
    return renderJson(r).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string renderJsonText(const RunReport& r) {
    return renderJson(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
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
