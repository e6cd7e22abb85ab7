#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# t_record_faults.sh: `ramplace record` against a misbehaving gdbserver (fake_gdbserver.py).
#
# Unreachable or garbage-speaking gdbservers must end with exit status 2, one stderr line
# "ramplace: <host:port>: <what>", and no run in profile.db. A gdbserver that dies or stalls
# mid-run, a target that exits, a sample limit and Ctrl-C must keep the samples gathered (one new
# run), say what happened, and detach only when the target is still there.
# Needs: python3, arm-none-eabi-gcc (builds the tiny ELF the samples are symbolized against).
# Env: RAMPLACE (the binary), RAMPLACE_SRC (repo root), RAMPLACE_BUILD (unused).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fake-lib.sh"
results_by_name

# --- the firmware image (fake-lib.sh): functions at known addresses
pcs="$(addr_of hot),$(addr_of hot),$(addr_of warm)"

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_server() { # fault after [more fake_gdbserver.py options]
	rm -f port log
	python3 "$FAKE" --fault "$1" --after "$2" --pcs "$pcs" --port-file port --log log "${@:3}" &
	server_pid=$!
	timeout 10 bash -c 'until [ -s port ]; do sleep 0.05; done'
	port=$(cat port)
}

stop_server() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
		server_pid=""
	fi
}

# The method of the last run in profile.db.
last_method() {
	python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT method FROM runs ORDER BY id DESC LIMIT 1").fetchone()[0])' "$1"
}

# "<runs> <samples>" stored in profile.db so far ("0 0" when it does not exist).
runs() { db_summary "$1" | cut -d' ' -f1,2; }

record() { # args...; sets status
	set +e
	timeout 30 "$RAMPLACE" record --quiet "$@" >out 2>err
	status=$?
	set -e
}

# One stderr line starting with "ramplace: " and containing every argument.
one_error_line() {
	[ "$(wc -l <err)" -eq 1 ] && [ "$(cut -c1-10 err)" = "ramplace: " ] || return 1
	local frag
	for frag in "$@"; do grep -qF -- "$frag" err || return 1; done
}

# --- handshake faults: exit 2, one line, nothing stored
expect_refused() { # name fault message
	name=$1
	local before
	before=$(runs p.db)
	start_server "$2" 0
	record --remote "127.0.0.1:$port" --timeout 500 p.db fw.elf
	stop_server
	if [ "$status" -ne 2 ]; then fail "exit status $status, want 2"
	elif ! one_error_line "ramplace: 127.0.0.1:$port: " "$3"; then fail "want one line 'ramplace: 127.0.0.1:$port: ...$3'"
	elif [ "$(runs p.db)" != "$before" ]; then fail "profile.db changed: $before -> $(runs p.db)"
	else pass; fi
}

name="help"
record --help
if [ "$status" -eq 0 ] && grep -q '^usage: ramplace record --remote HOST:PORT' out && [ ! -s err ]; then pass
else fail "status $status"; fi

name="missing --remote is a usage error"
record p.db fw.elf
if [ "$status" -eq 2 ] && one_error_line "--remote HOST:PORT is required"; then pass; else fail "status $status"; fi

name="bad --method and --min-run are usage errors"
record --remote 127.0.0.1:1 --method dwt-only p.db fw.elf
s1=$status
cp err err1
record --remote 127.0.0.1:1 --min-run -5 p.db fw.elf
if [ "$s1" -eq 2 ] && grep -q 'method wants auto or halt' err1 && [ "$status" -eq 2 ] &&
   one_error_line "--min-run wants microseconds"; then pass; else fail "status $s1/$status"; fi

name="bad --rate and --max-slowdown are usage errors"
record --remote 127.0.0.1:1 --rate fast p.db fw.elf
s1=$status
cp err err1
record --remote 127.0.0.1:1 --max-slowdown 0 p.db fw.elf
if [ "$s1" -eq 2 ] && grep -q -- '--rate wants a rate in Hz (0: as fast as possible) or auto' err1 && [ "$status" -eq 2 ] &&
   one_error_line "--max-slowdown wants a percentage"; then pass; else fail "status $s1/$status"; fi

name="bad elf fails before connecting"
start_server ok 0
record --remote "127.0.0.1:$port" p.db no-such.elf
stop_server
if [ "$status" -eq 2 ] && one_error_line "no-such.elf" && [ ! -s log ]; then pass
else fail "status $status, server log: $(cat log 2>/dev/null)"; fi

name="connection refused"
dead_port=$(free_port)
record --remote "127.0.0.1:$dead_port" --connect-timeout 300 p.db fw.elf
if [ "$status" -eq 2 ] && one_error_line "127.0.0.1:$dead_port: connection refused" &&
   [ "$(runs p.db)" = "0 0" ]; then pass; else fail "status $status"; fi

expect_refused "garbage reply to qSupported" garbage "garbage reply 'xyz' to qSupported"
expect_refused "bad checksum" badcsum "bad checksum in packet at byte 1"
expect_refused "oversized packet" huge "longer than 65536 bytes"
expect_refused "bytes outside a packet" rubbish "garbage 'hello, this is not RSP"
expect_refused "silent gdbserver" silent "gdbserver stopped answering after 500 ms"

# --- a good run first, so that later checks see a non-empty database
name="sample limit, then detach"
start_server ok 0
record --remote "127.0.0.1:$port" --samples 30 p.db fw.elf
stop_server
if [ "$status" -eq 0 ] && grep -q 'recorded 30 samples' out && grep -q 'stopped: samples' out &&
   grep -qx D log && [ "$(runs p.db)" = "1 30" ] && [ ! -s err ]; then pass
else fail "status $status, runs $(runs p.db)"; fi

name="report sees the functions"
set +e; timeout 30 "$RAMPLACE" report p.db >out 2>err; status=$?; set -e
if [ "$status" -eq 0 ] && grep -q 'hot' out && grep -q 'warm' out; then pass; else fail "status $status"; fi

# --- faults mid-run: the samples so far are kept (one more run), the message says so
expect_kept() { # name fault after status message samples
	name=$1
	local n s
	read -r n s < <(runs p.db)
	start_server "$2" "$3"
	record --remote "127.0.0.1:$port" --timeout 300 p.db fw.elf
	stop_server
	if [ "$status" -ne "$4" ]; then fail "exit status $status, want $4"
	elif [ "$4" -ne 0 ] && ! one_error_line "127.0.0.1:$port: $5 (kept $6 samples)"; then fail "want '$5 (kept $6 samples)'"
	elif [ "$4" -eq 0 ] && ! grep -qF "recorded $6 samples" out; then fail "want 'recorded $6 samples'"
	elif [ "$(runs p.db)" != "$((n + 1)) $((s + $6))" ]; then fail "runs $(runs p.db), want $((n + 1)) $((s + $6))"
	elif grep -qx D log; then fail "detached from a gdbserver that is gone"
	else pass; fi
}

expect_kept "gdbserver dies" die 7 2 "gdbserver closed the connection" 7
expect_kept "gdbserver stalls" stall 5 2 "gdbserver stopped answering after 300 ms waiting for the stop reply" 5
expect_kept "target exits" exit 9 0 "" 9
if ! grep -q 'stopped: target exited (status 3)' out; then failed=$((failed + 1)); echo "FAIL: exit reason: $(cat out)"; fi

name="ctrl-c keeps the samples and detaches"
read -r n s < <(runs p.db)
start_server ok 0
set +e
timeout 30 "$RAMPLACE" record --quiet --remote "127.0.0.1:$port" --rate 200 p.db fw.elf >out 2>err &
rec_pid=$!
timeout 10 bash -c 'until [ -f log ] && [ "$(grep -c "<interrupt>" log)" -ge 20 ]; do sleep 0.05; done'
kill -INT "$rec_pid"
wait "$rec_pid"
status=$?
set -e
stop_server
if [ "$status" -eq 130 ] && one_error_line "127.0.0.1:$port: interrupted (kept" && grep -qx D log &&
   [ "$(runs p.db | cut -d' ' -f1)" -eq $((n + 1)) ]; then pass
else fail "status $status, runs $(runs p.db)"; fi

# --- DWT PC sampling (Cortex-M): memory reads of DWT_PCSR while the target runs, no halting.
# hot is at address 0, and a PCSR of 0 means "no PC sampling": sample inside it instead.
dwt_pcs=$(printf '0x%x,0x%x,%s' $(($(addr_of hot) + 4)) $(($(addr_of hot) + 8)) "$(addr_of warm)")
name="dwt: samples without halting, run says dwt"
read -r n s < <(runs p.db)
start_server ok 0 --dwt pcsr --pcs "$dwt_pcs"
record --remote "127.0.0.1:$port" --samples 40 --rate 2000 p.db fw.elf
stop_server
if [ "$status" -eq 0 ] && grep -q 'recorded 40 samples .*dwt)' out && [ "$(last_method p.db)" = dwt ] &&
   [ "$(grep -c '^me000101c,4$' log)" -ge 40 ] && [ "$(grep -c '<interrupt>' log)" -eq 1 ] &&
   grep -q '^Me000edfc,4:00000001$' log && grep -qx D log && [ "$(runs p.db)" = "$((n + 1)) $((s + 40))" ]; then pass
else fail "status $status, method $(last_method p.db), interrupts $(grep -c '<interrupt>' log), reads $(grep -c '^me000101c' log)"; fi

name="dwt: --method halt never reads DWT_PCSR"
start_server ok 0 --dwt pcsr
record --remote "127.0.0.1:$port" --samples 10 --method halt p.db fw.elf
stop_server
# (VTOR, 0xe000ed08, is read once for the exception-entry check: not the DWT)
if [ "$status" -eq 0 ] && [ "$(last_method p.db)" = halt ] && ! grep -q '^me0001\|^Me000\|^me000edfc' log &&
   grep -q '^me000ed08,4$' log; then pass
else fail "status $status, method $(last_method p.db)"; fi

name="dwt: PCSR reads 0, falls back to halting and says why"
start_server ok 0 --dwt zero
record --remote "127.0.0.1:$port" --samples 20 p.db fw.elf
stop_server
if [ "$status" -eq 0 ] && grep -q 'recorded 20 samples .*halt)' out &&
   grep -q 'no DWT sampling: DWT_PCSR reads 0x00000000; halted the target instead' out &&
   [ "$(last_method p.db)" = halt ] && [ "$(grep -c '<interrupt>' log)" -ge 20 ]; then pass
else fail "status $status, method $(last_method p.db)"; fi

name="dwt: no memory reads at all (E01), halting"
start_server ok 0
record --remote "127.0.0.1:$port" --samples 5 p.db fw.elf
stop_server
if [ "$status" -eq 0 ] && grep -q 'no DWT sampling: the gdbserver does not read DEMCR' out && [ "$(last_method p.db)" = halt ]; then pass
else fail "status $status"; fi

expect_kept_dwt() { # name fault after status message samples
	name=$1
	local n s
	read -r n s < <(runs p.db)
	start_server "$2" "$3" --dwt pcsr --pcs "$dwt_pcs"
	record --remote "127.0.0.1:$port" --timeout 300 p.db fw.elf
	stop_server
	if [ "$status" -ne "$4" ]; then fail "exit status $status, want $4"
	elif [ "$4" -ne 0 ] && ! one_error_line "127.0.0.1:$port: $5 (kept $6 samples)"; then fail "want '$5 (kept $6 samples)'"
	elif [ "$4" -eq 0 ] && ! grep -qF "recorded $6 samples" out; then fail "want 'recorded $6 samples'"
	elif [ "$(runs p.db)" != "$((n + 1)) $((s + $6))" ]; then fail "runs $(runs p.db), want $((n + 1)) $((s + $6))"
	elif [ "$(last_method p.db)" != dwt ]; then fail "method $(last_method p.db)"
	else pass; fi
}
expect_kept_dwt "dwt: target exits" exit 9 0 "" 9
expect_kept_dwt "dwt: gdbserver dies" die 6 2 "gdbserver closed the connection" 6
expect_kept_dwt "dwt: gdbserver stalls" stall 4 2 "gdbserver stopped answering after 300 ms waiting for the reply to 'me000101c,4'" 4

finish
