// REPRO_SIMULATE's grammar: every behaviour, every key, every error and every conflict
// (config.hpp; tests/README.md states the same rules).
#include "config.hpp"

#include <gtest/gtest.h>

#include <string>

namespace repro::simdriver {
namespace {

Config parsed(const std::string& text) {
    const ParseResult r = parseSimulate(text);
    EXPECT_TRUE(r.config.has_value()) << text << ": " << r.error;
    EXPECT_TRUE(r.error.empty()) << r.error;
    return r.config.value_or(Config{});
}

// The error line for `text`, which must not parse.
std::string error(const std::string& text) {
    const ParseResult r = parseSimulate(text);
    EXPECT_FALSE(r.config.has_value()) << text;
    const std::string prefix = "repro-simulate: REPRO_SIMULATE='" + text + "': ";
    EXPECT_EQ(r.error.rfind(prefix, 0), 0u) << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
    return r.error.substr(std::min(prefix.size(), r.error.size()));
}

TEST(Grammar, EmptyIsInvisible) {
    const Config c = parsed("");
    EXPECT_TRUE(c.empty());
    EXPECT_FALSE(c.cost());
}

TEST(Grammar, ErrorLineQuotesTheWholeValueAndNamesTheOffendingText) {
    EXPECT_EQ(parseSimulate("seed-bug;bogus:1").error,
              "repro-simulate: REPRO_SIMULATE='seed-bug;bogus:1': unknown behaviour 'bogus' (behaviours: identity, "
              "seed-bug, watchdog, clock, stale, crash, abort, stall, lost, flaky, api, hang, drop-transfers, "
              "second-family, device-fault, cured-by, lost-transitions, no-storage-images, weak-barriers)");
}

TEST(Grammar, StructuralErrors) {
    EXPECT_EQ(error(";"), "empty behaviour (two ';' in a row, or one at an end)");
    EXPECT_EQ(error("seed-bug;"), "empty behaviour (two ';' in a row, or one at an end)");
    EXPECT_EQ(error("seed-bug;;identity"), "empty behaviour (two ';' in a row, or one at an end)");
    EXPECT_EQ(error("seed-bug:"), "seed-bug: empty argument after ':'");
    EXPECT_EQ(error("seed-bug:dispatches=3,"),
              "seed-bug: empty item in 'dispatches=3,' (two ',' in a row, or one at an end)");
    EXPECT_EQ(error("seed-bug:12"), "seed-bug: '12' is not key=value (keys: dispatches)");
    EXPECT_EQ(error("seed-bug:dispatch=3"), "seed-bug: unknown key 'dispatch' (keys: dispatches)");
    EXPECT_EQ(error("seed-bug:dispatches=3,dispatches=4"), "seed-bug: key 'dispatches' given twice");
    EXPECT_EQ(error("seed-bug:dispatches="), "seed-bug: dispatches=: empty value");
    EXPECT_NE(error("Seed-Bug").find("unknown behaviour 'Seed-Bug'"), std::string::npos);  // case matters
    EXPECT_NE(error(" seed-bug").find("unknown behaviour ' seed-bug'"),
              std::string::npos);  // nothing is trimmed
    EXPECT_EQ(error("seed-bug;seed-bug"), "'seed-bug' given twice");
    EXPECT_EQ(error("identity;identity:name=x"), "'identity' given twice");
}

TEST(Identity, AloneIsTheOriginalReportsDevice) {
    const Identity id = *parsed("identity").identity;
    EXPECT_EQ(*id.name, "AMD Radeon 890M Graphics (RADV STRIX1)");
    EXPECT_EQ(*id.driverId, VK_DRIVER_ID_MESA_RADV);
    EXPECT_EQ(*id.driverName, "radv");
    EXPECT_EQ(*id.driverInfo, "Mesa 26.0.2");
    EXPECT_EQ(*id.vendorId, 0x1002u);
    EXPECT_EQ(*id.deviceId, 0x150eu);
    EXPECT_EQ(*id.type, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU);
    EXPECT_EQ(*id.driverVersion, VK_MAKE_VERSION(26, 0, 2));
    EXPECT_FALSE(id.apiVersion);
    EXPECT_FALSE(id.pci);
    EXPECT_FALSE(id.conformance);
}

TEST(Identity, KeysSetOnlyWhatTheyName) {
    const Identity id = *parsed(
                             "identity:name=Test GPU (X),driver-id=DRIVER_ID_NVIDIA_PROPRIETARY,driver-name=nv,"
                             "driver-info=580.1,vendor=0x10DE,device=0x2335,type=discrete,api=1.3.255,"
                             "driver-version=0x9127c100,conformance=1.4.1.3,pci=0001:c4:1f.7")
                             .identity;
    EXPECT_EQ(*id.name, "Test GPU (X)");
    EXPECT_EQ(*id.driverId, VK_DRIVER_ID_NVIDIA_PROPRIETARY);
    EXPECT_EQ(*id.driverName, "nv");
    EXPECT_EQ(*id.driverInfo, "580.1");
    EXPECT_EQ(*id.vendorId, 0x10deu);
    EXPECT_EQ(*id.deviceId, 0x2335u);
    EXPECT_EQ(*id.type, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU);
    EXPECT_EQ(*id.apiVersion, VK_MAKE_API_VERSION(0, 1, 3, 255));
    EXPECT_EQ(*id.driverVersion, 0x9127c100u);  // NVIDIA's own packing, given raw
    EXPECT_EQ(id.conformance->major, 1);
    EXPECT_EQ(id.conformance->patch, 3);
    EXPECT_EQ(*id.pci, (PciAddress{.domain = 1, .bus = 0xc4, .device = 0x1f, .function = 7}));
    EXPECT_EQ(pciText(*id.pci), "0001:c4:1f.7");
    const Identity only = *parsed("identity:type=integrated").identity;
    EXPECT_FALSE(only.name);
    EXPECT_FALSE(only.driverId);
    EXPECT_EQ(*only.type, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU);
}

TEST(Identity, EveryDeviceTypeAndDriverIdSpelling) {
    EXPECT_EQ(*parsed("identity:type=virtual").identity->type, VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU);
    EXPECT_EQ(*parsed("identity:type=cpu").identity->type, VK_PHYSICAL_DEVICE_TYPE_CPU);
    EXPECT_EQ(*parsed("identity:type=other").identity->type, VK_PHYSICAL_DEVICE_TYPE_OTHER);
    EXPECT_EQ(*parsed("identity:driver-id=MESA_RADV").identity->driverId, VK_DRIVER_ID_MESA_RADV);
    EXPECT_EQ(*parsed("identity:driver-id=VK_DRIVER_ID_MESA_LLVMPIPE").identity->driverId, VK_DRIVER_ID_MESA_LLVMPIPE);
    EXPECT_EQ(parseDriverId("IMAGINATION_OPEN_SOURCE_MESA"), VK_DRIVER_ID_IMAGINATION_OPEN_SOURCE_MESA);
    EXPECT_FALSE(parseDriverId("MESA_HONEYKRISP"));  // not in the 1.3.239 headers
    EXPECT_FALSE(parseDriverId("mesa_radv"));
}

TEST(Identity, BadValues) {
    EXPECT_NE(error("identity:driver-id=RADV").find("driver-id=RADV: not a VkDriverId"), std::string::npos);
    EXPECT_EQ(error("identity:vendor=1002"), "identity: vendor=1002: not 0x and 1 to 8 hexadecimal digits");
    EXPECT_EQ(error("identity:device=0x"), "identity: device=0x: not 0x and 1 to 8 hexadecimal digits");
    EXPECT_EQ(error("identity:device=0x123456789"),
              "identity: device=0x123456789: not 0x and 1 to 8 hexadecimal digits");
    EXPECT_EQ(error("identity:type=gpu"), "identity: type=gpu: not integrated, discrete, virtual, cpu or other");
    EXPECT_EQ(error("identity:api=1.3"), "identity: api=1.3: not MAJOR.MINOR.PATCH (at most 127.1023.4095)");
    EXPECT_EQ(error("identity:api=0.9.0"), "identity: api=0.9.0: below Vulkan 1.0");
    EXPECT_EQ(error("identity:api=1.3.4096"), "identity: api=1.3.4096: not MAJOR.MINOR.PATCH (at most 127.1023.4095)");
    EXPECT_EQ(*parsed("identity:driver-version=1023.0.1").identity->driverVersion, VK_MAKE_VERSION(1023, 0, 1));
    EXPECT_NE(error("identity:driver-version=1024.0.0").find("not MAJOR.MINOR.PATCH (packed as VK_MAKE_VERSION"),
              std::string::npos);
    EXPECT_EQ(error("identity:conformance=1.2.3"), "identity: conformance=1.2.3: not A.B.C.D (each 0 to 255)");
    EXPECT_EQ(error("identity:pci=c4:00.0"),
              "identity: pci=c4:00.0: not DOMAIN:BUS:DEV.FN in hexadecimal (e.g. 0000:c4:00.0)");
    EXPECT_NE(error("identity:pci=0000:c4:20.0").find("not DOMAIN:BUS:DEV.FN"),
              std::string::npos);  // device > 0x1f
    EXPECT_NE(error("identity:pci=0000:c4:00.8").find("not DOMAIN:BUS:DEV.FN"),
              std::string::npos);  // function > 7
    EXPECT_NE(error("identity:pci=0000:100:00.0").find("not DOMAIN:BUS:DEV.FN"), std::string::npos);
    EXPECT_EQ(error("identity:name=" + std::string(256, 'x')),
              "identity: name=" + std::string(256, 'x') + ": longer than 255 bytes");
    EXPECT_EQ(parsed("identity:name=" + std::string(255, 'x')).identity->name->size(), 255u);
    EXPECT_EQ(error("identity:colour=red"),
              "identity: unknown key 'colour' (keys: name, driver-id, driver-name, driver-info, vendor, "
              "device, type, "
              "api, driver-version, conformance, pci)");
}

TEST(SeedBug, DefaultAndDispatches) {
    EXPECT_EQ(parsed("seed-bug").seedBug->dispatches, 12u);
    EXPECT_EQ(parsed("seed-bug:dispatches=7").seedBug->dispatches, 7u);
    EXPECT_EQ(parsed("seed-bug:dispatches=0").seedBug->dispatches, 0u);
    EXPECT_EQ(parsed("seed-bug:dispatches=4294967295").seedBug->dispatches, 4294967295u);
    EXPECT_EQ(error("seed-bug:dispatches=4294967296"),
              "seed-bug: dispatches=4294967296: not a whole number of dispatches (0 to 4294967295)");
    EXPECT_NE(error("seed-bug:dispatches=-1").find("not a whole number"), std::string::npos);
    EXPECT_NE(error("seed-bug:dispatches=+1").find("not a whole number"), std::string::npos);
    EXPECT_NE(error("seed-bug:dispatches=1.5").find("not a whole number"), std::string::npos);
}

TEST(Flaky, ProbabilityFirstThenKeys) {
    const Flaky f = *parsed("flaky:0.3").flaky;
    EXPECT_DOUBLE_EQ(f.probability, 0.3);
    EXPECT_EQ(f.dispatches, 12u);
    EXPECT_EQ(f.seed, 1u);
    const Flaky g = *parsed("flaky:1,dispatches=7,seed=18446744073709551615").flaky;
    EXPECT_DOUBLE_EQ(g.probability, 1.0);
    EXPECT_EQ(g.dispatches, 7u);
    EXPECT_EQ(g.seed, 18446744073709551615u);
    EXPECT_DOUBLE_EQ(parsed("flaky:0").flaky->probability, 0.0);
    EXPECT_EQ(error("flaky"), "flaky: needs a probability: flaky:P with P from 0 to 1");
    EXPECT_EQ(error("flaky:seed=3"), "flaky: needs a probability first: flaky:P[,dispatches=K][,seed=S]");
    EXPECT_EQ(error("flaky:seed=3,0.5"), "flaky: '0.5' must come first, before the key=value settings");
    EXPECT_EQ(error("flaky:0.5,0.6"), "flaky: '0.6': only one value without a key is taken");
    EXPECT_EQ(error("flaky:1.01"), "flaky: '1.01' is not a probability (0 to 1, e.g. 0.3)");
    EXPECT_EQ(error("flaky:.3"), "flaky: '.3' is not a probability (0 to 1, e.g. 0.3)");
    EXPECT_EQ(error("flaky:30%"), "flaky: '30%' is not a probability (0 to 1, e.g. 0.3)");
    EXPECT_EQ(error("flaky:0.3,seed=x"), "flaky: seed=x: not a whole number (0 to 2^64-1)");
}

TEST(Clock, RateRequiredAndSomethingCostsTime) {
    const ClockCost c = *parsed("clock:us-per-wg=2.5,ms-per-dispatch=1").clock;
    EXPECT_DOUBLE_EQ(c.usPerWorkgroup, 2.5);
    EXPECT_DOUBLE_EQ(c.msPerDispatch, 1.0);
    EXPECT_DOUBLE_EQ(parsed("clock:us-per-wg=0,ms-per-dispatch=20").clock->msPerDispatch, 20.0);
    EXPECT_EQ(error("clock"), "clock: needs us-per-wg=U: clock:us-per-wg=U[,ms-per-dispatch=M]");
    EXPECT_EQ(error("clock:ms-per-dispatch=5"), "clock: needs us-per-wg=U: clock:us-per-wg=U[,ms-per-dispatch=M]");
    EXPECT_EQ(error("clock:us-per-wg=0"),
              "clock: every dispatch would cost 0 ms (give us-per-wg or ms-per-dispatch above 0)");
    EXPECT_EQ(error("clock:us-per-wg=fast"),
              "clock: us-per-wg=fast: not a number (digits, optionally one '.'; at most 1e9)");
    EXPECT_NE(error("clock:us-per-wg=1e3").find("not a number"), std::string::npos);
    EXPECT_NE(error("clock:us-per-wg=1000000001").find("at most 1e9"), std::string::npos);
    EXPECT_EQ(parsed("clock:us-per-wg=1").cost()->usPerWorkgroup, 1.0);
}

TEST(Watchdog, EveryKey) {
    const Watchdog w =
        *parsed("watchdog:timeout=2000,us-per-wg=3,ms-per-dispatch=0.5,recovery=hard,kmsg=/x/k=v.log").watchdog;
    EXPECT_DOUBLE_EQ(w.timeoutMs, 2000);
    EXPECT_DOUBLE_EQ(w.cost.usPerWorkgroup, 3);
    EXPECT_DOUBLE_EQ(w.cost.msPerDispatch, 0.5);
    EXPECT_EQ(w.recovery, Recovery::Hard);
    EXPECT_EQ(*w.kmsgPath, "/x/k=v.log");  // a value may hold '='
    const Watchdog soft = *parsed("watchdog:timeout=0.5,ms-per-dispatch=1").watchdog;
    EXPECT_EQ(soft.recovery, Recovery::Soft);
    EXPECT_FALSE(soft.kmsgPath);
    EXPECT_DOUBLE_EQ(parsed("watchdog:timeout=1,ms-per-dispatch=1").cost()->msPerDispatch, 1.0);
}

TEST(Watchdog, Errors) {
    EXPECT_NE(error("watchdog").find("watchdog: needs timeout=MS"), std::string::npos);
    EXPECT_EQ(error("watchdog:ms-per-dispatch=1"), "watchdog: needs timeout=MS");
    EXPECT_EQ(error("watchdog:timeout=0,ms-per-dispatch=1"),
              "watchdog: timeout=0: not a number of milliseconds above 0 (digits, optionally one '.')");
    EXPECT_EQ(error("watchdog:timeout=2s,ms-per-dispatch=1"),
              "watchdog: timeout=2s: not a number of milliseconds above 0 (digits, optionally one '.')");
    EXPECT_EQ(error("watchdog:timeout=2000"),
              "watchdog: no dispatch costs time, so nothing can time out (give us-per-wg or ms-per-dispatch "
              "above 0)");
    EXPECT_EQ(error("watchdog:timeout=1,ms-per-dispatch=1,recovery=reset"),
              "watchdog: recovery=reset: not soft, soft-next-submit or hard");
    EXPECT_EQ(parsed("watchdog:timeout=1,ms-per-dispatch=1,recovery=soft-next-submit").watchdog->recovery,
              Recovery::SoftNextSubmit);
    EXPECT_TRUE(parsed("device-fault").deviceFault);
    EXPECT_EQ(error("device-fault:1"), "device-fault: takes no argument ('1' given)");
}

TEST(WeakBarriers, TakesNoArgumentOrHangAndIsOneCauseOfWrongResults) {
    EXPECT_TRUE(parsed("weak-barriers").weakBarriers);
    EXPECT_FALSE(parsed("weak-barriers").weakBarriersHang);
    EXPECT_FALSE(parsed("weak-barriers").empty());
    EXPECT_TRUE(parsed("clock:us-per-wg=1;weak-barriers:hang").weakBarriersHang);
    EXPECT_TRUE(parsed("clock:us-per-wg=1;weak-barriers:hang").weakBarriers);
    EXPECT_EQ(error("weak-barriers:hang"),
              "weak-barriers:hang needs watchdog or clock: a hung dispatch never ends on the simulated clock");
    EXPECT_EQ(error("weak-barriers:1"), "weak-barriers: takes no argument or hang ('1' given)");
    EXPECT_EQ(error("weak-barriers;stale:dispatch=1"),
              "stale and weak-barriers conflict: one cause of wrong results at a time");
}

TEST(Stale, Dispatch) {
    EXPECT_EQ(parsed("stale:dispatch=3").stale->dispatch, 3u);
    EXPECT_EQ(error("stale"), "stale: needs dispatch=D: stale:dispatch=D");
    EXPECT_EQ(error("stale:3"), "stale: '3' is not key=value (keys: dispatch)");
    EXPECT_EQ(error("stale:dispatch=0"), "stale: dispatch=0: not a dispatch number (1-based)");
}

TEST(Faults, EveryEntryPointAndK) {
    for (int i = 0; i < kFaultCallCount; ++i) {
        const auto call = static_cast<FaultCall>(i);
        const std::string name(callName(call));
        const Fault f = *parsed("crash:" + name).processFault;
        EXPECT_EQ(f.call, call) << name;
        EXPECT_EQ(f.k, 1u);
        EXPECT_EQ(f.kind, FaultKind::Crash);
    }
    EXPECT_EQ(parsed("abort:vkQueueSubmit:3").processFault->kind, FaultKind::Abort);
    EXPECT_EQ(parsed("abort:vkQueueSubmit:3").processFault->k, 3u);
    EXPECT_EQ(parsed("stall:vkDeviceWaitIdle").processFault->kind, FaultKind::Stall);
    const Fault lost = *parsed("lost:vkWaitSemaphores:9").lost;
    EXPECT_EQ(lost.kind, FaultKind::Lost);
    EXPECT_EQ(lost.call, FaultCall::WaitSemaphores);
    EXPECT_EQ(lost.k, 9u);
    EXPECT_EQ(parsed("lost:vkWaitSemaphoresKHR").lost->call,
              FaultCall::WaitSemaphores);  // the alias is the same entry point
    EXPECT_EQ(parsed("crash:vkQueueSubmit2KHR").processFault->call, FaultCall::QueueSubmit2);
    EXPECT_TRUE(isWait(FaultCall::WaitSemaphores));
    EXPECT_TRUE(isWait(FaultCall::QueueWaitIdle));
    EXPECT_TRUE(isWait(FaultCall::DeviceWaitIdle));
    EXPECT_FALSE(isWait(FaultCall::QueueSubmit));
}

TEST(Faults, Errors) {
    EXPECT_EQ(error("crash"), "crash: needs the entry point: crash:CALL[:k]");
    EXPECT_NE(error("crash:vkQueuePresentKHR")
                  .find("crash: unknown entry point 'vkQueuePresentKHR' (vkEnumeratePhysicalDevices, "),
              std::string::npos);
    EXPECT_EQ(error("stall:vkCreateInstance"),
              "stall: vkCreateInstance cannot be a fault point: the layer reads REPRO_SIMULATE there (the "
              "earliest is "
              "vkEnumeratePhysicalDevices)");
    EXPECT_EQ(error("crash:vkQueueSubmit:0"), "crash: '0' is not a call number k (1-based)");
    EXPECT_EQ(error("crash:vkQueueSubmit:x"), "crash: 'x' is not a call number k (1-based)");
    EXPECT_EQ(error("crash:vkQueueSubmit:1:2"), "crash: 'vkQueueSubmit:1:2' is not CALL or CALL:k");
    EXPECT_EQ(error("crash:vkQueueSubmit,k=2"), "crash: unknown key 'k' (it takes no keys)");
    EXPECT_EQ(error("lost:vkEnumeratePhysicalDevices"),
              "lost: vkEnumeratePhysicalDevices has no device to lose (use crash, abort or stall there)");
    EXPECT_EQ(error("lost:vkDestroyDevice"),
              "lost: vkDestroyDevice returns no result, so it cannot report a lost device");
    EXPECT_EQ(error("lost:vkCmdDispatchIndirect"),
              "lost: vkCmdDispatchIndirect returns no result, so it cannot report a lost device");
    EXPECT_EQ(error("lost:vkDestroyBuffer"),
              "lost: vkDestroyBuffer returns no result, so it cannot report a lost device");
}

TEST(Api, OnlyOnePointZero) {
    EXPECT_TRUE(parsed("api:1.0").api10);
    EXPECT_EQ(error("api"), "api: needs the version: api:1.0");
    EXPECT_EQ(error("api:1.1"), "api: only 1.0 can be simulated ('1.1' given)");
}

TEST(Combinations, AllowedOnes) {
    const Config a = parsed("identity;seed-bug:dispatches=7;clock:us-per-wg=1");
    EXPECT_TRUE(a.identity && a.seedBug && a.clock);
    const Config b = parsed("identity:pci=0000:c4:00.0;watchdog:timeout=200,ms-per-dispatch=30");
    EXPECT_TRUE(b.identity && b.watchdog);
    const Config c = parsed("stale:dispatch=3;clock:us-per-wg=1;api:1.0");
    EXPECT_TRUE(c.stale && c.clock && c.api10);
    const Config d = parsed("lost:vkQueueSubmit:2;crash:vkQueueSubmit:3");  // different calls of one entry point
    EXPECT_EQ(d.lost->k, 2u);
    EXPECT_EQ(d.processFault->k, 3u);
    const Config e = parsed("watchdog:timeout=500,ms-per-dispatch=1;hang:dispatches=3");  // the watchdog ends the hang
    ASSERT_TRUE(e.hang && e.watchdog);
    EXPECT_EQ(e.hang->dispatches, 3u);
    EXPECT_EQ(parsed("clock:us-per-wg=1;hang").hang->dispatches, 2u);
}

TEST(Combinations, Conflicts) {
    EXPECT_EQ(error("watchdog:timeout=1,ms-per-dispatch=1;clock:us-per-wg=1"),
              "watchdog and clock conflict: watchdog has its own clock (us-per-wg, ms-per-dispatch)");
    EXPECT_EQ(error("seed-bug;flaky:0.3"), "seed-bug and flaky conflict: one cause of wrong results at a time");
    EXPECT_EQ(error("stale:dispatch=1;seed-bug"), "seed-bug and stale conflict: one cause of wrong results at a time");
    EXPECT_EQ(error("flaky:0.3;watchdog:timeout=1,ms-per-dispatch=1"),
              "flaky and watchdog conflict: one cause of wrong results at a time");
    EXPECT_EQ(error("stale:dispatch=1;watchdog:timeout=1,ms-per-dispatch=1"),
              "stale and watchdog conflict: one cause of wrong results at a time");
    EXPECT_EQ(error("crash:vkQueueSubmit;stall:vkWaitSemaphores"),
              "crash and stall conflict: one of crash, abort and stall at a time");
    EXPECT_EQ(error("identity:api=1.2.0;api:1.0"), "identity's api= and api:1.0 conflict: both set apiVersion");
    EXPECT_EQ(error("lost:vkQueueSubmit:2;abort:vkQueueSubmit:2"),
              "lost and abort conflict: both act in call 2 of vkQueueSubmit");
    EXPECT_EQ(error("hang"), "hang needs watchdog or clock: a hung dispatch never ends on the simulated clock");
    EXPECT_EQ(error("seed-bug;hang;clock:us-per-wg=1"),
              "seed-bug and hang conflict: one cause of wrong results at a time");
}

}  // namespace
TEST(Parse, DropTransfersTakesNoArgumentAndIsOneCauseOfWrongResults) {
    EXPECT_TRUE(parsed("drop-transfers").dropTransfers);
    EXPECT_FALSE(parsed("drop-transfers").empty());
    EXPECT_TRUE(parsed("second-family").secondFamily);
    EXPECT_FALSE(parsed("second-family").empty());
    EXPECT_TRUE(parsed("second-family;drop-transfers").dropTransfers);  // not a cause of wrong results
    EXPECT_FALSE(parsed("identity").dropTransfers);
    EXPECT_TRUE(parsed("identity;drop-transfers;clock:us-per-wg=1").dropTransfers);
    EXPECT_EQ(error("drop-transfers:1"), "drop-transfers: takes no argument ('1' given)");
    EXPECT_EQ(error("drop-transfers;drop-transfers"), "'drop-transfers' given twice");
    EXPECT_EQ(error("seed-bug;drop-transfers"),
              "seed-bug and drop-transfers conflict: one cause of wrong results at a time");
    EXPECT_EQ(error("drop-transfers;stale:dispatch=1"),
              "stale and drop-transfers conflict: one cause of wrong results at a time");
}

TEST(CuredBy, OptionFirstVariableDefaultsToRadvDebug) {
    const Config c = parsed("seed-bug;cured-by:syncshaders");
    ASSERT_TRUE(c.curedBy);
    EXPECT_EQ(c.curedBy->option, "syncshaders");
    EXPECT_EQ(c.curedBy->variable, "RADV_DEBUG");
    EXPECT_EQ(parsed("stale:dispatch=2;cured-by:force-waitcnt,variable=ACO_DEBUG").curedBy->variable, "ACO_DEBUG");
    EXPECT_EQ(error("seed-bug;cured-by"), "cured-by: needs the option: cured-by:OPTION[,variable=VARIABLE]");
    EXPECT_EQ(error("seed-bug;cured-by:variable=X"),
              "cured-by: needs the option first: cured-by:OPTION[,variable=VARIABLE]");
    EXPECT_EQ(error("identity;cured-by:syncshaders"),
              "cured-by needs a wrong result to cure: seed-bug, flaky, stale, hang or drop-transfers");
}

// Mesa's reading of a debug variable (util/u_debug.c parse_debug_string): whole names between
// commas or spaces; "all" alone names every option.
TEST(CuredBy, OptionListedAsMesaReadsTheVariable) {
    EXPECT_TRUE(optionListed("syncshaders", "syncshaders"));
    EXPECT_TRUE(optionListed("nocache,syncshaders", "syncshaders"));
    EXPECT_TRUE(optionListed("nocache syncshaders", "syncshaders"));
    EXPECT_TRUE(optionListed("all", "syncshaders"));
    EXPECT_FALSE(optionListed("nosyncshaders", "syncshaders"));
    EXPECT_FALSE(optionListed("syncshaders2,hang", "syncshaders"));
    EXPECT_FALSE(optionListed("", "syncshaders"));
    EXPECT_FALSE(optionListed("nocache,all", "syncshaders"));
}

TEST(CuredBy, TheNamedOptionRemovesTheWrongResultAndNothingElse) {
    const Config c = parsed("identity;seed-bug:dispatches=2;cured-by:syncshaders");
    EXPECT_TRUE(cured(c, std::nullopt).seedBug);
    EXPECT_TRUE(cured(c, "nocache").seedBug);
    const Config fixed = cured(c, "nocache,syncshaders");
    EXPECT_FALSE(fixed.seedBug);
    EXPECT_TRUE(fixed.identity);
    EXPECT_FALSE(cured(parsed("drop-transfers;cured-by:allbos"), "allbos").dropTransfers);
    EXPECT_FALSE(cured(parsed("stale:dispatch=1;cured-by:hang"), "hang").stale);
}

}  // namespace repro::simdriver
