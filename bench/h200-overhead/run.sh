#!/usr/bin/env bash
# The overhead figures of bench/RESULTS.md ("Set-up, readback and teardown"), one pass on the
# lent H200 machine: carry .gl/ with the Vulkan loader's .debs, the build under test as
# .gl/repro-new, the build to compare with as .gl/repro-diag (any older release build) and
# .gl/read_bench, then run `bash bench/h200-overhead/run.sh` with OUT set. Writes under
# $OUT: quick-before.txt and quick-after.txt (bench/overhead.sh --quick, the two builds in
# turn, four times, after one warm-up run of each), overhead.txt (bench/overhead.sh, the
# build under test), read-bench.txt, rss.txt (peak resident memory of four runs) and gpu.txt.
set -u
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
B=.gl/repro-new; O=.gl/repro-diag; OUT="${OUT:-h200-out}"; mkdir -p "$OUT"
"$B" --mode all -n 7 >/dev/null 2>&1; "$O" --mode all -n 7 >/dev/null 2>&1
for _ in 1 2 3 4; do bash bench/overhead.sh --quick "$O" | sed -n 3p >> "$OUT/quick-before.txt"; bash bench/overhead.sh --quick "$B" | sed -n 3p >> "$OUT/quick-after.txt"; done
bash bench/overhead.sh "$B" > "$OUT/overhead.txt" 2>&1
.gl/read_bench > "$OUT/read-bench.txt" 2>&1
peak() { python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.time()
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
wall = time.time() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
lines = [l for l in p.stdout.splitlines() if l.startswith(("---", "  mode=", "  reference", "    per-dispatch"))]
print(f"{' '.join(sys.argv[2:])}: exit {p.returncode} wall {wall:.2f} s peak_rss {rss / 1024:.0f} MiB")
print("\n".join("    " + l for l in lines))
PY
}
{ peak "$B" --mode all -n 7; peak "$B" --mode all -n 7 --check-steps --reference cpu; peak "$B" --mode split -n 20 --check-steps --reference cpu; peak "$B" --mode all -n 20; } > "$OUT/rss.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1; grep -m1 "model name" /proc/cpuinfo >> "$OUT/gpu.txt"
cat "$OUT/quick-before.txt" "$OUT/quick-after.txt" "$OUT/overhead.txt" "$OUT/rss.txt"
