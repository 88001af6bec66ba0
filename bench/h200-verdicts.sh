#!/usr/bin/env bash
# The H200 figures of the engine and verdicts round (bench/RESULTS.md, "Round of issues 20
# to 23"): the seed's N = 6 and N = 7 figures, --triage -n 7 (plain, and with the
# --drop-dispatch 3 positive control), and the peak resident set of the full-size
# --check-steps --reference cpu at N = 20 and N = 100 (bench/rss.sh). For the lent machine
# (Ubuntu 24.04, NVIDIA's driver, no Vulkan loader): unpacks the loader carried in .gl/,
# needs the release build at build/release/src/repro and python3. Writes under $OUT.
#   bash bench/h200-verdicts.sh [seed|triage|rss|all]
set -uo pipefail
what="${1:-all}"
source bench/h200-setup.sh  # $out, $bin, run
if [[ $what == seed || $what == all ]]; then
    run seed-n6 --mode all -n 6
    run seed-n7 --mode all -n 7
    grep -h "mode=" "$out"/seed-n6.txt "$out"/seed-n7.txt
fi
if [[ $what == triage || $what == all ]]; then
    run triage-n7 --triage -n 7 --json "$out/triage-n7.json"
    run triage-n7-control --triage -n 7 --drop-dispatch 3 --json "$out/triage-n7-control.json"
    grep -h "conclusion" "$out"/triage-n7*.txt
fi
if [[ $what == rss || $what == all ]]; then
    OUT="$out/rss" bash bench/rss.sh "$bin" "20 100" | tee "$out/rss.txt"
fi
