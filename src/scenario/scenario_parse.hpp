// Scenario files: TOML (toml++, Debian's libtomlplusplus-dev) to the model of
// scenario/scenario.hpp, with every field checked before anything runs (docs/scenarios.md).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "scenario/scenario.hpp"

namespace repro::scenario {

// Parses and checks `text` as the scenario file `file` (the name used in messages). Throws
// UsageError (core/errors.hpp) with one line "FILE:LINE:COLUMN: what is wrong; what was
// expected" for anything docs/scenarios.md "What is checked before anything runs" lists. `shuffle`
// reorders the steps first (docs/scenarios.md "Top level"; the checks and the CPU model follow that
// order); [parameters] gives each "$name" its value (docs/scenarios.md "Parameters"), `overrides`
// replace the table's (--sweep), and one the table lacks is a UsageError "--sweep: FILE has no
// parameter 'x' ...". Last comes the one-queue race check (scenario/scenario_races.hpp);
// RaceCheck::Skip leaves it out, for the unit tests whose subject is the CPU model (which runs
// the steps in the file's order whatever the barriers say): every file repro reads is checked.
enum class RaceCheck { Refuse, Skip };
Scenario parseScenario(std::string_view text, const std::string& file, const ParameterValues& overrides = {},
                       RaceCheck races = RaceCheck::Refuse);

// The largest scenario file read: 16 MiB, far past any hand-written file (the shipped ones
// are a few KiB) and small enough that a wrong path (/dev/zero, a disk image) is refused
// before it fills memory (docs/scenarios.md "The file").
inline constexpr uint64_t kMaxScenarioBytes = uint64_t{16} << 20;

// Reads `path` (a regular file of at most kMaxScenarioBytes, core/bounded_file.hpp: a FIFO
// or a device is refused without blocking) and parses it. A UsageError names the path and
// why: "--scenario: cannot read 'PATH' (REASON)" (errno's text, "Is a directory", "a FIFO,
// not a regular file", "N bytes, more than the 16 MiB allowed"), or "--scenario: 'PATH' is
// empty (0 bytes); ...".
Scenario loadScenario(const std::string& path, const ParameterValues& overrides = {});

// Makes the words of every chain-input and chain-weight buffer of `scenarios` that has none:
// the built-in chain's input (makeInput, small[0]) and weight (makeWeight) for its file's
// shape, reference/cpu_reference.hpp, as 32-bit words. The parse leaves them out (a run makes them
// on a thread of its own while the driver creates the device: 3.7 M sinf calls at the full
// shape, run on the worker pool); nothing may read a buffer's initial words before this.
// Each shape's words are made once and copied into the other scenarios that take them.
void fillChainWords(std::span<Scenario* const> scenarios);

}  // namespace repro::scenario
