// Verdict precedence and the result lines.
#include "report/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/enum_names.hpp"
#include "core/rust_format.hpp"

namespace repro {

std::string modeLine(Mode mode, const BufferStats& s) {
    // The original computes the percentage in f32: 100.0 * nz as f32 / len as f32.
    const float percent = 100.0f * static_cast<float>(s.nonZero) / static_cast<float>(s.elements);
    return fmt::format("  mode={:<9} nz={}/{} ({}%) sum={} max_abs={}", name(mode), s.nonZero, s.elements,
                       rustFixed(percent, 1), rustExp(s.sum), rustExp(s.maxAbs));
}

std::string classificationLine(const ModeResult& r) {
    if (r.kind == Classification::NotRun) return fmt::format("    -> not run: {}", r.reason);
    return fmt::format("    -> {}: {} ({} submit{}, {:.2f} s)", name(r.kind), r.reason, r.submits,
                       r.submits == 1 ? "" : "s", r.wallSeconds);
}

std::string_view cutShortBy(std::string_view causeKind) {
    if (causeKind == "job_timeout") return "the kernel's job timeout";
    if (causeKind == "firmware") return "the GPU's scheduler firmware";
    return "";
}

namespace {

// The verdict line's cause in a few words, from its kind (forensics/cause.hpp name(CauseKind));
// the cause line under the mode's result says it in full with its evidence.
std::string shortCause(const ModeResult& r) {
    const std::string& k = r.causeKind;
    if (k.empty() || k == "no_failure") return "";
    const std::string_view words =
        k == "job_timeout"       ? cutShortBy(k)
        : k == "hang_killed"     ? "a GPU hang, ended by the job timeout"
        : k == "synchronization" ? "synchronization"
        : k == "shader_compiler" ? "the shader compiler"
        : k == "blade_quirks"    ? "blade's invalid usage"
        // a hang under a control may be the file's own (forensics/cause.cpp underControl)
        : k == "control"  ? (r.kind == Classification::Hang ? "the control or the file itself" : "the control")
        : k == "firmware" ? "the GPU's scheduler firmware (MES)"
                          : "undetermined";
    return fmt::format(" (cause: {})", words);
}

// The longest verdict line: the mode, the class and the cause in a few words; the evidence
// is on the lines above and under it (issue 23).
constexpr size_t kMaxVerdictColumns = 160;

// "HEAD SEPARATOR REASON (cause: ...)" within kMaxVerdictColumns: when too long, an
// undetermined cause is left out (the cause line says it), else the reason (the mode's
// "->" line has it in full).
std::string verdictLine(const std::string& head, const char* separator, const std::string& reason,
                        const std::string& cause) {
    std::string line = head + separator + reason + cause;
    if (line.size() <= kMaxVerdictColumns) return line;
    // A hang's reason (the call and the submit) says more than "(cause: undetermined)".
    line = head + separator + reason;
    return line.size() <= kMaxVerdictColumns && cause.find("undetermined") != std::string::npos ? line : head + cause;
}

// The verdict of the first mode that hung, if one did.
std::optional<Verdict> hangVerdict(const std::vector<ModeResult>& results) {
    for (const auto& r : results) {
        if (r.kind == Classification::Hang) {
            Verdict v;
            v.exitStatus = kExitHang;
            v.lines.push_back(
                verdictLine(fmt::format("--- GPU HANG: mode {}", name(r.mode)), " ", r.reason, shortCause(r)));
            v.lines.push_back(
                "--- results of the modes that completed are above; later modes did "
                "not run");
            return v;
        }
    }
    return std::nullopt;
}

// The "while ... produced correct non-zero data" line naming the good modes.
std::string goodModesLine(const std::vector<ModeResult>& results, const std::vector<const ModeResult*>& wrong) {
    std::string good;
    for (const auto& r : results) {
        if (r.kind == Classification::Ok) good += fmt::format("{}{}", good.empty() ? "" : ", ", name(r.mode));
    }
    const bool allTimedOut = std::all_of(wrong.begin(), wrong.end(), [](const ModeResult* r) {
        return r->causeKind == "job_timeout" || r->causeKind == "hang_killed";
    });
    return allTimedOut ? fmt::format(
                             "--- while {} produced correct non-zero data: its submits stay far below the "
                             "kernel's job timeout (docs/watchdog.md: the reboot experiment that decides it)",
                             good)
                       : fmt::format(
                             "--- while {} produced correct non-zero data; the Vulkan spec makes all three "
                             "modes equivalent",
                             good);
}

// The reproduced verdict: one line per wrong mode, then the good modes' line if any.
Verdict reproducedVerdict(const std::vector<ModeResult>& results, const std::vector<const ModeResult*>& wrong,
                          bool anyGood) {
    Verdict v;
    v.exitStatus = kExitReproduced;
    for (const auto* r : wrong) {
        const std::string runs = r->runs > 1 ? fmt::format(" ({}/{} runs wrong)", r->wrongRuns, r->runs) : "";
        v.lines.push_back(verdictLine(fmt::format("--- BUG REPRODUCED: mode {} is {}", name(r->mode), name(r->kind)),
                                      ": ", r->reason, runs + shortCause(*r)));
    }
    if (anyGood) v.lines.push_back(goodModesLine(results, wrong));
    return v;
}

// The verdict when no mode is wrong enough to judge: inconclusive, validation or not
// reproduced, in that order.
Verdict unreproducedVerdict(const std::string& referenceName, bool allZero, bool referenceUnderflowed,
                            uint64_t validationMessages, const UnderflowEstimate& underflow) {
    Verdict v;
    if (allZero) {
        v.exitStatus = kExitCannotTest;
        v.lines.push_back(
            fmt::format("--- INCONCLUSIVE: every mode is all zero and there is no reference; at this chain length a "
                        "correct device may underflow to zero ({})",
                        underflow.basis.empty() ? "no estimate" : underflow.basis));
        v.lines.push_back("--- try a shorter chain (-n), or --reference cpu or split");
        return v;
    }
    if (referenceUnderflowed) {
        v.exitStatus = kExitCannotTest;
        v.lines.push_back(
            fmt::format("--- INCONCLUSIVE: the reference ({}) is all zero or denormal, which a correct device "
                        "produces once the chain underflows (the signal shrinks ~4x per step)",
                        referenceName));
        v.lines.push_back(
            "--- try a shorter chain (-n); a mode cannot be judged against a "
            "reference with no signal");
        return v;
    }
    if (validationMessages > 0) {
        v.exitStatus = kExitValidation;
        v.lines.push_back(
            fmt::format("--- VALIDATION: the repro's own Vulkan usage drew {} "
                        "validation message{} (see stderr); results are not "
                        "trustworthy until they are fixed",
                        validationMessages, validationMessages == 1 ? "" : "s"));
        return v;
    }
    v.exitStatus = kExitNotReproduced;
    v.lines.push_back(
        referenceName.empty()    ? "--- NOT REPRODUCED: the output is finite and non-zero (no reference to compare "
                                   "with: --reference none)"
        : referenceName == "cpu" ? "--- NOT REPRODUCED: every mode produced non-zero output within the derived "
                                   "tolerance of the CPU reference"
                                 : fmt::format("--- NOT REPRODUCED: every mode produced non-zero output "
                                               "bit-identical to {}",
                                               referenceName));
    return v;
}

}  // namespace

std::string_view name(VerdictKind kind) {
    static constexpr std::string_view kNames[] = {"not_reproduced", "reproduced",     "hang",        "validation",
                                                  "cannot_test",    "control_caught", "interrupted", "usage"};
    return nameOf(kNames, kind);
}

VerdictKind verdictKind(int exitStatus, bool control) {
    if (exitStatus == kExitReproduced) return control ? VerdictKind::ControlCaught : VerdictKind::Reproduced;
    static constexpr std::pair<int, VerdictKind> kKinds[] = {
        {kExitNotReproduced, VerdictKind::NotReproduced},
        {kExitUsage, VerdictKind::Usage},
        {kExitHang, VerdictKind::Hang},
        {kExitValidation, VerdictKind::Validation},
        {128 + 2, VerdictKind::Interrupted},   // SIGINT
        {128 + 15, VerdictKind::Interrupted},  // SIGTERM (a SIGHUP is answered as one)
    };
    for (const auto& [status, kind] : kKinds) {
        if (status == exitStatus) return kind;
    }
    return VerdictKind::CannotTest;
}

Verdict decideVerdict(const std::vector<ModeResult>& results, const std::string& referenceName,
                      bool referenceUnderflowed, uint64_t validationMessages, const UnderflowEstimate& underflow) {
    if (std::optional<Verdict> hang = hangVerdict(results)) return *hang;
    std::vector<const ModeResult*> wrong;
    bool anyGood = false;
    for (const auto& r : results) {
        if (isWrong(r.kind)) wrong.push_back(&r);
        if (r.kind == Classification::Ok) anyGood = true;
    }
    // Without a reference, modes that are all zero cannot tell a bug from underflow either.
    const bool noReference = referenceName.empty();
    const bool allZero =
        noReference && underflow.possible && !results.empty() &&
        std::all_of(results.begin(), results.end(), [](auto& r) { return r.kind == Classification::Zero; });
    // NaN and Inf are wrong whatever the reference holds: underflow only yields zeros
    // and denormals. Zero and mismatch need a reference with signal to be judged.
    const bool anyNonFinite = std::any_of(wrong.begin(), wrong.end(),
                                          [](const ModeResult* r) { return r->kind == Classification::NonFinite; });
    if (!wrong.empty() && (anyNonFinite || (!allZero && !referenceUnderflowed))) {
        return reproducedVerdict(results, wrong, anyGood);
    }
    return unreproducedVerdict(referenceName, allZero, referenceUnderflowed, validationMessages, underflow);
}

}  // namespace repro
