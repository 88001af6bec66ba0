#!/usr/bin/env bash
# Round 20 on the lent GPU (H200 or H100), issue 34's stop of 2026-12-07 (afternoon): three wrong
# verdicts mended, all in how a run under a positive control and --mutants are judged (no change
# on the recording or checking path). Here, against the last round's build (base/repro, the
# release build of 762a07d): the built-in chain's own cost, bench/overhead.sh --quick
# alternating; each shipped file with a barrier under --barrier none by each build, with the
# exit status, the verdict, the control's line and the JSON verdict.kind (control_caught only
# where no line says BUG REPRODUCED); and --mutants --repeat 10 by the new build on two files,
# which come out right as written on this driver, so their mutants run (none withheld). Needs
# .gl/, the release build (bench/h200-setup.sh) and base/repro. Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run, verdict
base=base/repro
quick_alternating "$base" >"$out/quick-alternating.txt" 2>&1
control_line() {  # build, then repro's arguments: exit status, verdict, control line, verdict.kind
    local text status kind
    text=$("$@" --json "$out/last.json" 2>&1)
    status=$?
    kind=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["verdict"]["kind"])' "$out/last.json" 2>&1 | tail -n 1)
    echo "exit $status | $(grep -E '^--- (NOT REPRODUCED|CONTROL CAUGHT|BUG REPRODUCED|GPU HANG)' <<<"$text" | head -n 1 | cut -c1-80)" \
        "| $(grep -E '^--- the control was' <<<"$text" | cut -c1-45) | kind $kind"
}
for f in scenarios/*.toml; do
    grep -q '^barrier = ' "$f" || continue
    n=$(basename "$f" .toml)
    echo "$n base: $(control_line "$base" --scenario "$f" --barrier none)"
    echo "$n new:  $(control_line "$bin" --scenario "$f" --barrier none)"
done >"$out/controls.txt" 2>&1
echo "chain -n 7 --barrier none new: $(control_line "$bin" -n 7 --barrier none)" >>"$out/controls.txt"
for n in kompute-196-increment-chain renderdoc-3899-fill-then-copy; do
    run "mutants-$n" --scenario "scenarios/$n.toml" --mutants --repeat 10 --mode all
    grep -E '^--- (mutants|mutation score)|^  mutant ' "$out/mutants-$n.txt" >>"$out/mutants.txt"
done
rm -f "$out/last.json"
cat "$out/quick-alternating.txt" "$out/controls.txt" "$out/mutants.txt"
