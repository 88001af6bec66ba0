// The factors of a child run, their labels, and the --matrix set (see run_factors.hpp).
#include "children/run_factors.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/output.hpp"

namespace repro {

std::string splitMibText(double mib) { return fmt::format("{:.3f}", mib); }

std::string splitMsText(double ms) { return fmt::format("{:.0f}", ms); }

std::vector<FactorPart> factorParts(const RunFactors& f) {
    std::vector<FactorPart> out;
    // The option of that long name, given `value`; its words "label=value".
    auto valued = [&](std::string_view option, std::string_view label, const std::string& value) {
        out.push_back({{option}, {std::string(option), value}, fmt::format("{}={}", label, value)});
    };
    if (f.steps) out.push_back({{"--chain"}, {"-n", std::to_string(*f.steps)}, fmt::format("n={}", *f.steps)});
    if (f.mode) out.push_back({{"--mode"}, {"--mode", std::string(name(*f.mode))}, ""});
    if (f.barrier) valued("--barrier", "barrier", std::string(name(*f.barrier)));
    if (f.submit.every > 0) valued("--submit-every", "submit-every", std::to_string(f.submit.every));
    if (f.submit.splitMiB) valued("--split-mib", "split-mib", splitMibText(*f.submit.splitMiB));
    if (f.submit.splitMs) valued("--split-ms", "split-ms", splitMsText(*f.submit.splitMs));
    if (!f.submit.hostWait) {
        out.push_back({{"--host-wait", "--no-host-wait"}, {"--no-host-wait"}, "no-host-wait"});
    } else if (f.submit.every > 0) {
        out.push_back({{}, {}, "host-wait"});  // said beside --submit-every; the default, no flag
    }
    if (f.memory) valued("--memory", "memory", std::string(name(*f.memory)));
    if (f.dispatchRepeat) valued("--dispatch-repeat", "dispatch-repeat", std::to_string(*f.dispatchRepeat));
    if (f.workScale) valued("--work-scale", "work-scale", std::to_string(*f.workScale));
    if (f.profile) valued("--profile", "profile", std::string(name(*f.profile)));
    if (f.checkSteps) out.push_back({{"--check-steps"}, {"--check-steps"}, "check-steps"});
    if (f.driverEnv) out.push_back({{}, {}, f.driverEnv->variable + "=" + f.driverEnv->value});
    if (f.batch) valued("--batch", "batch", std::to_string(*f.batch));
    if (f.mutant) valued("--mutant", "mutant", mutantText(*f.mutant));
    return out;
}

std::string factorLabel(const RunFactors& f) {
    std::vector<std::string> parts;
    for (const FactorPart& part : factorParts(f)) {
        if (!part.label.empty()) parts.push_back(part.label);
    }
    return join(parts, " ");
}

bool isControl(const Variant& v) { return v.fileControl || (v.factors.barrier && isControl(*v.factors.barrier)); }

bool bladeQuirks(const Variant& v) { return v.factors.profile == Profile::BladeExact; }

std::string labelWithoutMode(const Variant& v) {
    RunFactors f = v.factors;
    f.mode.reset();
    std::string text = f != RunFactors{} ? factorLabel(f) : v.file ? "as written" : "blade (as recorded by blade)";
    if (isControl(v)) text += " (control)";
    if (bladeQuirks(v)) text += " (blade's quirks)";
    return text;
}

std::string label(const Variant& v) {
    const std::string mode{v.factors.mode ? name(*v.factors.mode) : std::string_view("?")};
    return fmt::format("{} {}{}", mode, v.folded ? "= single " : "", labelWithoutMode(v));
}

// The rows `rows` adds (through the function it is given), for multipass, then single.
template <typename Rows>
static std::vector<Variant> forBothModes(bool file, Rows rows) {
    std::vector<Variant> out;
    for (const Mode mode : {Mode::Multipass, Mode::Single}) {
        rows([&](RunFactors f) {
            f.mode = mode;
            out.push_back({.factors = f, .file = file});
        });
    }
    return out;
}

std::vector<Variant> matrixVariants(double splitMiB) {
    return forBothModes(false, [&](const auto& add) {
        add({});
        for (const BarrierKind b : {BarrierKind::Sync2, BarrierKind::Buffer, BarrierKind::Full,
                                    BarrierKind::ExecutionOnly, BarrierKind::None}) {
            add({.barrier = b});
        }
        add({.submit = {.every = 2}});
        add({.submit = {.every = 2, .hostWait = false}});
        add({.submit = {.splitMiB = splitMiB, .hostWait = false}});
        for (const BufferMemory m : {BufferMemory::DeviceLocal, BufferMemory::HostVisible, BufferMemory::HostCached}) {
            add({.memory = m});
        }
        add({.dispatchRepeat = 4});
        add({.profile = Profile::BladeExact});
    });
}

std::vector<Variant> fileMatrixVariants() {
    return forBothModes(true, [](const auto& add) {
        add({});
        for (const BarrierKind b : {BarrierKind::Blade, BarrierKind::Full}) add({.barrier = b});
        for (const BufferMemory m : {BufferMemory::DeviceLocal, BufferMemory::HostVisible}) add({.memory = m});
        add({.submit = {.every = 2}});
        add({.submit = {.every = 2, .hostWait = false}});
        add({.workScale = 4});
        for (const BarrierKind b : {BarrierKind::ExecutionOnly, BarrierKind::None}) add({.barrier = b});
    });
}

std::vector<Variant> splitMsVariants(double ms) {
    return forBothModes(false, [&](const auto& add) { add({.submit = {.splitMs = ms, .hostWait = false}}); });
}

std::pair<std::vector<Variant>, size_t> foldSameStreams(const std::vector<Variant>& all) {
    auto ownBarrier = [](const Variant& v) { return v.factors.barrier && *v.factors.barrier != BarrierKind::Blade; };
    auto withoutMode = [](const Variant& v) {
        RunFactors f = v.factors;
        f.mode.reset();
        return f;
    };
    std::vector<Variant> kept;
    size_t folded = 0;
    for (const Variant& v : all) {
        const bool same = v.factors.mode == Mode::Single && ownBarrier(v) &&
                          std::any_of(kept.begin(), kept.end(), [&](const Variant& k) {
                              return k.factors.mode == Mode::Multipass && withoutMode(k) == withoutMode(v);
                          });
        if (same) {
            ++folded;
            continue;
        }
        kept.push_back(v);
        if (v.factors.mode == Mode::Multipass && ownBarrier(v)) kept.back().folded = true;
    }
    return {kept, folded};
}

}  // namespace repro
