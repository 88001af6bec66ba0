# Sourced by the bench/h200-*.sh scripts, on the lent H200 machine (Ubuntu 24.04, NVIDIA's
# driver, no Vulkan loader installed): unpacks the loader carried in .gl/, points the loader
# at NVIDIA's ICD when it finds no device by itself, and sets
#   out  the folder every output goes to ($OUT, default ./h200-out), made here
#   bin  the release build of repro (build/release/src/repro)
# and run NAME ARGS...: repro's text output in $out/NAME.txt, its exit status and seconds
# appended, the last line echoed. Writes list-devices.txt and version.txt.
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
