// The kernel command line, cut down to the parameters that bear on a GPU driver, so that
// a report pasted into a public issue carries amdgpu.lockup_timeout=... but not
// root=UUID=..., a hostname or a disk layout.
#pragma once

#include <string>
#include <string_view>

namespace repro {

// The words of /proc/cmdline (separated by spaces, tabs or newlines; quoted words such as
// param="a b" are kept whole) whose name starts with a GPU-relevant prefix: a DRM driver's
// module parameters (amdgpu., radeon., i915., xe., nouveau., nvidia, nvidia-drm., drm.),
// the IOMMU switches (iommu, intel_iommu, amd_iommu), and video=, pci=, modprobe.blacklist=,
// nomodeset. The kept words are joined by one space; "none of N parameters is GPU-related"
// when nothing is kept (N: the number of words). Parameter names come from the Linux
// kernel's Documentation/admin-guide/kernel-parameters.txt and the drivers' module_param
// names (drivers/gpu/drm/*). Never throws for any input.
std::string gpuKernelParameters(std::string_view cmdline);

}  // namespace repro
