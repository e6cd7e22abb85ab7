#!/usr/bin/env bash
# t_db_readonly.sh: commands that read profile.db never write it (issue 13, item 10). report and
# diff open it read-only: a version 1 file is read as it is (only import and record migrate it),
# and a file with ramplace's application id and version 1 but other tables is refused, naming
# the file and the table, before anything is migrated: it stays byte-identical.
# Needs: $RAMPLACE, $RAMPLACE_SRC; python3.
. "$(dirname "$0")/lib.sh"
cd "$work"
arm=$RAMPLACE_SRC/tests/data/elf/arm-m3.elf
version() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("pragma user_version").fetchone()[0])' "$1"; }

python3 - <<'PY'
import sqlite3
head = "PRAGMA application_id=1380994115; PRAGMA user_version=1;"   # 0x52504c43 "RPLC"
v1 = sqlite3.connect("v1.db")
v1.executescript(head + """
CREATE TABLE images(id INTEGER PRIMARY KEY, build_id TEXT NOT NULL UNIQUE, build_id_is_hash INTEGER NOT NULL,
 path TEXT NOT NULL, arch TEXT NOT NULL);
CREATE TABLE runs(id INTEGER PRIMARY KEY, image_id INTEGER NOT NULL REFERENCES images(id), source TEXT NOT NULL,
 tool TEXT NOT NULL, method TEXT NOT NULL, started TEXT NOT NULL, rate_hz REAL NOT NULL, duration_s REAL NOT NULL,
 samples INTEGER NOT NULL, stop_reason TEXT NOT NULL);
CREATE TABLE samples(run_id INTEGER NOT NULL REFERENCES runs(id), function TEXT NOT NULL, file TEXT NOT NULL,
 offset INTEGER NOT NULL, count INTEGER NOT NULL, PRIMARY KEY(run_id, function, file, offset)) WITHOUT ROWID;
CREATE TABLE arcs(run_id INTEGER NOT NULL REFERENCES runs(id), caller TEXT NOT NULL, caller_file TEXT NOT NULL,
 callee TEXT NOT NULL, callee_file TEXT NOT NULL, count INTEGER NOT NULL,
 PRIMARY KEY(run_id, caller, caller_file, callee, callee_file)) WITHOUT ROWID;
INSERT INTO images VALUES(1, 'cec5b034', 0, 'fw.elf', 'arm');
INSERT INTO runs VALUES(1, 1, 'file x', 'import:pclist', '', '2024-01-01T00:00:00Z', 0, 0, 7, 'end of file');
INSERT INTO samples VALUES(1, 'a_entry', '', 0, 5), (1, 'helper', 'a.c', 0, 2);
""")
v1.commit()
foreign = sqlite3.connect("foreign.db")
foreign.executescript(head + "CREATE TABLE runs(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO runs VALUES(1, 'mine');")
foreign.commit()
PY
cp v1.db v1.orig
cp foreign.db foreign.orig

for cmd in report diff; do
	status=0
	if [ "$cmd" = report ]; then "$RAMPLACE" report foreign.db >out 2>err || status=$?
	else "$RAMPLACE" diff foreign.db v1.db >out 2>err || status=$?; fi
	if [ "$status" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
	   grep -q "^ramplace: foreign.db: .*schema version 1, but table .* is not ramplace's" err && cmp -s foreign.db foreign.orig &&
	   [ ! -e foreign.db-journal ]; then
		pass "$cmd of a foreign version 1 file: exit 2, file unchanged: $(cat err)"
	else
		fail "$cmd of a foreign version 1 file: status $status, user_version $(version foreign.db): $(cat err)"
	fi
done

status=0
"$RAMPLACE" report v1.db >out 2>err || status=$?
if [ "$status" -eq 0 ] && grep -Eq '71\.43 +5 +5 .*a_entry' out && cmp -s v1.db v1.orig; then
	pass "report reads a version 1 file without migrating it"; else fail "report of version 1: status $status: $(cat err)"; fi
status=0
"$RAMPLACE" diff v1.db v1.db >out 2>err || status=$?
if [ "$status" -eq 0 ] && cmp -s v1.db v1.orig; then pass "diff reads a version 1 file without migrating it"; else
	fail "diff of version 1: status $status: $(cat err)"; fi

# import is the command that migrates (one transaction)
printf '1078 1\n' >one.pclist
"$RAMPLACE" import -q v1.db "$arm" one.pclist
if [ "$(version v1.db)" = 4 ] && "$RAMPLACE" report v1.db >out && grep -Eq '^ +75\.00 +6 +6 .*a_entry' out; then
	pass "import migrates version 1 to 4 (schema 2 scale, 3 cost tables, 4 runs.covered and runs.slowdown) and adds its run"; else fail "import of version 1: $(cat out)"; fi
finish
