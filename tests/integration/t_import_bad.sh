#!/usr/bin/env bash
# t_import_bad.sh: hostile files for every importer of issue 3 (gmon.out, OpenOCD gmon,
# "offset count" .prof files, QEMU plugin output, QEMU -d exec logs): truncated, oversized,
# wrong-endian, zero-bin and garbage files each give one line on stderr naming the file and
# the byte offset, exit status 2, and leave profile.db exactly as it was.
# Needs: $RAMPLACE, $RAMPLACE_SRC; python3, sqlite3.
. "$(dirname "$0")/lib.sh"
cd "$work"
elf=$RAMPLACE_SRC/tests/data/elf/arm-m3.elf
be_elf=$RAMPLACE_SRC/tests/data/elf/arm-m3-be.elf

# a database with one good run to compare against
printf '0x1000 5\n' >good.txt
"$RAMPLACE" import --quiet profile.db "$elf" good.txt
snapshot() { sqlite3 profile.db .dump | md5sum; }
before=$(snapshot)

# expect_refusal NAME FILE WHAT [import options...]: exit 2, one stderr line naming FILE and a
# byte offset and saying WHAT; profile.db unchanged
expect_refusal() {
	local name=$1 file=$2 what=$3 elf_arg=$elf
	shift 3
	if [ "${1:-}" = "--elf" ]; then elf_arg=$2; shift 2; fi
	local status=0
	"$RAMPLACE" import "$@" profile.db "$elf_arg" "$file" >out.txt 2>err.txt || status=$?
	local lines
	lines=$(wc -l <err.txt)
	if [ "$status" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q "^ramplace: $file: .*byte [0-9]*.*$what" err.txt &&
		[ "$(snapshot)" = "$before" ] && [ ! -s out.txt ]; then
		pass "$name: $(cat err.txt)"
	else
		fail "$name: status $status, $lines line(s):"
		sed 's/^/    /' err.txt
	fi
}

python3 - <<'PY'
import struct
def rec(be, lo, hi, bins, rate=100):
    e = '>' if be else '<'
    return bytes([0]) + struct.pack(e + 'IIII', lo, hi, len(bins), rate) + b'seconds'.ljust(15, b'\0') + b's' \
        + b''.join(struct.pack(e + 'H', b) for b in bins)
def hdr(be):
    return b'gmon' + struct.pack('>I' if be else '<I', 1) + b'\0' * 12
good = hdr(0) + rec(0, 0x1000, 0x1100, [3] * 16)
open('gmon.out', 'wb').write(good)
open('truncated.out', 'wb').write(good[:40])
open('shortbins.out', 'wb').write(good[:-3])
# oversized: the histogram claims far more bins than the file holds
over = bytearray(good); struct.pack_into('<I', over, 29, 0x7fffffff); open('oversized.out', 'wb').write(over)
open('zerobins.out', 'wb').write(hdr(0) + rec(0, 0x1000, 0x1100, []))
open('garbage.out', 'wb').write(b'\x89PNG\r\n\x1a\n' + bytes(range(256)))
open('badtag.out', 'wb').write(good + b'\x09')
open('scales.out', 'wb').write(good + rec(0, 0x1080, 0x1100, [1] * 64))
PY

expect_refusal "gmon: truncated header" truncated.out "truncated"
expect_refusal "gmon: truncated bins" shortbins.out "truncated: histogram declares 16 bins"
expect_refusal "gmon: oversized bin count" oversized.out "declares 2147483647 bins"
expect_refusal "gmon: wrong endian" gmon.out "version is 1 in little byte order" --elf "$be_elf"
expect_refusal "gmon: zero bins" zerobins.out "zero bins" --format gmon
expect_refusal "gmon: garbage" garbage.out "not a gmon.out file" --format gmon
expect_refusal "gmon: unknown tag" badtag.out "unknown record tag 9"
expect_refusal "gmon: overlapping records of another scale" scales.out "different scale"
expect_refusal "openocd: truncated" shortbins.out "truncated" --format openocd

# QEMU plugin output and -d exec logs
printf '# ramplace-qemu 1\n# insns-executed 3\n1000 1\n1004 2\n# end\n' >plugin.txt
"$RAMPLACE" import --quiet ok.db "$elf" plugin.txt   # the good file imports
head -c 30 plugin.txt >plugin-trunc.txt
printf '# ramplace-qemu 1\n# insns-executed 3\n1000 1\n1004 2\n' >plugin-noend.txt
printf '# ramplace-qemu 1\n# insns-executed 9\n1000 1\n1004 2\n# end\n' >plugin-sum.txt
printf '# ramplace-qemu 1\n1000 1\nzzz 2\n# end\n' >plugin-garbage.txt
printf '# ramplace-qemu 1\n1000 99999999999999999999999\n# end\n' >plugin-oversized.txt
printf 'Trace 0: 0x7f00 [00000000/00001000/00000110/ff000200] helper\n' >exec.log
"$RAMPLACE" import --quiet ok.db "$elf" exec.log
printf 'Trace 0: 0x7f00 [00000000/00001000/00000110/ff000200] helper\nTrace 0: 0x7f00 [0000' >exec-trunc.log
printf 'Trace 0: 0x7f00 {garbage}\n' >exec-garbage.log
printf 'IN: helper\n0x00001000:  4770  bx lr\n\n' >exec-notrace.log
python3 -c 'import sys; sys.stdout.buffer.write(bytes(b for b in range(1, 256) if b != 10) * 2 + b"\n")' >random.bin
expect_refusal "qemu: truncated" plugin-trunc.txt "truncated"
expect_refusal "qemu: no end line" plugin-noend.txt "truncated: no '# end' line"
expect_refusal "qemu: counts against header" plugin-sum.txt "the counts sum to 3 but the header says 9"
expect_refusal "qemu: garbage line" plugin-garbage.txt "expected 'hex-address decimal-count'"
expect_refusal "qemu: oversized count" plugin-oversized.txt "expected 'hex-address decimal-count'"
expect_refusal "qemu: garbage file" random.bin "not the output of libramplace-qemu.so" --format qemu
expect_refusal "qemu-log: truncated" exec-trunc.log "truncated: the last line has no newline"
expect_refusal "qemu-log: garbage Trace" exec-garbage.log "malformed Trace line"
expect_refusal "qemu-log: no Trace lines" exec-notrace.log "no 'Trace' lines"
expect_refusal "qemu-log: garbage file" random.bin "no 'Trace' lines" --format qemu-log

finish
