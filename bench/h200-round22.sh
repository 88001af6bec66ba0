#!/usr/bin/env bash
# Round 22 on the lent GPU (H200 or H100), issue 34's stop of 2026-12-07 (night): src/ cut by
# about 330 lines with no change meant, and the child's call watcher now wraps every Vulkan call
# src/ makes (teardown's destroys and vkFreeMemory, the instrumentation's timestamps, markers and
# labels, the fault report). Here, against round 21's code (base/repro, the release build of
# c5c19f7):
#  - the built-in chain's own cost, bench/overhead.sh --quick, the builds alternating; and the
#    built-in chain at the blade file's size against the blade file, alternating;
#  - every shipped file as written, under --barrier none and under --barrier execution-only, by
#    each build: the exit status, the verdict, the control's line and the JSON verdict.kind;
#  - every file with --timestamps --labels --breadcrumbs by the new build (the calls newly
#    watched, on a real driver): the exit status and verdict, and any DRIVER CRASH line;
#  - each file's --print-stream --mode all under six barrier settings by each build: the same
#    line for line (no call was added to the tracer since base).
# Needs .gl/, the release build (bench/h200-setup.sh) and base/repro. Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, control_line, quick_alternating, files_by_both, ...
base=base/repro
quick_alternating "$base" >"$out/quick-alternating.txt" 2>&1
chain_vs_file_alternating "$base" >"$out/small3-vs-blade-file-alternating.txt" 2>&1
files_by_both "$base" >"$out/files.txt" 2>&1
echo "chain -n 7 new: $(control_line "$bin" -n 7)" >>"$out/files.txt"
for f in scenarios/*.toml "-n 7"; do
    if [[ $f == -n* ]]; then
        args=(-n 7) label="chain -n 7"
    else
        args=(--scenario "$f") label=$(basename -- "$f" .toml)
    fi
    text=$("$bin" "${args[@]}" --mode all --timestamps --labels --breadcrumbs 2>&1)
    status=$?
    echo "$label: exit $status $(grep -E '^--- (NOT|BUG|CONTROL|GPU|CANNOT|DRIVER)' <<<"$text" | head -n 1 | cut -c1-90)" \
        "| crash lines $(grep -c 'DRIVER CRASH' <<<"$text")"
done >"$out/instrumented.txt" 2>&1
streams_by_both "$base" >"$out/streams.txt"
cat "$out/quick-alternating.txt" "$out/small3-vs-blade-file-alternating.txt" "$out/files.txt" \
    "$out/instrumented.txt" "$out/streams.txt"
