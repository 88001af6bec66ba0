// Unit tests for src/report/report_render.hpp (report_json, report_markdown, markdown,
// report_facts): the JSON report parsed back field by
// field and checked against docs/report.schema.json (required properties, types, no
// undocumented fields), NaN/Inf handling, and the Markdown block's structure.
#include "report/report_render.hpp"
#include "children/triage.hpp"
#include "core/variant.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/sha256.hpp"
#include "forensics/environment.hpp"
#include "report/command_line.hpp"
#include "schema_checker.hpp"
#include "temp_folder.hpp"

#ifndef REPRO_SOURCE_DIR
#error "REPRO_SOURCE_DIR must name the source tree (tests/CMakeLists.txt)"
#endif

namespace repro {
namespace {

using nlohmann::json;
using test::joinErrors;
using test::SchemaChecker;

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

size_t count(const std::string& text, std::string_view part) {
    size_t n = 0;
    for (size_t pos = text.find(part); pos != std::string::npos; pos = text.find(part, pos + 1)) ++n;
    return n;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

ModeReport mode(Mode m, Classification kind, std::string reason, std::optional<BufferStats> stats,
                std::string role = "under test") {
    ModeReport r;
    r.result.mode = m;
    r.result.kind = kind;
    r.result.reason = std::move(reason);
    r.result.stats = stats;
    r.result.submits = m == Mode::Single ? 1 : 13;
    r.result.wallSeconds = 1.25;
    r.role = std::move(role);
    return r;
}

// The Markdown with its fenced blocks and code spans taken out: what GitLab reads as
// Markdown (references such as #1 included).
std::string outsideCode(const std::string& md) {
    std::string out;
    bool fenced = false;
    std::istringstream in(md);
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("```")) {
            fenced = !fenced;
            continue;
        }
        if (fenced) continue;
        bool span = false;
        for (size_t i = 0; i < line.size(); ++i) {
            if (line[i] == '\\' && i + 1 < line.size()) {
                if (!span) out += line.substr(i, 2);
                ++i;
            } else if (line[i] == '`') {
                span = !span;
            } else if (!span) {
                out += line[i];
            }
        }
        out += '\n';
    }
    return out;
}

// A full report: RADV on an RX 6800, split ok (run after as the reference), multipass
// zero, single nonfinite; GPU timestamps on multipass; adversarial strings where a
// driver or the validation layer could put them.
RunReport sampleReport() {
    RunReport r;
    r.version = "0.1.0";
    r.gitHash = "abc1234";
    r.commandLine = {"repro", "-n", "6", "--format", "markdown", "--device", "RX 6800"};
    r.environment.host = {{"os", "Ubuntu 24.04.1 LTS"},
                          {"kernel.release", "6.8.0-45-generic"},
                          {"kernel.machine", "x86_64"},
                          {"cpu", "AMD Ryzen 9 5950X"},
                          {"kernel.cmdline", "quiet splash | tee"}};
    r.environment.kernelDriver = {{"amdgpu.lockup_timeout", "10000"},
                                  {"amdgpu.uni_mes", ""},
                                  {"card0", "pci 0000:03:00.0, vendor 0x1002, device 0x73bf, driver amdgpu"},
                                  {"i915", "not present (/sys/module/i915)"}};
    r.environment.drmCards.push_back(DrmCard{
        .name = "card0", .pciSlot = "0000:03:00.0", .vendorId = 0x1002, .deviceId = 0x73bf, .driver = "amdgpu"});
    r.environment.variables = {{"RADV_DEBUG", "nocache|syncshaders"}};
    r.environment.notes = {"amdgpu firmware: /sys/kernel/debug/dri/<minor>/ not read"};
    DeviceReport d;
    d.deviceName = "AMD Radeon RX 6800 (RADV NAVI21)";
    d.deviceType = "DISCRETE_GPU";
    d.apiVersion = "1.3.274";
    d.driverVersion = "24.0.5";
    d.driverVersionRaw = 0x18000005;
    d.vendorId = 0x1002;
    d.deviceId = 0x73bf;
    d.driverId = "DRIVER_ID_MESA_RADV";
    d.driverName = "radv";
    d.driverInfo = "Mesa 24.0.5 | git-1234 <details>";
    d.conformanceVersion = "1.3.0.0";
    d.deviceUuid = "00000000-0300-0000-0000-000000000000";
    d.driverUuid = "414d442d-4d45-5341-2d44-525600000000";
    d.pciBus = "0000:03:00.0";
    d.queueFamily = 0;
    d.queueFlags = "GRAPHICS|COMPUTE|TRANSFER";
    d.queueNote = "family 0, as blade hard-codes it";
    d.extensions = {"VK_KHR_synchronization2", "VK_EXT_pci_bus_info"};
    d.features = {"synchronization2"};
    d.memory = {MemoryPlacement{"big[0]", "Device", 0, "DEVICE_LOCAL", 0, 16ull << 30, "DEVICE_LOCAL"},
                MemoryPlacement{"weight", "Shared", 2, "DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT", 0, 16ull << 30,
                                "DEVICE_LOCAL"}};
    r.device = d;
    r.preset = "spectrostream";
    r.shape = Shape{};
    r.sizes = computeSizes(r.shape);
    r.chainLength = 6;
    r.referenceName = "split, run after the modes under test";
    ModeReport multipass = mode(Mode::Multipass, Classification::Zero, "every element is 0; split is not",
                                BufferStats{.elements = 3686400, .nonZero = 0, .sum = 0.0, .maxAbs = 0.0f});
    multipass.dispatchGpuSeconds = {0.0021, 0.0001};
    multipass.submitGpuSeconds = {0.0022, 6.5};
    multipass.modeGpuSeconds = 6.5022;
    r.modes.push_back(multipass);
    r.modes.push_back(mode(Mode::Single, Classification::NonFinite, "12 NaN elements",
                           BufferStats{.elements = 3686400,
                                       .nonZero = 3686388,
                                       .nonFinite = 12,
                                       .sum = std::numeric_limits<double>::quiet_NaN(),
                                       .maxAbs = std::numeric_limits<float>::infinity()}));
    r.modes.push_back(
        mode(Mode::Split, Classification::Ok, "finite and non-zero; the reference",
             BufferStats{.elements = 3686400, .nonZero = 3686400, .denormal = 3, .sum = 0.056694, .maxAbs = 0.00031f},
             "reference (run after)"));
    r.validation.enabled = true;
    r.validation.warnings = 1;
    r.validation.messages = {"SYNC-HAZARD-READ-AFTER-WRITE | vkCmdDispatch ``` <b>"};
    r.timings.instanceAndDevice = 0.25;
    r.timings.total = -std::numeric_limits<double>::infinity();  // never real; exercises -inf
    r.verdict.exitStatus = kExitReproduced;
    r.verdict.lines = {
        "--- BUG REPRODUCED: mode multipass is zero: every element is 0; split is not",
        "--- while split produced correct non-zero data; the Vulkan spec makes all three modes equivalent"};
    return r;
}

// A report from a run that never got a device.
RunReport minimalReport() {
    RunReport r;
    r.version = "0.1.0";
    r.gitHash = "unknown";
    r.commandLine = {"repro"};
    r.sizes = computeSizes(r.shape);
    r.verdict.exitStatus = kExitCannotTest;
    r.verdict.lines = {"--- cannot test here: no Vulkan loader"};
    return r;
}

json parsedJson(const RunReport& r) {
    const std::string text = renderJsonText(r);
    EXPECT_TRUE(text.ends_with("\n"));
    return json::parse(text);
}

json loadSchema() {
    std::ifstream in(std::string(REPRO_SOURCE_DIR) + "/docs/report.schema.json");
    EXPECT_TRUE(in.good()) << "cannot open docs/report.schema.json";
    return json::parse(in);
}

TEST(ReportJson, TopLevelAndVersion) {
    const json j = parsedJson(sampleReport());
    EXPECT_EQ(j["schema"], "repro-report");
    EXPECT_EQ(j["schema_version"], 3);
    EXPECT_EQ(kReportSchemaVersion, 3);
    EXPECT_EQ(j["repro"]["version"], "0.1.0");
    EXPECT_EQ(j["repro"]["git"], "abc1234");
    EXPECT_EQ(j["command_line"], json({"repro", "-n", "6", "--format", "markdown", "--device", "RX 6800"}));
    EXPECT_EQ(j["chain_length"], 6);
    EXPECT_EQ(j["reference"], "split, run after the modes under test");
    EXPECT_EQ(j["verdict"]["exit_status"], 2);
    ASSERT_EQ(j["verdict"]["lines"].size(), 2u);
    EXPECT_EQ(j["verdict"]["lines"][0], "--- BUG REPRODUCED: mode multipass is zero: every element is 0; split is not");
}

TEST(ReportJson, DeviceShapeSizes) {
    const RunReport r = sampleReport();
    const json j = parsedJson(r);
    const json& d = j["device"];
    EXPECT_EQ(d["device_name"], "AMD Radeon RX 6800 (RADV NAVI21)");
    EXPECT_EQ(d["device_type"], "DISCRETE_GPU");
    EXPECT_EQ(d["api_version"], "1.3.274");
    EXPECT_EQ(d["driver_version"], "24.0.5");
    EXPECT_EQ(d["driver_version_raw"], 0x18000005);
    EXPECT_EQ(d["vendor_id"], 0x1002);
    EXPECT_EQ(d["device_id"], 0x73bf);
    EXPECT_EQ(d["driver_id"], "DRIVER_ID_MESA_RADV");
    EXPECT_EQ(d["driver_name"], "radv");
    EXPECT_EQ(d["driver_info"], "Mesa 24.0.5 | git-1234 <details>");
    EXPECT_EQ(d["pci_bus"], "0000:03:00.0");
    EXPECT_EQ(d["queue_flags"], "GRAPHICS|COMPUTE|TRANSFER");
    EXPECT_EQ(d["extensions"], json({"VK_KHR_synchronization2", "VK_EXT_pci_bus_info"}));
    ASSERT_EQ(d["memory"].size(), 2u);
    EXPECT_EQ(d["memory"][1]["buffer"], "weight");
    EXPECT_EQ(d["memory"][1]["memory_class"], "Shared");
    EXPECT_EQ(d["memory"][1]["type_index"], 2);
    EXPECT_EQ(d["memory"][1]["heap_bytes"], 16ull << 30);

    EXPECT_EQ(j["shape"]["preset"], "spectrostream");
    EXPECT_EQ(j["shape"]["channels"], 128);
    EXPECT_EQ(j["shape"]["stride_w"], 2);
    EXPECT_EQ(j["sizes"]["small_elements"], r.sizes.smallElems);
    EXPECT_EQ(j["sizes"]["big_elements"], r.sizes.bigElems);
    EXPECT_EQ(j["sizes"]["big_bytes"], r.sizes.bigBytes);
    EXPECT_EQ(j["sizes"]["conv_workgroups"],
              json({r.sizes.convWorkgroups[0], r.sizes.convWorkgroups[1], r.sizes.convWorkgroups[2]}));
}

TEST(ReportJson, ModesStatsAndNonFinite) {
    const json j = parsedJson(sampleReport());
    const json& modes = j["modes"];
    ASSERT_EQ(modes.size(), 3u);
    EXPECT_EQ(modes[0]["mode"], "multipass");
    EXPECT_EQ(modes[0]["role"], "under test");
    EXPECT_EQ(modes[0]["classification"], "zero");
    EXPECT_EQ(modes[0]["reason"], "every element is 0; split is not");
    EXPECT_EQ(modes[0]["submits"], 13);
    EXPECT_EQ(modes[0]["wall_seconds"], 1.25);
    EXPECT_EQ(modes[0]["stats"]["elements"], 3686400);
    EXPECT_EQ(modes[0]["stats"]["non_zero"], 0);
    EXPECT_EQ(modes[0]["stats"]["sum"], 0.0);
    EXPECT_EQ(modes[0]["gpu"]["dispatch_seconds"], json({0.0021, 0.0001}));
    EXPECT_EQ(modes[0]["gpu"]["submit_seconds"], json({0.0022, 6.5}));
    EXPECT_EQ(modes[0]["gpu"]["mode_seconds"], 6.5022);

    EXPECT_EQ(modes[1]["classification"], "nonfinite");
    EXPECT_EQ(modes[1]["stats"]["non_finite"], 12);
    EXPECT_EQ(modes[1]["stats"]["sum"], "NaN");
    EXPECT_EQ(modes[1]["stats"]["max_abs"], "inf");
    EXPECT_TRUE(modes[1]["gpu"].is_null());

    EXPECT_EQ(modes[2]["mode"], "split");
    EXPECT_EQ(modes[2]["role"], "reference (run after)");
    EXPECT_EQ(modes[2]["stats"]["denormal"], 3);
    EXPECT_DOUBLE_EQ(modes[2]["stats"]["sum"].get<double>(), 0.056694);
    // A float32 is written in its shortest form and reads back as the same float32.
    EXPECT_EQ(modes[2]["stats"]["max_abs"].get<double>(), 0.00031);
    EXPECT_EQ(modes[2]["stats"]["max_abs"].get<float>(), 0.00031f);

    EXPECT_EQ(j["timings"]["instance_and_device"], 0.25);
    EXPECT_EQ(j["timings"]["total"], "-inf");
    // Nothing non-finite leaks out as JSON null.
    EXPECT_FALSE(contains(renderJsonText(sampleReport()), "\"sum\": null"));
}

TEST(ReportJson, HangModeHasNullStats) {
    RunReport r = minimalReport();
    r.modes.push_back(mode(Mode::Multipass, Classification::Hang, "lost the device", std::nullopt));
    r.modes.push_back(mode(Mode::Single, Classification::NotRun, "an earlier mode lost the device", std::nullopt));
    const json j = parsedJson(r);
    EXPECT_TRUE(j["modes"][0]["stats"].is_null());
    EXPECT_EQ(j["modes"][0]["classification"], "hang");
    EXPECT_EQ(j["modes"][1]["classification"], "not run");
    EXPECT_TRUE(j["device"].is_null());
    EXPECT_TRUE(j["reference"].is_null());
}

TEST(ReportJson, EnvironmentValidationWatchdog) {
    const json j = parsedJson(sampleReport());
    const json& e = j["environment"];
    // Dotted fact names are nested; a first-level fact is its object's "value".
    EXPECT_EQ(e["host"]["os"]["value"], "Ubuntu 24.04.1 LTS");
    EXPECT_EQ(e["host"]["kernel"]["release"], "6.8.0-45-generic");
    EXPECT_EQ(e["host"]["kernel"]["cmdline"], "quiet splash | tee");
    EXPECT_EQ(e["kernel_driver"]["amdgpu"]["lockup_timeout"], "10000");
    EXPECT_EQ(e["kernel_driver"]["i915"]["value"], "not present (/sys/module/i915)");
    EXPECT_EQ(e["kernel_driver"]["card0"]["value"], "pci 0000:03:00.0, vendor 0x1002, device 0x73bf, driver amdgpu");
    EXPECT_EQ(e["variables"]["RADV_DEBUG"], "nocache|syncshaders");
    ASSERT_EQ(e["drm_cards"].size(), 1u);
    EXPECT_EQ(e["drm_cards"][0]["driver"], "amdgpu");
    EXPECT_EQ(e["drm_cards"][0]["vendor_id"], 0x1002);
    EXPECT_EQ(e["job_watchdog"]["driver"], "amdgpu");
    EXPECT_EQ(e["job_watchdog"]["seconds"], 10.0);
    EXPECT_EQ(e["job_watchdog"]["read"], true);
    EXPECT_FALSE(e["hang_evidence"].empty());
    EXPECT_TRUE(contains(e["hang_evidence"].dump(), "RADV_DEBUG=hang"));
    EXPECT_EQ(j["validation"]["enabled"], true);
    EXPECT_EQ(j["validation"]["warnings"], 1);
    ASSERT_EQ(j["validation"]["messages"].size(), 1u);
    // multipass's second submit ran 6.5 s on the GPU: 65% of the 10 s watchdog.
    ASSERT_EQ(j["warnings"].size(), 1u);
    const std::string warning = j["warnings"][0].get<std::string>();
    EXPECT_TRUE(contains(warning, "mode multipass submit 2")) << warning;
    EXPECT_TRUE(contains(warning, "amdgpu job watchdog (10 s")) << warning;
}

TEST(ReportJson, InvalidUtf8DoesNotThrow) {
    RunReport r = minimalReport();
    r.commandLine.push_back("\xff\xfe bad");
    std::string text;
    EXPECT_NO_THROW(text = renderJsonText(r));
    json parsed;
    EXPECT_NO_THROW(parsed = json::parse(text));
    EXPECT_EQ(parsed["schema_version"], 3);
}

TEST(ReportSchema, EveryOutputMatchesTheSchema) {
    const json schema = loadSchema();
    EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    EXPECT_EQ(schema["properties"]["schema_version"]["const"], kReportSchemaVersion);
    SchemaChecker checker(schema);
    RunReport hung = minimalReport();
    hung.modes.push_back(mode(Mode::Multipass, Classification::Hang, "lost the device", std::nullopt));
    hung.environment.drmCards.push_back(DrmCard{.name = "card0"});
    for (const RunReport& r : {sampleReport(), minimalReport(), hung}) {
        const auto errors = checker.check(parsedJson(r));
        EXPECT_TRUE(errors.empty()) << joinErrors(errors);
    }
}

// The run facts of a triage or probe document of `flag` on a RADV "GPU".
TriageRunFacts runFacts(const char* flag, uint32_t chainLength, std::optional<double> timeout, const char* source,
                        int status) {
    return {.version = "0.1.0",
            .git = "abc",
            .commandLine = {"repro", flag},
            .deviceName = "GPU",
            .driver = "radv",
            .driverId = "MESA_RADV",
            .chainLength = chainLength,
            .timeoutSeconds = timeout,
            .timeoutSource = source,
            .exitStatus = status};
}

// --triage's document, checked against $defs/triageDocument with the same strict checker.
TEST(ReportSchema, TriageDocumentMatchesItsSchema) {
    const json schema = loadSchema();
    const json root = {{"$ref", "#/$defs/triageDocument"}, {"$defs", schema["$defs"]}};
    TriageInput in;
    in.baseline = RunResult::Wrong;
    in.baselineDetail = "split ok, multipass killed (exit 2)";
    in.failingMode = "multipass";
    in.causeKind = "job_timeout";
    in.causeVerdict = "cause: the kernel's job timeout (2000 ms, gfx queue): ...";
    in.experiments = {
        {.kind = ExperimentKind::Barrier, .label = "barrier=full", .result = RunResult::Wrong, .detail = "x"},
        {.kind = ExperimentKind::Memory, .label = "memory=host-cached", .result = RunResult::NoEffect}};
    in.probe = {.result = ProbeResult::SoftKill, .longestSeconds = 2.0, .detail = "soft kill"};
    const TriageConclusion t = concludeTriage(in);
    for (const bool withTimeout : {true, false}) {
        const TriageRunFacts facts =
            runFacts("--triage", 7, withTimeout ? std::optional<double>(2.0) : std::nullopt, "kernel default", 2);
        const json doc = triageDocument(facts, in, t);
        SchemaChecker checker(root);
        EXPECT_EQ(joinErrors(checker.check(doc)), "") << doc.dump(2);
        EXPECT_EQ(doc["conclusion"]["kind"], "job_timeout");
    }
    in.probe = {};
    const json noProbe = triageDocument({.chainLength = 1}, in, concludeTriage(in));
    SchemaChecker checker(root);
    EXPECT_EQ(joinErrors(checker.check(noProbe)), "") << noProbe.dump(2);
    EXPECT_TRUE(noProbe["probe"].is_null());
}

// --watchdog-probe's document against $defs/watchdogProbeDocument, with and without a
// known timeout.
TEST(ReportSchema, WatchdogProbeDocumentMatchesItsSchema) {
    const json schema = loadSchema();
    const json root = {{"$ref", "#/$defs/watchdogProbeDocument"}, {"$defs", schema["$defs"]}};
    const std::vector<ProbeRung> rungs = {
        {.convTs = 1, .steps = 1, .repeat = 1, .measuredSeconds = 0.12, .outcome = "single ok (exit 0)"},
        {.convTs = 2,
         .steps = 1,
         .repeat = 2,
         .predictedSeconds = 0.24,
         .measuredSeconds = 0.22,
         .outcome = "single ok (exit 0)"},
        {.convTs = 4, .steps = 1, .repeat = 4, .predictedSeconds = 0.44, .outcome = "single killed (exit 2)"}};
    const ProbeOutcome soft{.result = ProbeResult::SoftKill, .longestSeconds = 0.22, .detail = "soft kill at 4"};
    for (const bool withTimeout : {true, false}) {
        const TriageRunFacts facts = runFacts(
            "--watchdog-probe", 1, withTimeout ? std::optional<double>(0.5) : std::nullopt, "lockup_timeout", 0);
        const json doc = watchdogProbeDocument(facts, rungs, soft, "watchdog probe: a kill here is soft");
        SchemaChecker checker(root);
        EXPECT_EQ(joinErrors(checker.check(doc)), "") << doc.dump(2);
        EXPECT_EQ(doc["schema"], "repro-watchdog-probe");
        EXPECT_EQ(doc["rungs"].size(), 3u);
        EXPECT_EQ(doc["rungs"][2]["conv_ts"], 4);
        EXPECT_TRUE(doc["rungs"][0]["predicted_seconds"].is_null());
        EXPECT_TRUE(doc["rungs"][2]["measured_seconds"].is_null());
        EXPECT_EQ(doc["result"], "soft kill");
        EXPECT_EQ(doc["timeout_seconds"].is_null(), !withTimeout);
    }
}

TEST(ReportSchema, RequiredPropertiesArePresent) {
    // Every top-level required property, and every required property of the objects
    // they hold, is in the output (the checker above recurses; this states it plainly).
    const json schema = loadSchema();
    const json j = parsedJson(sampleReport());
    for (const auto& key : schema["required"]) EXPECT_TRUE(j.contains(key.get<std::string>())) << key;
    for (const auto& key : schema["$defs"]["mode"]["required"]) {
        for (const auto& m : j["modes"]) EXPECT_TRUE(m.contains(key.get<std::string>())) << key;
    }
    for (const auto& key : schema["$defs"]["device"]["required"])
        EXPECT_TRUE(j["device"].contains(key.get<std::string>())) << key;
}

// sampleReport's reproduction as a run under a positive control says it (engine/outcome_stages.cpp).
const std::string kCaughtLine = "--- CONTROL CAUGHT: mode multipass is zero: every element is 0; split is not";

// A report of a non-default experiment: every experiment field set.
RunReport experimentReport() {
    RunReport r = sampleReport();
    r.experiment =
        ExperimentReport{.barrier = "none",
                         .submitEvery = 3,
                         .splitMiB = 26.211,
                         .splitMs = 250,
                         .hostWait = false,
                         .memory = "host-cached",
                         .dispatchRepeat = 4,
                         .profile = "blade-exact",
                         .spirvDir = "naga-out",
                         .dropDispatch = 3,
                         .changes = {"--barrier none", "--submit-every 3", "--split-mib 26.211", "--split-ms 250",
                                     "--no-host-wait", "--dispatch-repeat 4", "--drop-dispatch 3",
                                     "--memory host-cached", "--profile blade-exact", "--spirv naga-out"},
                         .control = true,
                         .quirks = {"no HOST_READ barrier", "queue family 0"},
                         .stress = {"priming", "traffic", "shuffled-workgroups"}};
    r.verdict.lines[0] = kCaughtLine;  // the run is a control, and multipass's zeros its doing
    return r;
}

TEST(ReportJson, ExperimentBlockDefaultsAndEveryField) {
    const json d = parsedJson(sampleReport())["experiment"];
    EXPECT_EQ(d["barrier"], "blade");
    EXPECT_EQ(d["control"], false);
    EXPECT_TRUE(d["submit_every"].is_null());
    EXPECT_TRUE(d["split_mib"].is_null());
    EXPECT_EQ(d["host_wait"], true);
    EXPECT_EQ(d["profile"], "default");
    EXPECT_TRUE(d["spirv_dir"].is_null());
    EXPECT_TRUE(d["quirks"].empty());
    EXPECT_TRUE(d["stress"].empty());
    const json e = parsedJson(experimentReport())["experiment"];
    EXPECT_EQ(e["barrier"], "none");
    EXPECT_EQ(e["control"], true);
    EXPECT_EQ(e["submit_every"], 3);
    EXPECT_DOUBLE_EQ(e["split_mib"].get<double>(), 26.211);
    EXPECT_EQ(e["host_wait"], false);
    EXPECT_EQ(e["memory"], "host-cached");
    EXPECT_EQ(e["dispatch_repeat"], 4);
    EXPECT_EQ(e["profile"], "blade-exact");
    EXPECT_EQ(e["spirv_dir"], "naga-out");
    EXPECT_EQ(e["quirks"].size(), 2u);
    EXPECT_EQ(e["stress"], json::array({"priming", "traffic", "shuffled-workgroups"}));
    const json schema = loadSchema();  // the checker keeps a reference to it
    SchemaChecker checker(schema);
    const auto errors = checker.check(parsedJson(experimentReport()));
    EXPECT_TRUE(errors.empty()) << joinErrors(errors);
}

TEST(ReportMarkdown, ExperimentRowSaysWhatChangedAndMarksControls) {
    const std::string md = renderMarkdown(experimentReport());
    EXPECT_TRUE(contains(md,
                         "| experiment | barrier none (CONTROL: invalid on purpose), memory host-cached, "
                         "profile blade-exact, submit every 3, split at 26.211 MiB, split at 250 ms of "
                         "predicted GPU time, no host waits, each conv-T x4, SPIR-V from naga-out, dispatch 3 "
                         "left out (a positive control), --stress (priming, traffic, shuffled-workgroups) |"))
        << md;
    EXPECT_TRUE(contains(md, "| blade-exact quirk | no HOST_READ barrier |")) << md;
}

TEST(ReportMarkdown, TableEscapesEveryCellAndHeader) {
    const std::string t = markdownTable({"a|b", "c"}, {{"x|y", "<b>"}, {"", "`z`"}});
    EXPECT_EQ(t, "| a\\|b | c |\n|---|---|\n| x\\|y | &lt;b&gt; |\n|   | \\`z\\` |\n");
    EXPECT_EQ(markdownText("a*b\nc"), "a\\*b c");
}

TEST(ReportSchema, EnumsCoverEveryName) {
    const json schema = loadSchema();
    const json& classes = schema["$defs"]["mode"]["properties"]["classification"]["enum"];
    for (int c = 0; c <= static_cast<int>(Classification::Inconclusive); ++c) {
        const std::string n(name(static_cast<Classification>(c)));
        EXPECT_NE(std::find(classes.begin(), classes.end(), n), classes.end()) << n;
    }
    const json& experiment = schema["properties"]["experiment"]["properties"];
    for (const char* b : {"blade", "sync2", "buffer", "full", "execution-only", "none"}) {
        EXPECT_EQ(std::string(name(*parseBarrier(b))), b);
        const json& e = experiment["barrier"]["enum"];
        EXPECT_NE(std::find(e.begin(), e.end(), b), e.end()) << b;
    }
    for (const char* m : {"blade", "device-local", "host-visible", "host-cached"}) {
        const json& e = experiment["memory"]["enum"];
        EXPECT_NE(std::find(e.begin(), e.end(), m), e.end()) << m;
    }
    const json& modes = schema["$defs"]["mode"]["properties"]["mode"]["enum"];
    for (const Mode m : {Mode::Split, Mode::Multipass, Mode::Single}) {
        EXPECT_NE(std::find(modes.begin(), modes.end(), std::string(name(m))), modes.end()) << name(m);
    }
}

// Every property name the schema declares, at any depth.
void propertyNames(const json& schema, std::set<std::string>& out) {
    if (schema.is_object()) {
        if (schema.contains("properties")) {
            for (const auto& [key, value] : schema["properties"].items()) out.insert(key);
        }
        for (const auto& [key, value] : schema.items()) propertyNames(value, out);
    } else if (schema.is_array()) {
        for (const auto& value : schema) propertyNames(value, out);
    }
}

TEST(ReportSchema, MarkdownDocumentationNamesEveryProperty) {
    std::ifstream in(std::string(REPRO_SOURCE_DIR) + "/docs/report-schema.md");
    ASSERT_TRUE(in.good()) << "cannot open docs/report-schema.md";
    const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::set<std::string> names;
    propertyNames(loadSchema(), names);
    EXPECT_GT(names.size(), 50u);
    for (const auto& n : names) EXPECT_TRUE(contains(doc, "`" + n + "`")) << n << " is not documented";
}

// Cells of a Markdown table row: split on '|' not escaped by a backslash.
std::vector<std::string> cells(const std::string& row) {
    std::vector<std::string> out;
    std::string cell;
    for (size_t i = 0; i < row.size(); ++i) {
        if (row[i] == '\\' && i + 1 < row.size()) {
            cell += row[i];
            cell += row[++i];
        } else if (row[i] == '|') {
            out.push_back(cell);
            cell.clear();
        } else {
            cell += row[i];
        }
    }
    out.push_back(cell);
    // "| a | b |" splits into "", " a ", " b ", "".
    if (!out.empty() && out.front().empty()) out.erase(out.begin());
    if (!out.empty() && out.back().empty()) out.pop_back();
    return out;
}

TEST(ReportMarkdown, ResultsTable) {
    const std::string md = renderMarkdown(sampleReport());
    const auto all = lines(md);
    const auto header = std::find_if(all.begin(), all.end(),
                                     [](const std::string& l) { return l.starts_with("| mode | classification |"); });
    ASSERT_NE(header, all.end()) << md;
    EXPECT_EQ(*header, "| mode | classification | nz | sum | max_abs | submits | wall s | GPU s |");
    ASSERT_LT(header + 5, all.end());
    EXPECT_EQ(*(header + 1), "|---|---|---|---|---|---|---|---|");
    EXPECT_TRUE(
        (header + 2)
            ->starts_with("| multipass | zero | 0/3686400 (0.0%) | 0.0000e0 | 0.0000e0 | 13 | 1.25 | 6.502200 |"))
        << *(header + 2);
    EXPECT_TRUE((header + 3)->starts_with("| single | nonfinite | 3686388/3686400 (100.0%) | NaN | inf | 1 |"))
        << *(header + 3);
    EXPECT_TRUE(
        (header + 4)
            ->starts_with("| split, reference (run after) | ok | 3686400/3686400 (100.0%) | 5.6694e-2 | 3.1000e-4 |"))
        << *(header + 4);
    EXPECT_TRUE((header + 5)->empty()) << "one row per mode, then the table ends";
}

TEST(ReportMarkdown, GpuColumnOnlyWhenMeasured) {
    RunReport r = sampleReport();
    for (auto& m : r.modes) {
        m.dispatchGpuSeconds.clear();
        m.submitGpuSeconds.clear();
        m.modeGpuSeconds.reset();
    }
    const std::string md = renderMarkdown(r);
    EXPECT_TRUE(contains(
        md, "| mode | classification | nz | sum | max_abs | submits | wall s |\n|---|---|---|---|---|---|---|\n"))
        << md;
    EXPECT_FALSE(contains(md, "GPU s"));
}

TEST(ReportMarkdown, EveryTableRowHasItsHeadersCellCount) {
    for (const RunReport& r : {sampleReport(), minimalReport()}) {
        const auto all = lines(renderMarkdown(r));
        size_t expected = 0;
        size_t tables = 0;
        for (size_t i = 0; i < all.size(); ++i) {
            if (!all[i].starts_with("|")) {
                expected = 0;
                continue;
            }
            if (expected == 0) {  // a header row, then the separator
                expected = cells(all[i]).size();
                ++tables;
                ASSERT_LT(i + 1, all.size());
                EXPECT_EQ(cells(all[i + 1]).size(), expected) << all[i + 1];
                for (const auto& c : cells(all[i + 1])) EXPECT_EQ(c, "---");
                ++i;  // past the separator
                continue;
            }
            EXPECT_EQ(cells(all[i]).size(), expected) << "unescaped '|' in a cell: " << all[i];
            EXPECT_TRUE(all[i].ends_with(" |")) << all[i];
        }
        EXPECT_GE(tables, 3u);
    }
}

TEST(ReportMarkdown, DetailsAreBalancedAndContentCannotOpenTags) {
    const std::string md = renderMarkdown(sampleReport());
    size_t opened = 0, closed = 0;
    int depth = 0;
    for (const auto& line : lines(md)) {
        if (line.starts_with("<details")) {
            ++opened;
            ++depth;
            EXPECT_EQ(depth, 1) << "nested <details>";
            EXPECT_TRUE(contains(line, "<summary>") && line.ends_with("</summary>")) << line;
        }
        if (line == "</details>") {
            ++closed;
            --depth;
            EXPECT_GE(depth, 0);
        }
    }
    EXPECT_EQ(opened, closed);
    EXPECT_GE(opened, 8u);
    // driverInfo's "<details>" is escaped, or literal inside a code span (CommonMark reads no
    // HTML there), so every "<details" outside code is one of ours.
    EXPECT_EQ(count(outsideCode(md), "<details"), opened);
    EXPECT_TRUE(contains(md, "git-1234 &lt;details&gt;"));
    EXPECT_EQ(count(md, "<b>"), 1u) << "the validation message's <b>, inside its code block";
}

TEST(ReportMarkdown, HeadingCommandVerdictAndDetails) {
    const RunReport r = sampleReport();
    const std::string md = renderMarkdown(r);
    EXPECT_TRUE(
        md.starts_with("### repro: BUG REPRODUCED (exit 2) on AMD Radeon RX 6800 (RADV NAVI21), radv Mesa 24.0.5"))
        << md.substr(0, 200);
    EXPECT_TRUE(contains(md, "```sh\nRADV_DEBUG='nocache|syncshaders' repro -n 6 --device 'RX 6800'\n```\n"));
    for (const auto& line : r.verdict.lines) EXPECT_TRUE(contains(md, "\n" + line + "\n")) << line;
    // Validation text holds ``` itself: the fence around it is longer.
    EXPECT_TRUE(contains(md, "````text\nSYNC-HAZARD-READ-AFTER-WRITE | vkCmdDispatch ``` <b>\n````\n"));
    for (const char* summary :
         {"Device: every field", "Enabled extensions (2)", "Enabled features (1)", "Memory placements",
          "Shape and sizes", "Timings", "Driver environment variables (1)", "Host",
          "Kernel driver parameters and firmware", "Validation messages (0 errors, 1 warnings)", "Environment notes"}) {
        EXPECT_TRUE(contains(md, std::string("<summary>") + summary + "</summary>")) << summary;
    }
    EXPECT_TRUE(contains(md, "| amdgpu.lockup_timeout | `10000` |"));
    EXPECT_TRUE(contains(md, "| RADV_DEBUG | `nocache\\|syncshaders` |"));
    EXPECT_TRUE(contains(md, "| amdgpu.uni_mes | (empty) |"));
    EXPECT_TRUE(contains(md, "- VK_KHR_synchronization2\n"));
    EXPECT_FALSE(contains(md, "RADV_DEBUG=hang")) << "the hang note is for a hang only";
    EXPECT_TRUE(
        contains(md, "**WARNING: mode multipass submit 2 ran 6.500 s on the GPU, 65% of the amdgpu job watchdog"));
    EXPECT_TRUE(contains(md, "- **multipass**, under test: zero: every element is 0; split is not\n"));
    EXPECT_TRUE(md.ends_with("\n"));
}

TEST(ReportMarkdown, MinimalReportSaysWhatIsMissing) {
    const std::string md = renderMarkdown(minimalReport());
    EXPECT_TRUE(md.starts_with("### repro: cannot test / inconclusive (exit 125) on no device")) << md.substr(0, 120);
    EXPECT_TRUE(contains(md, "- GPU: `no device was created`\n"));
    EXPECT_TRUE(contains(md, "- Driver environment variables: `none set`\n"));
    EXPECT_TRUE(contains(md, "<summary>Driver environment variables (0)</summary>\n\nnone set\n"));
    EXPECT_TRUE(contains(md, "--- cannot test here: no Vulkan loader"));
    EXPECT_FALSE(contains(md, "Validation messages")) << "validation was off";
    EXPECT_FALSE(contains(md, "| mode | classification | nz | sum | max_abs | submits | wall s | GPU s |"));
}

// A hang says once, under Log files, where its evidence is (not again in the notes).
TEST(ReportMarkdown, HangSaysWhereItsEvidenceIsOnce) {
    RunReport r = sampleReport();
    r.verdict.exitStatus = kExitHang;
    r.environment.notes.push_back("hang evidence: kernel log: `sudo dmesg -T`");
    const std::string md = renderMarkdown(r);
    EXPECT_EQ(count(md, "Where this hang leaves evidence:"), 1u) << md;
    EXPECT_EQ(count(md, "RADV_DEBUG=hang"), 1u) << md;
    EXPECT_FALSE(contains(md, "Where a hang leaves evidence")) << md;
}

// What a reader sees of the reporter's paths (issue 23, item 1): home as ~, the system's
// own folders as they are, any other absolute path by its name, --dump-dir as asked.
TEST(IssueMarkdown, PathsAreTheReadersNotTheReporters) {
    EXPECT_EQ(portablePath("/home/me/build/repro", "/home/me"), "~/build/repro");
    EXPECT_EQ(portablePath("/home/me", "/home/me/"), "~");
    EXPECT_EQ(portablePath("/home/me2/x", "/home/me"), "x") << "not under /home/me";
    EXPECT_EQ(portablePath("/usr/share/vulkan/icd.d/radeon_icd.x86_64.json", "/home/me"),
              "/usr/share/vulkan/icd.d/radeon_icd.x86_64.json");
    EXPECT_EQ(portablePath("/srv/build/lib/libvulkan_radeon.so", "/home/me"), "libvulkan_radeon.so");
    EXPECT_EQ(portablePath("out/r.md", "/home/me"), "out/r.md");
    EXPECT_EQ(portablePathList("/home/me/a.json:/srv/b.json", "/home/me"), "~/a.json:b.json");
    EXPECT_EQ(withoutHome("in /home/me/x and /home/me2 and /home/me.", "/home/me"), "in ~/x and /home/me2 and ~.");
    EXPECT_EQ(withoutHome("/home/me/x", ""), "/home/me/x");
    EXPECT_EQ(withoutHome("/x", "/"), "/x");
    EXPECT_EQ(readerCommand({"/home/me/bin/repro", "-o", "/home/me/r.md", "--json=/srv/r.json", "--dump-dir",
                             "/home/me/d", "--spirv", "/srv/spv", "-n", "3"},
                            {{"VK_ICD_FILENAMES", "/home/me/icd.json"}}, "/home/me"),
              "VK_ICD_FILENAMES=~/icd.json repro -o ~/r.md --json=r.json --dump-dir ~/d --spirv spv -n 3");
}

// The steps say where the source is, the commit to check out and how to build it; without
// a recorded URL, how to record one.
TEST(IssueMarkdown, StepsNameTheSourceTheCommitAndTheBuild) {
    RunReport r = sampleReport();
    r.gitHash = "abc1234";
    const std::string md = renderMarkdown(r, {.sourceUrl = "https://example.org/repro.git", .home = "/home/me"});
    EXPECT_TRUE(contains(md,
                         "```sh\ngit clone https://example.org/repro.git repro && cd repro && git checkout "
                         "abc1234\n```\n"))
        << md;
    EXPECT_FALSE(contains(md, "uncommitted")) << md;
    EXPECT_TRUE(contains(md, "```sh\ncmake --preset release && cmake --build --preset release\n```\n")) << md;
    const std::string none = renderMarkdown(r, {.sourceUrl = "", .home = "/home/me"});
    EXPECT_TRUE(contains(none,
                         "recorded no source URL (configure it with `-DREPRO_SOURCE_URL=URL`, or set "
                         "`REPRO_SOURCE_URL` when running)"))
        << none;
}

// A build with uncommitted changes says so and gives no checkout line, which would build
// another binary than the one that ran.
TEST(IssueMarkdown, ADirtyBuildGetsNoCheckoutLine) {
    RunReport r = sampleReport();
    r.gitHash = "abc1234-dirty";
    const std::string md = renderMarkdown(r, {.sourceUrl = "https://example.org/repro.git", .home = "/home/me"});
    EXPECT_FALSE(contains(md, "git checkout")) << md;
    EXPECT_TRUE(contains(md, "```sh\ngit clone https://example.org/repro.git repro && cd repro\n```\n")) << md;
    EXPECT_TRUE(contains(md, "built from commit `abc1234` with uncommitted changes")) << md;
    EXPECT_TRUE(contains(md, "No checkout reproduces this binary")) << md;
}

// REPRO_SOURCE_URL in the environment names the source in place of the build's URL, and is
// not part of the command the reader runs.
TEST(IssueMarkdown, TheEnvironmentsSourceUrlWinsAndStaysOutOfTheCommand) {
    const char* before = std::getenv("REPRO_SOURCE_URL");
    const std::string saved = before ? before : "";
    ::setenv("REPRO_SOURCE_URL", "https://example.org/fork.git", 1);
    EXPECT_EQ(currentIssueContext().sourceUrl, "https://example.org/fork.git");
    if (before) {
        ::setenv("REPRO_SOURCE_URL", saved.c_str(), 1);
    } else {
        ::unsetenv("REPRO_SOURCE_URL");
    }
    EXPECT_EQ(readerCommand({"repro", "-n", "3"}, {{"REPRO_SOURCE_URL", "https://example.org/fork.git"}}, "/home/me"),
              "repro -n 3");
}

// The run's command without where its output went: every option that shapes the run stays,
// in order; the capture options go by name, in the table or not.
TEST(IssueMarkdown, TheCommandDropsTheOptionsThatOnlySayWhereOutputWent) {
    const std::vector<std::string> argv = {"/usr/bin/repro",
                                           "--format",
                                           "markdown",
                                           "-o",
                                           "out.md",
                                           "--json=r.json",
                                           "-n",
                                           "5",
                                           "--trace",
                                           "t.json",
                                           "--barrier",
                                           "sync2",
                                           "--capture-gfxr=c.gfxr",
                                           "--capture-rgp",
                                           "--dump-dir",
                                           "d",
                                           "--device",
                                           "1",
                                           "-q",
                                           "--mode=single"};
    EXPECT_EQ(rerunArguments(argv), (std::vector<std::string>{"/usr/bin/repro", "-n", "5", "--barrier", "sync2",
                                                              "--device", "1", "-q", "--mode=single"}));
    RunReport r = sampleReport();
    r.commandLine = argv;
    const std::string md = renderMarkdown(r, {.sourceUrl = "", .home = "/home/me"});
    EXPECT_TRUE(contains(md, " repro -n 5 --barrier sync2 --device 1 -q --mode=single\n```\n")) << md;
    EXPECT_FALSE(contains(md, "c.gfxr")) << md;
}

// The kernel log lines the run read are the Log files; without them, the commands.
TEST(IssueMarkdown, LogFilesHoldTheKernelLinesOrTheCommand) {
    RunReport r = sampleReport();
    r.modes[1].result.causeJson =
        R"({"kernel_log": {"readable": true, "problem": "", "kill_records": ["amdgpu: ring gfx_0.0.0 timeout"]}})";
    const std::string md = renderMarkdown(r);
    EXPECT_TRUE(contains(md,
                         "#### Log files\n\nThe GPU driver's kernel log lines repro read during the run:\n\n"
                         "```text\namdgpu: ring gfx_0.0.0 timeout\n```\n"))
        << md;
    r.modes[1].result.causeJson =
        R"({"kernel_log": {"readable": false, "problem": "cannot read /dev/kmsg: EPERM", "kill_records": []}})";
    EXPECT_TRUE(contains(renderMarkdown(r),
                         "repro could not read the kernel log during the run (cannot read "
                         "/dev/kmsg: EPERM). Get the lines of the run's time with `sudo dmesg -T`"))
        << renderMarkdown(r);
}

TEST(WatchdogWarnings, OnlyNearTheLimit) {
    RunReport r = sampleReport();
    EXPECT_EQ(watchdogWarnings(r).size(), 1u);
    r.modes[0].submitGpuSeconds = {0.5, 4.9};  // under half of 10 s
    EXPECT_TRUE(watchdogWarnings(r).empty());
    // A hang without timestamps after most of the watchdog's time is suspicious too.
    r.modes[1].result.kind = Classification::Hang;
    r.modes[1].result.wallSeconds = 9.8;
    const auto w = watchdogWarnings(r);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_TRUE(contains(w[0], "mode single lost the device after 9.80 s")) << w[0];
    // No card known: no watchdog, no warnings.
    r.environment.drmCards.clear();
    EXPECT_TRUE(watchdogWarnings(r).empty());
}

}  // namespace
}  // namespace repro

namespace repro {
namespace {

// The supervised child streams its report to the parent as JSON; the parent renders the
// documents from what it read back, so nothing may be lost on the way.
TEST(ReportJson, ParseIsTheInverseOfRender) {
    for (RunReport r : {sampleReport(), minimalReport(), experimentReport()}) {
        r.streams.push_back({.title = "mode single, N=2", .calls = {"vkBeginCommandBuffer(cb0, ONE_TIME_SUBMIT)"}});
        const nlohmann::json once = renderJson(r);
        const RunReport back = parseReport(once);
        EXPECT_EQ(renderJson(back).dump(), once.dump());
        EXPECT_EQ(renderMarkdown(back), renderMarkdown(parseReport(renderJson(back))));
    }
}

TEST(ReportJson, ParseNeverThrowsOnForeignInput) {
    for (const char* text : {"null", "[]", "{}", "{\"modes\": 3}", "{\"device\": {\"index\": \"x\"}}",
                             "{\"modes\": [{\"stats\": {\"sum\": \"NaN\", \"max_abs\": \"inf\"}}]}"}) {
        const RunReport r = parseReport(nlohmann::json::parse(text));
        (void)renderMarkdown(r);
        (void)renderJson(r);
    }
}

// The RADV issue template's fields: steps to reproduce with the driver environment, the PCI
// ID and revision, a regression line, and version strings that GitLab cannot turn into
// issue links.
TEST(Markdown, FollowsTheRadvIssueTemplate) {
    RunReport r = sampleReport();
    r.environment.host.emplace_back("kernel.version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1");
    r.environment.kernelDriver.emplace_back("card0.revision", "0xc1");
    const std::string md = renderMarkdown(r);
    EXPECT_TRUE(contains(md,
                         "\n```sh\nRADV_DEBUG='nocache|syncshaders' repro -n 6 "
                         "--device 'RX 6800'\n```\n"))
        << md;
    EXPECT_TRUE(contains(md, "PCI ID 1002:73bf rev c1")) << md;
    EXPECT_TRUE(contains(md, "- Kernel: `6.8.0-45-generic #1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1 x86_64`\n")) << md;
    EXPECT_TRUE(contains(md, "- repro: `0.1.0 (git abc1234)`\n")) << md;
    EXPECT_TRUE(contains(md, "#### Regression\n\nLast known good Mesa version or commit: ")) << md;
    // No triage ran: how to find out, not an answer.
    EXPECT_TRUE(contains(md, "#### Does RADV_DEBUG=llvm fix it?\n\nNot tested by this run.")) << md;
    size_t at = 0;
    for (const char* heading : {"### repro: ", "#### Description\n\nrepro ran ",
                                "#### System information\n\n- GPU: ", "- Mesa version: `Mesa 24.0.5",
                                "- Distro: ", "- Kernel: ", "#### Steps to reproduce\n\n",
                                "cmake --preset release && cmake --build --preset release", "#### Results\n\n",
                                "#### Does RADV_DEBUG=llvm fix it?", "#### Regression", "#### Log files\n\n"}) {
        const size_t found = md.find(heading, at);
        EXPECT_NE(found, std::string::npos) << "missing, or out of the template's order: " << heading;
        if (found != std::string::npos) at = found;
    }
    const std::regex issueReference("(^|[^&\\w])#[0-9]");
    const std::string prose = outsideCode(md);
    std::smatch m;
    EXPECT_FALSE(std::regex_search(prose, m, issueReference))
        << "a bare #N outside code: ..." << m.suffix().str().substr(0, 80);
}

TEST(Markdown, PciIdIsUnknownWithoutSysfsAndNoneForACpuDriver) {
    RunReport r = sampleReport();
    EXPECT_TRUE(contains(renderMarkdown(r), "PCI ID 1002:73bf rev unknown"));
    r.device->vendorId = 0x10005;
    EXPECT_TRUE(contains(renderMarkdown(r), "PCI ID none: vendorID 0x10005 is not a PCI vendor"));
}

}  // namespace
}  // namespace repro

namespace repro {
namespace {

// A report with every field of the JSON object set, somewhere, to a value other than its
// default (ReportJson.EveryFieldReportSetsEveryField checks that), its name -> value pairs
// in key order (a JSON object's) and each mode's cause line the one its cause object
// holds: what parseReport reads back of it must render the same JSON and Markdown.
RunReport everyFieldReport() {
    RunReport r = experimentReport();
    std::sort(r.environment.host.begin(), r.environment.host.end());
    r.environment.drmCards.push_back(DrmCard{.name = "card1"});  // sysfs said nothing else
    r.loader = {.version = "1.3.239",
                .driverLibraries = {"/usr/lib/x86_64-linux-gnu/libvulkan_radeon.so"},
                .problems = {"ERROR: libvulkan_intel.so: cannot open shared object file"}};
    r.device->index = 1;
    r.device->queueFamily = 1;
    r.device->memory[1].heapIndex = 1;
    r.device->driverLibrary = "/usr/lib/x86_64-linux-gnu/libvulkan_radeon.so";
    r.device->driverManifest = "/usr/share/vulkan/icd.d/radeon_icd.x86_64.json";
    r.shape = Shape{.batch = 2,
                    .channels = 64,
                    .height = 30,
                    .width = 240,
                    .kernelH = 5,
                    .kernelW = 6,
                    .strideH = 2,
                    .strideW = 3,
                    .padH = 1,
                    .padW = 1};
    r.sizes = computeSizes(r.shape);
    ModeResult& multipass = r.modes[0].result;
    multipass.cause = "cause: synchronization: a later dispatch read before the earlier one wrote";
    multipass.causeKind = "synchronization";
    multipass.causeJson =
        json{{"kind", "synchronization"},          {"killed", false},          {"verdict", multipass.cause},
             {"evidence", {"submit 2 ran 6.5 s"}}, {"missing", json::array()}, {"contradictions", json::array()}}
            .dump();
    multipass.runs = 3;
    multipass.wrongRuns = 2;
    r.device->timestampPeriodNs = 52.08333206176758;  // Intel's: GPU times to 10 ns
    multipass.identicalAcrossRuns = false;
    ModeResult& single = r.modes[1].result;
    single.stats->poisoned = 4;
    single.perDispatchCheckJson = json{{"state", "failed"},
                                       {"first_wrong", 3},
                                       {"seconds", 0.5},
                                       {"dispatches",
                                        {{{"dispatch", 3},
                                          {"step", 2},
                                          {"kind", "conv-T"},
                                          {"ok", false},
                                          {"line", "dispatch 3 (conv-T 2): 12 outside the bound"}}}}}
                                      .dump();
    r.validation.errors = 2;
    r.timings = {.instanceAndDevice = 0.25,
                 .pipelines = 0.5,
                 .buffersAndUpload = 0.125,
                 .recording = 0.0625,
                 .gpuWait = 6.5,
                 .readback = 0.03125,
                 .verification = 0.015625,
                 .total = -std::numeric_limits<double>::infinity(),
                 .reference = 1.5,
                 .teardown = 0.75,
                 .teardownDevice = 0.25};
    r.streams.push_back({.title = "mode single, N=2", .calls = {"vkBeginCommandBuffer(cb0, ONE_TIME_SUBMIT)"}});
    r.modes[0].canary = "VK_ERROR_DEVICE_LOST";
    r.captures.push_back({.tool = "rgp",
                          .path = "/tmp",
                          .files = {"/tmp/repro_1.rgp"},
                          .note = "run again in a child with MESA_VK_TRACE=rgp MESA_VK_TRACE_PER_SUBMIT=1"});
    r.foldedRuns.push_back(
        {.mode = Mode::Single, .point = "N=2", .firstRun = 21, .runs = 4, .wrongRuns = 1, .identical = false});
    r.mutants = MutantsReport{.mutants = {{.step = "5",
                                           .what = "step 5 (compute -> compute)",
                                           .weakening = "execution-only",
                                           .rerun = "--mutant 5:execution-only",
                                           .runs = 4,
                                           .wrong = 1,
                                           .outcome = "hung",
                                           .reason = "exit 3: GPU HANG"},
                                          {.step = "7",
                                           .what = "step 7 wait s (compute)",
                                           .weakening = "dst-stage-misses",
                                           .rerun = "--mutant 7:dst-stage-misses",
                                           .outcome = "not-run",
                                           .reason = "exit 125: CANNOT TEST HERE"}},
                              .skipped = {"step 5 no-src-access: its source access mask is empty already"},
                              .killed = 1,
                              .notRun = 1};
    return r;
}

// The text of a small scenario file.
const char* const kScenarioText =
    "name = \"kompute-196-increment-chain\"\n"
    "source = \"https://github.com/KomputeProject/kompute/issues/196\"\n"
    "pattern = \"three in-place increments of one buffer in one submit\"\n"
    "expected = \"not reproduced\"\n"
    "check = [\"data\"]\n";

// A scenario file's run report: the built-in's full report (sampleReport: multipass wrong)
// with every fact of the file set, a wait the file labels a control, the host reference's
// time and split's --check-steps object on the file.
RunReport scenarioReport() {
    RunReport r = sampleReport();
    std::sort(r.environment.host.begin(), r.environment.host.end());  // a JSON object's order
    r.commandLine = {"repro",
                     "--scenario",
                     "scenarios/kompute-196-increment-chain.toml",
                     "--mode",
                     "all",
                     "--repeat",
                     "3",
                     "--check-steps",
                     "--format",
                     "markdown",
                     "--device",
                     "1",
                     "--json=r.json"};
    r.preset.clear();
    r.chainLength = 0;
    r.referenceName = "the CPU model, and split";
    r.timings.reference = 0.0421;
    r.device->timestampPeriodNs = 1.0;
    r.modes[2].result.stepCheckJson =
        json{{"checked", 3}, {"wrong", 0}, {"not_checked", json::array()}, {"seconds", 0.0123456789}}.dump();
    r.scenario = ScenarioFacts{.name = "kompute-196-increment-chain",
                               .source = "https://github.com/KomputeProject/kompute/issues/196",
                               .pattern = "three in-place increments of one buffer in one submit",
                               .expected = "not reproduced",
                               .file = "scenarios/kompute-196-increment-chain.toml",
                               .fileBytes = std::string_view(kScenarioText).size(),
                               .fileSha256 = sha256Hex(kScenarioText),
                               .fileText = kScenarioText,
                               .steps = 5,
                               .controlSteps = "a wait",
                               .splitOnly = {"out"},
                               .chainValues = {{"data.x", "small[3]"}},
                               .queues = {"copier (family \"other\"): family 1 (TRANSFER), queue 0"},
                               .images = {"img: 64x16 r32ui, optimal tiling, checked"},
                               .poisoned = {"scratch"},
                               .parameters = {{"N", 1024}, {"WORK", 4}}};
    r.verdict.lines[0] = kCaughtLine;  // a labelled control's reproduction
    return r;
}

// A report of a run that hung: no device, no stats, a DRM card sysfs said nothing about.
RunReport hungReport() {
    RunReport r = minimalReport();
    r.modes.push_back(mode(Mode::Multipass, Classification::Hang, "lost the device", std::nullopt));
    r.modes.push_back(mode(Mode::Single, Classification::NotRun, "an earlier mode lost the device", std::nullopt));
    r.environment.drmCards.push_back(DrmCard{.name = "card0"});
    r.verdict.exitStatus = kExitHang;
    r.verdict.lines = {"--- GPU HANG: mode multipass lost the device"};
    return r;
}

// Calls `f(path, value)` for every leaf of `j` (a scalar, null, or an empty array or
// object), the path with array indices written "[]", so that every element of an array
// shares its path.
template <typename F>
void forEachLeaf(const json& j, const std::string& path, F&& f) {
    if (j.is_object() && !j.empty()) {
        for (const auto& [k, v] : j.items()) forEachLeaf(v, path + "." + k, f);
    } else if (j.is_array() && !j.empty()) {
        for (const auto& v : j) forEachLeaf(v, path + "[]", f);
    } else {
        f(path, j);
    }
}

// Every field renderJson writes, apart from the schema's name and version, takes a value
// other than its default somewhere in everyFieldReport: so the round trip below reads every
// one of them back. The defaults are a default report's, with one default element in each
// array of objects (and the optional objects present) so that their fields have paths too.
TEST(ReportJson, EveryFieldReportSetsEveryField) {
    RunReport defaults;
    defaults.device = DeviceReport{.memory = {MemoryPlacement{}}};
    defaults.environment.drmCards = {DrmCard{}};
    ModeReport m;
    m.result.stats = BufferStats{};
    m.modeGpuSeconds = 0.0;  // the "gpu" object is there, its arrays empty
    defaults.modes = {m};
    defaults.streams = {StreamReport{}};
    defaults.captures = {CaptureReport{}};
    defaults.scenario = ScenarioFacts{};
    defaults.modes[0].result.stepCheckJson = "{}";
    // The built-in's every field, and a scenario run's section and step check.
    std::multimap<std::string, json> every;
    for (const RunReport& r : {everyFieldReport(), scenarioReport()})
        forEachLeaf(renderJson(r), "", [&](const std::string& p, const json& v) { every.emplace(p, v); });
    size_t fields = 0;
    forEachLeaf(renderJson(defaults), "", [&](const std::string& path, const json& fallback) {
        ++fields;
        if (path == ".schema" || path == ".schema_version") return;
        // The same path with another value, or a path below it (a list or object where the
        // default has an empty one or null).
        bool found = false, differs = false;
        for (auto it = every.lower_bound(path); it != every.end() && it->first.starts_with(path); ++it) {
            const std::string_view rest = std::string_view(it->first).substr(path.size());
            if (!rest.empty() && rest[0] != '[' && rest[0] != '.') continue;
            found = true;
            differs = differs || !rest.empty() || it->second != fallback;
        }
        EXPECT_TRUE(found) << path << " is not in everyFieldReport's JSON";
        EXPECT_TRUE(differs) << path << " keeps its default " << fallback.dump() << " in everyFieldReport";
    });
    EXPECT_GT(fields, 100u);
}

TEST(ReportJson, EveryFieldReadsBackAndRendersTheSameDocuments) {
    const RunReport r = everyFieldReport();
    const RunReport back = parseReport(renderJson(r));
    EXPECT_EQ(renderJsonText(back), renderJsonText(r));
    EXPECT_EQ(renderMarkdown(back), renderMarkdown(r));
}

// What the object lacks, or holds with another type, keeps the RunReport's default (a
// default Shape, not zeros; no split_mib, not 0), and a list element that is not an object
// is a default one.
TEST(ReportJson, MissingOrMistypedFieldsKeepTheDefaults) {
    EXPECT_EQ(renderJsonText(parseReport(json::object())), renderJsonText(RunReport{}));
    RunReport oneMode;
    oneMode.modes.resize(2);
    const json foreign = json::parse(R"({"shape": {"batch": "x"}, "device": [], "reference": 3,
        "experiment": {"barrier": 3, "split_mib": "x", "host_wait": "no"},
        "modes": [{"runs": "x", "mode": "bogus", "wall_seconds": "soon", "stats": 3, "gpu": 1}, 7]})");
    EXPECT_EQ(renderJsonText(parseReport(foreign)), renderJsonText(oneMode));
}

// tests/unit/golden/`file`'s text; empty when it cannot be read.
std::string goldenText(const std::string& file) {
    std::ifstream in(std::string(REPRO_SOURCE_DIR) + "/tests/unit/golden/" + file, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// `text` against tests/unit/golden/`file`, byte for byte, naming the first line that
// differs. With REPRO_UPDATE_GOLDEN=1 in the environment it rewrites the file instead (then
// read the diff: every change in it is a change of a document).
void expectGolden(const std::string& text, const std::string& file) {
    if (const char* update = std::getenv("REPRO_UPDATE_GOLDEN"); update && std::string_view(update) == "1") {
        std::ofstream(std::string(REPRO_SOURCE_DIR) + "/tests/unit/golden/" + file, std::ios::binary) << text;
        return;
    }
    const std::string golden = goldenText(file);
    ASSERT_FALSE(golden.empty()) << "cannot read tests/unit/golden/" << file;
    if (text == golden) return;
    const auto got = lines(text), want = lines(golden);
    size_t i = 0;
    while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
    ADD_FAILURE() << file << " differs at line " << i + 1 << ":\n  golden: " << (i < want.size() ? want[i] : "(end)")
                  << "\n  now:    " << (i < got.size() ? got[i] : "(end)");
}

// The documents, byte for byte: a change to the renderers that changes a character of the
// JSON (indented or one line) or of the Markdown fails here.
TEST(ReportGolden, JsonAndMarkdownAreUnchanged) {
    for (const auto& [r, stem] :
         {std::pair{everyFieldReport(), "report_every_field"}, std::pair{hungReport(), "report_hung"},
          std::pair{scenarioReport(), "report_scenario"}}) {
        // A fixed source URL, home and current directory: the golden must not depend on the
        // clone, the user or where the test runs.
        const CommandLineContext folders{.home = "/home/reporter", .cwd = "/home/reporter/work"};
        expectGolden(renderJsonText(r, folders), std::string(stem) + ".json");
        const IssueContext context{
            .sourceUrl = "https://example.org/repro.git", .home = "/home/reporter", .cwd = "/home/reporter/work"};
        expectGolden(renderMarkdown(r, context), std::string(stem) + ".md");
        const std::string golden = goldenText(std::string(stem) + ".json");
        if (!golden.empty()) {
            EXPECT_EQ(renderJsonLine(r, folders), json::parse(golden).dump()) << stem;
        }
    }
}

TEST(ReportSchema, GoldenReportsMatchTheSchema) {
    const json schema = loadSchema();
    SchemaChecker checker(schema);
    for (const char* file : {"report_every_field.json", "report_hung.json", "report_scenario.json"}) {
        EXPECT_EQ(joinErrors(checker.check(json::parse(goldenText(file)))), "") << file;
    }
}

}  // namespace
}  // namespace repro

namespace repro {
namespace {

// ---- the one report of both input forms (schema version 3, issue 34 §2) ----------------------

// A scenario run's report: the scenario section with every fact, the file's step check in its
// mode, the reference's host time; and what the built-in's report writes for none.
TEST(ReportJson, AScenarioRunsReportHasItsScenarioSection) {
    const RunReport r = scenarioReport();
    const json j = parsedJson(r);
    EXPECT_EQ(j["schema"], "repro-report");
    const json& s = j["scenario"];
    EXPECT_EQ(s["name"], "kompute-196-increment-chain");
    EXPECT_EQ(s["source"], "https://github.com/KomputeProject/kompute/issues/196");
    EXPECT_EQ(s["pattern"], "three in-place increments of one buffer in one submit");
    EXPECT_EQ(s["expected"], "not reproduced");
    EXPECT_EQ(s["file"], "scenarios/kompute-196-increment-chain.toml");  // as given
    EXPECT_EQ(s["file_bytes"], std::string_view(kScenarioText).size());
    EXPECT_EQ(s["file_sha256"], sha256Hex(kScenarioText));
    EXPECT_EQ(s["file_text"], kScenarioText);
    EXPECT_EQ(s["steps"], 5);
    EXPECT_EQ(s["control_steps"], "a wait");
    EXPECT_EQ(s["split_only"], json({"out"}));
    // A buffer's name is the file's own, so a list of objects, never a key.
    EXPECT_EQ(s["chain_values"], json::parse(R"([{"buffer": "data.x", "value": "small[3]"}])"));
    EXPECT_EQ(s["queues"].size(), 1u);
    EXPECT_EQ(s["images"], json({"img: 64x16 r32ui, optimal tiling, checked"}));
    EXPECT_EQ(s["poisoned"], json({"scratch"}));
    EXPECT_EQ(s["parameters"], json::parse(R"({"N": 1024, "WORK": 4})"));
    EXPECT_EQ(j["modes"][2]["step_check"]["checked"], 3);
    EXPECT_TRUE(j["modes"][0]["step_check"].is_null());
    EXPECT_EQ(j["timings"]["reference"], 0.0421);
    EXPECT_EQ(j["device"]["timestamp_period_ns"], 1.0);
    // The wait the file labels a control makes the reproduction the control's.
    EXPECT_EQ(j["verdict"]["kind"], "control_caught");
    EXPECT_EQ(j["experiment"]["controls"],
              json({"the scenario file labels a wait a control (insufficient on purpose)"}));
    const json builtIn = parsedJson(sampleReport());
    EXPECT_TRUE(builtIn["scenario"].is_null());
    EXPECT_EQ(builtIn["verdict"]["kind"], "reproduced");
    EXPECT_TRUE(builtIn["experiment"]["controls"].empty());
}

TEST(ReportJson, AScenarioRunsReportReadsBackAndRendersTheSameDocuments) {
    const RunReport r = scenarioReport();
    const RunReport back = parseReport(renderJson(r));
    ASSERT_TRUE(back.scenario);
    EXPECT_EQ(back.scenario->chainValues, r.scenario->chainValues);
    EXPECT_EQ(back.scenario->parameters, r.scenario->parameters);
    EXPECT_EQ(back.scenario->fileText, r.scenario->fileText);
    EXPECT_EQ(back.timings.reference, r.timings.reference);
    EXPECT_EQ(renderJsonText(back), renderJsonText(r));
    const IssueContext context{.sourceUrl = "", .home = "/home/reporter", .cwd = ""};
    EXPECT_EQ(renderMarkdown(back, context), renderMarkdown(r, context));
}

TEST(ReportSchema, AScenarioRunsReportMatchesTheSchema) {
    const json schema = loadSchema();
    SchemaChecker checker(schema);
    EXPECT_EQ(joinErrors(checker.check(parsedJson(scenarioReport()))), "");
    RunReport bare = minimalReport();  // a file's run that ended before any facts but the file's
    bare.scenario = ScenarioFacts{.name = "x", .file = "/abs/x.toml"};
    EXPECT_EQ(joinErrors(checker.check(parsedJson(bare))), "");
    // The checker is not blind: a wrong type in the section is an error.
    json broken = parsedJson(scenarioReport());
    broken["scenario"]["steps"] = "5";
    EXPECT_NE(joinErrors(checker.check(broken)), "");
}

// Every dotted fact name is nested; a fact that is also the path of others' object is that
// object's "value"; each first-level entry is an object; and the facts read back.
TEST(ReportJson, DottedFactNamesAreNested) {
    RunReport r = minimalReport();
    r.environment.host = {{"os", "Debian GNU/Linux 12"},
                          {"os.id", "debian"},
                          {"kernel.release", "6.1.0"},
                          {"cpu", "unreadable (EACCES)"}};
    r.environment.kernelDriver = {{"card0.engine.rcs0.heartbeat_interval_ms", "2500"},
                                  {"card0", "pci 0000:00:02.0, vendor 0x8086"},
                                  {"card0.engine.rcs0", "odd"},
                                  {"drm", "not present (no /sys/class/drm/card*)"}};
    const json j = renderJson(r);
    const json& host = j["environment"]["host"];
    EXPECT_EQ(host, json::parse(R"j({"os": {"value": "Debian GNU/Linux 12", "id": "debian"},
                                    "kernel": {"release": "6.1.0"}, "cpu": {"value": "unreadable (EACCES)"}})j"));
    const json& kd = j["environment"]["kernel_driver"];
    EXPECT_EQ(kd["card0"]["value"], "pci 0000:00:02.0, vendor 0x8086");
    EXPECT_EQ(kd["card0"]["engine"]["rcs0"]["heartbeat_interval_ms"], "2500");
    EXPECT_EQ(kd["card0"]["engine"]["rcs0"]["value"], "odd");
    EXPECT_EQ(kd["drm"]["value"], "not present (no /sys/class/drm/card*)");
    // No key anywhere in the report's own objects holds a dot.
    std::function<void(const json&, const std::string&)> noDots = [&](const json& v, const std::string& path) {
        if (v.is_object()) {
            for (const auto& [k, x] : v.items()) {
                EXPECT_EQ(k.find('.'), std::string::npos) << path << "." << k;
                noDots(x, path + "." + k);
            }
        } else if (v.is_array()) {
            for (const auto& x : v) noDots(x, path + "[]");
        }
    };
    noDots(j, "");
    noDots(renderJson(sampleReport()), "");
    // Read back, the facts are the same, in name order.
    RunReport sorted = r;
    for (auto* facts : {&sorted.environment.host, &sorted.environment.kernelDriver})
        std::sort(facts->begin(), facts->end());
    const RunReport back = parseReport(j);
    EXPECT_EQ(back.environment.host, sorted.environment.host);
    EXPECT_EQ(back.environment.kernelDriver, sorted.environment.kernelDriver);
    // A version 2 object's flat dotted names read as they were.
    const RunReport old =
        parseReport(json::parse(R"({"environment": {"host": {"kernel.release": "6.8.0", "os": "x"}}})"));
    EXPECT_EQ(old.environment.host,
              (std::vector<std::pair<std::string, std::string>>{{"kernel.release", "6.8.0"}, {"os", "x"}}));
}

// Host times to the microsecond; GPU times to the decimal the timestamp period resolves (a
// nanosecond when it is unknown); a duration in an embedded object to the microsecond.
TEST(ReportJson, DurationsAreRoundedToWhatWasMeasured) {
    RunReport r = sampleReport();
    r.timings.gpuWait = 0.013288680999999998;
    r.timings.teardown = 0.7000004;
    r.timings.teardownDevice = 0.2500006;
    r.modes[0].result.wallSeconds = 1.2345675;
    r.modes[0].dispatchGpuSeconds = {0.00123456789, 2e-10};
    r.modes[0].result.causeJson =
        json{{"kind", "job_timeout"}, {"decisive_submit", {{"measured_seconds", 2.0000012345}, {"index", 1}}}}.dump();
    json j = renderJson(r);
    EXPECT_EQ(j["timings"]["gpu_wait"].dump(), "0.013289");
    EXPECT_EQ(j["modes"][0]["wall_seconds"].dump(), "1.234568");
    EXPECT_EQ(j["timings"]["teardown"].dump(), "0.7");
    EXPECT_EQ(j["timings"]["teardown_device"].dump(), "0.250001");
    EXPECT_NEAR(j["timings"]["teardown_device"].get<double>() + j["timings"]["teardown_instance"].get<double>(),
                j["timings"]["teardown"].get<double>(), 1e-12);
    EXPECT_EQ(j["modes"][0]["gpu"]["dispatch_seconds"].dump(), "[0.001234568,0.0]");  // 1 ns, unknown period
    EXPECT_EQ(j["modes"][0]["cause"]["decisive_submit"]["measured_seconds"].dump(), "2.000001");
    EXPECT_EQ(j["modes"][0]["cause"]["decisive_submit"]["index"], 1);
    EXPECT_EQ(j["timings"]["total"], "-inf");         // a non-finite value stays what it was
    r.device->timestampPeriodNs = 52.08333206176758;  // ticks of 52 ns: to 10 ns
    j = renderJson(r);
    EXPECT_EQ(j["modes"][0]["gpu"]["dispatch_seconds"].dump(), "[0.00123457,0.0]");
    r.device->timestampPeriodNs = 1000.0;  // to a microsecond
    EXPECT_EQ(renderJson(r)["modes"][0]["gpu"]["mode_seconds"].dump(), "6.5022");
    EXPECT_EQ(renderJson(r)["modes"][0]["gpu"]["dispatch_seconds"].dump(), "[0.001235,0.0]");
}

// command_line: the program by its base name, absolute paths under the current directory
// relative to it and under home as ~; other words as given.
TEST(ReportJson, CommandLineHoldsNoAbsolutePathOfTheReporter) {
    const CommandLineContext c{.home = "/home/me", .cwd = "/home/me/proj/"};
    EXPECT_EQ(portableCommandLine({"/home/me/build/src/repro", "--scenario", "/home/me/proj/cases/k.toml",
                                   "--json=/home/me/r.json", "-o/home/me/proj/out.md", "--spirv", "/home/me/proj",
                                   "--dump-dir", "/tmp/d", "--device", "/home/me2/x", "-n", "3"},
                                  c),
              (std::vector<std::string>{"repro", "--scenario", "cases/k.toml", "--json=~/r.json", "-oout.md", "--spirv",
                                        ".", "--dump-dir", "/tmp/d", "--device", "/home/me2/x", "-n", "3"}));
    // Idempotent, and "/" or "" shortens nothing.
    const auto once = portableCommandLine({"./repro", "/home/me/a", "/home/me/proj/b"}, c);
    EXPECT_EQ(portableCommandLine(once, c), once);
    EXPECT_EQ(portableCommandLine({"repro", "/x/y"}, {.home = "/", .cwd = ""}),
              (std::vector<std::string>{"repro", "/x/y"}));
    // renderJson writes it so; the report keeps argv as given.
    RunReport r = minimalReport();
    r.commandLine = {"/home/me/bin/repro", "--json", "/home/me/proj/r.json"};
    EXPECT_EQ(renderJson(r, c)["command_line"], json({"repro", "--json", "r.json"}));
}

// The rerun command keeps what shapes the run and leaves out where the output went, the
// device and a bisect step's options.
TEST(ReportMarkdown, ScenarioRerunArgumentsKeepWhatShapesTheRun) {
    EXPECT_EQ(
        scenarioRerunArguments({"/usr/bin/repro",
                                "--format",
                                "markdown",
                                "--scenario",
                                "/home/me/k.toml",
                                "--mode=single",
                                "-o",
                                "out.md",
                                "--json",
                                "r.json",
                                "--trace=t.json",
                                "--device",
                                "1",
                                "--invert",
                                "--expect-driver",
                                "radv",
                                "--repeat",
                                "20",
                                "--barrier",
                                "none",
                                "-q",
                                "--timings",
                                "--check-steps",
                                "--sweep",
                                "N=1..8",
                                "--timeout",
                                "5",
                                "--validation"},
                               "/home/me/k.toml", "k"),
        (std::vector<std::string>{"repro", "--scenario", "k.toml", "--mode=single", "--repeat", "20", "--barrier",
                                  "none", "--check-steps", "--sweep", "N=1..8", "--timeout", "5", "--validation"}));
    EXPECT_EQ(scenarioRerunArguments({"repro"}, "", "kompute"),
              (std::vector<std::string>{"repro", "--scenario", "kompute.toml"}));
}

// The Markdown of a scenario run: RADV's template with the file's name, source, pattern and
// expected verdict, the file itself collapsed with its SHA-256, the command that reruns it.
TEST(ReportMarkdown, AScenarioRunHasTheScenarioBlockAndItsRerunCommand) {
    RunReport r = scenarioReport();
    r.scenario->controlSteps.clear();
    const IssueContext context{.sourceUrl = "https://example.org/repro.git", .home = "/home/me", .cwd = ""};
    const std::string md = renderMarkdown(r, context);
    EXPECT_TRUE(md.starts_with("### repro scenario kompute-196-increment-chain: BUG REPRODUCED (exit 2) on AMD Radeon"))
        << md.substr(0, 200);
    EXPECT_TRUE(contains(md,
                         "#### Description\n\nrepro ran the scenario file kompute-196-increment-chain.toml (5 "
                         "steps) as multipass, single, split on AMD Radeon RX 6800 (RADV NAVI21)"))
        << md;
    EXPECT_TRUE(contains(md,
                         "\n- Scenario: kompute-196-increment-chain\n- Pattern: three in-place increments of one "
                         "buffer in one submit\n- Source: https://github.com/KomputeProject/kompute/issues/196\n"
                         "- Expected on a correct driver: not reproduced\n"))
        << md;
    const std::string sha = sha256Hex(kScenarioText);
    EXPECT_TRUE(contains(md, fmt::format("3. Save the scenario file below as `kompute-196-increment-chain.toml` ({} "
                                         "bytes, SHA-256 `{}`):\n\n<details><summary>The scenario file: "
                                         "kompute-196-increment-chain.toml</summary>\n\n```toml\n{}```\n",
                                         std::string_view(kScenarioText).size(), sha, kScenarioText)))
        << md;
    EXPECT_TRUE(
        contains(md,
                 "4. Run, with `build/release/src/repro` as `repro`:\n\n```sh\nRADV_DEBUG='nocache|syncshaders' "
                 "repro --scenario kompute-196-increment-chain.toml --mode all --repeat 3 "
                 "--check-steps\n```\n"))
        << md;
    EXPECT_TRUE(contains(md, "<summary>Scenario: every fact</summary>")) << md;
    EXPECT_TRUE(contains(md,
                         "| checked buffers | data.x (the chain's small\\[3\\]): within the CPU chain's float32 "
                         "tolerance; out: split only |"))
        << md;
    EXPECT_FALSE(contains(md, "<summary>Shape and sizes</summary>")) << md;
    EXPECT_TRUE(contains(md, "| host reference (before the modes) | 0.042 |")) << md;
    // The template's headings in order, as for the built-in chain.
    size_t at = 0;
    for (const char* heading :
         {"#### Description", "#### System information", "#### Steps to reproduce", "#### Results",
          "#### Does RADV_DEBUG=llvm fix it?", "#### Regression", "#### Log files"}) {
        const size_t found = md.find(heading, at);
        EXPECT_NE(found, std::string::npos) << heading;
        if (found != std::string::npos) at = found;
    }
    // A file's labelled control: the heading says the control was caught.
    EXPECT_TRUE(renderMarkdown(scenarioReport(), context)
                    .starts_with("### repro scenario kompute-196-increment-chain: CONTROL CAUGHT (exit 2)"));
}

// No path of the reporter's machine in a scenario run's Markdown: under a temporary HOME
// and current directory, every field that holds one (the file as given, the command line,
// a driver variable, the driver library, a reason, a validation message, a note) renders
// without the home, the current directory or another private absolute path.
TEST(ReportMarkdown, AScenarioRunShowsNoPathOfTheReportersMachine) {
    const test::TempFolder home("md-home");
    ASSERT_FALSE(home.path().empty());
    const std::filesystem::path work = home.path() / "proj";
    std::filesystem::create_directories(work);
    const std::string h = home.path().string(), w = work.string();
    const char* oldHome = std::getenv("HOME");
    const std::string savedHome = oldHome ? oldHome : "";
    const std::filesystem::path savedCwd = std::filesystem::current_path();
    ASSERT_EQ(::setenv("HOME", h.c_str(), 1), 0);
    std::filesystem::current_path(work);

    RunReport r = scenarioReport();
    r.scenario->file = w + "/cases/kompute.toml";
    r.commandLine = {h + "/bin/repro",
                     "--scenario",
                     w + "/cases/kompute.toml",
                     "--json",
                     "/srv/reports/r.json",
                     "--spirv",
                     w + "/spv",
                     "--format",
                     "markdown"};
    r.environment.variables = {{"VK_ICD_FILENAMES", h + "/icd/radeon.json:/srv/mesa/icd.json"}};
    r.device->driverLibrary = w + "/mesa/lib/libvulkan_radeon.so";
    r.device->driverManifest = "/srv/mesa/icd.json";
    r.modes[0].result.reason = "buffer 'a' differs (the file " + w + "/cases/kompute.toml, step 3)";
    r.validation.messages.push_back("loader: " + h + "/.local/share/vulkan/implicit_layer.d/x.json");
    r.environment.notes.push_back("read " + w + "/dump");
    const std::string md = renderMarkdown(r);

    std::filesystem::current_path(savedCwd);
    if (oldHome) {
        ::setenv("HOME", savedHome.c_str(), 1);
    } else {
        ::unsetenv("HOME");
    }
    EXPECT_FALSE(contains(md, h)) << md;
    EXPECT_FALSE(contains(md, w)) << md;
    EXPECT_FALSE(contains(md, "/srv/")) << md;
    // The run's options as a reader types them: home as ~, the file by its name.
    EXPECT_TRUE(contains(md,
                         "VK_ICD_FILENAMES=~/icd/radeon.json:icd.json repro --scenario kompute.toml --spirv "
                         "~/proj/spv\n"))
        << md;
    EXPECT_TRUE(contains(md, "Save the scenario file below as `kompute.toml`")) << md;
}

// The built-in chain's positive controls are named in the JSON and the Markdown.
TEST(ReportJson, AControlSaysWhatItIsAndItsReproductionIsControlCaught) {
    RunReport r = sampleReport();
    r.experiment.dropDispatch = 3;
    json j = renderJson(r);
    // multipass's line still says BUG REPRODUCED (the job timeout cut it short, or split is wrong):
    // that reproduction is not the control's
    EXPECT_EQ(j["verdict"]["kind"], "reproduced");
    EXPECT_TRUE(renderMarkdown(r).starts_with("### repro: BUG REPRODUCED (exit 2) on "));
    r.verdict.lines[0] = kCaughtLine;
    j = renderJson(r);
    EXPECT_EQ(j["verdict"]["kind"], "control_caught");
    EXPECT_EQ(j["experiment"]["control"], false);  // the barrier's, as before
    EXPECT_EQ(j["experiment"]["controls"], json({"--drop-dispatch 3: dispatch 3 left out of multipass and single"}));
    const std::string md = renderMarkdown(r);
    EXPECT_TRUE(md.starts_with("### repro: CONTROL CAUGHT (exit 2) on ")) << md.substr(0, 100);
    EXPECT_TRUE(contains(md,
                         "The run is a positive control: --drop-dispatch 3: dispatch 3 left out of multipass and "
                         "single. A wrong result shows"))
        << md;
    r.experiment = ExperimentReport{.barrier = "none", .control = true};
    r.verdict.exitStatus = kExitNotReproduced;
    j = renderJson(r);
    EXPECT_EQ(j["verdict"]["kind"], "not_reproduced");
    EXPECT_EQ(j["experiment"]["controls"][0],
              "--barrier none: no barrier between the dispatches of multipass and single (invalid Vulkan on purpose)");
    r.verdict.exitStatus = kExitHang;
    EXPECT_EQ(reportVerdictKind(r), VerdictKind::Hang);
}

}  // namespace
}  // namespace repro
