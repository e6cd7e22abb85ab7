#!/usr/bin/env bash
# t_runtime_cortex_m3.sh: the target-side sampling runtime (ramplace/runtime) in the Cortex-M3
# example (make PROFILE_RUNTIME=1) under qemu-system-arm -icount shift=0:
#  - the default build is unchanged (no runtime linked), the profiled build computes the same;
#  - the gmon.out it writes over semihosting is read by binutils' arm-none-eabi-gprof (an
#    independent reader) with the hot interpreter loop on top;
#  - the same histogram printed as text on the console (profile_dump_stdout, what a board
#    without a probe sends over its UART) decodes to the semihosting file byte for byte, and
#    `ramplace import` of the whole console log stores what the file gives; a cut-off or
#    mangled dump is refused (exit 2, the byte offset) with nothing stored;
#  - `ramplace record --runtime` pulls the same histogram through the gdbstub: byte-identical
#    to the semihosting file (guest time is deterministic under -icount), stored as a run;
#  - bad cases end with exit 2, one message, and nothing stored.
#  - its per-function shares are within 0.1 (total variation distance) of exact instruction
#    counts of the same workload, with the same top function;
# Needs: arm-none-eabi-gcc + newlib, arm-none-eabi-gprof, qemu-system-arm; $RAMPLACE_BUILD/bench/bench_tvd.
. "$(dirname "$0")/lib.sh"
qemu_pid=""
rec_pid=""
on_exit 'stop_pid "$qemu_pid"'
on_exit 'stop_pid "$rec_pid"'
cd "$work"

ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
make -s -C "$ex" BUILD="$work/plain" ITERATIONS=200 >/dev/null
make -s -C "$ex" BUILD="$work/prof" ITERATIONS=200 PROFILE_RUNTIME=1 >/dev/null
plain=$work/plain/fw.elf
elf=$work/prof/fw.elf

qemu() { # extra args...
	qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
		-semihosting-config enable=on,target=native -icount shift=0 "$@"
}

check "the default build links no runtime" \
	bash -c "! arm-none-eabi-nm '$plain' | grep -q ramplace_profile"

# --- semihosting dump
mkdir run1
(cd run1 && qemu -kernel "$elf" >out 2>&1) && status=0 || status=$?
check "the profiled firmware exits 0" test "$status" -eq 0
qemu -kernel "$plain" >plain.out 2>&1 || true
check "the profiled firmware computes the same" \
	bash -c "grep -v '^profile:' run1/out | cmp -s - plain.out"
check "it reports its samples" grep -Eq '^profile: [0-9]{4,} samples \(0 outside, 0 lost\), 4-byte buckets, 100000 Hz$' run1/out
check "gmon.out is written over semihosting" test -s run1/gmon.out
check "gmon.out starts with the gmon header, version 1" \
	bash -c "head -c 8 run1/gmon.out | od -An -tx1 | tr -d ' \n' | grep -qx 676d6f6e01000000"
arm-none-eabi-gprof -b -p "$elf" run1/gmon.out >gprof.txt 2>&1 || true
check "arm-none-eabi-gprof reads it: vm_run on top" \
	bash -c "awk 'NR > 5 && NF >= 4 { print \$NF; exit }' gprof.txt | grep -qx vm_run"
check "gprof's sample period is the runtime's 10 us" grep -q 'Each sample counts as 1e-05 seconds' gprof.txt

# --- the text dump on the console (make PROFILE_STDOUT=1), as a board without a probe sends it
make -s -C "$ex" BUILD="$work/proftext" ITERATIONS=200 PROFILE_RUNTIME=1 PROFILE_STDOUT=1 >/dev/null
mkdir run3
(cd run3 && qemu -kernel "$work/proftext/fw.elf" >console.log 2>&1) && status=0 || status=$?
check "the firmware with the console dump exits 0" test "$status" -eq 0
cat >decode.py <<'PY'
import sys, zlib
lines = open(sys.argv[1]).read().splitlines()
start = max(i for i, l in enumerate(lines) if l == "ramplace-gmon 1")
end = next(i for i in range(start, len(lines)) if lines[i].startswith("ramplace-gmon end "))
data = bytes.fromhex("".join(lines[start + 1:end]))
n, crc = lines[end].split()[2:]
want = open(sys.argv[2], "rb").read()
sys.exit(0 if data == want and int(n) == len(data) and int(crc, 16) == zlib.crc32(data) else 1)
PY
check "the console dump decodes to the semihosting gmon.out, byte for byte" python3 decode.py run3/console.log run3/gmon.out
"$RAMPLACE" import --quiet text.db "$work/proftext/fw.elf" run3/gmon.out
"$RAMPLACE" import --quiet console.db "$work/proftext/fw.elf" run3/console.log
"$RAMPLACE" report text.db >text.rep 2>&1
"$RAMPLACE" report console.db >console.rep 2>&1
check "import of the whole console log (detected) stores what the file gives" \
	sh -c "cmp -s text.rep console.rep && grep -q vm_run console.rep"
# a console line the firmware did not end before the dump, and two dumps in one log (the last counts)
awk '$0 == "ramplace-gmon 1" && !g { printf "progress: done"; g = 1 } { print }' run3/console.log | grep -v '^$' >glued.log
"$RAMPLACE" import --quiet glued.db "$work/proftext/fw.elf" glued.log
check "a dump whose tag ends a line of other output is found" cmp -s console.rep <("$RAMPLACE" report glued.db 2>&1)
cat run3/console.log run3/console.log >twice.log
"$RAMPLACE" import twice.db "$work/proftext/fw.elf" twice.log >twice.out 2>&1
check "a log with two dumps: the last is imported, and import says so" \
	sh -c "grep -q 'holds 2 profile dumps: the last one is imported' twice.out"
# cut off inside the block; and one hex digit of its first line mangled
head -c "$(($(wc -c <run3/console.log) - 30))" run3/console.log >cut.log
awk 'done == 0 && prev == "ramplace-gmon 1" { $0 = "zz" substr($0, 3); done = 1 } { prev = $0; print }' \
	run3/console.log >mangled.log
for bad in cut mangled; do
	st=0
	"$RAMPLACE" import console.db "$work/proftext/fw.elf" "$bad.log" >/dev/null 2>"$bad.err" || st=$?
	check "a $bad console dump is refused: exit 2, one line naming the file and the byte offset" \
		sh -c "[ $st -eq 2 ] && [ \$(wc -l <$bad.err) -eq 1 ] && grep -q '$bad.log: byte [0-9]*: ' $bad.err"
done
check "nothing is stored from the refused dumps" cmp -s console.rep <("$RAMPLACE" report console.db 2>&1)

# --- pulled through the gdbstub, recording started a second before QEMU (as a script that
# starts QEMU in the background and ramplace at once would): the refused connection is retried
port=$(free_port)
mkdir run2
"$RAMPLACE" record --runtime --remote "127.0.0.1:$port" --connect-timeout 10000 --gmon pulled.out rt.db "$elf" \
	>rec.out 2>rec.err &
rec_pid=$!
sleep 1
(cd run2 && exec qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
	-semihosting-config enable=on,target=native -icount shift=0 \
	-gdb "tcp:127.0.0.1:$port" -S -kernel "$elf" >out 2>&1) &
qemu_pid=$!
wait_pid "$rec_pid" 60 && status=0 || status=$?
rec_pid=""
wait_pid "$qemu_pid" 60 && qstatus=0 || qstatus=$?
qemu_pid=""
check "record --runtime, started before QEMU listens, succeeds" test "$status" -eq 0
check "it says what it read" \
	grep -Eq '^read [0-9]+ samples \([0-9]+ ticks, 0 outside, 0 lost\) in 4-byte buckets at 100000 Hz from gdbserver 127\.0\.0\.1:[0-9]+; stopped: ramplace_profile_ready; run [0-9]+ in rt\.db$' rec.out
check "the firmware runs on to a clean exit after the read" test "$qstatus" -eq 0
check "the pulled gmon.out is byte-identical to the semihosting one" cmp -s pulled.out run1/gmon.out
check "and to the one this run wrote itself" cmp -s pulled.out run2/gmon.out
"$RAMPLACE" report rt.db >report.txt
check "the stored run has vm_run on top" \
	bash -c "awk '\$1 ~ /^[0-9.]+\$/ && NF >= 4 { print \$NF; exit }' report.txt | grep -qx vm_run"
"$RAMPLACE" import --format gmon semi.db "$elf" run1/gmon.out >/dev/null
tvd=$("$RAMPLACE_BUILD/bench/bench_tvd" semi.db rt.db | awk '$1 == "tvd" { print $2 }')
check "pulled and imported from the semihosting file: the same shares (tvd $tvd)" test "$tvd" = 0.0000

# --- against exact counts of the same workload (16 rounds: every instruction traced by QEMU
# -singlestep -d exec,nochain, imported as a pclist); deterministic under -icount, and the
# bound is generous (bench/bench_methods.sh prints the figure: about 0.02 at 64 rounds)
make -s -C "$ex" BUILD="$work/plain16" ITERATIONS=16 >/dev/null
make -s -C "$ex" BUILD="$work/prof16" ITERATIONS=16 PROFILE_RUNTIME=1 PROFILE_INTERVAL_US=8 >/dev/null
mkfifo trace
awk '/^Trace/ { split($0, a, "/"); n[a[2]]++ } END { for (pc in n) print pc, n[pc] }' trace >exact.pclist &
count_pid=$!
qemu -singlestep -d exec,nochain -D trace -kernel "$work/plain16/fw.elf" >/dev/null 2>&1 || true
wait "$count_pid"
"$RAMPLACE" import --quiet --format pclist exact.db "$work/plain16/fw.elf" exact.pclist
mkdir run16
(cd run16 && qemu -kernel "$work/prof16/fw.elf" >out 2>&1) || true
"$RAMPLACE" import --quiet --format gmon rt16.db "$work/prof16/fw.elf" run16/gmon.out
"$RAMPLACE_BUILD/bench/bench_tvd" exact.db rt16.db 1 >tvd.txt
tvd=$(awk '$1 == "tvd" { print $2 }' tvd.txt)
check "runtime vs exact counts: tvd $tvd < 0.1" awk -v t="${tvd:-1}" 'BEGIN { exit !(t < 0.1) }'
check "runtime vs exact counts: the same top function" \
	awk '$1 == "top" && $3 == "vm_run" { found = 1 } END { exit !found }' tvd.txt

# --- bad cases: exit 2, one line, nothing stored
no_run() { # nothing stored: not even an empty database
	[ ! -e bad.db ]
}
bad() { # name, expected message regex, ramplace args...
	local name=$1 want=$2
	shift 2
	rm -f bad.db
	"$RAMPLACE" "$@" >bad.out 2>bad.err && status=0 || status=$?
	check "$name: exit 2" test "$status" -eq 2
	check "$name: message" grep -Eq -e "$want" bad.err
	check "$name: one line" test "$(wc -l <bad.err)" -eq 1
	check "$name: nothing stored" no_run
}
bad "firmware without the runtime" "^ramplace: .*/plain/fw.elf: no data symbol 'ramplace_profile'" \
	record --runtime --remote 127.0.0.1:1 bad.db "$plain"
bad "no such breakpoint function" "^ramplace: .*/prof/fw.elf: no function 'nosuch' to stop on" \
	record --runtime --remote 127.0.0.1:1 --at nosuch bad.db "$elf"
bad "--now with --at" "--now reads at once" record --runtime --remote 127.0.0.1:1 --now --at main bad.db "$elf"

start_halted() {
	port=$(free_port)
	# QEMU itself in the background, not the qemu function (a subshell whose end would
	# leave QEMU running): stop_pid must reach it by its id
	qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
		-semihosting-config enable=on,target=native -icount shift=0 \
		-gdb "tcp:127.0.0.1:$port" -S -kernel "$elf" >/dev/null 2>&1 &
	qemu_pid=$!
	wait_port "$port" 10
}
start_halted
bad "--now before profile_on" "^ramplace: 127\.0\.0\.1:$port: ramplace_profile at 0x[0-9a-f]+: no profile: magic 0x00000000" \
	record --runtime --remote "127.0.0.1:$port" --now bad.db "$elf"
stop_pid "$qemu_pid"
start_halted
bad "the target exits first" "^ramplace: 127\.0\.0\.1:$port: the target exited before reaching Default_Handler" \
	record --runtime --remote "127.0.0.1:$port" --at Default_Handler bad.db "$elf"
stop_pid "$qemu_pid"
qemu_pid=""

finish
