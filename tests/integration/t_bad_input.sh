#!/usr/bin/env bash
# t_bad_input.sh: every kind of bad input the spine refuses gets one line on stderr,
# "ramplace: <file or host>: <what is wrong>", exit status 2, and leaves nothing half-written:
# a missing, corrupt or non-ELF file, an ELF without symbols, an empty profile, budgets of 0 and
# larger than the RAM region, an unreadable and a locked profile.db, a bad import file.
# (Unreachable gdbservers and garbage RSP replies: t_record_faults.sh.)
# Needs: $RAMPLACE, $RAMPLACE_SRC; python3.
. "$(dirname "$0")/lib.sh"
holder_pid=""
on_exit '[ -n "$holder_pid" ] && kill "$holder_pid" 2>/dev/null'
cd "$work"
elf=$RAMPLACE_SRC/tests/data/maptest/maptest.elf
map=$RAMPLACE_SRC/tests/data/maptest/maptest.map
stripped=$RAMPLACE_SRC/tests/data/elf/arm-m3-stripped.elf

# expect_refusal NAME SUBJECT WHAT COMMAND...: exit 2, one stderr line naming SUBJECT and WHAT,
# and no ramtext.ld / plan written.
expect_refusal() {
	local name=$1 subject=$2 what=$3
	shift 3
	rm -f ramtext.ld ramtext.ld.plan
	local status=0
	"$@" >out.txt 2>err.txt || status=$?
	local lines
	lines=$(wc -l <err.txt)
	if [ "$status" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q "^ramplace: .*$subject.*$what" err.txt &&
		[ ! -e ramtext.ld ] && [ ! -e ramtext.ld.plan ] && ! ls ./*.tmp.* >/dev/null 2>&1; then
		pass "$name: $(cat err.txt)"
	else
		fail "$name: status $status, $lines line(s):"
		sed 's/^/    /' err.txt
	fi
}

# a good profile to start from
printf '0x%x 50\n' 0x214 0x216 >pcs.txt   # two instructions of Reset_Handler
"$RAMPLACE" import --quiet profile.db "$elf" pcs.txt

expect_refusal "missing ELF" "nosuch.elf" "No such file" "$RAMPLACE" --budget 1K profile.db nosuch.elf
echo "just text" >notelf.elf
expect_refusal "not an ELF" "notelf.elf" "not an ELF file" "$RAMPLACE" --budget 1K profile.db notelf.elf
head -c 3000 "$elf" >truncated.elf
expect_refusal "truncated ELF" "truncated.elf" "truncated" "$RAMPLACE" --budget 1K profile.db truncated.elf
expect_refusal "ELF without symbols" "arm-m3-stripped.elf" "no function symbols" "$RAMPLACE" --budget 1K profile.db "$stripped"
expect_refusal "budget 0" "--budget" "0 bytes" "$RAMPLACE" --budget 0 --map "$map" profile.db "$elf"
expect_refusal "budget over the RAM region" "--budget" "larger than the RAM region" "$RAMPLACE" --budget 65K --map "$map" profile.db "$elf"
expect_refusal "budget junk" "--budget" "unknown suffix" "$RAMPLACE" --budget 12Q profile.db "$elf"
mkdir dir.db
expect_refusal "unreadable profile.db" "dir.db" "not a regular file" "$RAMPLACE" --budget 1K dir.db "$elf"
echo "garbage that is not SQLite at all, but long enough to have a header ..........." >junk.db
expect_refusal "corrupt profile.db" "junk.db" "not a database" "$RAMPLACE" --budget 1K junk.db "$elf"

# ramplace.yaml: file:line:column for unknown keys, wrong types, impossible combinations, and
# a closure bigger than the budget explained with how many bytes over
printf 'regions:\n  - name: ram\n    budgett: 1K\n' >typo.yaml
expect_refusal "config: unknown key" "typo.yaml:3:5" "unknown key 'budgett' in a region" "$RAMPLACE" --config typo.yaml profile.db "$elf"
printf 'regions:\n  - {name: ram, budget: [1K]}\n' >type.yaml
expect_refusal "config: wrong type" "type.yaml:2:25" "'budget' must be a single value, not a list" "$RAMPLACE" --config type.yaml profile.db "$elf"
printf 'regions:\n  - {name: ram, budget: 1K}\ncost: {flash-wait-states: 1, cycles-per-flash-fetch: 2}\n' >both.yaml
expect_refusal "config: impossible combination" "both.yaml:3:30" "not both" "$RAMPLACE" --config both.yaml profile.db "$elf"
printf 'regions:\n  - {name: ram, budget: 1K\n' >broken.yaml
expect_refusal "config: broken YAML" "broken.yaml:3:1" "did not find expected" "$RAMPLACE" --config broken.yaml profile.db "$elf"
head -c 100000 /dev/urandom | tr -d '\000' >noise.yaml
expect_refusal "config: binary noise" "noise.yaml:" "" "$RAMPLACE" --config noise.yaml profile.db "$elf"
expect_refusal "config: missing" "nosuch.yaml" "No such file" "$RAMPLACE" --config nosuch.yaml profile.db "$elf"
printf 'regions:\n  - {name: ram, budget: 64}\nclosure: [main]\n' >closure.yaml
expect_refusal "config: closure over the budget" "infeasible" "over the 64-byte budget by" "$RAMPLACE" --config closure.yaml --map "$map" profile.db "$elf"
expect_refusal "budget auto without a map" "budget auto" "needs the link map" "$RAMPLACE" --budget auto profile.db "$elf"

# an empty profile: the database exists but holds no samples
cp profile.db empty.db
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("DELETE FROM samples"); c.commit()' empty.db
expect_refusal "empty profile" "empty.db" "holds no samples" "$RAMPLACE" --budget 1K empty.db "$elf"
: >empty.txt
expect_refusal "empty import file" "empty.txt" "no samples" "$RAMPLACE" import new.db "$elf" empty.txt
if [ ! -e new.db ]; then pass "failed import created no database"; else fail "new.db created"; fi
printf '0x100\nnot-a-pc\n' >bad.txt
expect_refusal "bad import line" "bad.txt" "line 2 (byte 6)" "$RAMPLACE" import profile.db "$elf" bad.txt

# a locked profile.db: another process holds an exclusive transaction; nothing is added
python3 - profile.db <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[1] + ".locked", "w").close()
time.sleep(20)
PY
holder_pid=$!
for _ in $(seq 100); do [ -e profile.db.locked ] && break; sleep 0.1; done
expect_refusal "locked profile.db" "profile.db" "locked" "$RAMPLACE" import profile.db "$elf" pcs.txt
kill "$holder_pid" 2>/dev/null || true
wait "$holder_pid" 2>/dev/null || true
holder_pid=""
runs=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM runs").fetchone()[0])' profile.db)
if [ "$runs" -eq 1 ]; then pass "locked import added no run"; else fail "$runs runs after the locked import"; fi

# a missing profile (a typo, a profiling step that did not run) is refused, nothing written;
# with --allow-empty (a first build) it gives an empty, valid fragment, and `check` of that empty
# plan fails unless it too is told the empty plan is expected
rm -f ramtext.ld ramtext.ld.plan
expect_refusal "missing profile.db" "proflie.db" "no such profile" "$RAMPLACE" --budget 1K --map "$map" proflie.db "$elf"
if [ ! -e ramtext.ld ] && [ ! -e ramtext.ld.plan ]; then pass "missing profile.db: nothing written"; else fail "missing profile.db wrote a fragment"; fi
status=0
"$RAMPLACE" --budget 1K --map "$map" --allow-empty nothing.db "$elf" >out.txt 2>err.txt || status=$?
only_comments=$(python3 -c 'import re,sys; print(re.sub(r"/\*.*?\*/", "", open(sys.argv[1]).read(), flags=re.S).strip() == "")' ramtext.ld)
if [ "$status" -eq 0 ] && grep -q "no profile yet" out.txt && [ "$only_comments" = True ]; then
	pass "no profile.db with --allow-empty: empty fragment"
else
	fail "no profile.db with --allow-empty: status $status"; cat err.txt
fi
status=0
"$RAMPLACE" check --plan ramtext.ld.plan "$elf" >out.txt 2>err.txt || status=$?
if [ "$status" -eq 1 ] && grep -q "the plan moves nothing" out.txt; then pass "check of an empty plan fails and says so"; else fail "check of an empty plan: status $status"; cat out.txt; fi
check "check --allow-empty accepts the empty plan" "$RAMPLACE" check --allow-empty --quiet --plan ramtext.ld.plan "$elf"

finish
