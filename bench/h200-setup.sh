# Sourced by the bench/h200-*.sh scripts, on the lent H200 machine (Ubuntu 24.04, NVIDIA's
# driver, no Vulkan loader installed): unpacks the loader carried in .gl/, points the loader
# at NVIDIA's ICD when it finds no device by itself, and sets
#   out  the folder every output goes to ($OUT, default ./h200-out), made here
#   bin  the release build of repro (build/release/src/repro)
# and run NAME ARGS...: repro's text output in $out/NAME.txt, its exit status and seconds
# appended, the last line echoed; verdict BUILD ARGS...: "exit S" and the verdict line of one
# run; control_line BUILD ARGS...: the same with the control's line and the JSON verdict.kind;
# stop_and_continue_during_sweep, blade_file_at_full_size, quick_alternating, files_by_both,
# streams_by_both and chain_vs_file_alternating (below).
# Writes list-devices.txt and version.txt.
out="${OUT:-h200-out}"
mkdir -p "$out"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
bin=build/release/src/repro
if ! "$bin" --list-devices >"$out/list-devices.txt" 2>&1; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    "$bin" --list-devices >"$out/list-devices.txt" 2>&1
fi
"$bin" --version >"$out/version.txt" 2>&1
run() {  # name, then repro's arguments: the text output and the exit status
    local name="$1"; shift
    local t0=$SECONDS
    "$bin" "$@" >"$out/$name.txt" 2>&1
    echo "exit $? after $((SECONDS - t0)) s: repro $*" >>"$out/$name.txt"
    tail -n 1 "$out/$name.txt"
}
verdict() {  # build, then repro's arguments: the exit status and the verdict line
    local text status
    text=$("$@" 2>&1)
    status=$?
    echo "exit $status $(grep -E '^--- (NOT REPRODUCED|BUG REPRODUCED|CONTROL CAUGHT|GPU HANG|CANNOT TEST|VALIDATION|INCONCLUSIVE|DRIVER CRASH|CRASHED|REPRO CRASHED|INTERRUPTED)' <<<"$text" | head -n 1)"
}
control_line() {  # build, then repro's arguments: exit status, verdict, control line, verdict.kind
    local text status kind
    text=$("$@" --json "$out/last.json" 2>&1)
    status=$?
    kind=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["verdict"]["kind"])' "$out/last.json" 2>&1 | tail -n 1)
    rm -f "$out/last.json"
    echo "exit $status | $(grep -E '^--- (NOT REPRODUCED|CONTROL CAUGHT|BUG REPRODUCED|GPU HANG)' <<<"$text" | head -n 1 | cut -c1-80)" \
        "| $(grep -E '^--- the control was' <<<"$text" | cut -c1-45) | kind $kind"
}

# SIGTSTP to repro alone during a sweep of the default shape (--sweep 1..30 --mode all), then
# SIGCONT, three times: both processes should stop (state T) and continue, and the run end
# with its verdict. One line a round in $out/tstp-summary.txt (and on stdout).
stop_and_continue_during_sweep() {
    local round pid child s1 s2 s3
    for round in 1 2 3; do
        "$bin" --sweep 1..30 --mode all >"$out/tstp-$round.txt" 2>&1 &
        pid=$!
        sleep 4
        child=$(pgrep -P "$pid" | head -n 1)
        kill -TSTP "$pid"
        sleep 2
        s1=$(awk '{print $3}' "/proc/$pid/stat") s2=$(awk '{print $3}' "/proc/$child/stat")
        kill -CONT "$pid"
        sleep 1
        s3=$(awk '{print $3}' "/proc/$child/stat" 2>/dev/null)
        wait "$pid"
        echo "round $round: exit $? repro stopped: $s1 child stopped: $s2 child after SIGCONT: $s3;" \
            "$(grep -c 'results for N=' "$out/tstp-$round.txt") chain lengths; $(tail -n 1 "$out/tstp-$round.txt" | cut -c1-80)" |
            tee -a "$out/tstp-summary.txt"
    done
}

# The blade #356 file at the full (spectrostream) shape, made from
# scenarios/blade-356-conv-t-slice-chain.toml by changing its shape and the buffer sizes that
# shape needs (small 14745600 bytes, weight 786432, big 30537728; the shipped file stays
# small, for lavapipe): written to $out/blade-356-full-size.toml, whose path it prints.
blade_file_at_full_size() {
    local full="$out/blade-356-full-size.toml"
    sed -e 's/^shape = "small"/shape = "spectrostream"/' -e 's/^bytes = 30720$/bytes = 14745600/' \
        -e 's/^bytes = 12288$/bytes = 786432/' -e 's/^bytes = 73472$/bytes = 30537728/' \
        scenarios/blade-356-conv-t-slice-chain.toml >"$full"
    echo "$full"
}

# The built-in chain's `bench/overhead.sh --quick` line for a build before (its path the first
# argument) and $bin, in turn, three rounds (host noise hits both alike): six lines, each
# "base R" or "new  R" then the figures.
quick_alternating() {
    local base="$1" round
    for round in 1 2 3; do
        bench/overhead.sh --quick "$base" | sed -n 3p | sed "s/^/base $round /"
        bench/overhead.sh --quick "$bin" | sed -n 3p | sed "s/^/new  $round /"
    done
}

# Every shipped file as written, under --barrier none and under --barrier execution-only (where
# the file has a barrier step), by a build before (its path the first argument) and $bin in turn:
# two control_line rows a setting, "NAME SETTING base:" and "NAME SETTING new: ".
files_by_both() {
    local base="$1" f n barrier extra
    for f in scenarios/*.toml; do
        n=$(basename "$f" .toml)
        for barrier in "" none execution-only; do
            extra=()
            [[ -n $barrier ]] && extra=(--barrier "$barrier")
            grep -q '^barrier = ' "$f" || [[ -z $barrier ]] || continue
            echo "$n ${barrier:-as-written} base: $(control_line "$base" --scenario "$f" "${extra[@]}")"
            echo "$n ${barrier:-as-written} new:  $(control_line "$bin" --scenario "$f" "${extra[@]}")"
        done
    done
}

# The built-in chain at the blade file's size (--preset small -n 3) and the blade file, through
# `bench/overhead.sh --quick`, by a build before (its path the first argument) and $bin in turn,
# three rounds: twelve lines, "BUILD chain R" or "BUILD file  R" then the figures.
chain_vs_file_alternating() {
    local base="$1" round build
    for round in 1 2 3; do
        for build in "$base" "$bin"; do
            bench/overhead.sh --quick --preset small -n 3 "$build" | sed -n 3p | sed "s|^|$build chain $round |"
            bench/overhead.sh --quick --scenario scenarios/blade-356-conv-t-slice-chain.toml "$build" | sed -n 3p |
                sed "s|^|$build file  $round |"
        done
    done
}

# Every shipped file's `--print-stream --mode all` under six barrier settings (as written, none,
# execution-only, full, buffer, sync2) by a build before (its path the first argument) and $bin,
# compared line for line but for $bin's lines matching the optional second argument (an ERE: calls
# the base did not trace). Prints each difference (its first lines) and a summary line with the
# count of streams that ended in DRIVER CRASH, by build.
streams_by_both() {
    local base="$1" skip="${2:-}" f barrier extra compared=0 differ=0 crashed_base=0 crashed_new=0
    for f in scenarios/*.toml; do
        for barrier in "" none execution-only full buffer sync2; do
            extra=()
            [[ -n $barrier ]] && extra=(--barrier "$barrier")
            "$base" --scenario "$f" "${extra[@]}" --print-stream --mode all 2>&1 | grep -v '^repro .* (git ' >"$out/stream-base.txt"
            "$bin" --scenario "$f" "${extra[@]}" --print-stream --mode all 2>&1 | grep -v '^repro .* (git ' >"$out/stream-new.txt"
            grep -q 'DRIVER CRASH' "$out/stream-base.txt" && crashed_base=$((crashed_base + 1))
            grep -q 'DRIVER CRASH' "$out/stream-new.txt" && crashed_new=$((crashed_new + 1))
            compared=$((compared + 1))
            if [[ -n $skip ]]; then
                grep -vE "$skip" "$out/stream-new.txt" >"$out/stream-new-compared.txt"
            else
                cp "$out/stream-new.txt" "$out/stream-new-compared.txt"
            fi
            cmp -s "$out/stream-base.txt" "$out/stream-new-compared.txt" || {
                differ=$((differ + 1))
                echo "differs: $f ${barrier:-as written}"
                diff "$out/stream-base.txt" "$out/stream-new-compared.txt" | head -n 6
            }
        done
    done
    rm -f "$out/stream-base.txt" "$out/stream-new.txt" "$out/stream-new-compared.txt"
    local left_out=""
    [[ -n $skip ]] && left_out=" (new's lines matching '$skip' left out)"
    echo "--print-stream: $compared compared, $differ differ$left_out;" \
        "DRIVER CRASH in $crashed_base (base) and $crashed_new (new)"
}
