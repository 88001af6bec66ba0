#!/usr/bin/env bash
# Round 13 on the lent GPU (H200 or H100), issue 34 (one engine): the built-in chain's own cost
# against the build before the engine (base/repro, f6a097e, carried beside the new one), and
# the shipped blade file's own cost against the built-in chain at its size (-n 3, preset
# small), all by bench/overhead.sh; then every shipped file once (its verdict on this GPU
# through the one engine) and with --barrier none where it has a barrier (the control).
# For the lent machine: needs .gl/, the release build (bench/h200-setup.sh) and base/repro.
# Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
base=base/repro
# Quick runs of the two builds in turn, then the full figures.
quick_alternating "$base" >"$out/quick-alternating.txt" 2>&1
bench/overhead.sh "$bin" >"$out/overhead-builtin.txt" 2>&1
bench/overhead.sh --preset small -n 3 "$bin" >"$out/overhead-small-3.txt" 2>&1
bench/overhead.sh --scenario scenarios/blade-356-conv-t-slice-chain.toml "$bin" >"$out/overhead-blade-file.txt" 2>&1
for f in scenarios/*.toml; do
    n=$(basename "$f" .toml)
    echo "$n: $(run "file-$n" --scenario "$f" --json "$out/file-$n.json")"
    if grep -q '^barrier = ' "$f"; then
        echo "$n --barrier none: $(run "none-$n" --scenario "$f" --barrier none)"
    fi
done >"$out/files.txt" 2>&1
# The race in a file (issue 35 §1): eight in-place increments of one buffer, no barrier between
# them, in single. The build before the check runs it (a race a GPU may lose updates in); this
# build refuses it (exit 1); the same race labelled a control runs as one.
"$base" --scenario tests/scenarios/race-repeated-increments.toml --mode single --repeat 20 >"$out/race-base.txt" 2>&1
echo "exit $?" >>"$out/race-base.txt"
run race-new --scenario tests/scenarios/race-repeated-increments.toml --mode single
run race-control --scenario tests/scenarios/race-labelled-control.toml --mode single --repeat 20
cat "$out/quick-alternating.txt" "$out/overhead-builtin.txt" "$out/overhead-blade-file.txt" "$out/files.txt"
tail -n 4 "$out/race-base.txt" "$out/race-new.txt" "$out/race-control.txt"
