#!/usr/bin/env bash
# Peak resident set of repro per chain length: one run per N, each in a child of python3
# whose resource.getrusage(RUSAGE_CHILDREN).ru_maxrss is its peak (no GNU time needed), so
# a flat line in N shows that --check-steps streams its intermediates.
#
# Usage: bench/rss.sh BINARY "N1 N2 ..." [repro arguments...]
#   BINARY    the repro to run (build/release/src/repro on a GPU machine)
#   N1 N2 ... the chain lengths, one run each (-n N is added to the arguments)
#   the rest  passed to every run; default: --mode split --check-steps --reference cpu
# Prints one line per N: "N=16 exit 0 wall 3.21 s peak_rss 98 MiB" (exit: repro's status).
# Each run's output goes to $OUT/rss-n<N>.txt ($OUT defaults to rss-out).
# Examples:
#   bench/rss.sh build/dev/src/repro "4 8 16" --preset small --channels 8 --height 60 \
#       --width 480 --mode split --check-steps --reference cpu
#   bench/rss.sh build/release/src/repro "20 100"
# Exit status: 0, or 1 on a usage error (a missing binary, python3 or N list).
set -uo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: bench/rss.sh BINARY \"N1 N2 ...\" [repro arguments...]" >&2
    exit 1
fi
bin="$1"
lengths="$2"
shift 2
if [[ ! -x "$bin" ]]; then
    echo "rss.sh: $bin is not an executable" >&2
    exit 1
fi
if ! command -v python3 >/dev/null; then
    echo "rss.sh: needs python3 for the peak resident set" >&2
    exit 1
fi
if [[ $# -eq 0 ]]; then
    set -- --mode split --check-steps --reference cpu
fi
out="${OUT:-rss-out}"
mkdir -p "$out"
echo "machine: $(nproc) CPUs; $bin $*"
for n in $lengths; do
    python3 - "$out/rss-n$n.txt" "$n" "$bin" "$@" -n "$n" <<'PY'
import resource, subprocess, sys, time
log, n, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
t = time.time()
with open(log, "w") as f:
    rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
wall = time.time() - t
# One child per python3, so the children's maximum is this run's peak (KiB on Linux).
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"N={n} exit {rc} wall {wall:.2f} s peak_rss {rss / 1024:.0f} MiB", flush=True)
PY
done
