#!/usr/bin/env bash
# Round 17 on the lent GPU (H200 or H100), issue 36: each shipped file's mutation score
# (repro --scenario FILE --mutants --repeat R: every barrier step and semaphore wait weakened one
# way at a time, each mutant a child of its own; docs/mutants.md) and the wrong-run count of
# the file's own valid run (--repeat R, every mode), without and with --stress. PASS=plain or
# PASS=stress picks the half; R defaults to 50; FILES (a list) picks files; a file is not started
# after BUDGET seconds (540), so that a call fits the lent machine's 10 minutes; JOBS files run at
# once (default 1; more share the one GPU, which is itself traffic: say so beside the figures).
# BUILTIN=N adds the built-in chain at -n N (default shape) as one more row, started first.
# Prints one row per file: file, mutants, killed, hung, not run, own run's wrong runs of its
# runs. For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
pass="${PASS:-plain}"
repeat="${R:-50}"
extra=()
[[ "$pass" == stress ]] && extra=(--stress)
t0=$SECONDS
if [[ -n "${BUILTIN:-}" ]]; then  # the built-in chain's own mutants (blade's G and C barriers) at -n $BUILTIN
    run "$pass-builtin-n$BUILTIN" -n "$BUILTIN" --mutants --repeat "$repeat" "${extra[@]}" -q \
        --json "$out/$pass-builtin-n$BUILTIN.json" >/dev/null &
fi
for f in ${FILES:-scenarios/*.toml}; do
    s=$(basename "$f" .toml)
    while (($(jobs -rp | wc -l) >= ${JOBS:-1})); do wait -n; done
    if ((SECONDS - t0 > ${BUDGET:-540})); then  # the lent machine's 10 minutes a call
        echo "not run (out of time): $f"
        continue
    fi
    run "$pass-$s" --scenario "$f" --mutants --repeat "$repeat" "${extra[@]}" -q --json "$out/$pass-$s.json" >/dev/null &
done
wait
echo "$pass: $((SECONDS - t0)) s for $(ls ${FILES:-scenarios/*.toml} | wc -l) files at --repeat $repeat, ${JOBS:-1} at once"
python3 - "$out" "$pass" <<'PY'
import glob, json, os, sys
out, pass_ = sys.argv[1], sys.argv[2]
tot = [0, 0]
print(f"{'file':44} {'mutants':>7} {'killed':>6} {'hung':>4} {'not run':>7}  own run wrong")
for path in sorted(glob.glob(os.path.join(out, pass_ + "-*.json"))):
    name = os.path.basename(path)[len(pass_) + 1:-5]
    try:
        d = json.load(open(path))
    except Exception as e:
        print(f"{name:44} no report ({e})"); continue
    m = (d.get("mutants") or {}).get("mutants", [])
    count = lambda o: sum(1 for x in m if x["outcome"] == o)
    own = sum(x.get("wrong_runs") or 0 for x in d["modes"]), sum(x.get("runs") or 0 for x in d["modes"])
    tot[0] += len(m); tot[1] += count("killed")
    print(f"{name:44} {len(m):7} {count('killed'):6} {count('hung'):4} {count('not-run'):7}  "
          f"{own[0]} of {own[1]} ({d['verdict']['kind']})")
print(f"{pass_}: {tot[1]} of {tot[0]} mutants killed")
PY
