// Unit tests for src/core/verdict.{hpp,cpp}: exit-status precedence, the verdict lines
// and the original's per-mode result line.
#include "report/verdict.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace repro {
namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

ModeResult result(Mode mode, Classification kind, std::string reason = "because") {
    ModeResult r;
    r.mode = mode;
    r.kind = kind;
    r.reason = std::move(reason);
    if (kind != Classification::Hang && kind != Classification::NotRun) {
        r.stats = BufferStats{.elements = 4, .nonZero = 4};
        r.submits = 1;
    }
    return r;
}

const ModeResult kSplitOk = result(Mode::Split, Classification::Ok, "finite and not all zero");
const ModeResult kMultipassOk = result(Mode::Multipass, Classification::Ok, "bit-identical to split");
const ModeResult kSingleOk = result(Mode::Single, Classification::Ok, "bit-identical to split");

// Every verdict has at least one line and each starts with "--- ".
void expectLines(const Verdict& v) {
    ASSERT_FALSE(v.lines.empty());
    for (const auto& line : v.lines) {
        EXPECT_TRUE(line.starts_with("--- ")) << line;
        EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    }
}

std::string joined(const Verdict& v) {
    std::string all;
    for (const auto& line : v.lines) all += line + "\n";
    return all;
}

// ---- exit statuses -------------------------------------------------------------------------

TEST(DecideVerdict, ExitStatusValues) {
    EXPECT_EQ(kExitNotReproduced, 0);
    EXPECT_EQ(kExitUsage, 1);
    EXPECT_EQ(kExitReproduced, 2);
    EXPECT_EQ(kExitHang, 3);
    EXPECT_EQ(kExitValidation, 4);
    EXPECT_EQ(kExitCannotTest, 125);
}

TEST(DecideVerdict, AllOkIsNotReproduced) {
    const Verdict v = decideVerdict({kSplitOk, kMultipassOk, kSingleOk}, "split", false, 0);
    EXPECT_EQ(v.exitStatus, 0);
    expectLines(v);
    EXPECT_TRUE(v.lines[0].starts_with("--- NOT REPRODUCED")) << v.lines[0];
    EXPECT_TRUE(contains(v.lines[0], "split")) << v.lines[0];
}

TEST(DecideVerdict, SingleModeOkIsNotReproduced) {
    const Verdict v = decideVerdict({kMultipassOk}, "", false, 0);
    EXPECT_EQ(v.exitStatus, 0);
    expectLines(v);
    EXPECT_TRUE(v.lines[0].starts_with("--- NOT REPRODUCED")) << v.lines[0];
}

TEST(DecideVerdict, WrongModeIsReproduced) {
    for (const Classification wrong : {Classification::Zero, Classification::Mismatch, Classification::NonFinite}) {
        SCOPED_TRACE(std::string{name(wrong)});
        const Verdict v = decideVerdict(
            {kSplitOk, result(Mode::Multipass, wrong, "all 4 elements are 0 while split is not"), kSingleOk}, "split",
            false, 0);
        EXPECT_EQ(v.exitStatus, 2);
        expectLines(v);
        EXPECT_TRUE(v.lines[0].starts_with("--- BUG REPRODUCED")) << v.lines[0];
        EXPECT_TRUE(contains(v.lines[0], "multipass")) << v.lines[0];
        EXPECT_TRUE(contains(v.lines[0], name(wrong))) << v.lines[0];
        EXPECT_TRUE(contains(v.lines[0], "while split is not")) << v.lines[0];  // the reason
        // The modes that were right are named as such.
        const std::string all = joined(v);
        EXPECT_TRUE(contains(all, "split, single")) << all;
    }
}

TEST(DecideVerdict, EveryWrongModeGetsALine) {
    const Verdict v = decideVerdict(
        {kSplitOk, result(Mode::Multipass, Classification::Zero), result(Mode::Single, Classification::Mismatch)},
        "split", false, 0);
    EXPECT_EQ(v.exitStatus, 2);
    expectLines(v);
    const std::string all = joined(v);
    EXPECT_TRUE(contains(all, "mode multipass is zero")) << all;
    EXPECT_TRUE(contains(all, "mode single is mismatch")) << all;
}

TEST(DecideVerdict, HangWinsOverAWrongMode) {
    const Verdict v =
        decideVerdict({kSplitOk, result(Mode::Multipass, Classification::Zero),
                       result(Mode::Single, Classification::Hang, "vkWaitSemaphores timed out after 600 s")},
                      "split", false, 0);
    EXPECT_EQ(v.exitStatus, 3);
    expectLines(v);
    const std::string all = joined(v);
    EXPECT_TRUE(contains(all, "HANG")) << all;
    EXPECT_TRUE(contains(all, "single")) << all;
    EXPECT_TRUE(contains(all, "timed out")) << all;
}

TEST(DecideVerdict, HangWinsOverEverythingElse) {
    // A hang in the first mode: later modes did not run, the reference underflowed and
    // validation complained; 3 still wins.
    const Verdict v = decideVerdict({result(Mode::Split, Classification::Hang, "VK_ERROR_DEVICE_LOST"),
                                     result(Mode::Multipass, Classification::NotRun, "the device was lost"),
                                     result(Mode::Single, Classification::NotRun, "the device was lost")},
                                    "", true, 5);
    EXPECT_EQ(v.exitStatus, 3);
    expectLines(v);
}

TEST(DecideVerdict, WrongPlusValidationIsReproduced) {
    const Verdict v = decideVerdict({kSplitOk, result(Mode::Multipass, Classification::Zero)}, "split", false, 3);
    EXPECT_EQ(v.exitStatus, 2);
    expectLines(v);
}

TEST(DecideVerdict, UnderflowedReferenceIsInconclusive) {
    // A long chain: split (the reference) is all zero, so it is `zero` on its own and the
    // others are bit-identical to it. A correct device does this; never a reproduction.
    const Verdict v = decideVerdict(
        {result(Mode::Split, Classification::Zero, "all 4 elements are 0 (no reference)"), kMultipassOk, kSingleOk},
        "split", true, 0);
    EXPECT_EQ(v.exitStatus, 125);
    expectLines(v);
    EXPECT_TRUE(v.lines[0].starts_with("--- INCONCLUSIVE")) << v.lines[0];
    EXPECT_TRUE(contains(v.lines[0], "split")) << v.lines[0];
}

TEST(DecideVerdict, ZeroAgainstAnUnderflowedReferenceIsInconclusive) {
    // split ended in denormals (underflowed but not all zero), multipass flushed to zero.
    const Verdict v = decideVerdict({kSplitOk, result(Mode::Multipass, Classification::Zero)}, "split", true, 0);
    EXPECT_EQ(v.exitStatus, 125);
    expectLines(v);
}

TEST(DecideVerdict, EveryModeZeroIsInconclusiveOnlyPastTheUnderflowHorizon) {
    // One mode run, no reference, all zero: past the horizon it could be an underflowed chain.
    const UnderflowEstimate past{.possible = true, .basis = "max |small[80]| is 3.5e-39"};
    const Verdict one = decideVerdict({result(Mode::Multipass, Classification::Zero)}, "", false, 0, past);
    EXPECT_EQ(one.exitStatus, 125);
    expectLines(one);
    EXPECT_TRUE(contains(one.lines[0], "there is no reference")) << one.lines[0];
    EXPECT_TRUE(contains(one.lines[0], "max |small[80]| is 3.5e-39")) << one.lines[0];
    EXPECT_FALSE(contains(one.lines[0], "no mode")) << one.lines[0];
    // Before it, all-zero output is the original's symptom: reproduced.
    const UnderflowEstimate before{.possible = false, .basis = "max |small[3]| is 1e-2"};
    const Verdict early = decideVerdict({result(Mode::Multipass, Classification::Zero)}, "", false, 0, before);
    EXPECT_EQ(early.exitStatus, 2);
    const Verdict all =
        decideVerdict({result(Mode::Split, Classification::Zero), result(Mode::Multipass, Classification::Zero),
                       result(Mode::Single, Classification::Zero)},
                      "split", true, 0);
    EXPECT_EQ(all.exitStatus, 125);
}

TEST(DecideVerdict, LoneModeZeroAgainstASplitReferenceRunAfterIsReproduced) {
    // `--mode multipass`: split ran after it as the reference and is not judged itself, so
    // the judged list holds only the zero mode; a reference with signal makes it a bug.
    const Verdict v = decideVerdict({result(Mode::Multipass, Classification::Zero)},
                                    "split, run after the modes under test", false, 0);
    EXPECT_EQ(v.exitStatus, 2);
    EXPECT_TRUE(contains(v.lines[0], "BUG REPRODUCED: mode multipass is zero")) << v.lines[0];
}

TEST(DecideVerdict, InconclusiveWinsOverValidation) {
    const Verdict v = decideVerdict({result(Mode::Split, Classification::Zero), kMultipassOk}, "split", true, 2);
    EXPECT_EQ(v.exitStatus, 125);
}

TEST(DecideVerdict, ValidationMessagesAloneGiveFour) {
    const Verdict one = decideVerdict({kSplitOk, kMultipassOk, kSingleOk}, "split", false, 1);
    EXPECT_EQ(one.exitStatus, 4);
    expectLines(one);
    EXPECT_TRUE(contains(one.lines[0], "VALIDATION")) << one.lines[0];
    EXPECT_TRUE(contains(one.lines[0], "1 validation message ")) << one.lines[0];
    const Verdict many = decideVerdict({kSplitOk, kMultipassOk, kSingleOk}, "split", false, 12);
    EXPECT_EQ(many.exitStatus, 4);
    EXPECT_TRUE(contains(many.lines[0], "12 validation messages")) << many.lines[0];
}

// Underflow yields zeros and denormals, never NaN or Inf, so a NaN/Inf mode is wrong
// output whatever the reference holds (exit 2, not the inconclusive 125 that would make
// `git bisect run` skip a commit that produces NaNs).
TEST(DecideVerdict, NonFiniteIsReproducedEvenAgainstAnUnderflowedReference) {
    const Verdict v =
        decideVerdict({result(Mode::Split, Classification::Zero, "all 4 elements are 0 (no reference)"),
                       result(Mode::Multipass, Classification::NonFinite, "4 of 4 elements are NaN or Inf"), kSingleOk},
                      "split", true, 0);
    EXPECT_EQ(v.exitStatus, 2) << joined(v);
}

// ---- modeLine ---------------------------------------------------------------------------

TEST(ModeLine, OriginalsFormat) {
    const BufferStats s{.elements = 3686400, .nonZero = 3686400, .sum = 0.056694, .maxAbs = 1.2345e-4f};
    EXPECT_EQ(modeLine(Mode::Split, s), "  mode=split     nz=3686400/3686400 (100.0%) sum=5.6694e-2 max_abs=1.2345e-4");
    EXPECT_EQ(modeLine(Mode::Multipass, s),
              "  mode=multipass nz=3686400/3686400 (100.0%) sum=5.6694e-2 max_abs=1.2345e-4");
    EXPECT_EQ(modeLine(Mode::Single, s),
              "  mode=single    nz=3686400/3686400 (100.0%) sum=5.6694e-2 max_abs=1.2345e-4");
}

TEST(ModeLine, AllZeroMatchesTheOriginalsReproducedLine) {
    // The original report: "  mode=multipass nz=0/3686400 (0.0%) sum=0.0000e0 max_abs=0.0000e0"
    const BufferStats s{.elements = 3686400};
    EXPECT_EQ(modeLine(Mode::Multipass, s), "  mode=multipass nz=0/3686400 (0.0%) sum=0.0000e0 max_abs=0.0000e0");
}

TEST(ModeLine, PercentIsComputedInF32AsTheOriginal) {
    // Rust: 100.0 * nz as f32 / len as f32. 100 * 1999 / 2000 in f32 is the f32 nearest
    // 99.95, 99.9499969482421875, which prints "99.9"; the same in f64 would print "100.0".
    const BufferStats s{.elements = 2000, .nonZero = 1999, .sum = 1.0, .maxAbs = 1.0f};
    EXPECT_EQ(modeLine(Mode::Split, s), "  mode=split     nz=1999/2000 (99.9%) sum=1.0000e0 max_abs=1.0000e0");
    // 1/3: 33.333332 -> "33.3"; 2/3: 66.66667 -> "66.7".
    EXPECT_TRUE(contains(modeLine(Mode::Split, BufferStats{.elements = 3, .nonZero = 1}), "nz=1/3 (33.3%)"));
    EXPECT_TRUE(contains(modeLine(Mode::Split, BufferStats{.elements = 3, .nonZero = 2}), "nz=2/3 (66.7%)"));
}

TEST(ModeLine, NegativeSumAndNaNSum) {
    const BufferStats neg{.elements = 4, .nonZero = 4, .sum = -12345.678, .maxAbs = 3.0f};
    EXPECT_EQ(modeLine(Mode::Single, neg), "  mode=single    nz=4/4 (100.0%) sum=-1.2346e4 max_abs=3.0000e0");
    const BufferStats nan{.elements = 4,
                          .nonZero = 2,
                          .nonFinite = 2,
                          .sum = std::numeric_limits<double>::quiet_NaN(),
                          .maxAbs = std::numeric_limits<float>::infinity()};
    EXPECT_EQ(modeLine(Mode::Split, nan), "  mode=split     nz=2/4 (50.0%) sum=NaN max_abs=inf");
}

// ---- classificationLine ---------------------------------------------------------------

TEST(ClassificationLine, NotRun) {
    const ModeResult r = result(Mode::Single, Classification::NotRun, "the device was lost");
    EXPECT_EQ(classificationLine(r), "    -> not run: the device was lost");
}

TEST(ClassificationLine, CompletedMode) {
    ModeResult r = result(Mode::Multipass, Classification::Ok, "bit-identical to split");
    r.submits = 2;
    r.wallSeconds = 1.234;
    EXPECT_EQ(classificationLine(r), "    -> ok: bit-identical to split (2 submits, 1.23 s)");
    r.submits = 1;
    r.wallSeconds = 0.5;
    EXPECT_EQ(classificationLine(r), "    -> ok: bit-identical to split (1 submit, 0.50 s)");
    ModeResult z = result(Mode::Split, Classification::Zero, "all 4 elements are 0");
    z.submits = 14;
    z.wallSeconds = 12.0;
    EXPECT_EQ(classificationLine(z), "    -> zero: all 4 elements are 0 (14 submits, 12.00 s)");
}

TEST(ClassificationLine, Hang) {
    ModeResult r = result(Mode::Single, Classification::Hang, "VK_ERROR_DEVICE_LOST");
    r.submits = 1;
    r.wallSeconds = 3.0;
    EXPECT_EQ(classificationLine(r), "    -> hang: VK_ERROR_DEVICE_LOST (1 submit, 3.00 s)");
}

// --invert turns the two outcomes around and nothing else: a hang, a usage error, an
// untestable revision and an interrupt mean the same in both bisect directions.
TEST(Verdict, InvertSwapsReproducedAndNotReproducedAndKeepsUsageErrorsOffTheVerdicts) {
    EXPECT_EQ(invertedExitStatus(kExitReproduced), kExitNotReproduced);
    EXPECT_EQ(invertedExitStatus(kExitNotReproduced), kExitUsage);
    // 1 says "not reproduced" under --invert: a usage error must not (SPEC §5), so it is 125.
    EXPECT_EQ(invertedExitStatus(kExitUsage), kExitCannotTest);
    for (const int status : {3, 4, 125, 130, 143}) EXPECT_EQ(invertedExitStatus(status), status) << status;
    // No status but 0 and 2 becomes a verdict's status of the inverted meaning.
    for (int status = 0; status < 256; ++status) {
        const int inverted = invertedExitStatus(status);
        if (inverted == kExitNotReproduced) {
            EXPECT_EQ(status, kExitReproduced);
        }
        if (inverted == kExitUsage) {
            EXPECT_EQ(status, kExitNotReproduced);
        }
    }
}

}  // namespace
}  // namespace repro

namespace repro {
namespace {

// The verdict's kind for every exit status a run ends with, under a positive control or not:
// only a reproduction changes with the control.
TEST(VerdictKind, EachExitStatusAndAControl) {
    const struct {
        int status;
        VerdictKind plain, control;
        const char* name;
    } cases[] = {
        {kExitNotReproduced, VerdictKind::NotReproduced, VerdictKind::NotReproduced, "not_reproduced"},
        {kExitUsage, VerdictKind::Usage, VerdictKind::Usage, "usage"},
        {kExitReproduced, VerdictKind::Reproduced, VerdictKind::ControlCaught, "reproduced"},
        {kExitHang, VerdictKind::Hang, VerdictKind::Hang, "hang"},
        {kExitValidation, VerdictKind::Validation, VerdictKind::Validation, "validation"},
        {kExitCannotTest, VerdictKind::CannotTest, VerdictKind::CannotTest, "cannot_test"},
        {130, VerdictKind::Interrupted, VerdictKind::Interrupted, "interrupted"},
        {143, VerdictKind::Interrupted, VerdictKind::Interrupted, "interrupted"},
        {77, VerdictKind::CannotTest, VerdictKind::CannotTest, "cannot_test"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(verdictKind(c.status, false), c.plain) << c.status;
        EXPECT_EQ(verdictKind(c.status, true), c.control) << c.status;
        EXPECT_EQ(name(verdictKind(c.status, false)), c.name) << c.status;
    }
    EXPECT_EQ(name(VerdictKind::ControlCaught), "control_caught");
}

}  // namespace
}  // namespace repro
