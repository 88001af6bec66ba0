#!/usr/bin/env bash
# The H200 figures of the scenarios (issue 22; bench/RESULTS.md, "Scenarios on the H200"):
# every shipped scenario once in the three modes (with its JSON report) and once in single
# under the validation layer (carried in .gl/ as vulkan-validationlayers), and the
# sensitivity study of
# scenarios/sensitivity-stale-read.toml: K runs of single (default 200) with the file's own
# barrier, each valid --barrier (full, blade) and the two controls (execution-only, none),
# printed as a table of wrong runs. For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
#   bash bench/h200-scenarios.sh [K]
set -uo pipefail
runs="${1:-200}"
source bench/h200-setup.sh  # $out, $bin, run
for f in scenarios/*.toml; do
    name=$(basename "$f" .toml)
    run "scenario-$name" --scenario "$f" --json "$out/scenario-$name.json"
    run "validation-$name" --scenario "$f" --mode single --validation >/dev/null
done
echo "| barrier | wrong runs of single | exit |"
echo "|---|---|---|"
file=scenarios/sensitivity-stale-read.toml
for barrier in own full blade execution-only none; do
    args=(--scenario "$file" --mode single --repeat "$runs")
    [[ $barrier == own ]] || args+=(--barrier "$barrier")
    run "sensitivity-$barrier" "${args[@]}" >/dev/null
    wrong=$(grep -o "wrong in [0-9]* of [0-9]* runs" "$out/sensitivity-$barrier.txt" | head -1)
    status=$(tail -n 1 "$out/sensitivity-$barrier.txt" | awk '{print $2}')
    echo "| $barrier | ${wrong:-no count (see sensitivity-$barrier.txt)} | $status |"
done
