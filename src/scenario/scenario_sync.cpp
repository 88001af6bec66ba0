// Queues and semaphores of a scenario (scenario/scenario_sync.hpp).
#include "scenario/scenario_sync.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <tuple>
#include <utility>

#include "core/errors.hpp"

namespace repro::scenario {

std::vector<Batch> batchesOf(const Scenario& s) {
    std::vector<Batch> out;
    std::vector<std::optional<size_t>> open(s.queues.size());
    for (size_t i = 0; i < s.steps.size(); ++i) {
        const Step& step = s.steps[i];
        const bool isWait = std::holds_alternative<Wait>(step.body);
        const bool isSignal = std::holds_alternative<Signal>(step.body);
        std::optional<size_t>& current = open.at(step.queue);
        if (current) {
            const Batch& b = out[*current];
            const bool cut = isWait ? !b.work.empty() || !b.signals.empty() : !isSignal && !b.signals.empty();
            if (cut) current.reset();
        }
        if (!current) {
            current = out.size();
            out.push_back({.queue = step.queue, .first = i});
        }
        Batch& b = out[*current];
        (isWait ? b.waits : isSignal ? b.signals : b.work).push_back(i);
    }
    return out;
}

namespace {

[[noreturn]] void failAt(const Scenario& s, const Step& step, const std::string& what) {
    throw UsageError(fmt::format("{}:{}:{}: {}", s.file, step.place.line, step.place.column, what));
}

// An arc of the batch graph: `from` must run before the batch it leads to. A semaphore arc
// names its wait and signal steps; a queue-order arc names neither.
struct Arc {
    size_t from = 0;
    std::optional<size_t> wait, signal;
};

// The signal step each wait step waits for (binary: the one unconsumed signal before it;
// timeline: the first signal whose value reaches the wait's), after the rules on each kind.
std::map<size_t, size_t> signalOfEachWait(const Scenario& s) {
    std::map<size_t, size_t> out;
    std::vector<std::optional<size_t>> pending(s.semaphores.size());        // binary: unconsumed signal
    std::vector<std::vector<size_t>> timelineSignals(s.semaphores.size());  // timeline: in file order
    for (size_t i = 0; i < s.steps.size(); ++i) {
        const Step& step = s.steps[i];
        if (const auto* sig = std::get_if<Signal>(&step.body)) {
            const SemaphoreSpec& sem = s.semaphores[sig->semaphore];
            if (sem.timeline) {
                auto& list = timelineSignals[sig->semaphore];
                const uint64_t before = list.empty() ? 0 : std::get<Signal>(s.steps[list.back()].body).value;
                if (sig->value <= before)
                    failAt(s, step,
                           fmt::format("{} signals timeline semaphore '{}' with {}, not above its previous signal's "
                                       "{}; expected strictly increasing values in file order",
                                       step.label, sem.name, sig->value, before));
                list.push_back(i);
            } else if (pending[sig->semaphore]) {
                failAt(s, step,
                       fmt::format("{} signals binary semaphore '{}' again before a wait consumed {}; expected a "
                                   "wait between (each binary signal is consumed by one wait)",
                                   step.label, sem.name, s.steps[*pending[sig->semaphore]].label));
            } else {
                pending[sig->semaphore] = i;
            }
        } else if (const auto* w = std::get_if<Wait>(&step.body); w && !s.semaphores[w->semaphore].timeline) {
            if (!pending[w->semaphore])
                failAt(s, step,
                       fmt::format("{} waits on binary semaphore '{}' with no unconsumed signal before it in file "
                                   "order; expected a signal of '{}' earlier in the file (a binary wait needs its "
                                   "signal submitted first)",
                                   step.label, s.semaphores[w->semaphore].name, s.semaphores[w->semaphore].name));
            out[i] = *pending[w->semaphore];
            pending[w->semaphore].reset();
        }
    }
    for (size_t i = 0; i < s.steps.size(); ++i) {
        const auto* w = std::get_if<Wait>(&s.steps[i].body);
        if (!w || !s.semaphores[w->semaphore].timeline) continue;
        const auto& list = timelineSignals[w->semaphore];
        const auto reaching = std::find_if(
            list.begin(), list.end(), [&](size_t at) { return std::get<Signal>(s.steps[at].body).value >= w->value; });
        if (reaching == list.end())
            failAt(s, s.steps[i],
                   fmt::format("{} waits for timeline semaphore '{}' to reach {}, and no signal reaches it (the "
                               "largest signalled is {}); expected a signal of {} or more",
                               s.steps[i].label, s.semaphores[w->semaphore].name, w->value,
                               list.empty() ? 0 : std::get<Signal>(s.steps[list.back()].body).value, w->value));
        out[i] = *reaching;
    }
    return out;
}

// The arcs into each batch: the queue's previous batch, and the batch of each wait's signal.
std::vector<std::vector<Arc>> arcsInto(const Scenario& s, const std::vector<Batch>& batches) {
    std::vector<size_t> batchOf(s.steps.size());
    for (size_t b = 0; b < batches.size(); ++b) {
        for (const auto* list : {&batches[b].waits, &batches[b].work, &batches[b].signals})
            for (const size_t i : *list) batchOf[i] = b;
    }
    const std::map<size_t, size_t> signalOf = signalOfEachWait(s);
    std::vector<std::vector<Arc>> into(batches.size());
    std::vector<std::optional<size_t>> last(s.queues.size());
    for (size_t b = 0; b < batches.size(); ++b) {
        if (auto& previous = last[batches[b].queue]) into[b].push_back({.from = *previous});
        last[batches[b].queue] = b;
        for (const size_t w : batches[b].waits)
            into[b].push_back({.from = batchOf[signalOf.at(w)], .wait = w, .signal = signalOf.at(w)});
    }
    return into;
}

// One line naming a cycle among the batches not in `order` (each has an arc from another of
// them, so walking arcs backwards from one of them comes back to a batch already seen).
[[noreturn]] void failCycle(const Scenario& s, const std::vector<std::vector<Arc>>& into,
                            const std::vector<bool>& placed) {
    size_t at = std::find(placed.begin(), placed.end(), false) - placed.begin();
    std::vector<size_t> path;
    std::vector<Arc> arcs;  // arcs[k] leads into path[k]
    std::map<size_t, size_t> seen;
    while (!seen.count(at)) {
        seen[at] = path.size();
        path.push_back(at);
        const auto arc = std::find_if(into[at].begin(), into[at].end(), [&](const Arc& a) { return !placed[a.from]; });
        arcs.push_back(*arc);
        at = arc->from;
    }
    std::vector<Arc> cycle;  // backwards: each wait, then what its signal runs after
    for (size_t k = seen[at]; k < arcs.size(); ++k) {
        if (arcs[k].wait) cycle.push_back(arcs[k]);
    }
    std::rotate(
        cycle.begin(),
        std::min_element(cycle.begin(), cycle.end(), [](const Arc& a, const Arc& b) { return *a.wait < *b.wait; }),
        cycle.end());
    std::string chain;
    for (const Arc& a : cycle) {
        chain += fmt::format("{} waits for {}, which runs after ", s.steps[*a.wait].label, s.steps[*a.signal].label);
    }
    const Step& first = s.steps[*cycle.front().wait];
    failAt(s, first,
           fmt::format("a cycle of semaphores, so no order can run it: {}{}; expected every wait's signal to run "
                       "without that wait",
                       chain, first.label));
}

// A topological order of the batches (Kahn's algorithm), the earliest in the file first
// among those ready; a cycle is an error (failCycle).
std::vector<size_t> batchOrder(const Scenario& s, const std::vector<std::vector<Arc>>& into) {
    const size_t n = into.size();
    std::vector<std::vector<size_t>> outOf(n);
    std::vector<size_t> missing(n);
    for (size_t b = 0; b < n; ++b) {
        missing[b] = into[b].size();
        for (const Arc& a : into[b]) outOf[a.from].push_back(b);
    }
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
    for (size_t b = 0; b < n; ++b) {
        if (missing[b] == 0) ready.push(b);
    }
    std::vector<size_t> order;
    std::vector<bool> placed(n, false);
    while (!ready.empty()) {
        const size_t b = ready.top();
        ready.pop();
        order.push_back(b);
        placed[b] = true;
        for (const size_t next : outOf[b]) {
            if (--missing[next] == 0) ready.push(next);
        }
    }
    if (order.size() != n) failCycle(s, into, placed);
    return order;
}

// Each batch's set of batches that run before it, along the arcs (bit rows over `order`).
std::vector<std::vector<uint64_t>> runsBefore(const std::vector<std::vector<Arc>>& into,
                                              const std::vector<size_t>& order) {
    const size_t n = into.size(), words = (n + 63) / 64;
    std::vector<std::vector<uint64_t>> before(n, std::vector<uint64_t>(words, 0));
    for (const size_t b : order) {
        for (const Arc& a : into[b]) {
            before[b][a.from / 64] |= uint64_t{1} << (a.from % 64);
            for (size_t w = 0; w < words; ++w) before[b][w] |= before[a.from][w];
        }
    }
    return before;
}

// The stages a barrier step carries an earlier dependency to, for an access to `buffer`: its
// first scope and its second (blade's G: ALL_COMMANDS both; C: COMPUTE_SHADER both; a memory
// barrier's own; a buffer or image barrier's on its buffer or image only); none for a control
// (execution-only, none, or control = true: no memory dependency a file may rely on) or a
// barrier that multipass or single leaves out (`modes`).
std::pair<uint64_t, uint64_t> carries(const Step& step, const std::string& buffer) {
    const auto* b = std::get_if<Barrier>(&step.body);
    if (!b || b->control || (step.modeMask & 6u) != 6u) return {0, 0};
    if (b->kind == BarrierKind::BladeGlobal) return {~uint64_t{0}, ~uint64_t{0}};
    if (b->kind == BarrierKind::BladeCompute) return {kComputeStage, kComputeStage};
    if (b->kind == BarrierKind::Memory ||
        ((b->kind == BarrierKind::Buffer || b->kind == BarrierKind::Image) && b->buffer == buffer))
        return {firstScope(b->srcStage), secondScope(b->dstStage)};
    return {0, 0};
}

// One use of a buffer by a batch's step: the checks below pair them up.
struct Access {
    size_t batch, step;
    bool writes;
    uint64_t stage;  // the stages it uses the buffer in (usesOf)
};

// Each batch's distinct uses of each buffer, by buffer name (an image's layout transition: a
// write at the barrier's source stage, which a wait before it must reach).
std::map<std::string, std::vector<Access>> accessesByBuffer(const Scenario& s, const std::vector<Batch>& batches) {
    std::map<std::string, std::vector<Access>> byBuffer;
    for (size_t b = 0; b < batches.size(); ++b) {
        std::set<std::tuple<std::string, bool, uint64_t>> noted;
        for (const size_t i : batches[b].work) {
            for (const auto& [name, use] : usesOf(s.steps[i], s)) {
                for (const bool writes : {false, true}) {  // its read, then its write, as each applies
                    if ((writes ? use.writes : use.access & ~use.writes) == 0) continue;
                    if (noted.insert({name, writes, use.stage}).second)
                        byBuffer[name].push_back({b, i, writes, use.stage});
                }
            }
            if (const Barrier* t = layoutTransition(s.steps[i]))
                byBuffer[t->buffer].push_back({b, i, true, t->srcStage});
        }
    }
    return byBuffer;
}

// The order the batches run in, for the race check: which batch runs after which, and what
// reaches a step at its stage.
class BatchOrder {
  public:
    BatchOrder(const Scenario& s, const std::vector<Batch>& batches, const std::vector<size_t>& order,
               const std::vector<std::vector<Arc>>& into)
        : s_(s), batches_(batches), into_(into), before_(runsBefore(into, order)) {}

    bool runsAfter(size_t b, size_t a) const { return ((before_[b][a / 64] >> (a % 64)) & 1) != 0; }

    // Whether access `y` is reached after batch `from` at its stage: by a wait on its queue (in
    // its batch or an earlier one) whose signal comes after `from`, with y's stage in the wait's
    // `stage` or carried there by the file's barriers between that wait and the step. The waits
    // that order it are added to `waits`.
    bool reached(size_t from, const Access& y, const std::string& buffer, std::vector<size_t>& waits) const {
        const uint32_t q = batches_[y.batch].queue;
        for (size_t b = 0; b <= y.batch; ++b) {
            if (batches_[b].queue != q) continue;
            for (const Arc& arc : into_[b]) {
                if (!arc.wait || (arc.from != from && !runsAfter(arc.from, from))) continue;
                waits.push_back(*arc.wait);
                if (carriedTo(y, buffer, b, secondScope(std::get<Wait>(s_.steps[*arc.wait].body).stage))) return true;
            }
        }
        return false;
    }

  private:
    // Whether every stage y uses the buffer in (an indirect dispatch bound to its own args:
    // DRAW_INDIRECT and COMPUTE_SHADER) is in `stages`, or carried there by the barriers of y's
    // queue from batch `b`'s first step to y.
    bool carriedTo(const Access& y, const std::string& buffer, size_t b, uint64_t stages) const {
        const uint32_t q = batches_[y.batch].queue;
        const auto covered = [&] { return (y.stage & ~stages) == 0; };
        for (size_t i = batches_[b].first; i < y.step && !covered(); ++i) {
            if (s_.steps[i].queue != q) continue;
            const auto [src, dst] = carries(s_.steps[i], buffer);
            if (src & stages) stages |= dst;
        }
        return covered();
    }

    const Scenario& s_;
    const std::vector<Batch>& batches_;
    const std::vector<std::vector<Arc>>& into_;
    std::vector<std::vector<uint64_t>> before_;
};

// `second` comes after `first` but the waits that order them miss its stage: a data race,
// unless a wait is labelled a control (it misses the stage on purpose: run, not refused).
void checkStageReached(const Scenario& s, const std::vector<Batch>& batches, const BatchOrder& order,
                       const Access& first, const Access& second, const std::string& buffer) {
    std::vector<size_t> waits;
    if (order.reached(first.batch, second, buffer, waits)) return;
    if (std::any_of(waits.begin(), waits.end(), [&](size_t w) { return std::get<Wait>(s.steps[w].body).control; }))
        return;
    std::string named;
    for (const size_t w : waits) {
        named += fmt::format("{}{} at {}", named.empty() ? "" : ", ", s.steps[w].label,
                             stageNames(std::get<Wait>(s.steps[w].body).stage));
    }
    failAt(s, s.steps[second.step],
           fmt::format("{} {} buffer '{}' at stage {} after {} {} it, and the waits that order them on queue {} ({}) "
                       "do not reach that stage, directly or through a barrier after them; expected {} in a wait's "
                       "stage (a data race in the file)",
                       s.steps[second.step].label, second.writes ? "writes" : "reads", buffer, stageNames(second.stage),
                       s.steps[first.step].label, first.writes ? "writes" : "reads",
                       s.queues[batches[second.batch].queue].name, named, stageNames(second.stage)));
}

// Two uses on different queues that no semaphore orders: a data race, at the later in file
// order; two reads of an exclusive buffer whose ownership transfers need them ordered too.
[[noreturn]] void failUnordered(const Scenario& s, const Access& a, const Access& b, const std::string& buffer) {
    const Step& later = s.steps[std::max(a.step, b.step)];
    const Step& other = s.steps[std::min(a.step, b.step)];
    const bool laterWrites = a.step > b.step ? a.writes : b.writes;
    const bool otherWrites = a.step > b.step ? b.writes : a.writes;
    if (!laterWrites && !otherWrites)
        failAt(s, later,
               fmt::format("{} reads buffer '{}', which {} reads, and no semaphore orders them (queues {} and {}); "
                           "buffer '{}' is exclusive and used on a queue of family \"other\", so its queue family "
                           "ownership transfers need every use on one queue ordered with every use on another; "
                           "expected a signal after one and a wait before the other, or sharing = \"concurrent\" on "
                           "buffer '{}'",
                           later.label, buffer, other.label, s.queues[later.queue].name, s.queues[other.queue].name,
                           buffer, buffer));
    failAt(s, later,
           fmt::format("{} {} buffer '{}', which {} {}, and no semaphore orders them (queues {} and {}); expected a "
                       "signal after one and a wait before the other (a data race in the file)",
                       later.label, laterWrites ? "writes" : "reads", buffer, other.label,
                       otherWrites ? "writes" : "reads", s.queues[later.queue].name, s.queues[other.queue].name));
}

// Two steps on different queues that access one buffer, one writing, with neither batch
// before the other: a data race, reported at the later step in file order. When their batches
// are ordered, the later one in that order must also be reached at the stage it uses the
// buffer in (BatchOrder::reached; a semaphore wait orders only the stages it names: Vulkan
// spec, "Semaphore Waiting"); else it is a data race too.
void checkRaces(const Scenario& s, const std::vector<Batch>& batches, const std::vector<size_t>& order,
                const std::vector<std::vector<Arc>>& into) {
    const BatchOrder ordered(s, batches, order, into);
    for (const auto& [buffer, list] : accessesByBuffer(s, batches)) {
        // an exclusive buffer used on a queue of another family: its ownership transfers
        // need two reads on two queues ordered too (ownershipTransfers)
        const bool transfers =
            !s.buffer(buffer)->concurrent && std::any_of(list.begin(), list.end(), [&](const Access& a) {
                return s.queues[batches[a.batch].queue].family == QueueFamilyChoice::Other;
            });
        for (size_t x = 0; x < list.size(); ++x) {
            for (size_t y = x + 1; y < list.size(); ++y) {
                const Access &a = list[x], &b = list[y];
                if (!(a.writes || b.writes || transfers) || batches[a.batch].queue == batches[b.batch].queue) continue;
                if (ordered.runsAfter(b.batch, a.batch)) {
                    checkStageReached(s, batches, ordered, a, b, buffer);
                } else if (ordered.runsAfter(a.batch, b.batch)) {
                    checkStageReached(s, batches, ordered, b, a, buffer);
                } else {
                    failUnordered(s, a, b, buffer);
                }
            }
        }
    }
}

}  // namespace

void checkAndOrderSemaphores(Scenario& s) {
    if (!s.usesQueues()) return;
    const std::vector<Batch> batches = batchesOf(s);
    if (batches.size() > kMaxBatches)
        failAt(s, s.steps[batches[kMaxBatches].first],
               fmt::format("more than {} batches (signals and waits cut a queue's steps into batches); expected "
                           "fewer",
                           kMaxBatches));
    const auto into = arcsInto(s, batches);
    const std::vector<size_t> order = batchOrder(s, into);
    checkRaces(s, batches, order, into);
    std::vector<Step> steps;
    for (const size_t b : order) {
        for (const auto* list : {&batches[b].waits, &batches[b].work, &batches[b].signals})
            for (const size_t i : *list) steps.push_back(s.steps[i]);
    }
    for (size_t i = 0; i < steps.size(); ++i) s.reordered = s.reordered || steps[i].label != s.steps[i].label;
    s.steps = std::move(steps);
}

std::vector<OwnershipTransfer> ownershipTransfers(const Scenario& s, const std::vector<uint32_t>& familyOf,
                                                  bool withLeftOut) {
    std::vector<OwnershipTransfer> out;
    if (std::all_of(familyOf.begin(), familyOf.end(), [&](uint32_t f) { return f == familyOf.at(0); })) return out;
    struct Holder {  // who holds an exclusive buffer now
        uint32_t family = 0, queue = 0;
        std::optional<size_t> last;                                 // the last step that used it; none: the upload
        uint64_t stages = kTransferStage, writes = kTransferWrite;  // its uses on `queue` since
    };
    std::map<std::string, Holder> held;
    for (const auto& b : s.buffers) {
        if (!b.concurrent && (b.ownershipTransfers || withLeftOut)) held[b.name] = {.family = familyOf.at(0)};
    }
    // from the holder to step `before` on `queue` (none: the readback on main), which uses it as `use`
    const auto transfer = [&](const std::string& name, const Holder& h, uint32_t queue, std::optional<size_t> before,
                              const Use& use) {
        const auto& image = s.buffer(name)->image;  // its layout: the parser's record (Step::layouts)
        out.push_back({.buffer = name,
                       .fromQueue = h.queue,
                       .toQueue = queue,
                       .fromFamily = h.family,
                       .toFamily = familyOf.at(queue),
                       .after = h.last,
                       .before = before,
                       .srcStage = h.stages,
                       .srcAccess = h.writes,
                       .dstStage = use.stage,
                       .dstAccess = use.access,
                       .layout = before  ? layoutAt(s.steps[*before], name)
                                 : image ? image->finalLayout
                                         : ImageLayout::Undefined});
    };
    for (size_t i = 0; i < s.steps.size(); ++i) {
        const uint32_t queue = s.steps[i].queue, family = familyOf.at(queue);
        std::map<std::string, Use> uses = usesOf(s.steps[i], s);
        const Barrier* transition = layoutTransition(s.steps[i]);
        if (transition) uses[transition->buffer] = {.stage = transition->srcStage | transition->dstStage};
        for (const auto& [name, use] : uses) {
            const auto it = held.find(name);
            if (it == held.end()) continue;
            Holder& h = it->second;
            if (h.family != family) transfer(name, h, queue, i, use);
            if (h.family != family || h.queue != queue) h.stages = 0, h.writes = 0;
            h.family = family;
            h.queue = queue;
            h.last = i;
            h.stages |= use.stage;
            h.writes |= use.writes;
        }
    }
    for (const auto& [name, h] : held) {
        if (h.family != familyOf.at(0))
            transfer(name, h, 0, std::nullopt, {.stage = kAllCommandsStage, .access = kMemoryRead | kMemoryWrite});
    }
    return out;
}

std::map<std::string, Use> usesOf(const Step& step, const Scenario& s) {
    std::map<std::string, Use> out;
    if (const auto* d = std::get_if<Dispatch>(&step.body)) {
        for (uint32_t i = 0; i < d->bindings.size(); ++i) {
            const bool reads = dispatchReads(s, *d, i), writes = dispatchWrites(s, *d, i);
            if (!reads && !writes) continue;  // bound, never accessed (noop): no use
            Use& u = out[d->bindings[i]];
            u.stage |= kComputeStage;
            if (reads) u.access |= kShaderRead;
            if (writes) u.access |= kShaderWrite, u.writes |= kShaderWrite;
        }
        if (d->indirect) {
            Use& u = out[d->indirect->buffer];
            u.stage |= kDrawIndirectStage;
            u.access |= kIndirectCommandRead;
        }
        return out;
    }
    const auto write = [&](const std::string& name) {
        out[name] = {.stage = kTransferStage, .access = kTransferWrite, .writes = kTransferWrite};
    };
    if (const auto* f = std::get_if<Fill>(&step.body)) write(f->buffer);
    if (const auto* u = std::get_if<Update>(&step.body)) write(u->buffer);
    if (const auto* c = std::get_if<Copy>(&step.body)) {
        out[c->src] = {.stage = kTransferStage, .access = kTransferRead};
        Use& dst = out[c->dst];  // a copy within one buffer both reads and writes it
        dst.stage = kTransferStage;
        dst.access |= kTransferWrite;
        dst.writes |= kTransferWrite;
    }
    if (const auto* t = std::get_if<ImageTransfer>(&step.body)) {
        if (t->kind != ImageTransferKind::Clear) out[t->src] = {.stage = kTransferStage, .access = kTransferRead};
        write(t->dst);
    }
    return out;
}

const Barrier* layoutTransition(const Step& step) {
    const auto* b = std::get_if<Barrier>(&step.body);
    return b && b->kind == BarrierKind::Image && b->oldLayout != b->newLayout ? b : nullptr;
}

uint64_t firstScope(uint64_t m) { return (m & (kAllCommandsStage | kBottomOfPipeStage)) ? ~uint64_t{0} : m; }
uint64_t secondScope(uint64_t m) { return (m & kAllCommandsStage) ? ~uint64_t{0} : m & ~kTopOfPipeStage; }

Barrier explicitForm(const Barrier& b) {
    if (b.kind == BarrierKind::BladeGlobal)
        return {.kind = BarrierKind::Memory,
                .sync2 = false,
                .srcStage = kAllCommandsStage,
                .dstStage = kAllCommandsStage,
                .srcAccess = kMemoryWrite | kTransferWrite,
                .dstAccess = kMemoryRead | kMemoryWrite | kTransferRead | kTransferWrite};
    if (b.kind == BarrierKind::BladeCompute)
        return {.kind = BarrierKind::Memory,
                .sync2 = false,
                .srcStage = kComputeStage,
                .dstStage = kComputeStage,
                .srcAccess = kShaderWrite,
                .dstAccess = kShaderRead | kShaderWrite};
    return b;
}

}  // namespace repro::scenario
