// The host's read of mapped device memory (a vkMapMemory pointer) into ordinary cached
// host memory: streaming loads (MOVNTDQA) spread over threads, because plain loads from
// write-combined memory (host-visible VRAM through the PCIe BAR) are uncached and slow.
// Vulkan-free: the caller passes the mapped pointer. docs/modes.md "How the host reads the
// result" says why it stays a host read of the mapping (a GPU copy could hide a missing
// flush) and why streaming loads, with the sources (Intel SDM Vol. 2B MOVNTDQA).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace repro {

// How copyFromMapped reads.
enum class HostReadKernel {
    Auto,             // the widest stream-load kernel this CPU has; REPRO_READ_KERNEL overrides
    StreamLoadAvx2,   // VMOVNTDQA ymm: two 32-byte streaming loads per 64-byte line (AVX2)
    StreamLoadSse41,  // MOVNTDQA xmm: four 16-byte streaming loads per 64-byte line (SSE4.1)
    Memcpy,           // std::memcpy per block
};
// A kernel the CPU lacks falls back along AVX2 -> SSE4.1 -> memcpy; on other architectures
// than x86 everything is Memcpy.

// "auto", "stream-load-avx2", "stream-load-sse4.1", "memcpy".
std::string_view name(HostReadKernel kernel);

// What one copy did.
struct HostReadInfo {
    HostReadKernel kernel = HostReadKernel::Memcpy;  // the kernel that ran (never Auto)
    unsigned threads = 1;                            // threads asked to read, the caller included (fewer run when the
                                                     // system refuses a thread: parallel.hpp)
};

// Default most threads: min(availableCpus(), 16). Reading WC memory scales with threads, and 16 is all the
// H200 host has (bench/RESULTS.md); oversubscribing it (32) gained nothing.
inline constexpr unsigned kDefaultReadThreadCap = 16;
// Fewest bytes per thread: smaller copies use fewer threads (one below 128 KiB).
inline constexpr size_t kMinReadBytesPerThread = 64 * 1024;
// The unit of work: threads take 16 KiB blocks of the source, in address order, from a shared counter, so at
// any moment they read neighbouring blocks (faster on the H200's BAR than one contiguous range a thread:
// bench/RESULTS.md).
inline constexpr size_t kReadBlockBytes = 16 * 1024;

// The default thread count: REPRO_READ_THREADS when it holds an integer 1..64
// (parseThreadCount), else min(availableCpus(), kDefaultReadThreadCap). The variable is
// for benchmarking; an unusable value is ignored.
unsigned defaultReadThreads();

// Parses a REPRO_READ_KERNEL value: "stream-load-avx2", "stream-load-sse4.1" or "memcpy",
// or nullopt.
std::optional<HostReadKernel> parseReadKernel(const char* text);

// Copies `bytes` bytes from `src` to `dst` and returns what ran.
//   src:     host-visible device memory mapped by vkMapMemory (any memory type: WC,
//            uncached or cached), or any other readable memory; any alignment.
//   dst:     ordinary host memory, `bytes` long, not overlapping src; any alignment.
//   bytes:   any size; 0 copies nothing.
//   threads: 0 = defaultReadThreads(); 1 = the calling thread alone; fewer are used when
//            bytes / kMinReadBytesPerThread is smaller. They take kReadBlockBytes blocks
//            (boundaries at multiples of 16 KiB of the source address); the partial lines
//            at either end of a block are read with 16-byte streaming loads and, for the
//            bytes off a 16-byte boundary, ordinary loads.
//   kernel:  see HostReadKernel; Auto honours REPRO_READ_KERNEL.
// The caller must have made the device's writes visible to the host first (a host-read
// barrier before the fence it waited for, and vkInvalidateMappedMemoryRanges for memory
// that is not HOST_COHERENT). Each block a stream-load kernel reads starts with MFENCE,
// which the SDM asks for when streaming loads from WC memory must be ordered after another
// agent's writes.
// No exceptions; the pool's threads are back asleep when it returns (parallel.hpp).
HostReadInfo copyFromMapped(void* dst, const void* src, size_t bytes, unsigned threads = 0,
                            HostReadKernel kernel = HostReadKernel::Auto);

// The other direction, for the upload of the chain's input: copies `bytes` bytes from
// ordinary host memory `src` to mapped device memory `dst` (any memory type, any alignment,
// not overlapping), in kWriteBlockBytes blocks spread over up to `threads` threads (0 =
// min(availableCpus(), kDefaultWriteThreadCap), fewer for copies under
// kMinReadBytesPerThread a thread). Stores to write-combined memory leave a core through
// its few write-combining buffers, so one memcpy into the BAR is bound by one core and more
// cores add buffers, up to a point. No exceptions.
void copyToMapped(void* dst, const void* src, size_t bytes, unsigned threads = 0);
inline constexpr size_t kWriteBlockBytes = 64 * 1024;
// The most writer threads: the fastest count into system memory; more contend for the link (the H200's BAR
// write figures: bench/RESULTS.md).
inline constexpr unsigned kDefaultWriteThreadCap = 8;

}  // namespace repro
