// GCC vector types of one register width for the verification kernels (stats.cpp,
// compareWithTolerance in cpu_reference.cpp), so one kernel template is instantiated for
// 128-bit (SSE2, the x86-64 baseline) and 256-bit (AVX2) registers. Internal to src/reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

// Whether the kernels are also compiled for AVX2 (GCC target attributes), chosen at run time.
#if defined(__GNUC__) && defined(__x86_64__)
#define REPRO_SIMD_X86_DISPATCH 1
#else
#define REPRO_SIMD_X86_DISPATCH 0
#endif

namespace repro::simd {

// Whether the AVX2 path runs: the CPU has AVX2 (with `fma`, FMA too) and REPRO_CPU_KERNEL is
// not "baseline", which forces the baseline SSE2 path.
inline bool useAvx2(bool fma = false) {
#if REPRO_SIMD_X86_DISPATCH
    const char* force = std::getenv("REPRO_CPU_KERNEL");
    if (force != nullptr && std::string_view(force) == "baseline") return false;
    return __builtin_cpu_supports("avx2") && (!fma || __builtin_cpu_supports("fma"));
#else
    (void)fma;
    return false;
#endif
}

// 128-bit registers: 4 int32 or 2 float64 lanes.
struct Narrow {
    using Int = int32_t __attribute__((vector_size(16)));
    using Long = int64_t __attribute__((vector_size(16)));
    using Double = double __attribute__((vector_size(16)));
    using HalfFloat = float __attribute__((vector_size(8)));  // the floats one Double widens
};
// 256-bit registers: 8 int32 or 4 float64 lanes.
struct Wide {
    using Int = int32_t __attribute__((vector_size(32)));
    using Long = int64_t __attribute__((vector_size(32)));
    using Double = double __attribute__((vector_size(32)));
    using HalfFloat = float __attribute__((vector_size(16)));
};

template <typename V>
constexpr size_t kLanesOf = sizeof(V) / sizeof(V{}[0]);

// Unaligned loads (of floats, or cpu_reference.cpp's conv-T doubles) by reference: no vector
// passes through a call ABI.
template <typename V>
[[gnu::always_inline]] inline void loadLanes(V& v, const void* p) {
    std::memcpy(&v, p, sizeof v);
}
template <typename S>
[[gnu::always_inline]] inline void widenLanes(typename S::Double& v, const float* p) {
    typename S::HalfFloat f;
    loadLanes(f, p);
    v = __builtin_convertvector(f, typename S::Double);
}

// |v| lane-wise, by clearing the sign bit (so -0 becomes +0, as std::fabs does).
template <typename S>
[[gnu::always_inline]] inline void absLanes(typename S::Double& v) {
    typename S::Long bits;
    std::memcpy(&bits, &v, sizeof v);
    bits &= INT64_MAX;
    std::memcpy(&v, &bits, sizeof v);
}

template <typename V>
[[gnu::always_inline]] inline uint64_t laneSum(const V& v) {
    uint64_t total = 0;
    for (size_t l = 0; l < kLanesOf<V>; ++l) total += static_cast<uint64_t>(v[l]);
    return total;
}

}  // namespace repro::simd
