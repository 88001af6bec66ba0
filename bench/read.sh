#!/usr/bin/env bash
# The host read path alone: builds read_bench (release preset) and runs it on a Vulkan
# device, every HOST_VISIBLE memory type, then in its CPU-only mode (a malloc'd buffer).
# Prints GB/s of memcpy and of copyFromMapped's streaming loads per thread count.
#
# Usage: bench/read.sh [--no-build] [--build-dir DIR] [-- READ_BENCH_ARGS...]
#   --no-build   use DIR/bench/read_bench as it is (a binary carried to a GPU machine)
#   --build-dir  DIR for --no-build (default build/release; a build always uses the
#                release preset's build/release)
#   READ_BENCH_ARGS go to both runs, e.g. -- --device 1 --runs 5 --threads 1,4,16
#                (bench/read_bench.cpp lists them); --cpu-only is added for the second run.
# On lavapipe the "device" memory is ordinary cached host memory: memcpy is as fast as or
# faster than the streaming loads there, which pay off only on write-combined memory (a
# discrete GPU's host-visible VRAM). Exit status: the first failing run's, else 0.
set -euo pipefail

build="build/release"
do_build=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --no-build) do_build=0; shift ;;
        --build-dir) build="$2"; shift 2 ;;
        --) shift; break ;;
        *) echo "read.sh: unknown argument $1 (see the top of $0)" >&2; exit 1 ;;
    esac
done
if [[ $do_build -eq 1 ]]; then
    cmake --preset release >/dev/null
    cmake --build --preset release --target read_bench >/dev/null
    build="build/release"
fi
bin="$build/bench/read_bench"
[[ -x "$bin" ]] || { echo "read.sh: $bin not found" >&2; exit 1; }

cpu_model="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)"
echo "machine: ${cpu_model:-unknown CPU}, $(nproc) CPUs"
status=0
"$bin" "$@" || status=$?
echo
"$bin" "$@" --cpu-only || { rc=$?; [[ $status -eq 0 ]] && status=$rc; }
exit $status
