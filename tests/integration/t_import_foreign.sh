#!/usr/bin/env bash
# t_import_foreign.sh: a profile taken on one firmware is refused against another firmware's
# ELF, by every importer of addresses. Builds the example interpreter firmware twice (a: -O2,
# b: the same sources at -Os), runs a under libramplace-qemu.so and with -d exec,nochain,in_asm,
# and imports a's counts, log, PC list, .prof directory and a gmon.out against b's ELF: each
# must exit 2 with one line naming the file, the share that verified and what did not match,
# and write nothing; --force imports anyway with that line as a warning. The right pairing
# still imports with the same numbers as before: the plugin file's total, and per function
# the same counts as the -d exec log and as the plugin file without its instruction bytes
# (version 1, checked by address only).
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; qemu-system-arm, arm-none-eabi-gcc, python3.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
cd "$work"
fw_timeout=120
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
make -s -C "$ex" BUILD="$work/a" ITERATIONS=1 >/dev/null
make -s -C "$ex" BUILD="$work/b" ITERATIONS=1 EXTRA_CFLAGS=-Os >/dev/null
a=$work/a/fw.elf
b=$work/b/fw.elf
run_fw "$a" -plugin "$plugin,out=$work/a.txt" >/dev/null
run_fw "$a" -d exec,nochain,in_asm -D "$work/a.log" >/dev/null

counts() { # DB: "function count" lines, sorted
	"$RAMPLACE" report --json - "$1" | python3 -c '
import json, sys
for f in json.load(sys.stdin)["functions"]:
    print(f["name"], round(f["self"]))' | sort
}

# refused NAME FILE ELF WHY [import options...]: exit 2, one stderr line that names FILE (or
# $shown, the file inside a directory FILE), the share that verified and WHY, and no
# profile.db written
refused() {
	local name=$1 file=$2 elf=$3 why=$4 status=0
	shift 4
	rm -f x.db
	"$RAMPLACE" import "$@" x.db "$elf" "$file" >out.txt 2>err.txt || status=$?
	if [ "$status" -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e x.db ] && [ ! -s out.txt ] &&
		grep -Eq "^ramplace: ${shown:-$file}: only [0-9.]+% of [0-9]+ samples verify against $elf \(--min-verified 90%\): .*$why.*: the profile is from another firmware; import it against the ELF it was taken on, or pass --force$" err.txt; then
		pass "$name: $(cut -c1-230 err.txt)"
	else
		fail "$name: status $status"
		sed 's/^/    /' err.txt out.txt
	fi
}

# the right pairing: exit 0, every executed instruction, the log's numbers
total=$(sed -n 's/^# insns-executed //p' a.txt)
if "$RAMPLACE" import a.db "$a" a.txt >out.txt 2>err.txt && [ ! -s err.txt ] &&
	grep -qx "imported $total samples from file a.txt as run 1" out.txt && ! grep -q 'do not verify' out.txt; then
	pass "a's counts against a: all $total instructions, every one verified"
else fail "a's counts against a"; cat out.txt err.txt; fi
"$RAMPLACE" import --quiet alog.db "$a" a.log
counts a.db >c-plugin.txt
counts alog.db >c-log.txt
if cmp -s c-plugin.txt c-log.txt && [ "$(wc -l <c-plugin.txt)" -gt 20 ]; then
	pass "a's counts and a's -d exec log: the same counts for $(wc -l <c-plugin.txt) functions"
else fail "plugin and log counts differ"; diff c-plugin.txt c-log.txt | head; fi
# the same file as version 1 wrote it (no bytes): the same numbers, checked by address
sed -e '1s/ 2$/ 1/' -e 's/^\([0-9a-f]* [0-9]*\) [0-9a-f]*$/\1/' a.txt >a1.txt
"$RAMPLACE" import a1.db "$a" a1.txt >out.txt
counts a1.db >c-v1.txt
if cmp -s c-plugin.txt c-v1.txt && grep -q 'a1.txt is from libramplace-qemu.so version 1, without instruction bytes: checked by address only' out.txt; then
	pass "a version 1 file still imports, with the same counts and a note"
else fail "version 1 file"; cat out.txt; fi

# another firmware's ELF
refused "plugin counts against another firmware" a.txt "$b" "on instruction bytes other than the ELF's; e.g. at 0x[0-9a-f]+ QEMU ran the bytes"
refused "version 1 counts against another firmware" a1.txt "$b" "not on an instruction start"
refused "-d exec,nochain,in_asm log against another firmware" a.log "$b" "on instruction bytes other than the ELF's"
grep '^[0-9a-f]' a.txt | cut -d' ' -f1,2 >a-pcs.txt   # hex PC and count: a PC list
refused "PC list against another firmware" a-pcs.txt "$b" "not on an instruction start; e.g. 0x[0-9a-f]+ is [a-z_]+\+0x[0-9a-f]+, between instructions"
"$RAMPLACE" import --quiet pcs.db "$a" a-pcs.txt && pass "the PC list against its own firmware" || fail "PC list against a"

# --force and --min-verified
status=0
"$RAMPLACE" import --quiet --force f.db "$b" a.txt 2>err.txt || status=$?
if [ "$status" -eq 0 ] && [ "$(wc -l <err.txt)" -eq 1 ] && [ -s f.db ] &&
	grep -q "^ramplace: warning: a.txt: only .* verify against $b .*; imported anyway (--force)$" err.txt; then
	pass "--force imports it with a warning"
else fail "--force: status $status"; cat err.txt; fi
"$RAMPLACE" import --quiet --min-verified 50 m.db "$b" a1.txt 2>err.txt && [ ! -s err.txt ] &&
	pass "--min-verified 50 lets the address-checked file in (it verifies 70-80 %)" || fail "--min-verified 50"

# an "offset count" .prof directory: a's PCs as file offsets, the signature naming b, then a
python3 - "$a" a-pcs.txt <<'PY'
import os, subprocess, sys
segs = []
for l in subprocess.check_output(['arm-none-eabi-readelf', '-lW', sys.argv[1]], text=True).splitlines():
    f = l.split()
    if f and f[0] == 'LOAD':
        segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
os.mkdir('dir')
with open('dir/fw-0badc0de.prof', 'w') as out:
    out.write('image /bin/fw\n')
    for l in open(sys.argv[2]):
        pc, n = l.split()
        pc = int(pc, 16)
        off = next(o + pc - v for o, v, sz in segs if v <= pc < v + sz)
        out.write('%x %s\n' % (off, n))
PY
shown=dir/fw-0badc0de.prof refused "a .prof directory against another firmware" dir "$b" "not on an instruction start" --signature 0badc0de="$b"
rm -f d.db
"$RAMPLACE" import --quiet --signature 0badc0de="$a" d.db "$a" dir && pass "the .prof directory against its own firmware" || fail ".prof directory against a"

# a gmon.out whose histogram covers none of the ELF's code (an address range of RAM)
python3 - <<'PY'
import struct
rec = bytes([0]) + struct.pack('<IIII', 0x60000000, 0x60000100, 64, 100) + b'seconds'.ljust(15, b'\0') + b's' \
    + struct.pack('<64H', *([7] * 64))
open('g.out', 'wb').write(b'gmon' + struct.pack('<I', 1) + b'\0' * 12 + rec)
PY
refused "gmon.out of another program" g.out "$a" "the histogram covers \[0x60000000, 0x60000100\), none of the ELF's code; 448 outside its functions"

finish
