#!/usr/bin/env bash
# t_import_once.sh: every input is read once (issue 13, item 3). A FIFO given as a profile is
# opened once and read to its end before the format is sniffed, so the writer's data all arrive
# (the old code opened, closed and reopened it: the writer hung or lost its data); a FIFO named
# *.prof in a profile directory is skipped and named, never opened (it blocked for ever).
# Needs: $RAMPLACE, $RAMPLACE_SRC; python3, mkfifo, timeout.
. "$(dirname "$0")/lib.sh"
cd "$work"
arm=$RAMPLACE_SRC/tests/data/elf/arm-m3.elf      # a_entry at 0x1078, helper at 0x1000
runs() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*), coalesce(sum(samples),0) from runs").fetchone())' "$1"; }

# a FIFO as the profile: six tries, each must store every sample the writer wrote
mkfifo pc.fifo
good=0
for i in 1 2 3 4 5 6; do
	rm -f f.db
	(printf '1078 5\n107c 3\n1000 2\n' >pc.fifo) &
	writer=$!
	status=0
	timeout 10 "$RAMPLACE" import -q f.db "$arm" pc.fifo 2>err.txt || status=$?
	# a reader that gave up early leaves the writer blocked: end it
	timeout 2 tail --pid="$writer" -f /dev/null || kill "$writer" 2>/dev/null || true
	wait "$writer" 2>/dev/null || true
	if [ "$status" -eq 0 ] && [ "$(runs f.db)" = "(1, 10)" ]; then good=$((good + 1)); else
		echo "try $i: status $status: $(cat err.txt)"; fi
done
if [ "$good" -eq 6 ]; then pass "a FIFO as the profile: 6 of 6 tries store its 10 samples"; else fail "a FIFO as the profile: $good of 6 tries"; fi

# a FIFO among the *.prof files of a directory: named in a note, never opened
mkdir db
printf 'image /bin/fw\n1078 600\n1000 300\n' >db/fw-cec5b034.prof
mkfifo db/stuck-cec5b034.prof
mkdir db/sub-cec5b034.prof
status=0
timeout 10 "$RAMPLACE" import -q d.db "$arm" db 2>err.txt || status=$?
if [ "$status" -eq 0 ] && [ "$(runs d.db)" = "(1, 900)" ] &&
   grep -q 'note: db/stuck-cec5b034.prof: a FIFO, not a regular file: skipped' err.txt &&
   grep -q 'note: db/sub-cec5b034.prof: a directory, not a regular file: skipped' err.txt; then
	pass "a FIFO in a profile directory is skipped and named: $(head -1 err.txt)"
else
	fail "a FIFO in a profile directory: status $status (124: hung): $(cat err.txt)"
fi

# a skipped file whose name holds terminal control bytes (ESC [31m: red): the note shows them
# as \x1b, as error lines do, and writes no raw control byte to the terminal
mkdir esc
printf 'image /bin/fw\n1078 600\n' >esc/fw-cec5b034.prof
mkfifo "esc/red$(printf '\033')[31m-cec5b034.prof"
status=0
timeout 10 "$RAMPLACE" import -q e.db "$arm" esc 2>err.txt || status=$?
if [ "$status" -eq 0 ] && grep -qF 'note: esc/red\x1b[31m-cec5b034.prof: a FIFO, not a regular file: skipped' err.txt &&
   ! LC_ALL=C grep -q "$(printf '\033')" err.txt; then
	pass "a skipped file's control bytes are escaped in the note: $(cat err.txt)"
else
	fail "control bytes in a skipped file's name: status $status: $(cat -v err.txt)"
fi

# nothing but a FIFO: one line, exit 2
mkdir only
mkfifo only/x-cec5b034.prof
status=0
timeout 10 "$RAMPLACE" import -q o.db "$arm" only 2>err.txt || status=$?
if [ "$status" -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q 'only: no regular \*.prof files' err.txt && [ ! -e o.db ]; then
	pass "a directory of only a FIFO: $(cat err.txt)"; else fail "only a FIFO: status $status: $(cat err.txt)"; fi

# standard input is read once as well: sniffed and parsed from the same bytes
status=0
printf '$1 = (void (*)()) 0x1078 <a_entry>\n$2 = (void (*)()) 0x1078 <a_entry>\n' |
	timeout 10 "$RAMPLACE" import -q s.db "$arm" - 2>err.txt || status=$?
tool=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select tool from runs").fetchone()[0])' s.db 2>/dev/null || true)
if [ "$status" -eq 0 ] && [ "$(runs s.db)" = "(1, 2)" ] && [ "$tool" = "import:pclog" ]; then
	pass "standard input: detected as pclog, 2 samples"; else fail "stdin: status $status, tool '$tool': $(cat err.txt)"; fi
finish
