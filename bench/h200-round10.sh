#!/usr/bin/env bash
# Round 10 on the H200: queue family ownership transfers (docs/scenarios.md "Queue family
# ownership"). scenarios/compute-copy-on-a-second-queue.toml puts its copy on a queue of
# family "other", which lands in a transfer-only family there (family 1, round 8): its
# buffers are exclusive, so each mode records their releases and acquires. The file's
# --print-stream (the transfers as recorded), every mode under the validation layer with
# synchronization validation (carried in .gl/ as vulkan-validationlayers), --repeat 100 and
# --timestamps (a pair around each command buffer on both queues); then the same with every
# buffer `sharing = "concurrent"` (no transfers); --matrix with its memory rows and
# --check-steps --repeat 20 on kompute-196; then every shipped scenario's --mode all (its
# documented verdict with the new race and wait-stage checks).
# For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
file=scenarios/compute-copy-on-a-second-queue.toml
concurrent="$out/compute-copy-concurrent.toml"
sed 's/^\[\[buffer\]\]$/[[buffer]]\nsharing = "concurrent"/' "$file" >"$concurrent"
for variant in exclusive concurrent; do
    f=$file
    [[ $variant == concurrent ]] && f=$concurrent
    run "$variant-stream" --scenario "$f" --print-stream
    echo "$variant: $(grep -c '^# release' "$out/$variant-stream.txt") releases," \
        "$(grep -c '^# acquire' "$out/$variant-stream.txt") acquires in the stream"
    run "$variant-validation" --scenario "$f" --validation
    run "$variant-repeat" --scenario "$f" --repeat 100 --json "$out/$variant-repeat.json"
    run "$variant-timestamps" --scenario "$f" --timestamps --json "$out/$variant-timestamps.json"
done
# --matrix's memory rows and --check-steps under --repeat on a real GPU
run matrix-kompute --scenario scenarios/kompute-196-increment-chain.toml --matrix
run check-steps-repeat --scenario scenarios/kompute-196-increment-chain.toml --check-steps --repeat 20
for f in scenarios/*.toml; do
    n=$(basename "$f" .toml)
    echo "$n: $(run "scenario-$n" --scenario "$f" --mode all)"
done | tee "$out/verdicts-of-the-scenarios.txt"
