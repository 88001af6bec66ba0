// The CPU model of a scenario: every built-in kernel and every transfer computed on the host,
// exactly (32-bit integer kernels, byte-exact transfers), barriers ignored. The oracle next
// to split (docs/scenarios.md "Oracles").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/scenario.hpp"

namespace repro::scenario {

// Buffer name -> its bytes.
using Contents = std::map<std::string, std::vector<uint8_t>>;

// Every buffer's bytes as initialWords() gives them (little-endian words).
Contents initialContents(const Scenario& s);

// Applies one step to `contents` as a correct device would: increment adds `add` (mod 2^32)
// to words [0, count) of data; copy copies words [0, count) of src to dst; noop nothing;
// fill writes `value` to the words of [offset, offset+size); update writes its words at
// offset; copy copies size bytes (memmove semantics are not needed: Vulkan forbids overlap
// within one buffer). Barriers do nothing. The scenario is assumed checked
// (checkScenario): names exist and ranges fit.
void applyStep(const Step& step, Contents& contents);

// initialContents, then every step in order.
Contents runCpuModel(const Scenario& s);

}  // namespace repro::scenario
