// The captures a driver developer asks for (docs/forensics.md "Captures"): --capture-gfxr's
// GFXReconstruct capture of the run (the layer itself is enabled by vk/instance.hpp), and
// --capture-rgp's Radeon GPU Profiler traces of a wrong mode, run again in a child on RADV.
#pragma once

#include "cli/options.hpp"
#include "report/report.hpp"
#include "scenario/plan.hpp"

namespace repro {

// The folder RADV writes its MESA_VK_TRACE files to (Mesa docs/envvars.rst, MESA_VK_TRACE:
// "Traces are dumped into /tmp"; https://docs.mesa3d.org/envvars.html).
inline constexpr const char* kRgpFolder = "/tmp";

// After the run (its status decided, before the documents are written): a line per capture,
// and each in report.captures. --capture-gfxr: where the capture is (the run got as far as
// creating the instance). --capture-rgp: on RADV (the report's driver id), each mode under
// test that was wrong is run again in a child (children/child_run.hpp) with
// MESA_VK_TRACE=rgp and MESA_VK_TRACE_PER_SUBMIT=1 added to the environment, and the .rgp
// files that appeared in kRgpFolder meanwhile are listed; elsewhere, or when no mode was
// wrong, one line says why none was taken. Never throws for a child's failure.
void finishCaptures(const Options& o, const Plan& plan, RunReport& report);

}  // namespace repro
