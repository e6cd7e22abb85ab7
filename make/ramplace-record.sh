#!/usr/bin/env bash
# ramplace-record.sh: the `profile` step of the build integrations (make/ramplace.mk,
# cmake/RamPlace.cmake). Starts the user's command that runs the firmware under a gdbserver (QEMU
# -gdb ... -S, OpenOCD, JLinkGDBServer, ...) in the background, waits until HOST:PORT accepts
# connections, runs `ramplace record` against it, then waits for that command to end (QEMU ends
# with the firmware) and stops it, by its process id, if it is still running after --wait.
#
#   ramplace-record.sh [--ramplace BIN] [--remote HOST:PORT] [--wait SECONDS] [--start SECONDS]
#                      profile.db firmware.elf [record options...] [-- command...]
#
# Without a command, only records (the gdbserver is already running). Exit status: that of
# `ramplace record` (2 when the gdbserver never listened).
set -euo pipefail

ramplace=ramplace
remote=127.0.0.1:1234
wait_s=30
start_s=20
while [ $# -gt 0 ]; do
	case $1 in
	--ramplace) ramplace=$2; shift 2 ;;
	--remote) remote=$2; shift 2 ;;
	--wait) wait_s=$2; shift 2 ;;
	--start) start_s=$2; shift 2 ;;
	-h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) break ;;
	esac
done
if [ $# -lt 2 ]; then
	echo "ramplace-record: expects profile.db and firmware.elf (see --help)" >&2
	exit 2
fi
db=$1 elf=$2
shift 2
record_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	record_args+=("$1")
	shift
done
[ $# -gt 0 ] && shift # the --
host=${remote%:*} port=${remote##*:}

server_pid=""
stop_server() {
	[ -n "$server_pid" ] || return 0
	local deadline=$((SECONDS + $1))
	while kill -0 "$server_pid" 2>/dev/null && [ $SECONDS -lt "$deadline" ]; do sleep 0.1; done
	if kill -0 "$server_pid" 2>/dev/null; then
		kill -TERM "$server_pid" 2>/dev/null || true
		sleep 0.5
		kill -KILL "$server_pid" 2>/dev/null || true
	fi
	wait "$server_pid" 2>/dev/null || true
	server_pid=""
}
trap 'stop_server 0' EXIT
trap 'stop_server 0; exit 130' INT TERM

if [ $# -gt 0 ]; then
	"$@" &
	server_pid=$!
	deadline=$((SECONDS + start_s))
	until (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; do
		if ! kill -0 "$server_pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
			echo "ramplace-record: $remote: the gdbserver command did not listen within ${start_s} s: $*" >&2
			exit 2
		fi
		sleep 0.1
	done
fi

status=0
"$ramplace" record --remote "$remote" "${record_args[@]}" "$db" "$elf" || status=$?
stop_server "$wait_s"
exit $status
