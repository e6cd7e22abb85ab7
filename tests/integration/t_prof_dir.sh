#!/usr/bin/env bash
# t_prof_dir.sh: "offset count" files in the style of the Itsy profiler's profd (seed 004), and a
# directory of them named name-imageid[-pid].prof as one database of several images: each file
# is matched to its ELF by signature (build-id prefix, or --signature ID=ELF), offsets map to
# functions through the program headers, unmatched images still count in iprof's per-image
# table; and iprof's per-function table (cycles, %, cum %, addr, function).
# Needs: $RAMPLACE, $RAMPLACE_SRC; python3.
. "$(dirname "$0")/lib.sh"
cd "$work"
arm=$RAMPLACE_SRC/tests/data/elf/arm-m3.elf      # build-id cec5b034..., text at file offset 0x1000 = 0x1000
rv=$RAMPLACE_SRC/tests/data/elf/riscv32.elf      # build-id aec5f7b6..., text at 0x20400000

mkdir db
# arm-m3: a_entry is at 0x1078 (file offset 0x1078), helper (a.c) at 0x1000
printf 'image /bin/fw\nversion 2.1\n1078 600\n107c 100\n1000 300\n' >db/fw-cec5b034.prof
# riscv32, matched by --signature (its build-id does not start with 0badc0de), pid 42
printf 'image /bin/rv\n1078 50\n' >db/rv-0badc0de-42.prof
# no ELF at all: counted per image, kept as offsets
printf 'image /lib/libc.so.6\n123 40\n456 10\n' >db/libc-5f673247.prof
printf 'image kernel\n10 4\n' >db/kernel-00000000.prof

"$RAMPLACE" import --quiet --signature 0badc0de="$rv" p.db "$arm" db
"$RAMPLACE" report --by-image p.db >by-image.txt
cat by-image.txt
if python3 - by-image.txt <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.split() and l.split()[0].isdigit()]
got = {r[-1]: r[0] for r in rows}
sys.exit(0 if got == {'arm-m3.elf': '1000', 'riscv32.elf': '50', 'libc.so.6': '50', 'kernel': '4', 'Total': '1104'}
         and rows[0][-1] == 'arm-m3.elf' and rows[0][1] == '90.58%' else 1)
PY
then pass "per-image table: arm-m3.elf 1000, riscv32.elf 50, libc.so.6 50, kernel 4 of 1104"; else fail "per-image table"; fi

"$RAMPLACE" report --addresses --run 1 --elf "$arm" p.db >addr.txt
cat addr.txt
if grep -Eq '^ +700 +70\.00% +70\.00%  0x00001078 a_entry$' addr.txt &&
   grep -Eq '^ +300 +30\.00% +100\.00%  0x00001000 helper' addr.txt && grep -Eq '^ +1000 +Total' addr.txt; then
	pass "per-function table of run 1: a_entry 700 at 0x1078, helper 300"; else fail "per-function table"; fi

rv_run=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select id from runs where source like \"%rv-0badc0de-42%\"").fetchone()[0])' p.db)
rv_funcs=$("$RAMPLACE" report --json - --run "$rv_run" p.db | python3 -c 'import json,sys; print(" ".join(f["name"] for f in json.load(sys.stdin)["functions"]))')
if [ "$rv_funcs" = "a_entry" ]; then pass "--signature: rv's offset 0x1078 is its a_entry (0x20400078)"; else fail "rv run has '$rv_funcs'"; fi

# a single .prof file against one ELF
"$RAMPLACE" import --quiet one.db "$arm" db/fw-cec5b034.prof
tool=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select tool from runs").fetchone()[0])' one.db)
if [ "$tool" = "import:prof" ]; then pass "a single .prof file is detected as prof"; else fail "tool '$tool'"; fi

# bad files: one line with file and byte, exit 2, nothing written
mkdir bad
printf 'image x\n1078 5\nzz top\n' >bad/fw-cec5b034.prof
status=0
"$RAMPLACE" import p2.db "$arm" bad 2>err.txt || status=$?
if [ "$status" -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q 'fw-cec5b034.prof: line 3 (byte 15)' err.txt && [ ! -e p2.db ]; then
	pass "bad file in a directory: $(cat err.txt)"; else fail "bad directory: status $status: $(cat err.txt)"; fi
printf 'image x\nfffff 5\n' >far.prof
status=0
"$RAMPLACE" import p2.db "$arm" far.prof 2>err.txt || status=$?
if [ "$status" -eq 2 ] && grep -q 'far.prof: line 2 (byte 8): offset is in no loadable segment' err.txt; then
	pass "offset outside the ELF: $(cat err.txt)"; else fail "far offset: status $status: $(cat err.txt)"; fi

finish
