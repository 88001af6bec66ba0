// CPU reference for the conv-T + slice chain: a polyphase, register-tiled float64 conv-T
// spread over std::threads, the slice, the chain, and the derived float32 error bound.
// Contracts are in cpu_reference.hpp.
#include "reference/cpu_reference.hpp"

#include "core/interrupt.hpp"
#include "core/parallel.hpp"
#include "reference/simd_lanes.hpp"
#include "reference/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <thread>

namespace repro {
namespace {

// ci per register tile (the tile is kBlockCi ci x 2 vectors of columns).
constexpr uint32_t kBlockCi = 4;
// The widest tile's columns (AVX2: 2 x 4 doubles); margins and row padding cover it.
constexpr uint32_t kMaxTileCols = 8;
// Columns of one output row handled per pass (a multiple of kMaxTileCols): the accumulator
// block [ci group][kColBlock] and the input rows of one co chunk stay in L2.
constexpr uint32_t kColBlock = 256;
// Most ci per work unit. A unit reads every input row of its output rows once per pass over
// its ci, so larger groups read the input fewer times; smaller ones balance threads.
constexpr uint32_t kMaxGroupCi = 64;
// Bytes of input rows one co chunk may touch (sets the chunk's co count).
constexpr size_t kChunkInputBytes = 64 * 1024;

// ---- Geometry -------------------------------------------------------------------------

// One output phase along one axis: the big indices first, first + stride, ... whose
// (index + pad) mod stride is `phase`. Tap t of the phase is kernel index phase + t*stride;
// output j of the phase reads small index start + j - t.
struct Phase {
    uint32_t first = 0;
    uint32_t count = 0;
    uint32_t start = 0;
    uint32_t taps = 0;
    uint32_t phase = 0;
};

std::vector<Phase> makePhases(uint32_t bigLen, uint32_t kernel, uint32_t stride, uint32_t pad) {
    std::vector<Phase> out;
    const uint32_t n = std::min(stride, bigLen);  // only phases that hold an output
    for (uint32_t first = 0; first < n; ++first) {
        const uint64_t shifted = uint64_t{first} + pad;
        Phase ph;
        ph.first = first;
        ph.phase = static_cast<uint32_t>(shifted % stride);
        ph.count = (bigLen - 1 - first) / stride + 1;
        ph.start = static_cast<uint32_t>((shifted - ph.phase) / stride);
        ph.taps = ph.phase < kernel ? (kernel - 1 - ph.phase) / stride + 1 : 0;
        out.push_back(ph);
    }
    return out;
}

uint32_t roundUp(uint32_t v, uint32_t m) { return (v + m - 1) / m * m; }

struct Geometry {
    Shape s;
    ChainSizes z;
    std::vector<Phase> rows, cols;
    // The float64 working copy of small: each [H, W] plane sits inside a zero margin so
    // every tap of every (tile-padded) output reads memory, zero where out of range.
    uint32_t top = 0, left = 0, paddedH = 0, paddedW = 0;
    size_t plane = 0;
    uint32_t maxRowTaps = 0, maxColTaps = 0, maxColCount = 0;

    Geometry(const Shape& shape, const ChainSizes& sizes) : s(shape), z(sizes) {
        rows = makePhases(z.bigHeight, s.kernelH, s.strideH, s.padH);
        cols = makePhases(z.bigWidth, s.kernelW, s.strideW, s.padW);
        int64_t lo = 0, hi = int64_t{s.height} - 1;
        for (const Phase& p : rows) {
            if (p.taps == 0) continue;
            lo = std::min(lo, int64_t{p.start} - (p.taps - 1));
            hi = std::max(hi, int64_t{p.start} + p.count - 1);
            maxRowTaps = std::max(maxRowTaps, p.taps);
        }
        top = static_cast<uint32_t>(-lo);
        paddedH = static_cast<uint32_t>(hi - lo + 1);
        lo = 0;
        hi = int64_t{s.width} - 1;
        for (const Phase& p : cols) {
            maxColCount = std::max(maxColCount, roundUp(p.count, kMaxTileCols));
            if (p.taps == 0) continue;
            lo = std::min(lo, int64_t{p.start} - (p.taps - 1));
            hi = std::max(hi, int64_t{p.start} + roundUp(p.count, kMaxTileCols) - 1);
            maxColTaps = std::max(maxColTaps, p.taps);
        }
        left = static_cast<uint32_t>(-lo);
        paddedW = static_cast<uint32_t>(hi - lo + 1);
        plane = size_t{paddedH} * paddedW;
    }

    size_t paddedElems() const { return size_t{s.batch} * s.channels * plane; }
    size_t paddedIndex(size_t nc, uint32_t h, uint32_t w) const {
        return nc * plane + size_t{h + top} * paddedW + (w + left);
    }
};

// Copies float small [batch, C, H, W] into the interior of a zeroed padded buffer.
void fillPadded(const Geometry& g, std::span<const float> small, std::vector<double>& padded) {
    const size_t planes = size_t{g.s.batch} * g.s.channels;
    for (size_t nc = 0; nc < planes; ++nc) {
        for (uint32_t h = 0; h < g.s.height; ++h) {
            const float* src = small.data() + (nc * g.s.height + h) * g.s.width;
            double* dst = padded.data() + g.paddedIndex(nc, h, 0);
            for (uint32_t w = 0; w < g.s.width; ++w) dst[w] = src[w];
        }
    }
}

// ---- Threads --------------------------------------------------------------------------

unsigned resolveThreads(unsigned threads) {
    if (threads == 0) threads = std::thread::hardware_concurrency();
    return std::max(threads, 1u);
}

// Calls body(unit, worker) for unit in [0, units), units handed out dynamically.
template <typename F>
void parallelFor(unsigned workers, size_t units, F&& body) {
    workers = static_cast<unsigned>(std::min<size_t>(workers, std::max<size_t>(units, 1)));
    std::atomic<size_t> next{0};
    auto run = [&](unsigned worker) {
        for (size_t u = next.fetch_add(1); u < units; u = next.fetch_add(1)) body(u, worker);
    };
    if (workers <= 1) {
        run(0);
        return;
    }
    std::vector<std::jthread> pool;
    pool.reserve(workers - 1);
    for (unsigned t = 1; t < workers; ++t) pool.emplace_back(run, t);
    run(0);
}

// ---- The conv-T kernel ----------------------------------------------------------------

// Where one step's results go; null pointers are skipped.
struct StepOut {
    float* big = nullptr;          // [batch, C, bigH, bigW]
    double* nextPadded = nullptr;  // the slice, into the next step's padded buffer
    float* small = nullptr;        // the slice as float [batch, C, H, W]
};

// Per-worker scratch.
struct Workspace {
    std::vector<double> packed;      // weights of one (ci group, phase): [block][k][kBlockCi][lanes]
    std::vector<ptrdiff_t> offsets;  // input offset of term k from the tile's base
    std::vector<double> acc;         // [group ci][kColBlock] for one block of one output row
};

using v2d = double __attribute__((vector_size(16)));
using v4d = double __attribute__((vector_size(32)));

// Unaligned vector store (by reference: no vector passes through a call ABI; simd::loadLanes loads).
template <typename V>
[[gnu::always_inline]] inline void storeV(double* p, const V& v) {
    std::memcpy(p, &v, sizeof v);
}

// Lanes each packed weight is stored with: SSE2 has no broadcast load, so its weights are
// stored pre-broadcast (one full-vector load each); AVX2 broadcasts a scalar (vbroadcastsd),
// which keeps the packed weights 4x smaller and the weight vectors in registers.
template <typename V>
constexpr uint32_t kStoredLanes = sizeof(V) == 2 * sizeof(double) ? 2 : 1;

template <typename V>
[[gnu::always_inline]] inline void weightV(V& v, const double* p) {
    if constexpr (kStoredLanes < V >> 1) {
        simd::loadLanes(v, p);
    } else {
        v = V{*p, *p, *p, *p};
    }
}
// acc[c][0, 2*lanes) += sum over k of packed[k][c] * base[offsets[k] + (0, 2*lanes)], for
// the kBlockCi rows c of the accumulator (row stride accStride). Eight vector accumulators
// live in registers across the whole k loop.
template <typename V>
[[gnu::always_inline]] inline void tile(double* acc, size_t accStride, const double* base, const ptrdiff_t* offsets,
                                        const double* packed, size_t terms) {
    constexpr size_t L = sizeof(V) / sizeof(double);
    V a00, a01, a10, a11, a20, a21, a30, a31;
    simd::loadLanes(a00, acc);
    simd::loadLanes(a01, acc + L);
    simd::loadLanes(a10, acc + accStride);
    simd::loadLanes(a11, acc + accStride + L);
    simd::loadLanes(a20, acc + 2 * accStride);
    simd::loadLanes(a21, acc + 2 * accStride + L);
    simd::loadLanes(a30, acc + 3 * accStride);
    simd::loadLanes(a31, acc + 3 * accStride + L);
    for (size_t k = 0; k < terms; ++k) {
        const double* x = base + offsets[k];
        V x0, x1;
        simd::loadLanes(x0, x);
        simd::loadLanes(x1, x + L);
        constexpr uint32_t P = kStoredLanes<V>;
        const double* w = packed + k * kBlockCi * P;
        V w0, w1, w2, w3;
        weightV(w0, w);
        weightV(w1, w + P);
        weightV(w2, w + 2 * P);
        weightV(w3, w + 3 * P);
        a00 += w0 * x0;
        a01 += w0 * x1;
        a10 += w1 * x0;
        a11 += w1 * x1;
        a20 += w2 * x0;
        a21 += w2 * x1;
        a30 += w3 * x0;
        a31 += w3 * x1;
    }
    storeV(acc, a00);
    storeV(acc + L, a01);
    storeV(acc + accStride, a10);
    storeV(acc + accStride + L, a11);
    storeV(acc + 2 * accStride, a20);
    storeV(acc + 2 * accStride + L, a21);
    storeV(acc + 3 * accStride, a30);
    storeV(acc + 3 * accStride + L, a31);
}

// Work split: unit u = (batch item u / groups, ci group u % groups) of groupCi ci each.
struct Split {
    uint32_t groupCi = 0;  // multiple of kBlockCi
    uint32_t groups = 0;   // per batch item
    uint32_t coChunk = 0;  // co per pass over a column block
    size_t units = 0;
};

// Packs phase (rp, cp)'s weights for ci [ci0, ci0 + ciCount) into ws.packed as
// [block][co][l][m][c][P lanes] (broadcast across lanes; zero past ciCount) and the input
// offset of each term (co, l, m) into ws.offsets.
template <uint32_t P>
[[gnu::always_inline]] inline void packPhaseWeights(const Geometry& g, const Phase& rp, const Phase& cp,
                                                    const double* weight, uint32_t ci0, uint32_t ciCount,
                                                    uint32_t blocks, Workspace& ws) {
    const Shape& s = g.s;
    const uint32_t C = s.channels;
    const size_t terms = size_t{C} * (rp.taps * cp.taps);
    for (uint32_t co = 0; co < C; ++co) {
        for (uint32_t l = 0; l < rp.taps; ++l) {
            const uint32_t kh = rp.phase + l * s.strideH;
            for (uint32_t m = 0; m < cp.taps; ++m) {
                const uint32_t kw = cp.phase + m * s.strideW;
                const size_t k = (size_t{co} * rp.taps + l) * cp.taps + m;
                ws.offsets[k] = static_cast<ptrdiff_t>(co * g.plane) - static_cast<ptrdiff_t>(l) * g.paddedW -
                                static_cast<ptrdiff_t>(m);
                for (uint32_t c = 0; c < blocks * kBlockCi; ++c) {
                    const double w =
                        c < ciCount ? weight[((size_t{co} * C + ci0 + c) * s.kernelH + kh) * s.kernelW + kw] : 0.0;
                    double* dst = ws.packed.data() + ((c / kBlockCi * terms + k) * kBlockCi + c % kBlockCi) * P;
                    for (uint32_t lane = 0; lane < P; ++lane) dst[lane] = w;
                }
            }
        }
    }
}

// Accumulates into ws.acc (zeroed first) the column block [q0, q0 + width) of one output
// row whose input starts at rowBase, over every co and tap of a phase with `taps` taps.
template <typename V>
[[gnu::always_inline]] inline void accumulateColumnBlock(const Split& split, uint32_t C, uint32_t taps, uint32_t blocks,
                                                         const double* rowBase, uint32_t q0, uint32_t width,
                                                         Workspace& ws) {
    constexpr uint32_t L = sizeof(V) / sizeof(double);
    constexpr uint32_t P = kStoredLanes<V>;
    constexpr uint32_t tileCols = 2 * L;
    const size_t terms = size_t{C} * taps;
    std::fill(ws.acc.begin(), ws.acc.end(), 0.0);
    for (uint32_t co0 = 0; co0 < C && taps > 0; co0 += split.coChunk) {
        const size_t k0 = size_t{co0} * taps;
        const size_t kn = size_t{std::min(split.coChunk, C - co0)} * taps;
        for (uint32_t b = 0; b < blocks; ++b) {
            double* acc = ws.acc.data() + size_t{b} * kBlockCi * kColBlock;
            const double* packed = ws.packed.data() + (b * terms + k0) * kBlockCi * P;
            for (uint32_t q = 0; q < width; q += tileCols) {
                tile<V>(acc + q, kColBlock, rowBase + q0 + q, ws.offsets.data() + k0, packed, kn);
            }
        }
    }
}

// Scatters the column block's outputs t in [q0, q0 + width) of output row ih (column phase
// cp) from ws.acc to every output in `out`, for planes n*C + ci0 + [0, ciCount).
[[gnu::always_inline]] inline void scatterColumnBlock(const Geometry& g, const Phase& cp, size_t n, uint32_t ci0,
                                                      uint32_t ciCount, uint32_t ih, uint32_t q0, uint32_t width,
                                                      const Workspace& ws, const StepOut& out) {
    const Shape& s = g.s;
    const uint32_t C = s.channels;
    const bool sliced = ih >= 1 && ih <= s.height;
    // Scatter the block's outputs t in [tBegin, tEnd) (iw = first + t*strideW).
    const uint32_t tBegin = q0;
    const uint32_t tEnd = std::min(cp.count, q0 + width);
    // The slice keeps iw in [1, W].
    const uint32_t sBegin = std::max(tBegin, cp.first >= 1 ? 0u : 1u);
    const uint32_t sEnd = cp.first <= s.width ? std::min(tEnd, (s.width - cp.first) / s.strideW + 1) : 0;
    for (uint32_t c = 0; c < ciCount; ++c) {
        const size_t nc = n * C + ci0 + c;
        const double* a = ws.acc.data() + size_t{c} * kColBlock;
        if (out.big) {
            float* dst = out.big + (nc * g.z.bigHeight + ih) * g.z.bigWidth;
            for (uint32_t t = tBegin; t < tEnd; ++t) {
                dst[cp.first + size_t{t} * s.strideW] = static_cast<float>(a[t - q0]);
            }
        }
        if (!sliced) continue;
        if (out.nextPadded) {
            double* dst = out.nextPadded + g.paddedIndex(nc, ih - 1, 0) - 1;
            for (uint32_t t = sBegin; t < sEnd; ++t) dst[cp.first + size_t{t} * s.strideW] = a[t - q0];
        }
        if (out.small) {
            float* dst = out.small + (nc * s.height + ih - 1) * s.width - 1;
            for (uint32_t t = sBegin; t < sEnd; ++t) {
                dst[cp.first + size_t{t} * s.strideW] = static_cast<float>(a[t - q0]);
            }
        }
    }
}

// One unit: batch item n, ci [ci0, ci0 + groupCi) (clipped to C), every phase; writes its
// ci planes of every output in `out`. Returns the multiply-adds executed (tile padding and
// clipped ci included).
template <typename V>
[[gnu::always_inline]] inline uint64_t convUnit(const Geometry& g, const Split& split, const double* in,
                                                const double* weight, size_t n, uint32_t group, Workspace& ws,
                                                const StepOut& out) {
    constexpr uint32_t L = sizeof(V) / sizeof(double);
    constexpr uint32_t tileCols = 2 * L;
    const Shape& s = g.s;
    const uint32_t C = s.channels;
    const uint32_t ci0 = group * split.groupCi;
    const uint32_t ciCount = std::min(split.groupCi, C - ci0);
    const uint32_t blocks = (ciCount + kBlockCi - 1) / kBlockCi;
    const double* inN = in + n * C * g.plane;
    uint64_t madds = 0;

    for (const Phase& rp : g.rows) {
        for (const Phase& cp : g.cols) {
            const uint32_t taps = rp.taps * cp.taps;
            const size_t terms = size_t{C} * taps;
            const uint32_t colsPadded = roundUp(cp.count, tileCols);
            packPhaseWeights<kStoredLanes<V>>(g, rp, cp, weight, ci0, ciCount, blocks, ws);
            for (uint32_t j = 0; j < rp.count; ++j) {
                // Input at (small row start + j, small col start) of plane co = 0; term k
                // adds its own co, -l and -m.
                const double* rowBase = inN + size_t{rp.start + j + g.top} * g.paddedW + (cp.start + g.left);
                const uint32_t ih = rp.first + j * s.strideH;
                for (uint32_t q0 = 0; q0 < colsPadded; q0 += kColBlock) {
                    const uint32_t width = std::min(kColBlock, colsPadded - q0);
                    accumulateColumnBlock<V>(split, C, taps, blocks, rowBase, q0, width, ws);
                    madds += uint64_t{width} * blocks * kBlockCi * terms;
                    scatterColumnBlock(g, cp, n, ci0, ciCount, ih, q0, width, ws, out);
                }
            }
        }
    }
    return madds;
}

uint64_t convUnitBaseline(const Geometry& g, const Split& split, const double* in, const double* weight, size_t n,
                          uint32_t group, Workspace& ws, const StepOut& out) {
    return convUnit<v2d>(g, split, in, weight, n, group, ws, out);
}

#if REPRO_SIMD_X86_DISPATCH
[[gnu::target("avx2,fma")]] uint64_t convUnitAvx2(const Geometry& g, const Split& split, const double* in,
                                                  const double* weight, size_t n, uint32_t group, Workspace& ws,
                                                  const StepOut& out) {
    return convUnit<v4d>(g, split, in, weight, n, group, ws, out);
}
#endif

using ConvUnitFn = uint64_t (*)(const Geometry&, const Split&, const double*, const double*, size_t, uint32_t,
                                Workspace&, const StepOut&);

struct Kernel {
    ConvUnitFn fn;
    uint32_t storedLanes;  // kStoredLanes of its vector type
    std::string_view name;
};

// The AVX2+FMA path where the CPU has it, unless REPRO_CPU_KERNEL=baseline.
Kernel pickKernel() {
#if REPRO_SIMD_X86_DISPATCH
    if (simd::useAvx2(/*fma=*/true)) return {convUnitAvx2, kStoredLanes<v4d>, "avx2+fma"};
#endif
    return {convUnitBaseline, kStoredLanes<v2d>, "baseline"};
}

// Units of at most kMaxGroupCi ci, at least two per thread where C allows.
Split makeSplit(const Geometry& g, unsigned threads) {
    Split sp;
    const uint32_t C = g.s.channels;
    const uint64_t want = (uint64_t{C} + 2 * uint64_t{threads} - 1) / (2 * uint64_t{threads});
    sp.groupCi = roundUp(static_cast<uint32_t>(std::clamp<uint64_t>(want, kBlockCi, kMaxGroupCi)), kBlockCi);
    sp.groups = (C + sp.groupCi - 1) / sp.groupCi;
    sp.units = size_t{g.s.batch} * sp.groups;
    const size_t rowBytes = size_t{kColBlock + g.maxColTaps} * sizeof(double);
    const size_t perCo = std::max<size_t>(g.maxRowTaps, 1) * rowBytes;
    sp.coChunk = static_cast<uint32_t>(std::clamp<size_t>(kChunkInputBytes / perCo, 1, C));
    return sp;
}

// One conv-T step over all units. Returns the multiply-adds executed.
uint64_t convStep(const Geometry& g, const Kernel& kernel, const double* in, const std::vector<double>& weight,
                  unsigned threads, const StepOut& out) {
    const Split split = makeSplit(g, threads);
    const size_t maxTerms = std::max<size_t>(size_t{g.s.channels} * g.maxRowTaps * g.maxColTaps, 1);
    threads = static_cast<unsigned>(std::min<size_t>(threads, split.units));
    std::vector<Workspace> spaces(threads);
    for (Workspace& ws : spaces) {
        ws.packed.resize(size_t{split.groupCi} * maxTerms * kernel.storedLanes);
        ws.offsets.resize(maxTerms);
        ws.acc.resize(size_t{split.groupCi} * kColBlock);
    }
    std::vector<uint64_t> madds(threads, 0);
    // An interrupt stops handing out units (each is a small part of one step), and the
    // step ends in Interrupted: SIGINT/SIGTERM is answered within a unit's time.
    parallelFor(threads, split.units, [&](size_t unit, unsigned worker) {
        if (interruptSignal() != 0) return;
        madds[worker] += kernel.fn(g, split, in, weight.data(), unit / split.groups,
                                   static_cast<uint32_t>(unit % split.groups), spaces[worker], out);
    });
    throwIfInterrupted("the host's float64 conv-T (the CPU reference or the per-dispatch check)");
    uint64_t total = 0;
    for (uint64_t m : madds) total += m;
    return total;
}

void checkSize(std::string_view what, size_t got, uint64_t want) {
    if (got != want) {
        throw std::invalid_argument(
            fmt::format("cpu reference: {} has {} elements, the shape needs {}", what, got, want));
    }
}

std::vector<double> toDouble(std::span<const float> v, bool absolute) {
    std::vector<double> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = absolute ? std::fabs(double(v[i])) : v[i];
    return out;
}

// f(padded index) for every interior element.
template <typename F>
void forInterior(const Geometry& g, F&& f) {
    const size_t planes = size_t{g.s.batch} * g.s.channels;
    for (size_t nc = 0; nc < planes; ++nc) {
        for (uint32_t h = 0; h < g.s.height; ++h) {
            const size_t base = g.paddedIndex(nc, h, 0);
            for (uint32_t w = 0; w < g.s.width; ++w) f(base + w);
        }
    }
}

unsigned workersFor(const Geometry& g, unsigned threads) {
    const unsigned workers = resolveThreads(threads);
    return static_cast<unsigned>(std::min<size_t>(workers, makeSplit(g, workers).units));
}

// The chain from x0: float copies as `keep` asks (big[] only with keepBig; small[N] always).
CpuChain runChain(const Geometry& g, std::span<const float> x0, const std::vector<double>& weight, uint32_t steps,
                  unsigned threads, bool keep, bool keepBig) {
    const Kernel kernel = pickKernel();
    CpuChain chain;
    const unsigned workers = resolveThreads(threads);
    chain.threads = workersFor(g, threads);
    chain.kernel = kernel.name;
    chain.small.resize(size_t{steps} + 1);
    chain.big.resize(steps);

    std::vector<double> cur(g.paddedElems(), 0.0);
    std::vector<double> next(steps > 0 ? g.paddedElems() : 0, 0.0);
    fillPadded(g, x0, cur);
    if (keep || steps == 0) chain.small[0].assign(x0.begin(), x0.end());
    for (uint32_t i = 0; i < steps; ++i) {
        StepOut out;
        if (keep && keepBig) {
            chain.big[i].resize(g.z.bigElems);
            out.big = chain.big[i].data();
        }
        if (keep || i + 1 == steps) {
            chain.small[i + 1].resize(g.z.smallElems);
            out.small = chain.small[i + 1].data();
        }
        out.nextPadded = next.data();
        chain.multiplyAdds += convStep(g, kernel, cur.data(), weight, workers, out);
        std::swap(cur, next);
    }
    return chain;
}

// ---- Comparison with the tolerance --------------------------------------------------
//
// compareWithTolerance's element rule, the one Tolerance::allowed states, written lane-wise
// with GCC vector types (simd_lanes.hpp) and instantiated for AVX2 and baseline registers
// (the same values either way: every operation is lane-wise IEEE float64, no FMA), plus its
// scalar form for a chunk's last elements.

struct ToleranceInputs {
    const float* gpu;
    const float* cpu;
    const float* magnitude;
    const float* deviation;
    double relative, absolute, coverage;
};

// One element: exactly the statements of the sequential loop.
[[gnu::always_inline]] inline void toleranceElement(ToleranceReport& r, const ToleranceInputs& in, size_t j) {
    const double worstCase = in.relative * double(in.magnitude[j]) + in.absolute;
    const double probable =
        in.coverage * double(in.deviation[j]) + std::ldexp(std::fabs(double(in.cpu[j])), -24) + in.absolute;
    const double allowed = std::min(worstCase, probable);
    r.maxAllowed = std::max(r.maxAllowed, allowed);
    r.maxAbsReference = std::max(r.maxAbsReference, std::fabs(double(in.cpu[j])));
    double ratio;
    if (!std::isfinite(in.gpu[j])) {
        ++r.nonfinite;
        ratio = std::numeric_limits<double>::infinity();
    } else {
        const double diff = std::fabs(double(in.gpu[j]) - double(in.cpu[j]));
        r.maxAbsDiff = std::max(r.maxAbsDiff, diff);
        ratio = diff / allowed;
    }
    if (!(ratio <= 1.0)) ++r.exceeded;
    if (allowed >= std::fabs(double(in.cpu[j]))) ++r.uninformative;
    if (ratio > r.worstRatio) {
        r.worstRatio = ratio;
        r.worstIndex = j;
    }
}

// Elements [begin, begin + n). std::max(a, b) is `a < b ? b : a` and std::min(a, b)
// `b < a ? b : a`; the lanes use the same comparisons, so NaN is handled as there. Each
// lane keeps the first index of its largest ratio; the lanes then pick the largest ratio
// and, among equal ones, the smallest index: the sequential loop's first maximum.
template <typename S>
[[gnu::always_inline]] inline ToleranceReport toleranceChunk(const ToleranceInputs& in, size_t begin, size_t n) {
    using Double = typename S::Double;
    using Long = typename S::Long;
    constexpr size_t kD = simd::kLanesOf<Double>;
    Double maxAllowed{}, maxRef{}, maxDiff{}, worst{};
    Long worstIndex{}, exceeded{}, nonfinite{}, uninformative{}, index{};
    for (size_t l = 0; l < kD; ++l) index[l] = static_cast<int64_t>(begin + l);
    const Double inf = Double{} + std::numeric_limits<double>::infinity();
    size_t j = begin;
    for (; j + kD <= begin + n; j += kD, index += static_cast<int64_t>(kD)) {
        Double cpu, magnitude, deviation, gpu;
        simd::widenLanes<S>(cpu, in.cpu + j);
        simd::widenLanes<S>(magnitude, in.magnitude + j);
        simd::widenLanes<S>(deviation, in.deviation + j);
        simd::widenLanes<S>(gpu, in.gpu + j);
        Double absCpu = cpu, absGpu = gpu;
        simd::absLanes<S>(absCpu);
        simd::absLanes<S>(absGpu);
        const Double worstCase = in.relative * magnitude + in.absolute;
        const Double probable = in.coverage * deviation + absCpu * 0x1p-24 + in.absolute;
        const Double allowed = probable < worstCase ? probable : worstCase;
        maxAllowed = maxAllowed < allowed ? allowed : maxAllowed;
        maxRef = maxRef < absCpu ? absCpu : maxRef;
        const Long finite = absGpu < inf;  // false for NaN and +-inf
        nonfinite -= ~finite;
        Double diff = gpu - cpu;
        simd::absLanes<S>(diff);
        maxDiff = (finite & (maxDiff < diff)) ? diff : maxDiff;
        const Double ratio = finite ? diff / allowed : inf;
        exceeded -= ~(ratio <= 1.0);
        uninformative -= allowed >= absCpu;
        const Long better = ratio > worst;
        worst = better ? ratio : worst;
        worstIndex = better ? index : worstIndex;
    }
    ToleranceReport r;
    r.exceeded = simd::laneSum(exceeded);
    r.nonfinite = simd::laneSum(nonfinite);
    r.uninformative = simd::laneSum(uninformative);
    for (size_t l = 0; l < kD; ++l) {
        r.maxAllowed = std::max(r.maxAllowed, maxAllowed[l]);
        r.maxAbsReference = std::max(r.maxAbsReference, maxRef[l]);
        r.maxAbsDiff = std::max(r.maxAbsDiff, maxDiff[l]);
        const auto at = static_cast<size_t>(worstIndex[l]);
        if (worst[l] > r.worstRatio || (worst[l] == r.worstRatio && worst[l] > 0 && at < r.worstIndex)) {
            r.worstRatio = worst[l];
            r.worstIndex = at;
        }
    }
    for (; j < begin + n; ++j) toleranceElement(r, in, j);
    return r;
}

ToleranceReport toleranceChunkBaseline(const ToleranceInputs& in, size_t begin, size_t n) {
    return toleranceChunk<simd::Narrow>(in, begin, n);
}

#if REPRO_SIMD_X86_DISPATCH
[[gnu::target("avx2")]] ToleranceReport toleranceChunkAvx2(const ToleranceInputs& in, size_t begin, size_t n) {
    return toleranceChunk<simd::Wide>(in, begin, n);
}
#endif

}  // namespace

std::vector<float> makeInput(const ChainSizes& sizes, unsigned threads) {
    // 3.7 M sinf calls at full size take about 40 ms on one core: spread them over the pool
    // (each element depends on its index alone, so the values do not depend on the threads).
    std::vector<float> v(sizes.smallElems);
    constexpr size_t kChunk = 64 * 1024;
    parallelTasks((v.size() + kChunk - 1) / kChunk, threads, [&](size_t task) {
        const size_t end = std::min(v.size(), (task + 1) * kChunk);
        for (size_t i = task * kChunk; i < end; ++i) v[i] = sinf(static_cast<float>(i) * 0.001f) + 1.0f;
    });
    return v;
}

std::vector<float> makeWeight(const ChainSizes& sizes) {
    std::vector<float> v(sizes.weightElems);
    for (size_t i = 0; i < v.size(); ++i) v[i] = cosf(static_cast<float>(i) * 0.01f) * 0.05f;
    return v;
}

void cpuConvT(const Shape& shape, const ChainSizes& sizes, std::span<const float> small, std::span<const float> weight,
              std::span<float> big, unsigned threads) {
    checkSize("conv-T input (small)", small.size(), sizes.smallElems);
    checkSize("conv-T weight", weight.size(), sizes.weightElems);
    checkSize("conv-T output (big)", big.size(), sizes.bigElems);
    const Geometry g(shape, sizes);
    std::vector<double> padded(g.paddedElems(), 0.0);
    fillPadded(g, small, padded);
    const std::vector<double> w = toDouble(weight, false);
    StepOut out;
    out.big = big.data();
    convStep(g, pickKernel(), padded.data(), w, resolveThreads(threads), out);
}

void cpuSlice(const Shape& shape, const ChainSizes& sizes, std::span<const float> big, std::span<float> small) {
    checkSize("slice input (big)", big.size(), sizes.bigElems);
    checkSize("slice output (small)", small.size(), sizes.smallElems);
    const size_t planes = size_t{shape.batch} * shape.channels;
    for (size_t nc = 0; nc < planes; ++nc) {
        for (uint32_t h = 0; h < shape.height; ++h) {
            const float* src = big.data() + (nc * sizes.bigHeight + h + 1) * sizes.bigWidth + 1;
            std::copy(src, src + shape.width, small.data() + (nc * shape.height + h) * shape.width);
        }
    }
}

CpuChain cpuChain(const Shape& shape, uint32_t chainLength, unsigned threads, bool keepIntermediates, bool keepBig) {
    const ChainSizes sizes = computeSizes(shape);
    const Geometry g(shape, sizes);
    const std::vector<float> x0 = makeInput(sizes);
    const std::vector<double> w = toDouble(makeWeight(sizes), false);
    return runChain(g, x0, w, chainLength, threads, keepIntermediates, keepBig);
}

uint64_t convTermCount(const Shape& s) {
    const ChainSizes z = computeSizes(s);
    // Valid (o, k) pairs along one axis: i = o*stride + k - pad in [0, bigLen).
    auto axis = [](uint32_t len, uint32_t kernel, uint32_t stride, uint32_t pad, uint32_t bigLen) {
        uint64_t count = 0;
        for (uint32_t k = 0; k < kernel; ++k) {
            for (uint32_t o = 0; o < len; ++o) {
                const int64_t i = int64_t{o} * stride + k - int64_t{pad};
                count += (i >= 0 && i < int64_t{bigLen}) ? 1 : 0;
            }
        }
        return count;
    };
    return uint64_t{s.batch} * s.channels * s.channels * axis(s.height, s.kernelH, s.strideH, s.padH, z.bigHeight) *
           axis(s.width, s.kernelW, s.strideW, s.padW, z.bigWidth);
}

namespace {

// Throws std::logic_error when a weight is a float32 denormal.
void requireNormalWeights(const std::vector<float>& weightF) {
    for (float w : weightF) {
        if (w != 0.0f && std::fabs(w) < FLT_MIN) {
            // The absolute term assumes the weights themselves are not flushed.
            throw std::logic_error("cpu reference: a weight is a float32 denormal");
        }
    }
}

// S: the largest sum of |w| over the terms one output uses.
double largestWeightSum(const Shape& shape, const Geometry& g, const std::vector<double>& absW) {
    double S = 0;
    for (uint32_t ci = 0; ci < shape.channels; ++ci) {
        for (const Phase& rp : g.rows) {
            for (const Phase& cp : g.cols) {
                double sum = 0;
                for (uint32_t co = 0; co < shape.channels; ++co) {
                    for (uint32_t l = 0; l < rp.taps; ++l) {
                        for (uint32_t m = 0; m < cp.taps; ++m) {
                            const uint32_t kh = rp.phase + l * shape.strideH;
                            const uint32_t kw = cp.phase + m * shape.strideW;
                            sum += absW[((size_t{co} * shape.channels + ci) * shape.kernelH + kh) * shape.kernelW + kw];
                        }
                    }
                }
                S = std::max(S, sum);
            }
        }
    }
    return S;
}

// Fills t.relative and t.absolute (the worst case); t.gamma and t.weightSum are set.
void setWorstCase(Tolerance& t, uint32_t chainLength, double k, double gamma64) {
    const double S = t.weightSum;
    const double N = chainLength;
    const double gpu = std::expm1(N * std::log1p(t.gamma));      // (1+g)^N - 1
    const double ref = std::expm1(N * std::log1p(gamma64));      // (1+g64)^N - 1
    const double rounding = std::ldexp(1.0, -24) * (1.0 + ref);  // reference -> float
    // (1 + 2^-40): slack for evaluating these few expressions in float64.
    const double slack = 1.0 + std::ldexp(1.0, -40);
    t.relative = (gpu + ref + rounding) * (1.0 + ref) * slack;
    const double a = (1.0 + t.gamma) * std::ldexp(1.0, -126) * (2.0 * k + 1.0 + S) + 2.0 * k * std::ldexp(1.0, -1074);
    double A = 0;
    for (uint32_t i = 0; i < chainLength; ++i) A = (1.0 + t.gamma) * S * A + a;
    t.absolute = (A + std::ldexp(1.0, -150)) * slack;
}

// The smallest float not below d.
float roundUpToFloat(double d) {
    float f = static_cast<float>(d);
    if (double(f) < d) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
}

// Fills t.magnitude and t.deviation, rounded up to float, from the interiors of the
// chains' padded M and V (element by element: no float64 copy of the interior).
void setProbable(Tolerance& t, const Geometry& g, const std::vector<double>& m, const std::vector<double>& v) {
    t.magnitude.resize(g.z.smallElems);
    t.deviation.resize(g.z.smallElems);
    size_t out = 0;
    forInterior(g, [&](size_t i) {
        t.magnitude[out] = roundUpToFloat(m[i]);
        // (1 + 2^-29): the float64 reference's own error under the same model, u64/u = 2^-30,
        // and the square root's rounding.
        t.deviation[out] = roundUpToFloat(std::sqrt(v[i]) * (1.0 + std::ldexp(1.0, -29)));
        ++out;
    });
}

}  // namespace

// The four chains side by side (cpu_reference.hpp, Tolerance): the signal x (L), the
// magnitude M (|L| on |x0|), the local sum of |terms| T = |L| |x_i| and the variance scale
// V ((L o L) V + localScale T^2), in five padded float64 buffers.
struct CpuStepper::State {
    Geometry g;
    Kernel kernel = pickKernel();
    unsigned workers;
    std::vector<double> w, absW, sqW;
    Tolerance constants;  // every field but magnitude and deviation, steps 0
    double k = 0, gamma64 = 0, localScale = 0;
    std::vector<double> x, m, v, scratch, local;
    std::vector<float> small;
    uint32_t steps = 0;

    State(const Shape& shape, const ChainSizes& sizes, unsigned threads)
        : g(shape, sizes), workers(resolveThreads(threads)) {
        const std::vector<float> weightF = makeWeight(sizes);
        requireNormalWeights(weightF);
        w = toDouble(weightF, false);
        absW = toDouble(weightF, true);
        sqW.resize(w.size());
        for (size_t i = 0; i < w.size(); ++i) sqW[i] = w[i] * w[i];
        setConstants(shape);
        const size_t elems = g.paddedElems();
        for (auto* b : {&x, &m, &v, &scratch, &local}) b->assign(elems, 0.0);
        small = makeInput(sizes);
        fillPadded(g, small, x);
        forInterior(g, [&](size_t i) { m[i] = std::fabs(x[i]); });
    }

    void setConstants(const Shape& shape) {
        Tolerance& t = constants;
        const auto ceilDiv = [](uint64_t a, uint64_t b) { return (a + b - 1) / b; };
        t.termsPerOutput =
            uint64_t{shape.channels} * ceilDiv(shape.kernelH, shape.strideH) * ceilDiv(shape.kernelW, shape.strideW);
        k = static_cast<double>(t.termsPerOutput);
        t.unitRoundoff = std::ldexp(1.0, -23);
        const double ku = k * t.unitRoundoff;
        t.gamma = ku < 1.0 ? ku / (1.0 - ku) : std::numeric_limits<double>::infinity();
        const double ku64 = k * std::ldexp(1.0, -53);
        gamma64 = ku64 / (1.0 - ku64);
        t.weightSum = largestWeightSum(shape, g, absW);
        // The coverage factor for a per-element tail of 2 exp(-lambda^2 / 2).
        t.coverage = 9.0;
        localScale = t.unitRoundoff * t.unitRoundoff * (k + 1.0);
    }

    // scratch = conv(in) with `weight`, then swapped with `in`.
    void convInto(std::vector<double>& in, const std::vector<double>& weight, float* smallOut = nullptr) {
        StepOut out;
        out.nextPadded = scratch.data();
        out.small = smallOut;
        convStep(g, kernel, in.data(), weight, workers, out);
        std::swap(in, scratch);
    }

    void advance() {
        // T from |x_i| (built in scratch, margins zero), before x moves on.
        forInterior(g, [&](size_t i) { scratch[i] = std::fabs(x[i]); });
        StepOut toLocal;
        toLocal.nextPadded = local.data();
        convStep(g, kernel, scratch.data(), absW, workers, toLocal);
        if (steps > 0) {
            convInto(v, sqW);
        }
        forInterior(g, [&](size_t i) { v[i] += localScale * local[i] * local[i]; });
        convInto(m, absW);
        convInto(x, w, small.data());
        ++steps;
    }
};

CpuStepper::CpuStepper(const Shape& shape, unsigned threads)
    : state_(std::make_unique<State>(shape, computeSizes(shape), threads)) {}

CpuStepper::~CpuStepper() = default;
CpuStepper::CpuStepper(CpuStepper&&) noexcept = default;
CpuStepper& CpuStepper::operator=(CpuStepper&&) noexcept = default;

void CpuStepper::advance() { state_->advance(); }

uint32_t CpuStepper::steps() const { return state_->steps; }

const std::vector<float>& CpuStepper::small() const { return state_->small; }

Tolerance CpuStepper::tolerance() const {
    Tolerance t = state_->constants;
    t.steps = state_->steps;
    setWorstCase(t, t.steps, state_->k, state_->gamma64);
    setProbable(t, state_->g, state_->m, state_->v);
    return t;
}

Tolerance cpuTolerance(const Shape& shape, uint32_t chainLength, unsigned threads) {
    CpuStepper stepper(shape, threads);
    for (uint32_t i = 0; i < chainLength; ++i) stepper.advance();
    return stepper.tolerance();
}

ToleranceReport compareWithTolerance(std::span<const float> gpu, std::span<const float> cpu, const Tolerance& tol,
                                     unsigned threads) {
    checkSize("GPU result", gpu.size(), cpu.size());
    checkSize("tolerance magnitude", tol.magnitude.size(), cpu.size());
    checkSize("tolerance deviation", tol.deviation.size(), cpu.size());
    const ToleranceInputs in{.gpu = gpu.data(),
                             .cpu = cpu.data(),
                             .magnitude = tol.magnitude.data(),
                             .deviation = tol.deviation.data(),
                             .relative = tol.relative,
                             .absolute = tol.absolute,
                             .coverage = tol.coverage};
    auto* kernel = toleranceChunkBaseline;
#if REPRO_SIMD_X86_DISPATCH
    if (simd::useAvx2()) kernel = toleranceChunkAvx2;
#endif
    const auto parts =
        perVerifyChunk(cpu.size(), threads, [&](size_t begin, size_t n) { return kernel(in, begin, n); });
    // Every field but the worst is order-free (counts, maxima that ignore NaN as std::max
    // does); the worst is the first index of the largest ratio, so chunks combine in order
    // with a strict comparison.
    ToleranceReport r;
    r.checked = cpu.size();
    for (const ToleranceReport& p : parts) {
        r.exceeded += p.exceeded;
        r.nonfinite += p.nonfinite;
        r.uninformative += p.uninformative;
        r.maxAbsDiff = std::max(r.maxAbsDiff, p.maxAbsDiff);
        r.maxAllowed = std::max(r.maxAllowed, p.maxAllowed);
        r.maxAbsReference = std::max(r.maxAbsReference, p.maxAbsReference);
        if (p.worstRatio > r.worstRatio) {
            r.worstRatio = p.worstRatio;
            r.worstIndex = p.worstIndex;
        }
    }
    return r;
}

}  // namespace repro
