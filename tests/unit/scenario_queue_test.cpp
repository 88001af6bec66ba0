// Queues and semaphores in scenario files: parsing, the batches, and each check before
// anything runs (scenario/scenario_sync.hpp; docs/scenarios.md "Queues and semaphores").
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "scenario/scenario.hpp"
#include "scenario/scenario_cpu.hpp"
#include "scenario/scenario_parse.hpp"
#include "scenario/scenario_sync.hpp"
#include "vk/device.hpp"
#include "vk/memory.hpp"
#include "vk/scenario_recorder.hpp"

namespace repro::scenario {
namespace {

// Lines 1-18: the header, buffers a (iota) and b (zero), queue "second", semaphores t
// (timeline) and s (binary). Steps start at line 22.
const std::string kHead = R"(name = "q"
source = "https://example.org/report"
pattern = "two queues"
expected = "not reproduced"
check = ["b"]
[[buffer]]
name = "a"
bytes = 64
init = "iota"
[[buffer]]
name = "b"
bytes = 64
[[queue]]
name = "second"
family = "other"
[[semaphore]]
name = "t"
type = "timeline"
[[semaphore]]
name = "s"
type = "binary"
)";

std::string errorOf(const std::string& text) {
    try {
        parseScenario(text, "q.toml");
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

// A dispatch on main writes a, a copy on the second queue after a timeline wait reads it into
// b, and an increment back on main after a binary semaphore: valid, in file order.
const std::string kGood = kHead + R"([[step]]
dispatch = "increment"
bindings = ["a"]
[[step]]
signal = "t"
value = 1
[[step]]
wait = "t"
value = 1
queue = "second"
stage = ["transfer"]
[[step]]
copy = "b"
from = "a"
queue = "second"
[[step]]
signal = "s"
queue = "second"
[[step]]
wait = "s"
[[step]]
dispatch = "increment"
bindings = ["b"]
)";

TEST(ScenarioQueues, AGoodFileGivesQueuesSemaphoresAndSteps) {
    const Scenario s = parseScenario(kGood, "q.toml");
    ASSERT_EQ(s.queues.size(), 2u);
    EXPECT_EQ(s.queues[0].name, "main");
    EXPECT_EQ(s.queues[1].name, "second");
    EXPECT_EQ(s.queues[1].family, QueueFamilyChoice::Other);
    ASSERT_EQ(s.semaphores.size(), 2u);
    EXPECT_TRUE(s.semaphores[0].timeline);
    EXPECT_FALSE(s.semaphores[1].timeline);
    ASSERT_EQ(s.steps.size(), 7u);
    EXPECT_FALSE(s.reordered);
    EXPECT_EQ(s.steps[2].label, "step 3 wait t = 1 on queue second");
    EXPECT_EQ(s.steps[3].label, "step 4 copy a -> b on queue second");
    EXPECT_EQ(s.steps[3].queue, 1u);
    EXPECT_EQ(std::get<Wait>(s.steps[2].body).stage, 0x1000u);  // transfer
    EXPECT_EQ(std::get<Wait>(s.steps[5].body).stage, 0x800u);   // compute by default
    EXPECT_EQ(std::get<Signal>(s.steps[1].body).value, 1u);
    EXPECT_TRUE(s.usesQueues());
    const auto model = runCpuModel(s);
    EXPECT_EQ(model.at("b")[0], 2u);  // iota 0, +1 on main, copied, +1 again
}

TEST(ScenarioQueues, BatchesAreWaitsWorkAndSignalsPerQueue) {
    const Scenario s = parseScenario(kGood, "q.toml");
    const auto batches = batchesOf(s);
    ASSERT_EQ(batches.size(), 3u);
    EXPECT_EQ(batches[0].queue, 0u);
    EXPECT_EQ(batches[0].work, (std::vector<size_t>{0}));
    EXPECT_EQ(batches[0].signals, (std::vector<size_t>{1}));
    EXPECT_EQ(batches[1].queue, 1u);
    EXPECT_EQ(batches[1].waits, (std::vector<size_t>{2}));
    EXPECT_EQ(batches[1].work, (std::vector<size_t>{3}));
    EXPECT_EQ(batches[1].signals, (std::vector<size_t>{4}));
    EXPECT_EQ(batches[2].queue, 0u);
    EXPECT_EQ(batches[2].waits, (std::vector<size_t>{5}));
    EXPECT_EQ(batches[2].work, (std::vector<size_t>{6}));
}

TEST(ScenarioQueues, AFileWithoutQueuesIsOneBatchAndUntouched) {
    const Scenario s = parseScenario(R"(name = "q"
source = "x"
pattern = "y"
expected = "not reproduced"
check = ["a"]
[[buffer]]
name = "a"
bytes = 64
[[step]]
fill = "a"
value = 3
)",
                                     "q.toml");
    EXPECT_FALSE(s.usesQueues());
    EXPECT_EQ(batchesOf(s).size(), 1u);
    EXPECT_EQ(s.steps[0].label, "step 1 fill a");
}

TEST(ScenarioQueues, ATimelineWaitBeforeItsSignalInTheFileRunsAfterIt) {
    // The copy on the second queue comes first in the file but waits for t = 1, which the
    // dispatch on main signals: the steps run dispatch, signal, wait, copy.
    const Scenario s = parseScenario(kHead + R"([[step]]
wait = "t"
value = 1
queue = "second"
stage = ["transfer"]
[[step]]
copy = "b"
from = "a"
queue = "second"
[[step]]
dispatch = "increment"
bindings = ["a"]
[[step]]
signal = "t"
value = 1
)",
                                     "q.toml");
    EXPECT_TRUE(s.reordered);
    ASSERT_EQ(s.steps.size(), 4u);
    EXPECT_EQ(s.steps[0].label, "step 3 dispatch increment");
    EXPECT_EQ(s.steps[3].label, "step 2 copy a -> b on queue second");
    EXPECT_EQ(runCpuModel(s).at("b")[0], 1u);  // the copy saw the increment
}

TEST(ScenarioQueues, UnknownQueueAndSemaphoreNames) {
    EXPECT_EQ(errorOf(kHead + "[[step]]\nfill = \"a\"\nqueue = \"third\"\n"),
              "q.toml:24:9: 'queue' names 'third', which is no queue; expected one of 'main', 'second' (a [[queue]] "
              "declares one)");
    EXPECT_EQ(errorOf(kHead + "[[step]]\nsignal = \"u\"\n"),
              "q.toml:23:10: 'signal' names 'u', which is no [[semaphore]]; expected one of 't', 's'");
    EXPECT_EQ(errorOf(kHead + "[[queue]]\nname = \"main\"\nfamily = \"same\"\n"),
              "q.toml:22:1: queue 'main' is the main queue, which needs no [[queue]]");
    EXPECT_EQ(errorOf(kHead + "[[queue]]\nname = \"x\"\nfamily = \"graphics\"\n"),
              "q.toml:24:10: unknown family 'graphics'; expected \"same\" (a second queue of the main queue's family) "
              "or \"other\" (another family)");
    EXPECT_EQ(errorOf(kHead + "[[step]]\nwait = \"t\"\n"),
              "q.toml:22:1: timeline semaphore 't' needs value = N (1 or more) on its wait");
    EXPECT_EQ(errorOf(kHead + "[[step]]\nsignal = \"s\"\nvalue = 2\n"),
              "q.toml:24:9: binary semaphore 's' takes no 'value'; only a timeline has one");
}

TEST(ScenarioQueues, ABinaryWaitWithNoSignalBeforeIt) {
    EXPECT_EQ(errorOf(kHead + "[[step]]\nwait = \"s\"\nqueue = \"second\"\n[[step]]\nsignal = \"s\"\n"),
              "q.toml:22:1: step 1 wait s on queue second waits on binary semaphore 's' with no unconsumed signal "
              "before it in file order; expected a signal of 's' earlier in the file (a binary wait needs its signal "
              "submitted first)");
}

TEST(ScenarioQueues, ABinarySemaphoreSignalledTwiceWithoutAWait) {
    EXPECT_EQ(errorOf(kHead + "[[step]]\nsignal = \"s\"\n[[step]]\nsignal = \"s\"\n"),
              "q.toml:24:1: step 2 signal s signals binary semaphore 's' again before a wait consumed step 1 "
              "signal s; expected a wait between (each binary signal is consumed by one wait)");
}

TEST(ScenarioQueues, ATimelineWaitNoSignalReaches) {
    EXPECT_EQ(errorOf(kHead + "[[step]]\nsignal = \"t\"\nvalue = 2\n[[step]]\nwait = \"t\"\nvalue = 3\nqueue = "
                              "\"second\"\n"),
              "q.toml:25:1: step 2 wait t = 3 on queue second waits for timeline semaphore 't' to reach 3, and no "
              "signal reaches it (the largest signalled is 2); expected a signal of 3 or more");
    EXPECT_EQ(errorOf(kHead + "[[step]]\nsignal = \"t\"\nvalue = 2\n[[step]]\nsignal = \"t\"\nvalue = 2\n"),
              "q.toml:25:1: step 2 signal t = 2 signals timeline semaphore 't' with 2, not above its previous "
              "signal's 2; expected strictly increasing values in file order");
}

// Each queue waits for what the other signals only after its own wait.
const std::string kCycle = kHead + R"([[semaphore]]
name = "u"
type = "timeline"
[[step]]
wait = "t"
value = 1
[[step]]
fill = "a"
[[step]]
signal = "u"
value = 1
[[step]]
wait = "u"
value = 1
queue = "second"
[[step]]
fill = "b"
queue = "second"
[[step]]
signal = "t"
value = 1
queue = "second"
)";

TEST(ScenarioQueues, ACycleOfSemaphoresIsOneLineAtItsFirstWait) {
    EXPECT_EQ(errorOf(kCycle),
              "q.toml:25:1: a cycle of semaphores, so no order can run it: step 1 wait t = 1 waits for step 6 "
              "signal t = 1 on queue second, which runs after step 4 wait u = 1 on queue second waits for step 3 "
              "signal u = 1, which runs after step 1 wait t = 1; expected every wait's signal to run without that "
              "wait");
}

TEST(ScenarioQueues, AWaitOnItsOwnLaterSignalIsACycle) {
    const std::string e = errorOf(kHead +
                                  "[[step]]\nwait = \"t\"\nvalue = 1\n[[step]]\nfill = \"a\"\n[[step]]\n"
                                  "signal = \"t\"\nvalue = 1\n");
    EXPECT_EQ(e,
              "q.toml:22:1: a cycle of semaphores, so no order can run it: step 1 wait t = 1 waits for step 3 signal "
              "t = 1, which runs after step 1 wait t = 1; expected every wait's signal to run without that wait");
}

TEST(ScenarioQueues, ConflictingAccessesOnTwoQueuesWithNoSemaphoreAreARace) {
    EXPECT_EQ(errorOf(kHead + "[[step]]\nfill = \"a\"\n[[step]]\ncopy = \"b\"\nfrom = \"a\"\nqueue = \"second\"\n"),
              "q.toml:24:1: step 2 copy a -> b on queue second reads buffer 'a', which step 1 fill a writes, and no "
              "semaphore orders them (queues second and main); expected a signal after one and a wait before the "
              "other (a data race in the file)");
    // Two reads on two queues are no race; nor is a noop's binding, which it never accesses.
    const std::string sameFamily = std::regex_replace(kHead, std::regex("family = \"other\""), "family = \"same\"");
    EXPECT_EQ(errorOf(sameFamily + "[[buffer]]\nname = \"c\"\nbytes = 64\n[[step]]\ncopy = \"b\"\nfrom = \"a\"\n"
                                   "[[step]]\ncopy = \"c\"\nfrom = \"a\"\nqueue = \"second\"\n"),
              "");
    EXPECT_EQ(errorOf(kHead + "[[step]]\ncopy = \"b\"\nfrom = \"a\"\n[[step]]\ndispatch = \"noop\"\nbindings = "
                              "[\"a\"]\nqueue = \"second\"\n"),
              "");
}

// A wait orders only the stages it names (Vulkan spec, "Semaphore Waiting"): a dispatch after a
// wait at the transfer stage is not ordered after the signal, unless a barrier after the wait
// carries the dependency from transfer to compute. An execution-only barrier (a control) does
// not count; a wait at all-commands does.
TEST(ScenarioQueues, AWaitWhoseStageMissesTheStepAfterItIsARace) {
    const auto file = [](const std::string& stage, const std::string& between) {
        return kHead +
               "[[step]]\nfill = \"a\"\n[[step]]\nsignal = \"s\"\n[[step]]\nwait = \"s\"\nqueue = \"second\"\n"
               "stage = [\"" +
               stage + "\"]\n" + between +
               "[[step]]\ndispatch = \"copy\"\nbindings = [\"a\", \"b\"]\nqueue = \"second\"\n";
    };
    EXPECT_EQ(errorOf(file("transfer", "")),
              "q.toml:30:1: step 4 dispatch copy on queue second reads buffer 'a' at stage [\"compute\"] after step 1 "
              "fill a writes it, and the waits that order them on queue second (step 3 wait s on queue second at "
              "[\"transfer\"]) do not reach that stage, directly or through a barrier after them; expected "
              "[\"compute\"] in a wait's stage (a data race in the file)");
    EXPECT_EQ(errorOf(file("compute", "")), "");
    EXPECT_EQ(errorOf(file("all-commands", "")), "");
    const std::string carried =
        "[[step]]\nbarrier = \"memory\"\nsrc_stage = [\"transfer\"]\ndst_stage = "
        "[\"compute\"]\nsrc_access = [\"transfer-write\"]\ndst_access = [\"shader-read\"]\n"
        "queue = \"second\"\n";
    EXPECT_EQ(errorOf(file("transfer", carried)), "");
    const std::string executionOnly =
        "[[step]]\nbarrier = \"execution-only\"\nsrc_stage = [\"transfer\"]\n"
        "dst_stage = [\"compute\"]\nqueue = \"second\"\n";
    EXPECT_NE(errorOf(file("transfer", executionOnly)).find("do not reach that stage"), std::string::npos);
    // an indirect dispatch bound to its own args reads them at draw-indirect too: a wait at
    // compute alone does not reach that
    const std::string indirect =
        kHead +
        "[[step]]\ndispatch = \"indirect-writer\"\nbindings = [\"b\"]\n[[step]]\nsignal = \"s\"\n"
        "[[step]]\nwait = \"s\"\nqueue = \"second\"\nstage = [STAGES]\n[[step]]\n"
        "dispatch_indirect = \"increment\"\nbindings = [\"b\"]\nargs = \"b\"\nqueue = \"second\"\n";
    EXPECT_NE(errorOf(std::regex_replace(indirect, std::regex("STAGES"), "\"compute\""))
                  .find("reads buffer 'b' at stage [\"draw-indirect\", \"compute\"]"),
              std::string::npos)
        << errorOf(std::regex_replace(indirect, std::regex("STAGES"), "\"compute\""));
    EXPECT_EQ(errorOf(std::regex_replace(indirect, std::regex("STAGES"), "\"compute\", \"draw-indirect\"")), "");
    // a barrier on the main queue carries nothing on the second
    EXPECT_NE(errorOf(file("transfer", std::regex_replace(carried, std::regex("queue = \"second\"\n"), "")))
                  .find("do not reach that stage"),
              std::string::npos);
}

// The same wait labelled a control runs: its missing stage is the point (a control, as an
// execution-only barrier is), and the scenario says it has a control.
TEST(ScenarioQueues, AWaitLabelledAControlMayMissTheStepAfterIt) {
    const std::string text = kHead +
                             "[[step]]\nfill = \"a\"\n[[step]]\nsignal = \"s\"\n[[step]]\nwait = \"s\"\nqueue = "
                             "\"second\"\nstage = [\"transfer\"]\ncontrol = true\n[[step]]\ndispatch = \"copy\"\n"
                             "bindings = [\"a\", \"b\"]\nqueue = \"second\"\n";
    ASSERT_EQ(errorOf(text), "");
    const Scenario s = parseScenario(text, "q.toml");
    EXPECT_TRUE(s.hasControl());
    EXPECT_EQ(s.controlSteps(), "a wait");
    EXPECT_EQ(s.steps[2].label, "step 3 wait s (control) on queue second");
    EXPECT_FALSE(std::get<Wait>(s.steps[2].body).stage & 0x800);  // still the file's stage
    EXPECT_NE(errorOf(std::regex_replace(text, std::regex("control = true"), "control = 1"))
                  .find("'control' must be true or false"),
              std::string::npos);
    // an unordered race is no control's doing: still refused
    EXPECT_NE(errorOf(kHead + "[[step]]\nfill = \"a\"\n[[step]]\ncopy = \"b\"\nfrom = \"a\"\nqueue = \"second\"\n"
                              "[[step]]\nsignal = \"s\"\n[[step]]\nwait = \"s\"\ncontrol = true\n")
                  .find("no semaphore orders them"),
              std::string::npos);
}

// Two reads of one buffer: on a queue of family "other" they need an order when the buffer is
// exclusive (its ownership moves between families), and not with sharing = "concurrent".
TEST(ScenarioQueues, UnorderedReadsOfAnExclusiveBufferAcrossFamiliesAreRefused) {
    const std::string steps =
        "[[buffer]]\nname = \"c\"\nbytes = 64\n[[step]]\ncopy = \"b\"\nfrom = \"a\"\n"
        "[[step]]\ncopy = \"c\"\nfrom = \"a\"\nqueue = \"second\"\n";
    EXPECT_EQ(
        errorOf(kHead + steps),
        "q.toml:28:1: step 2 copy a -> c on queue second reads buffer 'a', which step 1 copy a -> b reads, and no "
        "semaphore orders them (queues second and main); buffer 'a' is exclusive and used on a queue of family "
        "\"other\", so its queue family ownership transfers need every use on one queue ordered with every use "
        "on another; expected a signal after one and a wait before the other, or sharing = \"concurrent\" on "
        "buffer 'a'");
    const std::string concurrent =
        std::regex_replace(kHead, std::regex("init = \"iota\""), "init = \"iota\"\nsharing = \"concurrent\"");
    EXPECT_EQ(errorOf(concurrent + steps), "");
    EXPECT_EQ(
        errorOf(std::regex_replace(kHead, std::regex("init = \"iota\""), "init = \"iota\"\nsharing = \"shared\"")),
        "q.toml:10:11: unknown sharing 'shared'; expected exclusive or concurrent");
}

// kGood on a device where queue "second" landed in family 1: a goes to the second queue for
// its copy and comes back for the readback; b goes there from the upload and comes back for
// the increment on main. Nothing where both queues landed in family 0.
TEST(ScenarioQueues, OwnershipTransfersFollowEachExclusiveBufferAcrossFamilies) {
    const Scenario s = parseScenario(kGood, "q.toml");
    ASSERT_EQ(s.steps.size(), 7u);  // 0 increment a, 1 signal t, 2 wait t, 3 copy a -> b, 4 signal s,
                                    // 5 wait s, 6 increment b
    EXPECT_TRUE(ownershipTransfers(s, {0, 0}).empty());
    const std::vector<OwnershipTransfer> t = ownershipTransfers(s, {0, 1});
    ASSERT_EQ(t.size(), 4u);
    const auto expect = [](const OwnershipTransfer& x, const std::string& buffer, uint32_t from, uint32_t to,
                           std::optional<size_t> after, std::optional<size_t> before, uint64_t srcStage,
                           uint64_t srcAccess, uint64_t dstStage, uint64_t dstAccess) {
        SCOPED_TRACE(buffer);
        EXPECT_EQ(x.buffer, buffer);
        EXPECT_EQ(x.fromQueue, from);
        EXPECT_EQ(x.toQueue, to);
        EXPECT_EQ(x.fromFamily, from);  // queue q landed in family q here
        EXPECT_EQ(x.toFamily, to);
        EXPECT_EQ(x.after, after);
        EXPECT_EQ(x.before, before);
        EXPECT_EQ(x.srcStage, srcStage);
        EXPECT_EQ(x.srcAccess, srcAccess);
        EXPECT_EQ(x.dstStage, dstStage);
        EXPECT_EQ(x.dstAccess, dstAccess);
    };
    // stages: compute 0x800, transfer 0x1000, all commands 0x10000; accesses: shader read 0x20,
    // shader write 0x40, transfer read 0x800, transfer write 0x1000, memory read|write 0x18000
    expect(t[0], "a", 0, 1, 0, 3, 0x1800, 0x1040, 0x1000, 0x800);  // upload and increment, then the copy reads it
    expect(t[1], "b", 0, 1, std::nullopt, 3, 0x1000, 0x1000, 0x1000, 0x1000);  // the upload's fill
    expect(t[2], "b", 1, 0, 3, 6, 0x1000, 0x1000, 0x800, 0x60);                // the copy wrote it
    expect(t[3], "a", 1, 0, 3, std::nullopt, 0x1000, 0, 0x10000, 0x18000);     // a read: nothing made available
    // With sharing = "concurrent" on b, only a's transfers remain.
    const Scenario c = parseScenario(std::regex_replace(kGood, std::regex("name = \"b\"\nbytes = 64"),
                                                        "name = \"b\"\nbytes = 64\nsharing = \"concurrent\""),
                                     "q.toml");
    const std::vector<OwnershipTransfer> onlyA = ownershipTransfers(c, {0, 1});
    ASSERT_EQ(onlyA.size(), 2u);
    EXPECT_EQ(onlyA[0].buffer, "a");
    EXPECT_EQ(onlyA[1].buffer, "a");
}

// tests/scenarios/image-then-copy-on-a-second-queue.toml, once refused in one line (images and
// a second queue did not go together), parses; where the copier landed in family 1, img goes
// there after the increment for the copier's barrier (its layout transition is a use) in
// general, and comes back for the readback in transfer-src; out goes there from the upload.
TEST(ScenarioQueues, AnImagesOwnershipTransfersKeepTheLayoutItIsInThere) {
    const std::string path = REPRO_SOURCE_DIR "/tests/scenarios/image-then-copy-on-a-second-queue.toml";
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(text.empty()) << path;
    const Scenario s = parseScenario(text, "i.toml");
    ASSERT_EQ(s.steps.size(), 5u);  // 0 image-increment, 1 signal, 2 wait, 3 barrier img, 4 copy img -> out
    EXPECT_TRUE(ownershipTransfers(s, {0, 0}).empty());
    const std::vector<OwnershipTransfer> t = ownershipTransfers(s, {0, 1});
    ASSERT_EQ(t.size(), 4u);
    const auto expect = [](const OwnershipTransfer& x, const std::string& what, std::optional<size_t> after,
                           std::optional<size_t> before, uint64_t srcStage, uint64_t srcAccess, uint64_t dstStage,
                           uint64_t dstAccess, ImageLayout layout) {
        SCOPED_TRACE(what);
        EXPECT_EQ(x.buffer + (x.fromFamily == 0 ? " there" : " back"), what);
        EXPECT_EQ(x.after, after);
        EXPECT_EQ(x.before, before);
        EXPECT_EQ(x.srcStage, srcStage);
        EXPECT_EQ(x.srcAccess, srcAccess);
        EXPECT_EQ(x.dstStage, dstStage);
        EXPECT_EQ(x.dstAccess, dstAccess);
        EXPECT_EQ(x.layout, layout);
    };
    // the upload (transfer) and the increment (compute, shader write), then the barrier's transfer stage
    expect(t[0], "img there", 0, 3, 0x1800, 0x1040, 0x1000, 0, ImageLayout::General);
    expect(t[1], "out there", std::nullopt, 4, 0x1000, 0x1000, 0x1000, 0x1000, ImageLayout::Undefined);
    expect(t[2], "img back", 4, std::nullopt, 0x1000, 0, 0x10000, 0x18000, ImageLayout::TransferSrc);
    expect(t[3], "out back", 4, std::nullopt, 0x1000, 0x1000, 0x10000, 0x18000, ImageLayout::Undefined);
    // sharing = "concurrent" on the image: only out's; ownership_transfers = false there is a bad file
    const std::string concurrent =
        std::regex_replace(text, std::regex("check = true"), "check = true\nsharing = \"concurrent\"");
    const std::vector<OwnershipTransfer> onlyOut = ownershipTransfers(parseScenario(concurrent, "i.toml"), {0, 1});
    ASSERT_EQ(onlyOut.size(), 2u);
    EXPECT_EQ(onlyOut[0].buffer, "out");
    EXPECT_EQ(errorOf(std::regex_replace(concurrent, std::regex("check = true"), "ownership_transfers = false")),
              "q.toml:34:23: image 'img' is concurrent and has no ownership transfers to leave out; expected "
              "ownership_transfers = false on an exclusive image");
}

// An image across queues is checked as a buffer is: its layout transition on another queue
// than the increment that wrote it, with no semaphore between them, is a data race; an image
// barrier after a wait carries the wait's stage to the copy after it, as a buffer barrier does.
TEST(ScenarioQueues, AnImagesLayoutTransitionIsAWriteAndItsBarrierCarriesAWait) {
    const std::string image = R"([[image]]
name = "img"
width = 8
height = 2
init = "iota"
[[step]]
dispatch = "image-increment"
bindings = ["img"]
)";
    const std::string barrier = R"([[step]]
barrier = "image"
image = "img"
src_stage = ["compute"]
dst_stage = ["transfer"]
dst_access = ["transfer-read"]
old_layout = "general"
new_layout = "transfer-src"
queue = "second"
[[step]]
copy_image_to_buffer = "b"
from = "img"
queue = "second"
)";
    EXPECT_EQ(errorOf(kHead + image + barrier),
              "q.toml:30:1: step 2 barrier image img general -> transfer-src on queue second writes buffer 'img', "
              "which step 1 dispatch image-increment reads, and no semaphore orders them (queues second and main); "
              "expected a signal after one and a wait before the other (a data race in the file)");
    const std::string wait =
        "[[step]]\nsignal = \"s\"\n[[step]]\nwait = \"s\"\nstage = [\"compute\"]\nqueue = "
        "\"second\"\n";
    EXPECT_EQ(errorOf(kHead + image + wait + barrier), "");
}

TEST(ScenarioQueues, AGroupsStepsTakeTheirQueuesAndBarrierOptionKeepsThem) {
    // Three rounds: main fills a and signals t = r; the second queue waits for it and copies a
    // into b behind a barrier of its own, then signals s, which main waits for before the next
    // fill. Timeline values must rise, so the group signals the binary s back instead.
    Scenario s = parseScenario(kHead + R"([[step]]
fill = "a"
value = 9
[[step]]
signal = "s"
[[step]]
repeat = 2
[[step.steps]]
wait = "s"
queue = "second"
stage = ["transfer"]
[[step.steps]]
barrier = "memory"
src_stage = ["transfer"]
dst_stage = ["transfer"]
src_access = ["transfer-write"]
dst_access = ["transfer-read"]
queue = "second"
[[step.steps]]
copy = "b"
from = "a"
queue = "second"
[[step.steps]]
signal = "s"
queue = "second"
[[step.steps]]
wait = "s"
[[step.steps]]
signal = "s"
)",
                               "q.toml");
    ASSERT_EQ(s.steps.size(), 14u);
    EXPECT_EQ(s.steps[4].label, "step 5 copy a -> b on queue second (repetition 1 of 2)");
    EXPECT_EQ(s.steps[4].queue, 1u);
    EXPECT_EQ(s.steps[7].queue, 0u);
    EXPECT_EQ(replaceBarriers(s, repro::BarrierKind::Full), "");
    EXPECT_EQ(s.steps[3].label, "step 4 barrier memory on queue second (--barrier full)");
}

// Where a [[queue]] lands (vk::chooseExtraQueues), on made-up families.
VkQueueFamilyProperties family(VkQueueFlags flags, uint32_t count) {
    VkQueueFamilyProperties f{};
    f.queueFlags = flags;
    f.queueCount = count;
    return f;
}

TEST(ScenarioQueueChoice, OtherTakesAnotherFamilyThatRunsItsSteps) {
    // An NVIDIA-like layout: graphics+compute (16), transfer only (2), compute+transfer (8).
    const std::vector<VkQueueFamilyProperties> families = {
        family(VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT, 16),
        family(VK_QUEUE_TRANSFER_BIT, 2), family(VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT, 8)};
    const auto q = vk::chooseExtraQueues(families, 0,
                                         {{.otherFamily = true, .needs = VK_QUEUE_TRANSFER_BIT},
                                          {.otherFamily = true, .needs = VK_QUEUE_COMPUTE_BIT},
                                          {.otherFamily = false, .needs = VK_QUEUE_COMPUTE_BIT}});
    ASSERT_EQ(q.size(), 3u);
    EXPECT_EQ(q[0].family, 1u);  // a copy queue may take the transfer-only family
    EXPECT_EQ(q[0].index, 0u);
    EXPECT_TRUE(q[0].otherFamily);
    EXPECT_EQ(q[0].note, "family 1 (TRANSFER), queue 0");
    EXPECT_EQ(q[1].family, 2u);  // a dispatch needs compute
    EXPECT_EQ(q[2].family, 0u);  // same: the main family's second queue
    EXPECT_EQ(q[2].index, 1u);
    EXPECT_FALSE(q[2].fallback);
}

TEST(ScenarioQueueChoice, OneQueueFallsBackToTheMainQueueAndSaysWhy) {
    const std::vector<VkQueueFamilyProperties> lavapipe = {
        family(VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT, 1)};
    const auto q = vk::chooseExtraQueues(lavapipe, 0, {{.otherFamily = true}, {.otherFamily = false}});
    ASSERT_EQ(q.size(), 2u);
    EXPECT_TRUE(q[0].fallback);
    EXPECT_EQ(q[0].note,
              "falls back to the main queue (no family besides 0 runs TRANSFER commands with a queue to spare; "
              "family 0 has 1 queue and every one is taken)");
    EXPECT_TRUE(q[1].fallback);
    EXPECT_EQ(q[1].note, "falls back to the main queue (family 0 has 1 queue and every one is taken)");
}

TEST(ScenarioQueueChoice, OtherWithNoOtherFamilyTakesASecondQueueOfTheMainOne) {
    const std::vector<VkQueueFamilyProperties> families = {
        family(VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT, 2),
        family(VK_QUEUE_TRANSFER_BIT, 1)};
    const auto q = vk::chooseExtraQueues(families, 0, {{.otherFamily = true, .needs = VK_QUEUE_COMPUTE_BIT}});
    ASSERT_EQ(q.size(), 1u);
    EXPECT_EQ(q[0].family, 0u);
    EXPECT_EQ(q[0].index, 1u);
    EXPECT_FALSE(q[0].otherFamily);
    EXPECT_EQ(q[0].note,
              "family 0 (GRAPHICS|COMPUTE|TRANSFER), queue 1 (no family besides 0 runs COMPUTE commands with a queue "
              "to spare; a second queue of the main family instead)");
}

// memory = "shared" lands where the built-in chain's Shared buffers land (blade's rule: the
// BAR window of a discrete GPU), host-visible in write-combined system memory, device-local
// in VRAM: the same memory types, not only the same calls, for the blade #356 file.
TEST(ScenarioMemory, SharedTakesBladesSharedTypeAndTheOthersTheirPlacementRule) {
    constexpr VkMemoryPropertyFlags DL = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    constexpr VkMemoryPropertyFlags HV = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    constexpr VkMemoryPropertyFlags CACHED = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    // the H200's types (docs/experiments.md): VRAM, system memory, cached system memory, BAR
    VkPhysicalDeviceMemoryProperties m{};
    m.memoryHeapCount = 2;
    m.memoryHeaps[0] = {.size = 8ull << 30, .flags = VK_MEMORY_HEAP_DEVICE_LOCAL_BIT};
    m.memoryHeaps[1] = {.size = 16ull << 30, .flags = 0};
    for (const VkMemoryPropertyFlags f : {DL, HV, HV | CACHED, DL | HV})
        m.memoryTypes[m.memoryTypeCount++] = {.propertyFlags = f, .heapIndex = (f & DL) ? 0u : 1u};
    const auto typeOf = [&](scenario::Placement p) {
        const vk::ScenarioMemory memory = vk::scenarioMemory(p);
        return memory.placement == BufferMemory::Blade ? vk::chooseMemoryType(m, ~0u, memory.memoryClass)
                                                       : vk::choosePlacementType(m, ~0u, memory.placement);
    };
    EXPECT_EQ(typeOf(scenario::Placement::Shared), std::optional(3u));
    EXPECT_EQ(typeOf(scenario::Placement::Shared), vk::chooseMemoryType(m, ~0u, vk::MemoryClass::Shared));
    EXPECT_EQ(typeOf(scenario::Placement::HostVisible), std::optional(1u));
    EXPECT_EQ(typeOf(scenario::Placement::DeviceLocal), std::optional(0u));
    EXPECT_EQ(vk::scenarioMemory(scenario::Placement::Shared).memoryClass, vk::MemoryClass::Shared);
}

}  // namespace
}  // namespace repro::scenario
