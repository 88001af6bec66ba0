// The CPU model of a scenario: every built-in kernel and every transfer computed on the host,
// exactly (32-bit integer kernels, byte-exact transfers), barriers ignored. The oracle next
// to split (docs/scenarios.md "Oracles").
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace repro::scenario {

// Buffer name -> its bytes.
using Contents = std::map<std::string, std::vector<uint8_t>>;

// Every buffer's bytes as initialWords() gives them (little-endian words).
Contents initialContents(const Scenario& s);

// Applies one step to `contents` as a correct device would (a dispatch of a user kernel,
// conv-t or slice does nothing: the model cannot know what it writes, unmodelledBuffers): increment adds `add` (mod 2^32)
// to words [0, count) of data; copy copies words [0, count) of src to dst; noop nothing;
// indirect-writer writes x, y, z at its offset; an indirect dispatch takes its group counts
// from its args in `contents` (indirectGroups);
// fill writes `value` to the words of [offset, offset+size); update and host_write write their
// words at offset (a host read changes nothing); copy copies size bytes (memmove semantics are not needed: Vulkan forbids overlap
// within one buffer). Barriers do nothing. The scenario is assumed checked
// (checkScenario): names exist and ranges fit.
void applyStep(const Step& step, Contents& contents);

// The group counts (x, y, z) an indirect dispatch `d` (d.indirect set) reads: the three
// little-endian words at d.indirect->offset of its args buffer in `contents`, a
// VkDispatchIndirectCommand (Vulkan spec, vkCmdDispatchIndirect). applyStep runs the dispatch
// with these, so a wrong write to the args gives a different result.
std::array<uint32_t, 3> indirectGroups(const Dispatch& d, const Contents& contents);

// What `step` reads and writes, by buffer name, in step order (a name may repeat): a
// dispatch's bindings as dispatchReads/dispatchWrites say and an indirect dispatch's args;
// fill and update their buffer; copy its source (read) and destination. Barriers nothing.
void stepAccesses(const Step& step, const Scenario& s, std::vector<std::string>& reads,
                  std::vector<std::string>& writes);

// The buffers whose contents the CPU model cannot know (docs/scenarios.md "User kernels"),
// updated for one more step: a dispatch the model cannot compute (cpuModelled: a user kernel,
// conv-t, slice) adds every buffer it writes; any other
// step that reads an unmodelled buffer adds the buffers it writes (a copy of a user kernel's
// output is as unknown). Nothing ever leaves the set (a partial overwrite would not make it
// known, and a whole one is not worth telling apart).
void unmodelledAfter(const Step& step, const Scenario& s, std::set<std::string>& unmodelled);
// unmodelledAfter over every step: the buffers whose final contents are compared with split
// only. Empty for a scenario without user kernels, conv-t and slice.
std::set<std::string> unmodelledBuffers(const Scenario& s);

// --poison on a scenario (docs/scenarios.md "--poison on a scenario"): every buffer whose init
// is "undefined" or whose first access (stepAccesses, in step order; a step that both reads
// and writes it reads first) is a write gets init Pattern with value `pattern` and
// `poisoned` set, so the modes and the CPU model alike start it as that word; a byte a step
// should have written and did not then holds the sentinel, not zeros. A buffer no step
// touches keeps its init. Returns the poisoned buffers' names in file order.
std::vector<std::string> poisonBuffers(Scenario& s, uint32_t pattern);

// initialContents, then every step in order.
Contents runCpuModel(const Scenario& s);

// A byte range [begin, end) of one buffer that one step writes.
struct WrittenRange {
    std::string buffer;
    uint64_t begin = 0, end = 0;
    bool operator==(const WrittenRange&) const = default;
};

// The bytes `step` writes in the CPU model (applyStep): increment's data and the copy
// kernel's dst over their first min(count, invocations, words of the bound buffers) words
// (an indirect dispatch's invocations from the counts parseScenario kept in its `groups`);
// indirect-writer the 12 bytes of its command;
// fill, update, copy and host_write their destination range; noop, barriers and host reads nothing. A write counts
// even when it leaves a byte's value as it was (increment with add = 0). `s` gives the buffer
// sizes and is assumed checked (checkScenario).
std::vector<WrittenRange> writtenRanges(const Step& step, const Scenario& s);

// The index into s.steps of the last step that writes byte `byte` of buffer `buffer` in the
// CPU model (writtenRanges), or nullopt when no step writes it (it keeps its initial
// contents). What "last written by step N" in a mismatch names (docs/scenarios.md).
// With `before`, only the steps before index `before` count: the last writer as a host read
// at step `before` sees it.
std::optional<size_t> lastWriter(const Scenario& s, std::string_view buffer, uint64_t byte, size_t before = ~size_t{0});

// The CPU model's bytes of each host read's buffer when the read comes (every step before it
// applied), by the host read's index into s.steps; a host read of a buffer the model cannot
// know there (unmodelledAfter) has no entry: it is compared with split only.
std::map<size_t, std::vector<uint8_t>> hostReadContents(const Scenario& s);

}  // namespace repro::scenario
