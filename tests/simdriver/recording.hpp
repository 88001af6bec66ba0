// What the simulated driver decides while a command buffer is recorded: which dispatches
// it forwards (seed-bug, flaky, the watchdog's cut point) and what each costs on the
// simulated clock. Pure; the layer (layer_commands.cpp) acts on these decisions.
#pragma once

#include <cstdint>
#include <algorithm>
#include <optional>
#include <vector>

#include "config.hpp"

namespace repro::simdriver {

// Nanoseconds on CLOCK_MONOTONIC, the host's clock that simulated GPU time runs on.
using Nanoseconds = int64_t;

// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014; the finaliser constants as published by Sebastiano Vigna): a 64-bit state
// advanced by a fixed odd increment, then mixed. The same seed gives the same sequence.
class SplitMix64 {
  public:
    explicit SplitMix64(uint64_t seed) : state_(seed) {}
    uint64_t next();
    // Uniform in [0, 1): the top 53 bits of next() times 2^-53.
    double nextUnit();

  private:
    uint64_t state_;
};

// The record-time rules of a Config: seed-bug's K, flaky, the clock's costs and the
// watchdog's timeout.
struct RecordRules {
    std::optional<uint32_t> skipAfter;   // seed-bug: forward at most K dispatches
    std::optional<Flaky> flaky;          // flaky: forward at most K in a drawn command buffer
    std::optional<ClockCost> cost;       // clock or watchdog
    std::optional<Nanoseconds> timeout;  // watchdog
    std::optional<uint32_t> hangAfter;   // hang: the dispatch after the K-th never ends

    static RecordRules from(const Config& config);
    // Whether the layer needs to follow recording at all.
    bool any() const { return skipAfter || flaky || cost; }
};

// One dispatch's simulated cost: msPerDispatch + usPerWorkgroup * workgroups / 1000 ms,
// rounded to the nearest nanosecond and capped at 2^62 ns (146 years).
Nanoseconds dispatchCost(const ClockCost& cost, uint64_t workgroups);

enum class SkipReason { None, SeedBug, Watchdog };

struct DispatchDecision {
    uint32_t number = 0;  // 1-based, counted since the command buffer's begin
    bool forward = true;  // false: not passed to the driver below, writes nothing
    SkipReason reason = SkipReason::None;
    Nanoseconds start = 0;  // offset from the command buffer's start
    Nanoseconds cost = 0;   // 0 when skipped
};

// A timestamp written at this point of the command buffer: its offset from the command
// buffer's start, or never written (after the watchdog's kill point).
struct TimestampDecision {
    bool available = true;
    Nanoseconds offset = 0;
};

// One command buffer from vkBeginCommandBuffer on.
//  - seed-bug K (and flaky K in a drawn command buffer): dispatches numbered above K are
//    skipped; a skipped dispatch costs nothing.
//  - clock: dispatches run one after another, each at its cost (fills, copies and
//    barriers cost nothing).
//  - watchdog: the first dispatch whose end would pass the timeout, and every dispatch
//    after it, is skipped; the command buffer then lasts exactly the timeout.
//  - hang K: the (K+1)-th dispatch costs for ever (2^62 ns): with the watchdog it is the
//    one killed; without, the command buffer never completes. So does a dispatch the caller
//    says hangs (weak-barriers:hang), with the clock.
class CommandBufferModel {
  public:
    // Starts over (vkBeginCommandBuffer). `flakyDrawn`: flaky's draw for this command
    // buffer, ignored without flaky.
    void begin(const RecordRules& rules, bool flakyDrawn);
    // vkCmdDispatch* with x*y*z `workgroups` (0 for an indirect dispatch: its count is
    // not known at record time, so it costs msPerDispatch only).
    // `hangs`: this dispatch never ends (weak-barriers:hang), as hang K's (K+1)-th.
    DispatchDecision dispatch(uint64_t workgroups, bool hangs = false);
    TimestampDecision timestamp() const;
    // Simulated time from start to completion.
    Nanoseconds duration() const { return killed_ ? *rules_.timeout : elapsed_; }
    bool killed() const { return killed_; }
    bool drawn() const { return drawn_; }
    uint32_t dispatches() const { return dispatches_; }
    uint32_t skipped() const { return skipped_; }

  private:
    RecordRules rules_;
    bool drawn_ = false;
    bool killed_ = false;
    uint32_t dispatches_ = 0;
    uint32_t skipped_ = 0;
    Nanoseconds elapsed_ = 0;
};

// drop-transfers: which transfer commands (vkCmdFillBuffer, vkCmdUpdateBuffer,
// vkCmdCopyBuffer, vkCmdCopyBuffer2(KHR)) of one command buffer reach the driver. A
// transfer recorded after other work (a dispatch or a transfer) and a pipeline barrier
// after that work is not forwarded; everything before that point is. A command buffer of
// transfers with no barrier between them (repro's own upload and readback submits) and a
// command buffer with one piece of work (split's) are left whole.
class TransferDrops {
  public:
    void begin() { work_ = barrierAfterWork_ = false; }
    void dispatch() { work_ = true; }
    void barrier() { barrierAfterWork_ = barrierAfterWork_ || work_; }
    // A transfer: whether it is forwarded. Forwarded or not, it counts as work.
    bool transfer() {
        work_ = true;
        return !barrierAfterWork_;
    }

  private:
    bool work_ = false;
    bool barrierAfterWork_ = false;
};

// lost-transitions: which image layout transitions lose the image's contents, in one command
// buffer from its begin. A transition (old layout neither UNDEFINED nor the new one) recorded
// after other work (a dispatch or a transfer, buffer or image) loses them, unless an earlier
// barrier of this command buffer took that image out of UNDEFINED (repro's upload submit
// fills each image after such a barrier, then transitions it); one before any work keeps them,
// so split's [G, the file's transitions, step, G] is left right.
class ImageTransitions {
  public:
    void begin() { work_ = false, fresh_.clear(); }
    void work() { work_ = true; }
    // A barrier on `image` from `fromUndefined` (old layout UNDEFINED) that `changes` the
    // layout: whether its contents are lost.
    bool lose(uint64_t image, bool fromUndefined, bool changes) {
        if (fromUndefined) {
            fresh_.push_back(image);
            return false;
        }
        return changes && work_ && std::find(fresh_.begin(), fresh_.end(), image) == fresh_.end();
    }

  private:
    bool work_ = false;
    std::vector<uint64_t> fresh_;
};

}  // namespace repro::simdriver
