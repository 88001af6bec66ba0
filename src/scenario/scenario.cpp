// Names and initial contents of the scenario model (scenario/scenario.hpp).
#include "scenario/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/enum_names.hpp"

namespace repro::scenario {

std::string_view name(Placement p) {
    static constexpr std::string_view kNames[] = {"device-local", "host-visible", "shared"};
    return nameOf(kNames, p);
}

std::string_view name(InitKind k) {
    static constexpr std::string_view kNames[] = {"zero", "pattern",   "iota",        "random",
                                                  "host", "undefined", "chain-input", "chain-weight"};
    return nameOf(kNames, k);
}

// Kernel's names in enumerator order (name, parseKernel).
constexpr std::string_view kKernelNames[] = {
    "increment",       "copy",   "noop",  "compare-swap",    "private-array", "work",
    "indirect-writer", "conv-t", "slice", "image-increment", "image-copy"};

std::string_view name(Kernel k) { return nameOf(kKernelNames, k); }

std::string_view name(ImageFormat f) {
    return f == ImageFormat::R32ui ? "r32ui" : f == ImageFormat::R32f ? "r32f" : "rgba8unorm";
}

std::string_view name(ImageLayout l) {
    static constexpr std::string_view kNames[] = {"undefined", "general", "transfer-src", "transfer-dst",
                                                  "shader-read-only"};
    return nameOf(kNames, l);
}

std::string_view name(ImageTransferKind k) {
    static constexpr std::string_view kNames[] = {"copy_buffer_to_image", "copy_image_to_buffer", "copy_image",
                                                  "clear_image"};
    return nameOf(kNames, k);
}

std::optional<Kernel> parseKernel(std::string_view text) {
    const auto* at = std::find(std::begin(kKernelNames), std::end(kKernelNames), text);
    if (at == std::end(kKernelNames)) return std::nullopt;
    return static_cast<Kernel>(at - std::begin(kKernelNames));
}

std::vector<std::string_view> kernelBindings(Kernel k) {
    if (k == Kernel::Copy || k == Kernel::PrivateArray || k == Kernel::ImageCopy) return {"src", "dst"};
    if (k == Kernel::ImageIncrement) return {"image"};
    if (k == Kernel::IndirectWriter) return {"args"};
    if (k == Kernel::ConvT) return {"input", "weight", "output"};
    if (k == Kernel::Slice) return {"input", "output"};
    return {"data"};
}

KernelParams pushConstants(const Dispatch& d) {
    if (d.kernel != Kernel::IndirectWriter) return d.params;
    return {.count = static_cast<uint32_t>(d.writer.offset / 4),
            .add = d.writer.groups[0],
            .work = d.writer.groups[1],
            .zero = d.writer.groups[2]};
}

uint64_t invocations(const uint32_t (&groups)[3]) {
    return uint64_t{kWorkgroupSize} * groups[0] * groups[1] * groups[2];
}

uint64_t maxIndexedInvocations(const Dispatch& d) {
    if (!d.user.empty()) return 0;
    switch (d.kernel) {
        case Kernel::Increment:
        case Kernel::Copy:
        case Kernel::PrivateArray:
        case Kernel::Work:
        case Kernel::ImageIncrement:
        case Kernel::ImageCopy:
            return uint64_t{1} << 32;
        case Kernel::CompareSwap:
            return ((uint64_t{1} << 32) - (d.alternatePhase ? 1 : d.params.add)) / 2;
        case Kernel::Noop:
        case Kernel::IndirectWriter:
        case Kernel::ConvT:
        case Kernel::Slice:
            break;
    }
    return 0;
}

bool kernelWrites(Kernel k, uint32_t index) {
    const bool inPlace =
        k == Kernel::Increment || k == Kernel::CompareSwap || k == Kernel::Work || k == Kernel::ImageIncrement;
    const bool copies = k == Kernel::Copy || k == Kernel::PrivateArray || k == Kernel::ImageCopy;
    return (inPlace && index == 0) || (copies && index == 1) || (k == Kernel::IndirectWriter && index == 0) ||
           (k == Kernel::ConvT && index == 2) || (k == Kernel::Slice && index == 1);
}

bool kernelReads(Kernel k, uint32_t index) {
    const bool inPlace =
        k == Kernel::Increment || k == Kernel::CompareSwap || k == Kernel::Work || k == Kernel::ImageIncrement;
    const bool copies = k == Kernel::Copy || k == Kernel::PrivateArray || k == Kernel::ImageCopy;
    return (inPlace && index == 0) || (copies && index == 0) || (k == Kernel::ConvT && index <= 1) ||
           (k == Kernel::Slice && index == 0);
}

const UserKernel* Scenario::kernel(std::string_view kernelName) const {
    for (const auto& k : kernels) {
        if (k.name == kernelName) return &k;
    }
    return nullptr;
}

bool dispatchWrites(const Scenario& s, const Dispatch& d, uint32_t index) {
    if (d.user.empty()) return kernelWrites(d.kernel, index);
    return s.kernel(d.user)->writes.at(index);
}

bool dispatchReads(const Scenario& s, const Dispatch& d, uint32_t index) {
    if (d.user.empty()) return kernelReads(d.kernel, index);
    return s.kernel(d.user)->reads.at(index);
}

std::string stageNames(uint64_t bits) {
    std::string out;
    for (const auto& b : kStages) {
        if (bits & b.bit) out += fmt::format("{}\"{}\"", out.empty() ? "" : ", ", b.name);
    }
    return "[" + out + "]";
}

uint32_t privateArrayWord(uint32_t x, uint32_t words) {
    std::vector<uint32_t> arr(words);
    const uint32_t input = x;
    for (uint32_t j = 0; j < words; ++j) {
        x = x * 1664525u + 1013904223u;
        arr[j] = x ^ j;
    }
    uint32_t acc = input;
    for (uint32_t j = 0; j < words; ++j) {
        const uint32_t v = arr[j];
        const uint32_t k = v % words;
        const uint32_t old = arr[k];
        arr[k] = old + (v ^ acc);
        acc = acc * 31u + old;
    }
    return acc ^ arr[acc % words];
}

uint32_t workWord(uint32_t x, uint32_t rounds) {
    for (uint32_t w = 0; w < rounds; ++w) {
        x = x * 1664525u + 1013904223u;
        x ^= x >> 13;
    }
    return x;
}

std::string_view name(BarrierKind k) {
    static constexpr std::string_view kNames[] = {"blade-g",        "blade-c", "memory", "buffer",
                                                  "execution-only", "none",    "image"};
    return nameOf(kNames, k);
}

std::string_view name(QueueFamilyChoice f) {
    return f == QueueFamilyChoice::Main ? "main" : f == QueueFamilyChoice::Same ? "same" : "other";
}

bool Scenario::usesSync2() const {
    return std::any_of(steps.begin(), steps.end(), [](const Step& s) {
        const auto* b = std::get_if<Barrier>(&s.body);
        return b && b->sync2 && b->kind != BarrierKind::BladeGlobal && b->kind != BarrierKind::BladeCompute &&
               b->kind != BarrierKind::None;
    });
}

bool Scenario::hasControl() const { return !controlSteps().empty(); }

std::string Scenario::controlSteps() const {
    bool barrier = false, wait = false;
    for (const Step& s : steps) {
        const auto* b = std::get_if<Barrier>(&s.body);
        const auto* w = std::get_if<Wait>(&s.body);
        barrier = barrier || (b && b->control);
        wait = wait || (w && w->control);
    }
    const bool transfers = std::any_of(buffers.begin(), buffers.end(),
                                       [](const BufferSpec& b) { return !b.concurrent && !b.ownershipTransfers; });
    std::vector<std::string> what;
    if (barrier) what.emplace_back("a barrier");
    if (wait) what.emplace_back("a wait");
    if (transfers) what.emplace_back("a buffer without its ownership transfers");
    std::string out;
    for (size_t i = 0; i < what.size(); ++i) out += (i == 0 ? "" : i + 1 == what.size() ? " and " : ", ") + what[i];
    return out;
}

std::string replaceBarriers(Scenario& s, repro::BarrierKind b) {
    using repro::BarrierKind;
    if (b == BarrierKind::Sync2 || b == BarrierKind::Buffer)
        return fmt::format(
            "--barrier {} does not apply to a scenario, whose barriers name their own masks; expected "
            "blade, full, execution-only or none",
            repro::name(b));
    constexpr uint64_t kAllCommands = 0x10000, kMemoryRead = 0x8000, kMemoryWrite = 0x10000;  // sync2 bit values
    for (Step& step : s.steps) {
        auto* barrier = std::get_if<Barrier>(&step.body);
        if (barrier == nullptr) continue;
        const bool blades = barrier->kind == scenario::BarrierKind::BladeGlobal ||
                            barrier->kind == scenario::BarrierKind::BladeCompute || barrier->srcStage == 0;
        Barrier next{.sync2 = true, .srcStage = kAllCommands, .dstStage = kAllCommands};
        switch (b) {
            case BarrierKind::Blade:
                next.kind = scenario::BarrierKind::BladeGlobal;
                break;
            case BarrierKind::Full:
                next.kind = scenario::BarrierKind::Memory;
                next.srcAccess = kMemoryWrite;
                next.dstAccess = kMemoryRead | kMemoryWrite;
                break;
            case BarrierKind::ExecutionOnly:
                next.kind = scenario::BarrierKind::ExecutionOnly;
                next.sync2 = barrier->sync2;
                if (!blades) next.srcStage = barrier->srcStage, next.dstStage = barrier->dstStage;
                next.control = true;
                break;
            default:
                next.kind = scenario::BarrierKind::None;
                next.control = true;
                break;
        }
        if (barrier->kind == scenario::BarrierKind::Image) {
            // an image barrier keeps its image and its layout transition, which the steps
            // after it need: blade and full give it their masks, execution-only its own stages
            // and no access, none no dependency at all (TOP_OF_PIPE -> BOTTOM_OF_PIPE, no access)
            next.kind = scenario::BarrierKind::Image;
            next.buffer = barrier->buffer;
            next.oldLayout = barrier->oldLayout, next.newLayout = barrier->newLayout;
            if (b == BarrierKind::Blade) next.srcAccess = kMemoryWrite, next.dstAccess = kMemoryRead | kMemoryWrite;
            if (b == BarrierKind::ExecutionOnly || b == BarrierKind::None) next.srcAccess = next.dstAccess = 0;
            if (b != BarrierKind::Blade && b != BarrierKind::Full && b != BarrierKind::ExecutionOnly)
                next.srcStage = 0x1, next.dstStage = 0x2000;
        }
        *barrier = next;
        const std::string number = step.label.substr(0, step.label.find(" barrier "));
        step.label =
            fmt::format("{} barrier {}{}{} (--barrier {})", number, name(next.kind), next.control ? " (control)" : "",
                        step.queue != 0 ? " on queue " + s.queues[step.queue].name : "", repro::name(b));
    }
    return "";
}

const BufferSpec* Scenario::buffer(std::string_view wanted) const {
    for (const auto& b : buffers) {
        if (b.name == wanted) return &b;
    }
    return nullptr;
}

std::vector<uint32_t> randomWords(uint32_t seed, uint64_t count) {
    std::vector<uint32_t> out(count);
    uint32_t x = seed == 0 ? 1 : seed;
    for (auto& w : out) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        w = x;
    }
    return out;
}

size_t replacePlacements(Scenario& s, Placement p) {
    size_t moved = 0;
    for (auto& b : s.buffers) {
        const bool hostPoint = std::any_of(s.steps.begin(), s.steps.end(), [&](const Step& step) {
            const auto* w = std::get_if<HostWrite>(&step.body);
            const auto* r = std::get_if<HostRead>(&step.body);
            return (w && w->buffer == b.name) || (r && r->buffer == b.name);
        });
        if (hostPoint || b.placement == p) continue;
        b.placement = p;
        ++moved;
    }
    return moved;
}

size_t multiplyWork(Scenario& s, uint32_t factor) {
    size_t lengthened = 0;
    for (Step& step : s.steps) {
        auto* d = std::get_if<Dispatch>(&step.body);
        if (!d || (d->user.empty() &&
                   (d->kernel == Kernel::Work || d->kernel == Kernel::IndirectWriter || isChainKernel(d->kernel))))
            continue;
        const uint64_t work = std::min<uint64_t>(uint64_t{d->params.work} * factor, kMaxWork);
        if (work == d->params.work) continue;
        d->params.work = static_cast<uint32_t>(work);
        ++lengthened;
    }
    return lengthened;
}

size_t workSteps(const Scenario& s) {
    return static_cast<size_t>(std::count_if(s.steps.begin(), s.steps.end(), isWork));
}

std::vector<uint32_t> initialWords(const BufferSpec& spec) {
    const uint64_t count = spec.bytes / 4;
    std::vector<uint32_t> out(count, 0);
    switch (spec.init) {
        case InitKind::Zero:
        case InitKind::Undefined:
            break;
        case InitKind::Pattern:
            std::fill(out.begin(), out.end(), spec.value);
            break;
        case InitKind::Iota:
            for (uint64_t i = 0; i < count; ++i) out[i] = spec.value + static_cast<uint32_t>(i);
            break;
        case InitKind::Random:
            return randomWords(spec.value, count);
        case InitKind::ChainInput:
        case InitKind::ChainWeight:
            if (spec.words.empty())
                throw std::logic_error(fmt::format("buffer '{}': its {} words were never made (fillChainWords)",
                                                   spec.name, name(spec.init)));
            [[fallthrough]];
        case InitKind::Host:
            for (uint64_t i = 0; i < count && !spec.words.empty(); ++i) out[i] = spec.words[i % spec.words.size()];
            break;
    }
    return out;
}

}  // namespace repro::scenario
