#!/usr/bin/env bash
# t_import_atomic.sh: an import command is one SQLite transaction, undone on every failure
# (issue 13, items 4 and 5). A directory of 3,000 files killed with SIGKILL part-way leaves
# none or all of its runs (the old code committed one transaction per file); a full disk
# during import exits 2 with one line and rolls back before exiting: no profile.db-journal is
# left, the file passes PRAGMA integrity_check and holds exactly the runs it held before.
# The full disk is a 1 MiB tmpfs, which needs root (CI runs as root; elsewhere the case fails
# with that reason, it is never skipped), unmounted on exit.
# Needs: $RAMPLACE, $RAMPLACE_SRC; python3.
. "$(dirname "$0")/lib.sh"
cd "$work"
arm=$RAMPLACE_SRC/tests/data/elf/arm-m3.elf      # build-id cec5b034...
state() { # DB: "integrity runs" as SQLite sees it (this rolls a hot journal back: check files first)
	python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("pragma integrity_check").fetchone()[0], ",".join(str(r[0]) for r in c.execute("select id from runs order by id")) or "-")' "$1"
}

# --- a kill -9 part-way through a directory of 3,000 files: 0 or 3,000 runs, never between
mkdir d
python3 - <<'PY'
for i in range(1, 3001):
    with open("d/fw-cec5b034-%d.prof" % i, "w") as f:
        f.write("image /bin/fw\n1078 %d\n107c 100\n1000 300\n" % i)
PY
printf '1078 5\n' >small.pclist
for try in 1 2 3; do
	rm -f k.db k.db-journal
	"$RAMPLACE" import -q k.db "$arm" small.pclist   # run 1: the schema exists before the kill
	# start the import, wait (at most 20 s) until it has started writing (the journal exists),
	# give it 20, 50 or 100 ms more to get part-way, then SIGKILL it
	killed=$(python3 - "$RAMPLACE" "$arm" "$try" <<'PY'
import os, signal, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "import", "-q", "k.db", sys.argv[2], "d"])
end = time.monotonic() + 20
while p.poll() is None and time.monotonic() < end and not os.path.exists("k.db-journal"):
    time.sleep(0.0002)
time.sleep({"1": 0.02, "2": 0.05, "3": 0.1}[sys.argv[3]])
seen = os.path.exists("k.db-journal")
p.send_signal(signal.SIGKILL)
p.wait()
print("mid-transaction" if seen and p.returncode == -signal.SIGKILL else
      "after the commit" if p.returncode == -signal.SIGKILL else "it exited %d first" % p.returncode)
PY
)
	n=$(python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); assert c.execute("pragma integrity_check").fetchone()[0]=="ok"; print(c.execute("select count(*) - 1 from runs").fetchone()[0])' k.db)
	if [ "$n" = 0 ] || [ "$n" = 3000 ]; then pass "kill -9 ($killed), try $try: integrity ok, $n of 3000 runs"; else
		fail "kill -9 ($killed), try $try: $n of 3000 runs stored"; fi
done

# --- a whole directory is one transaction: all 3,000 runs in one command
"$RAMPLACE" import -q all.db "$arm" d
if [ "$(state all.db)" = "ok $(seq -s, 1 3000)" ]; then pass "a directory of 3000 files: runs 1..3000"; else fail "directory import: $(state all.db | cut -c1-80)"; fi

# --- a full disk
if [ "$(id -u)" -ne 0 ]; then
	fail "full disk: not tested: mounting a tmpfs needs root (run as root, as CI does)"
	finish
fi
mkdir full
if ! mount -t tmpfs -o size=1m tmpfs full 2>/dev/null; then
	fail "full disk: not tested: cannot mount a tmpfs here"
	finish
fi
on_exit "umount '$work/full'"
# 150,000 distinct addresses outside the ELF's functions: as many rows, more than 1 MiB, so
# SQLite spills pages into the file before the disk fills (--min-verified 0: no warning line)
python3 -c 'print("\n".join("%x" % (0x200000 + 4 * i) for i in range(150000)))' >big.pclist
"$RAMPLACE" import -q full/p.db "$arm" small.pclist
before=$(cksum <full/p.db)
status=0
"$RAMPLACE" import -q --min-verified 0 full/p.db "$arm" big.pclist 2>err || status=$?
left=$(cd full && ls -A | grep -v '^p\.db$' | tr '\n' ' ' || true)
after=$(cksum <full/p.db)
if [ "$status" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q '^ramplace: full/p.db: database or disk is full' err &&
   [ -z "$left" ] && [ "$before" = "$after" ] && [ "$(state full/p.db)" = "ok 1" ]; then
	pass "full disk: exit 2, one line, nothing left beside p.db, the file as before (run 1): $(cat err)"
else
	fail "full disk: status $status, left '$left', $( [ "$before" = "$after" ] && echo same || echo changed), $(state full/p.db): $(cat err)"
fi
finish
