// gpu-alloc 0.6's placement decisions (see gpu_alloc.hpp for the source and its version).
// Line numbers are gpu-alloc/src/<file> at commit 84ca166 (0.6.0).
#include "vk/gpu_alloc.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace repro {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;

// Rust's u64::next_power_of_two for the values used here: 0 gives 1.
uint64_t nextPowerOfTwo(uint64_t value) { return value <= 1 ? 1 : std::bit_ceil(value); }

// Index of a power of two (its trailing zeros).
uint32_t log2Exact(uint64_t powerOfTwo) { return static_cast<uint32_t>(std::countr_zero(powerOfTwo)); }

// Throws std::invalid_argument for a request place() rejects before it looks at its state:
// size 0, heapSize 0, size > heapSize, memoryType >= 32 or a non-power-of-two alignment
// (the caller reads 0 as 1).
void checkRequest(uint32_t memoryType, uint64_t heapSize, uint64_t size, uint64_t alignment) {
    if (size == 0) throw std::invalid_argument("gpu-alloc placement: buffer size 0");
    if (heapSize == 0) throw std::invalid_argument("gpu-alloc placement: heap size 0");
    if (size > heapSize) {
        // allocator.rs:205-208: the type is skipped; the request fails if no other fits.
        throw std::invalid_argument("gpu-alloc placement: " + std::to_string(size) + " bytes exceed the heap's " +
                                    std::to_string(heapSize));
    }
    if (memoryType >= 32) {
        // VK_MAX_MEMORY_TYPES; gpu-alloc asserts at most 32 types (usage.rs:67-70).
        throw std::invalid_argument("gpu-alloc placement: memory type " + std::to_string(memoryType));
    }
    if (!std::has_single_bit(alignment)) {
        throw std::invalid_argument("gpu-alloc placement: alignment " + std::to_string(alignment) +
                                    " is not a power of two");
    }
}

// A new buddy allocator's shape: its minimal block (bytes) and number of size classes.
struct BuddyLayout {
    uint64_t minimal = 0;
    uint32_t classes = 0;
};

// The buddy allocator gpu-alloc creates for a type on its heap (allocator.rs:344-368).
BuddyLayout buddyLayout(const GpuAllocConfig& config, uint64_t heapSize) {
    const uint64_t minimal = nextPowerOfTwo(std::min(config.minimalBuddySize, heapSize / 1024));
    const uint64_t initial = nextPowerOfTwo(std::min(config.initialBuddyDedicatedSize, heapSize / 32));
    // buddy.rs:291-298: one size class per power of two from `minimal` below `initial`
    // (saturating: none when initial <= minimal).
    const uint32_t classes = log2Exact(initial) > log2Exact(minimal) ? log2Exact(initial) - log2Exact(minimal) : 0;
    return BuddyLayout{.minimal = minimal, .classes = classes};
}

// The buddy block (bytes, a power of two) for `size` bytes at `alignment` (a power of two)
// with minimal block `minimalSize`; throws std::invalid_argument when it would overflow.
uint64_t buddyBlockSize(uint64_t size, uint64_t alignment, uint64_t minimalSize) {
    // buddy.rs:315-321: align_mask |= minimal - 1 (the atom mask is 0 for blade's types,
    // buddy.rs:301), size = next_power_of_two(align_up(size, align_mask)), at least minimal.
    const uint64_t alignMask = (alignment - 1) | (minimalSize - 1);
    if (size > UINT64_MAX - alignMask) {
        throw std::invalid_argument("gpu-alloc placement: size + alignment overflow");
    }
    const uint64_t aligned = (size + alignMask) & ~alignMask;
    // A block of 2^63 would need a chunk of 2^64 (buddy.rs:351 would overflow).
    if (aligned > (uint64_t{1} << 62)) {
        throw std::invalid_argument("gpu-alloc placement: buddy block would not fit in 64 bits");
    }
    return std::max(nextPowerOfTwo(aligned), minimalSize);
}

}  // namespace

GpuAllocConfig prototypingConfig() {
    // config.rs:50-76: i_am_potato() * 1024.
    return GpuAllocConfig{
        .dedicatedThreshold = 32 * kMiB,
        .preferredDedicatedThreshold = 1 * kMiB,
        .transientDedicatedThreshold = 128 * kMiB,
        .startingFreeListChunk = 8 * kMiB,
        .finalFreeListChunk = 128 * kMiB,
        .minimalBuddySize = 1 * kKiB,
        .initialBuddyDedicatedSize = 8 * kMiB,
    };
}

uint64_t dedicatedThreshold(uint64_t heapSize, const GpuAllocConfig& config) {
    // allocator.rs:239 (the non-transient arm; blade never sets TRANSIENT).
    return std::min(config.dedicatedThreshold, heapSize / 32);
}

GpuAllocPlanner::GpuAllocPlanner(GpuAllocConfig config) : config_(config) {}

const std::vector<Chunk>& GpuAllocPlanner::chunks() const { return chunks_; }

Placement GpuAllocPlanner::place(uint32_t memoryType, uint64_t heapSize, GpuAllocUsage usage, uint64_t size,
                                 uint64_t alignment) {
    // Neither class carries TRANSIENT, and DOWNLOAD/UPLOAD only add HOST_ACCESS
    // (allocator.rs:165, 603-611), so the strategy below is the same for both.
    (void)usage;

    alignment = std::max<uint64_t>(alignment, 1);  // blade resource.rs:399 (min_buffer_alignment 1)
    checkRequest(memoryType, heapSize, size, alignment);
    if (memoryType >= heapSizes_.size()) {
        heapSizes_.resize(memoryType + 1, 0);
        buddies_.resize(memoryType + 1);
    }
    if (heapSizes_[memoryType] != 0 && heapSizes_[memoryType] != heapSize) {
        throw std::invalid_argument("gpu-alloc placement: memory type " + std::to_string(memoryType) +
                                    " given heap size " + std::to_string(heapSize) + " after " +
                                    std::to_string(heapSizes_[memoryType]));
    }
    heapSizes_[memoryType] = heapSize;

    // allocator.rs:238-246: Strategy::Dedicated when size >= min(dedicated_threshold, heap / 32).
    if (size >= dedicatedThreshold(heapSize, config_)) {
        // allocator.rs:258-270: allocate_memory(request.size), block at offset 0 of it.
        chunks_.push_back(Chunk{.memoryType = memoryType, .size = size, .dedicated = true});
        return Placement{.dedicated = true,
                         .chunk = static_cast<uint32_t>(chunks_.size() - 1),
                         .newChunk = true,
                         .offset = 0,
                         .blockSize = size};
    }
    return placeInBuddy(memoryType, heapSize, size, alignment);
}

Placement GpuAllocPlanner::placeInBuddy(uint32_t memoryType, uint64_t heapSize, uint64_t size, uint64_t alignment) {
    // Strategy::Buddy. The type's allocator is created on its first buddy request
    // (allocator.rs:344-368).
    std::optional<Buddy>& buddy = buddies_[memoryType];
    if (!buddy) {
        const BuddyLayout layout = buddyLayout(config_, heapSize);
        buddy = Buddy{.minimalSize = layout.minimal, .free = {}};
        buddy->free.resize(layout.classes);
    }
    Buddy& b = *buddy;
    const uint64_t block = buddyBlockSize(size, alignment, b.minimalSize);
    const uint32_t sizeIndex = log2Exact(block) - log2Exact(b.minimalSize);

    // buddy.rs:327-329: size classes grow to include the block's, and stay.
    if (b.free.size() <= sizeIndex) b.free.resize(sizeIndex + 1);

    // buddy.rs:333-382: the first class from the block's upward with a free block; a new
    // chunk of twice the largest class when even the largest has none.
    Placement placement;
    uint32_t candidate = sizeIndex;
    FreeBlock entry{};
    for (;;) {
        if (b.free[candidate]) {
            // Size::acquire (buddy.rs:123-167): the ready half; the pair is now exhausted.
            entry = *b.free[candidate];
            b.free[candidate].reset();
            break;
        }
        if (candidate + 1 == b.free.size()) {
            // buddy.rs:351-376: allocate_memory(minimal << (candidate + 1)), then
            // add_pair_and_acquire_left(chunk, 0): left half used, right half free.
            const uint64_t chunkSize = b.minimalSize << (candidate + 1);
            chunks_.push_back(Chunk{.memoryType = memoryType, .size = chunkSize, .dedicated = false});
            entry = FreeBlock{.chunk = static_cast<uint32_t>(chunks_.size() - 1), .offset = 0};
            b.free[candidate] = FreeBlock{.chunk = entry.chunk, .offset = chunkSize / 2};
            placement.newChunk = true;
            break;
        }
        ++candidate;
    }

    // buddy.rs:384-388: split down to the block's class. At each level the left half
    // (same offset) goes on down and the right half becomes that class's free block.
    for (uint32_t level = candidate; level-- > sizeIndex;) {
        const uint64_t half = b.minimalSize << level;
        b.free[level] = FreeBlock{.chunk = entry.chunk, .offset = entry.offset + half};
    }

    placement.dedicated = false;
    placement.chunk = entry.chunk;
    placement.offset = entry.offset;
    placement.blockSize = block;
    return placement;
}

}  // namespace repro
