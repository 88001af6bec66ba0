// Unit tests for src/core/gpu_alloc.{hpp,cpp}: gpu-alloc 0.6's dedicated threshold and
// buddy placement, replayed for the original repro's buffers (blade issue #356).
// Expected layouts were worked out by hand from gpu-alloc/src/allocator.rs and buddy.rs.
#include "vk/gpu_alloc.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace repro {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kGiB = 1024 * kMiB;

// The original repro's buffer sizes (docs/blade-stream.md, "Buffers").
constexpr uint64_t kConvParams = 64;
constexpr uint64_t kSliceParams = 32;
constexpr uint64_t kWeight = 786'432;
constexpr uint64_t kSmall = 14'745'600;  // 16 MiB class
constexpr uint64_t kBig = 30'537'728;    // 32 MiB class
constexpr uint64_t kScratch = 1 * kMiB;  // blade mod.rs:540
constexpr uint64_t kAlign = 16;

struct Request {
    std::string name;
    uint32_t memoryType;
    GpuAllocUsage usage;
    uint64_t size;
    uint64_t alignment;
};

// The original's creation order for chain length n: conv_params, slice_params, weight,
// small[0..=n] (Shared for 0 and n), big[0..n) (Device), then the encoder's _scratch.
std::vector<Request> reproRequests(uint32_t n, uint32_t deviceType, uint32_t sharedType) {
    std::vector<Request> r;
    r.push_back({"conv_params", sharedType, GpuAllocUsage::Shared, kConvParams, kAlign});
    r.push_back({"slice_params", sharedType, GpuAllocUsage::Shared, kSliceParams, kAlign});
    r.push_back({"weight", sharedType, GpuAllocUsage::Shared, kWeight, kAlign});
    for (uint32_t i = 0; i <= n; ++i) {
        const bool shared = i == 0 || i == n;
        r.push_back({"small" + std::to_string(i), shared ? sharedType : deviceType,
                     shared ? GpuAllocUsage::Shared : GpuAllocUsage::Device, kSmall, kAlign});
    }
    for (uint32_t i = 0; i < n; ++i) {
        r.push_back({"big" + std::to_string(i), deviceType, GpuAllocUsage::Device, kBig, kAlign});
    }
    r.push_back({"_scratch", sharedType, GpuAllocUsage::Shared, kScratch, kAlign});
    return r;
}

std::vector<Placement> placeAll(GpuAllocPlanner& planner, uint64_t heapSize, const std::vector<Request>& requests) {
    std::vector<Placement> out;
    for (const Request& r : requests) {
        out.push_back(planner.place(r.memoryType, heapSize, r.usage, r.size, r.alignment));
    }
    return out;
}

// What must hold of any placement sequence, whatever the layout.
void expectConsistent(const std::vector<Request>& requests, const std::vector<Placement>& placements,
                      const std::vector<Chunk>& chunks) {
    ASSERT_EQ(requests.size(), placements.size());
    uint32_t nextNewChunk = 0;
    std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> used;  // chunk -> [offset, end)
    for (size_t i = 0; i < placements.size(); ++i) {
        const Request& r = requests[i];
        const Placement& p = placements[i];
        SCOPED_TRACE(r.name);
        ASSERT_LT(p.chunk, chunks.size());
        const Chunk& c = chunks[p.chunk];
        EXPECT_EQ(c.memoryType, r.memoryType);
        EXPECT_EQ(c.dedicated, p.dedicated);
        // New chunks appear in allocation order, each exactly once.
        EXPECT_EQ(p.newChunk, p.chunk == nextNewChunk);
        if (p.newChunk) ++nextNewChunk;
        EXPECT_LE(p.chunk, nextNewChunk);
        EXPECT_GE(p.blockSize, r.size);
        EXPECT_EQ(p.offset % r.alignment, 0u);
        EXPECT_LE(p.offset + p.blockSize, c.size);
        if (p.dedicated) {
            EXPECT_EQ(p.offset, 0u);
            EXPECT_EQ(p.blockSize, r.size);
            EXPECT_EQ(c.size, r.size);
        } else {
            EXPECT_TRUE(std::has_single_bit(p.blockSize));
            EXPECT_GE(p.blockSize, 1 * kKiB);
            EXPECT_EQ(p.offset % p.blockSize, 0u) << "offset " << p.offset;
            EXPECT_TRUE(std::has_single_bit(c.size));
        }
        used[p.chunk].emplace_back(p.offset, p.offset + p.blockSize);
    }
    EXPECT_EQ(nextNewChunk, chunks.size());
    for (auto& [chunk, ranges] : used) {
        std::sort(ranges.begin(), ranges.end());
        for (size_t k = 1; k < ranges.size(); ++k) {
            EXPECT_LE(ranges[k - 1].second, ranges[k].first) << "overlap in chunk " << chunk;
        }
        if (chunks[chunk].dedicated) {
            EXPECT_EQ(ranges.size(), 1u) << "shared dedicated chunk";
        }
    }
}

struct Expected {
    uint32_t chunk;
    bool newChunk;
    uint64_t offset;
    uint64_t blockSize;
    bool dedicated = false;
};

void expectPlacements(const std::vector<Request>& requests, const std::vector<Placement>& actual,
                      const std::vector<Expected>& expected) {
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
        SCOPED_TRACE(requests[i].name);
        EXPECT_EQ(actual[i].chunk, expected[i].chunk);
        EXPECT_EQ(actual[i].newChunk, expected[i].newChunk);
        EXPECT_EQ(actual[i].offset, expected[i].offset);
        EXPECT_EQ(actual[i].blockSize, expected[i].blockSize);
        EXPECT_EQ(actual[i].dedicated, expected[i].dedicated);
    }
}

void expectChunks(const std::vector<Chunk>& actual, const std::vector<Chunk>& expected) {
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
        SCOPED_TRACE("chunk " + std::to_string(i));
        EXPECT_EQ(actual[i].memoryType, expected[i].memoryType);
        EXPECT_EQ(actual[i].size, expected[i].size);
        EXPECT_EQ(actual[i].dedicated, expected[i].dedicated);
    }
}

// ---- config and threshold ---------------------------------------------------------------

TEST(GpuAllocConfig, PrototypingValues) {
    const GpuAllocConfig c = prototypingConfig();
    EXPECT_EQ(c.dedicatedThreshold, 32 * kMiB);
    EXPECT_EQ(c.preferredDedicatedThreshold, 1 * kMiB);
    EXPECT_EQ(c.transientDedicatedThreshold, 128 * kMiB);
    EXPECT_EQ(c.startingFreeListChunk, 8 * kMiB);
    EXPECT_EQ(c.finalFreeListChunk, 128 * kMiB);
    EXPECT_EQ(c.minimalBuddySize, 1 * kKiB);
    EXPECT_EQ(c.initialBuddyDedicatedSize, 8 * kMiB);
}

TEST(GpuAllocThreshold, IsMinOf32MiBAndHeapOver32) {
    EXPECT_EQ(dedicatedThreshold(16 * kGiB), 32 * kMiB);
    EXPECT_EQ(dedicatedThreshold(2 * kGiB), 32 * kMiB);
    EXPECT_EQ(dedicatedThreshold(1 * kGiB), 32 * kMiB);
    EXPECT_EQ(dedicatedThreshold(512 * kMiB), 16 * kMiB);
    EXPECT_EQ(dedicatedThreshold(256 * kMiB), 8 * kMiB);
    EXPECT_EQ(dedicatedThreshold(1000 * kMiB + 31), 32'000 * kKiB);  // integer division: 31.25 MiB
    GpuAllocConfig c = prototypingConfig();
    c.dedicatedThreshold = 4 * kMiB;
    EXPECT_EQ(dedicatedThreshold(16 * kGiB, c), 4 * kMiB);
}

// The threshold as place() applies it: one byte below is buddy-allocated, the threshold
// itself gets its own memory of exactly that size at offset 0.
TEST(GpuAllocThreshold, PlaceSplitsAtThreshold) {
    for (const uint64_t heap : {16 * kGiB, 1 * kGiB, 932 * kMiB, 512 * kMiB, 256 * kMiB}) {
        SCOPED_TRACE("heap " + std::to_string(heap));
        const uint64_t threshold = std::min(32 * kMiB, heap / 32);
        GpuAllocPlanner planner;
        const Placement below = planner.place(0, heap, GpuAllocUsage::Device, threshold - 1, 256);
        EXPECT_FALSE(below.dedicated);
        EXPECT_EQ(below.blockSize, std::bit_ceil(threshold - 1));
        const Placement at = planner.place(0, heap, GpuAllocUsage::Device, threshold, 256);
        EXPECT_TRUE(at.dedicated);
        EXPECT_TRUE(at.newChunk);
        EXPECT_EQ(at.offset, 0u);
        EXPECT_EQ(at.blockSize, threshold);
        ASSERT_EQ(planner.chunks().size(), 2u);
        EXPECT_EQ(planner.chunks()[1].size, threshold);
        EXPECT_TRUE(planner.chunks()[1].dedicated);
    }
}

TEST(GpuAllocThreshold, ExactlyThresholdIsDedicated) {
    GpuAllocPlanner planner;
    const Placement p = planner.place(3, 16 * kGiB, GpuAllocUsage::Shared, 32 * kMiB, 64);
    EXPECT_TRUE(p.dedicated);
    EXPECT_TRUE(p.newChunk);
    EXPECT_EQ(p.chunk, 0u);
    EXPECT_EQ(p.offset, 0u);
    EXPECT_EQ(p.blockSize, 32 * kMiB);
    ASSERT_EQ(planner.chunks().size(), 1u);
    EXPECT_EQ(planner.chunks()[0].memoryType, 3u);
    EXPECT_EQ(planner.chunks()[0].size, 32 * kMiB);
    EXPECT_TRUE(planner.chunks()[0].dedicated);
}

// Where the original's big buffer turns dedicated: heap / 32 <= 30,537,728.
TEST(GpuAllocThreshold, BigBufferBoundaryHeap) {
    {
        GpuAllocPlanner planner;
        EXPECT_TRUE(planner.place(0, 977'207'296, GpuAllocUsage::Device, kBig, kAlign).dedicated);
    }
    {
        GpuAllocPlanner planner;
        EXPECT_FALSE(planner.place(0, 977'207'328, GpuAllocUsage::Device, kBig, kAlign).dedicated);
    }
    {  // and the small buffer: heap / 32 <= 14,745,600
        GpuAllocPlanner planner;
        EXPECT_TRUE(planner.place(0, 450 * kMiB, GpuAllocUsage::Device, kSmall, kAlign).dedicated);
        GpuAllocPlanner larger;
        EXPECT_FALSE(larger.place(0, 450 * kMiB + 32, GpuAllocUsage::Device, kSmall, kAlign).dedicated);
    }
}

// ---- the original repro's buffers -------------------------------------------------------

// Discrete GPU with resizable BAR: Device in type 0, Shared in type 1, both on a 16 GiB heap.
TEST(GpuAllocRepro, SeparateTypesOn16GiBHeap) {
    const auto requests = reproRequests(7, /*deviceType=*/0, /*sharedType=*/1);
    GpuAllocPlanner planner;
    const auto placements = placeAll(planner, 16 * kGiB, requests);
    expectConsistent(requests, placements, planner.chunks());
    expectPlacements(requests, placements,
                     {
                         {0, true, 0, 1 * kKiB},            // conv_params: first chunk, 8 MiB
                         {0, false, 1 * kKiB, 1 * kKiB},    // slice_params: right buddy
                         {0, false, 1 * kMiB, 1 * kMiB},    // weight: 768 KiB -> 1 MiB
                         {1, true, 0, 16 * kMiB},           // small0 (Shared): classes grow, 32 MiB
                         {2, true, 0, 16 * kMiB},           // small1 (Device type's first)
                         {2, false, 16 * kMiB, 16 * kMiB},  // small2
                         {3, true, 0, 16 * kMiB},           // small3
                         {3, false, 16 * kMiB, 16 * kMiB},  // small4
                         {4, true, 0, 16 * kMiB},           // small5
                         {4, false, 16 * kMiB, 16 * kMiB},  // small6
                         {1, false, 16 * kMiB, 16 * kMiB},  // small7 (Shared) beside small0
                         {5, true, 0, 32 * kMiB},           // big0: 64 MiB chunk
                         {5, false, 32 * kMiB, 32 * kMiB},  // big1
                         {6, true, 0, 32 * kMiB},           // big2
                         {6, false, 32 * kMiB, 32 * kMiB},  // big3
                         {7, true, 0, 32 * kMiB},           // big4
                         {7, false, 32 * kMiB, 32 * kMiB},  // big5
                         {8, true, 0, 32 * kMiB},           // big6
                         {0, false, 2 * kMiB, 1 * kMiB},    // _scratch: splits the free 2 MiB
                     });
    expectChunks(planner.chunks(), {{1, 8 * kMiB, false},
                                    {1, 32 * kMiB, false},
                                    {0, 32 * kMiB, false},
                                    {0, 32 * kMiB, false},
                                    {0, 32 * kMiB, false},
                                    {0, 64 * kMiB, false},
                                    {0, 64 * kMiB, false},
                                    {0, 64 * kMiB, false},
                                    {0, 64 * kMiB, false}});
}

// APU (or a driver ranking one type first for both classes): one buddy allocator, so
// Device and Shared buffers share chunks.
TEST(GpuAllocRepro, OneTypeOn16GiBHeap) {
    const auto requests = reproRequests(7, 0, 0);
    GpuAllocPlanner planner;
    const auto placements = placeAll(planner, 16 * kGiB, requests);
    expectConsistent(requests, placements, planner.chunks());
    expectPlacements(requests, placements,
                     {
                         {0, true, 0, 1 * kKiB},
                         {0, false, 1 * kKiB, 1 * kKiB},
                         {0, false, 1 * kMiB, 1 * kMiB},
                         {1, true, 0, 16 * kMiB},           // small0 (Shared)
                         {1, false, 16 * kMiB, 16 * kMiB},  // small1 (Device) in the same memory
                         {2, true, 0, 16 * kMiB},
                         {2, false, 16 * kMiB, 16 * kMiB},
                         {3, true, 0, 16 * kMiB},
                         {3, false, 16 * kMiB, 16 * kMiB},
                         {4, true, 0, 16 * kMiB},
                         {4, false, 16 * kMiB, 16 * kMiB},  // small7 (Shared) beside small6 (Device)
                         {5, true, 0, 32 * kMiB},
                         {5, false, 32 * kMiB, 32 * kMiB},
                         {6, true, 0, 32 * kMiB},
                         {6, false, 32 * kMiB, 32 * kMiB},
                         {7, true, 0, 32 * kMiB},
                         {7, false, 32 * kMiB, 32 * kMiB},
                         {8, true, 0, 32 * kMiB},
                         {0, false, 2 * kMiB, 1 * kMiB},
                     });
    expectChunks(planner.chunks(), {{0, 8 * kMiB, false},
                                    {0, 32 * kMiB, false},
                                    {0, 32 * kMiB, false},
                                    {0, 32 * kMiB, false},
                                    {0, 32 * kMiB, false},
                                    {0, 64 * kMiB, false},
                                    {0, 64 * kMiB, false},
                                    {0, 64 * kMiB, false},
                                    {0, 64 * kMiB, false}});
}

// A 512 MiB heap: threshold 16 MiB, so big buffers (29.1 MiB) are dedicated and small
// ones (14.1 MiB) still buddy-allocated.
TEST(GpuAllocRepro, SmallHeapMakesBigBuffersDedicated) {
    const auto requests = reproRequests(7, 0, 1);
    GpuAllocPlanner planner;
    const auto placements = placeAll(planner, 512 * kMiB, requests);
    expectConsistent(requests, placements, planner.chunks());
    for (size_t i = 0; i < requests.size(); ++i) {
        SCOPED_TRACE(requests[i].name);
        EXPECT_EQ(placements[i].dedicated, requests[i].size == kBig);
    }
    const auto& chunks = planner.chunks();
    ASSERT_EQ(chunks.size(), 12u);
    expectChunks(std::vector<Chunk>(chunks.begin(), chunks.begin() + 5), {{1, 8 * kMiB, false},
                                                                          {1, 32 * kMiB, false},
                                                                          {0, 32 * kMiB, false},
                                                                          {0, 32 * kMiB, false},
                                                                          {0, 32 * kMiB, false}});
    for (size_t i = 5; i < 12; ++i) {
        EXPECT_EQ(chunks[i].size, kBig);
        EXPECT_TRUE(chunks[i].dedicated);
        EXPECT_EQ(chunks[i].memoryType, 0u);
    }
    EXPECT_EQ(placements.back().chunk, 0u);  // _scratch still in the first chunk
    EXPECT_EQ(placements.back().offset, 2 * kMiB);
}

// A 256 MiB heap (a discrete GPU's host-visible window without resizable BAR): the
// threshold is 8 MiB, so the small buffers are dedicated too.
TEST(GpuAllocRepro, QuarterGiBHeapMakesSmallBuffersDedicated) {
    const auto requests = reproRequests(7, 0, 1);
    GpuAllocPlanner planner;
    const auto placements = placeAll(planner, 256 * kMiB, requests);
    expectConsistent(requests, placements, planner.chunks());
    for (size_t i = 0; i < requests.size(); ++i) {
        SCOPED_TRACE(requests[i].name);
        EXPECT_EQ(placements[i].dedicated, requests[i].size == kBig || requests[i].size == kSmall);
    }
    EXPECT_EQ(planner.chunks()[0].size, 8 * kMiB);  // min(8 MiB, 256 MiB / 32)
}

// ---- buddy details ----------------------------------------------------------------------

TEST(GpuAllocBuddy, AlignmentLargerThanBlock) {
    GpuAllocPlanner planner;
    const uint64_t heap = 16 * kGiB;
    const Placement first = planner.place(0, heap, GpuAllocUsage::Device, 64, 16);
    EXPECT_EQ(first.blockSize, 1 * kKiB);
    // 64 bytes aligned to 64 KiB take a 64 KiB block (buddy.rs:315-321): the right half
    // left free at that class by the first split, at 64 KiB.
    const Placement aligned = planner.place(0, heap, GpuAllocUsage::Device, 64, 64 * kKiB);
    EXPECT_FALSE(aligned.dedicated);
    EXPECT_FALSE(aligned.newChunk);
    EXPECT_EQ(aligned.chunk, 0u);
    EXPECT_EQ(aligned.blockSize, 64 * kKiB);
    EXPECT_EQ(aligned.offset, 64 * kKiB);
    // Alignment beyond the first chunk: the classes grow and a chunk of twice it is made.
    const Placement huge = planner.place(0, heap, GpuAllocUsage::Device, 256, 16 * kMiB);
    EXPECT_TRUE(huge.newChunk);
    EXPECT_EQ(huge.blockSize, 16 * kMiB);
    EXPECT_EQ(huge.offset % (16 * kMiB), 0u);
    ASSERT_EQ(planner.chunks().size(), 2u);
    EXPECT_EQ(planner.chunks()[1].size, 32 * kMiB);
    // Alignment 0 reads as 1 (blade's max(alignment, 1)).
    EXPECT_EQ(planner.place(0, heap, GpuAllocUsage::Device, 3000, 0).blockSize, 4 * kKiB);
}

TEST(GpuAllocBuddy, SmallestFreeClassIsSplitFirst) {
    GpuAllocPlanner planner;
    const uint64_t heap = 16 * kGiB;
    auto at = [&](uint64_t size) { return planner.place(0, heap, GpuAllocUsage::Device, size, 4).offset; };
    EXPECT_EQ(at(1 * kKiB), 0u);        // free after: 1K@1K, 2K@2K, 4K@4K, 8K@8K, ...
    EXPECT_EQ(at(4 * kKiB), 4 * kKiB);  // its own class's free block
    EXPECT_EQ(at(1 * kKiB), 1 * kKiB);
    EXPECT_EQ(at(2 * kKiB), 2 * kKiB);
    EXPECT_EQ(at(1 * kKiB), 8 * kKiB);  // splits 8K@8K, not a larger one
    EXPECT_EQ(at(1 * kKiB), 9 * kKiB);
    EXPECT_EQ(at(4 * kKiB), 12 * kKiB);
    EXPECT_EQ(at(3 * kMiB), 4 * kMiB);  // 4 MiB class: the first chunk's right half
    EXPECT_EQ(planner.chunks().size(), 1u);
    EXPECT_EQ(at(3 * kMiB), 0u);  // nothing of 4 MiB left: a new 8 MiB chunk
    ASSERT_EQ(planner.chunks().size(), 2u);
    EXPECT_EQ(planner.chunks()[1].size, 8 * kMiB);
}

// The size classes never shrink: once a 16 MiB block exists, a request that finds no free
// block gets a 32 MiB chunk, however small it is (buddy.rs:327-352).
TEST(GpuAllocBuddy, ChunkIsTwiceTheLargestClassSoFar) {
    GpuAllocPlanner planner;
    const uint64_t heap = 16 * kGiB;
    planner.place(0, heap, GpuAllocUsage::Device, kSmall, kAlign);
    planner.place(0, heap, GpuAllocUsage::Device, kSmall, kAlign);
    const Placement tiny = planner.place(0, heap, GpuAllocUsage::Device, 64, kAlign);
    EXPECT_TRUE(tiny.newChunk);
    EXPECT_EQ(tiny.offset, 0u);
    ASSERT_EQ(planner.chunks().size(), 2u);
    EXPECT_EQ(planner.chunks()[1].size, 32 * kMiB);
    // Its free right halves are then used before any new chunk.
    const Placement next = planner.place(0, heap, GpuAllocUsage::Device, kSmall, kAlign);
    EXPECT_FALSE(next.newChunk);
    EXPECT_EQ(next.chunk, 1u);
    EXPECT_EQ(next.offset, 16 * kMiB);
}

// The minimal block and the first chunk shrink with the heap (allocator.rs:347-355).
TEST(GpuAllocBuddy, SmallHeapsShrinkMinimalBlockAndFirstChunk) {
    {
        GpuAllocPlanner planner;
        const Placement p = planner.place(0, 128 * kMiB, GpuAllocUsage::Device, 64, 16);
        EXPECT_EQ(p.blockSize, 1 * kKiB);
        EXPECT_EQ(planner.chunks()[0].size, 4 * kMiB);  // min(8 MiB, 128 MiB / 32)
    }
    {
        GpuAllocPlanner planner;
        const Placement p = planner.place(0, 512 * kKiB, GpuAllocUsage::Device, 64, 16);
        EXPECT_EQ(p.blockSize, 512u);                    // min(1 KiB, 512 KiB / 1024)
        EXPECT_EQ(planner.chunks()[0].size, 16 * kKiB);  // min(8 MiB, 512 KiB / 32)
        EXPECT_TRUE(planner.place(0, 512 * kKiB, GpuAllocUsage::Device, 16 * kKiB, 16).dedicated);
    }
}

TEST(GpuAllocBuddy, UsageDoesNotChangePlacement) {
    GpuAllocPlanner device, shared;
    for (const uint64_t size : {64ull, 5000ull, 786'432ull, 14'745'600ull, 30'537'728ull, 40ull * kMiB}) {
        const Placement d = device.place(2, 16 * kGiB, GpuAllocUsage::Device, size, 256);
        const Placement s = shared.place(2, 16 * kGiB, GpuAllocUsage::Shared, size, 256);
        EXPECT_EQ(d.chunk, s.chunk);
        EXPECT_EQ(d.offset, s.offset);
        EXPECT_EQ(d.blockSize, s.blockSize);
        EXPECT_EQ(d.dedicated, s.dedicated);
        EXPECT_EQ(d.newChunk, s.newChunk);
    }
}

TEST(GpuAllocBuddy, TypesHaveSeparateAllocatorsAndShareChunkNumbering) {
    GpuAllocPlanner planner;
    EXPECT_EQ(planner.place(0, 16 * kGiB, GpuAllocUsage::Device, 64, 16).chunk, 0u);
    const Placement other = planner.place(1, 256 * kMiB, GpuAllocUsage::Shared, 64, 16);
    EXPECT_TRUE(other.newChunk);
    EXPECT_EQ(other.chunk, 1u);
    EXPECT_EQ(other.offset, 0u);
    const Placement back = planner.place(0, 16 * kGiB, GpuAllocUsage::Device, 64, 16);
    EXPECT_EQ(back.chunk, 0u);
    EXPECT_EQ(back.offset, 1 * kKiB);
}

TEST(GpuAllocPlanner, RejectsInvalidRequests) {
    GpuAllocPlanner planner;
    EXPECT_THROW(planner.place(0, 16 * kGiB, GpuAllocUsage::Device, 0, 16), std::invalid_argument);
    EXPECT_THROW(planner.place(0, 0, GpuAllocUsage::Device, 64, 16), std::invalid_argument);
    EXPECT_THROW(planner.place(0, 1 * kMiB, GpuAllocUsage::Device, 2 * kMiB, 16), std::invalid_argument);
    EXPECT_THROW(planner.place(0, 16 * kGiB, GpuAllocUsage::Device, 64, 48), std::invalid_argument);
    EXPECT_THROW(planner.place(32, 16 * kGiB, GpuAllocUsage::Device, 64, 16), std::invalid_argument);
    EXPECT_THROW(planner.place(0, 16 * kGiB, GpuAllocUsage::Device, 64, uint64_t{1} << 63), std::invalid_argument);
    planner.place(0, 16 * kGiB, GpuAllocUsage::Device, 64, 16);
    EXPECT_THROW(planner.place(0, 8 * kGiB, GpuAllocUsage::Device, 64, 16), std::invalid_argument);
}

}  // namespace
}  // namespace repro
