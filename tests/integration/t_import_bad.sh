#!/usr/bin/env bash
# t_import_bad.sh: hostile files for every importer of issue 3 (gmon.out, OpenOCD gmon,
# "offset count" .prof files, QEMU plugin output, QEMU -d exec logs): truncated, oversized,
# wrong-endian, zero-bin and garbage files each give one line on stderr naming the file and
# the byte offset, exit status 2, and leave profile.db exactly as it was.
# Needs: $RAMPLACE, $RAMPLACE_SRC; python3, sqlite3.
set -euo pipefail
: "${RAMPLACE:?}" "${RAMPLACE_SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
passed=0
failed=0
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
		passed=$((passed + 1))
		echo "ok: $name: $(cat err.txt)"
	else
		failed=$((failed + 1))
		echo "FAIL: $name: status $status, $lines line(s):"
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

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
