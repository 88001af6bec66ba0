// The scenario parser's buffers and steps (docs/scenarios.md "Buffers", "Steps"): each
// [[buffer]] and [[step]] table checked and turned into the model. Private to
// scenario_parse.cpp, which reads the file's top level and calls these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "scenario/scenario.hpp"
#include "scenario/toml_reader.hpp"

namespace repro::scenario::parse {

// Why workgroup counts `groups` are too many for `d`'s kernel, "N invocations (64 per
// workgroup), more than ..." (maxIndexedInvocations), or nothing.
std::optional<std::string> indexWraps(const Dispatch& d, const uint32_t (&groups)[3]);

// One [[buffer]] table; its name is new in `s` (the caller adds it). With `imageBytes` > 0,
// the keys an [[image]] shares with a buffer (name, memory, init, value, words), its size
// given (scenario_parse_images.hpp parseImage).
BufferSpec parseBuffer(const Parser& p, const toml::table& t, const Scenario& s, uint64_t imageBytes = 0);

// The `repeat` that made the most steps so far, for the line of a file past kMaxSteps.
struct RepeatSeen {
    SourcePlace place;
    uint64_t steps = 0;  // the steps it made
};
// One [[step]] table appended to s.steps: a step, a step with `repeat = K` (K copies), or a group: `repeat = K`
// and [[step.steps]] tables, the group's steps in order K times. Groups do not nest, and a
// step inside a group has no repeat of its own. `repeat` is taken out of `t` before the step's
// own keys are checked. The expanded list holds at most kMaxSteps steps: past it, the line
// points at this table's `repeat`, or where it has none at `biggest`, the `repeat` that made
// the most steps so far (or at the table when no step was repeated).
void appendSteps(const Parser& p, toml::table& t, Scenario& s, RepeatSeen& biggest);

// A buffer with init = "undefined" must be written before a step reads it or it is checked.
void checkReadBeforeWrite(const Parser& p, const Scenario& s);

}  // namespace repro::scenario::parse
