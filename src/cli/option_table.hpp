// The command line's option table: every option repro accepts, grouped as --help shows
// them. CLI11 registers exactly these (options.cpp), --help renders them and the bash
// completion offers them (help.cpp), so an option cannot be parsed without being
// documented, or documented without being parsed.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.hpp"

namespace repro {

// Each option's text as CLI11 hands it over, before any parsing: a value option's value
// (nullopt when the option is absent), a flag's presence. options.cpp parses and checks them.
struct RawArgs {
    // Chain and shape
    std::optional<std::string> mode, chain, preset;
    std::optional<std::string> batch, channels, height, width, kernelH, kernelW, strideH, strideW, padH, padW;
    // Device
    std::optional<std::string> device, queue, expectDriver;
    bool listDevices = false, validation = false;
    // Run and reference
    std::optional<std::string> reference, repeat, sweep, timeout, dropDispatch, dumpDir;
    bool checkSteps = false, poison = false, printStream = false, invert = false;
    // Report
    std::optional<std::string> format, output, json, trace, captureGfxr;
    bool captureRgp = false;
    bool timings = false, timestamps = false, breadcrumbs = false, labels = false, verbose = false, quiet = false;
    // Experiments
    std::optional<std::string> barrier, submitEvery, splitMib, splitMs, memory, dispatchRepeat, profile, spirv,
        workScale, mutant;
    bool hostWait = false, noHostWait = false, stress = false;
    // Multi-run
    bool matrix = false, triage = false, watchdogProbe = false, driverEnvSweep = false, allDrivers = false,
         keepLogs = false, mutants = false;
    // General
    bool help = false, version = false, bashCompletion = false;
    // --merge-reports FILE...: the flag, and the arguments that are not options (the files;
    // accepted only with the flag).
    bool mergeReports = false;
    std::vector<std::string> files;
    // Scenarios (docs/scenarios.md)
    std::optional<std::string> scenario, writeScenario;
    bool listScenarios = false;
    // The GoogleTest protocol (engine/gtest.hpp, docs/ci.md)
    std::optional<std::string> gtestFilter, gtestOutput, scenarioDir;
    bool gtestListTests = false, gtestAlsoRunDisabled = false;
};

// What the shell completes after an option that takes a value.
enum class ValueCompletion {
    None,       // a number or a name: nothing to offer
    Choices,    // one of OptionSpec::choices
    File,       // a file name
    Directory,  // a directory name
};

// One option. Exactly one of `value` (an option that takes a value) and `flag` is set.
struct OptionSpec {
    std::string_view longName;              // "--chain"
    char shortName = 0;                     // 'n' for -n; 0: none
    std::string_view placeholder;           // the value's name in help ("N", "FILE"); empty for a flag
    std::string_view help;                  // what it does, one or two sentences, ASCII
    std::string_view defaultText;           // the default in words; empty: none shown
    std::vector<std::string_view> choices;  // the words the value may be (help names each)
    // false: a value outside `choices` is also allowed (--queue takes an index too).
    bool onlyChoices = true;
    ValueCompletion completion = ValueCompletion::None;
    std::optional<std::string> RawArgs::*value = nullptr;
    bool RawArgs::*flag = nullptr;
    bool hidden = false;  // parsed, but neither in help nor in the completion's option list
    // Non-empty: why the option cannot mean anything for a scenario file (`--scenario`), or for
    // the built-in chain; the usage error says it ("--chain: not with --scenario: ...").
    std::string_view notForFile;
    std::string_view notForChain;
};

// One of the ten shape options (--batch ... --pad-w): the field of --preset's shape it replaces.
struct ShapeOption {
    std::string_view longName, help;
    std::optional<std::string> RawArgs::*value;
    uint32_t Shape::*field;
};
// The shape options, in --help order (the table's "Chain and shape" section ends with them).
std::span<const ShapeOption> shapeOptions();

// A group of options under one heading of --help.
struct OptionSection {
    std::string_view title;  // "Chain and shape"
    std::string_view note;   // printed under the title; may be empty
    std::vector<OptionSpec> options;
};

// The table, in --help order: chain and shape, device, run and reference, report,
// experiments, multi-run, general.
const std::vector<OptionSection>& optionTable();
// Every option of the table, in --help order, one list (the sections' options joined).
const std::vector<const OptionSpec*>& allOptions();

// The option named `longName` ("--chain") or with the short name `shortName` ('n');
// nullptr when there is none.
const OptionSpec* findLongOption(std::string_view longName);
const OptionSpec* findShortOption(char shortName);

// How messages name an option: "-n/--chain" for an option with a short form that takes a
// value, otherwise the long name ("--timeout", "--verbose").
std::string optionLabel(const OptionSpec& spec);

}  // namespace repro
