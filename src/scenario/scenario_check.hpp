// What a scenario file's run is compared with, and how a difference is said (docs/scenarios.md
// "What is checked"): each checked buffer and host read against the CPU model's bytes
// (scenario_cpu.hpp), a buffer holding a value of the built-in chain against the CPU chain
// within its float32 tolerance (scenario_chain.hpp), and every mode after split against split's
// bytes; --check-steps' step-by-step comparison. Vulkan-free: the engine's file workload
// (engine/file_workload.cpp) feeds it the bytes a mode read back.
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "reference/cpu_reference.hpp"
#include "scenario/scenario.hpp"
#include "scenario/scenario_chain.hpp"
#include "scenario/scenario_cpu.hpp"

namespace repro::scenario {

using HostReads = std::map<size_t, std::vector<uint8_t>>;  // by the host read's step index

// What one completed run of a mode read back: its checked buffers' bytes and its host reads.
struct ModeBytes {
    Contents checked;
    HostReads hostReads;
};

// ---- Which buffers are compared with what -----------------------------------------------

// The checked buffers the word-by-word CPU model cannot know that hold a value of the built-in
// chain at the end (small[k] or big[k]: scenario_chain.hpp), whether or not the CPU chain is
// on; chainChecked: those the CPU chain compares (none when Scenario::cpuChain is off).
ChainValues checkedChainValues(const Scenario& s);
ChainValues chainChecked(const Scenario& s);
// The checked buffers compared with split only (a user kernel's output, a float kernel's
// outside the chain's values, or what a step made of either), in file order; splitOnlyBuffers
// quotes and joins them ("'acc', 'out'"; "" when none).
std::vector<std::string> splitOnlyList(const Scenario& s);
std::string splitOnlyBuffers(const Scenario& s);
// chainChecked in file order, each value described ("small[3]"), as the report keeps it.
std::vector<std::pair<std::string, std::string>> chainValueList(const Scenario& s);
// The checked buffers the CPU model computes word by word (not in splitOnlyList nor chainChecked).
std::vector<std::string> modelledChecked(const Scenario& s);
bool hasHostRead(const Scenario& s);
// Whether the CPU model compares anything bit for bit (a modelled checked buffer or a host
// read); modelCompares: that, or a chain value within its tolerance.
bool modelComparesExactly(const Scenario& s);
bool modelCompares(const Scenario& s);

// ---- How a right mode is said --------------------------------------------------------------

// What a right mode's checked bytes were compared with: "bit-identical to the CPU model", with
// " and to split" when `withSplit`; for chain values "within the CPU model's float32
// tolerance"; where the model compares nothing, "bit-identical to split", or for split itself
// "completed".
std::string identicalTo(const Scenario& s, bool withSplit, bool splitAlone = false);
// " (the checked buffers and 2 host reads)" when a mode read buffers at host points; "" else.
std::string hostReadNote(size_t reads);
// What the CPU model cannot compute in `s`: "a user kernel", "conv-t or slice (float kernels)
// outside the chain's values", or both.
std::string unmodelledKernels(const Scenario& s);
// What an ok line and the verdict add for the split-only buffers: "" when none; for split
// itself "; 'out' (written by a user kernel): split's bytes are the reference".
std::string splitOnlyNote(const Scenario& s, bool isSplit);
// The steps' labels joined by "; ", the first 12 and then how many in all.
std::string stepList(const Scenario& s);
// The labels of `indices`, the first 6 and then how many in all.
std::string stepLabels(const Scenario& s, const std::vector<size_t>& indices);

// ---- Differences ---------------------------------------------------------------------------

// The first difference of buffer `name`'s `got` from `want`, or nothing when equal: "buffer
// 'a' differs from the CPU model at byte 0 (word 0: 0x00000002, the CPU model 0x00000001),
// last written by step 1 dispatch increment; 1024 of 1024 words differ"; an image's line says
// "image 'img'", "texel (x, y)" for the word and "texels". `against` names what `want` is; the
// step named is the last writer before step index `before`.
std::optional<std::string> firstDifference(const Scenario& s, const std::string& name, const std::vector<uint8_t>& got,
                                           const std::vector<uint8_t>& want, std::string_view against,
                                           size_t before = ~size_t{0});
// The first difference of any buffer or image of `got` that `want` has, in Scenario::buffers' order.
std::optional<std::string> compare(const Scenario& s, const Contents& got, const Contents& want,
                                   std::string_view against);
// The first host read of `got` that differs from `want`'s read at the same step, prefixed by
// the host read's label; reads `want` lacks are skipped.
std::optional<std::string> hostReadDifference(const Scenario& s, const HostReads& got, const HostReads& want,
                                              std::string_view against);

// One chain value's comparison with the CPU chain (compareWithTolerance), for the lines.
struct ChainCheck {
    std::string buffer;
    ChainValue value;
    ToleranceReport report;
};
// What the ok line adds for chain values within the tolerance: "; 'small[3]': the largest
// difference 3.1e-09, 0.0012 of the allowed" (and where the bound admits zero, how often).
std::string chainNote(const std::vector<ChainCheck>& checks);

// ---- The references and the judgement --------------------------------------------------

// What each mode is compared with from the host: the CPU model's bytes of the checked buffers
// it knows and of the host reads, and the CPU chain's values (computed on a thread of their
// own beside the modes; not valid() when there are none).
struct References {
    Contents expected;
    HostReads hostModel;
    std::shared_future<std::map<std::string, ChainExpected>> chain;
};
// The references of `s`: the CPU model runs only when something is compared with it; the
// CPU chain's thread starts at the first request for a shape and its values, shared after.
References cpuReferences(const Scenario& s);

// --check-steps: split's steps, each compared after its submit with the CPU model's bytes
// after that step, or for a buffer then holding a value of the chain, with the CPU chain at
// that depth within its tolerance. A step whose every written buffer the model cannot know is
// not checked. Call with each step's index and written bytes in step order.
class StepChecker {
  public:
    explicit StepChecker(const Scenario& s);
    void operator()(size_t index, const Contents& written);
    struct Result {
        uint64_t checked = 0, wrong = 0;
        std::vector<size_t> notChecked;    // step indices
        std::optional<size_t> firstWrong;  // step index
        std::string firstDetail;           // its mismatch line (firstDifference)
    };
    const Result& result() const { return result_; }

  private:
    std::optional<std::optional<std::string>> compareChainValue(const std::string& name,
                                                                const std::vector<uint8_t>& bytes, size_t index);
    const Scenario& s_;
    Contents model_;
    std::set<std::string> unmodelled_;
    ChainValues values_;
    std::optional<CpuStepper> stepper_;  // made at the first chain value a step writes
    size_t applied_ = 0;
    Result result_;
};

// A completed mode's judgement: why it is wrong (its host reads, then its checked buffers,
// each against the CPU model, chain values within their tolerance, then against `split`'s
// bytes when given; then with --check-steps its first wrong step), or nothing; and the chain
// values' figures for the ok line. Waits for the CPU chain.
struct Judgement {
    std::optional<std::string> wrong;
    std::string chainNote;
};
Judgement judgeBytes(const Scenario& s, const References& r, const ModeBytes* split, const ModeBytes& m,
                     const StepChecker::Result* steps = nullptr);

}  // namespace repro::scenario
