#!/usr/bin/env bash
# Round 18 on the lent GPU (H200 or H100), issue 34 (src/ made smaller by consolidation, no
# change of behaviour meant): the built-in chain's own cost against the build before the
# consolidations (base/repro, the release build of 708edf2, carried beside the new one), the
# shipped blade file's own cost against the built-in chain at its size (-n 3, preset small),
# all by bench/overhead.sh; then every shipped file once and, where it has a barrier, with
# --barrier none (its control), by both builds: the verdicts must be the same.
# For the lent machine: needs .gl/, the release build (bench/h200-setup.sh) and base/repro.
# Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run, verdict
base=base/repro
# Quick runs of the two builds in turn, then the full figures.
quick_alternating "$base" >"$out/quick-alternating.txt" 2>&1
bench/overhead.sh --preset small -n 3 "$bin" >"$out/overhead-small-3.txt" 2>&1
bench/overhead.sh --scenario scenarios/blade-356-conv-t-slice-chain.toml "$bin" >"$out/overhead-blade-file.txt" 2>&1
for f in scenarios/*.toml; do
    n=$(basename "$f" .toml)
    echo "$n: base $(verdict "$base" --scenario "$f") | new $(verdict "$bin" --scenario "$f")"
    if grep -q '^barrier = ' "$f"; then
        echo "$n --barrier none: base $(verdict "$base" --scenario "$f" --barrier none) | new $(verdict "$bin" --scenario "$f" --barrier none)"
    fi
done >"$out/files.txt" 2>&1
echo "chain -n 7: base $(verdict "$base" -n 7) | new $(verdict "$bin" -n 7)" >>"$out/files.txt"
cat "$out/quick-alternating.txt" "$out/overhead-small-3.txt" "$out/overhead-blade-file.txt" "$out/files.txt"
