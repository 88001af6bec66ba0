#!/usr/bin/env bash
# Round 15 on the lent GPU (H200 or H100), issue 35 §3 and §4 (R14): repro's canary after
# every mode, and --repeat folded. Every shipped file once (each must exit 0, every mode's
# canary VK_SUCCESS); the built-in chain at the default size with --trace, whose "canary
# submit" slices give the canary's cost per mode; bench/repeat-rss.sh at 20, 200 and 1000 runs
# (peak RSS flat); last, the count of "BUG REPRODUCED" in every output: 0 on a correct driver.
# For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
for f in scenarios/*.toml; do
    n=$(basename "$f" .toml)
    echo "$n: $(run "file-$n" --scenario "$f" --json "$out/file-$n.json")"
done >"$out/files.txt" 2>&1
run chain-n7 -n 7 --mode all --json "$out/chain-n7.json" --trace "$out/chain-n7.trace.json" >/dev/null
run chain-small-repeat --preset small -n 3 --repeat 30 --json "$out/chain-small-repeat.json" >/dev/null
OUT="$out/rss" bench/repeat-rss.sh "$bin" "20 200 1000" --preset small -n 3 --mode single >"$out/repeat-rss.txt" 2>&1
cat "$out/version.txt" "$out/list-devices.txt" | head -8
cat "$out/files.txt"
python3 - "$out" <<'PY'
import glob, json, sys
out = sys.argv[1]
results = {}
for p in sorted(glob.glob(out + "/*.json")):
    if p.endswith(".trace.json"):
        continue
    try:
        d = json.load(open(p))
    except Exception as e:
        print(p, "unreadable", e)
        continue
    for m in d.get("modes", []):
        results[m.get("canary")] = results.get(m.get("canary"), 0) + 1
    if d.get("folded_runs"):
        print(p.split("/")[-1], "folded_runs", d["folded_runs"])
print("canary results over every mode run of every report:", results)
t = json.load(open(out + "/chain-n7.trace.json"))
events = t["traceEvents"] if isinstance(t, dict) else t
canary = [e["dur"] for e in events if e.get("name", "").startswith("canary submit")]
modes = [e for e in events if e.get("cat") == "mode"]
print("chain -n 7 --mode all: canary slices (us):", canary)
for m in modes:
    print("  mode slice", m.get("name"), "dur_us", m.get("dur"))
PY
cat "$out/repeat-rss.txt"
grep -E '^--- |exit [0-9]+ after' "$out/chain-n7.txt" "$out/chain-small-repeat.txt" | cut -c1-250
echo "BUG REPRODUCED lines in every output: $(cat "$out"/*.txt | grep -c 'BUG REPRODUCED')"
