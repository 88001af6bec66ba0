#!/usr/bin/env bash
# Round 19 on the lent GPU (H200 or H100), issue 34's last stop: a control that every mode
# survives now says so ("--- the control was not caught (...)", docs/scenarios.md "Controls"),
# and src/ lost a few more near-copies (the CPU reference's own parallelFor among them). Here:
# the built-in chain's own cost against the last landed build (base/repro, the release build of
# b0b0fcd, carried beside the new one), bench/overhead.sh --quick alternating; then each
# shipped file with a barrier under --barrier none, once by each build, with the verdict and the
# control's last line, so the image files' controls (they stay right on NVIDIA: round 18) show
# the new line on real silicon. Needs .gl/, the release build (bench/h200-setup.sh) and
# base/repro. Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run, verdict
base=base/repro
quick_alternating "$base" >"$out/quick-alternating.txt" 2>&1
control_line() {  # build, then repro's arguments: the exit status, the verdict and the control's line
    local text status
    text=$("$@" 2>&1)
    status=$?
    echo "exit $status | $(grep -E '^--- (NOT REPRODUCED|CONTROL CAUGHT|BUG REPRODUCED|GPU HANG)' <<<"$text" | head -n 1 | cut -c1-90)" \
        "| $(grep -E '^--- the control was' <<<"$text" | cut -c1-60)"
}
for f in scenarios/*.toml; do
    grep -q '^barrier = ' "$f" || continue
    n=$(basename "$f" .toml)
    echo "$n base: $(control_line "$base" --scenario "$f" --barrier none)"
    echo "$n new:  $(control_line "$bin" --scenario "$f" --barrier none)"
done >"$out/controls.txt" 2>&1
echo "chain -n 7 --barrier none new: $(control_line "$bin" -n 7 --barrier none)" >>"$out/controls.txt"
"$bin" --scenario scenarios/layout-transition-orders-compute-and-copy.toml --barrier none >"$out/layout-transition-barrier-none.txt" 2>&1
echo "exit $?" >>"$out/layout-transition-barrier-none.txt"
cat "$out/quick-alternating.txt" "$out/controls.txt"
