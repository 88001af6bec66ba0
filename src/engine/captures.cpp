// --capture-gfxr's line and --capture-rgp's child (see engine/captures.hpp).
#include "engine/captures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "children/child_run.hpp"
#include "children/experiments.hpp"
#include "core/output.hpp"
#include "reference/stats.hpp"

namespace repro {
namespace {

namespace fs = std::filesystem;

// Mesa's per-submit RGP trace: compute-only work has no present to mark a frame, so each
// submit is captured (Mesa docs/envvars.rst, MESA_VK_TRACE and MESA_VK_TRACE_PER_SUBMIT).
const std::vector<std::string> kRgpEnv{"MESA_VK_TRACE=rgp", "MESA_VK_TRACE_PER_SUBMIT=1"};

// The modes under test whose result was wrong (not a hang: the GPU would only hang again),
// each once, in the order they ran; under --repeat or --sweep a role is "under test, run 2/3"
// or "under test, N=5".
std::vector<Mode> wrongModes(const RunReport& r) {
    std::vector<Mode> out;
    for (const ModeReport& m : r.modes) {
        if (!m.role.starts_with("under test") || !isWrong(m.result.kind)) continue;
        if (std::find(out.begin(), out.end(), m.result.mode) == out.end()) out.push_back(m.result.mode);
    }
    return out;
}

// The .rgp files in kRgpFolder written at or after `since`, by name.
std::vector<std::string> rgpFilesSince(fs::file_time_type since) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(kRgpFolder, ec)) {
        std::error_code fileError;
        if (e.path().extension() != ".rgp" || !e.is_regular_file(fileError)) continue;
        if (e.last_write_time(fileError) >= since && !fileError) out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// "MESA_VK_TRACE=rgp MESA_VK_TRACE_PER_SUBMIT=1" as the child's own report recorded them, or
// what it lacked: the proof that the child ran under the trace.
std::string childTraceEnvironment(const ChildOutcome& child) {
    if (!child.report) return "no report from the child";
    std::string out;
    for (const std::string& want : kRgpEnv) {
        const std::string name = want.substr(0, want.find('='));
        const auto& vars = child.report->environment.variables;
        const auto it = std::find_if(vars.begin(), vars.end(), [&](const auto& v) { return v.first == name; });
        out += (out.empty() ? "" : " ") + (it == vars.end() ? name + " not set" : name + "=" + it->second);
    }
    return out;
}

CaptureReport rgpCapture(const Options& o, const Plan& plan, const RunReport& r) {
    CaptureReport c{.tool = "rgp"};
    const std::string driver = r.device ? r.device->driverName : std::string("unknown");
    if (!r.device || r.device->driverId != "DRIVER_ID_MESA_RADV") {
        c.note = fmt::format("not RADV (driver {}): MESA_VK_TRACE=rgp is RADV's trace", driver);
        return c;
    }
    const std::vector<Mode> modes = wrongModes(r);
    if (modes.empty()) {
        c.note = "no mode under test was wrong, so there is nothing to trace";
        return c;
    }
    const fs::path dir = makeLogDir("rgp");
    const fs::file_time_type since = fs::file_time_type::clock::now();
    std::string ran;
    for (const Mode mode : modes) {
        const ChildRun run{.options = o,
                           .factors = {.mode = mode},
                           .dir = dir,
                           .tag = fmt::format("rgp-{}", name(mode)),
                           .limitSeconds = childTimeLimit(o, plan, r.device->deviceType == "CPU"),
                           .env = kRgpEnv};
        const ChildOutcome child = runChild(run);
        ran += fmt::format("{}mode {} (exit {}; its environment: {})", ran.empty() ? "" : ", ", name(mode),
                           child.status, childTraceEnvironment(child));
    }
    c.path = kRgpFolder;
    c.files = rgpFilesSince(since);
    c.note = fmt::format("run again in a child with MESA_VK_TRACE=rgp MESA_VK_TRACE_PER_SUBMIT=1: {}; {}", ran,
                         c.files.empty() ? fmt::format("no .rgp file appeared in {}", kRgpFolder)
                                         : fmt::format("{} .rgp file(s) in {}", c.files.size(), kRgpFolder));
    finishLogDir(o, dir, c.files.empty() ? "no .rgp file appeared; the children's logs say what ran" : "");
    return c;
}

}  // namespace

void finishCaptures(const Options& o, const Plan& plan, RunReport& report) {
    if (o.captureGfxr && !report.captures.empty()) {
        say("--- capture: the run's GFXReconstruct capture is {} (gfxrecon-info and gfxrecon-replay read it)",
            *o.captureGfxr);
    }
    if (!o.captureRgp) return;
    CaptureReport rgp = rgpCapture(o, plan, report);
    say("--- capture: --capture-rgp: {}{}", rgp.path.empty() ? "none taken: " : "", rgp.note);
    for (const std::string& file : rgp.files) say("  {}", file);
    report.captures.push_back(std::move(rgp));
}

}  // namespace repro
