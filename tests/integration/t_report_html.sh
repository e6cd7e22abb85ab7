#!/usr/bin/env bash
# t_report_html.sh: the HTML report as a user sees it. The bundled Cortex-M3 example is built,
# profiled with exact counts (the QEMU plugin) and reported with `report --html --budget 1K`;
# headless Chromium renders the page to a PNG and dumps its DOM, and report_html/check_page.py
# checks what a person would: the curve has as many points as `report --budget-curve` prints
# and they are the same, the marked budget and the plan's point are the plan's that `place`
# writes, every region of the map adds up to the ELF's section sizes (arm-none-eabi-size -A),
# the table's top rows are `report`'s top functions; the run's facts are `report --runs`' and the
# stability verdict `place`'s; the stack and heap the linker script reserves by symbol are drawn
# in RAM; every function left in flash gives `place`'s reason. Then: `place --html` writes the same
# decision; a profile recorded through the gdbstub (sampled arcs) draws a flame graph; --before
# gives the diff as `diff` prints it; bad uses are one line, exit 2, no file; and a synthetic
# firmware of 50,000 functions gives a page of 2,000 rows and the rest summed up, under 3 MB,
# that Chromium renders (how fast: bench/bench_report_html.sh).
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; arm-none-eabi-gcc, qemu-system-arm, chromium
# (scripts/install-deps.sh installs it).
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
command -v chromium >/dev/null || { echo "chromium is missing: run scripts/install-deps.sh"; exit 1; }
cd "$work"
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
check_page=$RAMPLACE_SRC/tests/integration/report_html/check_page.py
fw=$work/flash/fw.elf
map=$work/flash/fw.map

# Chromium as root needs --no-sandbox; every run is bounded and gets its own profile directory.
browse() { # URL-FILE MODE(dom|png) OUT
	local args=(--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/chrome.$3"
		--no-first-run --disable-extensions)
	if [ "$2" = png ]; then
		timeout 60 chromium "${args[@]}" --window-size=1200,1800 --screenshot="$3" "file://$1" >/dev/null 2>&1
	else
		timeout 60 chromium "${args[@]}" --dump-dom "file://$1" >"$3" 2>/dev/null
	fi
}

make -s -C "$ex" BUILD="$work/flash" ITERATIONS=50 >/dev/null
run_fw "$fw" -plugin "$RAMPLACE_BUILD/libramplace-qemu.so,out=$work/counts.txt" >/dev/null
"$RAMPLACE" import --quiet profile.db "$fw" counts.txt

# the report, the text curve, and the plan `place` makes with the same options
"$RAMPLACE" report --elf "$fw" --map "$map" --budget 1K --budget-curve --html report.html profile.db >curve.txt
"$RAMPLACE" place --budget 1K --map "$map" -o ramtext.ld profile.db "$fw" >place.out
arm-none-eabi-size -A "$fw" >size.txt
"$RAMPLACE" report --runs profile.db >runs.txt
arm-none-eabi-nm "$fw" | awk '$2 == "A" && $3 ~ /^(_Min_Stack_Size|__stack_size|_Min_Heap_Size|__heap_min_size)$/' |
	while read -r value _ sym; do
		case $sym in *tack*) echo "stack $sym $((16#$value))" ;; *) echo "heap $sym $((16#$value))" ;; esac
	done >reserves.txt
[ "$(wc -l <reserves.txt)" -eq 2 ] || fail "the example's linker script declares its stack and heap by symbol"
"$RAMPLACE" report --limit 10 profile.db | awk 'found && NF { print $NF } /^ *time / { found = 1 }' >top.txt
grep -q 'wrote report.html' curve.txt && pass "report --html says where it wrote" || fail "no 'wrote' line"
! grep -Eq '<(script|link|img)[^>]* (src|href)=' report.html && ! grep -q '@import\|url(' report.html &&
	pass "the page loads nothing from elsewhere" || fail "the page refers to outside resources"
browse "$work/report.html" png shot.png
[ "$(head -c 8 shot.png | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] && [ "$(stat -c %s shot.png)" -gt 20000 ] &&
	pass "Chromium renders the page to a PNG" || fail "no screenshot"
browse "$work/report.html" dom dom.html
if python3 "$check_page" dom.html curve.txt ramtext.ld.plan size.txt top.txt place.out runs.txt reserves.txt >check.out; then
	pass "the rendered page ($(grep -c '^ok' check.out) checks)"
else
	cat check.out
	fail "the rendered page"
fi
grep -q 'No call arcs in this profile' dom.html && pass "exact counts have no arcs: the page says so" ||
	fail "no note on the missing arcs"

# place --html: the same decision, written beside the fragment
mkdir p
"$RAMPLACE" place --budget 1K --map "$map" -o p/ramtext.ld --html p/report.html profile.db "$fw" >p.out
grep -q '^wrote p/report.html$' p.out && browse "$work/p/report.html" dom pdom.html &&
	python3 "$check_page" pdom.html curve.txt p/ramtext.ld.plan size.txt top.txt p.out runs.txt reserves.txt >pcheck.out &&
	pass "place --html draws the plan it wrote" || { cat p.out pcheck.out; fail "place --html"; }

# the page's layout as a person sees it, in samples and (the Quick start's page) in modeled
# cycles, at a laptop's and a wider window: no sideways scroll, the curve's labels inside its box
# and readable (report_html/measure.js measures in Chromium, check_layout.py judges)
mkdir cyc
"$RAMPLACE" place --budget 1K --map "$map" -o cyc/ramtext.ld --flash-model ws:5 --html cyc/report.html profile.db "$fw" >cyc.out
layout_ok=1
for page in p/report.html cyc/report.html; do
	sed '/<\/body>/d; /<\/html>/d' "$page" >"$page.measure.html"
	{ echo '<script>'; cat "$RAMPLACE_SRC/tests/integration/report_html/measure.js"; echo '</script></body></html>'; } >>"$page.measure.html"
	for width in 1280 1400; do
		timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/chrome.layout" \
			--no-first-run --disable-extensions --window-size="$width,900" --dump-dom "file://$work/$page.measure.html" \
			>"$page.$width.dom" 2>/dev/null || true
		python3 "$RAMPLACE_SRC/tests/integration/report_html/check_layout.py" "$page.$width.dom" "$width" >"$page.$width.check" ||
			{ layout_ok=0; sed "s|^|$page: |" "$page.$width.check"; }
	done
done
[ "$layout_ok" = 1 ] && pass "the layout at 1280 and 1400 px: no sideways scroll, curve labels inside and readable, in samples and in cycles" ||
	fail "the page's layout"

# the JSON export carries the same curve
"$RAMPLACE" report --elf "$fw" --map "$map" --budget 1K --json out.json profile.db >/dev/null
python3 - curve.txt out.json <<'PY' && pass "--json holds the curve --budget-curve prints" || fail "JSON curve differs"
import json, re, sys
text = open(sys.argv[1]).read()
rows = [tuple(int(x) for x in m.groups()) for m in re.finditer(r"^\s+(\d+)\s+(\d+)\s+[\d.]+%", text, re.M)]
c = json.load(open(sys.argv[2]))["budget_curve"]
sys.exit(0 if [(p["budget"], p["samples"]) for p in c["points"]] == rows and c["plan_budget"] == 1024 else 1)
PY

# sampled arcs (record through QEMU's gdbstub) draw a flame graph; --before draws `diff`'s table
# On a busy machine the rate falls and one run of the firmware may end with a few hundred
# samples: whole runs are recorded into rec.db until it holds 1,500 (runs add up), so what is
# drawn does not depend on the host's speed.
qemu_pid=""
on_exit 'stop_pid "$qemu_pid"'
rec_samples() { sqlite3 rec.db 'SELECT coalesce(sum(samples), 0) FROM runs' 2>/dev/null || echo 0; }
for take in 1 2 3 4 5 6 7 8 9 10; do
	port=$(free_port)
	qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none -semihosting-config enable=on,target=native \
		-kernel "$fw" -gdb "tcp:127.0.0.1:$port" -S >/dev/null 2>&1 &
	qemu_pid=$!
	wait_port "$port" 30
	timeout 120 "$RAMPLACE" record --remote "127.0.0.1:$port" --rate 2000 --samples $((1500 - $(rec_samples))) \
		--timeout 5000 --quiet rec.db "$fw"
	stop_pid "$qemu_pid"
	qemu_pid=""
	[ "$(rec_samples)" -ge 1500 ] && break
done
echo "recorded $(rec_samples) samples in $take run(s)"
"$RAMPLACE" report --elf "$fw" --map "$map" --budget 1K --html rec.html --before profile.db rec.db >/dev/null
browse "$work/rec.html" dom recdom.html
frames=$(grep -o '<rect [^>]*hsl' recdom.html | wc -l)
[ "$frames" -ge 5 ] && grep -q '<title>main: ' recdom.html && pass "a flame graph of the sampled arcs ($frames frames)" ||
	fail "no flame graph ($frames frames)"
"$RAMPLACE" report --runs rec.db >recruns.txt
python3 - recdom.html recruns.txt <<'PY' && pass "a recorded run shows its rate, slowdown and coverage as stored" ||
import html, re, sys
page = open(sys.argv[1]).read()
fact = lambda k: html.unescape(re.search(r'id="run-%s">([^<]*)<' % k, page).group(1))
# one run or several (a busy machine): the page joins each fact's distinct values in run order
runs = [l.split(None, 6) for l in open(sys.argv[2]).read().splitlines()[1:] if l.strip()]
joined = lambda values: ", ".join(dict.fromkeys(values))
rate = joined(r[4] + " Hz" for r in runs)
slow = joined(re.search(r"slowdown ([\d.]+) %", r[6]).group(1) + " %" for r in runs)
covered = joined("no" if "did not cover the whole run" in r[6] else "yes" for r in runs)
method = joined(r[3] for r in runs)
print(fact("rate"), fact("slowdown"), fact("covered"), "vs", rate, slow, covered)
sys.exit(0 if (fact("rate"), fact("slowdown"), fact("covered"), fact("method")) ==
         (rate, slow, covered, method) else 1)
PY
	fail "the recorded run's facts differ from report --runs"
"$RAMPLACE" diff --limit 200 profile.db rec.db >diff.txt
python3 - recdom.html diff.txt <<'PY' && pass "--before shows diff's table" || fail "the before/after differs from diff"
import html, re, sys
m = re.search(r'<pre id="diff-text">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
sys.exit(0 if m and html.unescape(m.group(1)) == open(sys.argv[2]).read() else 1)
PY

# bad uses: one line, exit 2, nothing written
status=0
"$RAMPLACE" report --html x.html profile.db >out 2>err || status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q -- '--elf' err && [ ! -e x.html ] &&
	pass "--html without --elf: exit 2, one line" || fail "--html without --elf (status $status)"
status=0
"$RAMPLACE" report --elf "$fw" --budget 1K --html nodir/x.html profile.db >out 2>err || status=$?
[ "$status" -ne 0 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q 'nodir/x.html' err && [ -z "$(ls nodir 2>/dev/null)" ] &&
	pass "an unwritable --html: one line naming it" || fail "unwritable --html (status $status)"

# 50,000 functions: the table summarises the rest
"$RAMPLACE_SRC/tests/integration/report_html/big_fw.sh" "$RAMPLACE" 50000
# what the page holds is tested here; how fast it is written and rendered is a timing goal, in
# bench/bench_report_html.sh (a busy machine took 11.5 s under ASan where a quiet one takes 2)
timeout 300 "$RAMPLACE" report --elf big.elf --map big.map --budget 4K --html big.html big.db >/dev/null
browse "$work/big.html" dom bigdom.html
rows=$(grep -c '^<tr[ >]' bigdom.html || true)
rest=$(grep -o 'id="rest" data-functions="[0-9]*"' bigdom.html | sed 's/.*="\([0-9]*\)"$/\1/')
echo "50,000 functions: $(stat -c %s big.html) bytes, $rows rows, rest $rest"
[ "$rest" = 48000 ] && [ "$(stat -c %s big.html)" -lt 3000000 ] &&
	pass "50,000 functions: 2,000 rows, 48,000 summed up, the page under 3 MB and rendered" ||
	fail "50,000 functions (rows $rows, rest $rest, $(stat -c %s big.html) bytes)"
finish
