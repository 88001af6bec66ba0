// Benchmark of the CPU reference: the full-size chain (Shape{} defaults, the spectrostream
// preset) without intermediates. Prints wall seconds, GFLOP/s, threads, SIMD path and a
// checksum of small[N].
//
// Usage: cpu_reference_bench [N [THREADS [stepper]]]   N: chain length (default 7); THREADS: 0
// (default) = hardware concurrency; `stepper`: time what a scenario's CPU chain does instead
// (scenario/scenario_chain.hpp chainReferences for small[N]: CpuStepper, four conv-T passes a step,
// and the tolerance; its own threads, so THREADS is ignored there). REPRO_CPU_KERNEL=baseline
// forces the SSE2 path. Exit status 0, or 1 with one line on stderr for a bad argument.
#include "reference/cpu_reference.hpp"
#include "scenario/scenario_chain.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <exception>
#include <string>

int main(int argc, char** argv) {
    try {
        const uint32_t steps = argc > 1 ? static_cast<uint32_t>(std::stoul(argv[1])) : 7;
        const unsigned threads = argc > 2 ? static_cast<unsigned>(std::stoul(argv[2])) : 0;
        const repro::Shape shape{};
        if (argc > 3 && std::string(argv[3]) == "stepper") {
            namespace sc = repro::scenario;
            const sc::ChainValues values{{"small", {.kind = sc::ChainValue::Kind::Small, .step = steps}}};
            const auto t0 = std::chrono::steady_clock::now();
            const auto refs = sc::chainReferences(shape, values);
            const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const double madds = double(sc::chainReferenceCost(shape, values));
            fmt::print("scenario CPU chain bench: {}, small[{}]\n", repro::describe(shape), steps);
            fmt::print("  wall:       {:.3f} s\n", wall);
            fmt::print("  multiply-adds: {:.3g} (chainReferenceCost), {:.2f} G/s\n", madds,
                       wall > 0 ? madds / wall * 1e-9 : 0.0);
            fmt::print("  tolerance:  relative {:.3g}, absolute {:.3g}\n", refs.at("small").tolerance.relative,
                       refs.at("small").tolerance.absolute);
            return 0;
        }

        const std::clock_t cpu0 = std::clock();
        const auto t0 = std::chrono::steady_clock::now();
        const repro::CpuChain chain = repro::cpuChain(shape, steps, threads, false);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double cpu = double(std::clock() - cpu0) / CLOCKS_PER_SEC;

        // Useful work: the multiply-adds conv-T needs (2 flops each). Executed: what the
        // kernel ran, including zero margins and tile padding.
        const double useful = 2.0 * double(repro::convTermCount(shape)) * steps;
        const double executed = 2.0 * double(chain.multiplyAdds);

        double sum = 0, sumAbs = 0, maxAbs = 0;
        uint64_t nonzero = 0;
        for (float v : chain.output()) {
            sum += v;
            sumAbs += std::fabs(double(v));
            maxAbs = std::max(maxAbs, double(std::fabs(v)));
            nonzero += v != 0.0f ? 1 : 0;
        }

        fmt::print("cpu reference bench: {}, N={}\n", repro::describe(shape), steps);
        fmt::print("  kernel:     {}\n", chain.kernel);
        fmt::print("  threads:    {}\n", chain.threads);
        fmt::print("  wall:       {:.3f} s  (process CPU {:.3f} s, {:.2f}x wall)\n", wall, cpu,
                   wall > 0 ? cpu / wall : 0.0);
        fmt::print("  GFLOP/s:    {:.2f}  ({:.3g} flops of conv-T multiply-adds)\n",
                   wall > 0 ? useful / wall * 1e-9 : 0.0, useful);
        fmt::print("  executed:   {:.2f} GFLOP/s  ({:.3g} flops incl. margins and tile padding)\n",
                   wall > 0 ? executed / wall * 1e-9 : 0.0, executed);
        fmt::print("  checksum:   sum={:.9e} sum_abs={:.9e} max_abs={:.9e} nz={}/{}\n", sum, sumAbs, maxAbs, nonzero,
                   chain.output().size());
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "cpu_reference_bench: {}\n", e.what());
        return 1;
    }
}
