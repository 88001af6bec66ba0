#!/usr/bin/env bash
# Round 8 on the H200 (issue 22): blade #356 as a scenario file, and --triage on a scenario.
#   - scenarios/blade-356-conv-t-slice-chain.toml: every mode (JSON report), --validation,
#     --repeat 200, --matrix, and the built-in chain at its shape (--preset small -n 3);
#   - its --print-stream against the built-in's, mode by mode, compared as
#     e2e.EveryMode/ScenarioBlade356.* compares them (the submits between repro's own first
#     and last, "(not blade's)" lines left out): stream-compare.txt;
#   - --triage on every shipped file (a correct driver: the baseline alone, "not reproduced"),
#     with its JSON report;
#   - every shipped scenario once more (17 files) with this build;
#   - the final job-control handlers (round 7 ran an earlier, thread-based version on this
#     machine): SIGTSTP to repro during a sweep, then SIGCONT, three times;
#   - bench/overhead.sh --scenario on the blade #356 file.
# For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
blade=scenarios/blade-356-conv-t-slice-chain.toml
run blade-file --scenario "$blade" --json "$out/blade-file.json"
run blade-file-validation --scenario "$blade" --validation
run blade-file-repeat --scenario "$blade" --repeat 200
run blade-file-matrix --scenario "$blade" --matrix
run builtin-small-n3 --preset small -n 3
for mode in split multipass single; do
    "$bin" --preset small -n 3 --mode "$mode" --print-stream >"$out/stream-builtin-$mode.txt" 2>&1
    "$bin" --scenario "$blade" --mode "$mode" --print-stream >"$out/stream-file-$mode.txt" 2>&1
    python3 - "$mode" "$out/stream-builtin-$mode.txt" "$out/stream-file-$mode.txt" >>"$out/stream-compare.txt" <<'PY'
import sys
def submits(path):
    text = open(path).read()
    text = text[text.index("## mode"):]
    out, cur = [], ""
    for line in text.splitlines():
        if line.startswith("vkBeginCommandBuffer"):
            cur = ""
        if "(not blade's)" not in line:
            cur += line + "\n"
        if line.startswith("vkWaitSemaphores"):
            out.append(cur)
    return out
mode, builtin, scenario = sys.argv[1], submits(sys.argv[2]), submits(sys.argv[3])
same = len(scenario) == len(builtin) + 1 and builtin[1:] == scenario[1:-1]
calls = sum(s.count("\n") for s in builtin[1:])
print(f"{mode}: {'identical' if same else 'DIFFERENT'}: {len(builtin) - 1} blade submit(s), {calls} lines")
PY
done
for f in scenarios/*.toml; do
    name=$(basename "$f" .toml)
    run "triage-$name" --scenario "$f" --triage --json "$out/triage-$name.json" >/dev/null
    run "scenario-$name" --scenario "$f" --json "$out/scenario-$name.json" >/dev/null
done
grep -h "^--- conclusion" "$out"/triage-*.txt | sort | uniq -c >"$out/triage-conclusions.txt"
for f in "$out"/scenario-*.txt; do echo "$(basename "$f" .txt): $(grep -c '^--- NOT REPRODUCED' "$f") $(tail -n 1 "$f")"; done \
    >"$out/verdicts-of-the-scenarios.txt"
stop_and_continue_during_sweep
bench/overhead.sh --scenario "$blade" "$bin" >"$out/overhead-blade-file.txt" 2>&1
cat "$out/stream-compare.txt" "$out/triage-conclusions.txt" "$out/verdicts-of-the-scenarios.txt" "$out/overhead-blade-file.txt"
