// copyFromMapped: the AVX2 and SSE4.1 streaming-load copies (chosen at run time) and the
// memcpy fallback, spread over the worker pool in 16 KiB blocks. Contracts and sources are
// in host_read.hpp.
#include "reference/host_read.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/enum_names.hpp"
#include "core/parallel.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define REPRO_HOST_READ_X86 1
#include <immintrin.h>
#else
#define REPRO_HOST_READ_X86 0
#endif

namespace repro {
namespace {

constexpr size_t kLine = 64;  // a cache line and a streaming-load buffer's size
constexpr size_t kLoad = 16;  // one MOVNTDQA xmm

#if REPRO_HOST_READ_X86
// One aligned 16-byte streaming load. _mm_stream_load_si128 takes a non-const pointer in
// GCC's header although it only reads.
[[gnu::target("sse4.1"), gnu::always_inline]] inline __m128i streamLoad16(const unsigned char* p) {
    return _mm_stream_load_si128(const_cast<__m128i*>(reinterpret_cast<const __m128i*>(p)));
}
[[gnu::target("sse4.1"), gnu::always_inline]] inline void store16(unsigned char* p, __m128i v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i streamLoad32(const unsigned char* p) {
    return _mm256_stream_load_si256(const_cast<__m256i*>(reinterpret_cast<const __m256i*>(p)));
}
[[gnu::target("avx2"), gnu::always_inline]] inline void store32(unsigned char* p, __m256i v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

// The partial lines at the ends of [src, src + bytes): ordinary loads for the bytes before
// the first and after the last 16-byte boundary, 16-byte streaming loads for the rest.
// copyHead copies up to the first 64-byte boundary and returns where it stopped; copyTail
// copies from `from` to the end.
[[gnu::target("sse4.1"), gnu::always_inline]] inline size_t copyHead(unsigned char* dst, const unsigned char* src,
                                                                     size_t bytes) {
    const auto address = reinterpret_cast<uintptr_t>(src);
    const size_t head = std::min(bytes, (kLoad - address % kLoad) % kLoad);
    std::memcpy(dst, src, head);
    size_t i = head;
    for (; i + kLoad <= bytes && (address + i) % kLine != 0; i += kLoad) {
        store16(dst + i, streamLoad16(src + i));
    }
    return i;
}
[[gnu::target("sse4.1"), gnu::always_inline]] inline void copyTail(unsigned char* dst, const unsigned char* src,
                                                                   size_t from, size_t bytes) {
    size_t i = from;
    for (; i + kLoad <= bytes; i += kLoad) store16(dst + i, streamLoad16(src + i));
    std::memcpy(dst + i, src + i, bytes - i);
}

// Whole lines, one at a time: the line's loads back to back, then its stores. Measured on
// the H200 host (bench/RESULTS.md): one line per iteration reads WC memory 1.5 to 2 times
// faster than two or four lines' loads issued before their stores.
[[gnu::target("sse4.1")]] void streamCopySse41(unsigned char* dst, const unsigned char* src, size_t bytes) {
    _mm_mfence();  // SDM, MOVNTDQA: orders these WC reads after the device's writes
    size_t i = copyHead(dst, src, bytes);
    for (; i + kLine <= bytes; i += kLine) {
        const __m128i a = streamLoad16(src + i), b = streamLoad16(src + i + 16);
        const __m128i c = streamLoad16(src + i + 32), d = streamLoad16(src + i + 48);
        store16(dst + i, a);
        store16(dst + i + 16, b);
        store16(dst + i + 32, c);
        store16(dst + i + 48, d);
    }
    copyTail(dst, src, i, bytes);
}

// The same with VMOVNTDQA ymm (AVX2): two 32-byte streaming loads per line.
[[gnu::target("avx2")]] void streamCopyAvx2(unsigned char* dst, const unsigned char* src, size_t bytes) {
    _mm_mfence();
    size_t i = copyHead(dst, src, bytes);
    for (; i + kLine <= bytes; i += kLine) {
        const __m256i a = streamLoad32(src + i), b = streamLoad32(src + i + 32);
        store32(dst + i, a);
        store32(dst + i + 32, b);
    }
    copyTail(dst, src, i, bytes);
}
#endif

void memcpyCopy(unsigned char* dst, const unsigned char* src, size_t bytes) { std::memcpy(dst, src, bytes); }

using CopyFunction = void (*)(unsigned char*, const unsigned char*, size_t);

bool supported(HostReadKernel kernel) {
#if REPRO_HOST_READ_X86
    switch (kernel) {
        case HostReadKernel::StreamLoadAvx2:
            return __builtin_cpu_supports("avx2");
        case HostReadKernel::StreamLoadSse41:
            return __builtin_cpu_supports("sse4.1");
        default:
            return true;
    }
#else
    return kernel == HostReadKernel::Memcpy || kernel == HostReadKernel::Auto;
#endif
}

// Auto -> REPRO_READ_KERNEL, else the widest stream-load kernel; then down the chain
// AVX2 -> SSE4.1 -> memcpy to one this CPU runs.
HostReadKernel resolveKernel(HostReadKernel kernel) {
    if (kernel == HostReadKernel::Auto) {
        kernel = parseReadKernel(std::getenv("REPRO_READ_KERNEL")).value_or(HostReadKernel::StreamLoadAvx2);
    }
    if (kernel == HostReadKernel::StreamLoadAvx2 && !supported(kernel)) kernel = HostReadKernel::StreamLoadSse41;
    if (kernel == HostReadKernel::StreamLoadSse41 && !supported(kernel)) kernel = HostReadKernel::Memcpy;
    return kernel;
}

CopyFunction copyFunction(HostReadKernel kernel) {
#if REPRO_HOST_READ_X86
    if (kernel == HostReadKernel::StreamLoadAvx2) return streamCopyAvx2;
    if (kernel == HostReadKernel::StreamLoadSse41) return streamCopySse41;
#endif
    (void)kernel;
    return memcpyCopy;
}

// The threads a copy of `bytes` in `blocks` blocks runs on: the asked `threads`, but no
// more than the blocks, one per kMinReadBytesPerThread, and kMaxParallelThreads.
unsigned threadsFor(size_t bytes, size_t blocks, unsigned threads) {
    return static_cast<unsigned>(
        std::min<size_t>({threads, blocks, std::max<size_t>(bytes / kMinReadBytesPerThread, 1), kMaxParallelThreads}));
}

}  // namespace

std::string_view name(HostReadKernel kernel) {
    static constexpr std::string_view kNames[] = {"auto", "stream-load-avx2", "stream-load-sse4.1", "memcpy"};
    return nameOf(kNames, kernel);
}

std::optional<HostReadKernel> parseReadKernel(const char* text) {
    if (text == nullptr) return std::nullopt;
    for (const HostReadKernel k :
         {HostReadKernel::StreamLoadAvx2, HostReadKernel::StreamLoadSse41, HostReadKernel::Memcpy}) {
        if (std::string_view(text) == name(k)) return k;
    }
    return std::nullopt;
}

unsigned defaultReadThreads() {
    if (const auto forced = parseThreadCount(std::getenv("REPRO_READ_THREADS"))) return *forced;
    return std::min(availableCpus(), kDefaultReadThreadCap);
}

HostReadInfo copyFromMapped(void* dst, const void* src, size_t bytes, unsigned threads, HostReadKernel kernel) {
    HostReadInfo info{.kernel = resolveKernel(kernel), .threads = 1};
    if (bytes == 0) return info;
    const CopyFunction copy = copyFunction(info.kernel);
    auto* out = static_cast<unsigned char*>(dst);
    const auto* in = static_cast<const unsigned char*>(src);
    // Block k is [bound(k), bound(k + 1)): boundaries on kReadBlockBytes multiples of the
    // source address (so on 64-byte lines too), the first and last at the ends of the range.
    const size_t lead = kReadBlockBytes - reinterpret_cast<uintptr_t>(in) % kReadBlockBytes;
    const size_t blocks = bytes <= lead ? 1 : 2 + (bytes - lead - 1) / kReadBlockBytes;
    auto bound = [&](size_t k) { return k == 0 ? 0 : std::min(bytes, lead + (k - 1) * kReadBlockBytes); };
    if (threads == 0) threads = defaultReadThreads();
    info.threads = threadsFor(bytes, blocks, threads);
    parallelTasks(blocks, info.threads, [&](size_t k) {
        const size_t begin = bound(k);
        copy(out + begin, in + begin, bound(k + 1) - begin);
    });
    return info;
}

void copyToMapped(void* dst, const void* src, size_t bytes, unsigned threads) {
    if (bytes == 0) return;
    auto* out = static_cast<unsigned char*>(dst);
    const auto* in = static_cast<const unsigned char*>(src);
    const size_t blocks = (bytes + kWriteBlockBytes - 1) / kWriteBlockBytes;
    if (threads == 0) threads = std::min(availableCpus(), kDefaultWriteThreadCap);
    parallelTasks(blocks, threadsFor(bytes, blocks, threads), [&](size_t k) {
        const size_t begin = k * kWriteBlockBytes;
        std::memcpy(out + begin, in + begin, std::min(bytes, begin + kWriteBlockBytes) - begin);
    });
}

}  // namespace repro
