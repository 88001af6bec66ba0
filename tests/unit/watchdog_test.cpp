// Unit tests for src/core/watchdog.{hpp,cpp}: kernel releases, amdgpu lockup_timeout in
// every form the kernel accepts or rejects, each kernel era's defaults and one-value rule,
// the queue line and the other drivers' facts.
#include "forensics/watchdog.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace repro {
namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

TEST(KernelRelease, ParsesMajorAndMinor) {
    EXPECT_EQ(parseKernelRelease("6.19.0-rc3-foo"), (KernelVersion{6, 19}));
    EXPECT_EQ(parseKernelRelease("7.0.13-arch1-1"), (KernelVersion{7, 0}));
    EXPECT_EQ(parseKernelRelease("5.15.0-91-generic"), (KernelVersion{5, 15}));
    EXPECT_EQ(parseKernelRelease("6.19"), (KernelVersion{6, 19}));
    EXPECT_EQ(parseKernelRelease("6.8.0+"), (KernelVersion{6, 8}));
}

TEST(KernelRelease, RejectsWhatIsNotAVersion) {
    for (const char* bad : {"", "garbage", "6", "6.", ".19", "v6.19", "6.x", " 6.19", "99999999999.1"}) {
        EXPECT_FALSE(parseKernelRelease(bad)) << bad;
    }
}

TEST(KernelRelease, Eras) {
    EXPECT_EQ(amdgpuEra(KernelVersion{6, 19}), AmdgpuEra::Linux6_19On);
    EXPECT_EQ(amdgpuEra(KernelVersion{7, 0}), AmdgpuEra::Linux6_19On);
    EXPECT_EQ(amdgpuEra(KernelVersion{6, 18}), AmdgpuEra::Linux6_17To6_18);
    EXPECT_EQ(amdgpuEra(KernelVersion{6, 17}), AmdgpuEra::Linux6_17To6_18);
    EXPECT_EQ(amdgpuEra(KernelVersion{6, 16}), AmdgpuEra::Linux5_14To6_16);
    EXPECT_EQ(amdgpuEra(KernelVersion{5, 14}), AmdgpuEra::Linux5_14To6_16);
    EXPECT_EQ(amdgpuEra(KernelVersion{5, 13}), AmdgpuEra::Before5_14);
    EXPECT_EQ(amdgpuEra(KernelVersion{5, 0}), AmdgpuEra::Before5_14);
    EXPECT_EQ(amdgpuEra(KernelVersion{4, 19}), AmdgpuEra::Unknown);
    EXPECT_EQ(amdgpuEra(std::nullopt), AmdgpuEra::Unknown);
}

std::vector<int64_t> values(std::string_view text) {
    const LockupTimeoutParse p = parseLockupTimeout(text);
    EXPECT_FALSE(p.error) << text << ": " << p.error.value_or("");
    return p.values;
}

std::string error(std::string_view text) {
    const LockupTimeoutParse p = parseLockupTimeout(text);
    EXPECT_TRUE(p.error) << text;
    EXPECT_TRUE(p.values.empty()) << text;
    return p.error.value_or("");
}

TEST(LockupTimeoutParse, EmptyAndSysfsNewline) {
    EXPECT_TRUE(parseLockupTimeout("").empty());
    EXPECT_TRUE(parseLockupTimeout("\n").empty());
    EXPECT_EQ(values("5000\n"), (std::vector<int64_t>{5000}));
    // The first newline is sysfs's; kstrtol itself accepts one more.
    EXPECT_EQ(values("5000\n\n"), (std::vector<int64_t>{5000}));
}

TEST(LockupTimeoutParse, OneToFourValuesAndExtras) {
    EXPECT_EQ(values("5000"), (std::vector<int64_t>{5000}));
    EXPECT_EQ(values("10000,60000,10000,10000"), (std::vector<int64_t>{10000, 60000, 10000, 10000}));
    EXPECT_EQ(values("5000,2000"), (std::vector<int64_t>{5000, 2000}));
    EXPECT_EQ(values("0,0,0,0"), (std::vector<int64_t>{0, 0, 0, 0}));
    EXPECT_EQ(values("1,2,3,4,5"), (std::vector<int64_t>{1, 2, 3, 4, 5}));
}

TEST(LockupTimeoutParse, TheKernelStopsAtTheFirstEmptyField) {
    EXPECT_EQ(values("5000,,3000"), (std::vector<int64_t>{5000}));
    EXPECT_EQ(values("5000,"), (std::vector<int64_t>{5000}));
    EXPECT_TRUE(parseLockupTimeout(",5000").empty());
    // Garbage after the stop is never parsed.
    EXPECT_EQ(values("5000,,junk"), (std::vector<int64_t>{5000}));
}

TEST(LockupTimeoutParse, BaseZeroLikeKstrtol) {
    EXPECT_EQ(values("0x7d0"), (std::vector<int64_t>{2000}));
    EXPECT_EQ(values("0X7D0"), (std::vector<int64_t>{2000}));
    EXPECT_EQ(values("03720"), (std::vector<int64_t>{2000}));  // octal
    EXPECT_EQ(values("02000"), (std::vector<int64_t>{1024}));  // a leading 0 is octal
    EXPECT_EQ(values("+5000"), (std::vector<int64_t>{5000}));
    EXPECT_EQ(values("-1"), (std::vector<int64_t>{-1}));
    EXPECT_EQ(values("-0x10"), (std::vector<int64_t>{-16}));
    EXPECT_EQ(values("-0"), (std::vector<int64_t>{0}));
    EXPECT_EQ(values("-9223372036854775808"), (std::vector<int64_t>{INT64_MIN}));
}

TEST(LockupTimeoutParse, WhatTheKernelRejects) {
    EXPECT_TRUE(contains(error("08"), "EINVAL"));  // 8 is no octal digit
    EXPECT_TRUE(contains(error("0x"), "EINVAL"));
    EXPECT_TRUE(contains(error(" 5000"), "EINVAL"));  // no spaces
    EXPECT_TRUE(contains(error("5000 "), "EINVAL"));
    EXPECT_TRUE(contains(error("5s"), "EINVAL"));
    EXPECT_TRUE(contains(error("1e3"), "EINVAL"));
    EXPECT_TRUE(contains(error("--5"), "EINVAL"));
    EXPECT_TRUE(contains(error("+-5"), "EINVAL"));
    EXPECT_TRUE(contains(error("garbage"), "field 1 'garbage'"));
    EXPECT_TRUE(contains(error("5000,abc"), "field 2 'abc'"));
    EXPECT_TRUE(contains(error("9223372036854775808"), "ERANGE"));
    EXPECT_TRUE(contains(error("99999999999999999999"), "ERANGE"));
    EXPECT_TRUE(contains(error("-9223372036854775809"), "ERANGE"));
}

AmdgpuTimeoutInput input(std::optional<std::string> parameter, std::string release,
                         AmdgpuVirtualization virt = AmdgpuVirtualization::BareMetal) {
    AmdgpuTimeoutInput in;
    in.parameter = std::move(parameter);
    if (!in.parameter) in.parameterProblem = "not present (/sys/module/amdgpu/parameters/lockup_timeout)";
    in.kernelRelease = std::move(release);
    in.virtualization = virt;
    in.virtualizationAssumed = virt == AmdgpuVirtualization::BareMetal;
    return in;
}

void expectLimit(const QueueTimeout& t, int64_t ms, bool fromParameter, const std::string& what) {
    EXPECT_EQ(t.kind, TimeoutKind::Limit) << what << ": " << t.source;
    EXPECT_EQ(t.milliseconds, ms) << what << ": " << t.source;
    EXPECT_EQ(t.fromParameter, fromParameter) << what << ": " << t.source;
}

TEST(AmdgpuTimeout, Linux619DefaultsAreTwoSecondsForEveryQueue) {
    for (const char* release : {"6.19.0-rc3-foo", "7.0.13-arch1-1", "7.1.8"}) {
        for (const AmdgpuQueue q : {AmdgpuQueue::Gfx, AmdgpuQueue::Compute, AmdgpuQueue::Sdma, AmdgpuQueue::Video}) {
            const QueueTimeout t = amdgpuQueueTimeout(q, input("", release));
            expectLimit(t, 2000, false, release);
            EXPECT_EQ(t.source, "kernel default for Linux 6.19+: 2000 ms (lockup_timeout empty)");
        }
    }
    EXPECT_DOUBLE_EQ(amdgpuQueueTimeout(AmdgpuQueue::Gfx, input("", "6.19.0")).seconds(), 2.0);
}

TEST(AmdgpuTimeout, Linux619OneValueSetsEveryQueue) {
    const auto in = input("5000", "6.19.2");
    for (const AmdgpuQueue q : {AmdgpuQueue::Gfx, AmdgpuQueue::Compute, AmdgpuQueue::Sdma, AmdgpuQueue::Video}) {
        const QueueTimeout t = amdgpuQueueTimeout(q, in);
        expectLimit(t, 5000, true, std::string(name(q)));
        EXPECT_EQ(
            t.source,
            "read from /sys/module/amdgpu/parameters/lockup_timeout '5000' (one value: all queues on Linux 6.19+)");
    }
    // An empty field ends the list: this is one value, so it sets every queue too.
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Compute, input("5000,,3000", "6.19.0")), 5000, true, "5000,,3000");
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Video, input("0x1388", "6.19.0")), 5000, true, "hex");
}

TEST(AmdgpuTimeout, Linux619ListsAndZeros) {
    const auto full = input("10000,60000,10000,10000", "6.19.0");
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Gfx, full), 10000, true, "gfx");
    const QueueTimeout compute = amdgpuQueueTimeout(AmdgpuQueue::Compute, full);
    expectLimit(compute, 60000, true, "compute");
    EXPECT_TRUE(contains(compute.source, "(the compute value)")) << compute.source;
    // 0 keeps that queue's default; fewer than four values leave the rest at theirs.
    const auto zero = input("0,5000", "6.19.0");
    const QueueTimeout gfx = amdgpuQueueTimeout(AmdgpuQueue::Gfx, zero);
    expectLimit(gfx, 2000, false, "0 keeps gfx");
    EXPECT_TRUE(contains(gfx.source, "kernel default for Linux 6.19+: 2000 ms")) << gfx.source;
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Compute, zero), 5000, true, "compute from list");
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Sdma, zero), 2000, false, "sdma default");
}

TEST(AmdgpuTimeout, Linux619LoneZeroIsUnknown) {
    const QueueTimeout t = amdgpuQueueTimeout(AmdgpuQueue::Gfx, input("0", "6.19.0"));
    EXPECT_EQ(t.kind, TimeoutKind::Unknown);
    EXPECT_TRUE(contains(t.source, "not verified")) << t.source;
}

TEST(AmdgpuTimeout, NegativeMeansNoTimeout) {
    const QueueTimeout all = amdgpuQueueTimeout(AmdgpuQueue::Compute, input("-1", "6.19.0"));
    EXPECT_EQ(all.kind, TimeoutKind::NoLimit);
    EXPECT_TRUE(all.fromParameter);
    EXPECT_TRUE(contains(all.source, "negative means no timeout")) << all.source;
    EXPECT_EQ(amdgpuQueueTimeout(AmdgpuQueue::Compute, input("5000,-1", "6.19.0")).kind, TimeoutKind::NoLimit);
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Gfx, input("5000,-1", "6.19.0")), 5000, true, "gfx");
    // Before 6.19 one negative value covers the non-compute queues only.
    EXPECT_EQ(amdgpuQueueTimeout(AmdgpuQueue::Gfx, input("-1", "6.8.0")).kind, TimeoutKind::NoLimit);
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Compute, input("-1", "6.8.0")), 60000, false, "compute");
}

TEST(AmdgpuTimeout, Linux514To616Defaults) {
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Gfx, input("", "6.8.0-45-generic")), 10000, false, "gfx");
    const QueueTimeout compute = amdgpuQueueTimeout(AmdgpuQueue::Compute, input("", "6.8.0-45-generic"));
    expectLimit(compute, 60000, false, "compute");
    EXPECT_EQ(compute.source,
              "kernel default for Linux 5.14-6.16: 60000 ms (lockup_timeout empty) (bare metal assumed: repro does "
              "not detect SR-IOV or passthrough)");
    // SR-IOV: 60000 ms in the one-VF mode, 10000 ms otherwise.
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Compute, input("", "5.15.0", AmdgpuVirtualization::SriovMultiVf)),
                10000, false, "multi VF");
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Compute, input("", "5.15.0", AmdgpuVirtualization::SriovOneVf)), 60000,
                false, "one VF");
}

TEST(AmdgpuTimeout, BeforeLinux619OneValueSetsTheNonComputeQueues) {
    const auto one = input("5000", "6.16.1");
    for (const AmdgpuQueue q : {AmdgpuQueue::Gfx, AmdgpuQueue::Sdma, AmdgpuQueue::Video}) {
        expectLimit(amdgpuQueueTimeout(q, one), 5000, true, std::string(name(q)));
    }
    const QueueTimeout compute = amdgpuQueueTimeout(AmdgpuQueue::Compute, one);
    expectLimit(compute, 60000, false, "compute keeps its default");
    EXPECT_TRUE(contains(compute.source, "one value, which sets gfx, sdma and video only")) << compute.source;
    // Under SR-IOV or passthrough one value sets compute too.
    const QueueTimeout passthrough =
        amdgpuQueueTimeout(AmdgpuQueue::Compute, input("5000", "6.16.1", AmdgpuVirtualization::Passthrough));
    expectLimit(passthrough, 5000, true, "passthrough");
    EXPECT_TRUE(contains(passthrough.source, "all queues under SR-IOV or passthrough")) << passthrough.source;
    // A lone 0 keeps gfx's default, which the others then copy.
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Video, input("0", "6.1.0")), 10000, false, "lone 0");
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Compute, input("0", "6.1.0", AmdgpuVirtualization::Passthrough)), 10000,
                false, "lone 0, passthrough: compute copies gfx");
}

TEST(AmdgpuTimeout, Linux617And618AreTenSecondsForEveryQueue) {
    for (const char* release : {"6.17.0", "6.18.3"}) {
        expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Compute, input("", release)), 10000, false, release);
        expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Gfx, input("", release)), 10000, false, release);
        expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Compute, input("5000", release)), 10000, false, release);
    }
}

TEST(AmdgpuTimeout, BeforeLinux514) {
    EXPECT_EQ(amdgpuQueueTimeout(AmdgpuQueue::Compute, input("", "5.10.0-28-amd64")).kind, TimeoutKind::NoLimit);
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Gfx, input("", "5.10.0-28-amd64")), 10000, false, "gfx");
    expectLimit(amdgpuQueueTimeout(AmdgpuQueue::Compute, input("", "5.10.0", AmdgpuVirtualization::Passthrough)), 60000,
                false, "passthrough");
    const QueueTimeout ambiguous = amdgpuQueueTimeout(AmdgpuQueue::Compute, input("", "5.12.19"));
    EXPECT_EQ(ambiguous.kind, TimeoutKind::Unknown);
    EXPECT_TRUE(contains(ambiguous.source, "stable")) << ambiguous.source;
    EXPECT_EQ(amdgpuQueueTimeout(AmdgpuQueue::Gfx, input("", "4.19.0")).kind, TimeoutKind::Unknown);
}

TEST(AmdgpuTimeout, UnreadableRejectedOrUnknownKernel) {
    const QueueTimeout missing = amdgpuQueueTimeout(AmdgpuQueue::Gfx, input(std::nullopt, "6.19.0"));
    EXPECT_EQ(missing.kind, TimeoutKind::Unknown);
    EXPECT_TRUE(contains(missing.source, "not present")) << missing.source;
    AmdgpuTimeoutInput denied = input(std::nullopt, "6.19.0");
    denied.parameterProblem = "unreadable (Permission denied)";
    EXPECT_TRUE(contains(amdgpuQueueTimeout(AmdgpuQueue::Gfx, denied).source, "Permission denied"));

    const QueueTimeout garbage = amdgpuQueueTimeout(AmdgpuQueue::Gfx, input("garbage", "6.19.0"));
    EXPECT_EQ(garbage.kind, TimeoutKind::Unknown);
    EXPECT_TRUE(contains(garbage.source, "invalid lockup_timeout parameter syntax")) << garbage.source;
    EXPECT_EQ(amdgpuQueueTimeout(AmdgpuQueue::Gfx, input(" 2500 , 5000 ", "6.19.0")).kind, TimeoutKind::Unknown);

    const QueueTimeout noKernel = amdgpuQueueTimeout(AmdgpuQueue::Gfx, input("", "garbage"));
    EXPECT_EQ(noKernel.kind, TimeoutKind::Unknown);
    EXPECT_TRUE(contains(noKernel.source, "'garbage' is not a version")) << noKernel.source;
}

TEST(AmdgpuTimeout, DetectedBareMetalDropsTheAssumption) {
    AmdgpuTimeoutInput in = input("", "6.8.0");
    in.virtualizationAssumed = false;
    EXPECT_FALSE(contains(amdgpuQueueTimeout(AmdgpuQueue::Compute, in).source, "assumed"));
}

TEST(QueueKinds, FromFlagsWholeWordsOnly) {
    EXPECT_EQ(queueKindFromFlags("GRAPHICS|COMPUTE|TRANSFER"), QueueKind::Gfx);
    EXPECT_EQ(queueKindFromFlags("COMPUTE|TRANSFER"), QueueKind::Compute);
    EXPECT_EQ(queueKindFromFlags("SPARSE_BINDING|COMPUTE"), QueueKind::Compute);
    EXPECT_EQ(queueKindFromFlags("TRANSFER"), QueueKind::Other);
    EXPECT_EQ(queueKindFromFlags(""), QueueKind::Other);
    EXPECT_EQ(queueKindFromFlags("NOTGRAPHICS|XCOMPUTE"), QueueKind::Other);
    EXPECT_EQ(amdgpuQueueFor(QueueKind::Gfx), AmdgpuQueue::Gfx);
    EXPECT_EQ(amdgpuQueueFor(QueueKind::Compute), AmdgpuQueue::Compute);
    EXPECT_FALSE(amdgpuQueueFor(QueueKind::Other));
}

TEST(QueueLine, SaysFamilyRingAndTimeout) {
    const QueueTimeout t = amdgpuQueueTimeout(AmdgpuQueue::Gfx, input("", "6.19.0"));
    EXPECT_EQ(queueLine(0, "GRAPHICS|COMPUTE|TRANSFER", "amdgpu gfx ring", t),
              "queue: family 0 (GRAPHICS|COMPUTE|TRANSFER) = amdgpu gfx ring; the kernel kills a job on it after "
              "2000 ms (kernel default for Linux 6.19+: 2000 ms (lockup_timeout empty))");
    const QueueTimeout off = amdgpuQueueTimeout(AmdgpuQueue::Gfx, input("-1", "6.19.0"));
    EXPECT_TRUE(contains(queueLine(1, "COMPUTE", "", off), "queue: family 1 (COMPUTE); no job timeout applies"));
    const QueueTimeout unknown = amdgpuQueueTimeout(AmdgpuQueue::Gfx, input(std::nullopt, "6.19.0"));
    EXPECT_TRUE(contains(queueLine(0, "", "x", unknown),
                         "(flags unknown) = x; how long the kernel lets a job on it run is unknown"));
}

TEST(OtherDrivers, DocumentedFactsWithSources) {
    const auto& facts = otherDriverWatchdogFacts();
    ASSERT_EQ(facts.size(), 5u);
    for (const auto& f : facts) {
        EXPECT_FALSE(f.summary.empty()) << f.driver;
        EXPECT_FALSE(f.source.empty()) << f.driver;
    }
    ASSERT_TRUE(otherDriverWatchdogFact("i915"));
    EXPECT_TRUE(contains(otherDriverWatchdogFact("i915")->summary, "2500"));
    EXPECT_TRUE(contains(otherDriverWatchdogFact("i915")->summary, "640"));
    EXPECT_TRUE(contains(otherDriverWatchdogFact("xe")->summary, "job_timeout_ms"));
    EXPECT_TRUE(contains(otherDriverWatchdogFact("xe")->summary, "5000"));
    EXPECT_TRUE(contains(otherDriverWatchdogFact("nvidia")->summary, "Interactive"));
    EXPECT_TRUE(contains(otherDriverWatchdogFact("nvidia")->summary, "unknown"));
    EXPECT_TRUE(contains(otherDriverWatchdogFact("lavapipe")->summary, "no known timeout"));
    EXPECT_TRUE(contains(otherDriverWatchdogFact("nouveau")->summary, "no known job timeout"));
    EXPECT_EQ(otherDriverWatchdogFact("radeon"), nullptr);
}

}  // namespace
}  // namespace repro
