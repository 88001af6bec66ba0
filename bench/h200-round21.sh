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
# Needs .gl/, the release build (bench/h200-setup.sh) and base/repro. Writes $OUT. (The committed
# streams.txt came from this script before its loop moved into streams_by_both: the same
# comparison, its summary then one line.)
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, control_line, quick_alternating, files_by_both, streams_by_both
base=base/repro
quick_alternating "$base" >"$out/quick-alternating.txt" 2>&1
files_by_both "$base" >"$out/files.txt" 2>&1
echo "chain -n 7 new: $(control_line "$bin" -n 7)" >>"$out/files.txt"
# the new build adds the calls the tracer did not see before; everything else is the same
streams_by_both "$base" '^  vkCmd(PushConstants|DispatchIndirect|UpdateBuffer)\(' >"$out/streams.txt"
transfers=$("$bin" --scenario scenarios/compute-copy-on-a-second-queue.toml --print-stream --mode all 2>&1 | grep -cE '# (release|acquire) ')
echo "compute-copy-on-a-second-queue: $transfers ownership transfer lines" >>"$out/streams.txt"
"$bin" --scenario scenarios/indirect-args-written-by-a-dispatch.toml --print-stream --mode single 2>&1 |
    grep -E 'vkCmd(PushConstants|DispatchIndirect)' >>"$out/streams.txt"
cat "$out/quick-alternating.txt" "$out/files.txt" "$out/streams.txt"
