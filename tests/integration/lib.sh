# lib.sh: the scaffolding every integration test shares (sourced, never run on its own).
#
# Use: put `. "$(dirname "$0")/lib.sh"` first in a t_*.sh script (before anything that needs
# $RAMPLACE_SRC), then end it with `finish`. Sourcing it
#  - sets `set -euo pipefail`;
#  - requires $RAMPLACE (the binary) and $RAMPLACE_SRC (the repository root); a script that also
#    needs $RAMPLACE_BUILD checks it itself;
#  - sources scripts/qemu-lib.sh (free_port, wait_port, wait_pid, stop_pid);
#  - makes a temporary directory $work, removed on exit unless KEEP_WORK is set (the script may
#    `cd` into it);
#  - sets passed=0 and failed=0 and defines
#      pass WHAT          counts a pass and prints "ok: WHAT"
#      fail WHAT          counts a failure and prints "FAIL: WHAT"
#      check WHAT CMD...  runs CMD: pass WHAT when it succeeds, fail WHAT when not
#      results_by_name    switches pass/fail to the style where $name names the case: `pass`
#                         prints "ok: $name", `fail WHY...` prints "FAIL: $name: WHY" and the
#                         case's stdout and stderr (the files out and err of the current folder)
#      finish             prints "N passed, N failed" and exits 0, or 1 when anything failed
#      on_exit 'CMD'      adds CMD to what runs on exit, before $work is removed (in the order
#                         given; expanded then, so `on_exit 'stop_pid "$qemu_pid"'` ends the QEMU
#                         running at exit): never `trap ... EXIT` in a script, it would drop these
#      run_fw ELF [ARGS...]  runs ELF on QEMU's mps2-an385 (Cortex-M3) with semihosting, the
#                         firmware's output on stdout, ARGS after -kernel; killed after
#                         $fw_timeout seconds (60 unless the script sets it)
#      nm_addr ELF NAME   the address of the first symbol NAME in ELF (arm-none-eabi-nm)
#      cycles_of COUNTS   a QEMU plugin counts file's modeled cycles: instructions plus the stall
#                         cycles its header states
#      need_corpus WHAT PATH...  sets $corpus to $RAMPLACE_CORPUS (the third-party trees of
#                         docs/corpus.md) when every PATH (relative to it) exists; otherwise
#                         says what is missing in one line and exits 77, which CTest reports as
#                         "not run" (SKIP_RETURN_CODE), or fails the test when the corpus is
#                         promised: CI=true or RAMPLACE_REQUIRE_CORPUS=1
set -euo pipefail
: "${RAMPLACE:?set RAMPLACE to the ramplace binary}"
: "${RAMPLACE_SRC:?set RAMPLACE_SRC to the repository root}"
. "$RAMPLACE_SRC/scripts/qemu-lib.sh"

_lib_on_exit=()
on_exit() { _lib_on_exit+=("$1"); }
_lib_exit() { # best effort: never changes the script's exit status
	set +eu
	local cmd
	for cmd in "${_lib_on_exit[@]}"; do eval "$cmd" || true; done
	if [ -n "${KEEP_WORK:-}" ]; then echo "work directory kept: $work" >&2; else rm -rf "$work" || true; fi
}
work=$(mktemp -d)
trap _lib_exit EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }
check() { # WHAT COMMAND...
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}
results_by_name() {
	name=""
	pass() { passed=$((passed + 1)); echo "ok: $name"; }
	fail() {
		failed=$((failed + 1))
		echo "FAIL: $name: $*"
		echo "  stdout: $(cat out 2>/dev/null)"
		echo "  stderr: $(cat err 2>/dev/null)"
	}
}
finish() {
	echo "$passed passed, $failed failed"
	if [ "$failed" -eq 0 ]; then exit 0; fi
	exit 1
}

cycles_of() { awk '$2 == "insns-executed" || $2 == "stall-fetch" || $2 == "stall-read" { s += $3 } END { printf "%.0f\n", s }' "$1"; }

need_corpus() { # WHAT PATH...
	local what=$1 p missing=""
	shift
	corpus=${RAMPLACE_CORPUS:-}
	for p in "$@"; do
		[ -n "$corpus" ] && [ -e "$corpus/$p" ] || missing=${missing:-$p}
	done
	if [ -z "$missing" ]; then
		corpus=$(cd "$corpus" && pwd)
		return 0
	fi
	local why="needs $what from the corpus: ${corpus:-RAMPLACE_CORPUS is not set}${corpus:+ has no $missing}"
	why="$why (docs/corpus.md says which versions and how to set RAMPLACE_CORPUS=DIR)"
	if [ "${CI:-}" = true ] || [ "${RAMPLACE_REQUIRE_CORPUS:-0}" = 1 ]; then
		fail "$why; required here (CI=true or RAMPLACE_REQUIRE_CORPUS=1)"
		finish
	fi
	echo "skipped: $why"
	exit 77
}

fw_timeout=60
run_fw() { # ELF [QEMU ARGS...]
	local elf=$1
	shift
	timeout "$fw_timeout" qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
		-semihosting-config enable=on,target=native -kernel "$elf" "$@"
}
# bounded_run SECONDS OUT ERR COMMAND...: COMMAND (a QEMU) with stdin from /dev/null, stdout in
# OUT and stderr in ERR, in the background so that an exit trap ends it by its process id
# (qemu_pid: on_exit 'stop_pid "$qemu_pid"'), waited for at most SECONDS; its status
bounded_run() {
	local secs=$1 out=$2 errf=$3
	shift 3
	timeout "$secs" "$@" </dev/null >"$out" 2>"$errf" &
	qemu_pid=$!
	local status=0
	wait_pid "$qemu_pid" "$secs" || status=$?
	qemu_pid=""
	return $status
}
make_fw() { # SRC-DIR OUT-DIR [MAKE ARGS...]: make -C SRC-DIR BUILD=OUT-DIR; on failure the log is
	# shown and the test ends, failed
	local src=$1 dir=$2
	shift 2
	make -s -C "$src" BUILD="$dir" "$@" >"$dir.make.log" 2>&1 || { cat "$dir.make.log"; fail "make $dir"; finish; }
}
nm_addr() { arm-none-eabi-nm "$1" | awk -v n="$2" '$3 == n && !f { print $1; f = 1 }'; }
