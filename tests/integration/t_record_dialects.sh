#!/usr/bin/env bash
# t_record_dialects.sh: `ramplace record` against the dialects of the gdbservers users run, as
# fake_gdbserver.py --dialect reproduces them (OpenOCD, SEGGER J-Link, pyOCD, probe-rs, QEMU;
# docs/sampling.md says what each does and where that was read). For every dialect:
#  - halting: every sample lands in the functions the server reports (the pc is found in `g`,
#    `p` or the expedited registers of whatever stop reply the dialect sends), the run ends at
#    --samples and detaches (D);
#  - DWT (a Cortex-M that serves DWT_PCSR): servers that read memory while the core runs are
#    sampled without halting (method dwt, no interrupt sent); pyOCD, which answers only after
#    the next halt, and QEMU, which halts the VM, fall back to halting and say why;
#  - exception entries: when every third halt lands on SysTick_Handler's first instruction with
#    lr = EXC_RETURN, those halts are dropped and counted, and the handler gets no sample;
#  - QEMU is named as biased, with the exact path (the plugin, import --format qemu).
# Console packets (OpenOCD's log lines, J-Link's semihosting output) arrive while the target runs.
# Needs: $RAMPLACE, $RAMPLACE_SRC; python3, arm-none-eabi-gcc, sqlite3 (python module).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fake-lib.sh"
results_by_name

warm=$(addr_of warm)
handler=$(addr_of SysTick_Handler)
ready=$(addr_of ramplace_profile_ready)
pcs="$ready,$ready,$warm" # not hot: it is at address 0, which DWT_PCSR reads when it samples nothing

start_server() { # dialect [more fake_gdbserver.py options]
	rm -f port log
	python3 "$FAKE" --dialect "$1" --pcs "$pcs" --port-file port --log log --lifetime 60 "${@:2}" &
	server_pid=$!
	timeout 10 bash -c 'until [ -s port ]; do sleep 0.05; done'
	port=$(cat port)
}

record() { # db args...; sets status
	local db=$1
	shift
	rm -f "$db"
	set +e
	timeout 60 "$RAMPLACE" record --quiet --remote "127.0.0.1:$port" "$@" "$db" fw.elf >out 2>err
	status=$?
	set -e
	wait_pid "$server_pid" 10 || stop_pid "$server_pid"
	server_pid=""
}

# "function count" lines of the last run, sorted by name
functions() {
	python3 - "$1" <<'EOF'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
run = con.execute("SELECT max(id) FROM runs").fetchone()[0]
for f, n in con.execute("SELECT function, sum(count) FROM samples WHERE run_id = ? GROUP BY function ORDER BY function", (run,)):
    print(f, n)
EOF
}
method() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT method FROM runs").fetchone()[0])' "$1"; }

for d in openocd jlink pyocd probe-rs qemu; do
	name="$d: halting samples land where the server says, detached at --samples"
	start_server "$d"
	record "h-$d.db" --method halt --samples 60 --rate 0
	got=$(functions "h-$d.db" | tr '\n' ' ')
	if [ "$status" -eq 0 ] && grep -q 'recorded 60 samples' out && [ "$got" = "ramplace_profile_ready 40 warm 20 " ] && grep -qx D log; then pass
	else fail "status $status, samples: $got; $(head -2 err)"; fi

	name="$d: DWT when memory is read while the core runs, else halting with the reason"
	start_server "$d" --dwt pcsr
	record "d-$d.db" --samples 60 --rate 0 --timeout 700
	m=$(method "d-$d.db" 2>/dev/null || echo none)
	case $d in
	pyocd) want=halt note='no DWT sampling: no answer to a memory read while running' ;;
	qemu) want=halt note='no DWT sampling: the gdbserver halts the target to read memory' ;;
	*) want=dwt note='slowdown: none, the target was never halted (DWT)' ;;
	esac
	interrupts=$(grep -c '^<interrupt>$' log || true)
	if [ "$status" -eq 0 ] && [ "$m" = "$want" ] && grep -qF "$note" out && grep -q 'recorded 60 samples' out &&
	   { [ "$want" = halt ] || [ "$interrupts" -le 1 ]; }; then pass
	else fail "status $status, method $m (want $want), $interrupts interrupts; $(cat out err | head -4)"; fi

	name="$d: halts that stop on an exception entry are dropped, the handler gets none"
	start_server "$d" --vectors --exc-pc "$handler" --exc-every 3
	record "e-$d.db" --method halt --samples 60 --rate 0
	got=$(functions "e-$d.db" | tr '\n' ' ')
	dropped=$(sed -n 's/^dropped \([0-9]*\) halts that stopped on an exception.*/\1/p' out)
	# 60 kept samples take about 90 halts, every third on the entry
	if [ "$status" -eq 0 ] && [ "${dropped:-0}" -ge 25 ] && [ "${dropped:-0}" -le 35 ] && ! grep -q SysTick <<<"$got" &&
	   grep -q 'recorded 60 samples' out; then pass
	else fail "status $status, dropped '${dropped}', samples: $got; $(head -2 err)"; fi
done

for d in openocd jlink; do
	name="$d: console packets while the target runs are skipped; a --duration run warns it was not covered"
	start_server "$d"
	record "c-$d.db" --method halt --duration 1 --rate 20
	if [ "$status" -eq 0 ] && [ "$(grep -c '^<console>$' log)" -ge 5 ] && [ "$(functions "c-$d.db" | wc -l)" -ge 1 ] &&
	   grep -q 'warning: the run was not covered: the target was still running when --duration ended it' err; then pass
	else fail "status $status, $(grep -c '^<console>$' log) console packets; $(cat err)"; fi
done

name="qemu: record names QEMU's halting samples as biased and the exact path"
start_server qemu
record q.db --method halt --samples 20
if [ "$status" -eq 0 ] && grep -q "is QEMU: its gdbstub halts only between translation blocks" err &&
   grep -qF -- "-plugin libramplace-qemu.so,out=counts.txt, then ramplace import --format qemu q.db fw.elf counts.txt" err; then pass
else fail "status $status; $(cat err)"; fi

name="not QEMU: no such warning (openocd)"
start_server openocd
record o.db --method halt --samples 20
if [ "$status" -eq 0 ] && ! grep -q "is QEMU" err; then pass; else fail "status $status; $(cat err)"; fi

finish
