#!/usr/bin/env bash
# Round 23, on the lent GPU machine. base: round 21's code (c5c19f7, its release build carried
# as base/repro); new: $bin. What it measures:
# 1. the command buffer naming fix (82290f0) on the GPU: bench/h200-round22-names.sh, which no
#    machine could start for in round 22 ($out/names.txt, $out/streams.txt);
# 2. the blade file's own cost against the built-in chain's at its size for the same work,
#    alternated three rounds by each build: the chain (split its reference) against the file
#    with --reference split, and the chain with --reference cpu against the file as written
#    (the CPU model and split) ($out/same-work-alternating.txt);
# 3. the built-in chain's own cost at full size, -n 7, the builds in turn (quick_alternating,
#    $out/quick-alternating.txt);
# 4. the blade file under an openssl.cnf naming a provider that is not installed, by each build
#    (base aborted with exit 134: 2efbd27) ($out/openssl-conf.txt).
# Needs .gl/ (the loader), base/repro and build/release/src/repro. Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, quick_alternating
base=base/repro
blade=scenarios/blade-356-conv-t-slice-chain.toml
OUT="$out" bash bench/h200-round22-names.sh >/dev/null 2>&1

for round in 1 2 3; do
    for build in "$base" "$bin"; do
        for form in "chain split|--preset small -n 3" "file split|--scenario $blade --reference split" \
            "chain cpu|--preset small -n 3 --reference cpu" "file as-written|--scenario $blade"; do
            read -ra args <<<"${form#*|}"
            bench/overhead.sh --quick "${args[@]}" "$build" | sed -n 3p | sed "s|^|$build ${form%%|*} $round |"
        done
    done
done >"$out/same-work-alternating.txt" 2>&1

quick_alternating "$base" >"$out/quick-alternating.txt" 2>&1

conf="$out/openssl.cnf"
printf 'openssl_conf = init\n[init]\nproviders = providers\n[providers]\nnot_installed = not_installed\n[not_installed]\nactivate = 1\n' >"$conf"
for build in "$base" "$bin"; do
    echo "$build: $(OPENSSL_CONF=$conf verdict "$build" --scenario "$blade" --mode split)"
done >"$out/openssl-conf.txt" 2>&1
rm -f "$conf"
cat "$out/names.txt" "$out/streams.txt" "$out/same-work-alternating.txt" "$out/quick-alternating.txt" \
    "$out/openssl-conf.txt"
