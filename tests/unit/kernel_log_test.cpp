// Unit tests for src/core/kernel_log.{hpp,cpp}: /dev/kmsg and dmesg/journalctl parsing,
// the reader on a regular file (the test seam) and on /dev/kmsg, and the GPU-event
// classifier on kernel log lines copied from public reports (each cites where it is
// from), plus lines that must not match.
#include "forensics/kernel_log.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "gpu_event_builder.hpp"

namespace repro {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// ---- Parsing --------------------------------------------------------------------------

TEST(KmsgRecord, PrefixMessageAndDictionary) {
    const auto r = parseKmsgRecord(
        "3,1234,5071443221,-,caller=T42;amdgpu 0000:c2:00.0: ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=2\n"
        " SUBSYSTEM=pci\n DEVICE=+pci:0000:c2:00.0\n");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->level, 3);
    EXPECT_EQ(r->sequence, 1234u);
    ASSERT_TRUE(r->monotonicSeconds);
    EXPECT_DOUBLE_EQ(*r->monotonicSeconds, 5071.443221);
    EXPECT_EQ(r->text, "amdgpu 0000:c2:00.0: ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=2");
    // Facility bits are masked off the level; \xNN escapes are decoded.
    const auto esc = parseKmsgRecord("30,7,1,c;a\\x5cb\\x0ac");
    ASSERT_TRUE(esc);
    EXPECT_EQ(esc->level, 6);
    EXPECT_EQ(esc->text, "a\\b\nc");
}

TEST(KmsgRecord, RejectsOtherText) {
    for (const char* bad : {"garbage", "3,1,2;no flags", "3,x,2,-;msg", ",1,2,-;msg", "3;msg", ""}) {
        EXPECT_FALSE(parseKmsgRecord(bad)) << bad;
    }
}

TEST(KmsgRecord, TakesEverySequenceNumberOf64BitsAndRejectsALongerOne) {
    const auto largest = parseKmsgRecord("6,18446744073709551615,1,-;msg");  // 2^64 - 1
    ASSERT_TRUE(largest);
    EXPECT_EQ(largest->sequence, UINT64_MAX);
    EXPECT_FALSE(parseKmsgRecord("6,18446744073709551616,1,-;msg"));  // 2^64
    EXPECT_FALSE(parseKmsgRecord("6,-1,1,-;msg"));
}

// One line of a kernel log and what parseLogLine must make of it.
struct ParsedLine {
    const char* line;
    std::optional<double> monotonicSeconds;
    std::string wallClock, text;
};

void expectParsed(const std::vector<ParsedLine>& cases) {
    for (const ParsedLine& c : cases) {
        const auto r = parseLogLine(c.line);
        ASSERT_TRUE(r) << c.line;
        if (c.monotonicSeconds) {
            ASSERT_TRUE(r->monotonicSeconds) << c.line;
            EXPECT_DOUBLE_EQ(*r->monotonicSeconds, *c.monotonicSeconds) << c.line;
        }
        EXPECT_EQ(r->wallClock, c.wallClock) << c.line;
        EXPECT_EQ(r->text, c.text) << c.line;
    }
}

TEST(LogLine, DmesgFormats) {
    expectParsed({
        {"[ 5071.443221] amdgpu 0000:c2:00.0: amdgpu: [gfxhub] page fault", 5071.443221, "",
         "amdgpu 0000:c2:00.0: amdgpu: [gfxhub] page fault"},
        {"[Wed Sep  2 09:32:42 2026] amdgpu 0000:c5:00.0: Starting comp_1.1.0 ring reset", std::nullopt,
         "Wed Sep  2 09:32:42 2026", "amdgpu 0000:c5:00.0: Starting comp_1.1.0 ring reset"},
        {"2026-09-02T09:32:42,123456+02:00 amdgpu 0000:c5:00.0: GPU reset begin!", std::nullopt,
         "2026-09-02T09:32:42,123456+02:00", "amdgpu 0000:c5:00.0: GPU reset begin!"},
    });
}

TEST(LogLine, JournalctlFormats) {
    expectParsed({
        // Localised month and a host name, as journalctl prints them (llama.cpp #21724).
        {"maj 08 19:27:35 RX-78-FPC kernel: amdgpu 0000:c2:00.0: Ring gfx_0.0.0 reset succeeded", std::nullopt,
         "maj 08 19:27:35", "amdgpu 0000:c2:00.0: Ring gfx_0.0.0 reset succeeded"},
        // A kernel timestamp after "kernel: " is kept.
        {"Oct 23 15:24:29 111 kernel: [15879.824397] NVRM: Xid (0000:00:05): 13, 0000", 15879.824397, "Oct 23 15:24:29",
         "NVRM: Xid (0000:00:05): 13, 0000"},
        {"2026-07-23T13:37:49+0200 host kernel: amdgpu: ring gfx_0.0.0 timeout", std::nullopt,
         "2026-07-23T13:37:49+0200", "amdgpu: ring gfx_0.0.0 timeout"},
    });
}

TEST(LogLine, BareMessagesAndBlanks) {
    const auto bare = parseLogLine("  amdgpu 0000:01:00.0: ring comp_1.2.1 timeout, but soft recovered\n");
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->text, "amdgpu 0000:01:00.0: ring comp_1.2.1 timeout, but soft recovered");
    EXPECT_FALSE(bare->monotonicSeconds);
    EXPECT_FALSE(parseLogLine(""));
    EXPECT_FALSE(parseLogLine("   \t "));
}

TEST(LogText, KmsgRecordsAndLinesMixed) {
    const auto records =
        parseLogText("3,10,100,-;first\n SUBSYSTEM=pci\n DEVICE=+pci:0000:03:00.0\n[  1.5] second\n\nthird\n");
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[0].text, "first");
    EXPECT_EQ(records[1].text, "second");
    EXPECT_EQ(records[2].text, "third");
}

// ---- The reader -----------------------------------------------------------------------

class TempLog : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "repro-kmsg-test-XXXXXX").string();
        const int fd = ::mkstemp(pattern.data());
        ASSERT_GE(fd, 0);
        ::close(fd);
        path_ = pattern;
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove(path_, ec);
    }
    void append(std::string_view text) { std::ofstream(path_, std::ios::app) << text; }
    fs::path path_;
};

TEST_F(TempLog, ReturnsOnlyWhatWasAppendedSinceOpening) {
    append("[  1.0] before the run\n");
    KernelLogReader reader(path_.string());
    ASSERT_TRUE(reader.readable()) << reader.problem();
    EXPECT_TRUE(reader.problem().empty());
    EXPECT_TRUE(reader.readNew().records.empty());

    append("[  2.0] amdgpu: ring gfx_0.0.0 timeout\n3,5,3000000,-;second\n SUBSYSTEM=pci\npartial");
    const KernelReadResult first = reader.readNew();
    ASSERT_EQ(first.records.size(), 2u);
    EXPECT_EQ(first.records[0].text, "amdgpu: ring gfx_0.0.0 timeout");
    EXPECT_EQ(first.records[1].text, "second");
    EXPECT_EQ(first.lost, 0u);
    // The partial line waits until its newline arrives.
    append(" line\n");
    const KernelReadResult second = reader.readNew();
    ASSERT_EQ(second.records.size(), 1u);
    EXPECT_EQ(second.records[0].text, "partial line");
    EXPECT_TRUE(reader.readNew().records.empty());
}

TEST_F(TempLog, TruncationCountsAsLostAndStartsOver) {
    append("old line one\nold line two\n");
    KernelLogReader reader(path_.string());
    fs::resize_file(path_, 0);
    append("new\n");
    const KernelReadResult r = reader.readNew();
    EXPECT_EQ(r.lost, 1u);
    ASSERT_EQ(r.records.size(), 1u);
    EXPECT_EQ(r.records[0].text, "new");
}

TEST_F(TempLog, MovedReaderKeepsItsPosition) {
    KernelLogReader a(path_.string());
    append("one\n");
    KernelLogReader b(std::move(a));
    EXPECT_FALSE(a.readable());  // NOLINT(bugprone-use-after-move): moved-from state is specified
    ASSERT_EQ(b.readNew().records.size(), 1u);
}

TEST_F(TempLog, UnreadableFileSaysWhy) {
    if (::geteuid() == 0) GTEST_SKIP() << "root reads files regardless of their mode";
    fs::permissions(path_, fs::perms::none);
    KernelLogReader reader(path_.string());
    EXPECT_FALSE(reader.readable());
    EXPECT_TRUE(contains(reader.problem(), "Permission denied")) << reader.problem();
}

TEST(KernelLogReaderTest, MissingPathSaysWhyAndReadNewRepeatsIt) {
    KernelLogReader reader("/nonexistent/repro-kmsg");
    EXPECT_FALSE(reader.readable());
    EXPECT_EQ(reader.problem(), "cannot read the kernel log /nonexistent/repro-kmsg: No such file or directory");
    const KernelReadResult r = reader.readNew();
    EXPECT_TRUE(r.records.empty());
    EXPECT_EQ(r.problem, reader.problem());
}

TEST(KernelLogReaderTest, DevKmsgEitherReadsOrSaysWhy) {
    KernelLogReader reader;  // /dev/kmsg
    EXPECT_EQ(reader.path(), "/dev/kmsg");
    if (!reader.readable()) {
        EXPECT_TRUE(contains(reader.problem(), "cannot read the kernel log /dev/kmsg: ")) << reader.problem();
        return;
    }
    EXPECT_TRUE(reader.unreadableLine().empty());
    // Positioned at the end: whatever comes back was written after opening, and the read
    // stops at EAGAIN instead of blocking.
    const KernelReadResult r = reader.readNew();
    EXPECT_TRUE(r.problem.empty()) << r.problem;
    for (const auto& rec : r.records) EXPECT_TRUE(rec.sequence);
}

TEST(KernelLogReaderTest, AfterwardsCommandCarriesTheRunStart) {
    ::setenv("TZ", "UTC", 1);
    ::tzset();
    const auto t = std::chrono::system_clock::from_time_t(1788341561);  // 2026-09-02 09:32:41 UTC
    EXPECT_EQ(localTimeForJournal(t), "2026-09-02 09:32:41");
    EXPECT_EQ(localTimeIso(t), "2026-09-02T09:32:41+00:00");
    const KernelLogReader reader("/nonexistent/repro-kmsg", t);
    EXPECT_EQ(reader.afterwardsCommand(),
              "`sudo journalctl -k --since '2026-09-02 09:32:41'` (or `sudo dmesg --time-format iso | tail -n 200`, "
              "the lines from 2026-09-02T09:32:41+00:00 on)");
    EXPECT_EQ(reader.unreadableLine(),
              "cannot read the kernel log /nonexistent/repro-kmsg: No such file or directory; afterwards run "
              "`sudo journalctl -k --since '2026-09-02 09:32:41'` (or `sudo dmesg --time-format iso | tail -n 200`, "
              "the lines from 2026-09-02T09:32:41+00:00 on)");
    ::unsetenv("TZ");
    ::tzset();
}

// ---- Events ---------------------------------------------------------------------------

GpuEvent event(std::string_view line) { return test::gpuEvent(line); }

void expectNoEvent(std::string_view line) {
    const auto record = parseLogLine(line);
    ASSERT_TRUE(record) << line;
    const auto e = classifyGpuRecord(*record);
    EXPECT_FALSE(e) << "classified as " << (e ? name(e->kind) : "") << ": " << line;
}

// llama.cpp #21724 (SteelPh0enix, journalctl): a gfx ring timeout ended by a ring reset.
TEST(GpuEvents, Llama21724GfxRingReset) {
    const std::vector<std::string> lines = {
        "maj 08 19:27:35 RX-78-FPC kernel: amdgpu 0000:c2:00.0: Dumping IP State",
        "maj 08 19:27:35 RX-78-FPC kernel: amdgpu 0000:c2:00.0: [drm] AMDGPU device coredump file has been created",
        "maj 08 19:27:35 RX-78-FPC kernel: amdgpu 0000:c2:00.0: [drm] Check your "
        "/sys/class/drm/card1/device/devcoredump/data",
        "maj 08 19:27:35 RX-78-FPC kernel: amdgpu 0000:c2:00.0: ring gfx_0.0.0 timeout, signaled seq=166926, emitted "
        "seq=166928",
        "maj 08 19:27:35 RX-78-FPC kernel: amdgpu 0000:c2:00.0:  Process llama-server pid 12519 thread llama-server "
        "pid 12519",
        "maj 08 19:27:35 RX-78-FPC kernel: amdgpu 0000:c2:00.0: Starting gfx_0.0.0 ring reset",
        "maj 08 19:27:35 RX-78-FPC kernel: amdgpu 0000:c2:00.0: Ring gfx_0.0.0 reset succeeded",
        "maj 08 19:27:35 RX-78-FPC kernel: amdgpu 0000:c2:00.0: [drm] device wedged, but recovered through reset",
        "maj 08 19:28:59 RX-78-FPC kernel: amdgpu 0000:c2:00.0: Fence fallback timer expired on ring gfx_0.0.0",
    };
    std::vector<KernelRecord> records;
    for (const auto& l : lines) records.push_back(*parseLogLine(l));
    const auto events = gpuEvents(records);
    ASSERT_EQ(events.size(), 8u);  // "Dumping IP State" is no event
    EXPECT_EQ(events[0].kind, GpuEventKind::Devcoredump);
    EXPECT_EQ(events[1].kind, GpuEventKind::Devcoredump);
    EXPECT_EQ(events[2].kind, GpuEventKind::RingTimeout);
    EXPECT_EQ(events[2].ring, "gfx_0.0.0");
    EXPECT_EQ(events[2].pid, 12519);  // from the process line that follows
    EXPECT_EQ(events[2].process, "llama-server");
    EXPECT_EQ(events[3].kind, GpuEventKind::ProcessInfo);
    EXPECT_EQ(events[4].kind, GpuEventKind::RingResetStarted);
    EXPECT_EQ(events[4].ring, "gfx_0.0.0");
    EXPECT_EQ(events[5].kind, GpuEventKind::RingResetSucceeded);
    EXPECT_EQ(events[6].kind, GpuEventKind::DeviceWedged);
    EXPECT_EQ(events[7].kind, GpuEventKind::FenceFallback);
    EXPECT_EQ(events[7].ring, "gfx_0.0.0");
    EXPECT_TRUE(isKillEvent(events[2]));
    EXPECT_TRUE(isKillEvent(events[5]));
    EXPECT_FALSE(isKillEvent(events[0]));
    EXPECT_FALSE(isKillEvent(events[7]));  // a late interrupt, not a kill
}

// Linux 6.19.0-rc7 (Mike Lothian, dri-devel 2026-02-15, reply to "drm/amdgpu: reduce
// queue timeout to 2 seconds"): the same sequence, "amdgpu: " after the device.
TEST(GpuEvents, Linux619GravityMark) {
    const GpuEvent t = event(
        "Feb 15 21:16:17 axion.fireburn.co.uk kernel: amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 "
        "timeout, signaled seq=99, emitted seq=100");
    EXPECT_EQ(t.kind, GpuEventKind::RingTimeout);
    EXPECT_EQ(t.ring, "gfx_0.0.0");
    const GpuEvent p = event(
        "Feb 15 21:16:17 axion.fireburn.co.uk kernel: amdgpu 0000:03:00.0: amdgpu:  Process "
        "GravityMark.x64 pid 1794 thread GravityMark.x64 pid 1794");
    EXPECT_EQ(p.kind, GpuEventKind::ProcessInfo);
    EXPECT_EQ(p.pid, 1794);
    EXPECT_EQ(p.process, "GravityMark.x64");
    // Ring set-up lines at resume name rings too, but are no events.
    expectNoEvent(
        "Feb 15 21:16:13 axion.fireburn.co.uk kernel: amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 uses VM inv eng 0 on "
        "hub 0");
    expectNoEvent(
        "Feb 15 21:16:13 axion.fireburn.co.uk kernel: amdgpu 0000:03:00.0: amdgpu: ring kiq_0.2.1.0 uses VM inv eng 12 "
        "on hub 0");
    expectNoEvent(
        "Feb 15 21:16:17 axion.fireburn.co.uk kernel: amdgpu 0000:03:00.0: amdgpu: Dumping IP State Completed");
}

// Compute rings: Nathanw1014/strix-halo-llamacpp #16 (dmesg -T), llama.cpp #27076
// (abbreviated), llama.cpp PR #26813 (soft recovery with no error to the application).
TEST(GpuEvents, ComputeRings) {
    const GpuEvent t = event(
        "[Wed Sep  2 09:32:42 2026] amdgpu 0000:c5:00.0: ring comp_1.1.0 timeout, signaled "
        "seq=37013797, emitted seq=37013799");
    EXPECT_EQ(t.kind, GpuEventKind::RingTimeout);
    EXPECT_EQ(t.ring, "comp_1.1.0");
    EXPECT_EQ(event("[Wed Sep  2 09:32:42 2026] amdgpu 0000:c5:00.0: Starting comp_1.1.0 ring reset").ring,
              "comp_1.1.0");
    EXPECT_EQ(event("[Wed Sep  2 09:32:42 2026] amdgpu 0000:c5:00.0: Ring comp_1.1.0 reset succeeded").kind,
              GpuEventKind::RingResetSucceeded);
    EXPECT_EQ(event("ring comp_1.1.0 timeout").kind, GpuEventKind::RingTimeout);
    const GpuEvent soft = event("amdgpu 0000:01:00.0: ring comp_1.2.1 timeout, but soft recovered");
    EXPECT_EQ(soft.kind, GpuEventKind::SoftRecovered);
    EXPECT_EQ(soft.ring, "comp_1.2.1");
    EXPECT_TRUE(isKillEvent(soft));
    EXPECT_EQ(event("amdgpu 0000:0a:00.0: Ring comp_1.1.0 reset failed").kind, GpuEventKind::RingResetFailed);
}

// Older kernels (DRM_ERROR with the function name; kernel bugzilla 213391's title) and
// FreeBSD's drm-kmod (freebsd/drm-kmod #387, #78).
TEST(GpuEvents, OlderAndFreeBsdFormats) {
    const GpuEvent old =
        event("[14789.914311] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, but soft recovered");
    EXPECT_EQ(old.kind, GpuEventKind::SoftRecovered);
    EXPECT_EQ(old.ring, "gfx");
    const GpuEvent bsd =
        event("[drm ERROR :amdgpu_job_timedout] ring gfx_0.0.0 timeout, signaled seq=12174921, emitted seq=12174923");
    EXPECT_EQ(bsd.kind, GpuEventKind::RingTimeout);
    const GpuEvent info =
        event("[drm ERROR :amdgpu_job_timedout] Process information: process  pid 540118 thread  pid 540118");
    EXPECT_EQ(info.kind, GpuEventKind::ProcessInfo);
    EXPECT_EQ(info.pid, 540118);
    EXPECT_EQ(event("drmn0: GPU reset begin!").kind, GpuEventKind::GpuResetBegin);
    // lemonade-sdk/llamacpp-rocm #122: newer wording with the reset source.
    EXPECT_EQ(event("[Fri Jul 10 20:23:53 2026] amdgpu 0000:c4:00.0: GPU reset begin!. Source:  3").kind,
              GpuEventKind::GpuResetBegin);
    EXPECT_EQ(event("amdgpu 0000:03:00.0: amdgpu: GPU reset(2) succeeded!").kind, GpuEventKind::GpuResetSucceeded);
    EXPECT_EQ(event("amdgpu 0000:03:00.0: amdgpu: GPU reset(3) failed").kind, GpuEventKind::GpuResetFailed);
    EXPECT_EQ(event("amdgpu 0000:03:00.0: amdgpu: GPU Recovery Failed: -110").kind, GpuEventKind::GpuResetFailed);
    EXPECT_EQ(event("amdgpu 0000:03:00.0: [drm] device wedged, needs recovery").kind, GpuEventKind::DeviceWedged);
}

// Page faults: CachyOS/linux-cachyos #960 (journalctl, 7.1.6), ROCm/amdgpu #172 (no-retry,
// gfxhub0), ROCm/legacy-rocm-build #2804 (process on the fault line), freebsd/drm-kmod
// #78 (retry fault), FreeBSDDesktop/kms-drm #76 (VM_L2 status, 2018).
TEST(GpuEvents, PageFaults) {
    std::vector<KernelRecord> records = {
        *parseLogLine("Aug 05 18:46:49 rustyspork kernel: amdgpu 0000:0d:00.0: [gfxhub] page fault (src_id:0 ring:24 "
                      "vmid:4 pasid:10)"),
        *parseLogLine("Aug 05 18:46:49 rustyspork kernel: amdgpu 0000:0d:00.0:  Process kwin_wayland pid 1671 thread "
                      "kwin_wayla:cs0 pid 1722"),
        *parseLogLine("Aug 05 18:46:49 rustyspork kernel: amdgpu 0000:0d:00.0:   in page starting at address "
                      "0x00000043800e8000 from client 0x1b (UTCL2)"),
        *parseLogLine(
            "Aug 05 18:46:49 rustyspork kernel: amdgpu 0000:0d:00.0: GCVM_L2_PROTECTION_FAULT_STATUS:0x00401031"),
    };
    const auto events = gpuEvents(records);
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].kind, GpuEventKind::PageFault);
    EXPECT_EQ(events[0].pid, 1671);
    EXPECT_EQ(events[0].process, "kwin_wayland");
    EXPECT_EQ(events[2].kind, GpuEventKind::VmFaultStatus);
    EXPECT_FALSE(isKillEvent(events[0]));

    EXPECT_EQ(event("[ 4778.915423] amdgpu 0000:c6:00.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:24 "
                    "vmid:3 pasid:32769)")
                  .kind,
              GpuEventKind::PageFault);
    const GpuEvent inline_ = event(
        "[  629.844077] amdgpu 0000:0b:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 "
        "pasid:32770, for process python pid 1796 thread python pid 1796)");
    EXPECT_EQ(inline_.kind, GpuEventKind::PageFault);
    EXPECT_EQ(inline_.pid, 1796);
    EXPECT_EQ(inline_.process, "python");
    EXPECT_EQ(event("Jun  9 19:25:10 verdandi kernel: drmn0: [gfxhub0] retry page fault (src_id:0 ring:0 vmid:3 "
                    "pasid:32770, for process  pid 101779 thread  pid 101779)")
                  .kind,
              GpuEventKind::PageFault);
    EXPECT_EQ(event("drmn0: VM_L2_PROTECTION_FAULT_STATUS:0x00000000").kind, GpuEventKind::VmFaultStatus);
    EXPECT_EQ(event("[ 4778.917054] amdgpu 0000:c6:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00301031").kind,
              GpuEventKind::VmFaultStatus);
    // A CPU page fault is no GPU event.
    expectNoEvent("[ 22.356105] BUG: unable to handle page fault for address: ffffb2d64023fdf0");
}

// The amdgpu MES wedge (the form of ROCm/legacy-rocm-build #5724's log, GFX11.5): the
// scheduler firmware stops answering, a VM fault, a MODE2 reset, the wedge recovered.
TEST(GpuEvents, MesWedge) {
    const GpuEvent mes = event("[ 5012.114093] amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE");
    EXPECT_EQ(mes.kind, GpuEventKind::MesNoResponse);
    EXPECT_TRUE(isKillEvent(mes));
    EXPECT_EQ(name(mes.kind), "MES no response");
    const GpuEvent mode2 = event("[ 5014.530881] amdgpu 0000:c5:00.0: amdgpu: MODE2 reset");
    EXPECT_EQ(mode2.kind, GpuEventKind::GpuResetBegin);
    EXPECT_EQ(event("[ 5012.114120] amdgpu 0000:c5:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00800932").kind,
              GpuEventKind::VmFaultStatus);
    EXPECT_EQ(event("[ 5015.002113] amdgpu 0000:c5:00.0: [drm] device wedged, but recovered through reset").kind,
              GpuEventKind::DeviceWedged);
}

// i915: the kernel's own CI expectations (drivers/gpu/drm/ci/xfails/i915-*-fails.txt); xe:
// the format of xe_guc_submit.c guc_exec_queue_timedout_job; NVIDIA: NVIDIA/open-gpu-kernel-
// modules #1097 (Xid 109) and an Xid 8 in the same format.
TEST(GpuEvents, IntelAndNvidia) {
    const GpuEvent hang =
        event("[  639.611970] i915 0000:00:02.0: [drm] GPU HANG: ecode 9:1:e757fefe, in kms_busy [821]");
    EXPECT_EQ(hang.kind, GpuEventKind::I915Hang);
    EXPECT_EQ(hang.pid, 821);
    EXPECT_EQ(hang.process, "kms_busy");
    const GpuEvent reset = event("[  639.603625] i915 0000:00:02.0: [drm] Resetting rcs0 for preemption time out");
    EXPECT_EQ(reset.kind, GpuEventKind::I915EngineReset);
    EXPECT_EQ(reset.ring, "rcs0");
    EXPECT_EQ(event("i915 0000:00:02.0: [drm] Resetting rcs0 for stopped heartbeat on rcs0").kind,
              GpuEventKind::I915EngineReset);
    const GpuEvent ctx = event("i915 0000:00:02.0: [drm] Xorg[5337] context reset due to GPU hang");
    EXPECT_EQ(ctx.kind, GpuEventKind::I915ContextReset);
    EXPECT_EQ(ctx.pid, 5337);
    EXPECT_EQ(ctx.process, "Xorg");
    EXPECT_EQ(event("i915 0000:00:02.0: Resetting chip for stopped heartbeat on rcs0").kind,
              GpuEventKind::GpuResetBegin);
    EXPECT_EQ(event("GPU crash dump saved to /sys/class/drm/card0/error").kind, GpuEventKind::Devcoredump);

    const GpuEvent xe = event(
        "xe 0000:03:00.0: [drm] GT0: Timedout job: seqno=4242, lrc_seqno=4242, guc_id=7, flags=0x0 in repro [31337]");
    EXPECT_EQ(xe.kind, GpuEventKind::XeJobTimeout);
    EXPECT_EQ(xe.pid, 31337);
    EXPECT_EQ(xe.process, "repro");
    expectNoEvent("xe 0000:03:00.0: [drm] Timedout signaled job: seqno=4242, guc_id=7, flags=0x0");
    const GpuEvent xeReset = event("xe 0000:03:00.0: [drm] GT0: Engine reset: engine_class=rcs, logical_mask: 0x1");
    EXPECT_EQ(xeReset.kind, GpuEventKind::XeEngineReset);
    EXPECT_EQ(xeReset.ring, "rcs");

    const GpuEvent xid109 = event(
        "NVRM: Xid (PCI:0000:0b:00): 109, pid=9468, name=CrimsonDesert.e, channel 0x0000000f, "
        "errorString CTX SWITCH TIMEOUT, Info 0x3c014");
    EXPECT_EQ(xid109.kind, GpuEventKind::NvidiaXid);
    EXPECT_EQ(xid109.xid, 109);
    EXPECT_EQ(xid109.pid, 9468);
    EXPECT_EQ(xid109.process, "CrimsonDesert.e");
    EXPECT_TRUE(isKillEvent(xid109));
    const GpuEvent xid13 =
        event("Oct 23 15:24:29 111 kernel: [15879.824397] NVRM: Xid (0000:00:05): 13, 0000 e0019700 00004497");
    EXPECT_EQ(xid13.xid, 13);
    EXPECT_FALSE(isKillEvent(xid13));
    EXPECT_TRUE(isKillEvent(event("NVRM: Xid (PCI:0000:01:00): 8, pid=1234, name=repro, Channel 00000020")));
    expectNoEvent("NVRM: GPU at PCI:0000:01:00: GPU-bc0fa0b9-cac2-f507-b715-9bebdb69c71e");
}

// nouveau: a public gist's kernel log ("nouveau 0000:65:00.0: fifo: SCHED_ERROR 0a [CTXSW_TIMEOUT]").
TEST(GpuEvents, Nouveau) {
    const GpuEvent sched =
        event("Feb 06 23:42:47 Ubuntu-PC kernel: nouveau 0000:65:00.0: fifo: SCHED_ERROR 0a [CTXSW_TIMEOUT]");
    EXPECT_EQ(sched.kind, GpuEventKind::NouveauError);
    EXPECT_FALSE(isKillEvent(sched));
    EXPECT_TRUE(isKillEvent(event("Feb 06 23:42:47 Ubuntu-PC kernel: nouveau 0000:65:00.0: fifo: channel 4: killed")));
}

TEST(GpuEvents, LinesThatAreNoEvents) {
    for (const char* line : {
             "amdgpu 0000:03:00.0: amdgpu: ring comp_1.0.0 uses VM inv eng 4 on hub 0",
             "[drm] ring test on 0 succeeded in 3 usecs",
             "amdgpu 0000:03:00.0: amdgpu: ring gfx timeout, but device unplugged, skipping.",
             "amdgpu: Freeing queue vital buffer 0x7f56f8a00000, queue evicted",
             "amdgpu 0000:c5:00.0: reset compute queue (1:1:0)",
             "r8169 0000:03:00.0 eth0: link up",
             "steam[223306]: Removing process 352353 for gameID 2357570",
             "i915 0000:00:02.0: [drm] GuC firmware i915/tgl_guc_70.bin version 70.5.1",
             "Resetting the wifi adapter for a firmware update",
         }) {
        expectNoEvent(line);
    }
}

TEST(GpuEvents, GuiltyRecordsAreTyped) {
    EXPECT_EQ(event("amdgpu 0000:03:00.0: amdgpu: context 42 is guilty").kind, GpuEventKind::GuiltyContext);
}

TEST(GpuEvents, NamesAreDistinct) {
    EXPECT_EQ(name(GpuEventKind::SoftRecovered), "soft recovered");
    EXPECT_EQ(name(GpuEventKind::NvidiaXid), "Xid");
    EXPECT_NE(name(GpuEventKind::RingResetStarted), name(GpuEventKind::RingResetSucceeded));
}

}  // namespace
}  // namespace repro
