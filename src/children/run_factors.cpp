// The factors of a child run, their labels, and the --matrix set (see run_factors.hpp).
#include "children/run_factors.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/output.hpp"

namespace repro {

std::string splitMibText(double mib) { return fmt::format("{:.3f}", mib); }

std::string splitMsText(double ms) { return fmt::format("{:.0f}", ms); }

namespace {

// The submit structure's words: "submit-every=2 host-wait", "split-mib=X no-host-wait".
void submitLabel(const SubmitStructure& s, std::vector<std::string>& parts) {
    if (s.every > 0) parts.push_back(fmt::format("submit-every={}", s.every));
    if (s.splitMiB) parts.push_back("split-mib=" + splitMibText(*s.splitMiB));
    if (s.splitMs) parts.push_back("split-ms=" + splitMsText(*s.splitMs));
    if (s.every > 0) {
        parts.push_back(s.hostWait ? "host-wait" : "no-host-wait");
    } else if (!s.hostWait) {
        parts.push_back("no-host-wait");
    }
}

}  // namespace

std::string factorLabel(const RunFactors& f) {
    std::vector<std::string> parts;
    if (f.steps) parts.push_back(fmt::format("n={}", *f.steps));
    if (f.barrier) parts.push_back(fmt::format("barrier={}", name(*f.barrier)));
    submitLabel(f.submit, parts);
    if (f.memory) parts.push_back(fmt::format("memory={}", name(*f.memory)));
    if (f.dispatchRepeat) parts.push_back(fmt::format("dispatch-repeat={}", *f.dispatchRepeat));
    if (f.workScale) parts.push_back(fmt::format("work-scale={}", *f.workScale));
    if (f.profile) parts.push_back(fmt::format("profile={}", name(*f.profile)));
    if (f.checkSteps) parts.push_back("check-steps");
    if (f.driverEnv) parts.push_back(f.driverEnv->variable + "=" + f.driverEnv->value);
    if (f.batch) parts.push_back(fmt::format("batch={}", *f.batch));
    if (f.mutant) parts.push_back("mutant=" + mutantText(*f.mutant));
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

std::vector<Variant> matrixVariants(double splitMiB) {
    std::vector<Variant> out;
    for (const Mode mode : {Mode::Multipass, Mode::Single}) {
        auto add = [&](RunFactors f) {
            f.mode = mode;
            out.push_back({.factors = f});
        };
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
    }
    return out;
}

std::vector<Variant> fileMatrixVariants() {
    std::vector<Variant> out;
    for (const Mode mode : {Mode::Multipass, Mode::Single}) {
        auto add = [&](RunFactors f) {
            f.mode = mode;
            out.push_back({.factors = f, .file = true});
        };
        add({});
        for (const BarrierKind b : {BarrierKind::Blade, BarrierKind::Full}) add({.barrier = b});
        for (const BufferMemory m : {BufferMemory::DeviceLocal, BufferMemory::HostVisible}) add({.memory = m});
        add({.submit = {.every = 2}});
        add({.submit = {.every = 2, .hostWait = false}});
        add({.workScale = 4});
        for (const BarrierKind b : {BarrierKind::ExecutionOnly, BarrierKind::None}) add({.barrier = b});
    }
    return out;
}

std::vector<Variant> splitMsVariants(double ms) {
    std::vector<Variant> out;
    for (const Mode mode : {Mode::Multipass, Mode::Single}) {
        out.push_back({.factors = {.mode = mode, .submit = {.splitMs = ms, .hostWait = false}}});
    }
    return out;
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
