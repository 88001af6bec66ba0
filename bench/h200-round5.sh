#!/usr/bin/env bash
# The H200 figures of the round of issues 21 to 23 (bench/RESULTS.md, "Round of issues 21
# to 23"): the seed's N = 6 and N = 7 figures and --triage -n 7 (unchanged from the last
# round), a --trace of --mode all -n 7 with --timestamps (issue 23, item 5), the Markdown
# report of the same run (issue 23, item 1), and every shipped scenario (issue 22).
# For the lent machine (Ubuntu 24.04, NVIDIA's driver, no Vulkan loader): unpacks the loader
# carried in .gl/, needs the release build at build/release/src/repro. Writes under $OUT.
#   bash bench/h200-round5.sh
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
run seed-n6 --mode all -n 6
run seed-n7 --mode all -n 7
grep -h "mode=" "$out"/seed-n6.txt "$out"/seed-n7.txt
run trace-n7 --mode all -n 7 --timestamps --trace "$out/trace-n7.json" --format markdown -o "$out/report-n7.md" \
    --json "$out/report-n7.json"
run triage-n7 --triage -n 7 --json "$out/triage-n7.json"
grep -h "conclusion" "$out"/triage-n7.txt
for f in scenarios/*.toml; do
    name=$(basename "$f" .toml)
    run "scenario-$name" --scenario "$f"
done
