#!/usr/bin/env bash
# The hypothesis matrix and the controls' race rate on this machine's Vulkan device, with
# the figures printed: the matrix table (variant -> classification, validation, GPU time),
# then how often --barrier none and execution-only give a wrong chain with and without
# instrumentation (timestamps and buffer markers can serialize dispatches and hide a race).
#
# Usage: bench/experiments.sh [BUILD_DIR] [-- REPRO_ARGS...]
#   BUILD_DIR defaults to build/release; REPRO_ARGS (default "-n 7") choose the chain.
#   Example on lavapipe: bench/experiments.sh build/dev -- -n 3 --preset small
# Results measured on the H200 are in bench/RESULTS.md and bench/h200-experiments/.
set -euo pipefail

build="build/release"
if [[ $# -gt 0 && "$1" != "--" ]]; then build="$1"; shift; fi
[[ $# -gt 0 && "$1" == "--" ]] && shift
args=("$@")
[[ ${#args[@]} -eq 0 ]] && args=(-n 7)
bin="$build/src/repro"
if [[ ! -x "$bin" ]]; then
    echo "experiments.sh: $bin not found; build it first: cmake --build $build --target repro" >&2
    exit 1
fi

echo "== matrix, timed by --timestamps: $bin --matrix ${args[*]} --timestamps"
start=$(date +%s)
"$bin" --matrix "${args[@]}" --timestamps | grep -E '^(Device|---|  +[0-9]+ )' || true
echo "   (matrix wall time: $(( $(date +%s) - start )) s)"

echo "== matrix under validation: $bin --matrix ${args[*]} --validation"
"$bin" --matrix "${args[@]}" --validation | grep -E '^---' || true

for barrier in none execution-only; do
    for extra in "" --timestamps --breadcrumbs; do
        out=$("$bin" --mode all --repeat 5 --barrier "$barrier" "${args[@]}" $extra 2>/dev/null || true)
        rates=$(grep -E '^  (multipass|single): ' <<<"$out" | sed 's/; results.*//' | tr '\n' ' ')
        echo "== --barrier $barrier ${extra:-(no instrumentation)}: ${rates:-no result (see a plain run)}"
    done
done
