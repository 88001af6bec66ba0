// Benchmark of the per-dispatch CPU check (src/reference/step_check.hpp): the full-size chain
// (Shape{} defaults) with intermediates stands in for a GPU's read-back buffers; the check
// of every dispatch is timed, and each conv-T's bound is printed against the signal,
// next to the chained tolerance of cpuTolerance for the same N.
//
// Usage: step_check_bench [N [THREADS [chained]]]   N: chain length (default 7); THREADS:
// 0 (default) = hardware concurrency; "chained" also derives the chained bound (four more
// chain runs). Prints wall and process CPU time (on a shared machine the CPU time, divided
// by the threads, is the steadier figure). Exit status 0, 2 when a dispatch fails (the
// stand-in buffers are right, so that would be a bug), or 1 with one line on stderr for a
// bad argument.
#include "reference/cpu_reference.hpp"
#include "reference/judge.hpp"
#include "reference/step_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <exception>
#include <string>

namespace {

double maxAbs(std::span<const float> v) {
    double m = 0;
    for (float x : v) m = std::max(m, double(std::fabs(x)));
    return m;
}

// What dropping input channel 5 from each conv-T would change, against each element's
// own bound (the largest ratio, and how many elements it takes over: those are caught).
void printSensitivity(const repro::Shape& shape, const repro::ChainSizes& sizes, const std::vector<float>& weight,
                      const repro::ChainResult& gpu, uint32_t steps, unsigned threads) {
    const repro::StepBound bound = repro::stepBound(shape, sizes, weight);
    const size_t perCo = size_t{shape.channels} * shape.kernelH * shape.kernelW;
    std::vector<float> onlyChannel(weight.size(), 0.0f), absW(weight.size());
    std::copy_n(weight.begin() + 5 * perCo, perCo, onlyChannel.begin() + 5 * perCo);
    for (size_t i = 0; i < weight.size(); ++i) absW[i] = std::fabs(weight[i]);
    for (uint32_t k = 1; k <= steps; ++k) {
        const repro::HostFloats& x = gpu.small[k - 1];
        std::vector<float> absX(x.size());
        for (size_t i = 0; i < x.size(); ++i) absX[i] = std::fabs(x[i]);
        std::vector<float> contribution(sizes.bigElems), value(sizes.bigElems), magnitude(sizes.bigElems);
        repro::cpuConvT(shape, sizes, x, onlyChannel, contribution, threads);
        repro::cpuConvT(shape, sizes, x, weight, value, threads);
        repro::cpuConvT(shape, sizes, absX, absW, magnitude, threads);
        double worst = 0;
        uint64_t caught = 0;
        for (size_t j = 0; j < value.size(); ++j) {
            const double r = std::fabs(double(contribution[j])) / bound.allowed(magnitude[j], value[j]);
            worst = std::max(worst, r);
            caught += r > 1.0 ? 1 : 0;
        }
        fmt::print(
            "    dropping input channel 5 from conv-T {}: up to {:.3g}x the bound, {:.1f}% of elements over it\n", k,
            worst, 100.0 * double(caught) / double(value.size()));
    }
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const uint32_t steps = argc > 1 ? static_cast<uint32_t>(std::stoul(argv[1])) : 7;
        const unsigned threads = argc > 2 ? static_cast<unsigned>(std::stoul(argv[2])) : 0;
        const bool chained = argc > 3 && std::string(argv[3]) == "chained";
        const repro::Shape shape{};
        const repro::ChainSizes sizes = repro::computeSizes(shape);

        const auto t0 = std::chrono::steady_clock::now();
        repro::CpuChain chain = repro::cpuChain(shape, steps, threads, true);
        const double chainSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        repro::ChainResult gpu{std::move(chain.small), std::move(chain.big)};
        const std::vector<float> weight = repro::makeWeight(sizes);

        const std::clock_t c0 = std::clock();
        const repro::StepCheckReport quick = repro::checkEachDispatch(shape, sizes, weight, gpu, threads, false);
        const double quickCpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        const std::clock_t c1 = std::clock();
        const repro::StepCheckReport exact = repro::checkEachDispatch(shape, sizes, weight, gpu, threads, true);
        const double exactCpu = double(std::clock() - c1) / CLOCKS_PER_SEC;
        fmt::print("step check bench: {}, N={}, kernel {}, {} threads\n", repro::describe(shape), steps, chain.kernel,
                   chain.threads);
        fmt::print("  chain with intermediates (the stand-in GPU buffers): {:.3f} s\n", chainSeconds);
        fmt::print(
            "  per-dispatch check of all {} dispatches: {:.3f} s (default), {:.3f} s (exact bounds: two passes a "
            "step); process CPU {:.3f} s and {:.3f} s\n",
            quick.dispatches.size(), quick.seconds, exact.seconds, quickCpu, exactCpu);
        for (size_t i = 0; i < exact.dispatches.size(); ++i) {
            const auto& q = quick.dispatches[i];
            const auto& d = exact.dispatches[i];
            if (d.convT) {
                fmt::print(
                    "    conv-T {}: {:.3f} s ({} rechecked{}) / {:.3f} s exact, bound/max|value| {:.2e}, worst "
                    "ratio {:.3g}, {}\n",
                    d.step, q.seconds, q.rechecked, q.magnitudePass ? ", magnitude pass" : "", d.seconds,
                    d.boundRatio(), d.worstRatio, d.ok() && q.ok() ? "ok" : "MISMATCH");
            } else {
                fmt::print("    slice  {}: {:.3f} s, {}\n", d.step, q.seconds, d.ok() ? "exact" : "MISMATCH");
            }
        }
        const repro::StepCheckReport& report = quick;
        printSensitivity(shape, sizes, weight, gpu, steps, threads);
        if (chained) {
            const repro::Tolerance tol = repro::cpuTolerance(shape, steps, threads);
            const repro::HostFloats& out = gpu.small.back();
            double maxAllowed = 0;
            for (size_t j = 0; j < out.size(); ++j) maxAllowed = std::max(maxAllowed, tol.allowed(j, out[j]));
            fmt::print("  chained tolerance at N={}: max allowed / max|small[N]| = {:.2e}\n", steps,
                       maxAllowed / maxAbs(out));
        }
        return report.firstWrong ? 2 : 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "step_check_bench: {}\n", e.what());
        return 1;
    }
}
