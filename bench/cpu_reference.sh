#!/usr/bin/env bash
# Runs the CPU-reference benchmark: the full-size chain (default shapes), N = 7, and prints
# its figures (wall seconds, GFLOP/s, threads, SIMD path, checksum) with the machine it ran on.
#
# Usage: bench/cpu_reference.sh [BUILD_DIR]      BUILD_DIR defaults to build/release.
# Needs the cpu_reference_bench target built in BUILD_DIR/bench/. Exit status: the bench's,
# or 1 when the binary is missing.
set -euo pipefail

build="${1:-build/release}"
bin="$build/bench/cpu_reference_bench"
if [[ ! -x "$bin" ]]; then
    echo "cpu_reference.sh: $bin not found; build it first:" \
         "cmake --build $build --target cpu_reference_bench" >&2
    exit 1
fi

cpu_model="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)"
echo "machine: ${cpu_model:-unknown CPU}, $(nproc) CPUs"
exec "$bin" 7
