// The trace-event recorder and document (see trace_events.hpp).
#include "report/trace_events.hpp"

#include <fmt/format.h>

#include <chrono>
#include <utility>

namespace repro::trace_events {
namespace {

struct Recorder {
    std::function<void(const std::string&)> sink;
    std::optional<double> jobTimeout;
    std::string jobTimeoutSource;
};

Recorder& recorder() {
    static Recorder r;
    return r;
}

void send(const nlohmann::json& line) {
    if (recorder().sink) recorder().sink(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// Integer nanoseconds as the format's microseconds: n / 1000 is the double nearest to it,
// and multiplying that by 1000 gives n back exactly (n below 2^53).
double micros(Nanos n) { return static_cast<double>(n) / 1000.0; }

// The wire form of one event (recorder to document) and back; nullopt for a line that is
// not one.
nlohmann::json eventLine(const Event& e) {
    return {{"name", e.name}, {"cat", e.category}, {"ph", std::string(1, e.phase)},
            {"t", e.start},   {"d", e.duration},   {"track", static_cast<int>(e.track)},
            {"args", e.args}};
}

std::optional<Event> parseEventLine(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("ph") || !j["ph"].is_string() || j["ph"].get<std::string>().size() != 1)
        return std::nullopt;
    const auto text = [&](const char* key) { return j.contains(key) && j[key].is_string(); };
    const auto integer = [&](const char* key) { return j.contains(key) && j[key].is_number_integer(); };
    if (!text("name") || !text("cat") || !integer("t") || !integer("d") || !integer("track")) return std::nullopt;
    const char phase = j["ph"].get<std::string>()[0];
    const int track = j["track"].get<int>();
    if ((phase != 'X' && phase != 'i') || track < 1 || track > 3) return std::nullopt;
    return Event{.name = j["name"].get<std::string>(),
                 .category = j["cat"].get<std::string>(),
                 .phase = phase,
                 .start = j["t"].get<Nanos>(),
                 .duration = std::max<Nanos>(0, j["d"].get<Nanos>()),
                 .track = static_cast<Track>(track),
                 .args = j.contains("args") && j["args"].is_object() ? j["args"] : nlohmann::json::object()};
}

}  // namespace

Nanos nanos(Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

void attach(std::function<void(const std::string&)> sink) { recorder().sink = std::move(sink); }

bool attached() { return static_cast<bool>(recorder().sink); }

void emit(const Event& event) {
    if (attached()) send(eventLine(event));
}

void slice(std::string name, std::string category, Track track, Nanos start, Nanos end, nlohmann::json args) {
    if (!attached()) return;
    emit({.name = std::move(name),
          .category = std::move(category),
          .start = start,
          .duration = std::max<Nanos>(0, end - start),
          .track = track,
          .args = std::move(args)});
}

void instant(std::string name, std::string category, Track track, Nanos at, nlohmann::json args) {
    if (!attached()) return;
    emit({.name = std::move(name),
          .category = std::move(category),
          .phase = 'i',
          .start = at,
          .track = track,
          .args = std::move(args)});
}

void fact(const std::string& key, const std::string& value) { send({{"fact", key}, {"value", value}}); }

void nameTrack(Track track, const std::string& name) {
    send({{"track_name", static_cast<int>(track)}, {"value", name}});
}

void setJobTimeout(std::optional<double> seconds, std::string source) {
    recorder().jobTimeout = seconds;
    recorder().jobTimeoutSource = std::move(source);
}

void submitSlice(const std::string& name, Nanos start, Nanos end, nlohmann::json args) {
    if (!attached()) return;
    const Recorder& r = recorder();
    if (r.jobTimeout) args["job_timeout_s"] = *r.jobTimeout;
    slice(name, "submit", Track::Host, start, end, args);
    if (!r.jobTimeout || *r.jobTimeout <= 0) return;
    const auto timeout = static_cast<Nanos>(*r.jobTimeout * 1e9);
    if (static_cast<double>(end - start) < kLongSubmitFraction * static_cast<double>(timeout)) return;
    instant(fmt::format("job timeout ({:.0f} ms) of {}", *r.jobTimeout * 1e3, name), "marker", Track::Host,
            start + timeout,
            {{"submit", name},
             {"job_timeout_s", *r.jobTimeout},
             {"source", r.jobTimeoutSource},
             {"meaning", "where the kernel's job timeout would end this submit, counted from vkQueueSubmit"}});
}

Span::Span(std::string name, std::string category, Track track)
    : event_{.name = std::move(name), .category = std::move(category), .start = now(), .track = track} {}

Span::~Span() {
    if (!attached()) return;
    event_.duration = std::max<Nanos>(0, now() - event_.start);
    emit(event_);
}

Nanos GpuClockPair::toHost(uint64_t t) const {
    // The difference in ticks, signed, within the valid bits (a counter of fewer than 64
    // bits wraps at validMask).
    uint64_t forward = (t - ticks) & validMask;
    const uint64_t half = validMask / 2 + 1;
    const bool before = validMask != 0 && forward >= half;
    const double delta = before ? -static_cast<double>((ticks - t) & validMask) : static_cast<double>(forward);
    return host + static_cast<Nanos>(std::llround(delta * nsPerTick));
}

TraceDocument::TraceDocument(Nanos origin, int pid, std::string processName)
    : origin_(origin), pid_(pid), processName_(std::move(processName)) {
    trackNames_[Track::Host] = "host: repro's phases";
    trackNames_[Track::Gpu] = "GPU (--timestamps)";
    trackNames_[Track::Children] = "child processes: --watchdog-probe rungs, --triage, --matrix";
}

bool TraceDocument::addLine(const std::string& line) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return false;
    if (j.contains("fact") && j["fact"].is_string() && j.contains("value") && j["value"].is_string()) {
        facts_[j["fact"].get<std::string>()] = j["value"].get<std::string>();
        return true;
    }
    if (j.contains("track_name") && j["track_name"].is_number_integer() && j.contains("value") &&
        j["value"].is_string()) {
        const int track = j["track_name"].get<int>();
        if (track < 1 || track > 3) return false;
        trackNames_[static_cast<Track>(track)] = j["value"].get<std::string>();
        return true;
    }
    const std::optional<Event> e = parseEventLine(j);
    if (e) events_.push_back(*e);
    return e.has_value();
}

void TraceDocument::add(const Event& event) { events_.push_back(event); }

nlohmann::json TraceDocument::render() const {
    nlohmann::json events = nlohmann::json::array();
    std::map<Track, bool> used{{Track::Host, true}};
    for (const Event& e : events_) used[e.track] = true;
    const auto metadata = [&](const char* name, int tid, nlohmann::json args) {  // the format's "M" events
        events.push_back({{"name", name}, {"ph", "M"}, {"ts", 0}, {"pid", pid_}, {"tid", tid}, {"args", args}});
    };
    metadata("process_name", 0, {{"name", processName_}});
    for (const auto& [track, on] : used) {
        const int tid = static_cast<int>(track);
        const auto name = trackNames_.find(track);
        metadata("thread_name", tid,
                 {{"name", name != trackNames_.end() ? name->second : fmt::format("track {}", tid)}});
        metadata("thread_sort_index", tid, {{"sort_index", tid}});
    }
    for (const Event& e : events_) {
        nlohmann::json j{{"name", e.name},
                         {"cat", e.category},
                         {"ph", std::string(1, e.phase)},
                         {"ts", micros(e.start - origin_)},
                         {"pid", pid_},
                         {"tid", static_cast<int>(e.track)},
                         {"args", e.args}};
        if (e.phase == 'X') j["dur"] = micros(e.duration);
        if (e.phase == 'i') j["s"] = "t";
        events.push_back(std::move(j));
    }
    nlohmann::json other = nlohmann::json::object();
    for (const auto& [key, value] : facts_) other[key] = value;
    return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}, {"otherData", std::move(other)}};
}

std::string TraceDocument::renderText() const {
    // One event a line: the file reads (and diffs) as a list.
    const nlohmann::json doc = render();
    const auto dump = [](const nlohmann::json& j) {
        return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    std::string text = "{\"traceEvents\": [\n";
    const auto& events = doc["traceEvents"];
    for (size_t i = 0; i < events.size(); ++i) text += dump(events[i]) + (i + 1 < events.size() ? ",\n" : "\n");
    text += "],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": " + dump(doc["otherData"]) + "}\n";
    return text;
}

}  // namespace repro::trace_events
