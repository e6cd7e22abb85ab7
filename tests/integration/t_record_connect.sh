#!/usr/bin/env bash
# t_record_connect.sh: `ramplace record` (and `record --runtime`) started before its gdbserver,
# as when QEMU was started in the background a moment before: a refused connection is tried
# again until --connect-timeout, so a gdbserver that comes up a second later is found and
# recorded from; one that never comes ends it with exit status 2, one line, and profile.db
# neither created nor changed. Ctrl-C while it waits ends it at once (exit 130), nothing stored.
# The gdbserver is fake_gdbserver.py on a port chosen before it starts.
# Needs: python3, arm-none-eabi-gcc (a tiny ELF to symbolize against, with the runtime's symbols).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fake-lib.sh"
results_by_name
pcs="$(addr_of hot),$(addr_of warm)"

start_server_later() { # PORT SECONDS: fake_gdbserver.py on PORT after SECONDS
	rm -f port log
	(sleep "$2" && exec python3 "$FAKE" --port "$1" --pcs "$pcs" --port-file port --log log) &
	server_pid=$!
}

# One stderr line starting with "ramplace: " and containing every argument.
one_error_line() {
	[ "$(wc -l <err)" -eq 1 ] && [ "$(cut -c1-10 err)" = "ramplace: " ] || return 1
	local frag
	for frag in "$@"; do grep -qF -- "$frag" err || return 1; done
}
runs() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM runs").fetchone()[0])' "$1"; }

name="a gdbserver that listens a second after record started is found and recorded from"
port=$(free_port)
start_server_later "$port" 1
set +e
# the server comes up a second late on an idle machine, several on a busy one (python's start):
# what is tested is the retrying, so the timeout is generous and not the default's 3 s
timeout 60 "$RAMPLACE" record --quiet --remote "127.0.0.1:$port" --connect-timeout 30000 --samples 20 p.db fw.elf >out 2>err
status=$?
set -e
wait_pid "$server_pid" 30 || true
server_pid=""
if [ "$status" -eq 0 ] && grep -q 'recorded 20 samples' out && [ "$(runs p.db)" = 1 ] && [ ! -s err ]; then pass
else fail "status $status"; fi

name="nothing listening: exit 2, one line, after the connect timeout, no profile.db"
port=$(free_port)
start=$(date +%s%N)
set +e
timeout 30 "$RAMPLACE" record --quiet --remote "127.0.0.1:$port" --connect-timeout 1500 new.db fw.elf >out 2>err
status=$?
set -e
ms=$((($(date +%s%N) - start) / 1000000))
if [ "$status" -eq 2 ] && one_error_line "127.0.0.1:$port: connection refused, still after 1500 ms" &&
   [ "$ms" -ge 1400 ] && [ ! -e new.db ] && [ ! -e new.db-journal ]; then pass
else fail "status $status after $ms ms, new.db $(ls new.db* 2>/dev/null)"; fi

name="nothing listening: an existing profile.db is left unchanged"
echo "$(addr_of hot) 3" >pcs.txt
"$RAMPLACE" import --quiet --format pclist old.db fw.elf pcs.txt
cp old.db before.db
set +e
timeout 30 "$RAMPLACE" record --quiet --remote "127.0.0.1:$port" --connect-timeout 300 old.db fw.elf >out 2>err
status=$?
set -e
if [ "$status" -eq 2 ] && one_error_line "connection refused" && cmp -s old.db before.db; then pass
else fail "status $status, old.db changed: $(cmp old.db before.db 2>&1)"; fi

name="record --runtime, nothing listening: exit 2, one line, no profile.db"
set +e
timeout 30 "$RAMPLACE" record --runtime --remote "127.0.0.1:$port" --connect-timeout 500 rt.db fw.elf >out 2>err
status=$?
set -e
if [ "$status" -eq 2 ] && one_error_line "127.0.0.1:$port: connection refused, still after 500 ms" &&
   [ ! -e rt.db ]; then pass
else fail "status $status, rt.db $(ls rt.db* 2>/dev/null)"; fi

# fake_gdbserver.py sets no breakpoints: the run fails after connecting, and stores nothing
name="record --runtime connects to a gdbserver that listens a second later"
port=$(free_port)
start_server_later "$port" 1
set +e
timeout 60 "$RAMPLACE" record --runtime --remote "127.0.0.1:$port" --connect-timeout 30000 rt.db fw.elf >out 2>err
status=$?
set -e
stop_pid "$server_pid"
server_pid=""
if grep -q '^qSupported' log && ! grep -q 'connection refused' err && [ ! -e rt.db ]; then pass
else fail "status $status, server log: $(head -3 log 2>/dev/null)"; fi

name="ctrl-c while waiting for the gdbserver: exit 130 at once, no profile.db"
port=$(free_port)
set +e
timeout 30 "$RAMPLACE" record --quiet --remote "127.0.0.1:$port" --connect-timeout 20000 int.db fw.elf >out 2>err &
rec_pid=$!
sleep 0.5
kill -INT "$rec_pid"
wait_pid "$rec_pid" 3
status=$?
set -e
rec_pid=""
if [ "$status" -eq 130 ] && one_error_line "127.0.0.1:$port: interrupted while connecting" && [ ! -e int.db ]; then pass
else fail "status $status"; fi

finish
