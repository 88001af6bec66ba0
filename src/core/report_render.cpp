// Markdown and JSON renderings of a RunReport (see report_render.hpp and
// docs/report-schema.md). Only reads the report; the environment helpers supply the
// job watchdog and the hang-evidence notes.
#include "core/report_render.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "core/environment.hpp"
#include "core/json_number.hpp"
#include "core/rust_format.hpp"

namespace repro {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------- JSON helpers

// A float as JSON: a number, or "NaN" / "inf" / "-inf", which JSON cannot hold.
json number(double x) { return jsonNumber(x); }

// A float32 as JSON: its shortest decimal form that reads back as the same float32
// (0.00031, not the widened 0.0003100000030826777), or the strings above.
json number(float x) {
    if (!std::isfinite(x)) return number(static_cast<double>(x));
    return std::strtod(fmt::format("{}", x).c_str(), nullptr);
}

json numbers(const std::vector<double>& xs) {
    json out = json::array();
    for (const double x : xs) out.push_back(number(x));
    return out;
}

json pairsObject(const std::vector<std::pair<std::string, std::string>>& pairs) {
    json out = json::object();
    for (const auto& [k, v] : pairs) {
        if (!out.contains(k)) out[k] = v;
    }
    return out;
}

json stringOrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json workgroups(const std::array<uint32_t, 3>& w) { return json::array({w[0], w[1], w[2]}); }

json deviceJson(const DeviceReport& d) {
    json memory = json::array();
    for (const auto& m : d.memory) {
        memory.push_back({{"buffer", m.buffer},
                          {"memory_class", m.memoryClass},
                          {"type_index", m.typeIndex},
                          {"type_flags", m.typeFlags},
                          {"heap_index", m.heapIndex},
                          {"heap_bytes", m.heapBytes},
                          {"heap_flags", m.heapFlags}});
    }
    return {{"index", d.index},
            {"device_name", d.deviceName},
            {"device_type", d.deviceType},
            {"api_version", d.apiVersion},
            {"driver_version", d.driverVersion},
            {"driver_version_raw", d.driverVersionRaw},
            {"vendor_id", d.vendorId},
            {"device_id", d.deviceId},
            {"driver_id", stringOrNull(d.driverId)},
            {"driver_name", d.driverName},
            {"driver_info", d.driverInfo},
            {"conformance_version", d.conformanceVersion},
            {"device_uuid", d.deviceUuid},
            {"driver_uuid", d.driverUuid},
            {"pci_bus", d.pciBus ? json(*d.pciBus) : json(nullptr)},
            {"queue_family", d.queueFamily},
            {"queue_flags", d.queueFlags},
            {"queue_note", d.queueNote},
            {"extensions", d.extensions},
            {"features", d.features},
            {"memory", memory},
            {"driver_library", d.driverLibrary ? json(*d.driverLibrary) : json(nullptr)},
            {"driver_manifest", d.driverManifest ? json(*d.driverManifest) : json(nullptr)}};
}

json watchdogJson(const std::optional<JobWatchdog>& w) {
    if (!w) return nullptr;
    return {{"driver", w->driver},
            {"seconds", w->seconds ? number(*w->seconds) : json(nullptr)},
            {"read", w->read},
            {"source", w->source}};
}

std::string hangEvidenceKey(const RunReport& r) {
    if (r.device && !r.device->driverName.empty()) return r.device->driverName;
    if (r.device) {
        if (const DrmCard* card = findDrmCard(r.environment, *r.device)) return card->driver;
    }
    for (const auto& card : r.environment.drmCards) {
        if (!card.driver.empty()) return card.driver;
    }
    return "";
}

std::optional<JobWatchdog> watchdogOf(const RunReport& r) {
    return jobWatchdogSeconds(r.environment, r.device ? &*r.device : nullptr);
}

json environmentJson(const RunReport& r) {
    const EnvironmentReport& e = r.environment;
    json cards = json::array();
    for (const auto& c : e.drmCards) {
        cards.push_back({{"name", c.name},
                         {"pci_slot", stringOrNull(c.pciSlot)},
                         {"vendor_id", c.vendorId ? json(*c.vendorId) : json(nullptr)},
                         {"device_id", c.deviceId ? json(*c.deviceId) : json(nullptr)},
                         {"driver", stringOrNull(c.driver)}});
    }
    return {{"host", pairsObject(e.host)},
            {"kernel_driver", pairsObject(e.kernelDriver)},
            {"drm_cards", cards},
            {"variables", pairsObject(e.variables)},
            {"notes", e.notes},
            {"job_watchdog", watchdogJson(watchdogOf(r))},
            {"hang_evidence", hangEvidenceNotes(hangEvidenceKey(r))}};
}

json statsJson(const BufferStats& s) {
    return {{"elements", s.elements}, {"non_zero", s.nonZero}, {"non_finite", s.nonFinite},  {"denormal", s.denormal},
            {"poisoned", s.poisoned}, {"sum", number(s.sum)},  {"max_abs", number(s.maxAbs)}};
}

bool hasGpuTimes(const ModeReport& m) {
    return !m.dispatchGpuSeconds.empty() || !m.submitGpuSeconds.empty() || m.modeGpuSeconds.has_value();
}

json modeJson(const ModeReport& m) {
    const ModeResult& r = m.result;
    json gpu = nullptr;
    if (hasGpuTimes(m)) {
        gpu = {{"dispatch_seconds", numbers(m.dispatchGpuSeconds)},
               {"submit_seconds", numbers(m.submitGpuSeconds)},
               {"mode_seconds", m.modeGpuSeconds ? number(*m.modeGpuSeconds) : json(nullptr)}};
    }
    return {{"mode", std::string(name(r.mode))},
            {"role", m.role},
            {"classification", std::string(name(r.kind))},
            {"reason", r.reason},
            {"stats", r.stats ? statsJson(*r.stats) : json(nullptr)},
            {"submits", r.submits},
            {"wall_seconds", number(r.wallSeconds)},
            {"runs", r.runs},
            {"wrong_runs", r.wrongRuns},
            {"identical_across_runs", r.identicalAcrossRuns},
            {"gpu", gpu},
            {"cause", r.causeJson.empty() ? json(nullptr) : json::parse(r.causeJson, nullptr, false)},
            {"per_dispatch_check",
             r.perDispatchCheckJson.empty() ? json(nullptr) : json::parse(r.perDispatchCheckJson, nullptr, false)}};
}

// ---------------------------------------------------------------- Markdown helpers

// Text outside code: HTML-significant characters become entities, Markdown-active ones
// are backslash-escaped, newlines become spaces. Safe in table cells and list items.
std::string escapeText(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '\\':
            case '`':
            case '*':
            case '|':
            case '[':
            case ']':
            case '~':
                out += '\\';
                out += c;
                break;
            case '\n':
            case '\r':
                out += ' ';
                break;
            default:
                out += c;
        }
    }
    return out;
}

// Prose with `code spans`: the spans are kept (a '|' in one is still escaped, as table
// cells need), the rest is escaped as escapeText does. An unpaired backtick is escaped.
std::string escapeProse(std::string_view s) {
    std::string out;
    size_t pos = 0;
    while (pos < s.size()) {
        const size_t open = s.find('`', pos);
        const size_t close = open == std::string_view::npos ? open : s.find('`', open + 1);
        if (close == std::string_view::npos) {
            out += escapeText(s.substr(pos));
            break;
        }
        out += escapeText(s.substr(pos, open - pos));
        std::string code(s.substr(open, close - open + 1));
        for (char& c : code) {
            if (c == '\n' || c == '\r') c = ' ';
        }
        for (size_t i = 0; i < code.size(); ++i) {
            if (code[i] == '|') out += '\\';
            out += code[i];
        }
        pos = close + 1;
    }
    return out;
}

// A fenced code block holding `text` verbatim; the fence is longer than any backtick
// run inside.
std::string codeBlock(std::string_view text, std::string_view info = "") {
    size_t longest = 0, run = 0;
    for (const char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(std::max<size_t>(3, longest + 1), '`');
    std::string out = fence + std::string(info) + "\n" + std::string(text);
    if (out.back() != '\n') out += '\n';
    return out + fence + "\n";
}

// A word the shell reads back unchanged.
std::string shellQuote(const std::string& arg) {
    const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
               std::string_view("_./=:,+-@%").find(c) != std::string_view::npos;
    });
    if (plain) return arg;
    std::string out = "'";
    for (const char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

struct Table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;  // cells already escaped

    std::string render() const {
        std::string out = "|";
        for (const auto& h : header) out += " " + h + " |";
        out += "\n|";
        for (size_t i = 0; i < header.size(); ++i) out += "---|";
        out += "\n";
        for (const auto& row : rows) {
            out += "|";
            for (size_t i = 0; i < header.size(); ++i) {
                const std::string cell = i < row.size() ? row[i] : "";
                out += " " + (cell.empty() ? std::string(" ") : cell) + " |";
            }
            out += "\n";
        }
        return out;
    }
};

std::string details(std::string_view summary, std::string_view body, bool open = false) {
    return fmt::format("<details{}><summary>{}</summary>\n\n{}\n</details>\n\n", open ? " open" : "",
                       escapeText(summary), body);
}

std::string valueOr(std::string_view value, std::string_view fallback) {
    return value.empty() ? std::string(fallback) : std::string(value);
}

const std::string* hostFact(const EnvironmentReport& e, std::string_view key) {
    for (const auto& [k, v] : e.host) {
        if (k == key) return &v;
    }
    return nullptr;
}

// `text` as a code span for a table cell: nothing in it is read as Markdown, so a kernel
// version's "#1 SMP" cannot become a link to issue 1 (GitLab Flavored Markdown turns a bare
// #N into an issue reference; GitLab docs, "GitLab-specific references"). '|' is escaped, as
// GFM tables need even inside a span; a span holding a backtick is fenced with two and
// padded (CommonMark 0.30, "Code spans"); new lines become spaces.
std::string codeSpan(std::string_view text) {
    std::string inner;
    for (const char c : text) {
        if (c == '|') inner += '\\';
        inner += (c == '\n' || c == '\r') ? ' ' : c;
    }
    if (inner.find('`') == std::string::npos) return "`" + inner + "`";
    return "`` " + inner + " ``";
}

std::string pairsTable(const std::vector<std::pair<std::string, std::string>>& pairs, std::string_view keyHeader) {
    Table t{{std::string(keyHeader), "value"}, {}};
    for (const auto& [k, v] : pairs) t.rows.push_back({escapeText(k), v.empty() ? "(empty)" : codeSpan(v)});
    return t.render();
}

std::string bulletList(const std::vector<std::string>& items, bool prose = false) {
    if (items.empty()) return "none\n";
    std::string out;
    for (const auto& item : items) out += "- " + (prose ? escapeProse(item) : escapeText(item)) + "\n";
    return out;
}

std::string statusWord(int exitStatus) {
    switch (exitStatus) {
        case kExitNotReproduced:
            return "not reproduced";
        case kExitUsage:
            return "usage error";
        case kExitReproduced:
            return "BUG REPRODUCED";
        case kExitHang:
            return "GPU HANG";
        case kExitValidation:
            return "validation messages";
        case kExitCannotTest:
            return "cannot test / inconclusive";
        default:
            return "unknown status";
    }
}

std::string percentText(const BufferStats& s) {
    if (s.elements == 0) return "0/0";
    const float percent = 100.0f * static_cast<float>(s.nonZero) / static_cast<float>(s.elements);
    return fmt::format("{}/{} ({}%)", s.nonZero, s.elements, rustFixed(percent, 1));
}

std::string seconds(double x, int decimals) {
    if (!std::isfinite(x)) return rustFixed(x, decimals);
    return fmt::format("{:.{}f}", x, decimals);
}

std::string hex(uint32_t v) { return fmt::format("0x{:04x}", v); }

// "1002:73bf rev c1": the PCI vendor:device and revision the Mesa issue template asks for,
// from the DRM card that matches the device (its sysfs "revision", core/environment.cpp);
// "unknown" parts where a CPU driver or an unreadable sysfs gives none.
std::string pciIdText(const EnvironmentReport& e, const DeviceReport& d) {
    if (d.vendorId > 0xffff) return fmt::format("none: vendorID 0x{:x} is not a PCI vendor", d.vendorId);
    std::string revision = "unknown";
    if (const DrmCard* card = findDrmCard(e, d)) {
        for (const auto& [k, v] : e.kernelDriver) {
            if (k == card->name + ".revision") revision = v.starts_with("0x") ? v.substr(2) : v;
        }
    }
    return fmt::format("{:04x}:{:04x} rev {}", d.vendorId, d.deviceId, revision);
}

std::string environmentTable(const RunReport& r, const std::optional<JobWatchdog>& watchdog) {
    const EnvironmentReport& e = r.environment;
    const auto fact = [&](std::string_view key) {
        const std::string* v = hostFact(e, key);
        return v ? *v : std::string("not captured");
    };
    Table t{{"environment", "value"}, {}};
    const auto row = [&](std::string_view k, const std::string& v) {
        t.rows.push_back({std::string(k), escapeText(v)});
    };
    // Version strings go in code spans (codeSpan): they carry '#', '*' and '_'.
    const auto code = [&](std::string_view k, const std::string& v) {
        t.rows.push_back({std::string(k), codeSpan(v)});
    };
    code("repro", fmt::format("{} (git {})", valueOr(r.version, "unknown"), valueOr(r.gitHash, "unknown")));
    row("OS", fact("os"));
    code("kernel", fmt::format("{} {} {}", fact("kernel.release"), fact("kernel.version"), fact("kernel.machine")));
    row("CPU", fact("cpu"));
    if (r.device) {
        const DeviceReport& d = *r.device;
        row("GPU", fmt::format("{} ({}, {}:{}{})", d.deviceName, d.deviceType, hex(d.vendorId), hex(d.deviceId),
                               d.pciBus ? ", " + *d.pciBus : std::string()));
        row("PCI ID", pciIdText(e, d));
        code("driver", fmt::format("{}; {}; {}", valueOr(d.driverName, "unknown"),
                                   valueOr(d.driverInfo, "no driverInfo"), valueOr(d.driverId, "driverID unknown")));
        code("driver version", fmt::format("{} (0x{:x})", d.driverVersion, d.driverVersionRaw));
        code("Vulkan", d.apiVersion);
    } else {
        row("GPU", "no device was created");
    }
    std::string kernelDriver = "no DRM card matched";
    if (r.device) {
        if (const DrmCard* card = findDrmCard(e, *r.device)) {
            kernelDriver = fmt::format("{} ({})", valueOr(card->driver, "unknown driver"), card->name);
        }
    }
    if (watchdog) {
        kernelDriver += fmt::format("; job watchdog {} ({})",
                                    watchdog->seconds ? fmt::format("{:g} s", *watchdog->seconds) : std::string("off"),
                                    watchdog->source);
    }
    row("kernel driver", kernelDriver);
    // Each NAME=value in a code span: a value such as "#1" must not become an issue link.
    if (e.variables.empty()) {
        row("driver env vars", "none set");
    } else {
        std::string vars;
        for (const auto& [k, v] : e.variables) vars += (vars.empty() ? "" : " ") + codeSpan(k + "=" + v);
        t.rows.push_back({"driver env vars", vars});
    }
    return t.render();
}

std::string resultsTable(const RunReport& r) {
    const bool gpu = std::any_of(r.modes.begin(), r.modes.end(), [](const ModeReport& m) { return hasGpuTimes(m); });
    Table t{{"mode", "classification", "nz", "sum", "max_abs", "submits", "wall s"}, {}};
    if (gpu) t.header.push_back("GPU s");
    for (const auto& m : r.modes) {
        const ModeResult& res = m.result;
        std::string mode(name(res.mode));
        if (!m.role.empty() && m.role != "under test") mode += ", " + m.role;
        std::vector<std::string> row{escapeText(mode), escapeText(name(res.kind))};
        if (res.stats) {
            row.push_back(escapeText(percentText(*res.stats)));
            row.push_back(escapeText(rustExp(res.stats->sum)));
            row.push_back(escapeText(rustExp(res.stats->maxAbs)));
        } else {
            row.insert(row.end(), {"-", "-", "-"});
        }
        row.push_back(fmt::to_string(res.submits));
        row.push_back(escapeText(seconds(res.wallSeconds, 2)));
        if (gpu) {
            double total = 0;
            for (const double s : m.submitGpuSeconds) total += s;
            row.push_back(m.modeGpuSeconds              ? escapeText(seconds(*m.modeGpuSeconds, 6))
                          : !m.submitGpuSeconds.empty() ? escapeText(seconds(total, 6))
                                                        : std::string("-"));
        }
        t.rows.push_back(std::move(row));
    }
    return t.render();
}

std::string deviceDetails(const DeviceReport& d) {
    Table t{{"field", "value"}, {}};
    const auto row = [&](std::string_view k, const std::string& v) {
        t.rows.push_back({std::string(k), escapeText(v)});
    };
    row("index", fmt::to_string(d.index));
    row("deviceName", d.deviceName);
    row("deviceType", d.deviceType);
    row("apiVersion", d.apiVersion);
    row("driverVersion", fmt::format("{} (0x{:x})", d.driverVersion, d.driverVersionRaw));
    row("vendorID", hex(d.vendorId));
    row("deviceID", hex(d.deviceId));
    row("driverID", valueOr(d.driverId, "unknown"));
    row("driverName", d.driverName);
    row("driverInfo", d.driverInfo);
    row("conformanceVersion", d.conformanceVersion);
    row("deviceUUID", d.deviceUuid);
    row("driverUUID", d.driverUuid);
    row("PCI bus", d.pciBus ? *d.pciBus : std::string("unknown (no VK_EXT_pci_bus_info)"));
    row("queue", fmt::format("family {} ({}){}", d.queueFamily, d.queueFlags,
                             d.queueNote.empty() ? std::string() : ": " + d.queueNote));
    row("driver library", d.driverLibrary ? *d.driverLibrary : std::string("not reported by the loader"));
    row("driver manifest", d.driverManifest ? *d.driverManifest : std::string("not reported by the loader"));
    return t.render();
}

std::string memoryDetails(const DeviceReport& d) {
    Table t{{"class", "type", "type flags", "heap", "heap MiB", "heap flags"}, {}};
    for (const auto& m : d.memory) {
        t.rows.push_back({escapeText(m.buffer.empty() ? m.memoryClass : m.buffer + " (" + m.memoryClass + ")"),
                          fmt::to_string(m.typeIndex), escapeText(m.typeFlags), fmt::to_string(m.heapIndex),
                          fmt::to_string(m.heapBytes >> 20), escapeText(m.heapFlags)});
    }
    return t.render();
}

std::string shapeDetails(const RunReport& r) {
    const Shape& s = r.shape;
    const ChainSizes& z = r.sizes;
    Table t{{"field", "value"}, {}};
    const auto row = [&](std::string_view k, const std::string& v) {
        t.rows.push_back({std::string(k), escapeText(v)});
    };
    row("preset", valueOr(r.preset, "none"));
    row("shape (B x C x H x W)", fmt::format("{} x {} x {} x {}", s.batch, s.channels, s.height, s.width));
    row("kernel, stride, padding",
        fmt::format("{}x{}, {}x{}, {}x{}", s.kernelH, s.kernelW, s.strideH, s.strideW, s.padH, s.padW));
    row("chain length", fmt::to_string(r.chainLength));
    const ExperimentReport& e = r.experiment;
    std::string experiment = fmt::format("barrier {}{}, memory {}, profile {}", e.barrier,
                                         e.control ? " (CONTROL: invalid on purpose)" : "", e.memory, e.profile);
    if (e.submitEvery) experiment += fmt::format(", submit every {}", e.submitEvery);
    if (e.splitMiB) experiment += fmt::format(", split at {} MiB", *e.splitMiB);
    if (e.submitEvery || e.splitMiB) experiment += e.hostWait ? ", host waits" : ", no host waits";
    if (e.dispatchRepeat > 1) experiment += fmt::format(", each conv-T x{}", e.dispatchRepeat);
    if (e.spirvDir) experiment += ", SPIR-V from " + *e.spirvDir;
    row("experiment", experiment);
    for (const auto& q : e.quirks) row("blade-exact quirk", q);
    row("reference", valueOr(r.referenceName, "none"));
    row("small", fmt::format("{} elements, {} bytes", z.smallElems, z.smallBytes));
    row("big", fmt::format("{} elements ({} x {}), {} bytes", z.bigElems, z.bigHeight, z.bigWidth, z.bigBytes));
    row("weight", fmt::format("{} elements, {} bytes", z.weightElems, z.weightBytes));
    row("conv-T workgroups",
        fmt::format("[{}, {}, {}]", z.convWorkgroups[0], z.convWorkgroups[1], z.convWorkgroups[2]));
    row("slice workgroups",
        fmt::format("[{}, {}, {}]", z.sliceWorkgroups[0], z.sliceWorkgroups[1], z.sliceWorkgroups[2]));
    return t.render();
}

std::string timingDetails(const RunReport& r) {
    const PhaseTimings& p = r.timings;
    Table t{{"phase", "seconds"}, {}};
    for (const auto& [k, v] :
         {std::pair{"instance and device", p.instanceAndDevice}, std::pair{"pipelines", p.pipelines},
          std::pair{"buffers and upload", p.buffersAndUpload}, std::pair{"recording", p.recording},
          std::pair{"GPU wait", p.gpuWait}, std::pair{"readback", p.readback},
          std::pair{"verification", p.verification}, std::pair{"total", p.total},
          std::pair{"teardown, after the total", p.teardown}, std::pair{"of it, the device's", p.teardownDevice},
          std::pair{"of it, the instance's (driver unload)", p.teardownInstance()}}) {
        t.rows.push_back({k, escapeText(seconds(v, 3))});
    }
    std::string out = t.render();
    for (const auto& m : r.modes) {
        if (!hasGpuTimes(m)) continue;
        Table g{{"item", "GPU seconds"}, {}};
        for (size_t i = 0; i < m.dispatchGpuSeconds.size(); ++i) {
            g.rows.push_back({fmt::format("dispatch {} ({} {})", i + 1, i % 2 == 0 ? "conv-T" : "slice", i / 2 + 1),
                              escapeText(seconds(m.dispatchGpuSeconds[i], 6))});
        }
        for (size_t i = 0; i < m.submitGpuSeconds.size(); ++i) {
            g.rows.push_back({fmt::format("submit {}", i + 1), escapeText(seconds(m.submitGpuSeconds[i], 6))});
        }
        if (m.modeGpuSeconds) g.rows.push_back({"mode", escapeText(seconds(*m.modeGpuSeconds, 6))});
        out += fmt::format("\nGPU time of mode {}:\n\n{}", name(m.result.mode), g.render());
    }
    return out;
}

}  // namespace

std::vector<std::string> watchdogWarnings(const RunReport& r) {
    std::vector<std::string> out;
    const auto watchdog = watchdogOf(r);
    if (!watchdog || !watchdog->seconds || !(*watchdog->seconds > 0)) return out;
    const double limit = *watchdog->seconds;
    const std::string what = fmt::format("the {} job watchdog ({:g} s, {})", watchdog->driver, limit, watchdog->source);
    for (const auto& m : r.modes) {
        const std::string_view mode = name(m.result.mode);
        for (size_t i = 0; i < m.submitGpuSeconds.size(); ++i) {
            const double s = m.submitGpuSeconds[i];
            if (s >= 0.5 * limit) {
                out.push_back(
                    fmt::format("WARNING: mode {} submit {} ran {:.3f} s on the GPU, {:.0f}% of {}: near it the "
                                "kernel resets the GPU and the mode reports a hang that is the watchdog's, not the "
                                "bug's; try a shorter chain (-n) or a smaller --preset",
                                mode, i + 1, s, 100.0 * s / limit, what));
            }
        }
        if (m.result.kind == Classification::Hang && m.submitGpuSeconds.empty() &&
            m.result.wallSeconds >= 0.5 * limit) {
            out.push_back(
                fmt::format("WARNING: mode {} lost the device after {:.2f} s (wall time of all its submits), at "
                            "least half of {}: the hang may be the watchdog ending a long submit; rerun with "
                            "--timestamps or a shorter chain (-n)",
                            mode, m.result.wallSeconds, what));
        }
    }
    return out;
}

json experimentJson(const ExperimentReport& e) {
    return {{"barrier", e.barrier},
            {"control", e.control},
            {"submit_every", e.submitEvery ? json(e.submitEvery) : json(nullptr)},
            {"split_mib", e.splitMiB ? number(*e.splitMiB) : json(nullptr)},
            {"host_wait", e.hostWait},
            {"memory", e.memory},
            {"dispatch_repeat", e.dispatchRepeat},
            {"profile", e.profile},
            {"spirv_dir", e.spirvDir ? json(*e.spirvDir) : json(nullptr)},
            {"quirks", e.quirks}};
}

json streamsJson(const std::vector<StreamReport>& streams) {
    json out = json::array();
    for (const auto& st : streams) out.push_back({{"title", st.title}, {"calls", st.calls}});
    return out;
}

namespace {

// The report's "shape" and "sizes" objects (docs/report-schema.md).
json shapeJson(const std::string& preset, const Shape& s) {
    return {{"preset", stringOrNull(preset)},
            {"batch", s.batch},
            {"channels", s.channels},
            {"height", s.height},
            {"width", s.width},
            {"kernel_h", s.kernelH},
            {"kernel_w", s.kernelW},
            {"stride_h", s.strideH},
            {"stride_w", s.strideW},
            {"pad_h", s.padH},
            {"pad_w", s.padW}};
}

json sizesJson(const ChainSizes& z) {
    return {{"big_height", z.bigHeight},
            {"big_width", z.bigWidth},
            {"small_elements", z.smallElems},
            {"big_elements", z.bigElems},
            {"weight_elements", z.weightElems},
            {"small_bytes", z.smallBytes},
            {"big_bytes", z.bigBytes},
            {"weight_bytes", z.weightBytes},
            {"conv_workgroups", workgroups(z.convWorkgroups)},
            {"slice_workgroups", workgroups(z.sliceWorkgroups)}};
}

}  // namespace

json renderJson(const RunReport& r) {
    json modes = json::array();
    for (const auto& m : r.modes) modes.push_back(modeJson(m));
    const PhaseTimings& p = r.timings;
    return {
        {"schema", "repro-report"},
        {"schema_version", kReportSchemaVersion},
        {"repro", {{"version", r.version}, {"git", r.gitHash}}},
        {"command_line", r.commandLine},
        {"environment", environmentJson(r)},
        {"loader",
         {{"version", r.loader.version},
          {"driver_libraries", r.loader.driverLibraries},
          {"problems", r.loader.problems}}},
        {"device", r.device ? deviceJson(*r.device) : json(nullptr)},
        {"shape", shapeJson(r.preset, r.shape)},
        {"sizes", sizesJson(r.sizes)},
        {"chain_length", r.chainLength},
        {"experiment", experimentJson(r.experiment)},
        {"reference", stringOrNull(r.referenceName)},
        {"modes", modes},
        {"validation",
         {{"enabled", r.validation.enabled},
          {"errors", r.validation.errors},
          {"warnings", r.validation.warnings},
          {"messages", r.validation.messages}}},
        {"timings",
         {{"instance_and_device", number(p.instanceAndDevice)},
          {"pipelines", number(p.pipelines)},
          {"buffers_and_upload", number(p.buffersAndUpload)},
          {"recording", number(p.recording)},
          {"gpu_wait", number(p.gpuWait)},
          {"readback", number(p.readback)},
          {"verification", number(p.verification)},
          {"total", number(p.total)},
          {"teardown", number(p.teardown)},
          {"teardown_device", number(p.teardownDevice)},
          {"teardown_instance", number(p.teardownInstance())}}},
        {"warnings", watchdogWarnings(r)},
        {"verdict", {{"exit_status", r.verdict.exitStatus}, {"lines", r.verdict.lines}}},
        {"streams", streamsJson(r.streams)},
    };
}

std::string renderJsonLine(const RunReport& r) {
    return renderJson(r).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string renderJsonText(const RunReport& r) {
    return renderJson(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string markdownText(std::string_view text) { return escapeText(text); }

std::string markdownTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    Table t;
    for (const auto& h : header) t.header.push_back(escapeText(h));
    for (const auto& row : rows) {
        std::vector<std::string> cells;
        for (const auto& cell : row) cells.push_back(escapeText(cell));
        t.rows.push_back(std::move(cells));
    }
    return t.render();
}

namespace {

// The RADV issue template's "Steps to reproduce": the exact command line, preceded by the
// driver environment variables it ran under, as one shell command.
std::string stepsToReproduce(const RunReport& r) {
    std::string command;
    for (const auto& [k, v] : r.environment.variables) command += k + "=" + shellQuote(v) + " ";
    std::string args;
    for (const auto& arg : r.commandLine) args += (args.empty() ? "" : " ") + shellQuote(arg);
    command += args.empty() ? "repro" : args;
    return "#### Steps to reproduce\n\n" + codeBlock(command, "sh") + "\n";
}

// The collapsed <details> sections after the verdict: device, shape, timings, environment,
// validation, hang evidence and environment notes.
std::string detailSections(const RunReport& r) {
    std::string out;
    if (r.device) {
        out += details("Device: every field", deviceDetails(*r.device));
        out += details(fmt::format("Enabled extensions ({})", r.device->extensions.size()),
                       bulletList(r.device->extensions));
        out += details(fmt::format("Enabled features ({})", r.device->features.size()), bulletList(r.device->features));
        out += details("Memory placements", memoryDetails(*r.device));
    }
    out += details("Shape and sizes", shapeDetails(r));
    out += details("Timings", timingDetails(r));
    const EnvironmentReport& e = r.environment;
    out += details(fmt::format("Driver environment variables ({})", e.variables.size()),
                   e.variables.empty() ? std::string("none set\n") : pairsTable(e.variables, "variable"));
    out += details("Host", e.host.empty() ? std::string("not captured\n") : pairsTable(e.host, "fact"));
    out += details("Kernel driver parameters and firmware",
                   e.kernelDriver.empty() ? std::string("not captured\n") : pairsTable(e.kernelDriver, "fact"));
    const ValidationSummary& v = r.validation;
    if (v.enabled) {
        std::string messages;
        for (const auto& m : v.messages) messages += m + "\n";
        out += details(fmt::format("Validation messages ({} errors, {} warnings)", v.errors, v.warnings),
                       v.messages.empty() ? std::string("none\n") : codeBlock(messages, "text"));
    }
    out += details("Where a hang leaves evidence", bulletList(hangEvidenceNotes(hangEvidenceKey(r)), true),
                   r.verdict.exitStatus == kExitHang);
    if (!e.notes.empty()) out += details("Environment notes", bulletList(e.notes, true));
    return out;
}

}  // namespace

std::string renderMarkdown(const RunReport& r) {
    const auto watchdog = watchdogOf(r);
    std::string out;
    std::string device = "no device";
    if (r.device) {
        device = r.device->deviceName;
        if (!r.device->driverName.empty() || !r.device->driverInfo.empty()) {
            device += fmt::format(", {} {}", r.device->driverName, r.device->driverInfo);
        }
    }
    out += fmt::format("### repro: {} (exit {}) on {}\n\n", statusWord(r.verdict.exitStatus), r.verdict.exitStatus,
                       escapeText(device));
    out += stepsToReproduce(r);
    out += environmentTable(r, watchdog) + "\n";
    out += resultsTable(r) + "\n";
    for (const auto& m : r.modes) {
        out += fmt::format("- **{}**{}: {}: {}\n", name(m.result.mode),
                           m.role.empty() ? std::string() : ", " + escapeText(m.role), name(m.result.kind),
                           escapeText(valueOr(m.result.reason, "no reason given")));
        if (!m.result.cause.empty()) out += fmt::format("  - {}\n", escapeText(m.result.cause));
    }
    if (!r.modes.empty()) out += "\n";
    std::string verdict;
    for (const auto& line : r.verdict.lines) verdict += line + "\n";
    out += "Verdict:\n\n" + codeBlock(verdict.empty() ? "(no verdict lines)\n" : verdict, "text") + "\n";
    for (const auto& w : watchdogWarnings(r)) out += "**" + escapeText(w) + "**\n\n";
    // RADV's template also asks whether RADV_DEBUG=llvm changes it: `--triage` answers that
    // in its own block (core/triage.hpp llvmAnswer).
    out += "Regression: last known good Mesa version or commit: (fill in, or \"unknown\")\n\n";
    for (const auto& st : r.streams) {
        std::string calls;
        for (const auto& c : st.calls) calls += c + "\n";
        out += details("Command stream: " + escapeText(st.title), codeBlock(calls, "text"));
    }

    out += detailSections(r);
    return out;
}

// ---------------------------------------------------------------- reading JSON back

namespace {

// j[key] when j is an object holding it, else null.
const json& member(const json& j, const char* key) {
    static const json none;
    if (!j.is_object()) return none;
    const auto it = j.find(key);
    return it == j.end() ? none : *it;
}

// The elements of j[key] when it is an array, else none.
std::vector<json> elements(const json& j, const char* key) {
    const json& m = member(j, key);
    return m.is_array() ? m.get<std::vector<json>>() : std::vector<json>{};
}

template <typename T>
T get(const json& j, const char* key, T fallback = T{}) {
    if (!j.is_object() || !j.contains(key)) return fallback;
    try {
        return j.at(key).get<T>();
    } catch (const json::exception&) {
        return fallback;
    }
}

double getNumber(const json& j, const char* key) {
    if (!j.is_object() || !j.contains(key)) return 0;
    const json& v = j.at(key);
    if (v.is_number()) return v.get<double>();
    if (v == "NaN") return std::nan("");
    if (v == "inf") return HUGE_VAL;
    if (v == "-inf") return -HUGE_VAL;
    return 0;
}

std::optional<double> getOptionalNumber(const json& j, const char* key) {
    if (!j.is_object() || !j.contains(key) || j.at(key).is_null()) return std::nullopt;
    return getNumber(j, key);
}

std::vector<double> getNumbers(const json& j, const char* key) {
    std::vector<double> out;
    if (!j.is_object() || !j.contains(key) || !j.at(key).is_array()) return out;
    for (const json& v : j.at(key)) {
        out.push_back(v.is_number() ? v.get<double>() : getNumber(json{{"v", v}}, "v"));
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> getPairs(const json& j, const char* key) {
    std::vector<std::pair<std::string, std::string>> out;
    if (!j.is_object() || !j.contains(key) || !j.at(key).is_object()) return out;
    for (const auto& [k, v] : j.at(key).items()) out.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    return out;
}

template <typename Enum, size_t N>
Enum byName(const std::string& text, const Enum (&values)[N], Enum fallback) {
    for (Enum v : values) {
        if (name(v) == text) return v;
    }
    return fallback;
}

DeviceReport parseDevice(const json& j) {
    DeviceReport d{.index = get<uint32_t>(j, "index"),
                   .deviceName = get<std::string>(j, "device_name"),
                   .deviceType = get<std::string>(j, "device_type"),
                   .apiVersion = get<std::string>(j, "api_version"),
                   .driverVersion = get<std::string>(j, "driver_version"),
                   .driverVersionRaw = get<uint32_t>(j, "driver_version_raw"),
                   .vendorId = get<uint32_t>(j, "vendor_id"),
                   .deviceId = get<uint32_t>(j, "device_id"),
                   .driverId = get<std::string>(j, "driver_id"),
                   .driverName = get<std::string>(j, "driver_name"),
                   .driverInfo = get<std::string>(j, "driver_info"),
                   .conformanceVersion = get<std::string>(j, "conformance_version"),
                   .deviceUuid = get<std::string>(j, "device_uuid"),
                   .driverUuid = get<std::string>(j, "driver_uuid"),
                   .queueFamily = get<uint32_t>(j, "queue_family"),
                   .queueFlags = get<std::string>(j, "queue_flags"),
                   .queueNote = get<std::string>(j, "queue_note"),
                   .extensions = get<std::vector<std::string>>(j, "extensions"),
                   .features = get<std::vector<std::string>>(j, "features")};
    if (member(j, "pci_bus").is_string()) d.pciBus = member(j, "pci_bus").get<std::string>();
    if (member(j, "driver_library").is_string()) d.driverLibrary = get<std::string>(j, "driver_library");
    if (member(j, "driver_manifest").is_string()) d.driverManifest = get<std::string>(j, "driver_manifest");
    for (const json& m : elements(j, "memory")) {
        d.memory.push_back({.buffer = get<std::string>(m, "buffer"),
                            .memoryClass = get<std::string>(m, "memory_class"),
                            .typeIndex = get<uint32_t>(m, "type_index"),
                            .typeFlags = get<std::string>(m, "type_flags"),
                            .heapIndex = get<uint32_t>(m, "heap_index"),
                            .heapBytes = get<uint64_t>(m, "heap_bytes"),
                            .heapFlags = get<std::string>(m, "heap_flags")});
    }
    return d;
}

EnvironmentReport parseEnvironment(const json& j) {
    EnvironmentReport e{.host = getPairs(j, "host"),
                        .kernelDriver = getPairs(j, "kernel_driver"),
                        .variables = getPairs(j, "variables"),
                        .notes = get<std::vector<std::string>>(j, "notes")};
    for (const json& c : elements(j, "drm_cards")) {
        DrmCard card{.name = get<std::string>(c, "name"),
                     .pciSlot = get<std::string>(c, "pci_slot"),
                     .driver = get<std::string>(c, "driver")};
        if (member(c, "vendor_id").is_number()) card.vendorId = get<uint32_t>(c, "vendor_id");
        if (member(c, "device_id").is_number()) card.deviceId = get<uint32_t>(c, "device_id");
        e.drmCards.push_back(std::move(card));
    }
    return e;
}

ModeReport parseMode(const json& j) {
    constexpr Mode modes[] = {Mode::Split, Mode::Multipass, Mode::Single};
    constexpr Classification kinds[] = {
        Classification::Ok,        Classification::Zero,         Classification::Mismatch,
        Classification::NonFinite, Classification::Unwritten,    Classification::Hang,
        Classification::NotRun,    Classification::Inconclusive, Classification::Killed};
    ModeReport m;
    ModeResult& r = m.result;
    r.mode = byName(get<std::string>(j, "mode"), modes, Mode::Split);
    r.kind = byName(get<std::string>(j, "classification"), kinds, Classification::NotRun);
    r.reason = get<std::string>(j, "reason");
    r.submits = get<uint64_t>(j, "submits");
    r.wallSeconds = getNumber(j, "wall_seconds");
    r.runs = get<uint32_t>(j, "runs", 1);
    r.wrongRuns = get<uint32_t>(j, "wrong_runs");
    r.identicalAcrossRuns = get<bool>(j, "identical_across_runs", true);
    if (const json& cause = member(j, "cause"); cause.is_object()) {
        r.causeJson = cause.dump();
        r.cause = get<std::string>(cause, "verdict");
        r.causeKind = get<std::string>(cause, "kind");
    }
    if (const json& check = member(j, "per_dispatch_check"); check.is_object()) r.perDispatchCheckJson = check.dump();
    m.role = get<std::string>(j, "role");
    if (member(j, "stats").is_object()) {
        const json& s = member(j, "stats");
        r.stats = BufferStats{.elements = get<uint64_t>(s, "elements"),
                              .nonZero = get<uint64_t>(s, "non_zero"),
                              .nonFinite = get<uint64_t>(s, "non_finite"),
                              .denormal = get<uint64_t>(s, "denormal"),
                              .poisoned = get<uint64_t>(s, "poisoned"),
                              .sum = getNumber(s, "sum"),
                              .maxAbs = static_cast<float>(getNumber(s, "max_abs"))};
    }
    if (const json& gpu = member(j, "gpu"); gpu.is_object()) {
        m.dispatchGpuSeconds = getNumbers(gpu, "dispatch_seconds");
        m.submitGpuSeconds = getNumbers(gpu, "submit_seconds");
        m.modeGpuSeconds = getOptionalNumber(gpu, "mode_seconds");
    }
    return m;
}

ExperimentReport parseExperiment(const json& j) {
    ExperimentReport e{.barrier = get<std::string>(j, "barrier", "blade"),
                       .submitEvery = get<uint32_t>(j, "submit_every"),
                       .splitMiB = getOptionalNumber(j, "split_mib"),
                       .hostWait = get<bool>(j, "host_wait", true),
                       .memory = get<std::string>(j, "memory", "blade"),
                       .dispatchRepeat = get<uint32_t>(j, "dispatch_repeat", 1),
                       .profile = get<std::string>(j, "profile", "default"),
                       .control = get<bool>(j, "control"),
                       .quirks = get<std::vector<std::string>>(j, "quirks")};
    if (member(j, "spirv_dir").is_string()) e.spirvDir = get<std::string>(j, "spirv_dir");
    return e;
}

Shape parseShape(const json& j) {
    return Shape{.batch = get<uint32_t>(j, "batch"),
                 .channels = get<uint32_t>(j, "channels"),
                 .height = get<uint32_t>(j, "height"),
                 .width = get<uint32_t>(j, "width"),
                 .kernelH = get<uint32_t>(j, "kernel_h"),
                 .kernelW = get<uint32_t>(j, "kernel_w"),
                 .strideH = get<uint32_t>(j, "stride_h"),
                 .strideW = get<uint32_t>(j, "stride_w"),
                 .padH = get<uint32_t>(j, "pad_h"),
                 .padW = get<uint32_t>(j, "pad_w")};
}

ChainSizes parseSizes(const json& j) {
    ChainSizes z{.bigHeight = get<uint32_t>(j, "big_height"),
                 .bigWidth = get<uint32_t>(j, "big_width"),
                 .smallElems = get<uint64_t>(j, "small_elements"),
                 .bigElems = get<uint64_t>(j, "big_elements"),
                 .weightElems = get<uint64_t>(j, "weight_elements"),
                 .smallBytes = get<uint64_t>(j, "small_bytes"),
                 .bigBytes = get<uint64_t>(j, "big_bytes"),
                 .weightBytes = get<uint64_t>(j, "weight_bytes")};
    z.convWorkgroups = get<std::array<uint32_t, 3>>(j, "conv_workgroups");
    z.sliceWorkgroups = get<std::array<uint32_t, 3>>(j, "slice_workgroups");
    return z;
}

}  // namespace

RunReport parseReport(const json& j) {
    RunReport r;
    r.version = get<std::string>(member(j, "repro"), "version");
    r.gitHash = get<std::string>(member(j, "repro"), "git");
    r.commandLine = get<std::vector<std::string>>(j, "command_line");
    r.environment = parseEnvironment(member(j, "environment"));
    const json& loader = member(j, "loader");
    r.loader = {.version = get<std::string>(loader, "version"),
                .driverLibraries = get<std::vector<std::string>>(loader, "driver_libraries"),
                .problems = get<std::vector<std::string>>(loader, "problems")};
    if (member(j, "device").is_object()) r.device = parseDevice(member(j, "device"));
    r.preset = get<std::string>(member(j, "shape"), "preset");
    r.shape = parseShape(member(j, "shape"));
    r.sizes = parseSizes(member(j, "sizes"));
    r.chainLength = get<uint32_t>(j, "chain_length");
    r.experiment = parseExperiment(member(j, "experiment"));
    r.referenceName = get<std::string>(j, "reference");
    for (const json& m : elements(j, "modes")) r.modes.push_back(parseMode(m));
    const json& v = member(j, "validation");
    r.validation = {.enabled = get<bool>(v, "enabled"),
                    .errors = get<uint64_t>(v, "errors"),
                    .warnings = get<uint64_t>(v, "warnings"),
                    .messages = get<std::vector<std::string>>(v, "messages")};
    const json& t = member(j, "timings");
    r.timings = {.instanceAndDevice = getNumber(t, "instance_and_device"),
                 .pipelines = getNumber(t, "pipelines"),
                 .buffersAndUpload = getNumber(t, "buffers_and_upload"),
                 .recording = getNumber(t, "recording"),
                 .gpuWait = getNumber(t, "gpu_wait"),
                 .readback = getNumber(t, "readback"),
                 .verification = getNumber(t, "verification"),
                 .total = getNumber(t, "total"),
                 .teardown = getNumber(t, "teardown"),
                 .teardownDevice = getNumber(t, "teardown_device")};
    const json& verdict = member(j, "verdict");
    r.verdict = {.exitStatus = get<int>(verdict, "exit_status"),
                 .lines = get<std::vector<std::string>>(verdict, "lines")};
    for (const json& st : elements(j, "streams")) {
        r.streams.push_back(
            {.title = get<std::string>(st, "title"), .calls = get<std::vector<std::string>>(st, "calls")});
    }
    return r;
}

}  // namespace repro
