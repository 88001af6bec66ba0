#!/usr/bin/env bash
# The verification kernels on a full-size small[N] (3,686,400 floats): computeStats,
# compareBitExact and compareWithTolerance, per thread count (REPRO_VERIFY_THREADS) and
# with the SSE2 baseline forced (REPRO_CPU_KERNEL=baseline). Prints ms, GB/s and Gelem/s.
#
# Usage: bench/verify.sh [BUILD_DIR] [THREADS...]   BUILD_DIR defaults to build/release;
# THREADS defaults to "1 2 4 8" plus the default choice. Needs the verify_bench target built
# in BUILD_DIR/bench/. Exit status: the bench's, or 1 when the binary is missing.
set -euo pipefail

build="${1:-build/release}"
[[ $# -gt 0 ]] && shift
threads=("$@")
[[ ${#threads[@]} -eq 0 ]] && threads=(1 2 4 8)
bin="$build/bench/verify_bench"
if [[ ! -x "$bin" ]]; then
    echo "verify.sh: $bin not found; build it first: cmake --build $build --target verify_bench" >&2
    exit 1
fi
cpu_model="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)"
echo "machine: ${cpu_model:-unknown CPU}, $(nproc) CPUs"
echo "== default threads"
"$bin"
for t in "${threads[@]}"; do
    echo "== REPRO_VERIFY_THREADS=$t"
    REPRO_VERIFY_THREADS="$t" "$bin"
done
echo "== REPRO_CPU_KERNEL=baseline (SSE2), default threads"
REPRO_CPU_KERNEL=baseline "$bin"
