// The per-dispatch check from the GPU's own inputs (step_check.hpp): cpuConvT's fast
// kernel for the value (x, w) and magnitude (|x|, |w|) passes, the one-step bound, and a
// bit-exact slice comparison.
#include "reference/step_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

#include "core/clock.hpp"
#include "core/interrupt.hpp"
#include "core/json_number.hpp"
#include "core/parallel.hpp"
#include "reference/cpu_reference.hpp"

namespace repro {
namespace {

void requireSize(std::string_view what, size_t got, uint64_t want) {
    if (got != want) {
        throw std::invalid_argument(fmt::format("step check: {} has {} elements, the shape needs {}", what, got, want));
    }
}

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The largest sum of |w| over the terms one output uses: over ci and the (kh mod SH,
// kw mod SW) classes that a conv-T output phase combines.
double largestWeightSum(const Shape& s, std::span<const float> weight) {
    double best = 0;
    for (uint32_t ci = 0; ci < s.channels; ++ci) {
        for (uint32_t ph = 0; ph < s.strideH; ++ph) {
            for (uint32_t pw = 0; pw < s.strideW; ++pw) {
                double sum = 0;
                for (uint32_t co = 0; co < s.channels; ++co) {
                    for (uint32_t kh = ph; kh < s.kernelH; kh += s.strideH) {
                        for (uint32_t kw = pw; kw < s.kernelW; kw += s.strideW) {
                            sum += std::fabs(
                                double(weight[((size_t{co} * s.channels + ci) * s.kernelH + kh) * s.kernelW + kw]));
                        }
                    }
                }
                best = std::max(best, sum);
            }
        }
    }
    return best;
}

bool inCrop(const Shape& s, const ChainSizes& z, size_t index) {
    const size_t plane = size_t{z.bigHeight} * z.bigWidth;
    const size_t ih = (index % plane) / z.bigWidth;
    const size_t iw = index % z.bigWidth;
    return ih >= 1 && ih <= s.height && iw >= 1 && iw <= s.width;
}

bool isDenormal(float v) { return v != 0.0f && std::fabs(v) < std::numeric_limits<float>::min(); }

// T_j from a float64 pass rounded to float, taken from above.
constexpr double kMagnitudeSlack = 1.0 + 0x1p-22;

// The part both bounds share: the reference's rounding to float and the absolute term.
double sharedTerms(const StepBound& b, float cpu) {
    return std::fabs(double(cpu)) * 0x1p-24 * (1.0 + 0x1p-23) + b.absolute;
}

double worstCoefficient(const StepBound& b) { return (b.gamma + b.gamma64) * kMagnitudeSlack; }

double probableCoefficient(const StepBound& b) {
    return (b.coverage * b.unitRoundoff * std::sqrt(double(b.terms) + 1.0) + b.gamma64) * kMagnitudeSlack;
}

}  // namespace

double StepBound::worstCase(double magnitude, float cpu) const {
    return worstCoefficient(*this) * magnitude + sharedTerms(*this, cpu);
}

double StepBound::probable(double magnitude, float cpu) const {
    return probableCoefficient(*this) * magnitude + sharedTerms(*this, cpu);
}

double StepBound::allowed(double magnitude, float cpu) const {
    return std::min(worstCoefficient(*this), probableCoefficient(*this)) * magnitude + sharedTerms(*this, cpu);
}

StepBound stepBound(const Shape& shape, const ChainSizes& sizes, std::span<const float> weight) {
    requireSize("the weight", weight.size(), sizes.weightElems);
    StepBound b;
    b.terms = uint64_t{shape.channels} * ceilDiv(shape.kernelH, shape.strideH) * ceilDiv(shape.kernelW, shape.strideW);
    const double k = static_cast<double>(b.terms);
    b.unitRoundoff = std::ldexp(1.0, -23);
    const double ku = k * b.unitRoundoff;
    b.gamma = ku < 1.0 ? ku / (1.0 - ku) : std::numeric_limits<double>::infinity();
    const double ku64 = k * std::ldexp(1.0, -53);
    b.gamma64 = ku64 / (1.0 - ku64);
    b.weightSum = largestWeightSum(shape, weight);
    const double slack = 1.0 + std::ldexp(1.0, -40);
    b.absolute =
        ((1.0 + b.gamma) * std::ldexp(1.0, -126) * (2.0 * k + 1.0 + b.weightSum) + std::ldexp(1.0, -149)) * slack;
    return b;
}

namespace {

// Estimated ratios above this are checked again with T_j itself, so that a reported
// worst ratio above it is exact (below it, the estimate bounds the true ratio from above).
constexpr double kRecheckAbove = 0.5;

// One element's comparison; false when `failing` takes it instead (a finite GPU value over
// half of a bound computed from a lower estimate of T_j, to be checked with T_j itself).
struct ElementCheck {
    const StepBound& bound;
    double worstK, probableK, allowedK;
    explicit ElementCheck(const StepBound& b)
        : bound(b),
          worstK(worstCoefficient(b)),
          probableK(probableCoefficient(b)),
          allowedK(std::min(worstK, probableK)) {}

    bool apply(DispatchStepCheck& r, float cpu, double m, float gpu, size_t j, bool estimated, const Shape& shape,
               const ChainSizes& sizes) const {
        const double shared = sharedTerms(bound, cpu);
        const double allowed = allowedK * m + shared;
        double ratio = std::numeric_limits<double>::infinity();
        if (std::isfinite(gpu)) {
            const double diff = std::fabs(double(gpu) - double(cpu));
            ratio = diff / allowed;  // allowed >= absolute > 0
            if (estimated && ratio > kRecheckAbove) return false;
            r.maxAbsDiff = std::max(r.maxAbsDiff, diff);
            if (diff > probableK * m + shared && diff <= worstK * m + shared) ++r.probableOnly;
        } else {
            ++r.nonfinite;
        }
        ++r.checked;
        r.maxAllowed = std::max(r.maxAllowed, allowed);
        r.maxAbsValue = std::max(r.maxAbsValue, std::fabs(double(cpu)));
        if (!(ratio <= 1.0)) {
            ++r.exceeded;
            if (inCrop(shape, sizes, j)) ++r.exceededInCrop;
        }
        if (ratio > r.worstRatio) {
            r.worstRatio = ratio;
            r.worstIndex = j;
        }
        return true;
    }
};

// Outputs [begin, end). With `magnitude` empty, T_j is estimated from below by |cpu_j|
// (T_j = sum |x w| >= |sum x w|; cpuConvT's float T_j is >= |cpu_j| (1 - 2^-22)): an element
// within that smaller bound is within the true one; the others go to `failing`.
DispatchStepCheck compareRange(const Shape& shape, const ChainSizes& sizes, const StepBound& bound,
                               std::span<const float> exact, std::span<const float> magnitude,
                               std::span<const float> gpuBig, size_t begin, size_t end, std::vector<size_t>& failing) {
    const ElementCheck check(bound);
    const bool estimated = magnitude.empty();
    DispatchStepCheck r;
    for (size_t j = begin; j < end; ++j) {
        const float cpu = exact[j];
        const double m = estimated ? std::fabs(double(cpu)) * (1.0 - 0x1p-20) : double(magnitude[j]);
        if (!std::isfinite(cpu) || !std::isfinite(m)) {
            ++r.unchecked;
            continue;
        }
        if (!check.apply(r, cpu, m, gpuBig[j], j, estimated, shape, sizes)) failing.push_back(j);
    }
    return r;
}

void merge(DispatchStepCheck& into, const DispatchStepCheck& part) {
    into.checked += part.checked;
    into.unchecked += part.unchecked;
    into.exceeded += part.exceeded;
    into.exceededInCrop += part.exceededInCrop;
    into.nonfinite += part.nonfinite;
    into.probableOnly += part.probableOnly;
    into.maxAbsDiff = std::max(into.maxAbsDiff, part.maxAbsDiff);
    into.maxAllowed = std::max(into.maxAllowed, part.maxAllowed);
    into.maxAbsValue = std::max(into.maxAbsValue, part.maxAbsValue);
    if (part.worstRatio > into.worstRatio) {
        into.worstRatio = part.worstRatio;
        into.worstIndex = part.worstIndex;
    }
}

unsigned workerCount(unsigned threads) { return std::max(1u, threads ? threads : std::thread::hardware_concurrency()); }

// compareRange over every element, spread over the workers in order; `failing` in order.
DispatchStepCheck compareAll(const Shape& shape, const ChainSizes& sizes, const StepBound& bound,
                             std::span<const float> exact, std::span<const float> magnitude,
                             std::span<const float> gpuBig, unsigned threads, std::vector<size_t>& failing) {
    const unsigned workers = workerCount(threads);
    const size_t chunk = (exact.size() + workers - 1) / workers;
    std::vector<DispatchStepCheck> parts(workers);
    std::vector<std::vector<size_t>> fails(workers);
    parallelTasks(workers, workers, [&](size_t w) {
        const size_t b = std::min(exact.size(), w * chunk), e = std::min(exact.size(), (w + 1) * chunk);
        parts[w] = compareRange(shape, sizes, bound, exact, magnitude, gpuBig, b, e, fails[w]);
    });
    DispatchStepCheck r{.convT = true};
    for (unsigned w = 0; w < workers; ++w) {
        merge(r, parts[w]);
        failing.insert(failing.end(), fails[w].begin(), fails[w].end());
    }
    return r;
}

// T_j = sum over the terms of output j of |x| |w|, in float64, rounded up to float: the
// magnitude pass for one element (big[n, ci, ih, iw] sums small[n, co, oh, ow] w[co, ci,
// kh, kw] over ih + padH - kh = oh strideH, iw + padW - kw = ow strideW).
float directMagnitude(const Shape& s, const ChainSizes& z, std::span<const float> input, std::span<const float> weight,
                      size_t j) {
    const size_t plane = size_t{z.bigHeight} * z.bigWidth;
    const size_t nc = j / plane, n = nc / s.channels, ci = nc % s.channels;
    const int64_t ih = static_cast<int64_t>((j % plane) / z.bigWidth), iw = static_cast<int64_t>(j % z.bigWidth);
    double sum = 0;
    for (uint32_t kh = 0; kh < s.kernelH; ++kh) {
        const int64_t rh = ih + s.padH - kh;
        if (rh < 0 || rh % s.strideH != 0 || rh / s.strideH >= s.height) continue;
        for (uint32_t kw = 0; kw < s.kernelW; ++kw) {
            const int64_t rw = iw + s.padW - kw;
            if (rw < 0 || rw % s.strideW != 0 || rw / s.strideW >= s.width) continue;
            const size_t at = static_cast<size_t>(rh / s.strideH) * s.width + static_cast<size_t>(rw / s.strideW);
            for (uint32_t co = 0; co < s.channels; ++co) {
                const double x = input[((n * s.channels + co) * s.height) * s.width + at];
                const double w = weight[((size_t{co} * s.channels + ci) * s.kernelH + kh) * s.kernelW + kw];
                sum += std::fabs(x) * std::fabs(w);
            }
        }
    }
    float f = static_cast<float>(sum);
    if (double(f) < sum) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
}

// T_j for every output: cpuConvT on |input| and |weight| (the magnitude pass).
std::vector<float> magnitudePass(const Shape& shape, const ChainSizes& sizes, std::span<const float> input,
                                 std::span<const float> weight, unsigned threads) {
    std::vector<float> absInput(input.size()), absWeight(weight.size()), magnitude(sizes.bigElems);
    std::transform(input.begin(), input.end(), absInput.begin(), [](float v) { return std::fabs(v); });
    std::transform(weight.begin(), weight.end(), absWeight.begin(), [](float v) { return std::fabs(v); });
    cpuConvT(shape, sizes, absInput, absWeight, magnitude, threads);
    return magnitude;
}

// The elements over the estimated bound, checked again with T_j: directly when they are
// few (at most 1% of the buffer or 4096), else from a full magnitude pass.
void recheck(const Shape& shape, const ChainSizes& sizes, const StepBound& bound, std::span<const float> weight,
             std::span<const float> input, std::span<const float> exact, std::span<const float> gpuBig,
             const std::vector<size_t>& failing, unsigned threads, DispatchStepCheck& r) {
    std::vector<float> magnitude;
    const bool direct = failing.size() <= std::max<size_t>(4096, exact.size() / 100);
    if (!direct) {
        magnitude = magnitudePass(shape, sizes, input, weight, threads);
        r.magnitudePass = true;
    }
    const ElementCheck check(bound);
    const unsigned workers = workerCount(threads);
    const size_t chunk = (failing.size() + workers - 1) / workers;
    std::vector<DispatchStepCheck> parts(workers);
    parallelTasks(workers, workers, [&](size_t w) {
        for (size_t i = w * chunk; i < std::min(failing.size(), (w + 1) * chunk); ++i) {
            if (interruptSignal() != 0) break;  // answered below
            const size_t j = failing[i];
            const double m = direct ? double(directMagnitude(shape, sizes, input, weight, j)) : double(magnitude[j]);
            check.apply(parts[w], exact[j], m, gpuBig[j], j, false, shape, sizes);
        }
    });
    throwIfInterrupted("the per-dispatch check's recheck of the elements over the bound");
    r.rechecked = failing.size();
    for (const auto& p : parts) merge(r, p);
}

}  // namespace

DispatchStepCheck checkConvTStep(const Shape& shape, const ChainSizes& sizes, const StepBound& bound,
                                 std::span<const float> weight, std::span<const float> input,
                                 std::span<const float> gpuBig, uint32_t step, unsigned threads, bool exactBounds) {
    const auto t0 = Clock::now();
    requireSize("conv-T input small[k-1]", input.size(), sizes.smallElems);
    requireSize("conv-T output big[k-1]", gpuBig.size(), sizes.bigElems);
    requireSize("the weight", weight.size(), sizes.weightElems);
    std::vector<float> exact(sizes.bigElems), magnitude;
    cpuConvT(shape, sizes, input, weight, exact, threads);
    if (exactBounds) magnitude = magnitudePass(shape, sizes, input, weight, threads);
    std::vector<size_t> failing;
    DispatchStepCheck r = compareAll(shape, sizes, bound, exact, magnitude, gpuBig, threads, failing);
    r.magnitudePass = exactBounds;
    r.exactBounds = exactBounds;
    if (!failing.empty()) recheck(shape, sizes, bound, weight, input, exact, gpuBig, failing, threads, r);
    r.step = step;
    r.seconds = secondsSince(t0);
    return r;
}

DispatchStepCheck checkSliceStep(const Shape& shape, const ChainSizes& sizes, std::span<const float> gpuBig,
                                 std::span<const float> gpuSmall, uint32_t step) {
    const auto t0 = Clock::now();
    requireSize("slice input big[k-1]", gpuBig.size(), sizes.bigElems);
    requireSize("slice output small[k]", gpuSmall.size(), sizes.smallElems);
    std::vector<float> crop(sizes.smallElems);
    cpuSlice(shape, sizes, gpuBig, crop);
    DispatchStepCheck r{.step = step, .convT = false};
    for (size_t j = 0; j < crop.size(); ++j) {
        const float want = crop[j], got = gpuSmall[j];
        if (std::isnan(want) && std::isnan(got)) {
            ++r.unchecked;
            continue;
        }
        ++r.checked;
        r.maxAbsValue = std::max(r.maxAbsValue, std::isfinite(want) ? std::fabs(double(want)) : 0.0);
        if (!std::isfinite(got)) ++r.nonfinite;
        if (std::bit_cast<uint32_t>(want) == std::bit_cast<uint32_t>(got)) continue;
        if (isDenormal(want) && got == 0.0f) {
            ++r.flushedDenormals;
            continue;
        }
        ++r.exceeded;
        if (std::isfinite(got) && std::isfinite(want))
            r.maxAbsDiff = std::max(r.maxAbsDiff, std::fabs(double(got) - double(want)));
        if (r.worstRatio == 0) {
            r.worstRatio = std::numeric_limits<double>::infinity();
            r.worstIndex = j;
        }
    }
    r.seconds = secondsSince(t0);
    return r;
}

std::string DispatchStepCheck::line() const {
    if (!convT) {
        std::string extra = flushedDenormals ? fmt::format(" ({} denormals copied as 0)", flushedDenormals) : "";
        if (ok()) return fmt::format("slice {}: an exact copy of big[{}]'s crop{}: ok", step, step - 1, extra);
        return fmt::format("slice {}: {} of {} elements differ from big[{}]'s crop (first at {}){}: mismatch", step,
                           exceeded, checked, step - 1, worstIndex, extra);
    }
    std::string out =
        fmt::format("conv-T {}: max |gpu - cpu| {:.2e} of max |value| {:.2e}", step, maxAbsDiff, maxAbsValue);
    if (exactBounds)
        out += fmt::format(", allowed up to {:.2e} (bound {:.1e} of max |value|)", maxAllowed, boundRatio());
    out += fmt::format(", worst ratio {}{:.3g}", exactBounds || worstRatio > 0.5 ? "" : "at most ", worstRatio);
    if (nonfinite) out += fmt::format(", {} non-finite", nonfinite);
    if (unchecked) out += fmt::format(", {} not checkable (non-finite input)", unchecked);
    if (ok()) return out + ": ok";
    return out + fmt::format(": mismatch in {} of {} elements ({} inside the crop slice {} reads)", exceeded, checked,
                             exceededInCrop, step);
}

DispatchStepChecker::DispatchStepChecker(const Shape& shape, const ChainSizes& sizes, std::vector<float> weight,
                                         unsigned threads, bool exactBounds)
    : shape_(shape),
      sizes_(sizes),
      weight_(std::move(weight)),
      bound_(stepBound(shape, sizes, weight_)),
      threads_(threads),
      exactBounds_(exactBounds) {}

void DispatchStepChecker::add(std::span<const float> input, std::span<const float> big, std::span<const float> small) {
    const auto t0 = Clock::now();
    const auto step = static_cast<uint32_t>(report_.dispatches.size() / 2 + 1);
    report_.dispatches.push_back(
        checkConvTStep(shape_, sizes_, bound_, weight_, input, big, step, threads_, exactBounds_));
    report_.dispatches.push_back(checkSliceStep(shape_, sizes_, big, small, step));
    for (size_t d = report_.dispatches.size() - 2; !report_.firstWrong && d < report_.dispatches.size(); ++d) {
        if (!report_.dispatches[d].ok()) report_.firstWrong = d;
    }
    report_.seconds += secondsSince(t0);
}

StepCheckReport checkEachDispatch(const Shape& shape, const ChainSizes& sizes, std::span<const float> weight,
                                  const ChainResult& gpu, unsigned threads, bool exactBounds) {
    const size_t n = gpu.big.size();
    if (gpu.small.size() != n + 1) {
        throw std::invalid_argument(
            fmt::format("step check: {} small buffers for {} big ones (needs small[0..N] and "
                        "big[0..N), read back with intermediates)",
                        gpu.small.size(), n));
    }
    DispatchStepChecker checker(shape, sizes, std::vector<float>(weight.begin(), weight.end()), threads, exactBounds);
    for (size_t i = 0; i < n; ++i) checker.add(gpu.small[i], gpu.big[i], gpu.small[i + 1]);
    return checker.report();
}

nlohmann::json perDispatchCheckJson(const StepCheckReport& report) {
    nlohmann::json dispatches = nlohmann::json::array();
    for (const DispatchStepCheck& d : report.dispatches) {
        dispatches.push_back({{"dispatch", d.dispatchNumber()},
                              {"step", d.step},
                              {"kind", d.convT ? "conv_t" : "slice"},
                              {"ok", d.ok()},
                              {"checked", d.checked},
                              {"exceeded", d.exceeded},
                              {"exceeded_in_crop", d.exceededInCrop},
                              {"nonfinite", d.nonfinite},
                              {"worst_ratio", jsonNumber(d.worstRatio)},
                              {"max_abs_diff", jsonNumber(d.maxAbsDiff)},
                              {"max_allowed", jsonNumber(d.maxAllowed)},
                              {"max_abs_value", jsonNumber(d.maxAbsValue)},
                              {"exact_bounds", d.exactBounds},
                              {"line", d.line()}});
    }
    return {{"state", report.firstWrong ? "failed" : "passed"},
            {"first_wrong", report.firstWrong ? nlohmann::json(report.dispatches[*report.firstWrong].dispatchNumber())
                                              : nlohmann::json(nullptr)},
            {"seconds", report.seconds},
            {"dispatches", dispatches}};
}

}  // namespace repro
