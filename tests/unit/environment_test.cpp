// Unit tests for src/core/environment.{hpp,cpp}: capture against a fake /etc, /proc and
// /sys built under a temporary directory and a fake environment (nothing of this
// machine's own files is read), hang-evidence notes and the job watchdog.
#include "forensics/environment.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace repro {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// The value of `key` in name -> value pairs; "<missing>" when absent.
std::string valueOf(const std::vector<std::pair<std::string, std::string>>& pairs, std::string_view key) {
    for (const auto& [k, v] : pairs) {
        if (k == key) return v;
    }
    return "<missing>";
}

bool anyNote(const EnvironmentReport& env, std::string_view part) {
    for (const auto& note : env.notes) {
        if (contains(note, part)) return true;
    }
    return false;
}

// A fake filesystem root in a fresh temporary directory, removed afterwards.
class FakeRoot : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "repro-env-test-XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        root_ = pattern;
    }
    void TearDown() override {
        std::error_code ec;
        // Give back permissions taken away by a test so the tree can be removed.
        for (auto it = fs::recursive_directory_iterator(root_, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
            fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
        }
        fs::remove_all(root_, ec);
    }

    // Writes `content` to <root>/<path>, creating the directories on the way.
    void write(std::string_view path, std::string_view content) {
        const fs::path full = root_ / fs::path(path).relative_path();
        fs::create_directories(full.parent_path());
        std::ofstream(full) << content;
    }
    void link(std::string_view path, const fs::path& target) {
        const fs::path full = root_ / fs::path(path).relative_path();
        fs::create_directories(full.parent_path());
        fs::create_symlink(target, full);
    }
    fs::path full(std::string_view path) const { return root_ / fs::path(path).relative_path(); }

    // Makes <root>/<path> unreadable: chmod 000 where that stops reads; as root (or with
    // CAP_DAC_OVERRIDE), where it does not, a directory takes the file's place.
    void makeUnreadable(std::string_view path) {
        const fs::path p = full(path);
        fs::permissions(p, fs::perms::none);
        if (::access(p.c_str(), R_OK) == 0) {
            fs::remove(p);
            fs::create_directory(p);
        }
    }

    EnvironmentSources sources(std::vector<std::string> environment = {}) const {
        EnvironmentSources s;
        s.root = root_;
        s.environment = std::move(environment);
        s.uname = UnameFacts{.sysname = "Linux",
                             .release = "6.8.0-45-generic",
                             .version = "#45-Ubuntu SMP PREEMPT_DYNAMIC",
                             .machine = "x86_64"};
        return s;
    }

    // A Ubuntu host with one amdgpu card (RX 6800 at 0000:03:00.0).
    void buildAmdgpuHost() {
        write("/etc/os-release",
              "NAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nPRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nID=ubuntu\n");
        write("/proc/cpuinfo",
              "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD Ryzen 9 5950X 16-Core Processor\n\n"
              "processor\t: 1\nmodel name\t: AMD Ryzen 9 5950X 16-Core Processor\n");
        write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 amdgpu.lockup_timeout=10000\n");
        write("/sys/module/amdgpu/parameters/lockup_timeout", "10000,60000,10000,10000\n");
        write("/sys/module/amdgpu/parameters/gpu_recovery", "-1\n");
        write("/sys/module/amdgpu/parameters/mes", "0\n");
        write("/sys/module/amdgpu/parameters/sched_hw_submission", "2\n");
        write("/sys/class/drm/card1/device/uevent", "DRIVER=amdgpu\nPCI_CLASS=30000\nPCI_SLOT_NAME=0000:03:00.0\n");
        write("/sys/class/drm/card1/device/vendor", "0x1002\n");
        write("/sys/class/drm/card1/device/device", "0x73bf\n");
        link("/sys/class/drm/card1/device/driver", "../../../../bus/pci/drivers/amdgpu");
        write("/sys/class/drm/card1/device/vbios_version", "113-D4120100-100\n");
        write("/sys/class/drm/card1/device/fw_version/mec_fw_version", "0x0000007a\n");
        write("/sys/class/drm/card1/device/fw_version/me_fw_version", "0x00000049\n");
        write("/sys/class/drm/card1-DP-1/status", "connected\n");  // a connector, not a card
        write("/sys/class/drm/renderD128/dev", "226:128\n");
    }

    fs::path root_;
};

TEST_F(FakeRoot, CapturesHostFacts) {
    buildAmdgpuHost();
    const EnvironmentReport env = captureEnvironment(sources());
    EXPECT_EQ(valueOf(env.host, "os"), "Ubuntu 24.04.1 LTS");
    EXPECT_EQ(valueOf(env.host, "os.id"), "ubuntu");
    EXPECT_EQ(valueOf(env.host, "os.version_id"), "24.04");
    EXPECT_EQ(valueOf(env.host, "kernel.release"), "6.8.0-45-generic");
    EXPECT_EQ(valueOf(env.host, "kernel.version"), "#45-Ubuntu SMP PREEMPT_DYNAMIC");
    EXPECT_EQ(valueOf(env.host, "kernel.machine"), "x86_64");
    EXPECT_EQ(valueOf(env.host, "cpu"), "AMD Ryzen 9 5950X 16-Core Processor");
    EXPECT_EQ(valueOf(env.host, "cpu.count"), "2");
    // Only the GPU-relevant parameter: BOOT_IMAGE and root= stay private.
    EXPECT_EQ(valueOf(env.host, "kernel.cmdline"), "amdgpu.lockup_timeout=10000");
}

TEST_F(FakeRoot, CapturesAmdgpuParametersCardsAndFirmware) {
    buildAmdgpuHost();
    const EnvironmentReport env = captureEnvironment(sources());
    EXPECT_EQ(valueOf(env.kernelDriver, "amdgpu.lockup_timeout"), "10000,60000,10000,10000");
    EXPECT_EQ(valueOf(env.kernelDriver, "amdgpu.gpu_recovery"), "-1");
    EXPECT_EQ(valueOf(env.kernelDriver, "amdgpu.mes"), "0");
    EXPECT_EQ(valueOf(env.kernelDriver, "amdgpu.sched_hw_submission"), "2");
    // A parameter this kernel does not have is said to be absent, not guessed.
    EXPECT_EQ(valueOf(env.kernelDriver, "amdgpu.uni_mes"), "not present (/sys/module/amdgpu/parameters/uni_mes)");
    // Modules that are not loaded: one line each.
    EXPECT_EQ(valueOf(env.kernelDriver, "i915"), "not present (/sys/module/i915)");
    EXPECT_EQ(valueOf(env.kernelDriver, "xe"), "not present (/sys/module/xe)");
    EXPECT_EQ(valueOf(env.kernelDriver, "nouveau"), "not present (/sys/module/nouveau)");
    EXPECT_EQ(valueOf(env.kernelDriver, "nvidia"), "not present (/sys/module/nvidia)");
    EXPECT_EQ(valueOf(env.kernelDriver, "i915.enable_hangcheck"), "<missing>");

    EXPECT_EQ(valueOf(env.kernelDriver, "card1"), "pci 0000:03:00.0, vendor 0x1002, device 0x73bf, driver amdgpu");
    EXPECT_EQ(valueOf(env.kernelDriver, "card1.vbios_version"), "113-D4120100-100");
    EXPECT_EQ(valueOf(env.kernelDriver, "card1.fw.mec_fw_version"), "0x0000007a");
    EXPECT_EQ(valueOf(env.kernelDriver, "card1.fw.me_fw_version"), "0x00000049");
    EXPECT_EQ(valueOf(env.kernelDriver, "card1-DP-1"), "<missing>");
    ASSERT_EQ(env.drmCards.size(), 1u);
    const DrmCard& card = env.drmCards[0];
    EXPECT_EQ(card.name, "card1");
    EXPECT_EQ(card.pciSlot, "0000:03:00.0");
    EXPECT_EQ(card.vendorId, 0x1002u);
    EXPECT_EQ(card.deviceId, 0x73bfu);
    EXPECT_EQ(card.driver, "amdgpu");
    // debugfs is root-only: the report says it was not read rather than guessing.
    EXPECT_TRUE(anyNote(env, "/sys/kernel/debug/dri")) << "no debugfs note";
}

TEST_F(FakeRoot, UnreadableFilesSaySoWithTheReason) {
    buildAmdgpuHost();
    makeUnreadable("/sys/module/amdgpu/parameters/lockup_timeout");
    makeUnreadable("/proc/cmdline");
    fs::remove(full("/sys/module/amdgpu/parameters/gpu_recovery"));
    link("/sys/module/amdgpu/parameters/gpu_recovery", "/nonexistent/target");
    const EnvironmentReport env = captureEnvironment(sources());

    const std::string lockup = valueOf(env.kernelDriver, "amdgpu.lockup_timeout");
    EXPECT_TRUE(lockup.starts_with("unreadable (")) << lockup;
    EXPECT_TRUE(lockup.ends_with(")")) << lockup;
    EXPECT_GT(lockup.size(), std::string("unreadable ()").size()) << "no reason given";
    EXPECT_EQ(valueOf(env.kernelDriver, "amdgpu.gpu_recovery"), "unreadable (broken symbolic link)");
    EXPECT_TRUE(valueOf(env.host, "kernel.cmdline").starts_with("unreadable (")) << valueOf(env.host, "kernel.cmdline");
    EXPECT_TRUE(anyNote(env, "amdgpu.lockup_timeout: unreadable ("));
    EXPECT_TRUE(anyNote(env, "/proc/cmdline unreadable ("));
    // The rest is still captured.
    EXPECT_EQ(valueOf(env.kernelDriver, "amdgpu.mes"), "0");

    // The watchdog's timeout is unknown then (the default cannot be told from an explicit
    // value), and the full answer says why.
    EXPECT_FALSE(jobWatchdogSeconds(env));
    const QueueWatchdog w = queueWatchdog(env, nullptr);
    EXPECT_EQ(w.driver, "amdgpu");
    EXPECT_EQ(w.timeout.kind, TimeoutKind::Unknown);
    EXPECT_TRUE(contains(w.timeout.source, "unreadable (")) << w.timeout.source;
}

TEST_F(FakeRoot, AmdgpuHostWatchdogUsesTheKernelRelease) {
    buildAmdgpuHost();
    EnvironmentSources s = sources();
    const EnvironmentReport env68 = captureEnvironment(s);
    const auto w68 = jobWatchdogSeconds(env68);
    ASSERT_TRUE(w68);
    EXPECT_EQ(w68->seconds, 10.0);
    EXPECT_TRUE(w68->read);
    write("/sys/module/amdgpu/parameters/lockup_timeout", "\n");
    s.uname.release = "6.19.0-rc3-foo";
    const auto w619 = jobWatchdogSeconds(captureEnvironment(s));
    ASSERT_TRUE(w619);
    EXPECT_EQ(w619->seconds, 2.0);
    EXPECT_FALSE(w619->read);
    EXPECT_EQ(w619->source, "kernel default for Linux 6.19+: 2000 ms (lockup_timeout empty)");
}

TEST_F(FakeRoot, EmptyRootReportsEverythingAsNotPresent) {
    EnvironmentSources s = sources();
    s.uname = UnameFacts{.error = "Function not implemented"};
    const EnvironmentReport env = captureEnvironment(s);
    EXPECT_EQ(valueOf(env.host, "os"), "not present (/etc/os-release)");
    EXPECT_EQ(valueOf(env.host, "kernel.release"), "unreadable (uname: Function not implemented)");
    EXPECT_EQ(valueOf(env.host, "cpu"), "not present (/proc/cpuinfo)");
    EXPECT_EQ(valueOf(env.host, "kernel.cmdline"), "not present (/proc/cmdline)");
    for (const char* module : {"amdgpu", "i915", "xe", "nouveau", "nvidia"}) {
        EXPECT_EQ(valueOf(env.kernelDriver, module), std::string("not present (/sys/module/") + module + ")");
    }
    EXPECT_EQ(valueOf(env.kernelDriver, "drm"), "not present (/sys/class/drm)");
    EXPECT_TRUE(env.drmCards.empty());
    EXPECT_TRUE(env.variables.empty());
    EXPECT_FALSE(jobWatchdogSeconds(env)) << "no GPU driver: no watchdog";
}

TEST_F(FakeRoot, OsReleaseFallsBackToUsrLibAndUnquotes) {
    write("/usr/lib/os-release", "NAME='Debian GNU/Linux'\nVERSION=\"12 (bookworm)\"\nID=debian\n");
    const EnvironmentReport env = captureEnvironment(sources());
    EXPECT_EQ(valueOf(env.host, "os"), "Debian GNU/Linux 12 (bookworm)");
    EXPECT_EQ(valueOf(env.host, "os.id"), "debian");
}

TEST_F(FakeRoot, CpuModelOnOtherArchitectures) {
    write("/proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 48.00\n\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0\n");
    const EnvironmentReport env = captureEnvironment(sources());
    EXPECT_EQ(valueOf(env.host, "cpu"), "Raspberry Pi 5 Model B Rev 1.0");

    write("/proc/cpuinfo", "processor\t: 0\nflags\t: fpu\n");
    const EnvironmentReport bare = captureEnvironment(sources());
    EXPECT_EQ(valueOf(bare.host, "cpu"), "not present (no model name in /proc/cpuinfo)");
}

TEST_F(FakeRoot, IntelCardsI915AndXe) {
    write("/sys/module/i915/parameters/enable_hangcheck", "Y\n");
    write("/sys/module/i915/parameters/reset", "3\n");
    write("/sys/class/drm/card0/device/uevent", "DRIVER=i915\nPCI_SLOT_NAME=0000:00:02.0\n");
    write("/sys/class/drm/card0/device/vendor", "0x8086\n");
    write("/sys/class/drm/card0/device/device", "0x9a49\n");
    link("/sys/class/drm/card0/device/driver", "../../../bus/pci/drivers/i915");
    write("/sys/class/drm/card0/engine/rcs0/heartbeat_interval_ms", "2500\n");
    write("/sys/class/drm/card0/engine/rcs0/preempt_timeout_ms", "640\n");
    write("/sys/class/drm/card0/engine/rcs0/stop_timeout_ms", "100\n");
    write("/sys/class/drm/card0/engine/vcs0/heartbeat_interval_ms", "2500\n");
    write("/sys/module/xe/parameters/force_probe", "e20b\n");
    write("/sys/class/drm/card2/device/uevent", "DRIVER=xe\nPCI_SLOT_NAME=0000:03:00.0\n");
    write("/sys/class/drm/card2/device/vendor", "0x8086\n");
    write("/sys/class/drm/card2/device/device", "0xe20b\n");  // no driver link: uevent says
    write("/sys/class/drm/card2/device/tile0/gt0/engines/rcs/job_timeout_ms", "5000\n");
    write("/sys/class/drm/card2/device/tile0/gt0/engines/ccs/job_timeout_ms", "4000\n");
    const EnvironmentReport env = captureEnvironment(sources());

    EXPECT_EQ(valueOf(env.kernelDriver, "i915.enable_hangcheck"), "Y");
    EXPECT_EQ(valueOf(env.kernelDriver, "i915.reset"), "3");
    EXPECT_EQ(valueOf(env.kernelDriver, "xe.force_probe"), "e20b");
    EXPECT_EQ(valueOf(env.kernelDriver, "card0.engine.rcs0.heartbeat_interval_ms"), "2500");
    EXPECT_EQ(valueOf(env.kernelDriver, "card0.engine.rcs0.preempt_timeout_ms"), "640");
    EXPECT_EQ(valueOf(env.kernelDriver, "card0.engine.vcs0.heartbeat_interval_ms"), "<missing>");
    EXPECT_EQ(valueOf(env.kernelDriver, "card2.tile0.gt0.rcs.job_timeout_ms"), "5000");
    EXPECT_EQ(valueOf(env.kernelDriver, "card2.tile0.gt0.ccs.job_timeout_ms"), "4000");
    EXPECT_EQ(valueOf(env.kernelDriver, "card2.tile0.gt0.rcs.preempt_timeout_us"),
              "not present (/sys/class/drm/card2/device/tile0/gt0/engines/rcs/preempt_timeout_us)");
    ASSERT_EQ(env.drmCards.size(), 2u);
    EXPECT_EQ(env.drmCards[1].driver, "xe");

    DeviceReport xe;
    xe.vendorId = 0x8086;
    xe.deviceId = 0xe20b;
    xe.pciBus = "0000:03:00.0";
    xe.queueFlags = "GRAPHICS|COMPUTE|TRANSFER";
    const auto xeWatchdog = jobWatchdogSeconds(env, &xe);
    ASSERT_TRUE(xeWatchdog);
    EXPECT_EQ(xeWatchdog->driver, "xe");
    EXPECT_EQ(xeWatchdog->seconds, 5.0);
    EXPECT_TRUE(xeWatchdog->read);
    xe.queueFlags = "COMPUTE|TRANSFER";
    EXPECT_EQ(jobWatchdogSeconds(env, &xe)->seconds, 4.0);

    DeviceReport igpu;
    igpu.vendorId = 0x8086;
    igpu.deviceId = 0x9a49;
    igpu.queueFlags = "GRAPHICS|COMPUTE|TRANSFER";
    const auto i915 = jobWatchdogSeconds(env, &igpu);
    ASSERT_TRUE(i915);
    EXPECT_EQ(i915->driver, "i915");
    EXPECT_EQ(i915->seconds, 2.5);
    EXPECT_TRUE(i915->read);
    EXPECT_TRUE(contains(i915->source, "card0.engine.rcs0.heartbeat_interval_ms")) << i915->source;
}

TEST_F(FakeRoot, NvidiaVersions) {
    write("/sys/module/nvidia/version", "550.54.14\n");
    write("/proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
          "GCC version:  gcc version 12.2.0\n");
    const EnvironmentReport env = captureEnvironment(sources());
    EXPECT_EQ(valueOf(env.kernelDriver, "nvidia.version"), "550.54.14");
    EXPECT_EQ(valueOf(env.kernelDriver, "nvidia.driver_version"),
              "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024");
}

TEST_F(FakeRoot, DriverVariablesFilteredAndSorted) {
    const EnvironmentReport env = captureEnvironment(sources({
        "RADV_DEBUG=hang",
        "HOME=/home/me",
        "VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/radeon_icd.x86_64.json",
        "VK_ICD_FILENAMES_EXTRA=1",  // not the exact name
        "MESA_VK_WSI_PRESENT_MODE=fifo",
        "VK_LOADER_DEBUG=all",
        "ACO_DEBUG=validateir",
        "NOTRADV_X=1",
        "PATH=/usr/bin",
        "malformed",
        "VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation",
        "RADV_DEBUG=second value is ignored",
        "AMD_DEBUG=",
    }));
    const std::vector<std::pair<std::string, std::string>> expected{
        {"ACO_DEBUG", "validateir"},
        {"AMD_DEBUG", ""},
        {"MESA_VK_WSI_PRESENT_MODE", "fifo"},
        {"RADV_DEBUG", "hang"},
        {"VK_ICD_FILENAMES", "/usr/share/vulkan/icd.d/radeon_icd.x86_64.json"},
        {"VK_INSTANCE_LAYERS", "VK_LAYER_KHRONOS_validation"},
        {"VK_LOADER_DEBUG", "all"},
    };
    EXPECT_EQ(env.variables, expected);
    EXPECT_FALSE(anyNote(env, "none set"));
}

TEST_F(FakeRoot, NoDriverVariablesSaysNoneSet) {
    const EnvironmentReport env = captureEnvironment(sources({"HOME=/root", "PATH=/usr/bin", "VK_ICD=1"}));
    EXPECT_TRUE(env.variables.empty());
    EXPECT_TRUE(anyNote(env, "driver environment variables: none set")) << "no 'none set' note";
}

TEST(DriverVariable, PrefixesAndExactNames) {
    for (const char* yes :
         {"RADV_PERFTEST", "ACO_DEBUG", "RADEON_FOO", "AMD_DEBUG", "MESA_LOADER_DRIVER_OVERRIDE", "INTEL_DEBUG",
          "ANV_QUEUE_OVERRIDE", "NVK_DEBUG", "NAK_DEBUG", "VK_LOADER_DEBUG", "VK_ICD_FILENAMES", "VK_DRIVER_FILES",
          "VK_INSTANCE_LAYERS", "VK_LAYER_PATH", "VK_ADD_LAYER_PATH"}) {
        EXPECT_TRUE(isDriverVariable(yes)) << yes;
    }
    for (const char* no : {"HOME", "RADV", "VK_ICD_FILENAMES2", "VK_LAYER_PATHS", "XRADV_DEBUG", "MESA", "VK_DEBUG"}) {
        EXPECT_FALSE(isDriverVariable(no)) << no;
    }
}

TEST(DefaultSources, AreThisHost) {
    // The defaults read this process's environment and uname; nothing is asserted about
    // their values, only that capture works on them without throwing.
    const EnvironmentSources s;
    EXPECT_EQ(s.root, fs::path("/"));
    EXPECT_FALSE(s.environment.empty());
    EXPECT_TRUE(s.uname.error.empty());
    EXPECT_FALSE(s.uname.release.empty());
}

// An environment report holding only `lockup` as amdgpu.lockup_timeout, the kernel release
// and one amdgpu card.
EnvironmentReport amdgpuEnv(std::optional<std::string> lockup, std::string release = "6.19.0-rc3-foo") {
    EnvironmentReport env;
    env.host.emplace_back("kernel.release", std::move(release));
    if (lockup) env.kernelDriver.emplace_back("amdgpu.lockup_timeout", *lockup);
    env.kernelDriver.emplace_back("card0", "pci 0000:03:00.0, vendor 0x1002, device 0x73bf, driver amdgpu");
    env.drmCards.push_back(DrmCard{
        .name = "card0", .pciSlot = "0000:03:00.0", .vendorId = 0x1002, .deviceId = 0x73bf, .driver = "amdgpu"});
    return env;
}

DeviceReport radv(std::string queueFlags = "GRAPHICS|COMPUTE|TRANSFER") {
    DeviceReport d;
    d.deviceType = "DISCRETE_GPU";
    d.vendorId = 0x1002;
    d.deviceId = 0x73bf;
    d.driverName = "radv";
    d.queueFlags = std::move(queueFlags);
    return d;
}

TEST(JobWatchdog, AmdgpuSingleValue) {
    // Linux 6.19+: one value sets every queue.
    const auto w = jobWatchdogSeconds(amdgpuEnv("10000"));
    ASSERT_TRUE(w);
    EXPECT_EQ(w->driver, "amdgpu");
    EXPECT_EQ(w->seconds, 10.0);
    EXPECT_TRUE(w->read);
    EXPECT_TRUE(w->source.starts_with("read from /sys/module/amdgpu/parameters/lockup_timeout")) << w->source;
    const DeviceReport compute = radv("COMPUTE|TRANSFER");
    const auto c = jobWatchdogSeconds(amdgpuEnv("10000"), &compute);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->seconds, 10.0);
    EXPECT_TRUE(c->read);
    // Before 6.19 one value covers the non-compute queues only: compute keeps its default.
    const auto old = jobWatchdogSeconds(amdgpuEnv("10000", "6.8.0-45-generic"), &compute);
    ASSERT_TRUE(old);
    EXPECT_EQ(old->seconds, 60.0);
    EXPECT_FALSE(old->read);
    EXPECT_TRUE(old->source.starts_with("kernel default for Linux 5.14-6.16: 60000 ms")) << old->source;
}

TEST(JobWatchdog, AmdgpuPerRingList) {
    const DeviceReport gfx = radv();
    const auto g = jobWatchdogSeconds(amdgpuEnv("10000,60000,10000,10000"), &gfx);
    ASSERT_TRUE(g);
    EXPECT_EQ(g->seconds, 10.0);
    EXPECT_TRUE(g->read);
    EXPECT_TRUE(contains(g->source, "the gfx value")) << g->source;
    const DeviceReport compute = radv("COMPUTE|TRANSFER");
    const auto c = jobWatchdogSeconds(amdgpuEnv("2000,60000,10000,10000"), &compute);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->seconds, 60.0);
    EXPECT_TRUE(c->read);
    EXPECT_TRUE(contains(c->source, "the compute value")) << c->source;
    EXPECT_EQ(jobWatchdogSeconds(amdgpuEnv("2500,5000"), &gfx)->seconds, 2.5);
    // The kernel accepts no spaces: with this value amdgpu initialises no device.
    EXPECT_FALSE(jobWatchdogSeconds(amdgpuEnv(" 2500 , 5000 "), &gfx));
}

TEST(JobWatchdog, AmdgpuZeroKeepsTheDefault) {
    const auto w = jobWatchdogSeconds(amdgpuEnv("0", "6.8.0"));
    ASSERT_TRUE(w);
    EXPECT_EQ(w->seconds, 10.0);
    EXPECT_FALSE(w->read);
    EXPECT_TRUE(w->source.starts_with("kernel default for Linux 5.14-6.16: 10000 ms")) << w->source;
    EXPECT_EQ(jobWatchdogSeconds(amdgpuEnv("0,5000"))->seconds, 2.0);
    // A lone 0 on 6.19+ is ambiguous (see watchdog.hpp): unknown.
    EXPECT_FALSE(jobWatchdogSeconds(amdgpuEnv("0")));
}

TEST(JobWatchdog, AmdgpuEmptyIsTheKernelsDefault) {
    const auto now = jobWatchdogSeconds(amdgpuEnv(""));
    ASSERT_TRUE(now);
    EXPECT_EQ(now->seconds, 2.0);
    EXPECT_FALSE(now->read);
    const auto before = jobWatchdogSeconds(amdgpuEnv("", "6.18.1"));
    ASSERT_TRUE(before);
    EXPECT_EQ(before->seconds, 10.0);
}

TEST(JobWatchdog, AmdgpuUnknownWhenNotReadableRejectedOrNoKernel) {
    for (const auto& lockup :
         {std::optional<std::string>(),
          std::optional<std::string>("not present (/sys/module/amdgpu/parameters/lockup_timeout)"),
          std::optional<std::string>("unreadable (Permission denied)"), std::optional<std::string>("garbage")}) {
        const EnvironmentReport env = amdgpuEnv(lockup);
        EXPECT_FALSE(jobWatchdogSeconds(env)) << lockup.value_or("<missing>");
        const QueueWatchdog w = queueWatchdog(env, nullptr);
        EXPECT_EQ(w.timeout.kind, TimeoutKind::Unknown) << lockup.value_or("<missing>");
        EXPECT_FALSE(w.timeout.source.empty());
    }
    EXPECT_FALSE(jobWatchdogSeconds(amdgpuEnv("5000", "garbage")));
}

TEST(JobWatchdog, AmdgpuNegativeDisablesIt) {
    const auto w = jobWatchdogSeconds(amdgpuEnv("-1"));
    ASSERT_TRUE(w);
    EXPECT_FALSE(w->seconds);
    EXPECT_TRUE(w->read);
    EXPECT_TRUE(contains(w->source, "no timeout")) << w->source;
}

TEST(QueueWatchdog, NamesTheRingAndCarriesTheFullAnswer) {
    const DeviceReport gfx = radv();
    const QueueWatchdog w = queueWatchdog(amdgpuEnv(""), &gfx);
    EXPECT_EQ(w.driver, "amdgpu");
    EXPECT_EQ(w.ring, "amdgpu gfx ring (gfx_0.0.0 on RADV)");
    EXPECT_EQ(w.timeout.kind, TimeoutKind::Limit);
    EXPECT_EQ(w.timeout.milliseconds, 2000);
    EXPECT_EQ(queueWatchdog(amdgpuEnv(""), &gfx, QueueKind::Compute).ring, "amdgpu compute ring (comp_X.Y.Z)");
    EXPECT_EQ(queueWatchdog(amdgpuEnv(""), &gfx, QueueKind::Other).timeout.kind, TimeoutKind::Unknown);

    DeviceReport lavapipe;
    lavapipe.deviceType = "CPU";
    const QueueWatchdog cpu = queueWatchdog(amdgpuEnv(""), &lavapipe);
    EXPECT_EQ(cpu.driver, "lavapipe");
    EXPECT_EQ(cpu.timeout.kind, TimeoutKind::NoLimit);
    EXPECT_TRUE(contains(cpu.timeout.source, "no known timeout")) << cpu.timeout.source;

    EnvironmentReport nv;
    nv.drmCards.push_back(DrmCard{.name = "card0", .vendorId = 0x10de, .deviceId = 0x2684, .driver = "nvidia"});
    EXPECT_EQ(queueWatchdog(nv, nullptr).timeout.kind, TimeoutKind::Unknown);
    nv.drmCards[0].driver = "nouveau";
    EXPECT_EQ(queueWatchdog(nv, nullptr).timeout.kind, TimeoutKind::NoLimit);
    EXPECT_EQ(queueWatchdog(EnvironmentReport{}, nullptr).timeout.kind, TimeoutKind::Unknown);
}

TEST(JobWatchdog, DeviceSelectsTheCard) {
    const EnvironmentReport env = amdgpuEnv("5000");
    DeviceReport d = radv();
    EXPECT_EQ(jobWatchdogSeconds(env, &d)->seconds, 5.0);
    d.pciBus = "0000:03:00.0";
    EXPECT_EQ(jobWatchdogSeconds(env, &d)->seconds, 5.0);
    d.pciBus = "0000:04:00.0";  // another GPU that sysfs did not show
    EXPECT_FALSE(jobWatchdogSeconds(env, &d));
    DeviceReport lavapipe;
    lavapipe.deviceType = "CPU";
    lavapipe.vendorId = 0x10005;
    EXPECT_FALSE(jobWatchdogSeconds(env, &lavapipe));
}

TEST(JobWatchdog, I915HangcheckOff) {
    EnvironmentReport env;
    env.kernelDriver = {{"i915.enable_hangcheck", "N"}, {"card0.engine.rcs0.heartbeat_interval_ms", "2500"}};
    env.drmCards.push_back(DrmCard{.name = "card0", .vendorId = 0x8086, .deviceId = 0x9a49, .driver = "i915"});
    const auto w = jobWatchdogSeconds(env);
    ASSERT_TRUE(w);
    EXPECT_FALSE(w->seconds);
    EXPECT_TRUE(w->read);
    env.kernelDriver[0].second = "Y";
    EXPECT_EQ(jobWatchdogSeconds(env)->seconds, 2.5);
}

TEST(JobWatchdog, NoneForNvidiaAndNouveau) {
    EnvironmentReport env;
    env.drmCards.push_back(DrmCard{.name = "card0", .vendorId = 0x10de, .deviceId = 0x2684, .driver = "nvidia"});
    EXPECT_FALSE(jobWatchdogSeconds(env));
    env.drmCards[0].driver = "nouveau";
    EXPECT_FALSE(jobWatchdogSeconds(env));
}

TEST(FindDrmCard, ByBusThenByIds) {
    EnvironmentReport env;
    env.drmCards.push_back(DrmCard{
        .name = "card0", .pciSlot = "0000:0a:00.0", .vendorId = 0x1002, .deviceId = 0x73bf, .driver = "amdgpu"});
    env.drmCards.push_back(DrmCard{
        .name = "card1", .pciSlot = "0000:0b:00.0", .vendorId = 0x1002, .deviceId = 0x73bf, .driver = "amdgpu"});
    env.drmCards.push_back(
        DrmCard{.name = "card2", .pciSlot = "0000:00:02.0", .vendorId = 0x8086, .deviceId = 0x9a49, .driver = "i915"});
    DeviceReport d = radv();
    EXPECT_EQ(findDrmCard(env, d), nullptr) << "two identical GPUs cannot be told apart by ID";
    d.pciBus = "0000:0B:00.0";
    ASSERT_NE(findDrmCard(env, d), nullptr);
    EXPECT_EQ(findDrmCard(env, d)->name, "card1");
    DeviceReport intel;
    intel.vendorId = 0x8086;
    intel.deviceId = 0x9a49;
    ASSERT_NE(findDrmCard(env, intel), nullptr);
    EXPECT_EQ(findDrmCard(env, intel)->name, "card2");
}

std::string joined(const std::vector<std::string>& notes) {
    std::string out;
    for (const auto& n : notes) out += n + "\n";
    return out;
}

TEST(HangEvidence, Amdgpu) {
    for (const char* driver : {"radv", "RADV", "amdgpu", "AMD open-source driver"}) {
        const std::string notes = joined(hangEvidenceNotes(driver));
        EXPECT_TRUE(contains(notes, "dmesg")) << driver;
        EXPECT_TRUE(contains(notes, "journalctl -k")) << driver;
        EXPECT_TRUE(contains(notes, "ring gfx_0.0.0 timeout")) << driver;
        EXPECT_TRUE(contains(notes, "comp_1.")) << driver;
        EXPECT_TRUE(contains(notes, "GPU reset")) << driver;
        EXPECT_TRUE(contains(notes, "RADV_DEBUG=hang")) << driver;
        EXPECT_TRUE(contains(notes, "$HOME/radv_dumps_<pid>_<time>")) << driver;
        EXPECT_TRUE(contains(notes, "umr")) << driver;
    }
}

TEST(HangEvidence, OtherDrivers) {
    EXPECT_TRUE(contains(joined(hangEvidenceNotes("Intel open-source Mesa driver")), "/sys/class/drm/card0/error"));
    EXPECT_TRUE(contains(joined(hangEvidenceNotes("i915")), "/sys/class/drm/card0/error"));
    EXPECT_TRUE(contains(joined(hangEvidenceNotes("NVIDIA")), "Xid"));
    EXPECT_TRUE(contains(joined(hangEvidenceNotes("NVK")), "nouveau"));
    EXPECT_FALSE(contains(joined(hangEvidenceNotes("NVK")), "Xid"));
    const auto lavapipe = hangEvidenceNotes("llvmpipe");
    ASSERT_EQ(lavapipe.size(), 1u);
    EXPECT_TRUE(lavapipe[0].starts_with("none")) << lavapipe[0];
    EXPECT_TRUE(contains(joined(hangEvidenceNotes("some future driver")), "dmesg"));
    EXPECT_TRUE(contains(joined(hangEvidenceNotes("")), "dmesg"));
}

}  // namespace
}  // namespace repro
