// gpuKernelParameters: what a pasted report keeps of /proc/cmdline.
#include <gtest/gtest.h>

#include "forensics/kernel_cmdline.hpp"

namespace repro {
namespace {

TEST(KernelCmdline, KeepsGpuParametersAndDropsPrivateOnes) {
    EXPECT_EQ(gpuKernelParameters("BOOT_IMAGE=/boot/vmlinuz-6.8.0 root=UUID=0b7c-11e2 ro quiet splash "
                                  "amdgpu.lockup_timeout=10000 amd_iommu=off hostname=lab-7 "
                                  "i915.enable_guc=3 video=DP-1:1920x1080 pci=noaer\n"),
              "amdgpu.lockup_timeout=10000 amd_iommu=off i915.enable_guc=3 video=DP-1:1920x1080 pci=noaer");
}

TEST(KernelCmdline, KeepsEveryDriverFamily) {
    EXPECT_EQ(gpuKernelParameters("radeon.modeset=1 xe.force_probe=* nouveau.config=NvGspRm=1 "
                                  "nvidia-drm.modeset=1 nvidia.NVreg_X=1 drm.debug=0x1e iommu=pt "
                                  "intel_iommu=on nomodeset modprobe.blacklist=nouveau"),
              "radeon.modeset=1 xe.force_probe=* nouveau.config=NvGspRm=1 nvidia-drm.modeset=1 "
              "nvidia.NVreg_X=1 drm.debug=0x1e iommu=pt intel_iommu=on nomodeset modprobe.blacklist=nouveau");
}

TEST(KernelCmdline, DropsLookAlikes) {
    // "xen" and "drmfoo" start like xe. and drm. but are other parameters.
    EXPECT_EQ(gpuKernelParameters("xen_pv=1 drmfoo=1 root=/dev/sda1"), "none of 3 parameters is GPU-related");
}

TEST(KernelCmdline, KeepsAQuotedValueWhole) {
    EXPECT_EQ(gpuKernelParameters("root=UUID=1 amdgpu.x=\"a b\" init=\"/bin/sh -c x\""), "amdgpu.x=\"a b\"");
}

TEST(KernelCmdline, EmptyAndBlankInput) {
    EXPECT_EQ(gpuKernelParameters(""), "none of 0 parameters is GPU-related");
    EXPECT_EQ(gpuKernelParameters(" \t\n"), "none of 0 parameters is GPU-related");
    EXPECT_EQ(gpuKernelParameters("\"unterminated amdgpu.x=1"), "none of 1 parameters is GPU-related");
}

}  // namespace
}  // namespace repro
