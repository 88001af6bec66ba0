#!/usr/bin/env bash
# Round 9 on the H200: a scenario's buffers made once per scenario and reset before each mode
# (vk::ScenarioBuffers), the checked buffers' host copies made while the GPU runs, the CPU
# model skipped when nothing is compared with it, and chain-input computed on the worker
# pool. The blade #356 file at the full (spectrostream) shape, made as
# bench/h200-round8-full-size.sh makes it: bench/overhead.sh --scenario on it (round 8
# measured 59.5 % / 55.2 % and, over --repeat 20, 48.2 % / 47.8 %); the built-in chain's
# --quick on the same machine at -n 7 and at the file's length, -n 3; every mode with
# --timestamps, and --repeat 20 (the verdicts with buffers reused); then every shipped
# scenario's --mode all --repeat 3 (its documented verdict with buffers reused, on a GPU).
# For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
full=$(blade_file_at_full_size)
bench/overhead.sh --scenario "$full" "$bin" >"$out/overhead-full-size-file.txt" 2>&1
echo "exit $?" >>"$out/overhead-full-size-file.txt"
bench/overhead.sh --quick "$bin" >"$out/overhead-builtin-quick.txt" 2>&1
echo "exit $?" >>"$out/overhead-builtin-quick.txt"
bench/overhead.sh --quick -n 3 "$bin" >"$out/overhead-builtin-quick-n3.txt" 2>&1
echo "exit $?" >>"$out/overhead-builtin-quick-n3.txt"
cat "$out/overhead-full-size-file.txt" "$out/overhead-builtin-quick.txt" "$out/overhead-builtin-quick-n3.txt"
run full-size-file --scenario "$full" --timestamps --json "$out/full-size-file.json"
run full-size-file-repeat --scenario "$full" --repeat 20
for f in scenarios/*.toml; do
    n=$(basename "$f" .toml)
    echo "$n: $(run "scenario-$n" --scenario "$f" --mode all --repeat 3)"
done | tee "$out/verdicts-of-the-scenarios.txt"
