#!/usr/bin/env bash
# One pass of the figures recorded in bench/RESULTS.md on the lent H200 machine (Ubuntu
# 24.04, NVIDIA's driver, no Vulkan loader installed): unpacks the loader carried in .gl/,
# then writes every output under $OUT (default ./h200-out). Needs a release build of repro
# at build/release/src/repro and python3 for peak-RSS figures.
#   bash bench/h200-session.sh
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
# Peak resident set of one run: the child's ru_maxrss (KiB) from python's resource module.
peak() {
    local name="$1"; shift
    python3 - "$out/$name" "$@" <<'PY'
import resource, subprocess, sys, time
log = sys.argv[1]
t = time.time()
with open(log + ".txt", "w") as f:
    rc = subprocess.call(sys.argv[2:], stdout=f, stderr=subprocess.STDOUT)
wall = time.time() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
with open(log + ".rss", "w") as f:
    f.write(f"exit {rc} wall {wall:.2f} s peak_rss {rss / 1024:.0f} MiB\n")
PY
}
peak mode-all-n7 "$bin" --mode all -n 7
peak check-steps-n7 "$bin" --mode all -n 7 --check-steps --reference cpu --json "$out/check-steps-n7.json"
peak check-steps-n20 "$bin" --mode split -n 20 --check-steps --reference cpu
peak gpu-ref-n20 "$bin" --mode all -n 20
bash bench/overhead.sh "$bin" >"$out/overhead.txt" 2>&1
tail -n 3 "$out"/*.rss
cat "$out/overhead.txt" | tail -n 30
