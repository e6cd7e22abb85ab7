# loop-body.sh: the whole ramplace loop on one bundled example firmware, sourced by
# examples/<board>/loop.sh after it has set:
#   here        the example's directory (its Makefile takes BUILD, RAMTEXT_LD, ITERATIONS and
#               has a check-startup target)
#   work        the directory to write into (emptied first)
#   qemu_cmd    array: the QEMU command line up to (not including) -kernel, without -gdb
#   flash_name  what the code runs from ("flash", "XIP flash"); ram_name likewise ("RAM", "DTIM")
# Steps: build with everything in flash -> run in QEMU -> run again under QEMU's gdbstub while
# `ramplace record` samples the PC -> `ramplace place` -> relink -> `ramplace check` -> run the
# relinked firmware (output must be byte-identical) -> record it again and print the share of
# samples that now execute from RAM. Exits non-zero when a step fails or the outputs differ.
. "$root/scripts/qemu-lib.sh"
RAMPLACE=${RAMPLACE:-$root/build/ramplace}
BUDGET=${BUDGET:-1K}
iterations=${ITERATIONS:+ITERATIONS=$ITERATIONS}
qemu_pid=""
trap 'stop_pid "$qemu_pid"' EXIT
rm -rf "$work"
mkdir -p "$work"

step() { printf '\n== %s\n' "$*"; }

run_qemu() { # ELF OUTFILE [extra qemu args...]
	local elf=$1 out=$2
	shift 2
	"${qemu_cmd[@]}" "$@" -kernel "$elf" </dev/null >"$out" 2>"$out.stderr" &
	qemu_pid=$!
}

run_to_end() { # ELF OUTFILE
	run_qemu "$1" "$2"
	wait_pid "$qemu_pid" 120
	qemu_pid=""
}

record() { # ELF DB OUTFILE
	local port
	port=$(free_port)
	run_qemu "$1" "$3" -gdb "tcp:127.0.0.1:$port" -S
	wait_port "$port" 10
	# ~2 kHz with random intervals: --rate 0 halts QEMU so often that samples pile up where it
	# can stop the CPU, and slows the firmware several times over
	"$RAMPLACE" record --remote "127.0.0.1:$port" --rate 2000 --duration 120 --timeout 5000 --quiet "$2" "$1"
	wait_pid "$qemu_pid" 30
	qemu_pid=""
}

step "build the firmware, everything in $flash_name"
make -s -C "$here" BUILD="$work/flash" $iterations >/dev/null
make -s -C "$here" BUILD="$work/flash" $iterations check-startup
run_to_end "$work/flash/fw.elf" "$work/flash.out"
cat "$work/flash.out"

step "profile it: QEMU's gdbstub, sampled by ramplace record"
record "$work/flash/fw.elf" "$work/profile.db" "$work/record.out"
cmp -s "$work/flash.out" "$work/record.out" || { echo "loop: output under sampling differs" >&2; exit 1; }
"$RAMPLACE" report --limit 12 "$work/profile.db"

step "place the hottest functions into $BUDGET of $ram_name"
mkdir -p "$work/ram"
"$RAMPLACE" place --budget "$BUDGET" --map "$work/flash/fw.map" -o "$work/ram/ramtext.ld" \
	"$work/profile.db" "$work/flash/fw.elf"

step "relink with the generated ramtext.ld and check the plan landed"
make -s -C "$here" BUILD="$work/ram" RAMTEXT_LD="$work/ram/ramtext.ld" $iterations >/dev/null
"$RAMPLACE" check --plan "$work/ram/ramtext.ld.plan" "$work/ram/fw.elf"

step "run the relinked firmware: its output must not change"
run_to_end "$work/ram/fw.elf" "$work/ram.out"
if ! cmp "$work/flash.out" "$work/ram.out"; then
	diff "$work/flash.out" "$work/ram.out" | head -20 >&2
	echo "loop: the relinked firmware prints something else" >&2
	exit 1
fi
echo "output byte-identical to the flash-only build ($(wc -c <"$work/ram.out") bytes)"

step "the gain: profile the relinked firmware and measure where it now executes"
record "$work/ram/fw.elf" "$work/after.db" "$work/after.out"
before=$("$RAMPLACE" report --elf "$work/flash/fw.elf" --limit 0 "$work/profile.db" | tail -1)
after=$("$RAMPLACE" report --elf "$work/ram/fw.elf" --limit 0 "$work/after.db" | tail -1)
echo "before: $before"
echo "after:  $after"
share() { grep -Eo '[0-9.]+% of samples in code running from RAM' <<<"$1" | grep -Eo '^[0-9.]+%'; }
moved=$(grep -c '^unit ' "$work/ram/ramtext.ld.plan")
echo
echo "gain: $moved function(s) moved into $BUDGET of $ram_name; sampled execution from $ram_name: $(share "$before") -> $(share "$after")"
