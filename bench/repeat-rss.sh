#!/usr/bin/env bash
# Peak resident set of repro per --repeat count: one run per count, each in a child of
# python3 whose resource.getrusage(RUSAGE_CHILDREN).ru_maxrss is the largest process's peak
# (the supervised child, which holds the Vulkan device). A flat line in R shows that runs
# past the first 20 of a mode are folded into counts, not kept (engine/stages.hpp
# kListedRuns; hostile-input probe R14).
#
# Usage: bench/repeat-rss.sh BINARY "R1 R2 ..." [repro arguments...]
#   BINARY    the repro to run
#   R1 R2 ... the --repeat counts, one run each
#   the rest  passed to every run; default: --preset tiny -n 2 --mode single --reference none
# Prints one line per count: "repeat=200 exit 0 wall 3.21 s peak_rss 78 MiB".
# Each run's output goes to $OUT/repeat-<R>.txt ($OUT defaults to rss-out).
# Example: bench/repeat-rss.sh build/release/src/repro "20 200 2000"
# Exit status: 0, or 1 on a usage error (a missing binary, python3 or count list).
set -uo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: bench/repeat-rss.sh BINARY \"R1 R2 ...\" [repro arguments...]" >&2
    exit 1
fi
bin="$1"
counts="$2"
shift 2
if [[ ! -x "$bin" ]]; then
    echo "repeat-rss.sh: $bin is not an executable" >&2
    exit 1
fi
if ! command -v python3 >/dev/null; then
    echo "repeat-rss.sh: needs python3 for the peak resident set" >&2
    exit 1
fi
if [[ $# -eq 0 ]]; then
    set -- --preset tiny -n 2 --mode single --reference none
fi
out="${OUT:-rss-out}"
mkdir -p "$out"
echo "machine: $(nproc) CPUs; $bin $*"
for r in $counts; do
    python3 - "$out/repeat-$r.txt" "$r" "$bin" "$@" --repeat "$r" <<'PY'
import resource, subprocess, sys, time
log, r, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
t = time.time()
with open(log, "w") as f:
    rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
wall = time.time() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
print(f"repeat={r} exit {rc} wall {wall:.2f} s peak_rss {rss / 1024:.1f} MiB", flush=True)
PY
done
