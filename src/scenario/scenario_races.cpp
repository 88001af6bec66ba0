// Data races on one queue (see scenario/scenario_races.hpp).
#include "scenario/scenario_races.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/errors.hpp"
#include "core/text.hpp"
#include "scenario/scenario_cpu.hpp"
#include "scenario/scenario_sync.hpp"

namespace repro::scenario {
namespace {

// VkAccessFlagBits2 values beyond scenario_sync.hpp's (Vulkan spec, "Access Types"): the
// storage forms synchronization2 adds, which SHADER_READ and SHADER_WRITE stand for.
constexpr uint64_t kShaderStorageRead = uint64_t{1} << 33, kShaderStorageWrite = uint64_t{1} << 34;

// One step's use of one buffer, with the bytes it reads and writes ([begin, end)). A layout
// transition is a touch of its barrier step: a write of the whole image (`transition`).
struct Touch {
    size_t step = 0;
    Use use;
    uint64_t readBegin = 0, readEnd = 0, writeBegin = 0, writeEnd = 0;
    bool transition = false;
};

uint64_t bytesOf(const Scenario& s, const std::string& buffer) {
    const BufferSpec* b = s.buffer(buffer);
    return b ? b->bytes : 0;
}

// The bytes `step` reads of `buffer`: a copy's source range, an indirect dispatch's 12 bytes of
// arguments, a dispatch's whole binding (a shader may read any of it).
std::pair<uint64_t, uint64_t> readSpan(const Step& step, const Scenario& s, const std::string& buffer) {
    const uint64_t all = bytesOf(s, buffer);
    if (const auto* c = std::get_if<Copy>(&step.body); c && c->src == buffer && c->dst != buffer)
        return {c->srcOffset, c->size == 0 ? all : c->srcOffset + c->size};
    if (const auto* d = std::get_if<Dispatch>(&step.body);
        d && d->indirect && d->indirect->buffer == buffer &&
        std::count(d->bindings.begin(), d->bindings.end(), buffer) == 0)
        return {d->indirect->offset, d->indirect->offset + 12};
    return {0, all};
}

// The bytes `step` writes of `buffer`: the CPU model's ranges (scenario_cpu.hpp writtenRanges)
// where it has them, else the whole buffer (a kernel it cannot follow may write any of it).
std::pair<uint64_t, uint64_t> writeSpan(const Step& step, const Scenario& s, const std::string& buffer) {
    uint64_t begin = ~uint64_t{0}, end = 0;
    for (const WrittenRange& r : writtenRanges(step, s)) {
        if (r.buffer != buffer) continue;
        begin = std::min(begin, r.begin);
        end = std::max(end, r.end);
    }
    return end > 0 ? std::pair{begin, end} : std::pair{uint64_t{0}, bytesOf(s, buffer)};
}

bool overlap(uint64_t b1, uint64_t e1, uint64_t b2, uint64_t e2) { return b1 < e2 && b2 < e1; }

// Whether a barrier's access mask covers each access of `accesses` (MEMORY_READ and
// MEMORY_WRITE cover every read and write; SHADER_READ/WRITE their storage forms and back).
bool coversAccess(uint64_t mask, uint64_t accesses) {
    if (mask & kMemoryRead) mask |= kShaderRead | kShaderStorageRead | kTransferRead | kIndirectCommandRead;
    if (mask & kMemoryWrite) mask |= kShaderWrite | kShaderStorageWrite | kTransferWrite;
    if (mask & (kShaderRead | kShaderStorageRead)) mask |= kShaderRead | kShaderStorageRead;
    if (mask & (kShaderWrite | kShaderStorageWrite)) mask |= kShaderWrite | kShaderStorageWrite;
    return (accesses & ~mask) == 0;
}

// A barrier's scopes as single records it (vk/barriers.hpp): blade's G and C their fixed masks
// (explicitForm), a memory barrier the file's, a buffer or image barrier the file's on `buffer`
// only, execution-only its stages alone; none for none.
std::optional<Barrier> scopesOf(const Barrier& b, const std::string& buffer) {
    const bool elsewhere = (b.kind == BarrierKind::Buffer || b.kind == BarrierKind::Image) && b.buffer != buffer;
    if (b.kind == BarrierKind::None || elsewhere) return std::nullopt;
    Barrier e = explicitForm(b);
    if (b.kind == BarrierKind::ExecutionOnly) e.srcAccess = e.dstAccess = 0;
    return e;
}

// Whether barrier `b` orders x's use before y's (see the header's rule).
bool orders(const Barrier& b, const std::string& buffer, const Use& x, const Use& y) {
    const auto scopes = scopesOf(b, buffer);
    if (!scopes) return false;
    if ((x.stage & ~firstScope(scopes->srcStage)) != 0 || (y.stage & ~secondScope(scopes->dstStage)) != 0) return false;
    if (x.writes == 0) return true;  // write-after-read: the execution dependency is enough
    // x's write made available; y's reads made visible (a write of y's needs the write
    // available and ordered before it, not visible to it)
    return coversAccess(scopes->srcAccess, x.writes) && coversAccess(scopes->dstAccess, y.access & ~y.writes);
}

// Whether barrier `b`, step `at`, orders x before y, where either may be a layout transition:
// at x's or y's own barrier, that barrier's second or first scope; after a transition, an
// execution dependency chained to its barrier's second scope, with y's reads made visible (a
// transition's writes are made available by themselves: "Image Layout Transitions").
bool ordersTouches(const Barrier& b, size_t at, const std::string& buffer, const Touch& x, const Touch& y) {
    if (at == x.step)
        return (y.use.stage & ~secondScope(b.dstStage)) == 0 && coversAccess(b.dstAccess, y.use.access & ~y.use.writes);
    if (at == y.step)
        return (x.use.stage & ~firstScope(b.srcStage)) == 0 &&
               (x.use.writes == 0 || coversAccess(b.srcAccess, x.use.writes));
    if (!x.transition) return orders(b, buffer, x.use, y.use);
    const auto scopes = scopesOf(b, buffer);
    return scopes && (x.use.stage & ~firstScope(scopes->srcStage)) == 0 &&
           (y.use.stage & ~secondScope(scopes->dstStage)) == 0 &&
           coversAccess(scopes->dstAccess, y.use.access & ~y.use.writes);
}

std::string labelOf(const Scenario& s, const Touch& t) {
    return t.transition ? "the layout transition of " + s.steps[t.step].label : s.steps[t.step].label;
}

std::string hazardOf(const Use& x, const Use& y) {
    if (x.writes && y.writes) return "write-after-write";
    return x.writes ? "read-after-write" : "write-after-read";
}

// The barrier a file would write to order x before y: blade's C between two dispatches, else
// a memory barrier of exactly their stages and accesses.
std::string suggestion(const Touch& tx, const Touch& ty) {
    const Use &x = tx.use, &y = ty.use;
    if (ty.transition)
        return fmt::format("the image barrier's src_stage to include {}{}", stageNames(x.stage),
                           x.writes ? " and its src_access the writes" : "");
    if (tx.transition)
        return fmt::format("the image barrier's dst_stage to include {}{} (or a barrier after it that does)",
                           stageNames(y.stage), y.access & ~y.writes ? " and its dst_access the reads" : "");
    if (x.stage == kComputeStage && y.stage == kComputeStage) return "barrier = \"blade-c\" between them";
    return fmt::format("barrier = \"memory\" with src_stage = {}, dst_stage = {}{} between them", stageNames(x.stage),
                       stageNames(y.stage), x.writes ? ", src_access and dst_access naming their accesses" : "");
}

[[noreturn]] void failRace(const Scenario& s, const Touch& x, const Touch& y, const std::string& buffer) {
    const Step& later = s.steps[y.step];
    const BufferSpec* spec = s.buffer(buffer);
    throw UsageError(oneTerminalLine(
        fmt::format("{}:{}:{}: {} and {} race on {} {} ({}): no barrier that single records between them orders "
                    "them (a data race in the file: a driver that runs them in order, as lavapipe does, hides it; a "
                    "GPU need not); expected {}, or a barrier marked control = true to run the race as "
                    "a labelled control",
                    s.file, later.place.line, later.place.column, labelOf(s, x), labelOf(s, y),
                    spec && spec->image ? "image" : "buffer", quote(buffer), hazardOf(x.use, y.use), suggestion(x, y)),
        std::string::npos));
}

// Whether step `i` ends a stretch of one queue's recording in single: a host point (the submit
// ends and is waited for), or a wait or signal (a batch boundary).
bool endsStretch(const Step& step) { return holds<HostWrite, HostRead, Wait, Signal>(step.body); }

bool conflict(const Touch& x, const Touch& y) {
    return (x.use.writes && overlap(x.writeBegin, x.writeEnd, y.readBegin, y.readEnd)) ||
           (y.use.writes && overlap(y.writeBegin, y.writeEnd, x.readBegin, x.readEnd)) ||
           (x.use.writes && y.use.writes && overlap(x.writeBegin, x.writeEnd, y.writeBegin, y.writeEnd));
}

// One buffer's touches that a later one may still race with: the writes since the last write
// of the whole buffer (which the check has ordered after everything before it), and the reads
// since then (a read races with a write only).
struct Live {
    std::vector<Touch> writes, reads;
};

class Stretch {
  public:
    Stretch(const Scenario& s, uint32_t q, size_t first, size_t last) : s_(s) {
        for (size_t z = first; z < last; ++z) {
            if (std::holds_alternative<Barrier>(s.steps[z].body) && s.steps[z].queue == q &&
                (s.steps[z].modeMask & 4u) != 0)
                barriers_.push_back(z);
        }
    }

    void add(size_t i) {
        if (const auto* b = std::get_if<Barrier>(&s_.steps[i].body)) return addTransition(i, *b);
        for (const auto& [buffer, use] : usesOf(s_.steps[i], s_)) {
            Touch y{.step = i, .use = use};
            if (use.access & ~use.writes) std::tie(y.readBegin, y.readEnd) = readSpan(s_.steps[i], s_, buffer);
            if (use.writes) std::tie(y.writeBegin, y.writeEnd) = writeSpan(s_.steps[i], s_, buffer);
            Live& live = live_[buffer];
            for (const Touch& x : live.writes) check(x, y, buffer);
            if (use.writes) {
                for (const Touch& x : live.reads) check(x, y, buffer);
                if (y.writeBegin == 0 && y.writeEnd >= bytesOf(s_, buffer)) live = Live{};
                live.writes.push_back(y);
            } else {
                live.reads.push_back(y);
            }
        }
    }

  private:
    // A layout transition (Vulkan spec, "Image Layout Transitions"): a write of the whole image
    // that happens after the availability operations of its barrier's first scope and before
    // the visibility operations of its second, so that barrier's own scopes order it too.
    void addTransition(size_t i, const Barrier& b) {
        if (b.kind != BarrierKind::Image || b.oldLayout == b.newLayout || (s_.steps[i].modeMask & 4u) == 0) return;
        Touch t{.step = i,
                .use = {.stage = b.srcStage, .access = kMemoryWrite, .writes = kMemoryWrite},
                .writeEnd = bytesOf(s_, b.buffer),
                .transition = true};
        Live& live = live_[b.buffer];
        for (const Touch& x : live.writes) check(x, t, b.buffer);
        for (const Touch& x : live.reads) check(x, t, b.buffer);
        t.use.stage = b.dstStage;  // what comes after it is ordered from its second scope
        live = Live{.writes = {t}, .reads = {}};
    }

    // x before y on `buffer`: a conflict needs a barrier of single's between them that orders
    // them, or a control barrier (the file's labelled race). A transition's own barrier counts
    // (its first scope before it, its second after it); two transitions of one queue are in
    // submission order by themselves (Vulkan spec, "Image Layout Transitions").
    void check(const Touch& x, const Touch& y, const std::string& buffer) const {
        if (!conflict(x, y) || (x.transition && y.transition)) return;
        auto z = std::upper_bound(barriers_.begin(), barriers_.end(), x.step);
        if (x.transition) --z;
        for (; z != barriers_.end() && (*z < y.step || (y.transition && *z == y.step)); ++z) {
            const auto& b = std::get<Barrier>(s_.steps[*z].body);
            if (b.control || ordersTouches(b, *z, buffer, x, y)) return;
        }
        failRace(s_, x, y, buffer);
    }

    const Scenario& s_;
    std::vector<size_t> barriers_;  // single's barrier steps on the queue, in order
    std::map<std::string, Live> live_;
};

}  // namespace

void checkOneQueueRaces(const Scenario& s) {
    for (uint32_t q = 0; q < std::max<size_t>(s.queues.size(), 1); ++q) {
        size_t first = 0;
        for (size_t i = 0; i <= s.steps.size(); ++i) {
            if (i < s.steps.size() && !(s.steps[i].queue == q && endsStretch(s.steps[i]))) continue;
            Stretch stretch(s, q, first, i);
            for (size_t k = first; k < i; ++k) {
                if (s.steps[k].queue == q) stretch.add(k);
            }
            first = i + 1;
        }
    }
}

}  // namespace repro::scenario
