#!/usr/bin/env bash
# What the CPU chain of a scenario costs (docs/scenarios.md "conv-t and slice in the CPU
# model"), in two figures:
#   1. the CPU chain alone at the full shape for the blade file's depth (small[3]):
#      cpu_reference_bench 3 0 stepper, wall seconds and multiply-adds per second, beside
#      --reference auto's bound (2^32 multiply-adds);
#   2. the blade file (scenarios/blade-356-conv-t-slice-chain.toml, shape small) run RUNS times
#      each with --reference cpu and --reference split on the first device (lavapipe where
#      there is no GPU), interleaved: the median wall seconds, and the median of the JSON
#      report's verification phase (which includes any wait for the CPU chain).
#
# Usage: bench/scenario_chain.sh [BUILD_DIR [RUNS]]   BUILD_DIR defaults to build/release,
# RUNS to 5. Needs BUILD_DIR/src/repro and BUILD_DIR/bench/cpu_reference_bench, and python3.
set -euo pipefail

build="${1:-build/release}"
runs="${2:-5}"
repro="$build/src/repro"
bench="$build/bench/cpu_reference_bench"
for f in "$repro" "$bench"; do
    if [[ ! -x "$f" ]]; then
        echo "scenario_chain.sh: $f not found; build it first:" \
             "cmake --build $build --target repro cpu_reference_bench" >&2
        exit 1
    fi
done

cpu_model="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)"
echo "machine: ${cpu_model:-unknown CPU}, $(nproc) CPUs"
"$bench" 3 0 stepper
echo "  --reference auto computes it up to 4.29e+09 multiply-adds (2^32)"

file=scenarios/blade-356-conv-t-slice-chain.toml
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for ((i = 0; i < runs; ++i)); do  # interleaved, so that a drift in the machine's load hits both
    for ref in cpu split; do
        start=$(date +%s.%N)
        "$repro" --scenario "$file" --reference "$ref" --json "$tmp/$ref-$i.json" >/dev/null
        end=$(date +%s.%N)
        echo "$start $end" >"$tmp/$ref-$i.wall"
    done
done
python3 - "$tmp" "$runs" <<'PY'
import json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
print(f"blade file, shape small, --mode all, {runs} runs each:")
for ref in ("cpu", "split"):
    walls, verification = [], []
    for i in range(runs):
        start, end = map(float, open(f"{tmp}/{ref}-{i}.wall").read().split())
        walls.append(end - start)
        doc = json.load(open(f"{tmp}/{ref}-{i}.json"))
        verification.append(doc["timings"]["verification"])
    print(f"  --reference {ref:<5}  wall median {statistics.median(walls):.3f} s "
          f"(min {min(walls):.3f}, max {max(walls):.3f}); verification median "
          f"{statistics.median(verification) * 1e3:.2f} ms; verdict: {doc['verdict']['line'][:60]}...")
PY
