// runChanges: every flag that changes blade's stream is listed once, in the group it
// changes (issue 21, item 6d: --split-ms and --drop-dispatch were left out).
#include "cli/run_changes.hpp"

#include <gtest/gtest.h>

namespace repro {
namespace {

TEST(RunChanges, BladesStreamChangesNothing) {
    const RunChanges c = runChanges(Options{});
    EXPECT_TRUE(c.none());
    EXPECT_TRUE(c.all().empty());
}

TEST(RunChanges, SplitMsAndDropDispatchAreNamed) {
    Options o;
    o.submit.splitMs = 250;
    o.dropDispatch = 3;
    const RunChanges c = runChanges(o);
    EXPECT_EQ(c.recording, (std::vector<std::string>{"--split-ms 250", "--host-wait", "--drop-dispatch 3"}));
    EXPECT_TRUE(c.setup.empty());
    EXPECT_FALSE(c.none());
}

TEST(RunChanges, EveryFlagInItsGroupRecordingFirst) {
    Options o;
    o.barrier = BarrierKind::Full;
    o.submit.every = 2;
    o.submit.splitMiB = 26.5;
    o.submit.hostWait = false;
    o.dispatchRepeat = 4;
    o.memory = BufferMemory::HostCached;
    o.profile = Profile::BladeExact;
    o.spirvDir = "dir";
    const RunChanges c = runChanges(o);
    EXPECT_EQ(c.recording, (std::vector<std::string>{"--barrier full", "--submit-every 2", "--split-mib 26.5",
                                                     "--no-host-wait", "--dispatch-repeat 4"}));
    EXPECT_EQ(c.setup, (std::vector<std::string>{"--memory host-cached", "--profile blade-exact", "--spirv dir"}));
    EXPECT_EQ(c.all().size(), 8u);
    EXPECT_EQ(c.all().front(), "--barrier full");
    EXPECT_EQ(c.all().back(), "--spirv dir");
}

}  // namespace
}  // namespace repro
