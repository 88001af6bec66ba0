#!/usr/bin/env bash
# Round 8, second part, on the H200: the blade #356 file at the full (spectrostream) shape,
# made from scenarios/blade-356-conv-t-slice-chain.toml by changing its shape and the buffer
# sizes that shape needs (small 14745600 bytes, weight 786432, big 30537728): every mode with
# --timestamps, the built-in chain at the same shape and N for comparison, and
# bench/overhead.sh --scenario on it (the first attempt found the crash at exit that
# e2e.ScenarioBlade356.AFullSizeChainInputDoesNotCrashTheChildAtExit now pins).
# For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
full=$(blade_file_at_full_size)
run full-size-file --scenario "$full" --timestamps --json "$out/full-size-file.json"
run full-size-file-repeat --scenario "$full" --repeat 20
run builtin-full-n3 -n 3 --timestamps
bench/overhead.sh --scenario "$full" "$bin" >"$out/overhead-full-size-file.txt" 2>&1
echo "exit $?" >>"$out/overhead-full-size-file.txt"
bench/overhead.sh --quick "$bin" >"$out/overhead-builtin-quick.txt" 2>&1
echo "exit $?" >>"$out/overhead-builtin-quick.txt"
cat "$out/overhead-full-size-file.txt" "$out/overhead-builtin-quick.txt"
