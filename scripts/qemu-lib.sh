# qemu-lib.sh: shell helpers shared by the example loop and the integration tests: a free TCP
# port, starting QEMU with its gdbstub in the background, and ending exactly that QEMU (by its
# process id, never by name) with every wait bounded.

# free_port: prints a TCP port on 127.0.0.1 that nothing listens on right now.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_port PORT SECONDS: waits until something listens on 127.0.0.1:PORT.
wait_port() {
	local port=$1 deadline=$((SECONDS + $2))
	while [ $SECONDS -lt $deadline ]; do
		if python3 -c 'import socket,sys; s=socket.socket(); s.settimeout(0.2); s.connect(("127.0.0.1", int(sys.argv[1])))' "$1" 2>/dev/null; then
			return 0
		fi
		sleep 0.05
	done
	echo "qemu-lib: nothing listens on port $port after $2 s" >&2
	return 1
}

# wait_pid PID SECONDS: waits for a background child to exit; kills it when the time is up.
# Returns the child's exit status (or 124 after a kill).
wait_pid() {
	local pid=$1 deadline=$((SECONDS + $2))
	while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
		sleep 0.05
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		return 124
	fi
	local status=0
	wait "$pid" || status=$?
	return $status
}

# stop_pid PID: ends a background process we started, if it still runs.
stop_pid() {
	if [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; then
		kill -TERM "$1" 2>/dev/null || true
		wait_pid "$1" 5 || true
	fi
}
