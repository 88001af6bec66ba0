#!/usr/bin/env bash
# Round 22, second call: round 22's streams differed between the builds only in a command
# buffer's name (compute-copy-on-a-second-queue: cb1 by base, cb2 by new, in 4 of 6 barrier
# settings), and a rerun of that file by each build printed cb2 every time: the name followed
# whether the driver handed the destroyed pool's handle to the next mode's command buffer. The
# tracer now names command buffers at allocation (82290f0). Here: that file's --print-stream
# --mode all, five times under each of six barrier settings by each build, the count of
# distinct streams per setting and build; then every file's streams by both builds
# (streams_by_both), where only that file may differ, and only in command buffer names.
# Needs what h200-round22.sh needs. Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, streams_by_both
base=base/repro
f=scenarios/compute-copy-on-a-second-queue.toml
for barrier in "" none execution-only full buffer sync2; do
    extra=()
    [[ -n $barrier ]] && extra=(--barrier "$barrier")
    for build in "$base" "$bin"; do
        sums=$(for _ in 1 2 3 4 5; do
            "$build" --scenario "$f" "${extra[@]}" --print-stream --mode all 2>&1 | grep -v '^repro .* (git ' | md5sum
        done | sort -u | wc -l)
        echo "${barrier:-as-written} $build: $sums distinct stream(s) in 5 runs"
    done
done >"$out/names.txt" 2>&1
streams_by_both "$base" >"$out/streams.txt"
# the differences once command buffer names are left out of both
"$base" --scenario "$f" --print-stream --mode all 2>&1 | grep -v '^repro .* (git ' | sed -E 's/cb[0-9]+/cbN/g' >"$out/base-unnamed.txt"
"$bin" --scenario "$f" --print-stream --mode all 2>&1 | grep -v '^repro .* (git ' | sed -E 's/cb[0-9]+/cbN/g' >"$out/new-unnamed.txt"
echo "compute-copy-on-a-second-queue as written, command buffer names left out: $(diff -q "$out/base-unnamed.txt" "$out/new-unnamed.txt" >/dev/null && echo identical || echo differ)" >>"$out/streams.txt"
rm -f "$out/base-unnamed.txt" "$out/new-unnamed.txt"
cat "$out/names.txt" "$out/streams.txt"
