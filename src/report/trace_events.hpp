// --trace FILE: a timeline of the run in the Trace Event Format, the JSON that Perfetto and chrome://tracing open
// (docs/trace.md). Not the command-stream tracer of vk/trace.hpp, which prints Vulkan calls as text. The recorder, in
// the supervised child, sends each finished host phase, GPU dispatch interval or marker at once as one line of JSON
// through a sink (the pipe to the supervisor, vk/watch.hpp); the document, in the supervisor, collects those lines
// (TraceDocument::addLine), adds its own markers and renders the file (docs/trace.md "How the file gets out"). Times
// are integer nanoseconds of the monotonic clock (core/clock.hpp), the same in parent and child, written as
// microseconds since the document's origin with three decimals (docs/trace.md "Clocks"). Vulkan-free.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"

namespace repro::trace_events {

using Nanos = int64_t;

// Nanoseconds since the monotonic clock's epoch.
Nanos nanos(Clock::time_point t);
inline Nanos now() { return nanos(Clock::now()); }

// The tracks (the format's thread ids, all in one process).
enum class Track : int {
    Host = 1,      // repro's host phases: set-up, each mode, its submits and waits, readback
    Gpu = 2,       // each dispatch's GPU interval (--timestamps)
    Children = 3,  // child processes of --watchdog-probe, --triage, --matrix, --driver-env-sweep
};

// One event. phase 'X': a complete slice from `start` lasting `duration`; 'i': an instant
// marker at `start` (duration ignored).
struct Event {
    std::string name;
    std::string category;  // "phase", "mode", "submit", "dispatch", "marker", "child"
    char phase = 'X';
    Nanos start = 0;
    Nanos duration = 0;
    Track track = Track::Host;
    nlohmann::json args = nlohmann::json::object();
};

// ---- The recorder (the working process) ------------------------------------------------

// From now on every event and fact goes to `sink` as one line of JSON (no newline). Without
// it (no --trace) the calls below do nothing.
void attach(std::function<void(const std::string&)> sink);
bool attached();

void emit(const Event& event);
// A complete slice from `start` to `end` (end before start: duration 0).
void slice(std::string name, std::string category, Track track, Nanos start, Nanos end,
           nlohmann::json args = nlohmann::json::object());
void instant(std::string name, std::string category, Track track, Nanos at,
             nlohmann::json args = nlohmann::json::object());
// A fact for the document's metadata ("otherData"): the device, the clock alignment.
// A later value for the same key replaces the earlier.
void fact(const std::string& key, const std::string& value);
// The name the document gives `track` ("GPU: llvmpipe, queue family 0 (timestamps)").
void nameTrack(Track track, const std::string& name);

// The kernel's GPU job timeout where known (seconds, and where it came from), for the
// markers on long submits (submitSlice); nullopt: none known.
void setJobTimeout(std::optional<double> seconds, std::string source);

// A submit and its host wait as one slice on the host track ("submit 2 of 4 (step 1
// slice)"); when a job timeout is known and the submit lasted at least
// kLongSubmitFraction of it, an instant marker where the kernel would kill the job (the
// submit's start plus the timeout).
inline constexpr double kLongSubmitFraction = 0.25;
void submitSlice(const std::string& name, Nanos start, Nanos end, nlohmann::json args);

// A slice on the host track from construction to destruction; args may be added on the way.
class Span {
  public:
    Span(std::string name, std::string category, Track track = Track::Host);
    ~Span();
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;
    nlohmann::json& args() { return event_.args; }

  private:
    Event event_;
};

// ---- Aligning GPU timestamps with the host clock -----------------------------------------

// How GPU timestamp ticks become host nanoseconds: one pair of readings of the same moment
// (the device's tick count and the host's monotonic nanoseconds), taken either together by
// vkGetCalibratedTimestampsEXT/KHR (calibrated) or, without that extension, as a command
// buffer's first timestamp and the host time of its vkQueueSubmit (approximate: the GPU
// started that command buffer at or after the submit).
struct GpuClockPair {
    uint64_t ticks = 0;          // the device's timestamp, masked to timestampValidBits
    Nanos host = 0;              // monotonic nanoseconds at the same moment
    double nsPerTick = 1.0;      // VkPhysicalDeviceLimits::timestampPeriod
    uint64_t validMask = ~0ull;  // (1 << timestampValidBits) - 1

    // `ticks` (masked the same way) as host nanoseconds; a tick count "before" the pair's
    // (by less than half the valid range) maps before `host`, as wrap-around demands.
    Nanos toHost(uint64_t t) const;
};

// ---- The document (the supervisor) --------------------------------------------------------

class TraceDocument {
  public:
    // `origin`: the nanoseconds that become ts 0; `pid`: the process id the events carry.
    TraceDocument(Nanos origin, int pid, std::string processName);

    // One line the recorder sent; lines that are not its JSON are ignored. False then.
    bool addLine(const std::string& line);
    void add(const Event& event);
    void setFact(const std::string& key, const std::string& value) { facts_[key] = value; }

    // The file: {"traceEvents": [metadata events naming the process and each track used,
    // then every event in the order added], "displayTimeUnit": "ms", "otherData": {facts}}.
    nlohmann::json render() const;
    std::string renderText() const;

  private:
    Nanos origin_;
    int pid_;
    std::string processName_;
    std::vector<Event> events_;
    std::map<std::string, std::string> facts_;
    std::map<Track, std::string> trackNames_;
};

}  // namespace repro::trace_events
