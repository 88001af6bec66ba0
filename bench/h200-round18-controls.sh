#!/usr/bin/env bash
# Round 18, second call (issue 34): the shipped files' --barrier none controls race, so one run
# each (bench/h200-round18.sh) catches some and not others by chance. Here each control runs
# `--mode single --repeat 20` under both builds in turn, so the rates compare; then the built-in
# chain at the blade file's size (-n 3, preset small) and the blade file alternate through
# bench/overhead.sh --quick three times each. Needs what h200-round18.sh needs. Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, verdict, chain_vs_file_alternating
base=base/repro
for f in scenarios/*.toml; do
    grep -q '^barrier = ' "$f" || continue
    n=$(basename "$f" .toml)
    for build in "$base" "$bin"; do
        echo "$n $build: $(verdict "$build" --scenario "$f" --barrier none --mode single --repeat 20)"
    done
done >"$out/controls-repeat-20.txt" 2>&1
chain_vs_file_alternating "$base" >"$out/small3-vs-blade-file-alternating.txt" 2>&1
cat "$out/controls-repeat-20.txt" "$out/small3-vs-blade-file-alternating.txt"
