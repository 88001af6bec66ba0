#!/usr/bin/env bash
# The H200 figures of the round of issues 21 to 23 (bench/RESULTS.md, "Round of issues 21
# to 23"): the seed's N = 6 and N = 7 figures and --triage -n 7 (unchanged from the last
# round), a --trace of --mode all -n 7 with --timestamps (issue 23, item 5), the Markdown
# report of the same run (issue 23, item 1), and every shipped scenario (issue 22).
# For the lent machine (Ubuntu 24.04, NVIDIA's driver, no Vulkan loader): unpacks the loader
# carried in .gl/, needs the release build at build/release/src/repro. Writes under $OUT.
#   bash bench/h200-round5.sh
set -uo pipefail
out="${OUT:-h200-out}"
mkdir -p "$out"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
bin=build/release/src/repro
if ! "$bin" --list-devices >"$out/list-devices.txt" 2>&1; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    "$bin" --list-devices >"$out/list-devices.txt" 2>&1
fi
"$bin" --version >"$out/version.txt" 2>&1
run() {  # name, then repro's arguments: the text output and the exit status
    local name="$1"; shift
    local t0=$SECONDS
    "$bin" "$@" >"$out/$name.txt" 2>&1
    echo "exit $? after $((SECONDS - t0)) s: repro $*" >>"$out/$name.txt"
    tail -n 1 "$out/$name.txt"
}
run seed-n6 --mode all -n 6
run seed-n7 --mode all -n 7
grep -h "mode=" "$out"/seed-n6.txt "$out"/seed-n7.txt
run trace-n7 --mode all -n 7 --timestamps --trace "$out/trace-n7.json" --format markdown -o "$out/report-n7.md" \
    --json "$out/report-n7.json"
run triage-n7 --triage -n 7 --json "$out/triage-n7.json"
grep -h "conclusion" "$out"/triage-n7.txt
for f in scenarios/*.toml; do
    name=$(basename "$f" .toml)
    run "scenario-$name" --scenario "$f"
done
