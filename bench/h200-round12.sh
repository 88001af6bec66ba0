#!/usr/bin/env bash
# Round 12 on the H200: the built-in matrix's submit-structure and work factors on a scenario
# (docs/scenarios.md "--matrix on a scenario": rows submit-every=2 and work x4) and
# --submit-every K itself. Every shipped file's --matrix (which rows each keeps, and whether a
# control is caught with the new rows present), kompute-196 and llama-cpp-21724 with
# --submit-every over 20 runs, and the work row's GPU time against the file's (--timestamps
# on a copy of kompute-196 with every dispatch's work = 2000, then 8000).
# For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
for f in scenarios/*.toml; do
    n=$(basename "$f" .toml)
    echo "$n: $(run "matrix-$n" --scenario "$f" --matrix --json "$out/matrix-$n.json")"
done | tee "$out/matrices.txt"
run submit-every-kompute --scenario scenarios/kompute-196-increment-chain.toml --submit-every 1 --repeat 20
run submit-every-llama --scenario scenarios/llama-cpp-21724-many-dispatches.toml --submit-every 10 --repeat 20
for work in 2000 8000; do
    sed "s/^bindings = \[\"data\"\]$/bindings = [\"data\"]\nwork = $work/" \
        scenarios/kompute-196-increment-chain.toml >"$out/kompute-work-$work.toml"
    run "work-$work" --scenario "$out/kompute-work-$work.toml" --timestamps
    grep "GPU time" "$out/work-$work.txt"
done
