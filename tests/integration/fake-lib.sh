# fake-lib.sh: what the tests of `ramplace record` against fake_gdbserver.py share (sourced after
# lib.sh, never run on its own): $FAKE (the server), $server_pid and $rec_pid (the server and a
# record in the background, stopped by PID on exit), and, in $work, a tiny Cortex-M ELF fw.elf
# to symbolize against: hot (at address 0), warm, SysTick_Handler, and the runtime's symbols
# ramplace_profile and ramplace_profile_ready; addr_of NAME prints a function's address as 0x....; db_summary DB prints
# "<runs> <samples in all> <samples of the last run> <integrity_check>" ("0 0 0 none" without DB).
# Needs: arm-none-eabi-gcc, python3.
FAKE="$RAMPLACE_SRC/tests/integration/fake_gdbserver.py"
server_pid=""
rec_pid=""
on_exit 'stop_pid "$server_pid"'
on_exit 'stop_pid "$rec_pid"'
cd "$work"
cat >fw.c <<'EOF'
volatile unsigned sink;
unsigned ramplace_profile[16];
__attribute__((noinline)) void hot(void) { for (int i = 0; i < 100; i++) sink += i; }
__attribute__((noinline)) void warm(void) { sink ^= 5; }
__attribute__((noinline)) void ramplace_profile_ready(void) { sink++; }
__attribute__((noinline)) void SysTick_Handler(void) { sink += 2; }
void Reset_Handler(void) { for (;;) { hot(); warm(); ramplace_profile_ready(); } }
EOF
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -O1 -nostdlib -Wl,-Ttext=0 -Wl,-e,Reset_Handler fw.c -o fw.elf
addr_of() { arm-none-eabi-nm fw.elf | awk -v f="$1" '$3 == f { print "0x" $1 }'; }
db_summary() {
	python3 - "$1" <<'EOF'
import os, sqlite3, sys
if not os.path.exists(sys.argv[1]):
    print("0 0 0 none")
else:
    con = sqlite3.connect(sys.argv[1])
    n, s = con.execute("SELECT count(*), coalesce(sum(samples), 0) FROM runs").fetchone()
    last = con.execute("SELECT coalesce((SELECT samples FROM runs ORDER BY id DESC LIMIT 1), 0)").fetchone()[0]
    print(n, s, last, con.execute("PRAGMA integrity_check").fetchone()[0])
EOF
}
