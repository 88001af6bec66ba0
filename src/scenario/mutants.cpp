// A file's mutants (see scenario/mutants.hpp).
#include "scenario/mutants.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>
#include <optional>
#include <string>
#include <variant>

#include "core/errors.hpp"
#include "scenario/scenario_sync.hpp"

namespace repro::scenario {
namespace {

// The index of the step the file numbers `number` ("step N ..."), or steps.size().
size_t stepIndex(const Scenario& s, uint32_t number) {
    const std::string prefix = fmt::format("step {} ", number);
    for (size_t i = 0; i < s.steps.size(); ++i) {
        if (s.steps[i].label.starts_with(prefix)) return i;
    }
    return s.steps.size();
}

// The first dispatch or transfer after step `at` on its queue: what its barrier or wait orders
// the earlier work before; nullptr when none follows.
const Step* consumerAfter(const Scenario& s, size_t at) {
    for (size_t i = at + 1; i < s.steps.size(); ++i) {
        if (isWork(s.steps[i]) && s.steps[i].queue == s.steps[at].queue) return &s.steps[i];
    }
    return nullptr;
}

// A stage that misses `consumer`: transfer for a dispatch, compute for a transfer.
uint64_t missingStage(const Step& consumer) {
    return std::holds_alternative<Dispatch>(consumer.body) ? kTransferStage : kComputeStage;
}

// Stages as "compute", "transfer|compute", "none".
std::string stageText(uint64_t bits) {
    std::string out;
    for (const NamedBit& b : kStages) {
        if (bits & b.bit) out += (out.empty() ? "" : "|") + std::string(b.name);
    }
    return out.empty() ? "none" : out;
}

// `b` weakened by `w` (a control), or nullopt with `why` when the weakening does not apply.
std::optional<Barrier> weakened(const Barrier& original, Weakening w, const Step* consumer, std::string& why) {
    Barrier b = explicitForm(original);
    b.control = true;
    switch (w) {
        case Weakening::Removed:
            b.kind = BarrierKind::None;
            break;
        case Weakening::ExecutionOnly:
            b.kind = BarrierKind::ExecutionOnly;
            break;
        case Weakening::NoSrcAccess:
            if (b.srcAccess == 0) return why = "its source access mask is empty already", std::nullopt;
            b.srcAccess = 0;
            break;
        case Weakening::DstStageMisses: {
            if (!consumer) return why = "no dispatch or transfer follows it on its queue", std::nullopt;
            const uint64_t stage = missingStage(*consumer);
            if (b.dstStage == stage)
                return why = "its destination stage misses the step after it already", std::nullopt;
            b.dstStage = stage;
            b.dstAccess = stage == kTransferStage ? kTransferRead | kTransferWrite : kShaderRead | kShaderWrite;
            break;
        }
    }
    if (original.kind == BarrierKind::Image && b.kind != BarrierKind::Image) {
        // an image barrier keeps its layout transition, which the steps after it need (without
        // it they would use the image in a layout it is not in: invalid usage, no mutant):
        // removed leaves the transition alone with no dependency (TOP_OF_PIPE -> BOTTOM_OF_PIPE),
        // execution-only keeps its stages with no access scopes (replaceBarriers does the same)
        if (b.kind == BarrierKind::None) b.srcStage = 0x1, b.dstStage = 0x2000;
        b.kind = BarrierKind::Image;
        b.srcAccess = b.dstAccess = 0;
    }
    return b;
}

// The wait weakened by `w`, or nullopt with `why`.
std::optional<Wait> weakened(const Wait& original, Weakening w, const Step* consumer, std::string& why) {
    if (w != Weakening::DstStageMisses)
        return why = "a semaphore wait's one weakening is dst-stage-misses", std::nullopt;
    if (!consumer) return why = "no dispatch or transfer follows it on its queue", std::nullopt;
    Wait out = original;
    out.stage = missingStage(*consumer);
    out.control = true;
    if (out.stage == original.stage) return why = "its stage misses the step after it already", std::nullopt;
    return out;
}

// The step number the label prints ("step 5 barrier memory" -> "step 5").
std::string stepName(const Step& step) { return step.label.substr(0, step.label.find(' ', 5)); }

// What a mutant weakens, in words: "step 5 barrier (compute -> compute)" ("step 5 (compute ->
// compute)" when `brief`: the mutant lines fit 100 columns), "step 4 wait s (compute)".
std::string describe(const Scenario& s, const Step& step, bool brief = false) {
    if (const auto* b = std::get_if<Barrier>(&step.body)) {
        const Barrier e = explicitForm(*b);
        const std::string image = b->kind == BarrierKind::Image ? " image " + b->buffer : "";
        return fmt::format("{}{}{} ({} -> {})", stepName(step), brief ? "" : " barrier", image, stageText(e.srcStage),
                           stageText(e.dstStage));
    }
    const Wait& w = std::get<Wait>(step.body);
    return fmt::format("{} wait {} ({})", stepName(step), s.semaphores.at(w.semaphore).name, stageText(w.stage));
}

// Step `at` weakened by `w` into `out` (nullopt body: why it does not apply).
bool weaken(const Scenario& s, size_t at, Weakening w, StepBody& out, std::string& why) {
    const Step& step = s.steps[at];
    const Step* consumer = consumerAfter(s, at);
    if (const auto* b = std::get_if<Barrier>(&step.body)) {
        if (b->control) return why = "a control already", false;
        const auto next = weakened(*b, w, consumer, why);
        if (next) out = *next;
        return next.has_value();
    }
    const Wait& wait = std::get<Wait>(step.body);
    if (wait.control) return why = "a control already", false;
    const auto next = weakened(wait, w, consumer, why);
    if (next) out = *next;
    return next.has_value();
}

bool mutable_(const Step& step) {
    return std::holds_alternative<Barrier>(step.body) || std::holds_alternative<Wait>(step.body);
}

// The barrier and wait steps by the file's step they were made from (its place in the file):
// a `repeat` expands one barrier of the file into many steps, and a mutant weakens them all.
// A step without a place (made in code) stands alone. Each list is in step order.
std::vector<std::vector<size_t>> fileSteps(const Scenario& s) {
    std::vector<std::vector<size_t>> out;
    std::map<std::pair<uint32_t, uint32_t>, size_t> seen;  // (line, column) -> index into out
    for (size_t i = 0; i < s.steps.size(); ++i) {
        if (!mutable_(s.steps[i])) continue;
        const SourcePlace p = s.steps[i].place;
        if (p.line == 0) {
            out.push_back({i});
            continue;
        }
        const auto [it, fresh] = seen.try_emplace({p.line, p.column}, out.size());
        if (fresh) out.emplace_back();
        out[it->second].push_back(i);
    }
    return out;
}

}  // namespace

std::vector<Mutant> mutantsOf(const Scenario& s, std::vector<std::string>* skipped) {
    std::vector<Mutant> out;
    for (const std::vector<size_t>& copies : fileSteps(s)) {
        const size_t i = copies.front();
        const Step& step = s.steps[i];
        const uint32_t number = static_cast<uint32_t>(std::stoul(step.label.substr(5)));
        std::vector<Barrier> made;  // the weakenings of this barrier so far
        for (const Weakening w : kWeakenings) {
            StepBody body;
            std::string why;
            const bool applies = weaken(s, i, w, body, why);
            const auto* barrier = std::get_if<Barrier>(&body);
            if (applies && barrier && std::find(made.begin(), made.end(), *barrier) != made.end())
                why = "the same barrier as an earlier weakening of it";
            if (!why.empty()) {
                const bool waitOnly = std::holds_alternative<Wait>(step.body) && w != Weakening::DstStageMisses;
                if (skipped && !waitOnly) skipped->push_back(fmt::format("{} {}: {}", stepName(step), name(w), why));
                continue;
            }
            if (barrier) made.push_back(*barrier);
            const std::string times = copies.size() > 1 ? fmt::format(", {} times", copies.size()) : "";
            out.push_back({.spec = {.step = number, .weakening = w}, .what = describe(s, step, true) + times});
        }
    }
    return out;
}

void applyMutant(Scenario& s, const MutantSpec& m) {
    const std::string value = "--mutant " + mutantText(m);
    const size_t at = stepIndex(s, m.step);
    if (at == s.steps.size()) throw UsageError(fmt::format("{}: {} has no step {}", value, s.file, m.step));
    Step& step = s.steps[at];
    if (!mutable_(step))
        throw UsageError(
            fmt::format("{}: {} is not a barrier or a wait; expected the number of one", value, step.label));
    std::vector<size_t> copies;  // the steps a repeat made from the same barrier of the file
    for (const std::vector<size_t>& c : fileSteps(s)) {
        if (std::find(c.begin(), c.end(), at) != c.end()) copies = c;
    }
    if (copies.front() != at)
        throw UsageError(fmt::format("{}: {} repeats the file's {}; expected that step's number", value, step.label,
                                     stepName(s.steps[copies.front()])));
    for (const size_t i : copies) {
        StepBody body;
        std::string why;
        if (!weaken(s, i, m.weakening, body, why)) {
            if (i == at) throw UsageError(fmt::format("{}: {}: {}", value, step.label, why));
            continue;  // a later repeat it does not apply to (no work after it) stays as written
        }
        s.steps[i].label = fmt::format("{} (mutant {}, a control)", describe(s, s.steps[i]), name(m.weakening));
        s.steps[i].body = body;
    }
}

}  // namespace repro::scenario
