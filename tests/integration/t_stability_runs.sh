#!/usr/bin/env bash
# t_stability_runs.sh: what `record` advises when its profile is too thin, by how the run ended.
# A recording that went to the program's exit ("covered the whole run") cannot be made richer
# by a longer --duration: the advice is more whole runs into the same profile.db (runs add up);
# a recording cut short by --samples or --duration is told to record longer (in seconds). The
# server is fake_gdbserver.py: its pcs walk over sixteen 400-byte functions of fw-big.elf, so that
# 24 or 48 samples are near-ties at 1 KiB (a resample that misses one function loses 1/16 of
# the value), so the verdicts are "too few samples" and carry advice The runs' covered and
# slowdown columns (report --json) say the same as the notes.
# Needs: $RAMPLACE, $RAMPLACE_SRC; python3, arm-none-eabi-gcc.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fake-lib.sh"

{
	echo 'volatile unsigned sink;'
	for i in $(seq 0 15); do
		echo "__attribute__((noinline)) void big$i(void) { __asm__ volatile(\".rept 200\\n nop\\n .endr\"); sink += $i; }"
	done
	echo 'void Reset_Handler(void) { for (;;) { big0(); big1(); big2(); big3(); big4(); big5(); big6(); big7(); big8(); big9(); big10(); big11(); big12(); big13(); big14(); big15(); } }'
} >big.c
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -O1 -nostdlib -Wl,-Ttext=0 -Wl,-e,Reset_Handler big.c -o fw-big.elf
pcs=""
while read -r addr _ name; do
	[[ $name == big+([0-9]) ]] && pcs+="${pcs:+,}$(printf '0x%x' $(((0x$addr & ~1) + 16)))"
done < <(arm-none-eabi-nm fw-big.elf)

# take OUT DB "SERVER-OPTIONS" [RECORD-OPTIONS...]: one recording against a fresh fake server;
# sets $v to its stability verdict and $status to its exit status
take() {
	local out=$1 db=$2 server_opts=$3
	shift 3
	rm -f port log
	# shellcheck disable=SC2086 # the server's options are words on purpose
	python3 "$FAKE" --pcs "$pcs" --port-file port --log log --lifetime 60 $server_opts &
	server_pid=$!
	timeout 10 bash -c 'until [ -s port ]; do sleep 0.05; done'
	set +e
	timeout 60 "$RAMPLACE" record --remote "127.0.0.1:$(cat port)" --rate 0 "$@" "$db" fw-big.elf >"$out" 2>&1
	status=$?
	set -e
	wait_pid "$server_pid" 10 || stop_pid "$server_pid"
	server_pid=""
	v=$(grep '^stability: ' "$out" || echo "no stability line: $(cat "$out")")
}

# the target exits after 24 halts: the run covered the program
take whole1.out whole.db "--fault exit --after 24"
if grep -q 'covered: the whole run' whole1.out && [[ $v == *"too few samples"*"more whole run"*"into the same profile.db"* ]] &&
	[[ $v != *" s more"* ]]; then
	pass "a whole run that is too thin: more whole runs asked for, not more seconds ($v)"
else fail "whole run (status $status): $v"; fi

# a second whole run into the same database: both count, the advice is still in runs
take whole2.out whole.db "--fault exit --after 24"
if [[ $v == *"more whole run"* && $v == *" the 48 samples"* ]]; then
	pass "two whole runs add up (48 samples) and the advice stays in runs ($v)"
else fail "second whole run (status $status): $v"; fi

# the same 24 samples, but --samples stopped a target that went on: record longer
take cut.out cut.db "" --samples 24
if grep -q 'covered: .* which went on' cut.out && [[ $v == *"too few samples"*"record about "*" s more"* ]] &&
	[[ $v != *"whole run"* ]]; then
	pass "a run cut short by --samples: asked to record longer ($v)"
else fail "cut run (status $status): $v"; fi

# one cut run among whole ones: not every run went to the exit, so seconds or samples again
take mixed.out cut.db "--fault exit --after 24"
if [[ $v == *"too few samples"* && $v != *"whole run"* ]]; then
	pass "a cut run and a whole one together: the advice is not in whole runs ($v)"
else fail "mixed runs (status $status): $v"; fi

# what record knows is stored as data (profile.db version 4), the same as its notes say:
# report --json gives each run's covered and slowdown (halted / ran, the notes' percent rounded)
"$RAMPLACE" report --json whole.json whole.db >/dev/null
"$RAMPLACE" report --json cut.json cut.db >/dev/null
if python3 - whole.json cut.json <<'PY'
import json, re, sys
def facts(path):
    out = []
    for r in json.load(open(path))["runs"]:
        pct = float(re.search(r"slowdown ([\d.]+) %", r["notes"]).group(1))
        if r["tool"] != "record" or not isinstance(r["slowdown"], (int, float)) or abs(100 * r["slowdown"] - pct) > 0.05:
            sys.exit("%s run %d: slowdown %r, notes %r" % (path, r["id"], r["slowdown"], r["notes"]))
        out.append(r["covered"])
    return out
w, c = facts(sys.argv[1]), facts(sys.argv[2])
print(w, c)
sys.exit(0 if (w, c) == ([True, True], [False, True]) else 1)
PY
then pass "record stores covered (whole runs true, the cut run false) and the slowdown its notes give"
else fail "report --json's covered and slowdown differ from what record saw"; fi
finish
