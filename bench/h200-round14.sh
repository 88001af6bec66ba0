#!/usr/bin/env bash
# Round 14 on the lent GPU (H200 or H100), issue 35 §1, §2 and §4: verdicts a driver developer
# can trust. Every shipped file once (each must exit 0: the one-queue race check refuses none),
# and under --barrier none where it has a barrier (a control: CONTROL CAUGHT or correct, never
# BUG REPRODUCED); the racing file refused (exit 1); the same race labelled a control, 20 runs
# (CONTROL CAUGHT when the GPU loses updates); --drop-dispatch on the built-in chain (CONTROL
# CAUGHT); a work loop of 65,536 rounds, which only lavapipe's loop limiter cuts (here: right).
# Last, the count of "BUG REPRODUCED" in every output: 0 on a correct driver.
# For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
for f in scenarios/*.toml; do
    n=$(basename "$f" .toml)
    echo "$n: $(run "file-$n" --scenario "$f")"
    if grep -q '^barrier = ' "$f"; then
        echo "$n --barrier none: $(run "none-$n" --scenario "$f" --barrier none --json "$out/none-$n.json")"
    fi
done >"$out/files.txt" 2>&1
run race --scenario tests/scenarios/race-repeated-increments.toml --mode single >/dev/null
run race-control --scenario tests/scenarios/race-labelled-control.toml --mode single --repeat 20 \
    --json "$out/race-control.json" >/dev/null
run drop-dispatch --preset small -n 3 --drop-dispatch 3 --json "$out/drop-dispatch.json" >/dev/null
cat >"$out/work-65536.toml" <<'TOML'
name = "work-65536"
source = "repro bench/h200-round14.sh"
pattern = "one work dispatch of 65536 rounds: past lavapipe's loop limiter, right elsewhere"
expected = "not reproduced"
check = ["data"]
[[buffer]]
name = "data"
bytes = 256
init = "iota"
[[step]]
dispatch = "work"
bindings = ["data"]
work = 65536
TOML
run work-65536 --scenario "$out/work-65536.toml" >/dev/null
cat "$out/version.txt" "$out/files.txt"
for n in race race-control drop-dispatch work-65536; do
    echo "== $n"
    grep -E '^--- |exit [0-9]+ after' "$out/$n.txt" | cut -c1-300
done
echo "BUG REPRODUCED lines in every output: $(cat "$out"/*.txt | grep -c 'BUG REPRODUCED')"
