# loop-body.sh: the whole ramplace loop on one bundled example firmware, sourced by
# examples/<board>/loop.sh after it has set:
#   here        the example's directory (its Makefile takes BUILD, RAMTEXT_LD, ITERATIONS and
#               has a check-startup target)
#   work        the directory to write into (emptied first)
#   qemu_cmd    array: the QEMU command line up to (not including) -kernel, without -gdb
#   flash_name  what the code runs from ("flash", "XIP flash"); ram_name likewise ("RAM", "DTIM")
#   flash_range the flash addresses, LO-HI in hex, for the QEMU plugin's flash model
# Steps: build with everything in flash -> run in QEMU -> profile it: on QEMU the plugin's exact
# counts by default (PROFILE=exact), with the stall cycles of a flash model (FLASH_MODEL,
# default ws:5, docs/cost-models.md); PROFILE=record samples the PC through QEMU's gdbstub as a
# board's gdbserver would (biased on QEMU: it stops only between translation blocks) and also
# places from exact counts for comparison -> `ramplace place` -> relink -> `ramplace check` ->
# run the relinked firmware (output must be byte-identical) -> its own exact counts under the
# same model: the gain line gives the modeled speed-up the plan predicted and the measured one.
# Exits non-zero when a step fails or the outputs differ.
. "$root/scripts/qemu-lib.sh"
RAMPLACE=${RAMPLACE:-$root/build/ramplace}
BUDGET=${BUDGET:-1K}
PROFILE=${PROFILE:-exact}
FLASH_MODEL=${FLASH_MODEL:-ws:5}
PLUGIN=${PLUGIN:-$(dirname "$RAMPLACE")/libramplace-qemu.so}
iterations=${ITERATIONS:+ITERATIONS=$ITERATIONS}
qemu_pid=""
trap 'stop_pid "$qemu_pid"' EXIT
# no step fails silently: set -e would end the loop without a word, so say which command failed
trap 'echo "loop: failed (status $?) at ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND" >&2' ERR
set -E
rm -rf "$work"
mkdir -p "$work"

step() { printf '\n== %s\n' "$*"; }

run_qemu() { # ELF OUTFILE [extra qemu args...]
	local elf=$1 out=$2
	shift 2
	"${qemu_cmd[@]}" "$@" -kernel "$elf" </dev/null >"$out" 2>"$out.stderr" &
	qemu_pid=$!
}

# qemu_done WHAT OUTFILE SECONDS: waits for the QEMU run_qemu started; when it fails or
# times out, shows what QEMU said (its stderr goes to OUTFILE.stderr) and fails
qemu_done() {
	local status=0
	wait_pid "$qemu_pid" "$3" || status=$?
	qemu_pid=""
	[ "$status" -eq 0 ] && return 0
	[ "$status" -eq 124 ] && echo "loop: $1: QEMU still ran after $3 s and was stopped" >&2
	tail -20 "$2.stderr" >&2
	echo "loop: $1: QEMU exited with status $status (its output: $2, $2.stderr)" >&2
	return 1
}

run_to_end() { # ELF OUTFILE
	run_qemu "$1" "$2"
	qemu_done "running $1" "$2" 120
}

record() { # ELF DB OUTFILE
	local port
	port=$(free_port)
	run_qemu "$1" "$3" -gdb "tcp:127.0.0.1:$port" -S
	wait_port "$port" 10
	# ~2 kHz with random intervals: --rate 0 halts QEMU so often that samples pile up where it
	# can stop the CPU, and slows the firmware several times over
	"$RAMPLACE" record --remote "127.0.0.1:$port" --rate 2000 --duration 120 --timeout 5000 --quiet "$2" "$1"
	qemu_done "recording $1" "$3" 30
}

exact() { # ELF COUNTS OUTFILE: exact counts and the flash model's stall cycles from the plugin
	# -icount: guest time follows instructions, so a firmware that reads a timer counts the same
	# every run (the bundled examples do not, and count the same either way)
	run_qemu "$1" "$3" -icount shift=5,sleep=off \
		-plugin "$PLUGIN,out=$2,mode=insn,model=${FLASH_MODEL//,/,,},flash=$flash_range"
	qemu_done "counting $1 under the plugin" "$3" 600   # a callback per fetch and load: ~10x a plain run
}

# modeled cycles of a plugin file: instructions plus the stall cycles its header states
cycles_of() { awk '$2 == "insns-executed" || $2 == "stall-fetch" || $2 == "stall-read" { s += $3 } END { printf "%.0f\n", s }' "$1"; }
# "modeled cycles (ws:5): 1.2e+06 -> 4.5e+05, 2.66x fewer; ..." -> 2.66
# (the last one: the build loop places again when a link disagrees with its plan)
modeled_gain() { grep -Eo '^modeled cycles .*, [0-9.]+x fewer' "$1" | grep -Eo '[0-9.]+x fewer$' | grep -Eo '^[0-9.]+' | tail -1; }

step "build the firmware, everything in $flash_name"
make -s -C "$here" BUILD="$work/flash" $iterations >/dev/null
make -s -C "$here" BUILD="$work/flash" $iterations check-startup
run_to_end "$work/flash/fw.elf" "$work/flash.out"
cat "$work/flash.out"

step "profile it: exact counts from QEMU's plugin, stall cycles under flash model $FLASH_MODEL"
exact "$work/flash/fw.elf" "$work/flash.counts" "$work/exact.out"
cmp -s "$work/flash.out" "$work/exact.out" || { echo "loop: output under the plugin differs" >&2; exit 1; }
if [ "$PROFILE" = record ]; then
	echo "PROFILE=record: the profile is sampled through QEMU's gdbstub instead (biased on QEMU; exact counts kept for comparison)"
	"$RAMPLACE" import --quiet "$work/exact.db" "$work/flash/fw.elf" "$work/flash.counts"
	record "$work/flash/fw.elf" "$work/profile.db" "$work/record.out"
	cmp -s "$work/flash.out" "$work/record.out" || { echo "loop: output under sampling differs" >&2; exit 1; }
else
	"$RAMPLACE" import --quiet "$work/profile.db" "$work/flash/fw.elf" "$work/flash.counts"
fi
"$RAMPLACE" report --limit 12 "$work/profile.db"

step "place the hottest functions into $BUDGET of $ram_name, relink with the generated ramtext.ld, check the plan landed"
# (make/ramplace-converge.sh: when the link disagrees with the plan, it places again with what
# the link measured, and says so)
mkdir -p "$work/ram"
"$root/make/ramplace-converge.sh" --ramplace "$RAMPLACE" --elf "$work/ram/fw.elf" \
	--budget "$BUDGET" --map "$work/flash/fw.map" -o "$work/ram/ramtext.ld" \
	--html "$work/ram/report.html" --flash-model "$FLASH_MODEL" "$work/profile.db" "$work/flash/fw.elf" \
	-- make -s -C "$here" BUILD="$work/ram" RAMTEXT_LD="$work/ram/ramtext.ld" $iterations | tee "$work/place.out"
if [ "$PROFILE" = record ]; then   # what exact counts would have placed, priced the same way
	mkdir -p "$work/exact"
	"$RAMPLACE" place --budget "$BUDGET" --map "$work/flash/fw.map" -o "$work/exact/ramtext.ld" \
		--flash-model "$FLASH_MODEL" "$work/exact.db" "$work/flash/fw.elf" >"$work/exact-place.out"
fi

step "run the relinked firmware: its output must not change"
run_to_end "$work/ram/fw.elf" "$work/ram.out"
if ! cmp "$work/flash.out" "$work/ram.out"; then
	diff "$work/flash.out" "$work/ram.out" | head -20 >&2
	echo "loop: the relinked firmware prints something else" >&2
	exit 1
fi
echo "output byte-identical to the flash-only build ($(wc -c <"$work/ram.out") bytes)"

step "the gain: exact counts of the relinked firmware under the same flash model"
exact "$work/ram/fw.elf" "$work/ram.counts" "$work/after.out"
"$RAMPLACE" import --quiet "$work/after.db" "$work/ram/fw.elf" "$work/ram.counts"
baseline=$work/profile.db
[ "$PROFILE" = record ] && baseline=$work/exact.db
"$RAMPLACE" check --quiet --plan "$work/ram/ramtext.ld.plan" --profile "$work/after.db" --baseline "$baseline" "$work/ram/fw.elf"
before=$("$RAMPLACE" report --elf "$work/flash/fw.elf" --limit 0 "$work/profile.db" | grep -m1 '^placement in ')
after=$("$RAMPLACE" report --elf "$work/ram/fw.elf" --limit 0 "$work/after.db" | grep -m1 '^placement in ')
echo "before: $before"
echo "after:  $after"
share() { grep -Eo '[0-9.]+% of samples in code running from RAM' <<<"$1" | grep -Eo '^[0-9.]+%'; }
moved=$(grep -c '^unit ' "$work/ram/ramtext.ld.plan")
c0=$(cycles_of "$work/flash.counts") c1=$(cycles_of "$work/ram.counts")
measured=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", a / b }')
echo
echo "gain: $moved function(s) moved into $BUDGET of $ram_name: modeled $(modeled_gain "$work/place.out")x fewer cycles under $FLASH_MODEL" \
	"(placed from the $PROFILE profile$( [ "$PROFILE" = record ] && echo "; exact counts would give $(modeled_gain "$work/exact-place.out")x"));" \
	"measured on the relinked firmware's exact counts: $c0 -> $c1 cycles, ${measured}x fewer;" \
	"execution from $ram_name: $(share "$before") -> $(share "$after")"
