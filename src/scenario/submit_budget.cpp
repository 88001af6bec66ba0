// A file's submit budgets and cuts (see scenario/submit_budget.hpp).
#include "scenario/submit_budget.hpp"

#include <algorithm>
#include <variant>

#include "core/shape.hpp"
#include "scenario/scenario_cpu.hpp"

namespace repro {
namespace sc = repro::scenario;

namespace {

// A dispatch's iterations: its invocations times its loop's (at least one).
double dispatchIterations(const sc::Scenario& s, const sc::Dispatch& d) {
    const double invocations = double(d.groups[0]) * d.groups[1] * d.groups[2] * sc::kWorkgroupSize;
    if (!d.user.empty()) return invocations * kUserKernelIterations;
    double loop = std::max<double>(d.params.work, 1);
    if (d.kernel == sc::Kernel::PrivateArray) loop += d.privateWords;
    (void)s;
    return invocations * loop;
}

double stepBudget(const sc::Scenario& s, const sc::Step& step, bool cpu) {
    const double perIteration = cpu ? kCpuSecondsPerIteration : kGpuSecondsPerIteration;
    const double perByte = cpu ? kCpuSecondsPerByte : kGpuSecondsPerByte;
    if (const auto* d = std::get_if<sc::Dispatch>(&step.body)) {
        if (d->user.empty() && sc::isChainKernel(d->kernel)) {
            // the built-in chain's budget for one conv-T of the file's shape; a slice is far less
            const double convT = submitTimeoutSeconds(std::nullopt, *s.shape, 1, cpu) -
                                 submitTimeoutSeconds(std::nullopt, *s.shape, 0, cpu);
            return d->kernel == sc::Kernel::ConvT ? convT : convT / 16;
        }
        return dispatchIterations(s, *d) * perIteration;
    }
    uint64_t bytes = 0;
    for (const sc::WrittenRange& r : sc::writtenRanges(step, s)) bytes += r.end - r.begin;
    return double(bytes) * perByte;
}

}  // namespace

std::vector<double> submitBudgets(const sc::Scenario& s, bool cpuDevice) {
    std::vector<double> out(s.steps.size(), 0.0);
    for (size_t i = 0; i < s.steps.size(); ++i) {
        if (isWork(s.steps[i])) out[i] = stepBudget(s, s.steps[i], cpuDevice);
    }
    return out;
}

std::vector<bool> fileCuts(const sc::Scenario& s, const SubmitStructure& submit, const std::vector<double>& predicted) {
    if (!submit.cuts()) return {};
    std::vector<size_t> work;  // step index of each work step
    std::vector<uint64_t> bytes;
    for (size_t i = 0; i < s.steps.size(); ++i) {
        if (!isWork(s.steps[i])) continue;
        work.push_back(i);
        uint64_t b = 0;
        for (const sc::WrittenRange& r : sc::writtenRanges(s.steps[i], s)) b += r.end - r.begin;
        bytes.push_back(b);
    }
    if (work.empty()) return {};
    SubmitStructure structure = submit;
    const bool timed = predicted.size() == work.size();
    if (!timed) structure.splitMs.reset();  // no prediction yet: --split-ms cuts nothing
    if (!structure.cuts()) return {};
    const std::vector<size_t> ends =
        timed ? commandBufferEnds(bytes, predicted, structure) : commandBufferEnds(bytes, structure);
    std::vector<bool> out(s.steps.size(), false);
    for (const size_t e : ends) out[work[e]] = true;
    return out;
}

}  // namespace repro
