#!/usr/bin/env bash
# t_report_formats.sh: the report views on real data (a gcc -pg program's gmon.out): JSON
# (documented schema), callgrind (the layout KCacheGrind reads), folded stacks, the before/after
# diff, the run list with the saturated-bin note, and the placement view.
# Needs: $RAMPLACE, $RAMPLACE_SRC; gcc, python3.
. "$(dirname "$0")/lib.sh"
cd "$work"

gcc -O1 -pg -no-pie -fno-inline -o prog "$RAMPLACE_SRC/tests/data/gprof/prog.c"
./prog 100000 >/dev/null && mv gmon.out old.out
./prog 200000 >/dev/null && mv gmon.out new.out
"$RAMPLACE" import --quiet p.db prog old.out
"$RAMPLACE" import --quiet p.db prog new.out

"$RAMPLACE" report --json p.json --callgrind callgrind.out.1 --folded p.folded p.db >/dev/null
if python3 - <<'PY'
import json
d = json.load(open('p.json'))
assert d['schema'] == 'ramplace-profile/1' and d['unit'] == 'seconds' and d['rate_hz'] == 100
assert len(d['runs']) == 2 and all(r['tool'] == 'import:gmon' and r['method'] == 'histogram' for r in d['runs'])
f = {x['name']: x for x in d['functions']}
assert f['leaf_b']['calls'] == 3 * 170000 and f['fact']['self_calls'] == 3 * 7 * 10000
arcs = {(a['caller'], a['callee']): a['count'] for a in d['arcs']}
assert arcs[('middle', 'leaf_a')] == 300000 and arcs[('fact', 'fact')] == 210000
assert abs(sum(x['self'] for x in d['functions']) - d['total']) < 0.05 * d['total']
PY
then pass "JSON: schema, runs, calls, self calls, arcs, totals"; else fail "JSON"; fi

if python3 - <<'PY'
lines = open('callgrind.out.1').read().splitlines()
assert lines[0] == '# callgrind format' and 'events: Samples' in lines
import re
names, cost, calls, cur = {}, 0, {}, None
for i, l in enumerate(lines):
    m = re.match(r'^(c?fn)=\((\d+)\)(?: (.*))?$', l)
    if m:
        if m.group(3):
            names[m.group(2)] = m.group(3).split()[0]
        if m.group(1) == 'fn':
            cur = names[m.group(2)]
        else:
            calls[(cur, names[m.group(2)])] = int(lines[i + 1].split('=')[1].split()[0])
    elif l[:2] == '0 ' and not lines[i - 1].startswith('calls='):
        cost += int(l.split()[1])
summary = int([l for l in lines if l.startswith('summary:')][0].split()[1])
assert cost == summary, (cost, summary)
assert calls[('middle', 'leaf_a')] == 300000
PY
then pass "callgrind: costs add up to the summary, calls per arc"; else fail "callgrind"; fi

if python3 - <<'PY'
rows = [l.rsplit(' ', 1) for l in open('p.folded').read().splitlines()]
stacks = {s: float(v) for s, v in rows}
assert any(s.startswith('main;middle;leaf_b') for s in stacks), stacks
assert all(';' in s or s in ('main', '<unknown>', 'frame_dummy') for s in stacks), stacks
PY
then pass "folded stacks: main;middle;leaf_b ..."; else fail "folded stacks"; cat p.folded; fi

"$RAMPLACE" diff p.db@1 p.db@2 >diff.txt
cat diff.txt
if head -1 diff.txt | grep -q 'diff of self seconds' && grep -Eq '^total +[0-9.]+ -> +[0-9.]+ : +\+[0-9.]+ = +\+[0-9.]+% \(\+/-[0-9.]+%\)$' diff.txt &&
   grep -Eq '^leaf_b ' diff.txt; then pass "diff: before/after table with error"; else fail "diff table"; fi

# a saturated bin is reported on import and kept with the run; the bin saturated is the
# fullest one, inside a function (a bin outside prog's code would not verify against it)
python3 - <<'PY'
import struct
d = bytearray(open('old.out', 'rb').read())
n = struct.unpack_from('<I', d, 37)[0]
fullest = max(range(n), key=lambda i: struct.unpack_from('<H', d, 61 + 2 * i)[0])   # bins start at byte 61
struct.pack_into('<H', d, 61 + 2 * fullest, 65535)
open('sat.out', 'wb').write(d)
PY
"$RAMPLACE" import sat.db prog sat.out >imp.txt
"$RAMPLACE" report --runs sat.db >runs.txt
if grep -q 'note: 1 histogram bins saturated at 65535' imp.txt && grep -q 'saturated at 65535' runs.txt; then
	pass "saturated bin noted on import and in report --runs"; else fail "saturation note"; cat imp.txt runs.txt; fi

# the placement view on a host ELF: nothing runs from RAM
"$RAMPLACE" report --elf prog p.db >place.txt
if grep -Eq '^placement in prog: 0\.0% of samples in code running from RAM, [0-9.]+% in flash' place.txt; then
	pass "placement view"; else fail "placement view"; tail -2 place.txt; fi

finish
