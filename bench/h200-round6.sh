#!/usr/bin/env bash
# The H200 figures of issue 22 item 5 (a scenario's own overhead; bench/RESULTS.md,
# "A scenario's own overhead"): bench/overhead.sh --scenario on
#   - kompute-196 lengthened: the shipped file with 1 Mi words (4 MiB) and each of its three
#     increments given `work` = WORK loop iterations (default 1048576, the most a file may
#     ask), which lengthen the dispatches on the GPU and cost the CPU model nothing: a
#     scenario whose GPU time is seconds, as the built-in's full-size chain's is;
#   - the shipped kompute-196 and llama-cpp-21724 files as they are (milliseconds of GPU
#     work: the fixed costs show);
# one Markdown report of the sensitivity scenario's execution-only control, the report a
# reader reruns (docs/scenarios.md, "The Markdown report"); the second queue and the user
# SPIR-V example; --check-steps --poison on every shipped file; and a --sweep.
# For the lent machine: needs .gl/ and the release build (bench/h200-setup.sh). Writes $OUT.
#   bash bench/h200-round6.sh            WORK=4096 bash bench/h200-round6.sh (on lavapipe)
set -uo pipefail
work="${WORK:-1048576}"
source bench/h200-setup.sh  # $out, $bin, run
long="$out/kompute-196-long.toml"
sed -e 's/^bytes = 65536$/bytes = 4194304/' -e "s/^bindings = \[\"data\"\]\$/bindings = [\"data\"]\nwork = $work/" \
    scenarios/kompute-196-increment-chain.toml >"$long"
for f in "$long" scenarios/kompute-196-increment-chain.toml scenarios/llama-cpp-21724-many-dispatches.toml; do
    name=$(basename "$f" .toml)
    bench/overhead.sh --scenario "$f" "$bin" >"$out/overhead-$name.txt" 2>&1
    echo "exit $?" >>"$out/overhead-$name.txt"
    cat "$out/overhead-$name.txt"
done
run markdown-sensitivity --scenario scenarios/sensitivity-stale-read.toml --mode single --repeat 50 \
    --barrier execution-only --format markdown -o "$out/sensitivity-execution-only.md"
# The second queue on real hardware (family "other": CONCURRENT buffers across two families)
# and the user SPIR-V example (built into build/dev/tests/user-kernels, carried), each in the
# three modes with its JSON report, under the validation layer, and the second queue's stream.
q=scenarios/compute-copy-on-a-second-queue.toml
run queue-all --scenario "$q" --json "$out/queue-all.json"
run queue-validation --scenario "$q" --validation
run queue-stream --scenario "$q" --print-stream >/dev/null
run queue-repeat --scenario "$q" --repeat 200
u=build/dev/tests/user-kernels/user-kernel-mix.toml
if [[ -f "$u" ]]; then
    run user-kernel-all --scenario "$u" --json "$out/user-kernel-all.json"
    run user-kernel-validation --scenario "$u" --validation
fi
for f in scenarios/*.toml; do
    name=$(basename "$f" .toml)
    run "scenario-$name" --scenario "$f" --timestamps --json "$out/scenario-$name.json" >/dev/null
done
# --check-steps --poison in split on every shipped file without a second queue: every step's
# written bytes against the CPU model after its own submit, on real hardware.
for f in scenarios/*.toml; do
    name=$(basename "$f" .toml)
    grep -q '^\[\[queue\]\]' "$f" && continue
    run "check-steps-$name" --scenario "$f" --mode split --check-steps --poison >/dev/null
done
# --sweep over a parameter: llama-cpp-21724 with its repeat count made a parameter n.
sweep="$out/llama-cpp-21724-sweep.toml"
# shellcheck disable=SC2016 # "$n" is the file's parameter, not the shell's
sed -e 's/^repeat = 100$/repeat = "$n"/' -e '0,/^\[\[buffer\]\]/s//[parameters]\nn = 100\n\n[[buffer]]/' \
    scenarios/llama-cpp-21724-many-dispatches.toml >"$sweep"
run sweep-llama --scenario "$sweep" --sweep n=1,10,100,400 --json "$out/sweep-llama.json"
cd "$out" && tar czf /tmp/round6.tgz ./*.txt ./*.json ./*.md ./*.toml && mv /tmp/round6.tgz .
