#!/usr/bin/env bash
# Round 16 on the lent GPU (H200 or H100), issue 37: repro as a GoogleTest binary on real
# silicon. Every test of `repro --gtest_list_tests --scenario-dir scenarios` (each shipped file and the built-in chain at
# its default size, in each mode: 54 tests) run once through --gtest_filter='*', with the JUnit
# XML; then the one-submit modes of the chain and of every file with --barrier none (a control:
# wrong results there are the file's race, so such tests fail and the run exits 1: the
# protocol reports what the child said); --capture-rgp where RADV is absent (one line);
# --merge-reports over the chain's and the blade file's JSON reports (the what-ran column).
# For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
set -uo pipefail
source bench/h200-setup.sh  # $out, $bin, run
t0=$SECONDS
"$bin" --gtest_filter='*' --scenario-dir scenarios --gtest_output="xml:$out/gtest.xml" >"$out/gtest.txt" 2>&1
echo "gtest all: exit $? after $((SECONDS - t0)) s" >>"$out/gtest.txt"
t0=$SECONDS
"$bin" --gtest_filter='*.multipass:*.single' --scenario-dir scenarios --barrier none >"$out/gtest-barrier-none.txt" 2>&1
echo "gtest --barrier none: exit $? after $((SECONDS - t0)) s" >>"$out/gtest-barrier-none.txt"
run capture-rgp -n 7 --mode single --capture-rgp >/dev/null
run chain-n7 -n 7 --json "$out/chain-n7.json" >/dev/null
run blade-file --scenario scenarios/blade-356-conv-t-slice-chain.toml --json "$out/blade-file.json" >/dev/null
"$bin" --merge-reports "$out/chain-n7.json" "$out/blade-file.json" >"$out/merge.txt" 2>&1
"$bin" --merge-reports --format csv "$out/chain-n7.json" "$out/blade-file.json" >"$out/merge.csv" 2>&1
cat "$out/version.txt" "$out/list-devices.txt" | head -8
grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|^\[=|^\[  PASSED|FAILED TEST|^gtest' "$out/gtest.txt"
grep -E '^\[  (PASSED|FAILED|SKIPPED)  \] [0-9]|^\[  FAILED  \] [a-z]|FAILED TEST|^gtest' "$out/gtest-barrier-none.txt"
python3 - "$out/gtest.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
print("xml: tests", root.get("tests"), "failures", root.get("failures"), "time", root.get("time"))
slow = sorted(((float(t.get("time")), t.get("classname") + "." + t.get("name")) for t in root.iter("testcase")), reverse=True)[:5]
print("slowest:", slow)
PY
grep -E '^--- ' "$out/capture-rgp.txt" | cut -c1-200
cat "$out/merge.txt" "$out/merge.csv"
echo "BUG REPRODUCED lines in gtest.txt: $(grep -c 'BUG REPRODUCED' "$out/gtest.txt")"
