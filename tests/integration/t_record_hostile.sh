#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# t_record_hostile.sh: `ramplace record` against hostile gdbservers (fake_gdbserver.py's hostile
# modes) stays closed: whatever the server sends (garbage, oversized or run-length bombs, bad
# checksums, silence, endless console output or acks, a packet that never ends, a close
# mid-packet, or nothing at all), record ends within its deadline (--timeout 500 here: the
# elapsed time is measured and bounded), says what happened in one stderr line, and keeps the
# samples it took (one run in profile.db, which passes PRAGMA integrity_check). SIGTERM and
# SIGHUP stop it like Ctrl-C: samples stored, one line naming the signal, exit status 130, also
# while the server floods and with a reply timeout of a minute; and `record --runtime` (against
# QEMU) reads and stores the histogram on SIGTERM and SIGHUP.
# Needs: python3, arm-none-eabi-gcc (the tiny ELF the samples are symbolized against),
# qemu-system-arm and the Cortex-M3 example (for --runtime).
# Env: RAMPLACE (the binary), RAMPLACE_SRC (repo root).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fake-lib.sh"
results_by_name
qemu_pid=""
on_exit 'stop_pid "$qemu_pid"'
pcs="$(addr_of hot),$(addr_of warm)"

start_server() { # fault after [more fake_gdbserver.py options]
	rm -f port log
	python3 "$FAKE" --fault "$1" --after "$2" --pcs "$pcs" --port-file port --log log --lifetime 30 "${@:3}" &
	server_pid=$!
	timeout 10 bash -c 'until [ -s port ]; do sleep 0.05; done'
	port=$(cat port)
}

now_us() { echo "${EPOCHREALTIME/./}"; }

# Runs record in the background (killed after 20 s), sets status and elapsed (seconds, 0.1 s).
# With SIG and MARK: once MARK is a line of the server's log, sends SIG and times from there.
record() { # db [--signal SIG MARK] args...
	local db=$1 sig="" mark="" t0
	shift
	if [ "$1" = --signal ]; then sig=$2 mark=$3; shift 3; fi
	rm -f out err
	t0=$(now_us)
	# --rate 0: the signal cases send their signal at the first interrupt and expect the five
	# samples before the fault to be taken by then, as fast as the fake answers
	"$RAMPLACE" record --quiet --rate 0 --remote "127.0.0.1:$port" "$@" "$db" fw.elf >out 2>err &
	rec_pid=$!
	if [ -n "$sig" ]; then
		timeout 10 bash -c 'until grep -qx -- "$0" log 2>/dev/null; do sleep 0.02; done' "$mark" || true
		t0=$(now_us)
		kill -"$sig" "$rec_pid" 2>/dev/null || true
	fi
	wait_pid "$rec_pid" 20 && status=0 || status=$?
	rec_pid=""
	elapsed=$(awk -v d=$(($(now_us) - t0)) 'BEGIN { printf "%.1f", d / 1e6 }')
	stop_pid "$server_pid"
	server_pid=""
}

# "<runs> <samples of the last run> <integrity>" of profile.db ("none" when it does not exist).
db_state() {
	[ -e "$1" ] || { echo none; return; }
	db_summary "$1" | cut -d' ' -f1,3,4
}

# One stderr line starting with "ramplace: 127.0.0.1:PORT: " and containing every argument.
one_error_line() {
	[ "$(wc -l <err)" -eq 1 ] && grep -q "^ramplace: 127\.0\.0\.1:$port: " err || return 1
	local frag
	for frag in "$@"; do grep -qF -- "$frag" err || return 1; done
}

# expect NAME FAULT STATUS MAX_SECONDS DB_STATE [--signal SIG MARK] -- [record args] -- fragments...
expect() {
	name=$1
	local fault=$2 want=$3 bound=$4 want_db=$5 db="$2.$RANDOM.db" sigargs=() rargs=()
	shift 5
	if [ "$1" = --signal ]; then sigargs=("$1" "$2" "$3"); shift 3; fi
	shift # --
	while [ "$1" != -- ]; do rargs+=("$1"); shift; done
	shift
	start_server "$fault" 5
	record "$db" "${sigargs[@]}" --timeout 500 "${rargs[@]}"
	if [ "$status" -ne "$want" ]; then fail "exit status $status after $elapsed s, want $want"
	elif awk -v e="$elapsed" -v b="$bound" 'BEGIN { exit !(e > b) }'; then fail "took $elapsed s, bound $bound s"
	elif ! one_error_line "$@"; then fail "want one line 'ramplace: 127.0.0.1:$port: ...$*'"
	elif [ "$(db_state "$db")" != "$want_db" ]; then fail "profile.db: $(db_state "$db"), want $want_db"
	else pass; echo "  ($elapsed s) $(cat err)"; fi
}

kept="(kept 5 samples)"
# mid-run faults: 5 samples, then the fault in place of the 6th stop reply
expect "bytes outside a packet" noise 2 5 "1 5 ok" -- -- "outside a packet" "$kept"
expect "oversized packet" oversize 2 5 "1 5 ok" -- -- "longer than 65536 bytes" "$kept"
expect "run-length bomb" rlebomb 2 5 "1 5 ok" -- -- "longer than 65536 bytes once decoded" "$kept"
expect "bad checksum mid-run" badcsum2 2 5 "1 5 ok" -- -- "bad checksum" "$kept"
expect "silence mid-run" stall 2 5 "1 5 ok" -- -- "stopped answering after 500 ms waiting for the stop reply" "$kept"
expect "console flood" flood 2 5 "1 5 ok" -- -- "over 65536 bytes of console output ('O' packets) waiting for the stop reply" "$kept"
expect "console trickle" trickle 2 5 "1 5 ok" -- -- "sent only console output" "for 500 ms waiting for the stop reply" "$kept"
expect "a packet that never ends" dribble 2 5 "1 5 ok" -- -- "bytes of a packet and not its end in 500 ms" "$kept"
expect "endless acks" acks 2 5 "1 5 ok" -- -- "stopped answering after 500 ms waiting for the stop reply" "$kept"
expect "close mid-packet" cut 2 5 "1 5 ok" -- -- "gdbserver closed the connection" "$kept"
# before any sample: nothing to store, so no profile.db
expect "immediate exit" vanish 2 5 "none" -- -- "gdbserver closed the connection"
expect "silence from the start" silent 2 5 "none" -- -- "stopped answering after 500 ms"
expect "flood past --duration" flood 2 5 "1 5 ok" -- --duration 1 -- "console output" "$kept"

# signals, with a reply timeout of a minute: only the signal can end these waits early
long=(--timeout 60000)
expect "SIGTERM in an endless console trickle" trickle 130 3 "1 5 ok" --signal TERM "<trickle>" -- "${long[@]}" -- \
	"stopped by SIGTERM waiting for the stop reply" "$kept"
expect "Ctrl-C in a packet that never ends" dribble 130 3 "1 5 ok" --signal INT "<dribble>" -- "${long[@]}" -- \
	"interrupted waiting for the stop reply" "$kept"
expect "SIGHUP in silence" stall 130 3 "1 5 ok" --signal HUP "<interrupt>" -- "${long[@]}" -- \
	"stopped by SIGHUP waiting for the stop reply" "$kept"

# issue 13: once --duration is over, stopping and detaching are bounded by --timeout (the reply
# timeout), neither cut short nor stretched by the duration: a server that stops answering just
# as the duration ends (or never answers the detach) makes record wait --timeout, no less, no more
# expect_after NAME FAULT DURATION TIMEOUT_MS message...
expect_after() {
	name=$1
	local fault=$2 dur=$3 tmo=$4 db="$2.$RANDOM.db" lo hi
	shift 4
	# the server's clock starts at its first continue, a little after record's: it goes silent
	# 0.2 s before the end, so that the last interrupts, up to the one at the end, go unanswered
	start_server "$fault" 0 --mute-after "$(awk -v d="$dur" 'BEGIN { print d - 0.2 }')"
	record "$db" --duration "$dur" --timeout "$tmo" --rate 200
	lo=$(awk -v d="$dur" -v t="$tmo" 'BEGIN { print d - 0.3 + 0.9 * t / 1000 }')
	hi=$(awk -v d="$dur" -v t="$tmo" 'BEGIN { print d + t / 1000 + 1.5 }')
	if [ "$status" -eq 2 ] && awk -v e="$elapsed" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(e >= lo && e <= hi) }' &&
	   one_error_line "$@" "(kept" && [ "$(db_state "$db" | cut -d' ' -f1,3)" = "1 ok" ]; then pass; echo "  ($elapsed s) $(cat err)"
	else fail "status $status after $elapsed s (want $lo..$hi s), db $(db_state "$db"): $(cat err)"; fi
}
expect_after "silent as --duration ends, short --timeout" mute 1 300 "stopped answering after 300 ms waiting for"
expect_after "silent as --duration ends, --timeout longer than the duration" mute 1 2500 \
	"stopped answering after 2500 ms waiting for"
expect_after "detach never answered" nodetach 1 800 "stopped answering after 800 ms"

# a well-behaved server stopped by SIGTERM: like Ctrl-C, the target is detached and runs on
name="SIGTERM while sampling stores the run and detaches"
start_server ok 0
record term.db --signal TERM "<interrupt>" --rate 200 --timeout 60000
if [ "$status" -eq 130 ] && one_error_line "stopped by SIGTERM (kept" && grep -qx D log &&
   awk -v e="$elapsed" 'BEGIN { exit !(e <= 3) }' && [ "$(db_state term.db | cut -d' ' -f1,3)" = "1 ok" ] &&
   [ "$(db_state term.db | cut -d' ' -f2)" -gt 0 ]; then pass
else fail "status $status after $elapsed s, db $(db_state term.db)"; fi

# run-length-encoded replies (legal RSP) are read like any others
name="run-length-encoded replies"
start_server rle 0
record rle.db --samples 50
# (stderr: only the warning that the forced --rate 0 slowed the target past the bound)
if [ "$status" -eq 0 ] && grep -q 'recorded 50 samples' out && ! grep -v 'warning: --rate 0 slowed the target' err | grep -q . &&
   [ "$(db_state rle.db)" = "1 50 ok" ]; then pass
else fail "status $status, db $(db_state rle.db)"; fi

# record --runtime: SIGTERM or SIGHUP while it waits for the breakpoint halts the target, reads
# the runtime's histogram and stores it, as Ctrl-C does (a real QEMU: the fake serves no runtime)
make -s -C "$RAMPLACE_SRC/examples/qemu-cortex-m3" BUILD="$work/prof" ITERATIONS=100000 PROFILE_RUNTIME=1 >/dev/null
board=(-M mps2-an385 -nographic -monitor none -serial none -icount shift=0 -semihosting-config enable=on,target=native)
for sig in TERM HUP; do
	name="record --runtime stopped by SIG$sig stores the histogram"
	port=$(free_port)
	qemu-system-arm "${board[@]}" -gdb "tcp:127.0.0.1:$port" -S -kernel prof/fw.elf >/dev/null 2>&1 &
	qemu_pid=$!
	wait_port "$port" 10
	"$RAMPLACE" record --runtime --remote "127.0.0.1:$port" --at Default_Handler --timeout 60000 rt$sig.db prof/fw.elf >out 2>err &
	rec_pid=$!
	sleep 2 # the firmware runs and its runtime samples
	t0=$(now_us)
	kill -"$sig" "$rec_pid"
	wait_pid "$rec_pid" 20 && status=0 || status=$?
	rec_pid=""
	elapsed=$(awk -v d=$(($(now_us) - t0)) 'BEGIN { printf "%.1f", d / 1e6 }')
	stop_pid "$qemu_pid"
	qemu_pid=""
	method=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT method FROM runs").fetchone()[0])' rt$sig.db 2>/dev/null || true)
	read -r n samples integrity < <(db_state rt$sig.db) || true
	if [ "$status" -eq 130 ] && awk -v e="$elapsed" 'BEGIN { exit !(e <= 3) }' &&
	   one_error_line "stopped by SIG$sig; the histogram read so far is stored" && grep -q "stopped: stopped by SIG$sig" out &&
	   [ "$n" = 1 ] && [ "$method" = runtime ] && [ "${samples:-0}" -gt 0 ] && [ "$integrity" = ok ]; then
		pass; echo "  ($elapsed s) $(cat err)"
	else fail "status $status after $elapsed s, db $n $samples $integrity $method"; fi
done

finish
