#!/usr/bin/env bash
# Runs the per-dispatch CPU check benchmark: the full-size chain (default shapes) with
# intermediates as stand-in GPU buffers, N = 7; prints the check's wall time (default and
# exact-bounds paths), each conv-T's bound against the signal, what a dropped input channel
# would change against the bound, and the chained tolerance for comparison.
#
# Usage: bench/step_check.sh [BUILD_DIR [RUNS]]   BUILD_DIR defaults to build/release; RUNS
# (default 3) repeats it, since the check's time depends on the machine's load. Needs the
# step_check_bench target built in BUILD_DIR/bench/. Exit status: the bench's, or 1 when
# the binary is missing.
set -euo pipefail

build="${1:-build/release}"
runs="${2:-3}"
bin="$build/bench/step_check_bench"
if [[ ! -x "$bin" ]]; then
    echo "step_check.sh: $bin not found; build it first:" \
         "cmake --build $build --target step_check_bench" >&2
    exit 1
fi

cpu_model="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)"
echo "machine: ${cpu_model:-unknown CPU}, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 1; i < runs; ++i)); do
    "$bin" 7 0 | grep 'per-dispatch check'
done
exec "$bin" 7 0 chained
