// --stress (docs/scenarios.md "--stress"): the host's side of the stressing environment of MC
// Mutants (Levine et al., ASPLOS 2023), which made missing dependencies show more often on
// real GPUs: the shuffled workgroups' bijection as shaders/scenario_common.h computes it, and
// the file buffers the priming kernel reads. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace repro::scenario {

// The specialization constants of shaders/scenario_common.h under --stress (constant_id 1 and
// 2): the seed of the multiplier (non-zero: 0 keeps the workgroups in order) and the offset.
inline constexpr uint32_t kShuffleMultiplier = 40503;
inline constexpr uint32_t kShuffleOffset = 7919;

// Flattened workgroup `w` (< count, count >= 1) moved as shaders/scenario_common.h
// shuffledGroup moves it: (w * p + offset) mod count with p the first value from
// max(multiplier mod count, 1) up that is coprime to count; past 65,536 groups the rotation
// (w + offset) mod count. A bijection of 0..count-1 for every count and seed.
uint32_t shuffledGroup(uint32_t w, uint32_t count, uint32_t multiplier, uint32_t offset);

// The buffers of `s` its steps read on the device, each once in file order: every buffer a
// dispatch binds, a copy's source and an indirect dispatch's args buffer. The priming kernel
// reads these at the start of each command buffer of multipass and single. Images are left
// out (the priming kernel binds storage buffers; an image's texels are read by its own steps).
std::vector<std::string> primedBuffers(const Scenario& s);

// The parts of --stress that apply to `s`, as the report names them: "priming" and "traffic"
// on a file on one queue (its one-submit modes), then "shuffled-workgroups" (every file).
std::vector<std::string> stressParts(const Scenario& s);

}  // namespace repro::scenario
