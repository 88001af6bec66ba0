// Benchmark of the verification kernels on a buffer the size of the full-size small[N]
// (3,686,400 floats): computeStats, compareBitExact (equal buffers, one difference at the
// end, every element different) and compareWithTolerance. Prints the median time of the
// timed runs after one warm-up, GB/s of input read and Gelem/s. The inputs are read again
// and again, so on a CPU with a large last-level cache they come partly from it.
//
// Usage: verify_bench [ELEMENTS [RUNS]]   ELEMENTS default 3686400, RUNS default 15.
// The kernels' own defaults apply: REPRO_VERIFY_THREADS sets the threads, and
// REPRO_CPU_KERNEL=baseline forces the SSE2 path (bench/verify.sh runs both). Exit status
// 0, or 1 with one line on stderr for a bad argument.
#include "reference/cpu_reference.hpp"
#include "reference/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// Median seconds of `runs` calls of f, after one untimed warm-up call.
double medianSeconds(unsigned runs, const std::function<void()>& f) {
    f();
    std::vector<double> t;
    for (unsigned i = 0; i < runs; ++i) {
        const auto t0 = Clock::now();
        f();
        t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

void printRow(const char* what, size_t elements, size_t bytesPerElement, double seconds) {
    fmt::print("  {:<34} {:>9.3f} ms {:>8.2f} GB/s {:>7.2f} Gelem/s\n", what, seconds * 1e3,
               double(elements * bytesPerElement) / seconds * 1e-9, double(elements) / seconds * 1e-9);
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const size_t n = argc > 1 ? std::stoul(argv[1]) : 3686400;
        const unsigned runs = argc > 2 ? static_cast<unsigned>(std::stoul(argv[2])) : 15;
        if (n == 0 || runs == 0) throw std::invalid_argument("ELEMENTS and RUNS must be positive");

        // Data like a late small[N]: mixed signs, magnitudes around 5e-4.
        std::vector<float> values(n);
        for (size_t i = 0; i < n; ++i) values[i] = std::sin(float(i) * 0.001f) * 5e-4f + 1e-6f;
        std::vector<float> same = values;
        std::vector<float> lastDiffers = values;
        lastDiffers.back() = -lastDiffers.back();
        std::vector<float> allDiffer(n);
        for (size_t i = 0; i < n; ++i) allDiffer[i] = std::nextafter(values[i], 1.0f);

        repro::Tolerance tol;
        tol.relative = 1e-5;
        tol.absolute = 1e-30;
        tol.coverage = 9;
        tol.magnitude.resize(n);
        tol.deviation.resize(n);
        for (size_t i = 0; i < n; ++i) {
            tol.magnitude[i] = std::fabs(values[i]) * 2.0f;
            tol.deviation[i] = std::fabs(values[i]) * 1e-7f;
        }

        volatile double sink = 0;
        fmt::print("verify bench: {} elements ({:.2f} MiB of float32), median of {} runs\n", n,
                   double(n * 4) / (1 << 20), runs);
        auto row = [&](const char* what, size_t bytesPerElement, const std::function<double()>& f) {
            printRow(what, n, bytesPerElement, medianSeconds(runs, [&] { sink = sink + f(); }));
        };
        row("computeStats", 4, [&] { return repro::computeStats(values).sum; });
        row("compareBitExact (equal)", 8, [&] { return double(repro::compareBitExact(values, same).count); });
        row("compareBitExact (last differs)", 8,
            [&] { return double(repro::compareBitExact(values, lastDiffers).count); });
        row("compareBitExact (all differ)", 8, [&] { return double(repro::compareBitExact(values, allDiffer).count); });
        row("compareWithTolerance", 16, [&] { return repro::compareWithTolerance(allDiffer, values, tol).worstRatio; });
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "verify_bench: {}\n", e.what());
        return 1;
    }
}
