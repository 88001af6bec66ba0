// The experiment recorder's plan (see stream_plan.hpp).
#include "vk/stream_plan.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace repro {
namespace {

struct PlannedDispatch {
    uint32_t number = 0;  // 1-based chain number
    bool convT = false;
    uint64_t writtenBytes = 0;
};

// The chain's dispatches in order, the dropped one left out.
std::vector<PlannedDispatch> chainDispatches(uint32_t steps, const RecordingOptions& o, const ChainSizes& sizes) {
    std::vector<PlannedDispatch> out;
    for (uint32_t number = 1; number <= 2 * steps; ++number) {
        if (o.dropDispatch && *o.dropDispatch == number) continue;
        const bool convT = number % 2 == 1;
        out.push_back({.number = number, .convT = convT, .writtenBytes = convT ? sizes.bigBytes : sizes.smallBytes});
    }
    return out;
}

std::optional<PlanBarrier> betweenDispatches(Mode mode, BarrierKind kind) {
    switch (kind) {
        case BarrierKind::Blade:
            return mode == Mode::Single ? PlanBarrier::BladeCompute : PlanBarrier::BladeGlobal;
        case BarrierKind::Sync2:
            return PlanBarrier::Sync2Storage;
        case BarrierKind::Buffer:
            return PlanBarrier::Buffer;
        case BarrierKind::Full:
            return PlanBarrier::Sync2Full;
        case BarrierKind::ExecutionOnly:
            return PlanBarrier::ExecutionOnly;
        case BarrierKind::None:
            return std::nullopt;
    }
    return std::nullopt;
}

// Appends one command buffer: dispatches [first, last] of `dispatches`.
class PlanWriter {
  public:
    PlanWriter(Mode mode, const RecordingOptions& o)
        : o_(o),
          between_(betweenDispatches(mode, o.barrier)),
          bladeMultipass_(mode == Mode::Multipass && o.barrier == BarrierKind::Blade) {}

    void commandBuffer(std::span<const PlannedDispatch> dispatches, bool last) {
        add({.kind = PlanStep::Kind::Begin});
        // multipass with blade's barrier: each dispatch's own pass-start G comes first;
        // otherwise the command buffer's G (single's one pass).
        if (!bladeMultipass_) barrier(PlanBarrier::BladeGlobal, 0);
        for (size_t d = 0; d < dispatches.size(); ++d) {
            if (bladeMultipass_) {
                barrier(PlanBarrier::BladeGlobal, 0);
            } else if (d > 0 && between_) {
                barrier(*between_, dispatches[d - 1].number);
            }
            dispatch(dispatches[d]);
        }
        add({.kind = PlanStep::Kind::Finish, .hostReads = last});
    }

    void submit(bool hostWait, std::string what) {
        add({.kind = PlanStep::Kind::Submit,
             .hostWait = hostWait,
             .convTsSinceWait = convTs_,
             .what = std::move(what)});
        if (hostWait) convTs_ = 0;
    }

    std::vector<PlanStep> take() { return std::move(steps_); }

  private:
    void add(PlanStep step) { steps_.push_back(std::move(step)); }
    void barrier(PlanBarrier kind, uint32_t covers) {
        add({.kind = PlanStep::Kind::Barrier, .barrier = kind, .dispatch = covers});
    }
    void dispatch(const PlannedDispatch& d) {
        const uint32_t repeats = d.convT ? o_.dispatchRepeat : 1;
        for (uint32_t r = 0; r < repeats; ++r) {
            if (r > 0 && between_) barrier(*between_, d.number);
            add({.kind = PlanStep::Kind::Dispatch, .dispatch = d.number});
        }
        if (d.convT) convTs_ += repeats;
    }

    const RecordingOptions& o_;
    std::optional<PlanBarrier> between_;
    bool bladeMultipass_;
    uint32_t convTs_ = 0;
    std::vector<PlanStep> steps_;
};

}  // namespace

bool isBladeStream(const RecordingOptions& o) {
    return o.barrier == BarrierKind::Blade && !o.submit.cuts() && o.dispatchRepeat == 1 && !o.dropDispatch;
}

std::vector<PlanStep> planExperiment(Mode mode, uint32_t steps, const RecordingOptions& o, const ChainSizes& sizes,
                                     std::span<const double> predictedSeconds) {
    if (mode == Mode::Split) throw std::invalid_argument("planExperiment: split has no plan");
    const std::vector<PlannedDispatch> dispatches = chainDispatches(steps, o, sizes);
    std::vector<uint64_t> written;
    std::vector<double> predicted;
    for (const auto& d : dispatches) {
        written.push_back(d.writtenBytes);
        if (d.number <= predictedSeconds.size()) {
            predicted.push_back(predictedSeconds[d.number - 1] * (d.convT ? o.dispatchRepeat : 1));
        }
    }
    if (predicted.size() != written.size()) predicted.clear();
    if (o.submit.splitMs && predicted.empty()) {
        throw std::invalid_argument("planExperiment: --split-ms needs a predicted time for every dispatch");
    }
    const std::vector<size_t> ends = commandBufferEnds(written, predicted, o.submit);
    PlanWriter writer(mode, o);
    size_t first = 0;
    for (size_t c = 0; c < ends.size(); ++c) {
        const bool last = c + 1 == ends.size();
        const std::span<const PlannedDispatch> buffer(dispatches.data() + first, ends[c] - first + 1);
        writer.commandBuffer(buffer, last);
        writer.submit(o.submit.hostWait || last,
                      ends.size() == 1 ? fmt::format("all {} steps", steps)
                                       : fmt::format("dispatches {}..{}", buffer.front().number, buffer.back().number));
        first = ends[c] + 1;
    }
    return writer.take();
}

std::string describe(const PlanStep& s) {
    switch (s.kind) {
        case PlanStep::Kind::Begin:
            return "begin";
        case PlanStep::Kind::Finish:
            return s.hostReads ? "finish + host-read barrier" : "finish";
        case PlanStep::Kind::Dispatch:
            return fmt::format("dispatch {} (step {} {})", s.dispatch, (s.dispatch + 1) / 2,
                               s.dispatch % 2 ? "conv-T" : "slice");
        case PlanStep::Kind::Submit:
            return fmt::format("submit ({}), {}", s.what, s.hostWait ? "host wait" : "no host wait");
        case PlanStep::Kind::Barrier:
            break;
    }
    switch (s.barrier) {
        case PlanBarrier::BladeGlobal:
            return "barrier G";
        case PlanBarrier::BladeCompute:
            return "barrier C";
        case PlanBarrier::Sync2Storage:
            return "barrier sync2";
        case PlanBarrier::Buffer:
            return fmt::format("barrier buffer (output of dispatch {})", s.dispatch);
        case PlanBarrier::Sync2Full:
            return "barrier full";
        case PlanBarrier::ExecutionOnly:
            return "barrier execution-only";
    }
    return "?";
}

}  // namespace repro
