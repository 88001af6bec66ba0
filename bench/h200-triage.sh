#!/usr/bin/env bash
# The H200 figures of the triage work: --triage (plain and with a positive control), --watchdog-probe,
# the per-dispatch bound with REPRO_STEP_CHECK=exact, the matrix and bench/overhead.sh. Run on the
# device machine from the checkout with .gl/ (the Vulkan loader debs) and a release build:
#   OUT=dir bash bench/h200-triage.sh
set -u
OUT="${OUT:-h200-out}"; mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
b=build/release/src/repro
"$b" --list-devices >/dev/null 2>&1 || export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
# t NAME COMMAND...: runs it, output in "$OUT"/NAME.txt, its exit status and wall time in times.txt.
t() {
    local name=$1 start=$EPOCHREALTIME rc
    shift
    "$@" >"$OUT/$name.txt" 2>&1
    rc=$?
    awk -v n="$name" -v rc="$rc" -v s="$start" -v e="$EPOCHREALTIME" \
        'BEGIN { printf "%s exit %d wall %.2f s\n", n, rc, e - s }' | tee -a "$OUT/times.txt"
}
t header "$b" --mode multipass -n 7
t triage "$b" --triage -n 7 --json "$OUT"/triage.json
t triage-control "$b" --triage -n 7 --drop-dispatch 3 --json "$OUT"/triage-control.json
t probe "$b" --watchdog-probe
t step-exact env REPRO_STEP_CHECK=exact "$b" --mode split -n 7 --check-steps
t matrix "$b" --matrix -n 7
bash bench/overhead.sh "$b" >"$OUT"/overhead.txt 2>&1
cat "$OUT"/times.txt; tail -12 "$OUT"/overhead.txt
