#!/usr/bin/env bash
# Round 21 on the lent GPU (H200 or H100), issue 34's stop of 2026-12-07 (evening): line cuts
# with no change meant, two of them on the recording path of scenario files (a file's sync1
# barriers and ownership transfers through vk/barriers.hpp's helpers; image pipelines made in one
# loop); and the tracer now sees vkCmdDispatchIndirect, vkCmdPushConstants and vkCmdUpdateBuffer
# (before, --print-stream left them out of the stream and let them reach the driver, where an
# indirect dispatch after a swallowed pipeline bind crashed NVIDIA's driver). Here, against the
# last round's code (base/repro, the release build of 4c9e331):
#  - the built-in chain's own cost, bench/overhead.sh --quick alternating;
#  - every shipped file as written, under --barrier none and under --barrier execution-only, by
#    each build: the exit status, the verdict, the control's line and the JSON verdict.kind;
#  - each file's --print-stream --mode all under six barrier settings by each build, compared but
#    for the added calls, with the DRIVER CRASH lines counted (on this device a second queue has a
#    family of its own, so ownership transfers are recorded, which lavapipe's one family never does).
# Needs .gl/, the release build (bench/h200-setup.sh) and base/repro. Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, control_line, quick_alternating
base=base/repro
quick_alternating "$base" >"$out/quick-alternating.txt" 2>&1
for f in scenarios/*.toml; do
    n=$(basename "$f" .toml)
    for barrier in "" none execution-only; do
        extra=()
        [[ -n $barrier ]] && extra=(--barrier "$barrier")
        grep -q '^barrier = ' "$f" || [[ -z $barrier ]] || continue
        echo "$n ${barrier:-as-written} base: $(control_line "$base" --scenario "$f" "${extra[@]}")"
        echo "$n ${barrier:-as-written} new:  $(control_line "$bin" --scenario "$f" "${extra[@]}")"
    done
done >"$out/files.txt" 2>&1
echo "chain -n 7 new: $(control_line "$bin" -n 7)" >>"$out/files.txt"
compared=0 differ=0 crashed_base=0 crashed_new=0
for f in scenarios/*.toml; do
    for barrier in "" none execution-only full buffer sync2; do
        extra=()
        [[ -n $barrier ]] && extra=(--barrier "$barrier")
        "$base" --scenario "$f" "${extra[@]}" --print-stream --mode all 2>&1 | grep -v '^repro .* (git ' >"$out/stream-base.txt"
        "$bin" --scenario "$f" "${extra[@]}" --print-stream --mode all 2>&1 | grep -v '^repro .* (git ' >"$out/stream-new.txt"
        grep -q 'DRIVER CRASH' "$out/stream-base.txt" && crashed_base=$((crashed_base + 1))
        grep -q 'DRIVER CRASH' "$out/stream-new.txt" && crashed_new=$((crashed_new + 1))
        compared=$((compared + 1))
        # the new build adds the calls the tracer did not see before; everything else is the same
        grep -vE '^  vkCmd(PushConstants|DispatchIndirect|UpdateBuffer)\(' "$out/stream-new.txt" >"$out/stream-new-old-calls.txt"
        cmp -s "$out/stream-base.txt" "$out/stream-new-old-calls.txt" || {
            differ=$((differ + 1))
            echo "differs: $f ${barrier:-as written}"
            diff "$out/stream-base.txt" "$out/stream-new-old-calls.txt" | head -n 6
        }
    done
done >"$out/streams.txt"
transfers=$("$bin" --scenario scenarios/compute-copy-on-a-second-queue.toml --print-stream --mode all 2>&1 | grep -cE '# (release|acquire) ')
echo "--print-stream: $compared compared, $differ differ but for the added calls; DRIVER CRASH in $crashed_base (base)" \
    "and $crashed_new (new); compute-copy-on-a-second-queue: $transfers ownership transfer lines" >>"$out/streams.txt"
"$bin" --scenario scenarios/indirect-args-written-by-a-dispatch.toml --print-stream --mode single 2>&1 |
    grep -E 'vkCmd(PushConstants|DispatchIndirect)' >>"$out/streams.txt"
rm -f "$out"/stream-*.txt
cat "$out/quick-alternating.txt" "$out/files.txt" "$out/streams.txt"
