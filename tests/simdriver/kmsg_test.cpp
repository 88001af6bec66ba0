// The kernel log records of a simulated watchdog kill (kmsg.hpp): amdgpu's wording and
// the /dev/kmsg record format.
#include "kmsg.hpp"

#include <gtest/gtest.h>

namespace repro::simdriver {
namespace {

KillReport kill(Recovery recovery) {
    return {.pciAddress = "0000:c4:00.0",
            .ring = "gfx_0.0.0",
            .signaledSeq = 41,
            .emittedSeq = 42,
            .recovery = recovery,
            .resetCount = 1,
            .processName = "repro",
            .pid = 1234,
            .threadName = "repro",
            .tid = 1235};
}

TEST(Kmsg, RingFollowsTheQueueFamily) {
    EXPECT_EQ(ringName(0), "gfx_0.0.0");
    EXPECT_EQ(ringName(1), "comp_1.0.0");
    EXPECT_EQ(ringName(2), "comp_1.0.0");
}

TEST(Kmsg, SoftRecoveryIsOneLine) {
    const auto lines = kmsgLines(kill(Recovery::Soft));
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].level, 3);
    EXPECT_EQ(lines[0].message, "amdgpu 0000:c4:00.0: amdgpu: ring gfx_0.0.0 timeout, but soft recovered");
}

TEST(Kmsg, AResetIsTheTimeoutTheProcessAndTheReset) {
    const auto lines = kmsgLines(kill(Recovery::Hard));
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0].message, "amdgpu 0000:c4:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=41, emitted seq=42");
    EXPECT_EQ(lines[1].message,
              "amdgpu 0000:c4:00.0: amdgpu: Process information: process repro pid 1234 thread repro pid 1235");
    EXPECT_EQ(lines[2].message, "amdgpu 0000:c4:00.0: amdgpu: GPU reset begin!");
    EXPECT_EQ(lines[3].message, "amdgpu 0000:c4:00.0: amdgpu: GPU reset(1) succeeded!");
    EXPECT_EQ(lines[0].level, 3);  // dev_err
    EXPECT_EQ(lines[1].level, 3);
    EXPECT_EQ(lines[2].level, 6);  // dev_info
    EXPECT_EQ(lines[3].level, 6);
}

TEST(Kmsg, RecordFormat) {
    EXPECT_EQ(kmsgRecord(3, 17, 123456789, "amdgpu 0000:c4:00.0: amdgpu: GPU reset begin!"),
              "3,17,123456789,-;amdgpu 0000:c4:00.0: amdgpu: GPU reset begin!");
    EXPECT_EQ(kmsgRecord(6, 0, 0, "a\tb\\c\x7f"), "6,0,0,-;a\\x09b\\x5cc\\x7f");
}

}  // namespace
}  // namespace repro::simdriver
