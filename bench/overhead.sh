#!/usr/bin/env bash
# How much of repro's wall time is repro's own: for `--mode all -n 7`, `--sweep 1..20` and
# `--repeat 20 -n 7`, prints the wall time, instance and device creation, GPU busy time,
# readback (seconds and GB/s of small[N] read), verification, and the overhead ratio
# (wall - instance/device - GPU busy) / wall; also the host's GPU wait, for comparison, the
# set-up, the teardown in its two parts, and the ratio with the teardown left out as well.
#
# Each configuration runs twice: plainly, for the wall time and the host phases (the JSON
# report's "timings"), and again with --timestamps for the GPU busy time (the sum of every
# mode's "gpu"."mode_seconds"), because timestamp queries change the command stream.
# Bytes read: the report's sizes.small_bytes for every mode run that completed (one entry
# of "modes" each). The figures come from the JSON report (--json), not from the text.
#
# Usage: bench/overhead.sh [--preset NAME | --scenario FILE] [-n N] [--reference KIND] [--device INDEX|NAME]
#                          [--quick] [REPRO]
#   REPRO    the repro binary (default build/release/src/repro)
#   --scenario a scenario file instead of blade's chain: `--mode all` and `--mode all
#            --repeat 20` on it, measured the same way (one engine, one report)
#   --quick  only `--mode all -n 7` (to compare builds on a device with little time)
#   --reference KIND  passed to repro: `cpu` gives the chain the CPU model a file checks against
#            by default, `split` leaves it out of a file's run (the same work for both forms)
#   -n N     the built-in chain's length in `--mode all` and `--repeat 20` (default 7), to
#            compare with a scenario file of N steps
# One run before the measured ones is not counted: it fills the driver's on-disk shader cache,
# which the first process of a new build on a fresh machine otherwise pays for in `pipelines`
# (67 to 90 ms on the H200, 1 ms warm: bench/RESULTS.md, round 9).
#   --preset the shapes (default spectrostream, the full size; `--preset small` for a quick
#            run on lavapipe)
# REPRO_READ_THREADS and REPRO_READ_KERNEL pass through to repro (src/reference/host_read.hpp).
# On the H200 machine: carry a release build of repro, unpack the Vulkan loader, then
#   bench/overhead.sh <checkout>/repro
# Needs python3 (json and subprocess from its standard library). Exit status 0, or 1 when
# the binary is missing, an argument is wrong, or a run fails to write its report.
set -euo pipefail

preset="spectrostream"
scenario=""
quick=0
length=7
extra=()  # passed to every repro run: --device, --reference
bin="build/release/src/repro"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --preset) preset="$2"; shift 2 ;;
        --scenario) scenario="$2"; shift 2 ;;
        --device|--reference) extra+=("$1" "$2"); shift 2 ;;
        --quick) quick=1; shift ;;
        -n) length="$2"; shift 2 ;;
        -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
        -*) echo "overhead.sh: unknown option $1" >&2; exit 1 ;;
        *) bin="$1"; shift ;;
    esac
done
if [[ ! -x "$bin" ]]; then
    echo "overhead.sh: $bin not found; build it first: cmake --build --preset release --target repro" >&2
    exit 1
fi
python3 -c 'import json, subprocess' || { echo "overhead.sh: python3 with json is needed" >&2; exit 1; }

exec python3 - "$bin" "$preset" "$quick" "$length" "$scenario" "${extra[@]}" <<'PY'
import json, os, subprocess, sys, tempfile, time

repro, preset, quick, length, scenario, extra = (sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4],
                                                  sys.argv[5], sys.argv[6:])
# The plan: blade's chain at the preset, or the scenario file (one engine: the same report).
form = ["--scenario", scenario] if scenario else ["--preset", preset]
if scenario:
    configs = [["--mode", "all"], ["--mode", "all", "--repeat", "20"]]
else:
    configs = [["--mode", "all", "-n", length], ["--sweep", "1..20"], ["--repeat", "20", "-n", length]]
if quick:
    configs = configs[:1]
subprocess.run([repro, *form, "--mode", "split", *([] if scenario else ["-n", "1"]), *extra],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # not counted: warms the driver's shader cache

def run(args, out):
    cmd = [repro, *form, *args, *extra, "--json", out]
    start = time.monotonic()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if done.returncode not in (0, 2) or not os.path.exists(out):
        sys.exit(f"overhead.sh: {' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()[-300:]}")
    with open(out) as f:
        return wall, done.returncode, json.load(f)

def gpu_busy(report):
    total = 0.0
    for m in report["modes"]:
        gpu = m.get("gpu")
        if gpu:
            total += gpu["mode_seconds"] if gpu.get("mode_seconds") is not None else sum(gpu["submit_seconds"])
    return total

env = {k: os.environ[k] for k in ("REPRO_READ_THREADS", "REPRO_READ_KERNEL") if k in os.environ}
with tempfile.TemporaryDirectory() as tmp:
    first = None
    rows = []
    for args in configs:
        wall, status, plain = run(args, os.path.join(tmp, "plain.json"))
        _, _, stamped = run(args + ["--timestamps"], os.path.join(tmp, "stamped.json"))
        first = first or plain
        t = plain["timings"]
        # small[N] read per mode run (the chain's); a file's checked buffers are not counted
        small = (plain.get("sizes") or {}).get("small_bytes")
        reads = sum(1 for m in plain["modes"] if m.get("stats")) if small else 0
        busy = gpu_busy(stamped)
        rate = reads * small / t["readback"] * 1e-9 if reads and t["readback"] > 0 else None
        overhead = (wall - t["instance_and_device"] - busy) / wall
        # The same with the teardown (the driver destroying the chain's objects, the device and
        # the instance) counted like the instance and device creation: the driver's lifecycle.
        lifecycle = (wall - t["instance_and_device"] - t.get("teardown", 0.0) - busy) / wall
        # Everything else of repro's own: set-up after the device (pipelines, buffers and
        # upload, the host reference), recording, the teardown after the verdict, and process
        # start and exit.
        setup = t["pipelines"] + t["buffers_and_upload"] + t["recording"] + (t.get("reference") or 0.0)
        rest = wall - t["total"] - t.get("teardown", 0.0)
        # The teardown's two parts (absent from reports of older builds: shown as 0).
        down_dev, down_inst = t.get("teardown_device", 0.0), t.get("teardown_instance", 0.0)
        rows.append((" ".join(args), status, wall, t["instance_and_device"], t["gpu_wait"], busy,
                     t["readback"], rate, reads, t["verification"], setup, t.get("teardown", 0.0), down_dev,
                     down_inst, rest, overhead, lifecycle))
    dev = first.get("device") or {}
    what = (f"scenario {first['scenario']['name']} (sha256 {first['scenario']['file_sha256'][:12]})" if scenario
            else f"preset {preset}, small[N] {first['sizes']['small_bytes']} bytes")
    print(f"repro overhead: {dev.get('device_name', 'no device')} ({dev.get('driver_name', '?')} "
          f"{dev.get('driver_version', '?')}), {what}; host-read environment: {env or 'none set'}")
    print(f"{'configuration':<22} {'exit':>4} {'wall s':>8} {'inst+dev':>9} {'GPU wait':>9} {'GPU busy':>9} "
          f"{'readback':>9} {'GB/s':>7} {'reads':>6} {'verify':>8} {'set-up':>7} {'teardown':>9} {'device':>7} "
          f"{'instance':>9} {'process':>8} {'overhead':>9} {'w/o down':>9}")
    for name, status, wall, inst, wait, busy, rb, rate, reads, ver, setup, down, dd, di, rest, ovh, life in rows:
        rate_text = f"{rate:>7.2f}" if rate is not None else f"{'-':>7}"
        print(f"{name:<22} {status:>4} {wall:>8.3f} {inst:>9.3f} {wait:>9.3f} {busy:>9.3f} {rb:>9.3f} "
              f"{rate_text} {reads:>6} {ver:>8.3f} {setup:>7.3f} {down:>9.3f} {dd:>7.3f} {di:>9.3f} {rest:>8.3f} "
              f"{ovh * 100:>8.1f}% {life * 100:>8.1f}%")
    print("seconds. GPU wait: the host's wait for submits (timings.gpu_wait); GPU busy: timestamps, from a\n"
          "second run with --timestamps; GB/s = reads x small[N] bytes / readback (the chain's only);\n"
          "set-up: pipelines, buffers and upload, recording, the host reference; teardown: destroying the\n"
          "Vulkan objects after the verdict, of which device: the objects and vkDestroyDevice, instance:\n"
          "vkDestroyInstance; process: wall - total - teardown (process start and exit, the supervising\n"
          "parent); overhead = (wall - instance/device - GPU busy) / wall; w/o down: the same less the\n"
          "teardown (wall - instance/device - teardown - GPU busy) / wall, the driver's creation and\n"
          "destruction of the instance and device both left out")
    if any(r[-2] < 0 for r in rows):
        print("a negative overhead: the --timestamps run's GPU time exceeded the plain run's wall time "
              "(a noisy machine, or a CPU device such as lavapipe, where timestamps are host time)")
PY
