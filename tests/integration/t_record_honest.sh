#!/usr/bin/env bash
# t_record_honest.sh: `ramplace record` on a real QEMU keeps the target honest (issue 16 items 1
# and 2), on a Cortex-M3 firmware built here with a known workload and a 1 kHz SysTick interrupt.
#  - Slowdown: the firmware's own run time is measured from its "go" line to its "done" line as
#    QEMU's vCPU thread saw it (/proc schedstat): time on a CPU (its work) and time asleep
#    (halted by the debugger); time waiting for a CPU is left out, so other jobs loading the
#    machine do not count as the recorder's slowdown. The default run (rate chosen by record)
#    must keep asleep / on-CPU within --max-slowdown's 5 % (median of three runs, 2.5 points of
#    measuring noise allowed) and say so (on an idle machine it slept 7.5-8.9 % while record,
#    which then ended a halt when the continue was sent, said 4 %); a forced --rate 0 must show a slowdown of 4 % at least
#    and three times the default runs' (50-58 % on a machine not overloaded) and be warned about. Alone, the
#    firmware sleeps 2.5 % at most, the least of up to three runs (the same measuring noise;
#    1.1 % seen with two other QEMU tests beside it, one run in a few sleeps 3-6 %).
#  - Interrupt bias: QEMU takes a pending SysTick when it halts and stops on the handler's first
#    instruction; before the fix SysTick_Handler got 2-18 % of the halting samples against
#    0.0002 % of the instructions (the plugin's exact counts, measured here too). Now those halts
#    are dropped and counted: the handler's share stays within half a point of the exact one.
#  - QEMU is named as biased, with the exact path.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD (the QEMU plugin); arm-none-eabi-gcc,
# qemu-system-arm, python3.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
qemu_pid="" # the timing wrapper; QEMU itself is its child, its PID in $work/qemu.pid
on_exit 'stop_pid "$qemu_pid"'
on_exit '[ ! -s "$work/qemu.pid" ] || stop_pid "$(cat "$work/qemu.pid")"'
cd "$work"
results_by_name

cat >fw.c <<'EOF'
/* a known workload (work_a two thirds, work_b one third) and a 1 kHz SysTick; exits by semihosting */
#define SYST_CSR (*(volatile unsigned *)0xE000E010)
#define SYST_RVR (*(volatile unsigned *)0xE000E014)
#define SYST_CVR (*(volatile unsigned *)0xE000E018)
volatile unsigned ticks, sink;
extern unsigned _estack;
void SysTick_Handler(void) { ticks++; }
__attribute__((noinline)) void work_a(unsigned n) { for (unsigned i = 0; i < n; i++) sink += i * 3; }
__attribute__((noinline)) void work_b(unsigned n) { for (unsigned i = 0; i < n; i++) sink ^= i; }
static int semi(int op, void *arg)
{
	register int r0 __asm__("r0") = op;
	register void *r1 __asm__("r1") = arg;
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}
void Reset_Handler(void)
{
	SYST_RVR = 25000 - 1; SYST_CVR = 0; SYST_CSR = 7;
	semi(4, "go\n");
	for (unsigned k = 0; k < ITER; k++) { work_a(1000); work_b(500); }
	semi(4, "done\n");
	for (volatile unsigned i = 0; i < 3000000; i++) ; /* time for the host to read /proc */
	semi(0x18, (void *)0x20026);
	for (;;) ;
}
void Default_Handler(void) { for (;;) ; }
__attribute__((section(".vectors"), used)) void (*const vectors[16])(void) = {
	(void (*)(void))&_estack, Reset_Handler, Default_Handler, Default_Handler, Default_Handler,
	Default_Handler, Default_Handler, 0, 0, 0, 0, Default_Handler, Default_Handler, 0,
	Default_Handler, SysTick_Handler,
};
EOF
cat >fw.ld <<'EOF'
MEMORY { FLASH (rx) : ORIGIN = 0, LENGTH = 4M  RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 4M }
SECTIONS {
  .text : { KEEP(*(.vectors)) *(.text*) *(.rodata*) } > FLASH
  .bss (NOLOAD) : { *(.bss*) *(COMMON) } > RAM
  _estack = ORIGIN(RAM) + LENGTH(RAM);
}
EOF
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -O1 -g -nostdlib -ffunction-sections -DITER=400000 -T fw.ld \
	-Wl,-e,Reset_Handler fw.c -o fw.elf

# fwtime.py QEMU-ARGS...: runs QEMU, prints "<on-CPU s> <asleep s> <waiting for a CPU s>" of its
# vCPU thread between the firmware's "go" and "done" lines
cat >fwtime.py <<'EOF'
import os, subprocess, sys, time
def vcpu(pid):
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            if "CPU" in open("/proc/%d/task/%s/comm" % (pid, tid)).read():
                run, wait, _ = open("/proc/%d/task/%s/schedstat" % (pid, tid)).read().split()
                return int(run), int(wait)
        except OSError:
            pass
    sys.exit("no vCPU thread in QEMU %d" % pid)
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
with open("qemu.pid", "w") as f:
    f.write("%d\n" % p.pid)
marks = {}
for line in p.stdout:
    word = line.strip().decode(errors="replace")
    if word in ("go", "done") and word not in marks:
        marks[word] = (time.monotonic_ns(),) + vcpu(p.pid)
p.wait()
if "done" not in marks:
    sys.exit("the firmware did not finish (status %d)" % p.returncode)
(t0, r0, q0), (t1, r1, q1) = marks["go"], marks["done"]
run, wait = r1 - r0, q1 - q0
print("%.4f %.4f %.4f" % (run / 1e9, (t1 - t0 - run - wait) / 1e9, wait / 1e9))
EOF
qemu=(qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none -name fw,debug-threads=on
	-semihosting-config enable=on,target=native -kernel fw.elf)

# timed_record DB [record options]: one recorded run; sets oncpu asleep slow (asleep / on-CPU, %)
timed_record() {
	local db=$1 port
	shift
	port=$(free_port)
	rm -f "$db" qemu.pid
	timeout 120 python3 fwtime.py "${qemu[@]}" -gdb "tcp:127.0.0.1:$port" -S >time.out 2>time.err &
	qemu_pid=$!
	wait_port "$port" 20
	timeout 120 "$RAMPLACE" record --quiet --remote "127.0.0.1:$port" "$@" "$db" fw.elf >"$db.out" 2>"$db.err" || true
	wait_pid "$qemu_pid" 60 || true
	qemu_pid=""
	read -r oncpu asleep _ <time.out || { oncpu=0 asleep=0; }
	slow=$(awk -v a="$asleep" -v r="$oncpu" 'BEGIN { printf "%.2f", (r > 0 ? 100 * (a > 0 ? a : 0) / r : 999) }')
}
# the slowdown record reported in DB.out
reported() { sed -n 's/^slowdown: \([0-9.]*\) %.*/\1/p' "$1.out"; }
# SysTick_Handler's share of DB's samples, in %
share() {
	python3 - "$1" <<'EOF'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
tot = con.execute("SELECT sum(count) FROM samples").fetchone()[0] or 0
h = con.execute("SELECT coalesce(sum(count), 0) FROM samples WHERE function = 'SysTick_Handler'").fetchone()[0]
print("%.4f" % (100.0 * h / tot if tot else 100))
EOF
}
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }

# Sleep the host imposes (I/O, a page fault, the iothread holding the lock) only adds to the
# measure, never takes from it: the least of up to three runs is its floor (one CI run alone slept
# 6 %, 0.18 s of 2.97 s, where the others slept under 1 %).
name="alone, the firmware sleeps 2.5 % at most (the measure sees no halts where there are none)"
alones=()
for i in 1 2 3; do
	timeout 120 python3 fwtime.py "${qemu[@]}" >time.out 2>time.err || true
	read -r oncpu asleep _ <time.out || true
	alone=$(awk -v a="${asleep:-1}" -v r="${oncpu:-0}" 'BEGIN { printf "%.2f", (r > 0 ? 100 * (a > 0 ? a : 0) / r : 999) }')
	alones+=("$alone")
	awk -v s="$alone" 'BEGIN { exit !(s <= 2.5) }' && break
done
if awk -v s="$alone" 'BEGIN { exit !(s <= 2.5) }'; then pass; echo "  alone: $oncpu s on a CPU, $asleep s asleep (runs: ${alones[*]} %)"
else fail "asleep ${alones[*]} % ($(cat time.out time.err))"; fi

name="exact counts: SysTick_Handler runs a tiny share of the instructions"
timeout 120 "${qemu[@]}" -plugin "$RAMPLACE_BUILD/libramplace-qemu.so,out=$work/exact.txt" >/dev/null 2>&1
"$RAMPLACE" import --quiet --format qemu exact.db fw.elf exact.txt
exact=$(share exact.db)
if awk -v s="$exact" 'BEGIN { exit !(s > 0 && s < 0.01) }'; then pass; echo "  exact share $exact %"
else fail "exact share $exact %"; fi

name="default rate: slowdown within --max-slowdown 5 % (median of 3), reported as such"
slows=() reps=() shares=() dropped=0
for i in 1 2 3; do
	timed_record "d$i.db"
	slows+=("$slow") reps+=("$(reported "d$i.db")") shares+=("$(share "d$i.db")")
	dropped=$((dropped + $(sed -n 's/^dropped \([0-9]*\) halts.*/\1/p' "d$i.db.out" | grep . || echo 0)))
	echo "  run $i: on a CPU $oncpu s, asleep $asleep s: $slow %; record says $(reported "d$i.db") %;" \
		"$(sed -n 's/^recorded \([0-9]*\) samples.*/\1/p' "d$i.db.out") samples, SysTick $(share "d$i.db") %"
done
if awk -v s="$(median3 "${slows[@]}")" -v r="$(median3 "${reps[@]}")" 'BEGIN { exit !(s <= 7.5 && r <= 5.0) }' &&
   grep -q 'covered: the whole run' d1.db.out; then pass
else fail "slowdowns ${slows[*]} %, reported ${reps[*]} %"; fi

name="--rate 0: a slowdown far over the bound, measured and warned about"
timed_record r0.db --rate 0
echo "  --rate 0: on a CPU $oncpu s, asleep $asleep s: $slow %; record says $(reported r0.db) %; SysTick $(share r0.db) %"
r0_dropped=$(sed -n 's/^dropped \([0-9]*\) halts.*/\1/p' r0.db.out)
# (58 % and 50 % on a machine under load average 2-6, 19 % at load average 13 and 5-8 % at
# load 10 with 8 other jobs: fewer halts get done). What must hold under any load: the measure
# sees it, well above the default runs' own slowdown, and record reports it over the bound.
d_median=$(median3 "${slows[@]}")
if awk -v s="$slow" -v d="$d_median" -v r="$(reported r0.db)" 'BEGIN { exit !(s >= 4 && s >= 3 * d && r >= 20) }' &&
   grep -q 'warning: --rate 0 slowed the target by' r0.db.err; then pass
else fail "slowdown $slow %, reported $(reported r0.db) %: $(cat r0.db.err)"; fi

name="SysTick: halts on its entry are dropped, its share stays near the exact one"
ok=1
for s in "${shares[@]}" "$(share r0.db)"; do
	awk -v s="$s" -v e="$exact" 'BEGIN { exit !(s <= e + 0.5) }' || ok=0
done
if [ "$ok" = 1 ] && [ "${r0_dropped:-0}" -ge 1 ]; then pass; echo "  dropped ${r0_dropped} halts at --rate 0, $dropped in the default runs"
else fail "SysTick shares ${shares[*]} $(share r0.db) % against exact $exact %, dropped '${r0_dropped}'"; fi

name="QEMU is named as biased, with the plugin as the exact path"
if grep -q 'is QEMU: its gdbstub halts only between translation blocks' d1.db.err &&
   grep -q 'import --format qemu d1.db fw.elf counts.txt' d1.db.err; then pass
else fail "$(cat d1.db.err)"; fi

finish
