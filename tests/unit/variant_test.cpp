// The experiment dimensions (src/core/variant.hpp): names, where --submit-every,
// --split-mib and --split-ms close command buffers, the --matrix set (children/run_factors.hpp,
// its flags from children/child_run.hpp) and the driver settings.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "children/child_run.hpp"
#include "children/run_factors.hpp"
#include "core/variant.hpp"

namespace repro {
namespace {

constexpr uint64_t kMiB = 1048576;

TEST(VariantNames, EveryBarrierRoundTripsAndOnlyTheTwoControlsAreControls) {
    const std::vector<std::pair<std::string, bool>> expected = {{"blade", false},         {"sync2", false},
                                                                {"buffer", false},        {"full", false},
                                                                {"execution-only", true}, {"none", true}};
    for (const auto& [text, control] : expected) {
        const auto b = parseBarrier(text);
        ASSERT_TRUE(b) << text;
        EXPECT_EQ(name(*b), text);
        EXPECT_EQ(isControl(*b), control) << text;
    }
    EXPECT_FALSE(parseBarrier("Sync2"));
    EXPECT_FALSE(parseBarrier(""));
}

TEST(VariantNames, MemoryAndProfileRoundTrip) {
    for (const char* text : {"blade", "device-local", "host-visible", "host-cached"}) {
        ASSERT_TRUE(parseBufferMemory(text)) << text;
        EXPECT_EQ(name(*parseBufferMemory(text)), text);
    }
    EXPECT_FALSE(parseBufferMemory("vram"));
    EXPECT_EQ(parseProfile("blade-exact"), Profile::BladeExact);
    EXPECT_EQ(parseProfile("default"), Profile::Default);
    EXPECT_FALSE(parseProfile("blade"));
}

TEST(CommandBufferEnds, WithoutCutsTheWholeChainIsOneCommandBuffer) {
    const std::vector<uint64_t> written(14, 30 * kMiB);
    EXPECT_EQ(commandBufferEnds(written, {}), (std::vector<size_t>{13}));
    EXPECT_TRUE(commandBufferEnds({}, {}).empty());
}

TEST(CommandBufferEnds, SubmitEveryKClosesAfterEachKDispatchesAndAtTheEnd) {
    const std::vector<uint64_t> written(7, 1);
    EXPECT_EQ(commandBufferEnds(written, {.every = 2}), (std::vector<size_t>{1, 3, 5, 6}));
    EXPECT_EQ(commandBufferEnds(written, {.every = 1}), (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(commandBufferEnds(written, {.every = 7}), (std::vector<size_t>{6}));
    EXPECT_EQ(commandBufferEnds(written, {.every = 100}), (std::vector<size_t>{6}));
}

TEST(CommandBufferEnds, SplitMibClosesOnlyOnceTheBytesPassTheLimit) {
    // Exactly X MiB written (after dispatch 1) does not pass X; the next dispatch does.
    const std::vector<uint64_t> exact = {kMiB / 2, kMiB / 2, kMiB / 2, kMiB / 2};
    EXPECT_EQ(commandBufferEnds(exact, {.splitMiB = 1.0}), (std::vector<size_t>{2, 3}));
    // One byte more passes it at dispatch 1.
    const std::vector<uint64_t> over = {kMiB / 2, kMiB / 2 + 1, kMiB / 2, kMiB / 2};
    EXPECT_EQ(commandBufferEnds(over, {.splitMiB = 1.0}), (std::vector<size_t>{1, 3}));
    // The count restarts after each submit.
    const std::vector<uint64_t> steady(6, kMiB);
    EXPECT_EQ(commandBufferEnds(steady, {.splitMiB = 1.5}), (std::vector<size_t>{1, 3, 5}));
}

TEST(CommandBufferEnds, ADispatchThatAlonePassesTheLimitEndsItsOwnCommandBuffer) {
    // The original's sizes: conv-T writes 30,537,728 B, slice 14,745,600 B.
    std::vector<uint64_t> chain;
    for (int i = 0; i < 3; ++i) chain.insert(chain.end(), {30537728, 14745600});
    EXPECT_EQ(commandBufferEnds(chain, {.splitMiB = 16}), (std::vector<size_t>{0, 2, 4, 5}));
    EXPECT_EQ(commandBufferEnds(chain, {.splitMiB = 0.001}), (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(commandBufferEnds(chain, {.splitMiB = 1e9}), (std::vector<size_t>{5}));
}

TEST(CommandBufferEnds, EveryAndSplitMibTogetherCloseOnWhicheverComesFirst) {
    const std::vector<uint64_t> written = {kMiB, 3 * kMiB, kMiB, kMiB, kMiB, kMiB};
    EXPECT_EQ(commandBufferEnds(written, {.every = 3, .splitMiB = 2.0}), (std::vector<size_t>{1, 4, 5}));
}

TEST(CommandBufferEnds, HostWaitDoesNotChangeWhereCommandBuffersEnd) {
    const std::vector<uint64_t> written(5, kMiB);
    EXPECT_EQ(commandBufferEnds(written, {.every = 2, .hostWait = false}),
              commandBufferEnds(written, {.every = 2, .hostWait = true}));
}

TEST(CommandBufferEnds, SplitMsClosesOnlyOnceThePredictedTimePassesTheLimit) {
    const std::vector<uint64_t> written(4, 1);
    // Exactly T predicted (after dispatch 1) does not pass T; the next dispatch does.
    const std::vector<double> exact = {0.25, 0.25, 0.25, 0.25};
    EXPECT_EQ(commandBufferEnds(written, exact, {.splitMs = 500.0}), (std::vector<size_t>{2, 3}));
    // A little more passes it at dispatch 1.
    const std::vector<double> over = {0.25, 0.2501, 0.25, 0.25};
    EXPECT_EQ(commandBufferEnds(written, over, {.splitMs = 500.0}), (std::vector<size_t>{1, 3}));
    // The time restarts after each submit.
    const std::vector<double> steady(6, 1.0);
    EXPECT_EQ(commandBufferEnds(std::vector<uint64_t>(6, 1), steady, {.splitMs = 1500.0}),
              (std::vector<size_t>{1, 3, 5}));
}

TEST(CommandBufferEnds, ADispatchPredictedPastTheTimeLimitEndsItsOwnCommandBuffer) {
    // A conv-T of 400 ms and a slice of 2 ms, three steps, cut at 100 ms: each conv-T
    // closes a command buffer by itself and the slice goes with the next conv-T.
    std::vector<double> predicted;
    for (int i = 0; i < 3; ++i) predicted.insert(predicted.end(), {0.4, 0.002});
    const std::vector<uint64_t> written(6, 1);
    EXPECT_EQ(commandBufferEnds(written, predicted, {.splitMs = 100}), (std::vector<size_t>{0, 2, 4, 5}));
    EXPECT_EQ(commandBufferEnds(written, predicted, {.splitMs = 0.001}), (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(commandBufferEnds(written, predicted, {.splitMs = 1e9}), (std::vector<size_t>{5}));
}

TEST(CommandBufferEnds, EveryBytesAndTimeTogetherCloseOnWhicheverComesFirst) {
    const std::vector<uint64_t> written = {kMiB, 3 * kMiB, kMiB, kMiB, kMiB, kMiB, kMiB};
    const std::vector<double> predicted = {0.001, 0.001, 0.001, 0.001, 0.5, 0.001, 0.001};
    // Bytes close after 1 (4 MiB > 2); three dispatches after 4; time closes 4 too (0.503 s);
    // then the end.
    EXPECT_EQ(commandBufferEnds(written, predicted, {.every = 3, .splitMiB = 2.0, .splitMs = 100.0}),
              (std::vector<size_t>{1, 4, 6}));
    // Time alone: after 4, where 504 ms have passed 100.
    EXPECT_EQ(commandBufferEnds(written, predicted, {.splitMs = 100.0}), (std::vector<size_t>{4, 6}));
}

TEST(CommandBufferEnds, WithoutSplitMsThePredictionsAreNotNeededOrUsed) {
    const std::vector<uint64_t> written(5, kMiB);
    const std::vector<double> predicted(5, 100.0);
    EXPECT_EQ(commandBufferEnds(written, predicted, {.every = 2}), commandBufferEnds(written, {.every = 2}));
    EXPECT_EQ(commandBufferEnds(written, {}, {.splitMiB = 1.5}), (std::vector<size_t>{1, 3, 4}));
}

TEST(CommandBufferEnds, SplitMsWithoutAPredictionPerDispatchIsAProgrammingError) {
    const std::vector<uint64_t> written(3, 1);
    EXPECT_THROW(commandBufferEnds(written, {.splitMs = 1.0}), std::invalid_argument);
    const std::vector<double> tooFew = {0.1, 0.1};
    EXPECT_THROW(commandBufferEnds(written, tooFew, {.splitMs = 1.0}), std::invalid_argument);
}

TEST(SubmitStructure, EachCutOptionIsACut) {
    EXPECT_FALSE(SubmitStructure{}.cuts());
    EXPECT_TRUE(SubmitStructure{.every = 1}.cuts());
    EXPECT_TRUE(SubmitStructure{.splitMiB = 1.0}.cuts());
    EXPECT_TRUE(SubmitStructure{.splitMs = 1.0}.cuts());
    EXPECT_FALSE(SubmitStructure{.hostWait = false}.cuts());
}

TEST(MatrixVariants, TheDocumentedSetForBothModes) {
    const auto variants = matrixVariants(26.2);
    ASSERT_EQ(variants.size(), 28u);
    std::set<std::string> labels;
    int controls = 0, quirks = 0;
    for (const auto& v : variants) {
        const std::vector<std::string> args = factorFlags(v.factors);
        EXPECT_TRUE(labels.insert(label(v)).second) << "duplicate " << label(v);
        ASSERT_GE(args.size(), 2u);
        EXPECT_EQ(args[0], "--mode");
        EXPECT_TRUE(args[1] == "multipass" || args[1] == "single") << label(v);
        controls += isControl(v);
        quirks += bladeQuirks(v);
        EXPECT_FALSE(isControl(v) && bladeQuirks(v)) << label(v);
    }
    EXPECT_EQ(controls, 4);
    EXPECT_EQ(quirks, 2);
    // The first row of each mode is blade's own stream: no flag but --mode.
    EXPECT_EQ(factorFlags(variants[0].factors), (std::vector<std::string>{"--mode", "multipass"}));
    EXPECT_EQ(factorFlags(variants[14].factors), (std::vector<std::string>{"--mode", "single"}));
    // The split-mib row carries the value it was given, with three decimals.
    bool sawSplit = false;
    for (const auto& v : variants) {
        const std::vector<std::string> args = factorFlags(v.factors);
        for (size_t i = 0; i + 1 < args.size(); ++i) {
            if (args[i] == "--split-mib") {
                EXPECT_EQ(args[i + 1], "26.200");
                sawSplit = true;
            }
        }
    }
    EXPECT_TRUE(sawSplit);
}

TEST(DriverSettings, RadvGetsTheSettingsTheIssueNames) {
    std::set<std::string> radv;
    for (const auto& s : driverSettingsFor("MESA_RADV", false)) {
        EXPECT_EQ(s.driver, "MESA_RADV");
        EXPECT_FALSE(s.effect.empty());
        EXPECT_FALSE(s.source.empty());
        radv.insert(s.variable + "=" + s.value);
    }
    for (const char* want :
         {"RADV_DEBUG=syncshaders", "RADV_DEBUG=fullsync", "RADV_DEBUG=nocache", "RADV_DEBUG=allbos", "RADV_DEBUG=hang",
          "RADV_DEBUG=nocompute", "RADV_DEBUG=zerovram", "ACO_DEBUG=force-waitcnt", "ACO_DEBUG=force-waitdeps",
          "ACO_DEBUG=novn", "RADV_PERFTEST=cswave32", "RADV_DEBUG=llvm", "RADV_DEBUG=noibs", "RADV_DEBUG=noibchaining",
          "ACO_DEBUG=nosched", "ACO_DEBUG=noopt"}) {
        EXPECT_TRUE(radv.count(want)) << want;
    }
}

TEST(DriverSettings, EverySettingSaysWhichReleasesKnowItsName) {
    std::set<std::string> seen;
    for (const auto& s : driverSettings()) {
        EXPECT_FALSE(s.releases.empty()) << s.variable << "=" << s.value;
        EXPECT_FALSE(s.proves.empty()) << s.variable << "=" << s.value << " says nothing of what it proves";
        EXPECT_TRUE(seen.insert(s.variable + "=" + s.value).second) << "duplicate " << s.value;
        EXPECT_EQ(s.value.find(','), std::string::npos) << "one option per setting: " << s.value;
    }
    // The renamed option says so on both sides.
    for (const auto& s : driverSettingsFor("MESA_RADV", false)) {
        if (s.value == "noibs") {
            EXPECT_NE(s.releases.find("renamed noibchaining"), std::string::npos) << s.releases;
        }
        if (s.value == "llvm") {
            EXPECT_NE(s.source.find("issue_templates"), std::string::npos) << s.source;
        }
        if (s.value == "hang") {
            EXPECT_NE(s.effect.find("implies syncshaders"), std::string::npos) << s.effect;
        }
    }
}

// "\0...\0" boundaries as a library's string table has them.
std::string strings(std::initializer_list<std::string_view> names) {
    std::string out(1, '\0');
    for (const auto n : names) {
        out += n;
        out += '\0';
    }
    return out;
}

TEST(OptionPresenceInBytes, WholeStringsTailsAndAbsence) {
    const std::string table = strings({"nofastclears", "syncshaders", "nosyncshaders2", "llvm", "force-waitcnt"});
    EXPECT_EQ(optionNameInBytes(table, "syncshaders"), OptionPresence::Known);
    EXPECT_EQ(optionNameInBytes(table, "llvm"), OptionPresence::Known);
    EXPECT_EQ(optionNameInBytes(table, "force-waitcnt"), OptionPresence::Known);
    EXPECT_EQ(optionNameInBytes(table, "noibchaining"), OptionPresence::NotKnown);
    EXPECT_EQ(optionNameInBytes(table, "clears"), OptionPresence::TailOnly);         // tail of "nofastclears"
    EXPECT_EQ(optionNameInBytes(table, "nosyncshaders"), OptionPresence::NotKnown);  // prefix, not NUL-terminated
    EXPECT_EQ(optionNameInBytes(table, ""), OptionPresence::NotKnown);
    // At the very start a name needs no NUL before it; at the very end it needs one after.
    EXPECT_EQ(optionNameInBytes(std::string_view("hang\0x", 6), "hang"), OptionPresence::Known);
    EXPECT_EQ(optionNameInBytes(std::string_view("\0hang", 5), "hang"), OptionPresence::NotKnown);
    EXPECT_EQ(name(OptionPresence::TailOnly), "tail only");
}

TEST(OptionPresenceInLibrary, UnreadablePathSaysWhy) {
    const LibraryOptionCheck c = optionKnownToLibrary("/nonexistent/libvulkan_radeon.so", "RADV_DEBUG", "syncshaders");
    EXPECT_EQ(c.presence, OptionPresence::Unreadable);
    EXPECT_EQ(c.detail, "cannot read /nonexistent/libvulkan_radeon.so: No such file or directory");
    EXPECT_EQ(optionKnownToLibrary("/", "RADV_DEBUG", "syncshaders").presence, OptionPresence::Unreadable);
}

// The distribution's own drivers, where installed (Debian's mesa-vulkan-drivers ships both).
TEST(OptionPresenceInLibrary, InstalledRadvKnowsItsOptions) {
    const std::string radv = "/usr/lib/x86_64-linux-gnu/libvulkan_radeon.so";
    if (!std::filesystem::exists(radv)) GTEST_SKIP() << radv << " is not installed";
    // Names every RADV and ACO table read has (whatever the installed Mesa's version).
    for (const auto& [variable, option] :
         {std::pair{"RADV_DEBUG", "syncshaders"}, std::pair{"RADV_DEBUG", "zerovram"}, std::pair{"RADV_DEBUG", "llvm"},
          std::pair{"ACO_DEBUG", "force-waitcnt"}, std::pair{"RADV_PERFTEST", "cswave32"},
          std::pair{"RADV_DEBUG", "nocache"}, std::pair{"RADV_DEBUG", "allbos"},
          std::pair{"ACO_DEBUG", "force-waitdeps"}, std::pair{"ACO_DEBUG", "novn"}}) {
        const LibraryOptionCheck c = optionKnownToLibrary(radv, variable, option);
        EXPECT_EQ(c.presence, OptionPresence::Known) << c.detail;
        EXPECT_EQ(c.detail, std::string("libvulkan_radeon.so knows ") + variable + " option '" + option + "'");
    }
    const LibraryOptionCheck none = optionKnownToLibrary(radv, "RADV_DEBUG", "no-such-radv-option-name");
    EXPECT_EQ(none.presence, OptionPresence::NotKnown);
    EXPECT_NE(none.detail.find("setting it tests nothing"), std::string::npos) << none.detail;
}

TEST(OptionPresenceInLibrary, InstalledLavapipeKnowsItsPerfOptions) {
    const std::string lvp = "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so";
    if (!std::filesystem::exists(lvp)) GTEST_SKIP() << lvp << " is not installed";
    // LP_PERF names are in release builds (LP_DEBUG's only in debug builds of llvmpipe).
    EXPECT_EQ(optionKnownToLibrary(lvp, "LP_PERF", "no_mipmap").presence, OptionPresence::Known);
    EXPECT_EQ(optionKnownToLibrary(lvp, "RADV_DEBUG", "syncshaders").presence, OptionPresence::NotKnown);
}

TEST(DriverSettings, EachDriverGetsOnlyItsOwnAndAllGetsEveryOne) {
    const auto anv = driverSettingsFor("INTEL_OPEN_SOURCE_MESA", false);
    ASSERT_FALSE(anv.empty());
    for (const auto& s : anv) EXPECT_EQ(s.variable, "INTEL_DEBUG");
    const auto nvk = driverSettingsFor("MESA_NVK", false);
    ASSERT_EQ(nvk.size(), 1u);
    EXPECT_EQ(nvk[0].variable + "=" + nvk[0].value, "NVK_DEBUG=push_sync");
    EXPECT_TRUE(driverSettingsFor("MESA_LLVMPIPE", false).empty());
    EXPECT_TRUE(driverSettingsFor("NVIDIA_PROPRIETARY", false).empty());
    EXPECT_EQ(driverSettingsFor("MESA_LLVMPIPE", true).size(), driverSettings().size());
}

}  // namespace
}  // namespace repro
