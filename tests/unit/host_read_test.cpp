// Unit tests for src/core/host_read.{hpp,cpp}: copyFromMapped copies every byte exactly, and
// nothing else, for many sizes, source and destination alignments, thread counts and both
// kernels (the memcpy fallback forced by parameter and by REPRO_READ_KERNEL), reports what
// ran, and honours REPRO_READ_THREADS. copyToMapped, the upload's direction, copies exactly
// too. prefaultedHostFloats leaves every page of its buffer resident. Ordinary host memory
// stands in for a mapping: the result of a copy does not depend on the memory type, only
// its speed does.
#include "reference/host_read.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "reference/host_floats.hpp"
#include "core/parallel.hpp"

namespace repro {
namespace {

constexpr size_t kGuard = 80;  // bytes checked untouched on either side of dst
constexpr unsigned char kGuardByte = 0xA5;

// Sets an environment variable for one scope and restores it.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) saved_ = old;
        if (value) {
            setenv(name, value, 1);
        } else {
            unsetenv(name);
        }
    }
    ~ScopedEnv() {
        if (saved_) {
            setenv(name_, saved_->c_str(), 1);
        } else {
            unsetenv(name_);
        }
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    const char* name_;
    std::optional<std::string> saved_;
};

// A source of `size` bytes at `offset` past a kReadBlockBytes boundary (so a 64-byte one
// too), filled with a pattern whose every byte depends on its position (so a shifted or
// repeated block is caught).
struct Source {
    std::vector<unsigned char> storage;
    const unsigned char* data = nullptr;

    Source(size_t size, size_t offset) : storage(size + offset + kReadBlockBytes) {
        auto base = reinterpret_cast<uintptr_t>(storage.data());
        const size_t align = (kReadBlockBytes - base % kReadBlockBytes) % kReadBlockBytes;
        auto* p = storage.data() + align + offset;
        for (size_t i = 0; i < size; ++i) {
            p[i] = static_cast<unsigned char>((i * 131 + (i >> 8) * 7 + (i >> 16) * 13 + 1) & 0xff);
        }
        data = p;
    }
};

// Copies and checks every byte, and the guard bytes around dst.
void expectExactCopy(size_t size, size_t srcOffset, size_t dstOffset, unsigned threads, HostReadKernel kernel) {
    const Source src(size, srcOffset);
    std::vector<unsigned char> dst(size + dstOffset + 2 * kGuard, kGuardByte);
    unsigned char* out = dst.data() + kGuard + dstOffset;
    copyFromMapped(out, src.data, size, threads, kernel);
    const std::string what = "size " + std::to_string(size) + " src+" + std::to_string(srcOffset) + " dst+" +
                             std::to_string(dstOffset) + " threads " + std::to_string(threads) + " kernel " +
                             std::string(name(kernel));
    if (size > 0 && std::memcmp(out, src.data, size) != 0) {
        const auto wrong = std::mismatch(out, out + size, src.data).first - out;
        FAIL() << what << ": first wrong byte " << wrong;
    }
    for (size_t i = 0; i < kGuard + dstOffset; ++i) ASSERT_EQ(dst[i], kGuardByte) << what << ": before";
    for (size_t i = kGuard + dstOffset + size; i < dst.size(); ++i) {
        ASSERT_EQ(dst[i], kGuardByte) << what << ": after, byte " << i;
    }
}

class HostRead : public ::testing::TestWithParam<HostReadKernel> {};

INSTANTIATE_TEST_SUITE_P(Kernels, HostRead,
                         ::testing::Values(HostReadKernel::Auto, HostReadKernel::StreamLoadAvx2,
                                           HostReadKernel::StreamLoadSse41, HostReadKernel::Memcpy),
                         [](const auto& param) {
                             std::string n(name(param.param));
                             std::replace(n.begin(), n.end(), '-', '_');
                             std::replace(n.begin(), n.end(), '.', '_');
                             return n;
                         });

TEST_P(HostRead, SmallSizesEveryAlignment) {
    for (size_t size = 0; size <= 300; ++size) {
        for (const size_t srcOffset : {0, 1, 4, 8, 15, 16, 31, 32, 48, 63}) {
            for (const size_t dstOffset : {0, 3}) {
                expectExactCopy(size, srcOffset, dstOffset, 1, GetParam());
            }
        }
    }
}

// Sizes around the block (kReadBlockBytes) and the thread split (kMinReadBytesPerThread
// per thread), on 1 to 16 threads and the default.
TEST_P(HostRead, LargeSizesAndThreadCounts) {
    const size_t k = kMinReadBytesPerThread, b = kReadBlockBytes;
    for (const size_t size : {b - 1, b, b + 1, 2 * b + 5, k - 1, k, 2 * k - 1, 2 * k, 2 * k + 1, 3 * k + 257,
                              16 * k + 4095, size_t{1} << 20, (size_t{1} << 22) + 17}) {
        for (const size_t srcOffset : {size_t{0}, size_t{4}, size_t{17}, size_t{60}, b - 1, b - 64, b - 65}) {
            for (const unsigned threads : {0u, 1u, 2u, 3u, 4u, 7u, 16u}) {
                expectExactCopy(size, srcOffset, srcOffset % 2, threads, GetParam());
            }
        }
    }
}

// The full-size small[N]: 3,686,400 floats.
TEST_P(HostRead, FullSizeFinalBuffer) {
    expectExactCopy(3686400 * sizeof(float), 0, 0, 0, GetParam());
    expectExactCopy(3686400 * sizeof(float), 0, 0, 16, GetParam());
}

// copyToMapped: every byte, nothing around it, for sizes around its block and thread split.
TEST(CopyToMapped, CopiesEveryByteExactly) {
    const size_t w = kWriteBlockBytes, k = kMinReadBytesPerThread;
    for (const size_t size :
         {size_t{0}, size_t{1}, size_t{63}, w - 1, w, w + 1, 2 * k + 3, 16 * w + 5, size_t{1} << 22}) {
        for (const size_t dstOffset : {size_t{0}, size_t{3}, size_t{64}}) {
            for (const unsigned threads : {0u, 1u, 2u, 5u, 16u}) {
                const Source src(size, dstOffset % 7);
                std::vector<unsigned char> dst(size + dstOffset + 2 * kGuard, kGuardByte);
                unsigned char* out = dst.data() + kGuard + dstOffset;
                copyToMapped(out, src.data, size, threads);
                ASSERT_TRUE(size == 0 || std::memcmp(out, src.data, size) == 0)
                    << "size " << size << " dst+" << dstOffset << " threads " << threads;
                for (size_t i = 0; i < kGuard + dstOffset; ++i) ASSERT_EQ(dst[i], kGuardByte) << size << ": before";
                for (size_t i = kGuard + dstOffset + size; i < dst.size(); ++i) {
                    ASSERT_EQ(dst[i], kGuardByte) << size << ": after, byte " << i;
                }
            }
        }
    }
}

// The pages of a prefaulted buffer are mapped before anything reads into it (mincore: every
// page resident), so a later read takes no page fault; the size is as asked.
TEST(PrefaultedHostFloats, EveryPageIsResident) {
    for (const size_t elements : {size_t{1}, size_t{1023}, size_t{1024}, size_t{3686400}}) {
        const HostFloats v = prefaultedHostFloats(elements);
        ASSERT_EQ(v.size(), elements);
        const long page = sysconf(_SC_PAGESIZE);
        ASSERT_GT(page, 0);
        const auto begin = reinterpret_cast<uintptr_t>(v.data()) & ~(static_cast<uintptr_t>(page) - 1);
        const auto end = reinterpret_cast<uintptr_t>(v.data() + v.size());
        const size_t pages = (end - begin + static_cast<size_t>(page) - 1) / static_cast<size_t>(page);
        std::vector<unsigned char> resident(pages);
        ASSERT_EQ(mincore(reinterpret_cast<void*>(begin), end - begin, resident.data()), 0) << std::strerror(errno);
        for (size_t p = 0; p < pages; ++p) ASSERT_TRUE(resident[p] & 1) << elements << " floats: page " << p;
    }
}

// The widest kernel the CPU has, as Auto picks it.
HostReadKernel widest() {
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_cpu_supports("avx2")) return HostReadKernel::StreamLoadAvx2;
    if (__builtin_cpu_supports("sse4.1")) return HostReadKernel::StreamLoadSse41;
#endif
    return HostReadKernel::Memcpy;
}

TEST(HostReadInfo, ReportsTheKernelThatRan) {
    std::vector<unsigned char> src(1 << 20, 1), dst(1 << 20);
    const ScopedEnv unset("REPRO_READ_KERNEL", nullptr);
    auto ran = [&](HostReadKernel k) { return copyFromMapped(dst.data(), src.data(), src.size(), 1, k).kernel; };
    EXPECT_EQ(ran(HostReadKernel::Auto), widest());
    EXPECT_EQ(ran(HostReadKernel::StreamLoadAvx2), widest());
    EXPECT_EQ(ran(HostReadKernel::Memcpy), HostReadKernel::Memcpy);
#if defined(__x86_64__)
    // every x86-64 CPU this project targets has SSE4.1
    EXPECT_EQ(ran(HostReadKernel::StreamLoadSse41), HostReadKernel::StreamLoadSse41);
#else
    EXPECT_EQ(ran(HostReadKernel::StreamLoadSse41), HostReadKernel::Memcpy);
#endif
}

TEST(HostReadInfo, EnvironmentForcesAKernel) {
    std::vector<unsigned char> src(4096, 7), dst(4096);
    auto ran = [&](HostReadKernel k) { return copyFromMapped(dst.data(), src.data(), src.size(), 1, k).kernel; };
    const bool streamLoadSupported = ran(HostReadKernel::StreamLoadSse41) == HostReadKernel::StreamLoadSse41;
    {
        const ScopedEnv memcpyOnly("REPRO_READ_KERNEL", "memcpy");
        EXPECT_EQ(ran(HostReadKernel::Auto), HostReadKernel::Memcpy);
        // An explicit kernel wins over the variable.
        if (streamLoadSupported) {
            EXPECT_EQ(ran(HostReadKernel::StreamLoadSse41), HostReadKernel::StreamLoadSse41);
        }
    }
    if (streamLoadSupported) {
        const ScopedEnv sse("REPRO_READ_KERNEL", "stream-load-sse4.1");
        EXPECT_EQ(ran(HostReadKernel::Auto), HostReadKernel::StreamLoadSse41);
    }
    {
        const ScopedEnv bad("REPRO_READ_KERNEL", "fast");  // not a kernel: ignored
        EXPECT_EQ(ran(HostReadKernel::Auto), widest());
    }
    EXPECT_EQ(dst, src);
}

TEST(HostReadInfo, ThreadsFollowSizeAndRequest) {
    const size_t k = kMinReadBytesPerThread;
    std::vector<unsigned char> src(16 * k), dst(16 * k);
    EXPECT_EQ(copyFromMapped(dst.data(), src.data(), 2 * k - 1, 8).threads, 1u);
    EXPECT_EQ(copyFromMapped(dst.data(), src.data(), 2 * k, 8).threads, 2u);
    EXPECT_EQ(copyFromMapped(dst.data(), src.data(), 16 * k, 8).threads, 8u);
    EXPECT_EQ(copyFromMapped(dst.data(), src.data(), 16 * k, 1).threads, 1u);
    EXPECT_EQ(copyFromMapped(dst.data(), src.data(), 0, 8).threads, 1u);
}

TEST(DefaultReadThreads, CapAndOverride) {
    {
        const ScopedEnv unset("REPRO_READ_THREADS", nullptr);
        EXPECT_EQ(defaultReadThreads(), std::min(availableCpus(), kDefaultReadThreadCap));
    }
    {
        const ScopedEnv three("REPRO_READ_THREADS", "3");
        EXPECT_EQ(defaultReadThreads(), 3u);
        std::vector<unsigned char> src(16 * kMinReadBytesPerThread), dst(src.size());
        EXPECT_EQ(copyFromMapped(dst.data(), src.data(), src.size()).threads, 3u);
    }
    for (const char* bad : {"0", "65", "four", ""}) {
        const ScopedEnv ignored("REPRO_READ_THREADS", bad);
        EXPECT_EQ(defaultReadThreads(), std::min(availableCpus(), kDefaultReadThreadCap)) << bad;
    }
}

TEST(HostReadKernelNames, NamesAndParsing) {
    EXPECT_EQ(name(HostReadKernel::Auto), "auto");
    EXPECT_EQ(name(HostReadKernel::StreamLoadAvx2), "stream-load-avx2");
    EXPECT_EQ(name(HostReadKernel::StreamLoadSse41), "stream-load-sse4.1");
    EXPECT_EQ(name(HostReadKernel::Memcpy), "memcpy");
    for (const HostReadKernel k :
         {HostReadKernel::StreamLoadAvx2, HostReadKernel::StreamLoadSse41, HostReadKernel::Memcpy}) {
        EXPECT_EQ(parseReadKernel(std::string(name(k)).c_str()), k);
    }
    EXPECT_EQ(parseReadKernel("auto"), std::nullopt);
    EXPECT_EQ(parseReadKernel("stream-load"), std::nullopt);
    EXPECT_EQ(parseReadKernel(nullptr), std::nullopt);
}

}  // namespace
}  // namespace repro
