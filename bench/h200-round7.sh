#!/usr/bin/env bash
# Round 7 on the H200 (issue 22, and the job-control change after CI's Ctrl-Z failure):
#   - the built-in chain as the seed runs it (--mode multipass -n 7, and all modes): every
#     process now takes SIGTSTP/SIGCONT on a thread of its own, the child forked before any
#     Vulkan call as before;
#   - every shipped scenario, now run in the supervised child, with its JSON report, and the
#     reports merged (--merge-reports: the scenario column);
#   - --matrix on every shipped file without a second queue (the file, blade, full and the
#     two controls), and on the sensitivity scenario ten times: how often this driver's
#     execution-only and none controls are caught in one matrix row each;
#   - a Ctrl-Z stand-in: SIGTSTP to repro, then SIGCONT, during a sweep on the GPU (this part
#     ran as a second call: its first version's sweep of the small preset ended before the
#     signal).
# For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
run builtin-multipass-n7 --mode multipass -n 7
run builtin-all-n7 -n 7 --json "$out/builtin-all-n7.json"
for f in scenarios/*.toml; do
    name=$(basename "$f" .toml)
    run "scenario-$name" --scenario "$f" --json "$out/scenario-$name.json" >/dev/null
done
"$bin" --merge-reports "$out"/scenario-*.json "$out/builtin-all-n7.json" >"$out/merged.txt" 2>&1
echo "merge exit $?" >>"$out/merged.txt"
for f in scenarios/*.toml; do
    name=$(basename "$f" .toml)
    grep -q '^\[\[queue\]\]' "$f" && continue
    run "matrix-$name" --scenario "$f" --matrix --json "$out/matrix-$name.json" >/dev/null
done
for i in $(seq 1 10); do
    run "matrix-sensitivity-$i" --scenario scenarios/sensitivity-stale-read.toml --matrix >/dev/null
done
grep -h -- "--barrier execution-only (control)\|--barrier none (control)" "$out"/matrix-sensitivity-*.txt |
    sort | uniq -c >"$out/matrix-sensitivity-controls.txt"
stop_and_continue_during_sweep
cat "$out/merged.txt" "$out/matrix-sensitivity-controls.txt"
