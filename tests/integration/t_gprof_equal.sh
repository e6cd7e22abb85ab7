#!/usr/bin/env bash
# t_gprof_equal.sh: ramplace reads a real gmon.out exactly as binutils' gprof does. Builds
# tests/data/gprof/prog.c with `gcc -pg`, runs it for a real gmon.out, imports it and checks
# that `ramplace report` prints the same per-function self seconds and call counts as
# `gprof -b -p` (at gprof's printed precision), and the same "called" entries (per function and
# per arc) as `gprof -b -q`. Then again for a file holding the histogram twice (gprof sums
# records with the same range), for the file fed on standard input, and for tests/data/gprof/plt.c,
# whose samples on the PLT's jumps lie where no function is: gprof credits them to the symbol
# below (_init), and so must the report, while its JSON says they lie outside (self_outside).
# Needs: $RAMPLACE, $RAMPLACE_SRC; gcc, gprof, python3.
. "$(dirname "$0")/lib.sh"
cd "$work"

gcc -O1 -pg -no-pie -fno-inline -o prog "$RAMPLACE_SRC/tests/data/gprof/prog.c"
./prog >/dev/null
[ -s gmon.out ] || { echo "FAIL: prog wrote no gmon.out"; exit 1; }

# compare.py MODE GPROF_OUT RAMPLACE_OUT: the rows gprof prints must be the rows ramplace prints
cat >compare.py <<'PY'
import re, sys
mode, g, r = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
def flat(text):
    rows = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) in (4, 7) and re.match(r'^\d+\.\d\d$', f[0]) and re.match(r'^\d+\.\d\d$', f[2]):
            rows[f[-1]] = (f[2], f[3] if len(f) == 7 else '')
    return rows
def graph(text):
    # primary lines: "[i] %time self children called name [i]"; arc lines under them
    entries, primary, pending = {}, None, []
    for line in text.splitlines():
        if line.startswith('-----'):
            primary, pending = None, []
            continue
        m = re.match(r'^\[\d+\]\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+(\S+)?\s*(\S+) \[\d+\]$', line)
        if m:
            primary = m.group(2)
            entries[('called', primary)] = m.group(1) or ''
            for who, called in pending:
                entries[('parent', who, primary)] = called
            continue
        m = re.match(r'^\s+(?:[\d.]+\s+[\d.]+\s+)?(\d+(?:/\d+)?)\s+(\S+) \[\d+\]$', line)
        if m:
            if primary is None:
                pending.append((m.group(2), m.group(1)))
            else:
                entries[('child', primary, m.group(2))] = m.group(1)
    return entries
want, got = (flat(g), flat(r)) if mode == 'flat' else (graph(g), graph(r))
got.pop('<unknown>', None)
if not want:
    print('gprof printed nothing to compare'); sys.exit(1)
bad = [(k, want.get(k), got.get(k)) for k in sorted(set(want) | set(got), key=str) if want.get(k) != got.get(k)]
for k, w, h in bad:
    print('  %s: gprof %s, ramplace %s' % (k, w, h))
print('%d entries compared' % len(want))
sys.exit(1 if bad else 0)
PY

check() { # NAME GMON_FILE [PROGRAM]
	local name=$1 gmon=$2 prog=${3:-prog}
	rm -f p.db
	# a sample where no function is still lies in the program's code: gprof takes the file
	if ! "$RAMPLACE" import --quiet p.db "$prog" "$gmon" 2>import.err; then
		fail "$name: import refuses the file: $(cat import.err)"
		"$RAMPLACE" import --quiet --force p.db "$prog" "$gmon" 2>/dev/null
	fi
	gprof -b -p "$prog" "$gmon" >gprof-p.txt
	gprof -b -q "$prog" "$gmon" >gprof-q.txt
	"$RAMPLACE" report p.db >rp-p.txt
	"$RAMPLACE" report --graph p.db >rp-q.txt
	if python3 compare.py flat gprof-p.txt rp-p.txt >cmp.txt; then pass "$name: flat profile: $(tail -1 cmp.txt)"
	else fail "$name: flat profile differs from gprof -b -p:"; cat cmp.txt; cat gprof-p.txt rp-p.txt; fi
	if python3 compare.py graph gprof-q.txt rp-q.txt >cmp.txt; then pass "$name: call graph: $(tail -1 cmp.txt)"
	else fail "$name: call graph differs from gprof -b -q:"; cat cmp.txt; cat gprof-q.txt rp-q.txt; fi
}

check "gmon.out" gmon.out

# the same histogram twice: gprof sums records for the same range, so must ramplace
python3 - <<'PY'
import struct
d = open('gmon.out', 'rb').read()
off, hist = 20, None
while off < len(d):
    tag = d[off]
    if tag == 0:
        n = struct.unpack_from('<I', d, off + 17)[0]
        size = 1 + 8 + 8 + 4 + 4 + 16 + 2 * n
        hist = d[off:off + size]
    elif tag == 1:
        size = 1 + 8 + 8 + 4
    else:
        raise SystemExit('unexpected tag %d' % tag)
    off += size
open('twice.out', 'wb').write(d + hist)
PY
check "histogram twice" twice.out

# standard input
rm -f s.db
"$RAMPLACE" import --quiet s.db prog - <gmon.out
"$RAMPLACE" report s.db >rp-stdin.txt
"$RAMPLACE" import --quiet p1.db prog gmon.out
"$RAMPLACE" report p1.db >rp-file.txt
if diff -q rp-stdin.txt rp-file.txt >/dev/null; then pass "gmon.out on standard input"; else fail "stdin import differs"; fi

# samples in the PLT: gprof gives them to _init, the last symbol before .plt
gcc -O1 -pg -no-pie -fno-inline -fno-builtin -o plt "$RAMPLACE_SRC/tests/data/gprof/plt.c"
./plt && mv gmon.out plt.out
gprof -b -p plt plt.out >gprof-plt.txt
if awk '$NF == "_init" && $3 > 0 { found = 1 } END { exit !found }' gprof-plt.txt; then
	pass "plt: gprof credits samples to _init (so the comparison below can fail)"
else
	fail "plt: gprof credits no samples to _init; the PLT comparison shows nothing:"; cat gprof-plt.txt
fi
check "plt" plt.out plt
"$RAMPLACE" report --json plt.json p.db >/dev/null
if python3 - <<'PY'
import json
f = {x['name']: x for x in json.load(open('plt.json'))['functions']}
assert f['_init']['self_outside'] > 0 and f['_init']['self_outside'] == f['_init']['self'], f['_init']
assert f['spin']['self_outside'] == 0 and '<unknown>' not in f, f
PY
then pass "plt: the JSON says _init's samples lie outside it (self_outside)"; else fail "plt: JSON self_outside"; fi

finish
