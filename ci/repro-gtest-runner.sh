#!/bin/sh
# repro's tests on one CI board through deqp-runner's gtest-runner (docs/ci.md): the shipped
# scenario files and the built-in chain, one test per mode, sharded over CI_NODE_TOTAL jobs,
# compared with the board's expectation files. The shape of Mesa's .gitlab-ci/gtest-runner.sh.
#
#   GPU_VERSION=radv-gfx1150 REPRO=/install/bin/repro ci/repro-gtest-runner.sh
set -eu

here=$(dirname "$0")
repro=${REPRO:-repro}
gpu=${GPU_VERSION:?set GPU_VERSION to the board, e.g. radv-gfx1150 (names ci/expectations/GPU_VERSION-*.txt)}
results=${RESULTS_DIR:-results}

# An expectation file is optional: without one every failure is new.
baseline=""
if [ -f "$here/expectations/$gpu-fails.txt" ]; then baseline="--baseline $here/expectations/$gpu-fails.txt"; fi
flakes=""
if [ -f "$here/expectations/$gpu-flakes.txt" ]; then flakes="--flakes $here/expectations/$gpu-flakes.txt"; fi

# One job: every test submits to the one GPU, and a hang resets the GPU under all of them.
# 300 s per test: a wrong run's diagnosis reads the kernel log, and a hang waits for the
# kernel's job timeout (docs/watchdog.md); gtest-runner's default is 60 s.
# shellcheck disable=SC2086 # the optional flags are words
gtest-runner run --gtest "$repro" --output "$results" --jobs 1 --timeout 300 \
  --skips "$here/expectations/repro-skips.txt" $flakes $baseline \
  --fraction-start "${CI_NODE_INDEX:-1}" --fraction "${CI_NODE_TOTAL:-1}" \
  -- --timeout 60
