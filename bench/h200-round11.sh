#!/usr/bin/env bash
# Round 11 on the H200: a single short scenario run's own overhead (issue 22, item 5: at most
# 10 % of wall outside the driver's instance and device creation and destruction; round 9
# left the blade #356 file at the full shape at 12.6 % for one `--mode all`). Two changes:
# the chain-input and chain-weight words are made in the supervised child while the driver
# creates the device (no longer in the parse, before the fork), and the file's buffers that
# the built-in chain puts in blade's Shared class say `memory = "shared"` (the BAR window
# there, as the built-in's; "host-visible" put them in system memory, slower to allocate).
# bench/overhead.sh --scenario on the full-size file with the build before the round
# (build/before/repro, when carried) and after, each its own process tree, then the built-in
# chain's --quick -n 3 (the same three steps); then round 10's script (queue family
# ownership transfers, every shipped scenario), which no earlier session could run.
# For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
full=$(blade_file_at_full_size)
if [[ -x build/before/repro ]]; then
    # the file as the build before the round reads it: no "shared" placement there
    before_file="$out/blade-356-full-size-host-visible.toml"
    sed 's/^memory = "shared"$/memory = "host-visible"/' "$full" >"$before_file"
    build/before/repro --version >"$out/version-before.txt" 2>&1
    bench/overhead.sh --scenario "$before_file" build/before/repro >"$out/overhead-before.txt" 2>&1
    echo "exit $?" >>"$out/overhead-before.txt"
fi
for round in 1 2; do
    bench/overhead.sh --scenario "$full" "$bin" >"$out/overhead-after-$round.txt" 2>&1
    echo "exit $?" >>"$out/overhead-after-$round.txt"
done
bench/overhead.sh --quick -n 3 "$bin" >"$out/overhead-builtin-quick-n3.txt" 2>&1
echo "exit $?" >>"$out/overhead-builtin-quick-n3.txt"
cat "$out"/overhead-*.txt
run full-size-file --scenario "$full" --timestamps --json "$out/full-size-file.json"
OUT="$out/round10" bash bench/h200-round10.sh
