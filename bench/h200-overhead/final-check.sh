#!/usr/bin/env bash
# The last H200 check of the session (bench/RESULTS.md, "third session"): carry .gl/ with
# the loader's .debs, the build under test as .gl/repro-new and an older release build as
# .gl/repro-diag; run with OUT set. Writes mode-all.txt (the seed's figures), quick.txt
# (bench/overhead.sh --quick, the two builds alternating three times, older first),
# triage-control.* (--triage with a positive control) and probe.* (--watchdog-probe).
set -u
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
B=.gl/repro-new; O=.gl/repro-diag
"$B" --mode all -n 7 > "$OUT/mode-all.txt" 2>&1; echo "exit $?" >> "$OUT/mode-all.txt"
"$O" --mode all -n 7 > /dev/null 2>&1
for _ in 1 2 3; do bash bench/overhead.sh --quick "$O" | sed -n 3p >> "$OUT/quick.txt"; bash bench/overhead.sh --quick "$B" | sed -n 3p >> "$OUT/quick.txt"; done
"$B" --triage -n 7 --drop-dispatch 3 --output "$OUT/triage-control.json" > "$OUT/triage-control.txt" 2>&1; echo "exit $?" >> "$OUT/triage-control.txt"
"$B" --watchdog-probe --output "$OUT/probe.json" > "$OUT/probe.txt" 2>&1; echo "exit $?" >> "$OUT/probe.txt"
cat "$OUT/quick.txt"; tail -3 "$OUT/mode-all.txt"; grep -E "conclusion|H5|exit" "$OUT/triage-control.txt"; tail -2 "$OUT/probe.txt"
