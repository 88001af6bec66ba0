// Where blade-graphics (72c30c1) puts each buffer in device memory: a replay of the
// decisions of the gpu-alloc 0.6 crate that blade drives, for `--profile blade-exact`.
// Vulkan-free; memory type selection stays with the caller.
//
// Source read: zakarumych/gpu-alloc at commit 84ca166 ("Bump minor versions",
// version 0.6.0). 0.6.1 and 0.6.2 (HEAD 61020bd) change only block.rs and the formatting
// of allocator.rs (its lines after 126 move down by 1 to 4, logic unchanged); config.rs,
// buddy.rs, usage.rs and heap.rs are byte-identical, so every 0.6.x that blade's
// `gpu-alloc = "0.6"` (no Cargo.lock) can resolve to behaves as modelled here.
// blade side: blade-graphics/src/vulkan/init.rs:1273 (`Config::i_am_prototyping()`),
// resource.rs:187-199 (`GpuAllocator::alloc`, never `alloc_with_dedicated`).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace repro {

// gpu-alloc's `Config` (config.rs:6-38), bytes. `prototypingConfig()` gives the values of
// `Config::i_am_prototyping()` (config.rs:50-63: `i_am_potato()` of config.rs:66-76,
// each times 1024).
struct GpuAllocConfig {
    uint64_t dedicatedThreshold;           // 32 MiB: requests at least this big get their own memory
    uint64_t preferredDedicatedThreshold;  // 1 MiB: only for `Dedicated::Preferred`, which blade never passes
    uint64_t transientDedicatedThreshold;  // 128 MiB: only for TRANSIENT usage, which blade never sets
    uint64_t startingFreeListChunk;        // 8 MiB: free-list allocator (TRANSIENT only)
    uint64_t finalFreeListChunk;           // 128 MiB: free-list allocator (TRANSIENT only)
    uint64_t minimalBuddySize;             // 1 KiB: smallest buddy block, before the heap cap
    uint64_t initialBuddyDedicatedSize;    // 8 MiB: first buddy chunk, before the heap cap
};

// `Config::i_am_prototyping()` (config.rs:50-63), what blade passes (init.rs:1273).
GpuAllocConfig prototypingConfig();

// The size (bytes) from which a request to `GpuAllocator::alloc` on a memory type whose
// heap holds `heapSize` bytes gets a dedicated vkAllocateMemory:
// min(config.dedicatedThreshold, heapSize / 32), integer division (allocator.rs:238-246).
// `heapSize` is the heap's total size (heap.rs:19-21), not what is left of it.
uint64_t dedicatedThreshold(uint64_t heapSize, const GpuAllocConfig& config = prototypingConfig());

// blade's two memory classes for buffers (resource.rs:26-36) as gpu-alloc usage flags:
//   Device = FAST_DEVICE_ACCESS
//   Shared = HOST_ACCESS | DOWNLOAD | UPLOAD | FAST_DEVICE_ACCESS
// (each plus DEVICE_ADDRESS when buffer device address is on). Neither has TRANSIENT, so
// both take the same dedicated-or-buddy path (allocator.rs:193, 222-247); the free-list
// allocator is never used for them. The class matters only for the memory type the
// caller picks (usage.rs:143-176) and for mapping, neither of which this file models.
enum class GpuAllocUsage { Device, Shared };

// Where one buffer goes.
struct Placement {
    bool dedicated = false;  // its own VkDeviceMemory (allocator.rs:250-270)
    uint32_t chunk = 0;      // index into GpuAllocPlanner::chunks(); the new chunk if newChunk
    bool newChunk = false;   // this request caused the vkAllocateMemory of `chunk`
    uint64_t offset = 0;     // bytes, the vkBindBufferMemory offset into that chunk
    uint64_t blockSize = 0;  // bytes reserved: the request size when dedicated, else a power of two
};

// One VkDeviceMemory (bytes), as gpu-alloc allocates it.
struct Chunk {
    uint32_t memoryType;  // memory type index
    uint64_t size;        // allocationSize in bytes
    bool dedicated;       // true: one buffer, exactly its size; false: a buddy chunk (power of two)
};

// Replays gpu-alloc's decisions for a sequence of requests (one per vkCreateBuffer, in
// order) made through `GpuAllocator::alloc` with no dedicated hint, no deallocation in
// between, and every vkAllocateMemory succeeding (gpu-alloc would try the next memory type
// on VK_ERROR_OUT_OF_DEVICE_MEMORY, allocator.rs:272, 395; not modelled).
//
// Per request (allocator.rs:153-403, buddy.rs:306-410):
//  * size >= dedicatedThreshold(heapSize): its own chunk of exactly `size`, offset 0.
//  * otherwise the memory type's buddy allocator, created on first use with
//      minimal block  = nextPow2(min(minimalBuddySize, heapSize / 1024))     (allocator.rs:347-350)
//      initial chunk  = nextPow2(min(initialBuddyDedicatedSize, heapSize / 32)) (allocator.rs:352-355)
//    and size classes minimal, 2*minimal, ..., initial chunk / 2 (buddy.rs:291-298).
//    The block is nextPow2(alignUp(size, max(alignment, minimal block))) (buddy.rs:315-321),
//    so an alignment larger than the size makes the block as large as the alignment.
//    The classes grow to reach the block (buddy.rs:327-329) and never shrink. The block
//    is taken from the free block of its own class if there is one, else by splitting the
//    free block of the next larger class that has one (left half used, right half kept
//    free at each level; buddy.rs:333-343, 384-388); if no class up to the largest has a
//    free block, a new chunk of twice the largest class is allocated (buddy.rs:345-378).
//    Offsets are multiples of the block size, hence of the alignment.
//
// Buddy chunks of a HOST_VISIBLE type are mapped whole when created (buddy.rs:356-368).
// The non-coherent atom is not modelled: blade drops HOST_VISIBLE types without
// HOST_COHERENT (blade init.rs:1311-1320), so gpu-alloc's atom mask is 0 for every type
// it can use (allocator.rs:210-214).
class GpuAllocPlanner {
  public:
    explicit GpuAllocPlanner(GpuAllocConfig config = prototypingConfig());

    // Places one buffer. `size` (bytes, > 0) and `alignment` (bytes, a power of two; 0 is
    // read as 1) come from vkGetBufferMemoryRequirements, after blade's
    // max(alignment, min_buffer_alignment), which is 1 without ray tracing
    // (blade resource.rs:398-399, init.rs:922-925). `heapSize` (bytes) is the size of
    // `memoryType`'s heap and must be the same on every call for that type.
    // `usage` does not change the result (see GpuAllocUsage).
    // Throws std::invalid_argument for memoryType >= 32, size 0, heapSize 0, size > heapSize (gpu-alloc
    // skips such a type, allocator.rs:205-208), a non-power-of-two alignment, a block that
    // would not fit in 64 bits, or a heapSize that differs from an earlier call's.
    Placement place(uint32_t memoryType, uint64_t heapSize, GpuAllocUsage usage, uint64_t size, uint64_t alignment);

    // Every VkDeviceMemory to allocate, in allocation order (dedicated ones included).
    const std::vector<Chunk>& chunks() const;

  private:
    // One free (ready) buddy block of a size class. Without deallocation a class never has
    // more than one (buddy.rs:91-121 is only reached when the class has none).
    struct FreeBlock {
        uint32_t chunk;  // index into chunks_
        uint64_t offset;
    };
    struct Buddy {
        uint64_t minimalSize = 0;                    // bytes, a power of two
        std::vector<std::optional<FreeBlock>> free;  // one slot per size class (`sizes`)
    };

    // place()'s Strategy::Buddy arm for a checked request; `alignment` is at least 1.
    Placement placeInBuddy(uint32_t memoryType, uint64_t heapSize, uint64_t size, uint64_t alignment);

    GpuAllocConfig config_;
    std::vector<Chunk> chunks_;
    std::vector<uint64_t> heapSizes_;            // by memory type; 0 until its first request
    std::vector<std::optional<Buddy>> buddies_;  // by memory type, created on first buddy request
};

}  // namespace repro
