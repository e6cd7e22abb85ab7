#!/usr/bin/env bash
# t_qemu_plugin_out.sh: libramplace-qemu.so never fails silently. An out= in a directory that
# does not exist, an out= that is a directory, and an unknown option each make the plugin fail
# at load with a message on stderr naming the path and the errno text, so that QEMU refuses to
# start (non-zero exit, the firmware never runs); a write that fails at exit (a file size limit
# standing in for a full disk) is reported on stderr and leaves neither the file nor its
# temporary; a good run leaves the file and no temporary.
# Needs: $RAMPLACE_SRC, $RAMPLACE_BUILD; qemu-system-arm.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
cd "$work"
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
fw=$RAMPLACE_SRC/tests/data/qemu-counts/fw.elf

# fails_at_load NAME PLUGIN-ARGS MESSAGE: QEMU exits non-zero before the firmware runs, stderr
# has MESSAGE (a fixed string) and QEMU's refusal
fails_at_load() {
	local name=$1 args=$2 msg=$3 status=0
	run_fw "$fw" -plugin "$plugin,$args" >out.txt 2>err.txt || status=$?
	if [ "$status" -ne 0 ] && grep -qF -- "$msg" err.txt && grep -q 'Could not load plugin' err.txt; then
		pass "$name: exit $status: $(head -1 err.txt)"
	else
		fail "$name: exit $status"
		sed 's/^/    /' err.txt
	fi
}

fails_at_load "out= in a directory that does not exist" "out=/nonexistent/dir/x.txt" \
	"ramplace-qemu: /nonexistent/dir/x.txt: cannot write the counts there: No such file or directory"
mkdir adir
fails_at_load "out= naming a directory" "out=$work/adir" \
	"ramplace-qemu: $work/adir: cannot write the counts there: Is a directory"
fails_at_load "an unknown option" "out=x.txt,colour=blue" "ramplace-qemu: unknown option 'colour=blue' (out=FILE, mode=tb|insn)"
[ ! -e x.txt ] && pass "nothing written after a refused load" || fail "x.txt written after a refused load"

# a write error at exit: a file size limit of 0 (SIGXFSZ ignored, so write() fails with EFBIG;
# creating the empty temporary at load still works). The limit holds for every regular file
# QEMU writes, stderr too: it goes through a pipe.
(trap '' XFSZ; ulimit -f 0; run_fw "$fw" -plugin "$plugin,out=$work/big.txt" 2>&1 >/dev/null) | cat >err.txt || true
left=$(ls big.txt* 2>/dev/null || true)
if grep -qF "ramplace-qemu: $work/big.txt: could not write the counts: File too large" err.txt && [ -z "$left" ]; then
	pass "a write error at exit is reported, no partial file"
else
	fail "write error at exit: left '$left'"
	sed 's/^/    /' err.txt
fi

# a good run: the file, no temporary beside it
run_fw "$fw" -plugin "$plugin,out=$work/good.txt" >/dev/null 2>err.txt
if [ -s good.txt ] && [ "$(ls good.txt*)" = "good.txt" ] && [ ! -s err.txt ] && tail -1 good.txt | grep -qx '# end'; then
	pass "a good run writes the file and leaves no temporary"
else fail "good run: $(ls good.txt* 2>&1)"; cat err.txt; fi

finish
