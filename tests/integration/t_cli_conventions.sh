#!/usr/bin/env bash
# t_cli_conventions.sh: the command-line conventions every subcommand shares, on a small profile
# of tests/data/elf/arm-m3.elf (a pclist import: 16 samples, no sampling rate):
#  - options may come after the operands (GNU getopt order), also in the headline form without
#    a subcommand, and `--` still ends the options;
#  - `check -q` prints only the failures and keeps the exit status;
#  - no --help prints a printf escape such as `%%` literally;
#  - `report` prints whole sample counts as integers, and calls sampled return-address arcs
#    (runs of `record`) "arcs", keeping "calls" for gmon.out's counted calls.
# Needs: $RAMPLACE, $RAMPLACE_SRC; sqlite3.
. "$(dirname "$0")/lib.sh"
cd "$work"
results_by_name
elf=$RAMPLACE_SRC/tests/data/elf/arm-m3.elf

run() { # args...; sets status, out, err
	set +e
	"$RAMPLACE" "$@" >out 2>err
	status=$?
	set -e
}
no_usage_error() { ! grep -q "see 'ramplace .* --help'" err; }

printf '1028 8\n1078 5\n10b0 3\n' >pcs.txt # scale, a_entry, b_entry
"$RAMPLACE" import --quiet --format pclist p.db "$elf" pcs.txt

# --- options after operands
# (--allow-boot-path: this ELF's reset handler calls every profiled function, and the plan must
# hold some for check to fail on this unrelinked ELF)
name="place: options after the operands"
run place p.db "$elf" --budget 1K -o x.ld -q --allow-boot-path
if [ "$status" -eq 0 ] && grep -q 'scale' x.ld && [ -s x.ld.plan ] && no_usage_error; then pass; else fail "status $status"; fi

name="headline form (no subcommand): options after the operands"
run p.db "$elf" --budget 1K --output y.ld --quiet
if [ "$status" -eq 0 ] && [ -s y.ld ] && no_usage_error; then pass; else fail "status $status"; fi

name="report: options after the operand"
run report p.db --limit 1
if [ "$status" -eq 0 ] && grep -q ' scale$' out && ! grep -q ' a_entry$' out; then pass; else fail "status $status"; fi

name="diff: options after the operands"
run diff p.db p.db -n 1
if [ "$status" -eq 0 ] && grep -q '^scale ' out && ! grep -q '^a_entry ' out; then pass; else fail "status $status"; fi

name="callgraph: options after the operand"
run callgraph "$elf" --dot
if [ "$status" -eq 0 ] && head -1 out | grep -q '^digraph'; then pass; else fail "status $status"; fi

name="check: options after the operand"
run check "$elf" --plan x.ld.plan
if [ "$status" -eq 1 ] && grep -q '^check: ' out && no_usage_error; then pass; else fail "status $status"; fi

name="record: options after the operands"
run record p.db "$elf" --remote "127.0.0.1:$(free_port)" --connect-timeout 100
if [ "$status" -eq 2 ] && grep -q 'connection refused' err && no_usage_error; then pass; else fail "status $status"; fi

name="-- ends the options"
cp p.db ./-p.db
run report --limit 1 -- -p.db
if [ "$status" -eq 0 ] && grep -q ' scale$' out; then pass; else fail "status $status"; fi

name="-- ends the options: what follows is an operand"
run report -- p.db --limit 1
if [ "$status" -eq 2 ] && grep -q 'expects profile.db' err; then pass; else fail "status $status"; fi

# --- check -q
name="check -q: the failures only, the same exit status"
run check --plan x.ld.plan "$elf"
cp out check.out
loud=$status
run check -q --plan x.ld.plan "$elf"
if [ "$loud" -eq 1 ] && [ "$status" -eq 1 ] && [ -s out ] &&
   [ "$(cat out)" = "$(grep -Ev '^(check|accounting|reset path): ' check.out)" ] &&
   ! grep -Eq '^(check|accounting|reset path): ' out && grep -q 'checks failed' err; then pass
else fail "status $loud/$status"; fi

# --- help texts
name="no --help prints a printf escape"
bad=""
for cmd in $("$RAMPLACE" --help | awk '/^commands:/ { on = 1; next } on && NF { print $1 }'); do
	"$RAMPLACE" "$cmd" --help >help.txt 2>&1 || true
	if grep -q '%%' help.txt; then bad="$bad $cmd"; fi
done
"$RAMPLACE" record --runtime --help >help.txt 2>&1 || true
if grep -q '%%' help.txt; then bad="$bad record-runtime"; fi
"$RAMPLACE" place --help >out 2>err || true
if [ -z "$bad" ] && grep -q 'less than PCT% of' out; then pass; else fail "'%%' in the help of:$bad"; fi

# --- report: integer counts, arcs by what they count
name="report: whole sample counts print as integers"
run report p.db
if grep -Eq '^ +50\.00 +8 +8 +scale$' out && grep -Eq '^ +18\.75 +16 +3 +b_entry$' out; then pass
else fail "want '50.00 8 8 scale'"; fi

cp p.db r.db
sqlite3 r.db "UPDATE runs SET tool = 'record', method = 'halt';
	INSERT INTO arcs VALUES (1, 'a_entry', '', 'scale', '', 6), (1, 'b_entry', '', 'scale', '', 2);"
name="report: sampled arcs are named arcs, with no per-call times"
run report --graph r.db
if grep -Eq '^ time +samples +samples +arcs +name' out && grep -Eq '^ +50\.00 +8 +8 +8 +scale$' out &&
   grep -q '^index % time    self  children    arcs ' out && ! grep -q 'call' out; then pass
else fail "want an 'arcs' column"; fi

name="report --json: arc_counts says what arcs count"
"$RAMPLACE" report --json r.json r.db >/dev/null
"$RAMPLACE" report --json p.json p.db >/dev/null
if grep -q '"arc_counts": "samples"' r.json && grep -q '"arc_counts": "calls"' p.json; then pass
else fail "arc_counts"; fi

finish
